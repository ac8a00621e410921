//! One connection to one MCP server, on the official Rust SDK (`rmcp`) behind a small API of
//! our own: [`Connection::connect`], [`Connection::list_tools`], [`Connection::call_tool`] (with
//! a timeout and cancellation), [`Connection::shutdown`].
//!
//! In: a [`ServerSpec`] (how to reach the server, how long startup may take, which of our
//! environment variables it must not see). Out: [`ToolInfo`]s, [`CallOutput`]s ready for the
//! engine, and [`McpError`]s worded for the user and the model, each naming the server.
//!
//! Invariants:
//! - a stdio server runs as the leader of its own process group; shutting down, or dropping the
//!   [`Connection`], signals that whole group (never group 0, 1 or sayso's own), so no server
//!   outlives its connection;
//! - every call that stops waiting early (timeout, user cancel, the future dropped) sends the
//!   protocol's `notifications/cancelled` for its request;
//! - nothing a server sends can panic us: results are read as plain JSON ([`format_result`]).
//!
//! Not here: tool naming (`NAME__TOOL`), approvals, the queue, or reconnecting — the caller owns
//! those. Stdio servers are spawned by us, not by `rmcp`'s child-process transport, so that we own
//! the process group and keep its stderr for error messages.
//!
//! - `connect`: starting the transport (spawned process or streamable HTTP) and `initialize`;
//! - `process`: the spawned server: its group, its stderr tail, its exit, signalling it;
//! - `call`: one `tools/call` with timeout, cancellation and the cancel-on-drop guard;
//! - `format`: a `CallToolResult` (as JSON) into a [`CallOutput`].

mod call;
mod connect;
mod format;
mod process;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{PaginatedRequestParams, Tool};
use rmcp::service::{Peer, RoleClient, RunningService};
use tokio_util::sync::CancellationToken;

pub use format::format_result;

use connect::Handler;
use process::ServerProcess;

/// How long `shutdown` waits for the transport to close before signalling the process group.
const CLOSE_WAIT: Duration = Duration::from_millis(500);
/// How long a server group has to exit after SIGTERM before it gets SIGKILL.
const KILL_GRACE: Duration = Duration::from_millis(1500);
/// A server that pages its tool list forever is broken; stop there.
const MAX_TOOL_PAGES: usize = 1000;

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// Spawned by us: `command args…` in `cwd` (None: sayso's working directory), with `env` added
    /// to the environment; stdin/stdout carry JSON-RPC, stderr is kept (last ~4 KiB) for error
    /// messages.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP at `url`, with these headers (values already resolved from env vars by the
    /// caller).
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

#[derive(Debug, Clone)]
pub struct ServerSpec {
    pub name: String,
    pub transport: Transport,
    /// Connect + initialize must finish within this (and so must each `list_tools`).
    pub startup_timeout: Duration,
    /// Environment variable names that must NOT be passed to a stdio server (the provider API
    /// keys); they are removed from the child's environment unless `env` sets them explicitly.
    pub secret_env: Vec<String>,
    /// The sandbox a stdio server starts in (its `sandbox = true`), as the settings say
    /// (network included); `None`: unconfined. Ignored for HTTP servers.
    pub sandbox: Option<Arc<crate::sandbox::Sandbox>>,
}

/// One tool as the server lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    /// The input JSON Schema object as the server sent it.
    pub input_schema: serde_json::Value,
    /// Annotations (hints) when present.
    pub read_only: Option<bool>,
    pub destructive: Option<bool>,
    pub open_world: Option<bool>,
}

/// The description and schema are scrubbed of secret values (`crate::secrets`): they go to the
/// model, the judge and `/mcp`, and a server may hold a secret (its `secret_env`, the token of
/// its `headers_env`) that it could otherwise put there.
impl From<Tool> for ToolInfo {
    fn from(tool: Tool) -> Self {
        let hints = tool.annotations.as_ref();
        let description = tool.description.map(|d| d.into_owned()).unwrap_or_default();
        let schema = serde_json::Value::Object((*tool.input_schema).clone());
        ToolInfo {
            name: tool.name.into_owned(),
            description: crate::secrets::scrub_owned(description),
            input_schema: crate::secrets::scrub_json(schema),
            read_only: hints.and_then(|h| h.read_only_hint),
            destructive: hints.and_then(|h| h.destructive_hint),
            open_world: hints.and_then(|h| h.open_world_hint),
        }
    }
}

/// A call's result, ready for the engine: `content` is what the model receives, `display` a short
/// line-or-few for the user, `is_error` the server's `isError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOutput {
    pub content: String,
    pub display: String,
    pub is_error: bool,
}

/// What went wrong, worded for the user and the model (Display says it in one sentence naming
/// the server).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// It could not be started or did not complete initialize in time (includes the tail of its
    /// stderr when stdio).
    #[error("MCP server `{server}` could not start: {reason}")]
    Start { server: String, reason: String },
    /// No answer in time.
    #[error("MCP server `{server}` did not answer within {}", crate::duration_text::compact(*.after))]
    Timeout { server: String, after: Duration },
    /// The connection is gone (the process exited, the HTTP session ended); includes stderr tail
    /// / exit status when known.
    #[error("the connection to MCP server `{server}` is closed: {reason}")]
    Closed { server: String, reason: String },
    /// The server answered with a JSON-RPC error or something unreadable.
    #[error("MCP server `{server}` failed the request: {reason}")]
    Protocol { server: String, reason: String },
    /// The call was cancelled by the user (the protocol's cancellation was sent).
    #[error("the call to MCP server `{server}` was cancelled")]
    Cancelled { server: String },
}

