//! Headless mode (`sayso -p`, SPEC §7): one prompt, run to completion, exit. With
//! `--approvals stdio`, `user_message` lines on stdin steer the run (`control`): each is
//! delivered with the next request, or starts another turn when the current one ends first.
//!
//! The turn runs through the same driver as the TUI's ([`Agent::send`]), with the same engine,
//! but nobody can be asked: wherever the user would be asked, the call is rejected (SPEC §5.4).
//! Text mode ([`TextPrinter`]) prints the assistant's text to stdout as it arrives and
//! everything else (reasoning, tool activity, retries, errors) to stderr, one readable line
//! each; `--json` ([`JsonPrinter`]) prints JSON Lines events on stdout instead. Output is flushed whenever nothing more is ready, so a fast
//! stream is written in large blocks and a slow one token by token.
//!
//! The exit status is the turn end's ([`TurnEnd::exit_code`]): 0 completed; 1 failed (endpoint
//! error after retries, a reply cut off by the token limit, max turns hit, tool calls
//! cancelled); 130 interrupted (SIGINT, SIGTERM, SIGHUP).

pub mod control;
mod json;
pub mod notices;
mod text;

use tokio_util::sync::CancellationToken;

pub use self::json::{JsonPrinter, startup_error};
pub use self::text::TextPrinter;
use crate::agent::Agent;
use crate::agent::saving::Saving;
use crate::events::{Event, EventSink, Mode, Notice, TurnEnd};
use crate::provider::StreamDelta;
use crate::tools::lifecycle::requests::ApprovalRequest;
use control::Control;
pub use control::Controller;

/// Receives what happens during a headless run.
pub trait Printer {
    /// `session` is the id the run is saved as, when it is.
    fn session_started(&mut self, model: &str, provider: &str, mode: Mode, session: Option<&str>);
    fn event(&mut self, ev: &Event);
    /// The run is over; `text` is the last reply (empty unless [`Printer::wants_text`]).
    fn session_finished(&mut self, end: &TurnEnd, text: &str);
    /// Whether [`Printer::session_finished`] needs the last reply's text: when not, no copy of
    /// it is kept (a 1 MiB reply is then held once less at its peak).
    fn wants_text(&self) -> bool {
        true
    }
    fn flush(&mut self);
    /// A `control_request` line (`--approvals stdio`), written at once.
    fn control_request(&mut self, _request: &serde_json::Value) {}
}

/// Runs one prompt to the end of its turn, reporting through `printer`. `interrupt` resolves
/// when the user asks to stop. With a `controller` (`--approvals stdio`), approval requests
/// go to stdout as `control_request`s and are answered from stdin. `notices` (from resuming)
/// follow `session_started`: on stderr, or as `notice` events with `--json`.
pub async fn run(
    agent: &mut Agent,
    prompt: &str,
    printer: &mut dyn Printer,
    saving: &mut Saving,
    interrupt: impl std::future::Future<Output = ()>,
    controller: Option<Controller>,
    notices: &[Notice],
) -> TurnEnd {
    printer.session_started(
        &agent.model(),
        agent.provider(),
        agent.mode().get(),
        saving.id(),
    );
    for n in notices {
        printer.event(&Event::Notice(n.clone()));
    }
    let (front, mut rx) = EventSink::channel();
    let sink = saving.sink(&front, agent);
    drop(front);
    let cancel = CancellationToken::new();
    let mut text = String::new();
    let mut stdin_open = true;
    let (mut approvals, mut lines, mut control) = match controller {
        Some(c) => (Some(c.approvals), Some(c.lines), Some(c.control)),
        None => (None, None, None),
    };
    let steer = agent.steer();
    let mut prompt = prompt.to_owned();
    let mut interrupt = std::pin::pin!(interrupt);
    let mut interrupted = false;
    // A `user_message` the turn ended before delivering starts the next turn (a stop drops
    // what is left: there is no input to put it back into).
    let end = loop {
        let end = {
            let send = agent.send(&prompt, &sink, &cancel);
            let mut send = std::pin::pin!(send);
            loop {
                let deadline = control.as_ref().and_then(Control::deadline);
                let controlled = control.is_some();
                tokio::select! {
                    biased;
                    Some(ev) = rx.recv() => {
                        handle(printer, &mut text, &ev, control.as_mut());
                        while let Ok(ev) = rx.try_recv() {
                            handle(printer, &mut text, &ev, control.as_mut());
                        }
                        printer.flush();
                    }
                    end = &mut send => break end,
                    () = &mut interrupt, if !interrupted => {
                        interrupted = true;
                        cancel.cancel();
                    }
                    Some(req) = next_request(approvals.as_mut()), if controlled => {
                        if let Some(c) = control.as_mut() {
                            let out = c.request(req, tokio::time::Instant::now());
                            report(printer, out);
                        }
                    }
                    line = next_line(lines.as_mut()), if controlled && stdin_open => {
                        if let Some(c) = control.as_mut() {
                            let mut out = match line {
                                Some(l) => c.line(&l),
                                None => {
                                    stdin_open = false;
                                    c.close()
                                }
                            };
                            if let Some(text) = out.steer.take() {
                                steer.push(&text, crate::agent::steer::Delivery::NextRequest);
                            }
                            report(printer, out);
                        }
                    }
                    () = sleep_until(deadline), if deadline.is_some() => {
                        if let Some(c) = control.as_mut() {
                            let out = c.timed_out();
                            report(printer, out);
                        }
                    }
                }
            }
        };
        match steer.next_turn() {
            Some(next) if !interrupted && end != TurnEnd::Stopped => prompt = next,
            _ => break end,
        }
    };
    drop(sink);
    while let Ok(ev) = rx.try_recv() {
        handle(printer, &mut text, &ev, control.as_mut());
    }
    printer.session_finished(&end, &text);
    printer.flush();
    end
}

