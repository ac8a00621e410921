//! A chat: the TUI, or headless with `-p`. Loads the configuration (with the demo endpoint in
//! place of the configured one for `--demo`), requires an endpoint (when there is none, offers
//! the servers running on this machine: `local`), builds the tools and the agent, prunes old
//! sessions, and continues a saved session when asked (`--resume`, `--continue`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::fail;
use super::local::{self, Choice, Offer};
use crate::agent::Frontend;
use crate::agent::saving::{Saving, resume_hint};
use crate::cli::Cli;
use crate::config::{Config, ConfigError, Overrides, ProcessEnv, config_paths};
use crate::demo::{DEMO_MODEL, DemoServer};
use crate::events::{EventSink, Notice};
use crate::exit;
use crate::headless::{self, JsonPrinter, Printer, TextPrinter};
use crate::session::catalog::{self, Keep};
use crate::tools::policy::approval::Interaction;
use crate::tui::theme::Theme;

/// The demo endpoint, and the directory its tools work in.
struct Demo {
    _server: DemoServer,
    _dir: Option<crate::demo::workdir::Workdir>,
}

pub async fn run(cli: &Cli, mut overrides: Overrides) -> u8 {
    // The demo endpoint replaces whatever endpoint is configured; the rest of the config applies.
    let server = if cli.demo {
        match DemoServer::start(Duration::from_millis(8)).await {
            Ok(server) => {
                overrides.base_url = Some(server.base_url());
                overrides.provider = None;
                overrides.model.get_or_insert_with(|| DEMO_MODEL.to_owned());
                Some(server)
            }
            Err(e) => return fail(exit::FAILED, format!("cannot start the demo endpoint: {e}")),
        }
    } else {
        None
    };
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let Ok(config) = Config::load(&overrides, &ProcessEnv).map_err(|e| fail(exit::USAGE, e)) else {
        return exit::USAGE;
    };
    // Mistakes in the command line itself (no terminal for the TUI, no prompt, an unknown
    // session) are reported before the missing endpoint, which would hide them.
    if !cli.print && !terminal {
        return fail(
            exit::USAGE,
            "the interactive UI needs a terminal on stdin and stdout; use -p for headless mode",
        );
    }
    if cli.approvals.is_some() && matches!(cli.prompt.as_deref(), None | Some("-")) {
        return fail(
            exit::USAGE,
            "--approvals stdio reads answers on stdin: give the prompt as an argument",
        );
    }
    let message = if cli.print {
        let ask = super::prompt::Ask {
            arg: cli.prompt.as_deref(),
            wait: cli.read_stdin,
            control: cli.approvals.is_some(),
        };
        match super::prompt::read(&ask) {
            Ok((m, notes)) => {
                for n in notes {
                    eprintln!("sayso: {n}");
                }
                Some(m)
            }
            Err(e) => return fail(exit::USAGE, e),
        }
    } else {
        None
    };
    // The demo's scripted model creates files: it works in its own directory unless -C says
    // where (reset for a new demo chat, kept when one is continued).
    let demo_dir = match (&server, &cli.cwd) {
        (Some(_), None) => {
            let fresh = cli.resume_choice().is_none();
            match crate::demo::workdir::prepare(fresh) {
                Ok(d) => Some(d),
                Err(e) => {
                    return fail(
                        exit::FAILED,
                        format!("cannot prepare the demo directory: {e}"),
                    );
                }
            }
        }
        _ => None,
    };
    let cwd = demo_dir
        .as_ref()
        .map_or(overrides.cwd.clone(), |d| d.path().to_path_buf());
    let sessions = sessions_dir(cli, &config);
    let resume = match resumed_id(cli, sessions.as_deref(), &cwd, demo_dir.is_some()) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (mut config, local) =
        match endpoint(cli, config, &mut overrides, server.is_some(), terminal).await {
            Ok(loaded) => loaded,
            Err(code) => return code,
        };
    // Undo's checkpoints are named by the session's records: none without a session.
    config.undo.enabled &= sessions.is_some();
    let _log_guard = crate::logging::init(&config.dirs.log_file(), &config.log_level);
    tracing::info!(provider = ?config.provider, model = %config.model, "starting");
    if sessions.is_some() {
        prune_sessions(cli, &config);
    }
    if let Some(d) = &demo_dir {
        eprintln!("sayso: {}", d.describe(resume.is_none()));
    }
    let _demo = server.map(|s| Demo {
        _server: s,
        _dir: demo_dir,
    });
    if let Some(message) = message {
        headless_chat(cli, &config, cwd, &message, sessions, resume).await
    } else {
        let prompt = cli.prompt.clone().unwrap_or_default();
        let (code, saved) = tui_chat(&config, cwd, prompt, sessions, resume, cli.plan).await;
        // The terminal is restored: the line stays on the screen the user returns to.
        if let Some(id) = saved {
            eprintln!("{}", resume_hint(&id, &resume_flags(cli, local.as_ref())));
        }
        if let Some(choice) = local {
            let (user_file, _, _) = config_paths(&overrides, &ProcessEnv);
            eprintln!("{}", choice.keep_hint(&user_file));
        }
        code
    }
}

