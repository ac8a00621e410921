//! `sayso acp`: the configuration of the directory sayso starts in is checked (an endpoint is
//! required: nobody is there to pick a local server), logging starts (to its file), and
//! [`crate::acp::serve`] runs until the editor closes stdin. Every session loads the config
//! of its own directory with the same command-line overrides.

use super::fail;
use crate::cli::Cli;
use crate::config::{Config, Overrides, ProcessEnv};
use crate::exit;

pub async fn run(cli: &Cli, overrides: Overrides) -> u8 {
    let config = match Config::load(&overrides, &ProcessEnv) {
        Ok(c) => c,
        Err(e) => return fail(exit::USAGE, e),
    };
    if let Err(e) = config.require_endpoint() {
        return fail(exit::USAGE, e);
    }
    super::keep_secrets(&config);
    for w in &config.warnings {
        eprintln!("sayso: warning: {w}");
    }
    let _log_guard = crate::logging::init(&config.dirs.log_file(), &config.log_level);
    tracing::info!(provider = ?config.provider, model = %config.model, "acp: serving");
    let options = crate::acp::Options {
        overrides,
        no_session: cli.no_session,
        plan: cli.plan,
    };
    on_workers(options).await
}

/// Serves on a runtime of its own with worker threads: a file tool reading the editor's buffer
/// (`fs/read_text_file`) from synchronous code — `edit_file`'s preview, computed before the
/// approval — blocks its thread until the answer comes, so the request must go out and its
/// answer be read on another thread. On the one-thread runtime of subcommands that wait
/// deadlocks until its timeout.
async fn on_workers(options: crate::acp::Options) -> u8 {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("acp".into())
        .spawn(move || {
            let code = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
            {
                Ok(rt) => rt.block_on(crate::acp::serve(options)),
                Err(e) => fail(exit::FAILED, format!("cannot start the async runtime: {e}")),
            };
            let _ = tx.send(code);
        });
    if let Err(e) = spawned {
        return fail(exit::FAILED, format!("cannot start the acp thread: {e}"));
    }
    rx.await.unwrap_or(exit::FAILED)
}
