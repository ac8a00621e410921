//! The two headless outputs: readable text, and JSON Lines events (SPEC §7).

use std::collections::HashMap;
use std::io::Write;
use std::time::Duration;

use serde_json::{Value, json};

use super::Status;
use crate::agent::AgentEvent;
use crate::provider::{ProviderError, StreamDelta};
use crate::tools::events::{EngineEvent, ToolStatus};

/// Receives what happens during a headless run.
pub trait Printer {
    fn session_started(&mut self, model: &str, provider: &str, auto: bool);
    fn event(&mut self, ev: &AgentEvent);
    fn error(&mut self, message: &str);
    fn session_finished(&mut self, status: Status, text: &str);
    fn flush(&mut self);
}

/// Text on stdout; reasoning, tool activity, retries and errors on stderr.
///
/// A retried attempt restarts the reply. Text already printed cannot be taken back, so the
/// retried reply is compared with it: the part that repeats what is already on screen is not
/// printed again, and if the new reply differs, a note on stderr says so before it continues.
pub struct TextPrinter<O: Write, E: Write> {
    out: O,
    err: E,
    /// The text of the current reply printed so far.
    shown: String,
    /// During a retried attempt: how much of `shown` the new reply has repeated so far.
    replay: Option<usize>,
    in_reasoning: bool,
    ends_with_newline: bool,
    dim: bool,
    cmd_strings: HashMap<String, String>,
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
            cmd_strings: HashMap::new(),
        }
    }

    fn end_reasoning(&mut self) {
        if self.in_reasoning {
            self.in_reasoning = false;
            let _ = writeln!(self.err, "{}", if self.dim { "\x1b[0m" } else { "" });
        }
    }

    /// Ends the current stdout line, so what follows starts on its own line.
    fn end_line(&mut self) {
        if !self.ends_with_newline {
            let _ = writeln!(self.out);
            self.ends_with_newline = true;
        }
    }

    fn note(&mut self, line: &str) {
        self.end_reasoning();
        let _ = self.out.flush();
        let _ = writeln!(self.err, "sayso: {line}");
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

    fn engine(&mut self, e: &EngineEvent) {
        match e {
            EngineEvent::ToolApprovalRequested {
                call_id,
                cmd_string,
                ..
            } => {
                self.cmd_strings.insert(call_id.clone(), cmd_string.clone());
            }
            EngineEvent::ToolApprovalFinished {
                name,
                choice,
                reason: Some(r),
                ..
            } if choice == "reject" => {
                self.note(&format!("{name}: {r}"));
            }
            EngineEvent::ToolsJudgeFinished {
                name, safe, reason, ..
            } => {
                let verdict = if *safe { "safe" } else { "unsafe" };
                self.note(&format!("judge on {name}: {verdict} — {reason}"));
            }
            EngineEvent::ToolStarted {
                call_id,
                cmd_string,
                ..
            } => {
                self.cmd_strings.insert(call_id.clone(), cmd_string.clone());
                self.end_line();
                self.note(&format!("running {cmd_string}"));
            }
            EngineEvent::ToolFinished {
                call_id,
                name,
                status,
            } => {
                let what = self
                    .cmd_strings
                    .get(call_id)
                    .cloned()
                    .unwrap_or_else(|| name.clone());
                let status = match status {
                    ToolStatus::Success => "done",
                    ToolStatus::Error => "failed",
                    ToolStatus::Rejected => "rejected",
                    ToolStatus::Cancelled => "cancelled",
                };
                self.end_line();
                self.note(&format!("{status}: {what}"));
            }
            _ => {}
        }
    }
}

impl<O: Write, E: Write> Printer for TextPrinter<O, E> {
    fn session_started(&mut self, _model: &str, _provider: &str, auto: bool) {
        if auto {
            let _ = writeln!(
                self.err,
                "sayso: auto mode: tools run without asking, except protected ones"
            );
        }
    }

    fn event(&mut self, ev: &AgentEvent) {
        match ev {
            AgentEvent::Delta(StreamDelta::Text(t)) => self.text(t),
            AgentEvent::Delta(StreamDelta::Reasoning(r)) => {
                if !self.in_reasoning {
                    self.in_reasoning = true;
                    let _ = write!(self.err, "{}", if self.dim { "\x1b[2m" } else { "" });
                }
                let _ = self.err.write_all(r.as_bytes());
            }
            AgentEvent::Delta(_) => {}
            AgentEvent::Retrying {
                retry,
                max_retries,
                delay,
                error,
            } => self.retrying(error, *retry, *max_retries, *delay),
            AgentEvent::ReplyDone(_) | AgentEvent::ReplyInterrupted { .. } => {
                self.end_reasoning();
                self.end_line();
                self.shown.clear();
                self.replay = None;
            }
            AgentEvent::Engine(e) => self.engine(e),
        }
    }

