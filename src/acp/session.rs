//! One ACP session: a sayso chat (its agent, its session file) in a task of its own, opened
//! for `session/new` or continued for `session/load`, driven by [`Command`]s from the
//! connection's handlers.
//!
//! The chat is built as the TUI's is: the config of the session's directory (with the command
//! line's `--approval-mode`, `--sandbox`, … over it), the same tools, MCP servers (the user's,
//! and the editor's joining them under the same approval rules), the same session files. It
//! refuses a directory that is not an existing absolute one. The turn itself is
//! [`super::turn`].

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    ClientCapabilities, McpServer, SessionMode, SessionModeState, SessionUpdate,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::agent::saving::Saving;
use crate::agent::{Agent, Frontend};
use crate::config::mcp::{McpApproval, McpServerConfig, McpTransport};
use crate::config::{Config, Overrides, ProcessEnv};
use crate::events::{Event, EventSink, Mode};
use crate::tools::lifecycle::requests::ApprovalRequest;
use crate::tools::policy::approval::Interaction;

/// What the command line says for every session of the process.
#[derive(Debug, Clone)]
pub struct Options {
    pub overrides: Overrides,
    /// `--no-session`: nothing is saved.
    pub no_session: bool,
    /// `--plan`: plan mode on from the start.
    pub plan: bool,
}

/// What a session's task is asked to do.
pub enum Command {
    /// Run one prompt; the reply is its stop reason, or an error for the editor.
    Prompt {
        text: String,
        /// The prompt's image blocks that pass (`super::prompt::images`).
        images: Vec<crate::provider::Image>,
        reply: tokio::sync::oneshot::Sender<super::turn::Ended>,
    },
    SetMode(Mode),
    /// Switch the model (during a prompt: from the next request).
    SetModel(String),
}

/// The connection's side of a session.
#[derive(Clone)]
pub struct Handle {
    /// The session's directory (for the prompt's links).
    pub cwd: PathBuf,
    pub commands: mpsc::UnboundedSender<Command>,
    /// The current prompt's token (a fresh one once it ends).
    pub cancel: Arc<Mutex<CancellationToken>>,
    /// The models offered, and the one chosen.
    pub models: Arc<Mutex<super::models::Models>>,
}

impl Handle {
    /// `session/cancel`: stops the prompt running now, if any.
    pub fn cancel(&self) {
        if let Ok(token) = self.cancel.lock() {
            token.cancel();
        }
    }
}

/// A session's chat, before its task starts.
pub struct Session {
    pub id: String,
    pub agent: Agent,
    pub saving: Saving,
    pub approvals: mpsc::UnboundedReceiver<ApprovalRequest>,
    pub cwd: PathBuf,
    pub client: ClientCapabilities,
    pub models: super::models::Models,
}

/// The session modes: sayso's approval modes, `current` first among equals.
pub fn modes(current: Mode) -> SessionModeState {
    SessionModeState::new(
        current.as_str(),
        Mode::ALL
            .iter()
            .map(|m| SessionMode::new(m.as_str(), mode_name(*m)).description(m.describe()))
            .collect(),
    )
}

fn mode_name(m: Mode) -> &'static str {
    match m {
        Mode::Trust => "Trust",
        Mode::Auto => "Auto",
        Mode::Balanced => "Balanced",
        Mode::Suggest => "Suggest",
        Mode::Strict => "Strict",
    }
}

/// The editor's directory for a session: absolute and existing, canonical.
pub fn directory(cwd: &Path) -> Result<PathBuf, String> {
    if !cwd.is_absolute() {
        return Err(format!("cwd {}: not an absolute path", cwd.display()));
    }
    match std::fs::canonicalize(cwd) {
        Ok(d) if d.is_dir() => Ok(d),
        _ => Err(format!("cwd {}: not a directory", cwd.display())),
    }
}

/// The editor's MCP servers as sayso's: stdio ones join with the defaults of a server the user
/// configured without settings (their tools ask first, as the user's do); HTTP and SSE ones
/// are refused by the capabilities and skipped here, with their names returned.
pub fn editor_servers(
    servers: &[McpServer],
    taken: &[String],
) -> (Vec<McpServerConfig>, Vec<String>) {
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for s in servers {
        match s {
            McpServer::Stdio(stdio) => {
                let mut name = sanitized(&stdio.name);
                while taken.contains(&name) || out.iter().any(|o: &McpServerConfig| o.name == name)
                {
                    name = format!("{}_", name.chars().take(30).collect::<String>());
                }
                let env = stdio
                    .env
                    .iter()
                    .map(|v| (v.name.clone(), v.value.clone()))
                    .collect();
                let secret_env = stdio.env.iter().map(|v| v.name.clone()).collect();
                out.push(McpServerConfig {
                    name,
                    transport: McpTransport::Stdio {
                        command: stdio.command.display().to_string(),
                        args: stdio.args.clone(),
                        env,
                        secret_env,
                        cwd: None,
                    },
                    // The defaults of a `[mcp_servers.NAME]` table with only `command`.
                    enabled: true,
                    startup_timeout: std::time::Duration::from_secs(30),
                    call_timeout: std::time::Duration::from_secs(120),
                    approval: McpApproval {
                        require_approval_before: true,
                        protect: false,
                        judge: true,
                    },
                    tools: Default::default(),
                    allowed_tools: Vec::new(),
                    sandbox: false,
                });
            }
            other => skipped.push(server_name(other)),
        }
    }
    (out, skipped)
}

