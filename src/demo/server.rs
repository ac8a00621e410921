//! A minimal HTTP/1.1 server on 127.0.0.1 for the demo endpoint.
//!
//! One request per connection (`Connection: close`); streamed replies are close-delimited SSE.
//! Routes: `POST …/chat/completions` (streamed or not) and `GET …/models`. Anything else is a
//! 404 with an OpenAI-shaped error body.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use super::{DEMO_MODEL, script};

/// A running demo endpoint; stops when dropped.
pub struct DemoServer {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl DemoServer {
    /// Binds a free loopback port and starts serving. `chunk_delay` paces the stream so it
    /// reads like a model typing.
    pub async fn start(chunk_delay: Duration) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                tokio::spawn(async move {
                    if let Err(e) = serve(sock, chunk_delay).await {
                        tracing::debug!(error = %e, "demo connection ended");
                    }
                });
            }
        });
        Ok(Self { addr, task })
    }

    /// The base URL to configure the client with.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }
}

impl Drop for DemoServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

const MAX_REQUEST: usize = 16 * 1024 * 1024;

async fn serve(mut sock: TcpStream, chunk_delay: Duration) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = sock.read(&mut tmp).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = memchr::memmem::find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > MAX_REQUEST {
            return respond(&mut sock, 413, "request too large").await;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.lines();
    let mut request_line = lines.next().unwrap_or_default().split_whitespace();
    let method = request_line.next().unwrap_or_default().to_owned();
    let path = request_line.next().unwrap_or_default().to_owned();
    let length = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_REQUEST);
    while buf.len() - head_end < length {
        let n = sock.read(&mut tmp).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let body = &buf[head_end..(head_end + length).min(buf.len())];

    match (method.as_str(), path.trim_end_matches('/')) {
        ("GET", p) if p.ends_with("/models") => {
            let models = serde_json::json!({
                "object": "list",
                "data": [{"id": DEMO_MODEL, "object": "model", "owned_by": "sayso"}]
            });
            write_json(&mut sock, 200, &models.to_string()).await
        }
        ("POST", p) if p.ends_with("/chat/completions") => {
            let Ok(request) = serde_json::from_slice::<serde_json::Value>(body) else {
                return respond(&mut sock, 400, "the request body is not JSON").await;
            };
            let reply = script::reply_for(&request);
            if request.get("stream").and_then(|s| s.as_bool()) == Some(true) {
                sock.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
                )
                .await?;
                for event in script::sse_events(&reply) {
                    sock.write_all(event.as_bytes()).await?;
                    sock.flush().await?;
                    if !chunk_delay.is_zero() {
                        tokio::time::sleep(chunk_delay).await;
                    }
                }
                sock.shutdown().await
            } else {
                write_json(&mut sock, 200, &script::completion_json(&reply).to_string()).await
            }
        }
        _ => respond(&mut sock, 404, "no such endpoint on the demo server").await,
    }
}

async fn respond(sock: &mut TcpStream, status: u16, message: &str) -> std::io::Result<()> {
    let body = serde_json::json!({"error": {"message": message, "type": "invalid_request_error"}});
    write_json(sock, status, &body.to_string()).await
}

async fn write_json(sock: &mut TcpStream, status: u16, body: &str) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        413 => "Payload Too Large",
        _ => "Error",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(body.as_bytes()).await?;
    sock.shutdown().await
}
