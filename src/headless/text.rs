//! Readable text: the reply on stdout; reasoning, tool activity, retries and errors on stderr.
//!
//! A retried attempt restarts the reply. Text already printed cannot be taken back, so the
//! retried reply is compared with it: the part that repeats what is already on screen is not
//! printed again, and if the new reply differs, a note on stderr says so before it continues.

use std::collections::HashMap;
use std::io::Write;

use super::{Printer, notices};
use crate::duration_text;
use crate::events::{CallEnd, Event, FileChange, Mode, TurnEnd, UserChoice};
use crate::provider::{Retry, StreamDelta};

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
            let common = old
                .iter()
                .zip(t.as_bytes())
                .take_while(|(a, b)| a == b)
                .count();
            let common = t.floor_char_boundary(common);
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

    fn reasoning(&mut self, r: &str) {
        if !self.in_reasoning {
            self.in_reasoning = true;
            let _ = write!(self.err, "{}", if self.dim { "\x1b[2m" } else { "" });
        }
        let _ = self.err.write_all(r.as_bytes());
    }

    fn retrying(&mut self, r: &Retry) {
        let Retry {
            retry,
            max_retries: max,
            delay,
            error,
        } = r;
        self.end_reasoning();
        let _ = self.out.flush();
        if !self.ends_with_newline {
            let _ = writeln!(self.err);
        }
        let _ = writeln!(
            self.err,
            "sayso: {error}; retrying in {} ({retry}/{max})",
            duration_text::spaced(*delay)
        );
        self.replay = Some(0);
    }

    /// What a call changed, as a unified diff on stderr (coloured on a terminal).
    fn file_changed(&mut self, c: &FileChange) {
        self.end_line();
        self.note(&format!("{}:", c.headline()));
        for line in c.diff.lines() {
            let colour = match line.as_bytes().first() {
                _ if !self.dim || line.starts_with("+++") || line.starts_with("---") => "",
                Some(b'+') => "\x1b[32m",
                Some(b'-') => "\x1b[31m",
                Some(b'@') => "\x1b[36m",
                _ => "",
            };
            let reset = if colour.is_empty() { "" } else { "\x1b[0m" };
            let _ = writeln!(self.err, "{colour}{line}{reset}");
        }
        if c.truncated {
            let _ = writeln!(self.err, "sayso: (the rest of this diff was not kept)");
        }
    }

    fn tool_finished(&mut self, call_id: &str, name: &str, end: CallEnd) {
        let what = self
            .cmd_strings
            .get(call_id)
            .cloned()
            .unwrap_or_else(|| name.to_owned());
        let status = match end {
            CallEnd::Success => "done",
            CallEnd::Error => "failed",
            CallEnd::Rejected => "rejected",
            CallEnd::Cancelled => "cancelled",
        };
        self.end_line();
        self.note(&format!("{status}: {what}"));
    }
}

impl<O: Write, E: Write> Printer for TextPrinter<O, E> {
    fn session_started(
        &mut self,
        _model: &str,
        _provider: &str,
        mode: Mode,
        _session: Option<&str>,
    ) {
        if mode != Mode::Balanced {
            let _ = writeln!(
                self.err,
                "sayso: {} mode: {}",
                mode.as_str(),
                mode.describe()
            );
        }
    }

    fn event(&mut self, ev: &Event) {
        match ev {
            Event::Delta(StreamDelta::Text(t)) => self.text(t),
            Event::Delta(StreamDelta::Reasoning(r)) => self.reasoning(r),
            Event::Retrying(r) => self.retrying(r),
            Event::ReplyDone(_) | Event::ReplyInterrupted { .. } => {
                self.end_reasoning();
                self.end_line();
                self.shown.clear();
                self.replay = None;
            }
            Event::ApprovalRequested {
                call_id,
                cmd_string,
                ..
            } => {
                self.cmd_strings.insert(call_id.clone(), cmd_string.clone());
            }
            Event::ApprovalDecided {
                name,
                choice: UserChoice::Reject(Some(r)),
                ..
            } => self.note(&format!("{name}: {r}")),
            Event::JudgeFinished {
                name, safe, reason, ..
            } => {
                let verdict = if *safe { "safe" } else { "unsafe" };
                self.note(&format!("judge on {name}: {verdict} — {reason}"));
            }
            Event::ToolStarted {
                call_id,
                cmd_string,
                unasked,
                ..
            } => {
                self.cmd_strings.insert(call_id.clone(), cmd_string.clone());
                self.end_line();
                self.note(&format!("running {cmd_string}"));
                if let Some(why) = unasked {
                    self.note(&format!("  {}", why.line()));
                }
            }
            Event::FileChanged { change, .. } => self.file_changed(change),
            Event::Todo { items, .. } => self.note(&format!(
                "todo ({}):\n{}",
                crate::events::todo::progress(items),
                crate::events::todo::checklist(items)
            )),
            Event::ToolFinished { call_id, name, end } => self.tool_finished(call_id, name, *end),
            Event::Pruned { outputs, .. } => self.note(&format!(
                "{outputs} older tool output(s) are now sent as short stand-ins to fit the model's context window"
            )),
            Event::Compacted { before, after, .. } => self.note(&format!(
                "compacted the conversation to fit the model's context window (~{before} → ~{after} tokens)"
            )),
            Event::Notice(n) => match notices::message(n) {
                Some(text) if n.is_error() => self.note(&format!("error: {text}")),
                Some(text) => self.note(&text),
                None => {}
            },
            _ => {}
        }
    }

    fn wants_text(&self) -> bool {
        false
    }

    fn session_finished(&mut self, end: &TurnEnd, _text: &str) {
        self.end_reasoning();
        self.end_line();
        if let Some(message) = end.message() {
            let _ = self.out.flush();
            let _ = writeln!(self.err, "sayso: error: {message}");
        }
    }

    fn flush(&mut self) {
        let _ = self.out.flush();
        let _ = self.err.flush();
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
                    Text(t) => p.event(&Event::Delta(StreamDelta::Text((*t).into()))),
                    Retry => p.event(&Event::Retrying(crate::provider::Retry {
                        retry: 1,
                        max_retries: 4,
                        delay: std::time::Duration::from_secs(2),
                        error: crate::provider::ProviderError::Dropped("x".into()),
                    })),
                }
            }
            p.session_finished(&TurnEnd::Completed, "");
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
    fn notices_go_to_stderr_an_error_marked() {
        use crate::events::Notice;
        let mut out = Vec::new();
        let mut err = Vec::new();
        {
            let mut p = TextPrinter::new(&mut out, &mut err, false);
            for n in [
                Notice::NothingToCompact,
                Notice::McpFailed {
                    server: "fs".into(),
                    why: "exited".into(),
                },
                Notice::ReplayedModel("m".into()),
            ] {
                p.event(&Event::Notice(n));
            }
        }
        assert_eq!(String::from_utf8(out).unwrap(), "");
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "sayso: nothing to compact yet: the conversation is too short\n\
             sayso: error: MCP server `fs`: exited\n"
        );
    }

    #[test]
    fn retried_reply_that_differs_is_flagged() {
        let (out, err) = text_run(&[Text("Hello"), Retry, Text("Goodbye")]);
        assert_eq!(out, "Hello\nGoodbye\n");
        assert!(err.contains("differs"), "{err}");
    }
}
