//! The two headless outputs: readable text, and JSON Lines events (SPEC §7).

use std::io::Write;
use std::time::Duration;

use serde_json::{Value, json};

use super::Status;
use crate::provider::{AssistantMessage, ProviderError, StreamDelta};

/// Receives what happens during a headless run.
pub trait Printer {
    fn session_started(&mut self, model: &str, provider: &str);
    fn delta(&mut self, d: &StreamDelta);
    fn retrying(&mut self, error: &ProviderError, retry: u32, max: u32, delay: Duration);
    fn turn_completed(&mut self, message: &AssistantMessage);
    fn error(&mut self, message: &str);
    fn session_finished(&mut self, status: Status, text: &str);
    fn flush(&mut self);
}

/// Text on stdout; reasoning, retries and errors on stderr.
///
/// A retried attempt restarts the reply. Text already printed cannot be taken back, so the
/// retried reply is compared with it: the part that repeats what is already on screen is not
/// printed again, and if the new reply differs, a note on stderr says so before it continues.
pub struct TextPrinter<O: Write, E: Write> {
    out: O,
    err: E,
    shown: String,
    /// During a retried attempt: how much of `shown` the new reply has repeated so far.
    replay: Option<usize>,
    in_reasoning: bool,
    ends_with_newline: bool,
    dim: bool,
}

impl<O: Write, E: Write> TextPrinter<O, E> {
    pub fn new(out: O, err: E, dim: bool) -> Self {
        Self {
            out,
            err,
            shown: String::new(),
            replay: None,
            in_reasoning: false,
            ends_with_newline: true,
            dim,
        }
    }

    fn end_reasoning(&mut self) {
        if self.in_reasoning {
            self.in_reasoning = false;
            let _ = writeln!(self.err, "{}", if self.dim { "\x1b[0m" } else { "" });
        }
    }

    fn text(&mut self, t: &str) {
        self.end_reasoning();
        let mut t = t;
        if let Some(pos) = self.replay {
            let old = &self.shown.as_bytes()[pos..];
            let mut common = old
                .iter()
                .zip(t.as_bytes())
                .take_while(|(a, b)| a == b)
                .count();
            while !t.is_char_boundary(common) {
                common -= 1;
            }
            t = &t[common..];
            let pos = pos + common;
            if t.is_empty() {
                self.replay = Some(pos);
                return;
            }
            self.replay = None;
            if pos < self.shown.len() {
                let _ = writeln!(
                    self.err,
                    "\nsayso: the retried reply differs from the text above; it continues below"
                );
                let _ = writeln!(self.out);
            }
        }
        let _ = self.out.write_all(t.as_bytes());
        self.shown.push_str(t);
        self.ends_with_newline = t.ends_with('\n');
    }
}

impl<O: Write, E: Write> Printer for TextPrinter<O, E> {
    fn session_started(&mut self, _model: &str, _provider: &str) {}

    fn delta(&mut self, d: &StreamDelta) {
        match d {
            StreamDelta::Text(t) => self.text(t),
            StreamDelta::Reasoning(r) => {
                if !self.in_reasoning {
                    self.in_reasoning = true;
                    let _ = write!(self.err, "{}", if self.dim { "\x1b[2m" } else { "" });
                }
                let _ = self.err.write_all(r.as_bytes());
            }
            StreamDelta::ToolCallStarted { .. }
            | StreamDelta::ToolCallArguments { .. }
            | StreamDelta::Usage(_) => {}
        }
    }

    fn retrying(&mut self, error: &ProviderError, retry: u32, max: u32, delay: Duration) {
        self.end_reasoning();
        let _ = self.out.flush();
        if !self.ends_with_newline {
            let _ = writeln!(self.err);
        }
        let _ = writeln!(
            self.err,
            "sayso: {error}; retrying in {} ({retry}/{max})",
            format_delay(delay)
        );
        self.replay = Some(0);
    }

    fn turn_completed(&mut self, _message: &AssistantMessage) {
        self.end_reasoning();
        if !self.ends_with_newline {
            let _ = writeln!(self.out);
            self.ends_with_newline = true;
        }
    }

    fn error(&mut self, message: &str) {
        self.end_reasoning();
        let _ = self.out.flush();
        let _ = writeln!(self.err, "sayso: error: {message}");
    }

