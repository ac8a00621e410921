//! A session file read back into what a chat needs to go on (SPEC §8.1): the history the model
//! saw, the events that rebuild the transcript as it was shown, the tools that were added, the
//! remembered approvals, the mode and the model.
//!
//! A session killed mid-stream resumes with the partial reply marked interrupted (and sent so,
//! like a reply the user stopped); a tool call that never finished is answered as interrupted,
//! so the next request has a result for every call id.

use std::collections::HashMap;

use super::record::{Header, Record};
use crate::events::{CallEnd, Event, Mode};
use crate::provider::{ChatMessage, ToolCall};
use crate::tools::policy::approval::{Approvals, By};

/// One step of the history, before the agent turns it into messages.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// These tools joined the chat here (their system prompts go in at this point).
    ToolsAdded(Vec<String>),
    /// Everything before was compacted into this summary (the system message is rebuilt).
    Compacted(String),
    Message(ChatMessage),
}

/// What a session file holds.
#[derive(Debug, Default)]
pub struct Resumed {
    pub header: Option<Header>,
    pub history: Vec<Step>,
    /// Replayed through the transcript, they draw the session as it was shown.
    pub events: Vec<Event>,
    pub tools_added: Vec<String>,
    /// What was remembered in the mode the session ended in ([`Resumed::mode`]); a change of
    /// mode along the way forgot what came before it.
    pub remembered: Approvals,
    pub mode: Option<Mode>,
    pub model: Option<String>,
    /// The session ended in the middle of a reply or a tool call.
    pub interrupted: bool,
    /// Records the history could not use (unknown kinds).
    pub unknown: usize,
    /// The characters-a-token ratio the chat had calibrated last.
    pub ratio: Option<f64>,
}

/// The text sent for a call that never finished.
pub fn interrupted_text(name: &str) -> String {
    format!(
        "The `{name}` tool call was interrupted: sayso stopped before it finished, so it may or may not have run."
    )
}

#[derive(Default)]
struct Builder {
    out: Resumed,
    /// Reply text streamed since the last reply.
    partial: String,
    /// The calls of the last reply, in order, and what each reported.
    open: Vec<ToolCall>,
    parts: HashMap<String, Vec<String>>,
    ended: HashMap<String, CallEnd>,
}

impl Builder {
    /// Every call of the last reply gets its tool message, in call order.
    fn close_calls(&mut self, synthesize: bool) {
        for call in std::mem::take(&mut self.open) {
            let ended = self.ended.remove(&call.id);
            let parts = self.parts.remove(&call.id).unwrap_or_default();
            // A session saved before a secret was known (or by an older sayso) sends the model
            // no secret either.
            let content = if ended.is_some() || !parts.is_empty() {
                crate::secrets::scrub_owned(parts.join("\n\n"))
            } else {
                interrupted_text(&call.name)
            };
            if ended.is_none() && synthesize {
                self.out.interrupted = true;
                self.out.events.push(Event::ToolOutput {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    content: content.clone(),
                    display: None,
                });
                self.out.events.push(Event::ToolFinished {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    end: CallEnd::Cancelled,
                });
            }
            self.out.history.push(Step::Message(ChatMessage::Tool {
                tool_call_id: call.id,
                content,
            }));
        }
    }