fn server_name(s: &McpServer) -> String {
    match s {
        McpServer::Http(h) => h.name.clone(),
        McpServer::Sse(h) => h.name.clone(),
        McpServer::Stdio(h) => h.name.clone(),
        _ => "unnamed".into(),
    }
}

/// A server name sayso accepts (letters, digits, `-`, `_`; at most 32; no `__`).
fn sanitized(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(32)
        .collect();
    while s.contains("__") {
        s = s.replace("__", "_");
    }
    if s.is_empty() { "editor".into() } else { s }
}

/// Opens a session in `cwd` (continuing the saved session `resume` when given); the events a
/// continued session replays come back to be sent before the answer.
pub async fn open(
    options: &Options,
    cwd: &Path,
    mcp: &[McpServer],
    client: ClientCapabilities,
    resume: Option<&str>,
) -> Result<(Session, Vec<Event>), String> {
    let cwd = directory(cwd)?;
    let overrides = Overrides {
        cwd: cwd.clone(),
        ..options.overrides.clone()
    };
    let mut config = Config::load(&overrides, &ProcessEnv).map_err(|e| e.to_string())?;
    config.require_endpoint().map_err(|e| e.to_string())?;
    let taken: Vec<String> = config
        .tools
        .mcp_servers
        .iter()
        .map(|s| s.name.clone())
        .collect();
    let (joined, skipped) = editor_servers(mcp, &taken);
    for name in skipped {
        tracing::warn!(server = %name, "an editor's HTTP/SSE MCP server: not supported, skipped");
    }
    config.tools.mcp_servers.extend(joined);
    crate::secrets::register(&config.secrets, &config.secret_env);
    // The editor's servers' `env` values are kept out of tool output like the user's secrets.
    let values: Vec<crate::secrets::Secret> = config
        .tools
        .mcp_servers
        .iter()
        .flat_map(|s| s.secret_values())
        .map(|(label, value)| crate::secrets::Secret::new(label, value))
        .collect();
    crate::secrets::register(&values, &[]);
    let (approver, approvals) = mpsc::unbounded_channel();
    let frontend = Frontend {
        interaction: Interaction::Interactive,
        approver: Some(approver),
        questions: None,
    };
    let (agent, endpoint) =
        crate::agent::build::chat(&config, cwd.clone(), frontend, options.plan)?;
    let listed = super::models::listed(&endpoint).await;
    let data = (!options.no_session && config.sessions.save).then(|| config.dirs.data.clone());
    let mut session = Session {
        id: String::new(),
        saving: Saving::new(data, &agent),
        agent,
        approvals,
        cwd,
        client,
        models: super::models::Models::new(String::new(), Vec::new()),
    };
    let mut replay = Vec::new();
    if let Some(id) = resume {
        let (front, mut rx) = EventSink::channel();
        session
            .saving
            .resume(&mut session.agent, Some(id), &front)
            .await?;
        drop(front);
        while let Ok(ev) = rx.try_recv() {
            replay.push(ev);
        }
    }
    session.models = super::models::Models::new(session.agent.model(), listed);
    // A loaded session keeps the id the editor named it by (a prefix stays a prefix).
    session.id = match resume {
        Some(id) => id.to_owned(),
        None => session
            .saving
            .id()
            .map(str::to_owned)
            .unwrap_or_else(unsaved_id),
    };
    Ok((session, replay))
}

/// An id for a session that is not saved (`--no-session`).
fn unsaved_id() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("unsaved-{}-{n}", std::process::id())
}

/// The replayed events of a continued session as updates.
pub fn replay_updates(session: &Session, events: &[Event]) -> Vec<SessionUpdate> {
    let kinds = super::turn::kinds(&session.agent);
    let mut updates = super::updates::Updates::new(session.cwd.clone());
    events
        .iter()
        .flat_map(|e| updates.map(e, &|n| kinds(n)))
        .collect()
}