/// The configuration `config` (loaded from `overrides`), with an endpoint: the demo's when
/// `demo`; when none is configured, a server on this machine that the user picked
/// ([`local::offer`]), which is returned too. `Err` is the exit code, the message already
/// printed.
async fn endpoint(
    cli: &Cli,
    mut config: Config,
    overrides: &mut Overrides,
    demo: bool,
    terminal: bool,
) -> Result<(Config, Option<Choice>), u8> {
    let mut local = None;
    if let Err(no_endpoint) = config.require_endpoint() {
        let ConfigError::NoEndpoint {
            key_env,
            config_file,
        } = &no_endpoint
        else {
            return Err(fail(exit::USAGE, no_endpoint));
        };
        let theme = Theme::from_env(&config.ui.theme, |k| std::env::var(k).ok());
        let ask = local::Ask {
            headless: cli.print,
            terminal,
            model: cli.model.as_deref(),
            key_env,
            config_file: config_file.as_deref(),
            theme: &theme,
        };
        match local::offer(ask).await {
            Offer::Exit(code) => return Err(code),
            Offer::Use(choice) => {
                overrides.base_url = Some(choice.server.base_url.clone());
                overrides.model = Some(choice.model.clone());
                overrides.provider = None;
                config = Config::load(overrides, &ProcessEnv).map_err(|e| fail(exit::USAGE, e))?;
                config.provider.name = choice.server.kind.name().to_owned();
                local = Some(choice);
            }
        }
    }
    super::keep_secrets(&config);
    if demo {
        config.provider.api_key = None;
        config.provider.name = "demo".into();
    }
    for w in &config.warnings {
        eprintln!("sayso: warning: {w}");
    }
    Ok((config, local))
}

/// Where sessions are saved (`None`: not saved).
fn sessions_dir(cli: &Cli, config: &Config) -> Option<PathBuf> {
    if cli.no_session || !config.sessions.save {
        return None;
    }
    Some(config.dirs.data.clone())
}

/// Prunes old sessions once the chat can start (`sessions.keep` counts the one this run
/// starts; a run that resumes one prunes nothing).
fn prune_sessions(cli: &Cli, config: &Config) {
    if let (Some(keep), None) = (config.sessions.keep, cli.resume_choice()) {
        let keep = match keep {
            Keep::Count(n) => Keep::Count(n.saturating_sub(1)),
            age => age,
        };
        let dir = config.dirs.data.join("sessions");
        let n = catalog::prune(&dir, keep, None, SystemTime::now());
        if n > 0 {
            tracing::info!(removed = n, "pruned old sessions (sessions.keep)");
            // Their checkpoint data goes with them (what another session names stays).
            super::subcommands::collect_checkpoints(&config.dirs.data);
        }
    }
}