/// A live connection to one MCP server. See the module docs for what it guarantees.
pub struct Connection {
    server: String,
    /// Taken (and closed) by `shutdown`; dropping it also ends the service loop.
    service: Mutex<Option<RunningService<RoleClient, Handler>>>,
    peer: Peer<RoleClient>,
    tools_changed: Arc<AtomicBool>,
    /// The spawned server, for stdio.
    process: Option<ServerProcess>,
    list_timeout: Duration,
    shut_down: AtomicBool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.server)
            .field("process_group", &self.process_group())
            .field("closed", &self.is_closed())
            .finish()
    }
}

impl Connection {
    /// Starts (stdio) or reaches (HTTP) the server and completes `initialize` within
    /// `spec.startup_timeout`.
    pub async fn connect(spec: &ServerSpec) -> Result<Connection, McpError> {
        let started = connect::start(spec).await?;
        let peer = started.service.peer().clone();
        Ok(Connection {
            server: spec.name.clone(),
            service: Mutex::new(Some(started.service)),
            peer,
            tools_changed: started.tools_changed,
            process: started.process,
            list_timeout: spec.startup_timeout,
            shut_down: AtomicBool::new(false),
        })
    }

    /// All tools (follows pagination), within the spec's startup timeout. Clears
    /// [`Connection::tools_changed`].
    pub async fn list_tools(&self) -> Result<Vec<ToolInfo>, McpError> {
        self.check_open().await?;
        // Cleared before asking: a change announced while we list is kept for next time.
        self.tools_changed.store(false, Ordering::SeqCst);
        let listed = tokio::time::timeout(self.list_timeout, self.list_all_pages()).await;
        let result = match listed {
            Ok(result) => result,
            Err(_) => Err(McpError::Timeout {
                server: self.server.clone(),
                after: self.list_timeout,
            }),
        };
        if result.is_err() {
            self.tools_changed.store(true, Ordering::SeqCst);
        }
        result
    }

    async fn list_all_pages(&self) -> Result<Vec<ToolInfo>, McpError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_TOOL_PAGES {
            let params = cursor.clone().map(|c| {
                let mut p = PaginatedRequestParams::default();
                p.cursor = Some(c);
                p
            });
            let page = match self.peer.list_tools(params).await {
                Ok(page) => page,
                Err(e) => return Err(call::service_error(self, e).await),
            };
            tools.extend(page.tools.into_iter().map(ToolInfo::from));
            match page.next_cursor {
                None => return Ok(tools),
                Some(next) if cursor.as_deref() == Some(next.as_str()) => {
                    return Err(self.protocol("its tool list repeats the same page cursor"));
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(self.protocol(&format!(
            "its tool list goes on for more than {MAX_TOOL_PAGES} pages"
        )))
    }

    /// Calls `tool` with `arguments`; at `timeout` or when `cancel` fires, sends
    /// `notifications/cancelled` for the request and returns Timeout / Cancelled. If the returned
    /// future is dropped midway the cancellation is sent too (from a spawned task).
    pub async fn call_tool(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
        timeout: Duration,
        cancel: &CancellationToken,
    ) -> Result<CallOutput, McpError> {
        self.check_open().await?;
        call::call_tool(self, tool, arguments, timeout, cancel).await
    }

    /// The server sent `notifications/tools/list_changed` since the last `list_tools`.
    pub fn tools_changed(&self) -> bool {
        self.tools_changed.load(Ordering::SeqCst)
    }

    /// The connection is gone (shut down, process exited, transport closed).
    pub fn is_closed(&self) -> bool {
        if self.shut_down.load(Ordering::SeqCst) || self.peer.is_transport_closed() {
            return true;
        }
        if self
            .process
            .as_ref()
            .is_some_and(|p| p.exit_status().is_some())
        {
            return true;
        }
        self.lock_service().as_ref().is_none_or(|s| s.is_closed())
    }

    /// The stdio server's process-group id, if any (for tests).
    pub fn process_group(&self) -> Option<u32> {
        self.process.as_ref().and_then(ServerProcess::group)
    }

    /// Ends the connection: closes the transport, then SIGTERM to the server's whole process
    /// group, SIGKILL after a short grace. Idempotent.
    pub async fn shutdown(&self) {
        if self.shut_down.swap(true, Ordering::SeqCst) {
            return;
        }
        let service = self.lock_service().take();
        if let Some(mut service) = service {
            // Closing stdin lets a polite server exit by itself; HTTP ends its session.
            let _ = service.close_with_timeout(CLOSE_WAIT).await;
        }
        if let Some(process) = &self.process {
            process.terminate(KILL_GRACE).await;
        }
    }

    fn lock_service(
        &self,
    ) -> std::sync::MutexGuard<'_, Option<RunningService<RoleClient, Handler>>> {
        self.service
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// `Closed` without sending anything, when we already know the connection is gone.
    async fn check_open(&self) -> Result<(), McpError> {
        if self.is_closed() {
            return Err(self.closed().await);
        }
        Ok(())
    }

    /// The `Closed` error, with what is known about why.
    async fn closed(&self) -> McpError {
        let reason = if self.shut_down.load(Ordering::SeqCst) {
            "it was shut down".to_owned()
        } else if let Some(process) = &self.process {
            process.describe_end().await
        } else {
            "the HTTP session ended".to_owned()
        };
        McpError::Closed {
            server: self.server.clone(),
            reason,
        }
    }

    fn protocol(&self, reason: &str) -> McpError {
        McpError::Protocol {
            server: self.server.clone(),
            reason: reason.to_owned(),
        }
    }
}

/// Kills the stdio server's process group synchronously (SIGTERM, then SIGKILL if it is still
/// there shortly after); dropping the service ends its loop and closes the transport.
impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(process) = &self.process {
            process.kill_now();
        }
    }
}