    fn error(&mut self, message: &str) {
        self.end_reasoning();
        let _ = self.out.flush();
        let _ = writeln!(self.err, "sayso: error: {message}");
    }

    fn session_finished(&mut self, _status: Status, _text: &str) {
        self.end_line();
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

    fn engine(&mut self, e: &EngineEvent) {
        let v = match e {
            EngineEvent::ToolApprovalRequested {
                call_id,
                name,
                cmd_string,
                judge_reason,
                caution,
            } => json!({
                "type": "approval_requested", "call_id": call_id, "name": name,
                "cmd_string": cmd_string, "judge_reason": judge_reason, "caution": caution,
            }),
            EngineEvent::ToolApprovalFinished {
                call_id,
                name,
                choice,
                reason,
            } => json!({
                "type": "approval_decided", "call_id": call_id, "name": name, "choice": choice, "reason": reason,
            }),
            EngineEvent::ToolsJudgeStarted {
                call_id,
                name,
                context,
            } => json!({
                "type": "judge_started", "call_id": call_id, "name": name, "context": context,
            }),
            EngineEvent::ToolsJudgeFinished {
                call_id,
                name,
                safe,
                reason,
            } => json!({
                "type": "judge_finished", "call_id": call_id, "name": name, "safe": safe, "reason": reason,
            }),
            EngineEvent::ToolStarted {
                call_id,
                name,
                cmd_string,
                args,
            } => json!({
                "type": "tool_started", "call_id": call_id, "name": name, "cmd_string": cmd_string, "args": args,
            }),
            EngineEvent::ToolOutput {
                call_id,
                name,
                content,
                display,
            } => json!({
                "type": "tool_output", "call_id": call_id, "name": name, "content": content, "display": display,
            }),
            EngineEvent::ToolFinished {
                call_id,
                name,
                status,
            } => json!({
                "type": "tool_finished", "call_id": call_id, "name": name, "status": status,
            }),
            EngineEvent::ToolsStarted { .. } | EngineEvent::ToolsFinished { .. } => return,
        };
        self.emit(v);
    }
}

impl<O: Write> Printer for JsonPrinter<O> {
    fn session_started(&mut self, model: &str, provider: &str, auto: bool) {
        self.emit(
            json!({"type": "session_started", "model": model, "provider": provider, "auto": auto}),
        );
    }

    fn event(&mut self, ev: &AgentEvent) {
        let v = match ev {
            AgentEvent::Delta(StreamDelta::Text(t)) => json!({"type": "message_delta", "text": t}),
            AgentEvent::Delta(StreamDelta::Reasoning(r)) => {
                json!({"type": "reasoning_delta", "text": r})
            }
            AgentEvent::Delta(StreamDelta::ToolCallStarted { index, id, name }) => {
                json!({"type": "tool_call_start", "index": index, "call_id": id, "name": name})
            }
            AgentEvent::Delta(StreamDelta::ToolCallArguments { index, fragment }) => {
                json!({"type": "tool_call_delta", "index": index, "arguments": fragment})
            }
            AgentEvent::Delta(StreamDelta::Usage(_)) => return,
            AgentEvent::Retrying {
                retry,
                max_retries,
                delay,
                error,
            } => json!({
                "type": "error",
                "message": error.to_string(),
                "will_retry": true,
                "retry": retry,
                "max_retries": max_retries,
                "delay_ms": delay.as_millis() as u64,
                "discard_partial": true,
            }),
            AgentEvent::ReplyDone(m) => {
                for (index, c) in m.tool_calls.iter().enumerate() {
                    self.emit(json!({
                        "type": "tool_call_end", "index": index, "call_id": c.id, "name": c.name, "arguments": c.arguments,
                    }));
                }
                json!({"type": "turn_completed", "usage": m.usage, "finish_reason": m.finish_reason})
            }
            AgentEvent::ReplyInterrupted { .. } => return,
            AgentEvent::Engine(e) => return self.engine(e),
        };
        self.emit(v);
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

    enum Step {
        Text(&'static str),
        Retry,
    }
    use Step::{Retry, Text};

    fn text_run(steps: &[Step]) -> (String, String) {
        let mut out = Vec::new();
        let mut err = Vec::new();
        {
            let mut p = TextPrinter::new(&mut out, &mut err, false);
            for s in steps {
                match s {
                    Text(t) => p.event(&AgentEvent::Delta(StreamDelta::Text((*t).into()))),
                    Retry => p.event(&AgentEvent::Retrying {
                        retry: 1,
                        max_retries: 4,
                        delay: Duration::from_secs(2),
                        error: ProviderError::Dropped("x".into()),
                    }),
                }
            }
            p.session_finished(Status::Completed, "");
        }
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

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