/// The full id of the session `--resume`/`--continue` mean, known before the chat starts: an
/// unknown or ambiguous id exits 2 (with the candidates), in the TUI as headless.
fn resumed_id(
    cli: &Cli,
    sessions: Option<&std::path::Path>,
    cwd: &std::path::Path,
    demo: bool,
) -> Result<Option<String>, u8> {
    let Some(id) = cli.resume_choice() else {
        return Ok(None);
    };
    let Some(data) = sessions else {
        return Err(fail(
            exit::USAGE,
            "sessions are off (`[sessions] save = false`)",
        ));
    };
    let dir = data.join("sessions");
    if demo && id.is_none() && catalog::latest_in(&dir, cwd).is_none() {
        return Err(fail(
            exit::USAGE,
            "no demo chat to continue yet: `sayso --demo` starts one (it is saved as you go)",
        ));
    }
    crate::session::choose::choose(&dir, id.as_deref(), cwd)
        .map(|s| Some(s.id))
        .map_err(|e| fail(exit::USAGE, e))
}

async fn tui_chat(
    config: &Config,
    cwd: PathBuf,
    prompt: String,
    sessions: Option<PathBuf>,
    resume: Option<String>,
    plan: bool,
) -> (u8, Option<String>) {
    let (approver, approvals) = tokio::sync::mpsc::unbounded_channel();
    let (questioner, questions) = tokio::sync::mpsc::unbounded_channel();
    let cwd_label = home_relative(&cwd);
    let frontend = Frontend {
        interaction: Interaction::Interactive,
        approver: Some(approver),
        questions: Some(questioner),
    };
    let commands = crate::tui::run::file_commands(config, &cwd);
    let agent = match crate::agent::build::chat(config, cwd, frontend, plan) {
        Ok((a, _)) => a,
        Err(e) => return (fail(exit::USAGE, e), None),
    };
    let theme = crate::tui::theme::Theme::from_env(&config.ui.theme, |k| std::env::var(k).ok());
    let options = crate::tui::run::TuiOptions {
        theme,
        mouse: config.ui.mouse,
        bell: config.ui.bell,
        notify: crate::tui::notify::Notifier::choose(&config.ui.notify, |k| std::env::var(k).ok()),
        notify_after: config.ui.notify_after,
        show_reasoning: config.ui.show_reasoning,
        steer: config.ui.steer,
        prompt: Some(prompt).filter(|p| !p.trim().is_empty()),
        cwd_label,
        sessions,
        resume: resume.map(Some),
        history: Some(config.dirs.state.clone()),
        commands,
    };
    crate::tui::run::run(agent, approvals, questions, options).await
}

