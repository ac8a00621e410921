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
    crate::acp::serve(options).await
}
