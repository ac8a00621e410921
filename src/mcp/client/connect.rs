//! Starting a connection: the transport (a process we spawn, or streamable HTTP) and the
//! `initialize` handshake, all within the spec's startup timeout; and our `ClientHandler`, which
//! names us (`sayso`, our version) and records `notifications/tools/list_changed`.
//!
//! A failed start leaves nothing behind: the spawned server's group is killed before the error
//! (which quotes its stderr) is returned, and dropping a start midway kills it too.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::ClientHandler;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{
    ClientInitializeError, MaybeSendFuture, NotificationContext, RoleClient, RunningService,
    serve_client,
};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};

use super::process::{self, ServerProcess};
use super::{McpError, ServerSpec, Transport};

/// How long a failed start gives the server to exit after SIGTERM.
const FAILED_START_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Headers the streamable HTTP transport sets itself.
const RESERVED_HEADERS: &[&str] = &["accept", "mcp-session-id", "last-event-id"];

/// Our side of the protocol: who we are, and the one notification we act on.
pub(crate) struct Handler {
    tools_changed: Arc<AtomicBool>,
}

impl ClientHandler for Handler {
    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.tools_changed.store(true, Ordering::SeqCst);
        std::future::ready(())
    }

    fn get_info(&self) -> ClientConfig {
        // The newest version that still has `initialize`: what servers of today speak.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("sayso", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

/// An initialized connection.
pub(super) struct Started {
    pub service: RunningService<RoleClient, Handler>,
    pub tools_changed: Arc<AtomicBool>,
    pub process: Option<ServerProcess>,
}

pub(super) async fn start(spec: &ServerSpec) -> Result<Started, McpError> {
    let tools_changed = Arc::new(AtomicBool::new(false));
    let handler = Handler {
        tools_changed: tools_changed.clone(),
    };
    match &spec.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let spawned = process::spawn(spec, command, args, env, cwd.as_deref())
                .map_err(|reason| start_error(spec, reason))?;
            let transport = (spawned.stdout, spawned.stdin);
            let process = spawned.process;
            match initialize(spec, handler, transport).await {
                Ok(service) => Ok(Started {
                    service,
                    tools_changed,
                    process: Some(process),
                }),
                Err(what) => {
                    process.terminate(FAILED_START_GRACE).await;
                    let reason = process.describe_failed_start(what).await;
                    Err(start_error(spec, reason))
                }
            }
        }
        Transport::Http { url, headers } => {
            let transport = http_transport(url, headers).map_err(|r| start_error(spec, r))?;
            let service = initialize(spec, handler, transport)
                .await
                .map_err(|r| start_error(spec, r))?;
            Ok(Started {
                service,
                tools_changed,
                process: None,
            })
        }
    }
}

/// `serve_client` within the startup timeout; the error is the reason, for `McpError::Start`.
async fn initialize<T, E, A>(
    spec: &ServerSpec,
    handler: Handler,
    transport: T,
) -> Result<RunningService<RoleClient, Handler>, String>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    match tokio::time::timeout(spec.startup_timeout, serve_client(handler, transport)).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(e)) => Err(describe_init_error(&e)),
        Err(_) => Err(format!(
            "it did not complete initialize within {}",
            crate::duration_text::compact(spec.startup_timeout)
        )),
    }
}

fn start_error(spec: &ServerSpec, reason: String) -> McpError {
    McpError::Start {
        server: spec.name.clone(),
        reason,
    }
}

fn describe_init_error(e: &ClientInitializeError) -> String {
    match e {
        ClientInitializeError::ConnectionClosed(_) => {
            "it closed the connection before answering initialize".to_owned()
        }
        ClientInitializeError::JsonRpcError(err) => {
            format!(
                "it refused initialize: {} (error {})",
                err.message, err.code.0
            )
        }
        ClientInitializeError::TransportError { error, context } => {
            format!("{context} failed: {}", error_chain(error.error.as_ref()))
        }
        other => error_chain(other),
    }
}

/// An error and its sources, `a: b: c`, skipping a source its parent already quotes.
pub(super) fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = cause(e);
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause(s);
    }
    text
}

/// `e.source()`, except that the HTTP transport's `Client` error, which quotes the `reqwest`
/// error without declaring it its source, is followed too (that is where "connection refused"
/// is).
fn cause<'a>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a (dyn std::error::Error + 'static)> {
    if let Some(StreamableHttpError::Client(inner)) =
        e.downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        return Some(inner);
    }
    e.source()
}

fn http_transport(
    url: &str,
    headers: &[(String, String)],
) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!("`{url}` is not an http:// or https:// URL"));
    }
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is not a valid HTTP header name"))?;
        if RESERVED_HEADERS.contains(&header.as_str()) {
            return Err(format!(
                "the header `{name}` is set by the MCP transport and cannot be configured"
            ));
        }
        // The value may be a secret: never quote it.
        let value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value of header `{name}` is not valid in HTTP"))?;
        custom.insert(header, value);
    }
    // No redirects: a POST redirected elsewhere would carry the session and our headers along.
    let client = crate::provider::http::client_builder()
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {}", error_chain(&e)))?;
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    Ok(StreamableHttpClientTransport::with_client(client, config))
}