    /// The history becomes: the tools added so far, the summary, the last `tail` messages.
    fn compacted(&mut self, summary: String, tail: usize) {
        let history = std::mem::take(&mut self.out.history);
        let messages: Vec<usize> = history
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Step::Message(_)))
            .map(|(i, _)| i)
            .collect();
        let keep_from = messages
            .len()
            .checked_sub(tail)
            .and_then(|k| messages.get(k).copied())
            .unwrap_or(history.len());
        let mut rebuilt: Vec<Step> = history[..keep_from]
            .iter()
            .filter(|s| matches!(s, Step::ToolsAdded(_)))
            .cloned()
            .collect();
        rebuilt.push(Step::Compacted(summary));
        rebuilt.extend(history[keep_from..].iter().cloned());
        self.out.history = rebuilt;
    }

    fn record(&mut self, r: Record) {
        match &r {
            Record::Session(h) => {
                self.out.mode.get_or_insert(h.mode);
                self.out.model.get_or_insert(h.model.clone());
                self.out.header.get_or_insert(h.clone());
            }
            Record::Text { s } => self.partial.push_str(s),
            Record::Reasoning { .. } => {}
            Record::Event(e) => self.event(e),
            Record::Unknown => self.out.unknown += 1,
        }
        self.out.events.extend(r.into_events());
    }

    fn event(&mut self, e: &Event) {
        match e {
            Event::UserMessage { sent, .. } => {
                self.close_calls(true);
                self.out.history.push(Step::Message(ChatMessage::User {
                    content: sent.clone(),
                    images: Vec::new(),
                }));
            }
            Event::ToolsAdded { names } => {
                self.close_calls(true);
                self.out.tools_added.extend(names.iter().cloned());
                self.out.history.push(Step::ToolsAdded(names.clone()));
            }
            Event::Retrying(_) => self.partial.clear(),
            Event::ReplyDone(message) => {
                self.close_calls(true);
                self.partial.clear();
                self.out.history.push(Step::Message(ChatMessage::Assistant {
                    content: message.content.clone(),
                    tool_calls: message.tool_calls.clone(),
                    reasoning: message.kept_reasoning(),
                }));
                self.open = message.tool_calls.clone();
            }
            Event::ReplyInterrupted { partial } => {
                self.partial.clear();
                if !partial.is_empty() {
                    self.out.history.push(Step::Message(ChatMessage::Assistant {
                        content: partial.clone(),
                        tool_calls: Vec::new(),
                        reasoning: None,
                    }));
                }
            }
            Event::ToolOutput {
                call_id, content, ..
            } => self
                .parts
                .entry(call_id.clone())
                .or_default()
                .push(content.clone()),
            Event::ToolFinished { call_id, end, .. } => {
                self.ended.insert(call_id.clone(), *end);
            }
            Event::Remembered {
                tool,
                command,
                mode,
                judge,
            } => {
                // Kept for the mode in force at this point of the session; one given in another
                // mode (a record written as the mode changed) is not kept.
                let Some(now) = self.out.mode else { return };
                if mode.is_some_and(|m| m != now) {
                    return;
                }
                let by = if *judge { By::Judge } else { By::User };
                let key = command.as_deref().unwrap_or_default();
                self.out
                    .remembered
                    .remember(now, by, tool, key, command.is_some());
            }
            Event::ModeChanged { mode } => {
                // Approvals belong to the mode that gave them: a change forgets them.
                if self.out.mode != Some(*mode) {
                    self.out.remembered.clear();
                }
                self.out.mode = Some(*mode);
            }
            Event::ModelChanged { model } => self.out.model = Some(model.clone()),
            Event::TurnEnded(_) => self.close_calls(true),
            Event::Compacted { summary, tail, .. } => {
                self.close_calls(true);
                self.compacted(summary.clone(), *tail);
            }
            Event::Context { ratio, .. } => self.out.ratio = Some(*ratio),
            // What only the transcript shows, and what is never saved.
            _ => {}
        }
    }

    fn finish(mut self) -> Resumed {
        if !self.partial.is_empty() {
            // Killed while the reply streamed: what was shown is kept, marked interrupted.
            let partial = std::mem::take(&mut self.partial);
            self.out.interrupted = true;
            self.out.events.push(Event::ReplyInterrupted {
                partial: partial.clone(),
            });
            self.out.history.push(Step::Message(ChatMessage::Assistant {
                content: partial,
                tool_calls: Vec::new(),
                reasoning: None,
            }));
        }
        self.close_calls(true);
        self.out
    }
}

