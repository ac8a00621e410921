//! Headless mode (`sayso -p`, SPEC §7): one prompt, run to completion, exit.
//!
//! The agent loop runs with the same engine as the TUI, but nobody can be asked: wherever the
//! user would be asked, the call is rejected (SPEC §5.4). Text mode ([`TextPrinter`]) prints the
//! assistant's text to stdout as it arrives and everything else (reasoning, tool activity,
//! retries, errors) to stderr, one readable line each; `--json` ([`JsonPrinter`]) prints JSON
//! Lines events on stdout instead. Output is flushed whenever nothing more is ready, so a fast
//! stream is written in large blocks and a slow one token by token.
//!
//! The exit status is the turn end's ([`TurnEnd::exit_code`]): 0 completed; 1 failed (endpoint
//! error after retries, a reply cut off by the token limit, max turns hit, tool calls
//! cancelled); 130 interrupted (SIGINT, SIGTERM, SIGHUP).

mod json;
mod text;

use tokio_util::sync::CancellationToken;

pub use self::json::JsonPrinter;
pub use self::text::TextPrinter;
use crate::agent::Agent;
use crate::agent::saving::Saving;
use crate::events::{Event, EventSink, Mode, TurnEnd};
use crate::provider::StreamDelta;

/// Receives what happens during a headless run.
pub trait Printer {
    /// `session` is the id the run is saved as, when it is.
    fn session_started(&mut self, model: &str, provider: &str, mode: Mode, session: Option<&str>);
    fn event(&mut self, ev: &Event);
    /// The run is over; `text` is the last reply.
    fn session_finished(&mut self, end: &TurnEnd, text: &str);
    fn flush(&mut self);
}

/// Runs one prompt to the end of its turn, reporting through `printer`. `interrupt` resolves
/// when the user asks to stop.
pub async fn run(
    agent: &mut Agent,
    prompt: &str,
    printer: &mut dyn Printer,
    saving: &mut Saving,
    interrupt: impl std::future::Future<Output = ()>,
) -> TurnEnd {
    printer.session_started(
        &agent.model(),
        agent.provider(),
        agent.mode().get(),
        saving.id(),
    );
    let (front, mut rx) = EventSink::channel();
    let sink = saving.sink(&front, agent);
    drop(front);
    let cancel = CancellationToken::new();
    let mut text = String::new();
    let end = {
        let send = agent.send(prompt, &sink, &cancel);
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
    drop(sink);
    while let Ok(ev) = rx.try_recv() {
        handle(printer, &mut text, &ev);
    }
    printer.session_finished(&end, &text);
    printer.flush();
    end
}

/// Passes one event to the printer, tracking the text of the latest reply.
fn handle(printer: &mut dyn Printer, text: &mut String, ev: &Event) {
    match ev {
        Event::Delta(StreamDelta::Text(t)) => text.push_str(t),
        Event::Retrying { .. } => text.clear(),
        _ => {}
    }
    printer.event(ev);
    // The final text is the last reply's: a reply that only called tools starts a new one.
    if let Event::ReplyDone(m) = ev
        && !m.tool_calls.is_empty()
    {
        text.clear();
    }
}
