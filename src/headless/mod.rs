//! Headless mode (`sayso -p`, SPEC §7): one prompt, run to completion, exit.
//!
//! The agent loop runs with the same engine as the TUI, but nobody can be asked: wherever the
//! user would be asked, the call is rejected (SPEC §5.4). Text mode prints the assistant's text
//! to stdout as it arrives and everything else (reasoning, tool activity, retries, errors) to
//! stderr, one readable line each; `--json` prints JSON Lines events on stdout instead. Output
//! is flushed whenever nothing more is ready, so a fast stream is written in large blocks and a
//! slow one token by token.
//!
//! Exit status: 0 completed; 1 failed (endpoint error after retries, a reply cut off by the
//! token limit, max turns hit); 130 interrupted (SIGINT, SIGTERM, SIGHUP).

mod printer;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::agent::{Agent, AgentEvent, TurnEnd};
use crate::exit;
pub use printer::{JsonPrinter, Printer, TextPrinter, format_delay};

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

/// Runs one prompt to the end of its turn, reporting through `printer`. `interrupt` resolves
/// when the user asks to stop.
pub async fn run(
    agent: &mut Agent,
    prompt: &str,
    printer: &mut dyn Printer,
    interrupt: impl std::future::Future<Output = ()>,
) -> Status {
    printer.session_started(
        &agent.settings.model,
        &agent.client.settings().name,
        agent.engine.mode.get() == crate::tools::approval::Mode::Auto,
    );
    let (tx, mut rx) = mpsc::unbounded_channel::<AgentEvent>();
    let cancel = CancellationToken::new();
    let mut text = String::new();
    let end = {
        let send = agent.send(prompt, &tx, &cancel);
        let mut send = std::pin::pin!(send);
        let mut interrupt = std::pin::pin!(interrupt);
        let mut interrupted = false;
        loop {
            tokio::select! {
                biased;
                Some(ev) = rx.recv() => {
                    handle(printer, &mut text, &ev);
                    while let Ok(ev) = rx.try_recv() {
                        handle(printer, &mut text, &ev);
                    }
                    printer.flush();
                }
                end = &mut send => break end,
                () = &mut interrupt, if !interrupted => {
                    interrupted = true;
                    cancel.cancel();
                }
            }
        }
    };
    drop(tx);
    while let Ok(ev) = rx.try_recv() {
        handle(printer, &mut text, &ev);
    }
    let status = match end {
        TurnEnd::Completed => Status::Completed,
        TurnEnd::Stopped => {
            printer.error("interrupted");
            Status::Interrupted
        }
        TurnEnd::LengthLimit => {
            printer.error("the reply was cut off: the model reached its output token limit (finish_reason: length)");
            Status::Failed
        }
        TurnEnd::MaxTurns(n) => {
            printer.error(&format!(
                "stopped after {n} model round-trips (--max-turns) without a final answer"
            ));
            Status::Failed
        }
        TurnEnd::Cancelled => {
            printer.error("the tool calls were cancelled");
            Status::Failed
        }
        TurnEnd::Failed(e) => {
            printer.error(&e.to_string());
            Status::Failed
        }
    };
    printer.session_finished(status, &text);
    printer.flush();
    status
}

/// Passes one event to the printer, tracking the text of the latest reply.
fn handle(printer: &mut dyn Printer, text: &mut String, ev: &AgentEvent) {
    match ev {
        AgentEvent::Delta(crate::provider::StreamDelta::Text(t)) => text.push_str(t),
        AgentEvent::Retrying { .. } => text.clear(),
        _ => {}
    }
    printer.event(ev);
    // The final text is the last reply's: a reply that only called tools starts a new one.
    if let AgentEvent::ReplyDone(m) = ev
        && !m.tool_calls.is_empty()
    {
        text.clear();
    }
}
