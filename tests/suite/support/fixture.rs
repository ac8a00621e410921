//! A scripted OpenAI-compatible server over real TCP, for tests.
//!
//! Each incoming request takes the next scripted [`Reply`] from a queue and is recorded (method,
//! path, headers, JSON body). Streamed replies are real SSE inside HTTP/1.1 chunked transfer
//! encoding, written step by step: bytes, pauses, gates the test opens, an abrupt connection
//! drop, or a stall that never ends. The fixture notices when a client closes a connection, so
//! tests can assert that cancelling really hangs up.
//!
//! Routes ([`Fixture::route`]) answer a method and path (query ignored) with the same reply
//! every time, before the queue is consulted: servers' side routes such as llama.cpp's
//! `GET /props` or Ollama's `POST /api/show`. Those side routes ([`SIDE_ROUTES`]) answer 404
//! when no route is set, without taking a scripted reply, so a client that probes them does not
//! eat the replies meant for its chat requests.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, mpsc};

use super::context_limit::{ContextLimit, Overflow, is_streamed};

/// One step of a streamed reply.
#[derive(Clone)]
pub enum Step {
    Bytes(Vec<u8>),
    Sleep(Duration),
    /// Wait until the test calls `notify_one` on this.
    Gate(Arc<Notify>),
    /// Close the socket without finishing the chunked body.
    Drop,
    /// Send nothing more, keep the connection open until the client leaves.
    Stall,
}

#[derive(Clone)]
pub enum Reply {
    Stream(Vec<Step>),
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    Json(Value),
    /// As a route: answer with the next scripted reply (a side route that takes the script).
    Next,
}

#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Paths that only servers' own side routes use (and the models list, which sayso asks for
/// a model's window): 404 unless a route answers them, never a scripted reply.
pub const SIDE_ROUTES: &[&str] = &[
    "/v1/models",
    "/props",
    "/slots",
    "/api/ps",
    "/api/show",
    "/api/tags",
    "/api/v0/models",
    "/api/v1/models",
];

type Routes = Arc<Mutex<HashMap<(String, String), Reply>>>;
type Limit = Arc<Mutex<Option<ContextLimit>>>;
/// A check on each chat request's body: `Some` is the answer instead of the script's (a
/// server's validation, e.g. `fixture_reasoning::deepseek`).
pub type Guard = fn(&Value) -> Option<Reply>;
type Guards = Arc<Mutex<Vec<Guard>>>;

/// The routes key's method for chat requests that are not streamed.
const NOT_STREAMED: &str = "POST (not streamed)";

pub struct Fixture {
    addr: SocketAddr,
    script: Arc<Mutex<VecDeque<Reply>>>,
    routes: Routes,
    limit: Limit,
    guards: Guards,
    requests: Arc<Mutex<Vec<Recorded>>>,
    closed_rx: tokio::sync::Mutex<mpsc::UnboundedReceiver<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Fixture {
    pub async fn start() -> Fixture {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind loopback");
        let addr = listener.local_addr().expect("addr");
        let script: Arc<Mutex<VecDeque<Reply>>> = Arc::default();
        let routes: Routes = Arc::default();
        let limit: Limit = Arc::default();
        let guards: Guards = Arc::default();
        let requests: Arc<Mutex<Vec<Recorded>>> = Arc::default();
        let (closed_tx, closed_rx) = mpsc::unbounded_channel();
        let (s, rt, r, l, g) = (
            script.clone(),
            routes.clone(),
            requests.clone(),
            limit.clone(),
            guards.clone(),
        );
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let server = Server {
                    script: s.clone(),
                    routes: rt.clone(),
                    limit: l.clone(),
                    guards: g.clone(),
                    requests: r.clone(),
                    closed: closed_tx.clone(),
                };
                tokio::spawn(async move {
                    let _ = serve(sock, server).await;
                });
            }
        });
        Fixture {
            addr,
            script,
            routes,
            limit,
            guards,
            requests,
            closed_rx: tokio::sync::Mutex::new(closed_rx),
            task,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The port it listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Answers `method path` (the query ignored) with `reply`, every time, before the queue.
    pub fn route(&self, method: &str, path: &str, reply: Reply) -> &Self {
        self.routes
            .lock()
            .unwrap()
            .insert((method.to_owned(), path.to_owned()), reply);
        self
    }

    /// Enforces a context window of `n_ctx` tokens on chat requests (see [`ContextLimit`]);
    /// a llama.cpp-style limit also answers `GET /props` with it.
    pub fn context_limit(&self, n_ctx: u64, style: Overflow) -> &Self {
        self.limit_with(ContextLimit {
            n_ctx,
            style,
            quirks: Default::default(),
        })
    }

    /// Enforces `limit` (its quirks: `fixture_overflow`); `/props` tells its window when the
    /// style is llama.cpp's and the quirks say so.
    pub fn limit_with(&self, limit: ContextLimit) -> &Self {
        if limit.style == Overflow::LlamaCpp && limit.quirks.props {
            self.route("GET", "/props", limit.props());
        }
        *self.limit.lock().unwrap() = Some(limit);
        self
    }

    /// Answers every chat request that is not streamed (a compaction's or the judge's) with
    /// `reply`, before the queue.
    pub fn route_not_streamed(&self, reply: Reply) -> &Self {
        self.route(NOT_STREAMED, "/v1/chat/completions", reply)
    }

    /// Checks every chat request with `guard` before answering it (see [`Guard`]).
    pub fn guard(&self, guard: Guard) -> &Self {
        self.guards.lock().unwrap().push(guard);
        self
    }

    pub fn push(&self, reply: Reply) -> &Self {
        self.script.lock().unwrap().push_back(reply);
        self
    }

    /// The requests to other paths than [`SIDE_ROUTES`]: the chat requests, in order (the
    /// window probes and models lists left out).
    pub fn requests(&self) -> Vec<Recorded> {
        let all = self.requests.lock().unwrap();
        all.iter()
            .filter(|r| !SIDE_ROUTES.contains(&r.path.split('?').next().unwrap_or_default()))
            .cloned()
            .collect()
    }

    /// Every request, side routes included.
    pub fn all_requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Waits until a client hangs up on a stalled or gated stream.
    pub async fn client_hung_up(&self) {
        self.closed_rx.lock().await.recv().await;
    }
}