async fn headless_chat(
    cli: &Cli,
    config: &Config,
    cwd: PathBuf,
    message: &super::prompt::Message,
    sessions: Option<PathBuf>,
    resume: Option<String>,
) -> u8 {
    // `--approvals stdio`: someone answers after all — the program on the other end of stdio.
    let (approver, controller) = if cli.approvals.is_some() {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let controller = headless::Controller {
            approvals: rx,
            lines: headless::control::stdin_lines(),
            control: headless::control::Control::new(Duration::from_secs(
                cli.approval_timeout.max(1),
            )),
        };
        (Some(tx), Some(controller))
    } else {
        (None, None)
    };
    let frontend = Frontend {
        interaction: if approver.is_some() {
            Interaction::Interactive
        } else {
            Interaction::Headless
        },
        approver,
        questions: None,
    };
    let (mut agent, client) = match crate::agent::build::chat(config, cwd, frontend, cli.plan) {
        Ok(a) => a,
        Err(e) => return fail(exit::USAGE, e),
    };
    let mut saving = Saving::new(sessions, &agent);
    let mut notices = Vec::new();
    if let Some(id) = resume {
        // The saved transcript is not printed again: only the new turn is.
        let (quiet, _) = EventSink::channel();
        match saving.resume(&mut agent, Some(&id), &quiet).await {
            Ok(saved) => {
                if saved.skipped > 0 {
                    eprintln!(
                        "sayso: warning: {}",
                        headless::notices::skipped_lines(saved.skipped)
                    );
                }
                notices.extend(saved.banner.into_iter().map(Notice::Banner));
                notices.extend(saved.notice);
            }
            Err(e) => return fail(exit::USAGE, e),
        }
    }
    // Piped input is cut to what the model's window can take (the window is cached for the
    // agent, which asks for it next).
    let (prompt, cut) = message.text(client.context_window(&agent.model()).await.tokens);
    if let Some(note) = cut {
        eprintln!("sayso: {note}");
    }
    let stdout = std::io::stdout();
    let mut printer: Box<dyn Printer> = if cli.json {
        Box::new(
            JsonPrinter::new(std::io::BufWriter::with_capacity(64 * 1024, stdout.lock()))
                .with_mcp_servers(
                    config
                        .tools
                        .mcp_servers
                        .iter()
                        .map(|s| s.name.clone())
                        .collect(),
                ),
        )
    } else {
        let dim = std::io::stderr().is_terminal();
        Box::new(TextPrinter::new(
            std::io::BufWriter::with_capacity(64 * 1024, stdout.lock()),
            std::io::stderr(),
            dim,
        ))
    };
    let mut signals = crate::signals::Signals::new();
    let end = headless::run(
        &mut agent,
        &prompt,
        printer.as_mut(),
        &mut saving,
        signals.recv(),
        controller,
        &notices,
    )
    .await;
    drop(printer);
    if let Some(servers) = agent.mcp() {
        servers.shutdown().await;
    }
    // Text mode: stdout is the reply alone; `--json` has the id in `session_started`.
    let saved = saving.saved_id().map(str::to_owned);
    if let Some(e) = saving.close().await {
        eprintln!("sayso: warning: {e}");
    }
    if let (Some(id), false) = (saved, cli.json) {
        eprintln!("{}", resume_hint(&id, &resume_flags(cli, None)));
    }
    end.exit_code()
}

/// The options of this command line that chose the endpoint (and the directory, when not the
/// current one), for the command that continues the chat: without them it would not reach the
/// same model. `local`: the server picked at start, which no option named.
fn resume_flags(cli: &Cli, local: Option<&Choice>) -> Vec<String> {
    let path = |p: Option<&PathBuf>| p.map(|p| p.display().to_string());
    let here = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    let elsewhere = cli
        .cwd
        .as_ref()
        .filter(|d| std::fs::canonicalize(d).ok() != here);
    let pairs = [
        ("-c", path(cli.config.as_ref())),
        ("-C", path(elsewhere)),
        ("--provider", cli.provider.clone()),
        (
            "--base-url",
            local
                .map(|c| c.server.base_url.clone())
                .or(cli.base_url.clone()),
        ),
        ("-m", local.map(|c| c.model.clone()).or(cli.model.clone())),
        ("--api-key-env", cli.api_key_env.clone()),
    ];
    let mut flags: Vec<String> = cli.demo.then(|| "--demo".to_owned()).into_iter().collect();
    for (flag, value) in pairs {
        if let Some(v) = value {
            flags.extend([flag.to_owned(), v]);
        }
    }
    flags
}

/// `~/x` for paths under the home directory.
fn home_relative(p: &std::path::Path) -> String {
    match std::env::var_os("HOME").map(PathBuf::from) {
        Some(home) if p.starts_with(&home) => format!(
            "~/{}",
            p.strip_prefix(&home)
                .map(|r| r.display().to_string())
                .unwrap_or_default()
        ),
        _ => p.display().to_string(),
    }
}
