//! The `sayso` binary: parse the command line, load the configuration, run the chosen mode.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, Parser};

use sayso::agent::Frontend;
use sayso::cli::{Cli, Command, ConfigAction};
use sayso::config::{self, Config, Overrides, ProcessEnv};
use sayso::demo::{DEMO_MODEL, DemoServer};
use sayso::exit;
use sayso::headless::{self, JsonPrinter, Printer, TextPrinter};
use sayso::provider::Client;
use sayso::tools::approval::Interaction;

const EXAMPLE_CONFIG: &str = include_str!("../config.example.toml");

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Headless runs on one thread. The TUI keeps its own thread for input and drawing, and the
    // agent (streams, tools) on worker threads.
    let interactive = !cli.print && cli.command.is_none();
    let built = if interactive {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let runtime = match built {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("sayso: error: cannot start the async runtime: {e}");
            return ExitCode::from(exit::FAILED);
        }
    };
    ExitCode::from(runtime.block_on(run(cli)))
}

fn fail(code: u8, message: impl std::fmt::Display) -> u8 {
    eprintln!("sayso: error: {message}");
    code
}

async fn run(cli: Cli) -> u8 {
    let cwd = match &cli.cwd {
        Some(dir) => match std::fs::canonicalize(dir) {
            Ok(d) if d.is_dir() => d,
            _ => {
                return fail(
                    exit::USAGE,
                    format!("-C {}: not a directory", dir.display()),
                );
            }
        },
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let mut overrides = Overrides {
        config_file: cli.config.clone(),
        cwd,
        model: cli.model.clone(),
        base_url: cli.base_url.clone(),
        api_key_env: cli.api_key_env.clone(),
        provider: cli.provider.clone(),
        log_level: cli.log_level(),
        auto: cli.auto,
        tools: cli.tools.clone().map(|list| {
            list.into_iter()
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty())
                .collect()
        }),
        allowed_tools: cli
            .allowed_tools
            .iter()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect(),
        max_turns: cli.max_turns,
    };

    match &cli.command {
        Some(Command::Completions { shell }) => {
            clap_complete::generate(*shell, &mut Cli::command(), "sayso", &mut std::io::stdout());
            return exit::OK;
        }
        Some(Command::Config { action }) => return config_command(action.as_ref(), &overrides),
        Some(Command::Tools) => return tools_command(&overrides),
        None => {}
    }

    // The demo endpoint replaces whatever endpoint is configured; the rest of the config applies.
    let demo = if cli.demo {
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

    let mut config = match Config::load(&overrides, &ProcessEnv) {
        Ok(c) => c,
        Err(e) => return fail(exit::USAGE, e),
    };
    if let Err(e) = config.require_endpoint() {
        return fail(exit::USAGE, e);
    }
    if demo.is_some() {
        config.provider.api_key = None;
        config.provider.name = "demo".into();
    }
    for w in &config.warnings {
        eprintln!("sayso: warning: {w}");
    }
    let _log_guard = sayso::logging::init(&config.dirs.log_file(), &config.log_level);
    tracing::info!(provider = ?config.provider, model = %config.model, "starting");

    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if !cli.print && !terminal {
        return fail(
            exit::USAGE,
            "the interactive UI needs a terminal on stdin and stdout; use -p for headless mode",
        );
    }
    let prompt = if cli.print {
        match read_prompt(cli.prompt.as_deref()) {
            Ok(p) => p,
            Err(e) => return fail(exit::USAGE, e),
        }
    } else {
        cli.prompt.clone().unwrap_or_default()
    };

    let client = match Client::new(config.provider.clone()) {
        Ok(c) => c,
        Err(e) => return fail(exit::USAGE, e),
    };
    let setup = match sayso::tools::setup::build(&config) {
        Ok(s) => s,
        Err(e) => return fail(exit::USAGE, e),
    };
    // The demo's scripted model creates files: give it a scratch directory unless -C says where.
    let demo_dir = match (&demo, &cli.cwd) {
        (Some(_), None) => match tempfile::Builder::new().prefix("sayso-demo-").tempdir() {
            Ok(d) => {
                eprintln!("sayso: the demo works in {}", d.path().display());
                Some(d)
            }
            Err(e) => {
                return fail(
                    exit::FAILED,
                    format!("cannot create the demo directory: {e}"),
                );
            }
        },
        _ => None,
    };
    let cwd = demo_dir
        .as_ref()
        .map_or(overrides.cwd.clone(), |d| d.path().to_path_buf());
    if !cli.print {
        let (approver, approvals) = tokio::sync::mpsc::unbounded_channel();
        let (questioner, questions) = tokio::sync::mpsc::unbounded_channel();
        let cwd_label = home_relative(&cwd);
        let agent = sayso::agent::build(
            &config,
            client,
            setup,
            cwd,
            Frontend {
                interaction: Interaction::Interactive,
                approver: Some(approver),
                questions: Some(questioner),
            },
        );
        let theme = sayso::tui::theme::Theme::named(
            &config.ui.theme,
            std::env::var("COLORFGBG").ok().as_deref(),
        );
        let options = sayso::tui::run::TuiOptions {
            theme,
            mouse: config.ui.mouse,
            bell: config.ui.bell,
            prompt: Some(prompt).filter(|p| !p.trim().is_empty()),
            cwd_label,
            sessions: Some(config.dirs.data.clone()),
            resume: None,
        };
        let code = sayso::tui::run::run(agent, approvals, questions, options).await;
        drop(demo);
        drop(demo_dir);
        return code;
    }
    let mut agent = sayso::agent::build(
        &config,
        client,
        setup,
        cwd,
        Frontend {
            interaction: Interaction::Headless,
            approver: None,
            questions: None,
        },
    );

    let stdout = std::io::stdout();
    let mut printer: Box<dyn Printer> = if cli.json {
        Box::new(JsonPrinter::new(std::io::BufWriter::with_capacity(
            64 * 1024,
            stdout.lock(),
        )))
    } else {
        let dim = std::io::stderr().is_terminal();
        Box::new(TextPrinter::new(
            std::io::BufWriter::with_capacity(64 * 1024, stdout.lock()),
            std::io::stderr(),
            dim,
        ))
    };
    let mut signals = sayso::signals::Signals::new();
    let end = headless::run(&mut agent, &prompt, printer.as_mut(), signals.recv()).await;
    drop(printer);
    drop(demo);
    drop(demo_dir);
    end.exit_code()
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

/// The prompt from the argument, or from stdin when the argument is absent or `-`.
fn read_prompt(arg: Option<&str>) -> Result<String, String> {
    let prompt = match arg {
        Some(p) if p != "-" => p.to_owned(),
        _ => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                eprintln!("sayso: reading the prompt from stdin (end it with Ctrl+D)");
            }
            let mut s = String::new();
            stdin
                .lock()
                .read_to_string(&mut s)
                .map_err(|e| format!("cannot read the prompt from stdin: {e}"))?;
            s
        }
    };
    if prompt.trim().is_empty() {
        return Err("no prompt given: pass it as an argument or on stdin".into());
    }
    Ok(prompt)
}