async fn next_request(
    rx: Option<&mut tokio::sync::mpsc::UnboundedReceiver<ApprovalRequest>>,
) -> Option<ApprovalRequest> {
    rx?.recv().await
}

/// The next stdin line; `None` at its end.
async fn next_line(
    rx: Option<&mut tokio::sync::mpsc::UnboundedReceiver<Option<String>>>,
) -> Option<String> {
    rx?.recv().await.flatten()
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// Prints what the controller has to say: a request on stdout, notes on stderr.
fn report(printer: &mut dyn Printer, out: control::Out) {
    for note in out.notes {
        eprintln!("sayso: {note}");
    }
    if let Some(request) = out.request {
        printer.control_request(&request);
    }
}

/// Passes one event to the printer, tracking the text of the latest reply.
fn handle(printer: &mut dyn Printer, text: &mut String, ev: &Event, control: Option<&mut Control>) {
    let mut request = None;
    if let Some(c) = control {
        match ev {
            Event::ReplyDone(m) if !m.tool_calls.is_empty() => {
                c.new_batch(
                    m.tool_calls
                        .iter()
                        .map(|t| (t.id.as_str(), t.name.as_str())),
                );
            }
            Event::ApprovalRequested { call_id, .. } => {
                request = Some(c.announced(call_id, tokio::time::Instant::now()));
            }
            _ => {}
        }
    }
    match ev {
        Event::Delta(StreamDelta::Text(t)) if printer.wants_text() => text.push_str(t),
        Event::Retrying { .. } => text.clear(),
        _ => {}
    }
    printer.event(ev);
    if let Some(out) = request {
        report(printer, out);
    }
    // The final text is the last reply's: a reply that only called tools starts a new one.
    if let Event::ReplyDone(m) = ev
        && !m.tool_calls.is_empty()
    {
        text.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last reply's text is kept only for a printer that reports it (`--json`).
    #[test]
    fn the_reply_text_is_kept_only_when_the_printer_reports_it() {
        let deltas = ["Hello, ", "world"];
        let mut out = Vec::new();
        let mut err = Vec::new();
        let mut text_printer = TextPrinter::new(&mut out, &mut err, false);
        let mut json_out = Vec::new();
        let mut json_printer = JsonPrinter::new(&mut json_out);
        let printers: [(&mut dyn Printer, &str); 2] =
            [(&mut text_printer, ""), (&mut json_printer, "Hello, world")];
        for (printer, kept) in printers {
            let mut text = String::new();
            for d in deltas {
                let ev = Event::Delta(StreamDelta::Text(d.into()));
                handle(printer, &mut text, &ev, None);
            }
            assert_eq!(text, kept);
            assert_eq!(printer.wants_text(), !kept.is_empty());
        }
        assert_eq!(out, b"Hello, world");
    }
}
