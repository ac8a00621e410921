//! Headless mode (`sayso -p`, SPEC §7): one prompt, the reply streamed to stdout, exit.
//!
//! Text mode prints the assistant's text to stdout as it arrives and everything else
//! (reasoning, retries, errors) to stderr, one readable line each. `--json` prints JSON Lines
//! events on stdout instead. Output is flushed whenever the stream has nothing more ready, so a
//! fast stream is written in large blocks and a slow one token by token.
//!
//! Exit status: 0 completed, 1 failed (error after retries, or a reply cut off by the token
//! limit), 130 interrupted (SIGINT).

mod printer;

use futures_util::{FutureExt, StreamExt};

use crate::exit;
use crate::provider::{ChatMessage, ChatRequest, Client, StreamDelta, StreamEvent};
pub use printer::{JsonPrinter, Printer, TextPrinter};

/// How a headless run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Completed,
    Failed,
    Interrupted,
}

impl Status {
    pub fn exit_code(self) -> u8 {
        match self {
            Status::Completed => exit::OK,
            Status::Failed => exit::FAILED,
            Status::Interrupted => exit::INTERRUPTED,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Interrupted => "interrupted",
        }
    }
}

/// Runs one prompt to completion, reporting through `printer`. `interrupt` resolves when the
/// user asks to stop.
pub async fn run(
    client: &Client,
    model: &str,
    system_prompt: &str,
    prompt: &str,
    printer: &mut dyn Printer,
    interrupt: impl std::future::Future<Output = ()>,
) -> Status {
    let mut messages = Vec::new();
    if !system_prompt.is_empty() {
        messages.push(ChatMessage::System {
            content: system_prompt.to_owned(),
        });
    }
    messages.push(ChatMessage::User {
        content: prompt.to_owned(),
    });
    let request = ChatRequest::new(model, messages);
    printer.session_started(model, &client.settings().name);

    let mut stream = std::pin::pin!(client.stream_chat(&request));
    let mut interrupt = std::pin::pin!(interrupt);
    // What the user has seen of the current attempt: the final text even when interrupted.
    let mut text = String::new();
    let status = loop {
        // Take everything already available without waiting; flush only before waiting.
        let event = match stream.next().now_or_never() {
            Some(ev) => ev,
            None => {
                printer.flush();
                tokio::select! {
                    ev = stream.next() => ev,
                    () = &mut interrupt => break Status::Interrupted,
                }
            }
        };
        let Some(event) = event else {
            break Status::Failed;
        };
        match event {
            StreamEvent::Delta(d) => {
                if let StreamDelta::Text(t) = &d {
                    text.push_str(t);
                }
                printer.delta(&d);
            }
            StreamEvent::Retrying {
                retry,
                max_retries,
                delay,
                error,
            } => {
                text.clear();
                printer.retrying(&error, retry, max_retries, delay);
            }
            StreamEvent::Finished(Ok(message)) => {
                text = message.content.clone();
                printer.turn_completed(&message);
                break if message.hit_length_limit() {
                    printer.error("the reply was cut off: the model reached its output token limit (finish_reason: length)");
                    Status::Failed
                } else {
                    Status::Completed
                };
            }
            StreamEvent::Finished(Err(e)) => {
                printer.error(&e.to_string());
                break Status::Failed;
            }
        }
    };
    if status == Status::Interrupted {
        printer.error("interrupted");
    }
    printer.session_finished(status, &text);
    printer.flush();
    status
}