fn config_command(action: Option<&ConfigAction>, o: &Overrides) -> u8 {
    let (user, _, project) = config::config_paths(o, &ProcessEnv);
    let exists = |p: &std::path::Path| if p.exists() { "exists" } else { "not found" };
    match action {
        None | Some(ConfigAction::Path) => {
            println!("user:    {} ({})", user.display(), exists(&user));
            println!("project: {} ({})", project.display(), exists(&project));
            exit::OK
        }
        Some(ConfigAction::Init) => {
            if user.exists() {
                return fail(
                    exit::USAGE,
                    format!("{} already exists; not overwriting it", user.display()),
                );
            }
            let written = user
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&user, EXAMPLE_CONFIG));
            match written {
                Ok(()) => {
                    println!("wrote {}", user.display());
                    exit::OK
                }
                Err(e) => fail(
                    exit::FAILED,
                    format!("cannot write {}: {e}", user.display()),
                ),
            }
        }
        Some(ConfigAction::Check) => match Config::load(o, &ProcessEnv) {
            Ok(c) => {
                for w in &c.warnings {
                    eprintln!("sayso: warning: {w}");
                }
                let mut out = std::io::stdout().lock();
                let files: Vec<String> = c.files.iter().map(|f| f.display().to_string()).collect();
                let _ = writeln!(
                    out,
                    "config files: {}",
                    if files.is_empty() {
                        "(none)".into()
                    } else {
                        files.join(", ")
                    }
                );
                let _ = writeln!(out, "provider:     {}", c.provider.name);
                let _ = writeln!(out, "base_url:     {}", c.provider.base_url);
                let _ = writeln!(out, "model:        {}", c.model);
                let key = match (&c.api_key_env, &c.provider.api_key) {
                    (Some(env), Some(_)) => format!("from ${env} (set)"),
                    (Some(env), None) => format!("${env} is not set (fine for local servers)"),
                    (None, _) => "none".into(),
                };
                let _ = writeln!(out, "api key:      {key}");
                let _ = writeln!(out, "log file:     {}", c.dirs.log_file().display());
                if let Err(no_endpoint) = c.require_endpoint() {
                    let _ = writeln!(
                        out,
                        "endpoint:     none configured: chats will not start until you set one\n\n{no_endpoint}"
                    );
                }
                exit::OK
            }
            Err(e) => fail(exit::USAGE, e),
        },
    }
}

fn tools_command(o: &Overrides) -> u8 {
    let config = match Config::load(o, &ProcessEnv) {
        Ok(c) => c,
        Err(e) => return fail(exit::USAGE, e),
    };
    let setup = match sayso::tools::setup::build(&config) {
        Ok(s) => s,
        Err(e) => return fail(exit::USAGE, e),
    };
    print!(
        "{}",
        sayso::tools::setup::describe(&setup, config.judge.enabled)
    );
    exit::OK
}
