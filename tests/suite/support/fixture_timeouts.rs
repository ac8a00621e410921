//! Fixture replies in the timings of local hardware: a long prompt processing before the first
//! token (with the response headers sent at once, as llama-server does, or only with the first
//! token), and a slow model writing a reply a chunk at a time.
//!
//! The streamed shapes are [`Step`] lists for [`super::fixture::Fixture`]; a server that holds
//! back even its response headers is [`SlowHeaders`], a small server of its own (the fixture
//! always answers its headers at once). It counts the requests it gets.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::fixture::{Step, sse};

/// A reply whose first token comes after `wait` (the headers at once, then nothing).
pub fn slow_first_token(wait: Duration, pieces: &[&str]) -> Vec<Step> {
    let mut steps = vec![Step::Sleep(wait)];
    steps.extend(sse::text_reply(pieces));
    steps
}

/// A reply written a piece every `every`, as a slow model writes.
pub fn trickle(pieces: &[&str], every: Duration) -> Vec<Step> {
    let mut steps = Vec::new();
    for step in sse::text_reply(pieces) {
        steps.push(Step::Sleep(every));
        steps.push(step);
    }
    steps
}

/// A server that answers each request only after `wait`, headers included, with a streamed
/// text reply of `pieces`, then closes the connection.
pub struct SlowHeaders {
    pub port: u16,
    requests: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SlowHeaders {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl SlowHeaders {
    pub async fn start(wait: Duration, pieces: &[&str]) -> SlowHeaders {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let requests = Arc::new(AtomicUsize::new(0));
        let body: Vec<u8> = sse::text_reply(pieces)
            .into_iter()
            .flat_map(|s| match s {
                Step::Bytes(b) => b,
                _ => Vec::new(),
            })
            .collect();
        let count = requests.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut sock, _)) = listener.accept().await {
                let body = body.clone();
                let count = count.clone();
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut tmp = [0u8; 16384];
                    // The head and the body: enough to know a request came.
                    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        match sock.read(&mut tmp).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&tmp[..n]),
                        }
                    }
                    count.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(wait).await;
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = sock.write_all(head.as_bytes()).await;
                    let _ = sock.write_all(&body).await;
                    let _ = sock.shutdown().await;
                });
            }
        });
        SlowHeaders {
            port,
            requests,
            task,
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Requests received so far.
    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}
