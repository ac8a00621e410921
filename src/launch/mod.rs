//! What the binary does once the command line is parsed: take the secret variables out of the
//! environment before any thread starts ([`protect_secrets`]), then run a subcommand, or start a
//! chat — the TUI or headless — with its configuration, its tools and its session.
//!
//! - [`chat`]: the TUI and `-p`: config, the demo endpoint, the agent, sessions and resume.
//! - [`prompt`]: the message of `-p`: the argument, stdin, or both.
//! - [`local`]: no endpoint configured: the servers found on this machine, suggested or picked.
//! - [`subcommands`]: `sayso config`, `tools`, `sessions`, `completions`.
//! - [`sessions_undo`]: `sayso sessions undo|redo|diff ID`: undo from a script.

mod chat;
mod local;
mod prompt;
mod sessions_undo;
mod subcommands;

use std::path::PathBuf;

use crate::cli::{Cli, Command};
use crate::config::{Config, DEFAULT_KEY_ENV, Overrides, ProcessEnv};
use crate::exit;

/// Set for `-p --json`: a run that cannot start says why on stdout too, as the one JSON
/// event a script reading stdout will see ([`crate::headless::startup_error`]).
static JSON_ERRORS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Prints `sayso: error: MESSAGE` (and with `--json` the `error` event on stdout) and gives
/// back `code`.
pub fn fail(code: u8, message: impl std::fmt::Display) -> u8 {
    let message = message.to_string();
    eprintln!("sayso: error: {message}");
    json_error(&message);
    code
}

/// With `-p --json`: the startup `error` event on stdout.
fn json_error(message: &str) {
    if JSON_ERRORS.load(std::sync::atomic::Ordering::Relaxed) {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", crate::headless::startup_error(message));
        let _ = out.flush();
    }
}

fn names(list: &[String]) -> Vec<String> {
    list.iter()
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .collect()
}

/// What the command line says about configuration.
fn overrides(cli: &Cli, cwd: PathBuf) -> Overrides {
    Overrides {
        config_file: cli.config.clone(),
        cwd,
        model: cli.model.clone(),
        base_url: cli.base_url.clone(),
        api_key_env: cli.api_key_env.clone(),
        provider: cli.provider.clone(),
        log_level: cli.log_level(),
        auto: cli.auto,
        approval_mode: cli.approval_mode.clone(),
        tools: cli.tools.as_deref().map(names),
        allowed_tools: names(&cli.allowed_tools),
        max_turns: cli.max_turns,
        reasoning_effort: cli.reasoning_effort.clone(),
        sandbox: cli.sandbox.clone(),
    }
}

/// The working directory: `-C DIR`, else the current one.
fn cwd(cli: &Cli) -> Result<PathBuf, String> {
    match &cli.cwd {
        Some(dir) => match std::fs::canonicalize(dir) {
            Ok(d) if d.is_dir() => Ok(d),
            _ => Err(format!("-C {}: not a directory", dir.display())),
        },
        None => Ok(std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))),
    }
}

/// Takes the secret variables out of the environment and keeps the config's secrets (see
/// [`crate::secrets`]). The config is loaded here only to learn which they are; one that does
/// not load leaves the default key variable and `--api-key-env` (`run` reports its error).
///
/// # Safety
/// No other thread may be running: call it from `main` before the async runtime starts.
pub unsafe fn protect_secrets(cli: &Cli) {
    let dir = cwd(cli).unwrap_or_else(|_| PathBuf::from("."));
    let config = Config::load(&overrides(cli, dir), &ProcessEnv).ok();
    let names = match &config {
        Some(c) => c.secret_env.clone(),
        None => [Some(DEFAULT_KEY_ENV.to_owned()), cli.api_key_env.clone()]
            .into_iter()
            .flatten()
            .collect(),
    };
    // SAFETY: the caller guarantees that no other thread runs yet.
    unsafe { crate::secrets::seal(&names) };
    if let Some(c) = config {
        keep_secrets(&c);
    }
}

/// Adds a loaded config's secrets to the process's set.
fn keep_secrets(config: &Config) {
    crate::secrets::register(&config.secrets, &config.secret_env);
}

/// Runs what the command line asks for; returns the exit code.
pub async fn run(cli: Cli) -> u8 {
    if cli.command.is_none() && cli.print && cli.json {
        JSON_ERRORS.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    let cwd = match cwd(&cli) {
        Ok(d) => d,
        Err(e) => return fail(exit::USAGE, e),
    };
    let overrides = overrides(&cli, cwd);
    match &cli.command {
        Some(Command::Completions { shell }) => subcommands::completions(*shell),
        Some(Command::Config { action }) => subcommands::config(action.as_ref(), &overrides),
        Some(Command::Tools) => subcommands::tools(&overrides).await,
        Some(Command::Approvals) => subcommands::approvals(&overrides),
        Some(Command::Mcp { .. }) => subcommands::mcp_list(&overrides).await,
        Some(Command::Sessions { action }) => subcommands::sessions(action.as_ref(), &overrides),
        None => chat::run(&cli, overrides).await,
    }
}