/// What one connection shares with the fixture.
struct Server {
    script: Arc<Mutex<VecDeque<Reply>>>,
    routes: Routes,
    limit: Limit,
    guards: Guards,
    requests: Arc<Mutex<Vec<Recorded>>>,
    closed: mpsc::UnboundedSender<()>,
}

async fn serve(mut sock: TcpStream, server: Server) -> std::io::Result<()> {
    let Server {
        script,
        routes,
        limit,
        guards,
        requests,
        closed,
    } = server;
    let mut buf = Vec::new();
    let mut tmp = [0u8; 16384];
    loop {
        // Keep-alive: serve requests on this connection until the client closes it.
        let head_end = loop {
            if let Some(i) = find(&buf, b"\r\n\r\n") {
                break i + 4;
            }
            let n = sock.read(&mut tmp).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&tmp[..n]);
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let mut lines = head.split("\r\n");
        let mut first = lines.next().unwrap_or_default().split(' ');
        let method = first.next().unwrap_or_default().to_owned();
        let path = first.next().unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect();
        let len = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        while buf.len() < head_end + len {
            let n = sock.read(&mut tmp).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&tmp[..n]);
        }
        let body: Value =
            serde_json::from_slice(&buf[head_end..head_end + len]).unwrap_or(Value::Null);
        buf.drain(..head_end + len);
        let route = (
            method.clone(),
            path.split('?').next().unwrap_or_default().to_owned(),
        );
        let is_chat = method == "POST" && route.1.ends_with("/chat/completions");
        let limit = limit.lock().unwrap().filter(|_| is_chat);
        let tokens = limit.map(|l| l.quirks.tokens(&body));
        let recorded_streamed = is_streamed(&body);
        let refused = if is_chat {
            let guards = guards.lock().unwrap().clone();
            guards.iter().find_map(|g| g(&body))
        } else {
            None
        };
        requests.lock().unwrap().push(Recorded {
            method,
            path,
            headers,
            body,
        });
        let key = if is_chat && !recorded_streamed {
            (NOT_STREAMED.to_owned(), route.1.clone())
        } else {
            route.clone()
        };
        let routed = {
            let routes = routes.lock().unwrap();
            routes.get(&key).or_else(|| routes.get(&route)).cloned()
        };
        let next = || {
            script.lock().unwrap().pop_front().unwrap_or(Reply::Status {
                status: 500,
                headers: vec![],
                body: r#"{"error":{"message":"fixture: no scripted reply left"}}"#.into(),
            })
        };
        let over = limit.zip(tokens).and_then(|(l, t)| l.check(t));
        let reply = match (routed, over.or(refused)) {
            (_, Some(overflow)) => overflow,
            (routed, None) => match routed {
                Some(Reply::Next) => next(),
                Some(reply) => reply,
                None if SIDE_ROUTES.contains(&route.1.as_str()) => Reply::Status {
                    status: 404,
                    headers: vec![],
                    body: r#"{"error":{"message":"fixture: no such route"}}"#.into(),
                },
                None => next(),
            },
        };
        let reply = match limit.zip(tokens) {
            Some((l, t)) => l.with_usage(reply, t),
            None => reply,
        };
        match reply {
            Reply::Next => unreachable!("a scripted reply is never `Next`"),
            Reply::Status {
                status,
                headers,
                body,
            } => {
                let mut head = format!(
                    "HTTP/1.1 {status} Status\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
                    body.len()
                );
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                sock.write_all(head.as_bytes()).await?;
                sock.write_all(body.as_bytes()).await?;
            }
            Reply::Json(v) => {
                let body = v.to_string();
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                    body.len()
                );
                sock.write_all(head.as_bytes()).await?;
                sock.write_all(body.as_bytes()).await?;
            }
            Reply::Stream(steps) => {
                sock.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
                )
                .await?;
                for step in steps {
                    match step {
                        Step::Bytes(b) => {
                            if b.is_empty() {
                                continue;
                            }
                            let frame =
                                [format!("{:x}\r\n", b.len()).as_bytes(), &b, b"\r\n"].concat();
                            if sock.write_all(&frame).await.is_err() {
                                let _ = closed.send(());
                                return Ok(());
                            }
                        }
                        Step::Sleep(d) => tokio::time::sleep(d).await,
                        Step::Gate(n) => {
                            tokio::select! {
                                () = n.notified() => {}
                                () = wait_for_close(&mut sock) => {
                                    let _ = closed.send(());
                                    return Ok(());
                                }
                            }
                        }
                        Step::Drop => return Ok(()),
                        Step::Stall => {
                            wait_for_close(&mut sock).await;
                            let _ = closed.send(());
                            return Ok(());
                        }
                    }
                }
                sock.write_all(b"0\r\n\r\n").await?;
            }
        }
    }
}