    fn session_finished(&mut self, _status: Status, _text: &str) {
        if !self.ends_with_newline {
            let _ = writeln!(self.out);
            self.ends_with_newline = true;
        }
    }

    fn flush(&mut self) {
        let _ = self.out.flush();
        let _ = self.err.flush();
    }
}

/// "2 s", "500 ms".
pub fn format_delay(d: Duration) -> String {
    if d.as_millis() < 1000 {
        format!("{} ms", d.as_millis())
    } else {
        let s = d.as_secs_f64();
        if (s - s.round()).abs() < 0.05 {
            format!("{} s", s.round())
        } else {
            format!("{s:.1} s")
        }
    }
}

/// JSON Lines events on stdout, one object per line with a `type`.
pub struct JsonPrinter<O: Write> {
    out: O,
}

impl<O: Write> JsonPrinter<O> {
    pub fn new(out: O) -> Self {
        Self { out }
    }

    fn emit(&mut self, v: Value) {
        let _ = serde_json::to_writer(&mut self.out, &v);
        let _ = self.out.write_all(b"\n");
    }
}

impl<O: Write> Printer for JsonPrinter<O> {
    fn session_started(&mut self, model: &str, provider: &str) {
        self.emit(json!({"type": "session_started", "model": model, "provider": provider}));
    }

    fn delta(&mut self, d: &StreamDelta) {
        let v = match d {
            StreamDelta::Text(t) => json!({"type": "message_delta", "text": t}),
            StreamDelta::Reasoning(r) => json!({"type": "reasoning_delta", "text": r}),
            // Tool-call events belong to the tool engine; a reply's usage is in turn_completed.
            StreamDelta::ToolCallStarted { .. }
            | StreamDelta::ToolCallArguments { .. }
            | StreamDelta::Usage(_) => return,
        };
        self.emit(v);
    }

    fn retrying(&mut self, error: &ProviderError, retry: u32, max: u32, delay: Duration) {
        self.emit(json!({
            "type": "error",
            "message": error.to_string(),
            "will_retry": true,
            "retry": retry,
            "max_retries": max,
            "delay_ms": delay.as_millis() as u64,
            "discard_partial": true,
        }));
    }

    fn turn_completed(&mut self, message: &AssistantMessage) {
        self.emit(json!({
            "type": "turn_completed",
            "usage": message.usage,
            "finish_reason": message.finish_reason,
        }));
    }

    fn error(&mut self, message: &str) {
        self.emit(json!({"type": "error", "message": message, "will_retry": false}));
    }

    fn session_finished(&mut self, status: Status, text: &str) {
        self.emit(json!({"type": "session_finished", "status": status.as_str(), "text": text}));
    }

    fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_run(events: &[Either]) -> (String, String) {
        let mut out = Vec::new();
        let mut err = Vec::new();
        {
            let mut p = TextPrinter::new(&mut out, &mut err, false);
            for e in events {
                match e {
                    Either::Text(t) => p.delta(&StreamDelta::Text((*t).into())),
                    Either::Retry => p.retrying(
                        &ProviderError::Dropped("x".into()),
                        1,
                        4,
                        Duration::from_secs(2),
                    ),
                }
            }
            p.session_finished(Status::Completed, "");
        }
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    enum Either {
        Text(&'static str),
        Retry,
    }
    use Either::{Retry, Text};

    #[test]
    fn retried_reply_that_repeats_is_not_printed_twice() {
        let (out, err) = text_run(&[Text("Hello, wo"), Retry, Text("Hel"), Text("lo, world!")]);
        assert_eq!(out, "Hello, world!\n");
        assert!(err.contains("retrying in 2 s (1/4)"), "{err}");
    }

    #[test]
    fn retried_reply_that_differs_is_flagged() {
        let (out, err) = text_run(&[Text("Hello"), Retry, Text("Goodbye")]);
        assert_eq!(out, "Hello\nGoodbye\n");
        assert!(err.contains("differs"), "{err}");
    }

    #[test]
    fn delays_read_well() {
        assert_eq!(format_delay(Duration::from_millis(250)), "250 ms");
        assert_eq!(format_delay(Duration::from_secs(2)), "2 s");
        assert_eq!(format_delay(Duration::from_millis(1500)), "1.5 s");
    }
}
