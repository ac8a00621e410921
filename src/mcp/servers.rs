//! The chat's MCP servers: started at launch in the background (never blocking the UI), their
//! status and tools, calls routed to the right connection (a crashed server is restarted once,
//! on the next call), tool lists refreshed after `notifications/tools/list_changed`, and every
//! server ended when the chat ends (dropping [`Servers`] kills what is still running). A stdio
//! server whose config says `sandbox = true` starts inside the chat's sandbox.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::client::{CallOutput, Connection, McpError, ServerSpec, ToolInfo, Transport};
use super::schema::{Offered, offer};
use crate::config::mcp::{McpServerConfig, McpTransport};
use crate::sandbox::Sandbox;

/// Where a server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Disabled,
    Starting,
    Ready,
    /// It could not start, or it stopped and could not be restarted.
    Failed(String),
}

impl Status {
    pub fn describe(&self) -> String {
        match self {
            Status::Disabled => "disabled (enabled = false)".into(),
            Status::Starting => "starting…".into(),
            Status::Ready => "ready".into(),
            Status::Failed(why) => format!("failed: {why}"),
        }
    }
}

struct State {
    status: Status,
    conn: Option<Arc<Connection>>,
    tools: Vec<ToolInfo>,
    /// Tools not offered, and why (an invalid or too large schema, a bad name).
    skipped: Vec<String>,
    /// A restart after a crash was tried (once per chat).
    restarted: bool,
}

/// One configured server.
pub struct Server {
    pub config: McpServerConfig,
    spec: Result<ServerSpec, String>,
    state: Mutex<State>,
    /// Wakes whoever waits for the start to finish.
    started: Notify,
}

/// A server's status and tools, as `/mcp` shows them.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub name: String,
    pub transport: String,
    pub status: Status,
    pub tools: Vec<ToolInfo>,
    pub skipped: Vec<String>,
}

/// All servers of a chat.
pub struct Servers {
    servers: Vec<Arc<Server>>,
    /// Bumped whenever a server's tools change (started, failed, relisted).
    generation: Arc<AtomicU64>,
    stop: CancellationToken,
}

/// The spec the client connects with; `Err` when a header's variable is not set. `secret_env`:
/// the variables a stdio server must not inherit (the provider keys, every `headers_env`);
/// `sandbox`: the chat's, which a stdio server with `sandbox = true` starts in.
fn spec_of(
    c: &McpServerConfig,
    secret_env: &[String],
    sandbox: &Arc<Sandbox>,
) -> Result<ServerSpec, String> {
    let transport = match &c.transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
            ..
        } => Transport::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: env.clone(),
            cwd: cwd.clone(),
        },
        McpTransport::Http { url, headers_env } => {
            let mut headers = Vec::new();
            for (header, var) in headers_env {
                // The variable was taken out of the environment at start: its captured value.
                let value = crate::config::Env::var(&crate::config::ProcessEnv, var)
                    .ok_or_else(|| format!("${var} is not set (it holds the `{header}` header)"))?;
                headers.push((header.clone(), value));
            }
            Transport::Http {
                url: url.clone(),
                headers,
            }
        }
    };
    Ok(ServerSpec {
        name: c.name.clone(),
        transport,
        startup_timeout: c.startup_timeout,
        secret_env: secret_env.to_vec(),
        sandbox: c.sandbox.then(|| sandbox.clone()),
    })
}

impl Server {
    fn set(&self, status: Status, conn: Option<Arc<Connection>>, tools: Vec<ToolInfo>) {
        // A failure may quote the server's stderr: no secret is shown from it.
        let status = match status {
            Status::Failed(why) => Status::Failed(crate::secrets::scrub_owned(why)),
            other => other,
        };
        let offered: Vec<Offered> = tools.iter().map(|t| offer(&self.config.name, t)).collect();
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.skipped = offered.iter().filter_map(|o| o.skipped.clone()).collect();
        s.tools = tools
            .into_iter()
            .zip(offered)
            .filter(|(_, o)| o.skipped.is_none())
            .map(|(t, _)| t)
            .collect();
        s.status = status;
        s.conn = conn;
    }

    /// Connects and lists the tools; the status says how it went.
    async fn start(&self) -> Result<Arc<Connection>, String> {
        let spec = self.spec.clone()?;
        let conn = Connection::connect(&spec)
            .await
            .map_err(|e| e.to_string())?;
        let tools = conn.list_tools().await.map_err(|e| e.to_string())?;
        let conn = Arc::new(conn);
        self.set(Status::Ready, Some(conn.clone()), tools);
        Ok(conn)
    }

    async fn start_reporting(&self) {
        if let Err(why) = self.start().await {
            tracing::warn!(server = %self.config.name, %why, "MCP server failed to start");
            self.set(Status::Failed(why), None, Vec::new());
        }
        self.started.notify_waiters();
    }

    fn status(&self) -> Status {
        self.state
            .lock()
            .map(|s| s.status.clone())
            .unwrap_or(Status::Failed("poisoned".into()))
    }

    fn connection(&self) -> Option<Arc<Connection>> {
        self.state.lock().ok()?.conn.clone()
    }
}

