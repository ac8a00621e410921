//! The subcommands: `sayso config [path|init|check]`, `sayso tools`, `sayso sessions
//! [list|show ID|rm ID|rm --older-than AGE]`, `sayso completions SHELL`. None of them needs an
//! endpoint.

use std::io::Write;
use std::time::SystemTime;

use clap::CommandFactory;

use super::fail;
use crate::cli::{Cli, ConfigAction, SessionsAction};
use crate::config::{Config, Dirs, Overrides, ProcessEnv, config_paths};
use crate::exit;
use crate::session::catalog::{self, Keep, human_size, parse_keep};
use crate::session::record::Record;
use crate::session::store::read_records;
use crate::session::transcript_md::markdown;

const EXAMPLE_CONFIG: &str = include_str!("../../config.example.toml");

/// `sayso completions SHELL`.
pub fn completions(shell: clap_complete::Shell) -> u8 {
    clap_complete::generate(shell, &mut Cli::command(), "sayso", &mut std::io::stdout());
    exit::OK
}

/// `sayso config [path|init|check]`.
pub fn config(action: Option<&ConfigAction>, o: &Overrides) -> u8 {
    let (user, _, project) = config_paths(o, &ProcessEnv);
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
                let _ = writeln!(out, "context:      {}", context_line(&c));
                let key = match (&c.api_key_env, &c.provider.api_key) {
                    (Some(env), Some(_)) => format!("from ${env} (set)"),
                    (Some(env), None) => format!("${env} is not set (fine for local servers)"),
                    (None, _) => "none".into(),
                };
                let _ = writeln!(out, "api key:      {key}");
                let _ = writeln!(out, "log file:     {}", c.dirs.log_file().display());
                let sandbox = crate::agent::chat_sandbox(&c, &o.cwd);
                for line in sandbox_lines(&crate::events::SandboxReport::of(&sandbox)) {
                    let _ = writeln!(out, "{line}");
                }
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

/// The sandbox a chat here would run in, as `config check` shows it: the mode and the
/// backend (or why there is none), then what it cannot enforce.
fn sandbox_lines(r: &crate::events::SandboxReport) -> Vec<String> {
    let head = match (&r.backend, r.in_force) {
        (Err(why), _) if r.fell_back() => format!(
            "off (no backend): {} was asked for, but {why}; commands run unconfined",
            r.configured.as_str()
        ),
        (_, crate::sandbox::Mode::Off) => "off: commands run unconfined".to_owned(),
        (backend, mode) => format!(
            "{} ({}), network {}{}",
            mode.as_str(),
            backend.clone().unwrap_or_else(|why| why),
            if r.network { "allowed" } else { "denied" },
            if r.loopback.is_some() {
                ", loopback allowed"
            } else {
                ""
            }
        ),
    };
    let mut lines = vec![format!("sandbox:      {head}")];
    if let Some(how) = &r.loopback {
        lines.push(format!("  loopback:   {how}"));
    }
    if !r.writable.is_empty() {
        let writable: Vec<String> = r.writable.iter().map(|p| p.display().to_string()).collect();
        lines.push(format!("  writable:   {}", writable.join(", ")));
    }
    lines.extend(r.limits.iter().map(|l| format!("  cannot enforce: {l}")));
    lines
}

/// Where the chat model's context window will come from, without asking the server.
fn context_line(c: &Config) -> String {
    let p = &c.provider;
    let window = match (p.model_windows.get(&c.model), p.context_window) {
        (Some(n), _) => format!("{n} tokens ([context_windows])"),
        (None, Some(n)) => format!("{n} tokens (context_window)"),
        (None, None) => "asked of the server when a chat starts (8192 if it does not say)".into(),
    };
    match p
        .window_caps
        .models
        .get(&c.model)
        .or(p.window_caps.provider.as_ref())
    {
        Some(cap) => format!("{window}; at most {cap} (project config)"),
        None => window,
    }
}

/// `sayso tools`: every tool with its approval settings, the MCP servers' included (they are
/// started, listed and stopped).
pub async fn tools(o: &Overrides) -> u8 {
    let config = match Config::load(o, &ProcessEnv) {
        Ok(c) => c,
        Err(e) => return fail(exit::USAGE, e),
    };
    let mut setup = match crate::tools::configured::build(&config) {
        Ok(s) => s,
        Err(e) => return fail(exit::USAGE, e),
    };
    let servers = started_mcp(&config).await;
    if let Some(s) = &servers {
        let (tools, allowed) = crate::mcp::tools_of(s);
        for t in tools {
            let name = t.name().to_owned();
            setup
                .registry
                .register(t, crate::tools::registry::Source::Mcp);
            if setup.mcp.offers(&name) {
                setup.active.insert(name);
            }
        }
        setup.allowed.extend(allowed);
    }
    let rules = crate::tools::policy::rules::Rules::new(&config.tools.rules);
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let policy = crate::tools::configured::PolicyView {
        mode: config.tools.approval_mode,
        rules: &rules,
        judge_enabled: config.judge.enabled,
        sandboxed: crate::agent::chat_sandbox(&config, &cwd).mode() != crate::sandbox::Mode::Off,
    };
    print!("{}", crate::tools::configured::describe(&setup, &policy));
    if let Some(s) = servers {
        for snap in s.snapshots() {
            if !matches!(snap.status, crate::mcp::servers::Status::Ready) {
                println!("mcp server {}: {}", snap.name, snap.status.describe());
            }
        }
        s.shutdown().await;
    }
    exit::OK
}

/// The config's MCP servers, started and waited for; `None` without any.
async fn started_mcp(config: &Config) -> Option<std::sync::Arc<crate::mcp::servers::Servers>> {
    if config.tools.mcp_servers.is_empty() {
        return None;
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    // The same sandbox a chat here would have (`agent::build`).
    let sandbox = crate::agent::chat_sandbox(config, &cwd);
    let servers = crate::mcp::servers::Servers::start(
        &config.tools.mcp_servers,
        &config.secret_env,
        std::sync::Arc::new(sandbox),
    );
    servers.wait_started().await;
    Some(servers)
}

/// `sayso mcp [list]`: each server's status and tools.
pub async fn mcp_list(o: &Overrides) -> u8 {
    let config = match Config::load(o, &ProcessEnv) {
        Ok(c) => c,
        Err(e) => return fail(exit::USAGE, e),
    };
    for w in &config.warnings {
        eprintln!("sayso: warning: {w}");
    }
    match started_mcp(&config).await {
        Some(s) => {
            println!("{}", crate::mcp::describe(&s));
            let failed = s
                .snapshots()
                .iter()
                .any(|x| matches!(x.status, crate::mcp::servers::Status::Failed(_)));
            s.shutdown().await;
            if failed { exit::FAILED } else { exit::OK }
        }
        None => {
            println!("{}", crate::mcp::NONE_CONFIGURED);
            exit::OK
        }
    }
}

/// `sayso approvals`: the approval policy in force here (mode, allow-list, rules).
pub fn approvals(o: &Overrides) -> u8 {
    let config = match Config::load(o, &ProcessEnv) {
        Ok(c) => c,
        Err(e) => return fail(exit::USAGE, e),
    };
    for w in &config.warnings {
        eprintln!("sayso: warning: {w}");
    }
    let rules = crate::tools::policy::rules::Rules::new(&config.tools.rules);
    let allowed = config.tools.allowed_tools.iter().cloned().collect();
    println!(
        "{}",
        crate::tools::policy::rules::describe_policy(config.tools.approval_mode, &rules, &allowed)
    );
    exit::OK
}

/// `sayso sessions [list|show ID|rm ID|rm --older-than AGE]`.
pub fn sessions(action: Option<&SessionsAction>, _o: &Overrides) -> u8 {
    use crate::checkpoint::UndoAction;
    let data_dir = Dirs::from_env(&ProcessEnv).data;
    let data = || data_dir.as_path();
    let dir = data_dir.join("sessions");
    let removes = matches!(action, Some(SessionsAction::Rm { .. }));
    let code = match action {
        None | Some(SessionsAction::List) => list_sessions(&dir),
        Some(SessionsAction::Show { id, json }) => show_session(&dir, id, *json),
        Some(SessionsAction::Rm {
            older_than: Some(age),
            ..
        }) => match parse_keep(age) {
            Ok(Keep::Age(a)) => {
                let n = catalog::prune(&dir, Keep::Age(a), None, SystemTime::now());
                println!("removed {n} session(s) older than {age}");
                exit::OK
            }
            _ => fail(
                exit::USAGE,
                format!("--older-than {age}: give an age such as 30d, 12h, 90m or 4w"),
            ),
        },
        Some(SessionsAction::Rm { gone: true, .. }) => {
            let n = catalog::remove_gone(&dir);
            println!("removed {n} session(s) whose directory is gone");
            exit::OK
        }
        Some(SessionsAction::Rm { id: Some(id), .. }) => match catalog::find(&dir, id) {
            Ok(s) => match std::fs::remove_file(&s.path) {
                Ok(()) => {
                    println!("removed {}", s.id);
                    exit::OK
                }
                Err(e) => fail(
                    exit::FAILED,
                    format!("cannot remove {}: {e}", s.path.display()),
                ),
            },
            Err(e) => fail(exit::USAGE, e),
        },
        Some(SessionsAction::Rm { .. }) => {
            fail(exit::USAGE, "give a session id or --older-than AGE")
        }
        Some(SessionsAction::Undo {
            id,
            turn,
            yes,
            apply_rest,
        }) => super::sessions_undo::undo(data(), id, UndoAction::Undo, *turn, *yes, *apply_rest),
        Some(SessionsAction::Redo {
            id,
            yes,
            apply_rest,
        }) => super::sessions_undo::undo(data(), id, UndoAction::Redo, None, *yes, *apply_rest),
        Some(SessionsAction::Diff { id, turn }) => super::sessions_undo::diff(data(), id, *turn),
    };
    if removes {
        collect_checkpoints(data());
    }
    code
}

/// Deletes the checkpoint data no remaining session names (after a removal or pruning).
pub fn collect_checkpoints(data_dir: &std::path::Path) {
    match crate::session::undo_state::collect_garbage(data_dir) {
        Ok(c) if c.objects > 0 => {
            tracing::info!(
                objects = c.objects,
                bytes = c.bytes,
                "removed unreferenced checkpoint data"
            )
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(%e, "cannot collect the checkpoint data"),
    }
}

fn list_sessions(dir: &std::path::Path) -> u8 {
    let all = catalog::list(dir);
    let mut out = std::io::stdout().lock();
    if all.is_empty() {
        let _ = writeln!(
            out,
            "no saved sessions yet: chats are saved in {} as you go; continue one with `sayso --resume [ID]`",
            dir.display()
        );
        return exit::OK;
    }
    let _ = writeln!(
        out,
        "{:<12} {:<16} {:>4} {:>9}  {:<30} FIRST MESSAGE",
        "ID", "STARTED (UTC)", "MSGS", "SIZE", "DIRECTORY"
    );
    for s in &all {
        let first: String = s
            .first_message
            .clone()
            .unwrap_or_default()
            .chars()
            .take(60)
            .collect();
        let _ = writeln!(
            out,
            "{:<12} {:<16} {:>4} {:>9}  {:<30} {first}",
            s.id,
            s.started(),
            catalog::message_count(&s.path),
            human_size(s.bytes),
            s.cwd_shown()
        );
    }
    let gone = all.iter().filter(|s| s.dir_gone()).count();
    if gone > 0 {
        let _ = writeln!(
            out,
            "{gone} session(s) marked {}: their directory no longer exists (`sayso sessions rm --gone` removes them)",
            catalog::GONE
        );
    }
    exit::OK
}

fn show_session(dir: &std::path::Path, id: &str, json: bool) -> u8 {
    let s = match catalog::find(dir, id) {
        Ok(s) => s,
        Err(e) => return fail(exit::USAGE, e),
    };
    let (values, skipped) = match read_records(&s.path) {
        Ok(r) => r,
        Err(e) => {
            return fail(
                exit::FAILED,
                format!("cannot read {}: {e}", s.path.display()),
            );
        }
    };
    if skipped > 0 {
        eprintln!(
            "sayso: warning: {skipped} unreadable line(s) skipped in {}",
            s.path.display()
        );
    }
    let mut out = std::io::stdout().lock();
    if json {
        for v in &values {
            let _ = writeln!(out, "{v}");
        }
    } else {
        let records: Vec<Record> = values
            .into_iter()
            .filter_map(|v| serde_json::from_value(v).ok())
            .collect();
        let _ = write!(out, "{}", markdown(&records));
    }
    exit::OK
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::sandbox_lines;
    use crate::events::SandboxReport;
    use crate::sandbox::Mode;

    #[test]
    fn config_check_shows_the_sandbox_its_backend_or_why_none_and_its_limits() {
        let ww = SandboxReport {
            configured: Mode::WorkspaceWrite,
            in_force: Mode::WorkspaceWrite,
            backend: Ok("bubblewrap (/usr/bin/bwrap)".into()),
            network: false,
            loopback: None,
            writable: vec![PathBuf::from("/p"), PathBuf::from("/tmp")],
            protected: vec![],
            hidden: vec![],
            limits: vec!["a limit".into()],
        };
        let with_loopback = SandboxReport {
            loopback: Some("relayed".into()),
            limits: vec![],
            ..ww.clone()
        };
        let fell_back = SandboxReport {
            in_force: Mode::Off,
            backend: Err("bwrap is missing".into()),
            writable: vec![],
            limits: vec![],
            ..ww.clone()
        };
        let off = SandboxReport {
            configured: Mode::Off,
            ..fell_back.clone()
        };
        let rows = [
            (
                ww,
                vec![
                    "sandbox:      workspace-write (bubblewrap (/usr/bin/bwrap)), network denied",
                    "  writable:   /p, /tmp",
                    "  cannot enforce: a limit",
                ],
            ),
            (
                fell_back,
                vec![
                    "sandbox:      off (no backend): workspace-write was asked for, but bwrap is missing; commands run unconfined",
                ],
            ),
            (off, vec!["sandbox:      off: commands run unconfined"]),
            (
                with_loopback,
                vec![
                    "sandbox:      workspace-write (bubblewrap (/usr/bin/bwrap)), network denied, loopback allowed",
                    "  loopback:   relayed",
                    "  writable:   /p, /tmp",
                ],
            ),
        ];
        for (r, want) in rows {
            assert_eq!(sandbox_lines(&r), want);
        }
    }
}
