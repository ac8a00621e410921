//! One `tools/call`: send it, then wait for the first of its answer, the timeout, or the user's
//! cancel. Whenever we stop waiting without an answer — timeout, cancel, or the future being
//! dropped — the server gets `notifications/cancelled` for the request, so it can stop working
//! on a result nobody will read. Also the mapping from `rmcp`'s errors to [`McpError`].
//!
//! Not: reading the result, which is `format`'s job (from JSON, so any answer is readable).

use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest, RequestId,
    ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient};
use tokio_util::sync::CancellationToken;

use super::connect::error_chain;
use super::{CallOutput, Connection, McpError, format_result};

/// How long we wait for a cancellation to be handed to the transport before returning anyway.
const CANCEL_SEND_WAIT: Duration = Duration::from_secs(1);

const REASON_TIMEOUT: &str = "timed out";
const REASON_CANCELLED: &str = "cancelled by the user";
const REASON_ABANDONED: &str = "the caller stopped waiting";

pub(super) async fn call_tool(
    conn: &Connection,
    tool: &str,
    arguments: serde_json::Map<String, serde_json::Value>,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<CallOutput, McpError> {
    if cancel.is_cancelled() {
        return Err(cancelled(conn));
    }
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = conn
        .peer
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await;
    let handle = match handle {
        Ok(handle) => handle,
        Err(e) => return Err(service_error(conn, e).await),
    };
    let mut guard = CancelOnDrop {
        peer: conn.peer.clone(),
        id: Some(handle.id.clone()),
    };
    let mut answer = handle.rx;
    let answer = tokio::select! {
        biased;
        answer = &mut answer => answer,
        () = cancel.cancelled() => {
            guard.send_now(REASON_CANCELLED).await;
            return Err(cancelled(conn));
        }
        () = tokio::time::sleep(timeout) => {
            guard.send_now(REASON_TIMEOUT).await;
            return Err(McpError::Timeout { server: conn.server.clone(), after: timeout });
        }
    };
    guard.disarm();
    match answer {
        Ok(Ok(result)) => read_result(conn, result),
        Ok(Err(e)) => Err(service_error(conn, e).await),
        // The service loop ended and dropped our request.
        Err(_) => Err(conn.closed().await),
    }
}

fn read_result(conn: &Connection, result: ServerResult) -> Result<CallOutput, McpError> {
    let unsupported = match &result {
        ServerResult::InputRequiredResult(_) => Some("it asked for more input"),
        ServerResult::CreateTaskResult(_) | ServerResult::TaskAckResult(_) => {
            Some("it turned the call into a task")
        }
        _ => None,
    };
    if let Some(what) = unsupported {
        return Err(conn.protocol(&format!("{what}, which sayso does not support")));
    }
    // Whatever shape `rmcp` recognised, the JSON is what the server sent.
    match serde_json::to_value(&result) {
        Ok(json) => Ok(format_result(&conn.server, &json)),
        Err(e) => Err(conn.protocol(&format!("its answer could not be read: {e}"))),
    }
}

pub(super) fn cancelled(conn: &Connection) -> McpError {
    McpError::Cancelled {
        server: conn.server.clone(),
    }
}

/// `rmcp`'s error, as ours. A closed stdio transport waits a moment to say why the server went
/// away (its exit status and stderr).
pub(super) async fn service_error(conn: &Connection, e: ServiceError) -> McpError {
    match e {
        ServiceError::McpError(err) => conn.protocol(&format!(
            "it answered with error {}: {}",
            err.code.0, err.message
        )),
        ServiceError::Timeout { timeout } => McpError::Timeout {
            server: conn.server.clone(),
            after: timeout,
        },
        ServiceError::TransportClosed => conn.closed().await,
        ServiceError::TransportSend(_) if conn.process.is_some() => conn.closed().await,
        ServiceError::TransportSend(err) => McpError::Closed {
            server: conn.server.clone(),
            reason: format!("sending to it failed: {}", error_chain(err.error.as_ref())),
        },
        ServiceError::Cancelled { reason } => conn.protocol(&format!(
            "the request was cancelled ({})",
            reason.as_deref().unwrap_or("no reason given")
        )),
        ServiceError::UnexpectedResponse => {
            conn.protocol("it answered with the wrong kind of result")
        }
        other => conn.protocol(&error_chain(&other)),
    }
}

/// Sends `notifications/cancelled` for a request still in flight: now ([`Self::send_now`]) or,
/// when dropped armed, from a spawned task.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.id = None;
    }

    async fn send_now(&mut self, reason: &str) {
        if let Some(id) = self.id.take() {
            let send = self.peer.notify_cancelled(notice(id, reason));
            let _ = tokio::time::timeout(CANCEL_SEND_WAIT, send).await;
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        // Without a runtime the connection is going away with it; nothing to tell.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let peer = self.peer.clone();
            runtime.spawn(async move {
                let send = peer.notify_cancelled(notice(id, REASON_ABANDONED));
                let _ = tokio::time::timeout(CANCEL_SEND_WAIT, send).await;
            });
        }
    }
}

fn notice(id: RequestId, reason: &str) -> CancelledNotificationParam {
    CancelledNotificationParam::new(Some(id), Some(reason.to_owned()))
}