async fn wait_for_close(sock: &mut TcpStream) {
    let mut b = [0u8; 1024];
    loop {
        match sock.read(&mut b).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Builders for SSE bodies in the shapes real servers send.
pub mod sse {
    use super::*;

    /// `data: <json>\n\n`
    pub fn data(v: &Value) -> Vec<u8> {
        format!("data: {v}\n\n").into_bytes()
    }

    pub fn done() -> Vec<u8> {
        b"data: [DONE]\n\n".to_vec()
    }

    /// An OpenAI-shaped chunk with one choice.
    pub fn chunk(delta: Value, finish: Option<&str>) -> Value {
        json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    }

    pub fn text(t: &str) -> Vec<u8> {
        data(&chunk(json!({"content": t}), None))
    }

    pub fn finish(reason: &str) -> Vec<u8> {
        data(&chunk(json!({}), Some(reason)))
    }

    pub fn usage(prompt: u64, completion: u64) -> Vec<u8> {
        data(
            &json!({"choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}),
        )
    }

    /// A complete text reply: role chunk, the pieces, finish, usage, `[DONE]`.
    pub fn text_reply(pieces: &[&str]) -> Vec<Step> {
        let mut steps = vec![Step::Bytes(data(&chunk(
            json!({"role": "assistant", "content": ""}),
            None,
        )))];
        steps.extend(pieces.iter().map(|p| Step::Bytes(text(p))));
        steps.push(Step::Bytes(finish("stop")));
        steps.push(Step::Bytes(usage(10, pieces.len() as u64)));
        steps.push(Step::Bytes(done()));
        steps
    }

    /// A text reply at a model's pace: role chunk, each piece followed by `pause`, finish,
    /// `[DONE]`.
    pub fn paced_text_reply(
        pieces: impl IntoIterator<Item = String>,
        pause: Duration,
    ) -> Vec<Step> {
        let mut steps = vec![Step::Bytes(data(&chunk(
            json!({"role": "assistant", "content": ""}),
            None,
        )))];
        for piece in pieces {
            steps.push(Step::Bytes(text(&piece)));
            steps.push(Step::Sleep(pause));
        }
        steps.push(Step::Bytes(finish("stop")));
        steps.push(Step::Bytes(done()));
        steps
    }

    /// A streamed reply that calls tools: a role chunk, one chunk per call (id, name and the
    /// whole arguments at once), `finish_reason: tool_calls`, `[DONE]`.
    pub fn tool_call_reply<A: std::fmt::Display>(calls: &[(&str, &str, A)]) -> Reply {
        let mut steps = vec![Step::Bytes(data(&chunk(
            json!({"role": "assistant", "content": null}),
            None,
        )))];
        for (i, (id, name, args)) in calls.iter().enumerate() {
            steps.push(Step::Bytes(data(&chunk(
                json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}),
                None,
            ))));
        }
        steps.push(Step::Bytes(finish("tool_calls")));
        steps.push(Step::Bytes(done()));
        Reply::Stream(steps)
    }

    /// The same bytes re-cut into pieces of `size` bytes (a server writing at odd boundaries).
    pub fn rechunk(steps: Vec<Step>, size: usize) -> Vec<Step> {
        let all: Vec<u8> = steps
            .into_iter()
            .flat_map(|s| match s {
                Step::Bytes(b) => b,
                _ => Vec::new(),
            })
            .collect();
        all.chunks(size).map(|c| Step::Bytes(c.to_vec())).collect()
    }
}