/// Rebuilds a session from its records, in file order.
pub fn resume(records: impl IntoIterator<Item = Record>) -> Resumed {
    let mut b = Builder::default();
    for r in records {
        b.record(r);
    }
    b.finish()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::events::TurnEnd;
    use crate::provider::{AssistantMessage, ProviderError};

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "run_command".into(),
            arguments: "{}".into(),
        }
    }

    fn messages(r: &Resumed) -> Vec<ChatMessage> {
        r.history
            .iter()
            .filter_map(|s| match s {
                Step::Message(m) => Some(m.clone()),
                Step::ToolsAdded(_) | Step::Compacted(_) => None,
            })
            .collect()
    }

    /// Records as a session file holds them, one JSON line each.
    fn records(lines: &[serde_json::Value]) -> Vec<Record> {
        lines
            .iter()
            .map(|l| serde_json::from_value(l.clone()).unwrap_or_else(|e| panic!("{l}: {e}")))
            .collect()
    }

    #[test]
    fn every_call_is_answered_and_a_torn_reply_is_kept_interrupted() {
        let r = resume(records(&[
            json!({"t": "user", "text": "go", "sent": "go"}),
            json!({"t": "reply", "message": AssistantMessage {
                tool_calls: vec![call("c1"), call("c2")],
                ..AssistantMessage::default()
            }}),
            json!({"t": "tool_output", "call_id": "c1", "name": "run_command", "content": "ok", "display": null}),
            json!({"t": "tool_end", "call_id": "c1", "name": "run_command", "end": "success"}),
            // Killed while c2 ran.
        ]));
        assert!(r.interrupted);
        let m = messages(&r);
        assert_eq!(m.len(), 4);
        assert_eq!(
            m[2],
            ChatMessage::Tool {
                tool_call_id: "c1".into(),
                content: "ok".into()
            }
        );
        assert_eq!(
            m[3],
            ChatMessage::Tool {
                tool_call_id: "c2".into(),
                content: interrupted_text("run_command")
            }
        );

        let r = resume(records(&[
            json!({"t": "user", "text": "hi", "sent": "hi"}),
            json!({"t": "text", "s": "Hel"}),
            json!({"t": "retry", "error": "dropped"}),
            json!({"t": "text", "s": "Hello, wo"}),
        ]));
        assert!(r.interrupted);
        assert_eq!(
            messages(&r)[1],
            ChatMessage::Assistant {
                content: "Hello, wo".into(),
                tool_calls: vec![],
                reasoning: None,
            }
        );
        assert!(matches!(
            r.events.last(),
            Some(Event::ReplyInterrupted { partial }) if partial == "Hello, wo"
        ));
    }

    /// A turn replays as it ended, in this format and in format 1 (where anything but a
    /// completion or a stop was saved as "failed" with its message).
    #[test]
    fn a_turn_replays_as_it_really_ended() {
        let rows = [
            (json!({"end": "stopped"}), TurnEnd::Stopped),
            (
                json!({"end": "interrupted", "message": "interrupted"}),
                TurnEnd::Stopped,
            ),
            (json!({"end": "cancelled"}), TurnEnd::Cancelled),
            (
                json!({"end": "max_turns", "detail": 2}),
                TurnEnd::MaxTurns(2),
            ),
            (json!({"end": "length_limit"}), TurnEnd::LengthLimit),
            (
                json!({"end": "failed", "detail": {"idle_timeout": {"secs": 30, "nanos": 0}}}),
                TurnEnd::Failed(ProviderError::IdleTimeout(Duration::from_secs(30))),
            ),
            (
                json!({"end": "failed", "message": "stopped after 2 model round-trips (--max-turns) without a final answer"}),
                TurnEnd::MaxTurns(2),
            ),
            (
                json!({"end": "failed", "message": "the reply was cut off: the model reached its output token limit (finish_reason: length)"}),
                TurnEnd::LengthLimit,
            ),
        ];
        for (end, want) in rows {
            let mut line = json!({"t": "turn_end"});
            line.as_object_mut()
                .unwrap()
                .extend(end.as_object().unwrap().clone());
            let r = resume(records(&[
                json!({"t": "user", "text": "go", "sent": "go"}),
                line.clone(),
            ]));
            assert_eq!(r.events.last(), Some(&Event::TurnEnded(want)), "{line}");
        }
    }

    #[test]
    fn remembered_calls_come_back_by_their_whole_key() {
        let long = format!(
            r#"notes__write {{"content":"{}","path":"a"}}"#,
            "A".repeat(300)
        );
        let mut saved = records(&[header("balanced")]);
        saved.push(Record::Event(Event::Remembered {
            tool: "notes__write".into(),
            command: Some(long.clone()),
            mode: None,
            judge: false,
        }));
        let r = resume(saved);
        assert!(r.remembered.is_approved("notes__write", &long, true));
        let other = long.replace(r#""path":"a""#, r#""path":"b""#);
        assert!(!r.remembered.is_approved("notes__write", &other, true));
        assert!(!r.remembered.is_approved("notes__write", "", false));
    }

    fn header(mode: &str) -> serde_json::Value {
        json!({"t": "session", "v": 2, "id": "s1", "cwd": "/p", "model": "m", "provider": "p",
               "started": "2026-01-01T00:00:00Z", "mode": mode})
    }

    /// What a resumed session remembers: only what was given in the mode it ended in — a
    /// change of mode along the way forgot what came before, and a record naming another mode
    /// than the one in force is not kept (issue 36.7).
    #[test]
    fn remembered_approvals_come_back_only_for_the_mode_the_session_ended_in() {
        let remembered = |command: &str, mode: Option<&str>, judge: bool| {
            let mut r = json!({"t": "remembered", "tool": "run_command", "command": command});
            if let Some(m) = mode {
                r["mode"] = json!(m);
            }
            if judge {
                r["judge"] = json!(true);
            }
            r
        };
        let mode = |m: &str| json!({"t": "mode", "mode": m});
        let r = resume(records(&[
            header("auto"),
            remembered("make", Some("auto"), true),
            remembered("ls", None, false),
            mode("balanced"),
            remembered("cargo test", Some("balanced"), false),
            remembered("stale", Some("auto"), true),
        ]));
        assert_eq!(r.mode, Some(Mode::Balanced));
        assert_eq!(r.remembered.given_in(), Some(Mode::Balanced));
        assert_eq!(
            r.remembered.list(),
            (vec![], vec![("run_command", "cargo test")]),
            "the auto verdicts were forgotten when the mode changed"
        );
        let r = resume(records(&[
            header("auto"),
            remembered("make", Some("auto"), true),
            mode("balanced"),
            mode("auto"),
        ]));
        assert_eq!(
            r.remembered.list(),
            (vec![], vec![]),
            "switching away and back forgets too"
        );
        let r = resume(records(&[header("auto"), remembered("make", None, true)]));
        assert_eq!(
            r.remembered.recall(Mode::Auto, "run_command", "make", true),
            Some(By::Judge),
            "an older record without a mode takes the session's"
        );
        assert_eq!(
            r.remembered
                .recall(Mode::Balanced, "run_command", "make", true),
            None
        );
    }
}