impl Servers {
    /// Starts every enabled server in the background and returns at once. `secret_env`: the
    /// provider key variables a stdio server must not inherit; `sandbox`: the chat's, for the
    /// stdio servers whose config says `sandbox = true`.
    pub fn start(
        configs: &[McpServerConfig],
        secret_env: &[String],
        sandbox: Arc<Sandbox>,
    ) -> Arc<Servers> {
        let generation = Arc::new(AtomicU64::new(0));
        let stop = CancellationToken::new();
        let servers: Vec<Arc<Server>> = configs
            .iter()
            .map(|c| {
                Arc::new(Server {
                    spec: spec_of(c, secret_env, &sandbox),
                    config: c.clone(),
                    state: Mutex::new(State {
                        status: if c.enabled {
                            Status::Starting
                        } else {
                            Status::Disabled
                        },
                        conn: None,
                        tools: Vec::new(),
                        skipped: Vec::new(),
                        restarted: false,
                    }),
                    started: Notify::new(),
                })
            })
            .collect();
        for s in servers.iter().filter(|s| s.config.enabled) {
            let (s, generation, stop) = (s.clone(), generation.clone(), stop.clone());
            tokio::spawn(async move {
                tokio::select! {
                    () = s.start_reporting() => {}
                    () = stop.cancelled() => return,
                }
                generation.fetch_add(1, Ordering::SeqCst);
            });
        }
        Arc::new(Servers {
            servers,
            generation,
            stop,
        })
    }

    /// No servers configured.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Changes whenever the tools on offer may have changed.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }

    /// Waits until no server is still starting (each is bounded by its startup timeout).
    pub async fn wait_started(&self) {
        for s in &self.servers {
            loop {
                let notified = s.started.notified();
                if s.status() != Status::Starting {
                    break;
                }
                // The start itself times out; this only guards against a missed wake-up.
                let _ = tokio::time::timeout(Duration::from_millis(200), notified).await;
            }
        }
    }

    /// Relists the tools of servers that said their list changed; true when any did.
    pub async fn refresh_changed(&self) -> bool {
        let mut any = false;
        for s in &self.servers {
            let Some(conn) = s.connection() else { continue };
            if !conn.tools_changed() {
                continue;
            }
            if let Ok(tools) = conn.list_tools().await {
                s.set(Status::Ready, Some(conn), tools);
                any = true;
            }
        }
        if any {
            self.generation.fetch_add(1, Ordering::SeqCst);
        }
        any
    }

    /// Every server's status and tools.
    pub fn snapshots(&self) -> Vec<Snapshot> {
        self.servers
            .iter()
            .map(|s| {
                let st = s.state.lock().unwrap_or_else(|e| e.into_inner());
                Snapshot {
                    name: s.config.name.clone(),
                    transport: match &s.config.transport {
                        McpTransport::Stdio { command, args, .. } => {
                            format!("stdio: {command} {}", args.join(" "))
                                .trim_end()
                                .to_owned()
                        }
                        McpTransport::Http { url, .. } => format!("http: {url}"),
                    },
                    status: st.status.clone(),
                    tools: st.tools.clone(),
                    skipped: st.skipped.clone(),
                }
            })
            .collect()
    }

    /// The configured server `name`.
    pub fn server(&self, name: &str) -> Option<&Arc<Server>> {
        self.servers.iter().find(|s| s.config.name == name)
    }

    /// Calls `tool` on `server`. A server whose connection is gone is restarted once per chat
    /// (and the call made on the new connection); after that its calls fail with the reason.
    pub async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        cancel: &CancellationToken,
    ) -> Result<CallOutput, String> {
        let s = self
            .server(server)
            .ok_or_else(|| format!("no MCP server `{server}` is configured"))?;
        let timeout = s.config.call_timeout;
        let conn = match s.connection().filter(|c| !c.is_closed()) {
            Some(c) => c,
            None => self.restart(s).await?,
        };
        match conn
            .call_tool(tool, arguments.clone(), timeout, cancel)
            .await
        {
            Err(McpError::Closed { .. }) if self.may_restart(s) => {
                let conn = self.restart(s).await?;
                conn.call_tool(tool, arguments, timeout, cancel)
                    .await
                    .map_err(|e| e.to_string())
            }
            other => other.map_err(|e| e.to_string()),
        }
    }

    fn may_restart(&self, s: &Server) -> bool {
        s.state.lock().map(|st| !st.restarted).unwrap_or(false)
    }

    /// Starts `s` again after its connection was lost (once per chat).
    async fn restart(&self, s: &Server) -> Result<Arc<Connection>, String> {
        let why = {
            let mut st = s.state.lock().unwrap_or_else(|e| e.into_inner());
            if st.restarted || st.status == Status::Disabled {
                return Err(format!(
                    "the MCP server `{}` is not running ({})",
                    s.config.name,
                    st.status.describe()
                ));
            }
            st.restarted = true;
            st.status.describe()
        };
        tracing::info!(server = %s.config.name, was = %why, "restarting MCP server");
        let result = s.start().await;
        if let Err(e) = &result {
            s.set(
                Status::Failed(format!("stopped, and the restart failed: {e}")),
                None,
                Vec::new(),
            );
        }
        self.generation.fetch_add(1, Ordering::SeqCst);
        result.map_err(|e| {
            format!(
                "the MCP server `{}` stopped and could not be restarted: {e}",
                s.config.name
            )
        })
    }

    /// Ends every server (their process groups); idempotent.
    pub async fn shutdown(&self) {
        self.stop.cancel();
        for s in &self.servers {
            if let Some(conn) = s.connection() {
                conn.shutdown().await;
            }
        }
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        self.stop.cancel();
        // The connections' own Drop kills what is still running.
    }
}
