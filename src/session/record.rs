//! One line of a session file: a [`Record`], tagged by `t`. Records are the agent's events
//! (streamed text coalesced into chunks) plus a header; replaying them through
//! [`Record::to_event`] rebuilds the transcript exactly as it was shown, and the history the
//! model saw (`super::resume`).
//!
//! What is never written: API keys, header values, the config. Tool output is written as the
//! model and the user saw it (`content` and `display`).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::events::{CallEnd, Event, FileChange, Mode, TurnEnd, UserChoice};
use crate::provider::{AssistantMessage, ProviderError, StreamDelta};

/// The first line of every session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The record format's version.
    pub v: u32,
    pub id: String,
    pub cwd: String,
    pub model: String,
    pub provider: String,
    /// RFC 3339, UTC.
    pub started: String,
    pub mode: Mode,
}

pub const VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Record {
    Session(Header),
    User {
        text: String,
        sent: String,
    },
    Tools {
        names: Vec<String>,
    },
    /// Reply text as it streamed (several deltas in one record).
    Text {
        s: String,
    },
    Reasoning {
        s: String,
    },
    /// The attempt that streamed so far failed and is retried: discard it.
    Retry {
        error: String,
    },
    Reply {
        message: AssistantMessage,
    },
    Interrupted {
        partial: String,
    },
    Approval {
        call_id: String,
        name: String,
        choice: String,
        reason: Option<String>,
    },
    Judge {
        call_id: String,
        name: String,
        safe: bool,
        reason: String,
    },
    ToolStarted {
        call_id: String,
        name: String,
        cmd_string: String,
    },
    ToolOutput {
        call_id: String,
        name: String,
        content: String,
        display: Option<String>,
    },
    ToolEnd {
        call_id: String,
        name: String,
        end: CallEnd,
    },
    /// A file the call changed, with its diff (shown again on resume, and summed up by `/diff`).
    FileChange {
        call_id: String,
        name: String,
        change: FileChange,
    },
    Remembered {
        tool: String,
        command: Option<String>,
    },
    Mode {
        mode: Mode,
    },
    Model {
        model: String,
    },
    TurnEnd {
        end: String,
        message: Option<String>,
    },
    /// The older history was replaced by `summary`; the last `tail` messages stayed.
    Compaction {
        summary: String,
        before: u64,
        after: u64,
        tail: usize,
    },
    /// How full the window was, and the calibrated characters a token.
    Context {
        used: u64,
        window: u64,
        source: String,
        estimated: bool,
        ratio: f64,
    },
    /// A record this version does not know (written by a newer sayso): kept, ignored.
    #[serde(other)]
    Unknown,
}

fn choice_from(name: &str, reason: Option<String>) -> Option<UserChoice> {
    Some(match name {
        "always_accept" => UserChoice::AlwaysAccept,
        "accept" => UserChoice::Accept,
        "reject" => UserChoice::Reject(reason),
        "cancel" => UserChoice::Cancel,
        _ => return None,
    })
}

impl Record {
    /// The record for an event, when the event is kept (stream text is coalesced by the
    /// writer, so `Delta`s other than text and reasoning, and transient events, are not).
    pub fn from_event(e: &Event) -> Option<Record> {
        Some(match e {
            Event::UserMessage { text, sent } => Record::User {
                text: text.clone(),
                sent: sent.clone(),
            },
            Event::ToolsAdded { names } => Record::Tools {
                names: names.clone(),
            },
            Event::Delta(StreamDelta::Text(s)) => Record::Text { s: s.clone() },
            Event::Delta(StreamDelta::Reasoning(s)) => Record::Reasoning { s: s.clone() },
            Event::Retrying { error, .. } => Record::Retry {
                error: error.to_string(),
            },
            Event::ReplyDone(m) => Record::Reply { message: m.clone() },
            Event::ReplyInterrupted { partial } => Record::Interrupted {
                partial: partial.clone(),
            },
            Event::ApprovalDecided {
                call_id,
                name,
                choice,
            } => Record::Approval {
                call_id: call_id.clone(),
                name: name.clone(),
                choice: choice.as_str().to_owned(),
                reason: choice.reason().map(str::to_owned),
            },
            Event::JudgeFinished {
                call_id,
                name,
                safe,
                reason,
            } => Record::Judge {
                call_id: call_id.clone(),
                name: name.clone(),
                safe: *safe,
                reason: reason.clone(),
            },
            Event::ToolStarted {
                call_id,
                name,
                cmd_string,
                ..
            } => Record::ToolStarted {
                call_id: call_id.clone(),
                name: name.clone(),
                cmd_string: cmd_string.clone(),
            },
            Event::ToolOutput {
                call_id,
                name,
                content,
                display,
            } => Record::ToolOutput {
                call_id: call_id.clone(),
                name: name.clone(),
                content: content.clone(),
                display: display.clone(),
            },
            Event::ToolFinished { call_id, name, end } => Record::ToolEnd {
                call_id: call_id.clone(),
                name: name.clone(),
                end: *end,
            },
            Event::FileChanged {
                call_id,
                name,
                change,
            } => Record::FileChange {
                call_id: call_id.clone(),
                name: name.clone(),
                change: change.clone(),
            },
            Event::Remembered { tool, command } => Record::Remembered {
                tool: tool.clone(),
                command: command.clone(),
            },
            Event::ModeChanged { mode } => Record::Mode { mode: *mode },
            Event::ModelChanged { model } => Record::Model {
                model: model.clone(),
            },
            Event::Compacted {
                summary,
                before,
                after,
                tail,
            } => Record::Compaction {
                summary: summary.clone(),
                before: *before,
                after: *after,
                tail: *tail,
            },
            Event::Context {
                used,
                window,
                source,
                estimated,
                ratio,
            } => Record::Context {
                used: *used,
                window: *window,
                source: source.clone(),
                estimated: *estimated,
                ratio: *ratio,
            },
            Event::TurnEnded(end) => Record::TurnEnd {
                end: end.status().to_owned(),
                message: end.message(),
            },
            _ => return None,
        })
    }

    /// The events this record replays as, for rebuilding the transcript.
    pub fn to_events(&self) -> Vec<Event> {
        self.clone().into_events()
    }

    /// [`Record::to_events`], taking the record (no copy of its text).
    pub fn into_events(self) -> Vec<Event> {
        if let Record::Reply { message } = self {
            // The streamed tool-call deltas are not recorded: the reply announces its calls,
            // so the transcript gets a block for each.
            let mut out: Vec<Event> = message
                .tool_calls
                .iter()
                .enumerate()
                .map(|(index, c)| {
                    Event::Delta(StreamDelta::ToolCallStarted {
                        index,
                        id: c.id.clone(),
                        name: c.name.clone(),
                    })
                })
                .collect();
            out.push(Event::ReplyDone(message));
            return out;
        }
        self.into_event().into_iter().collect()
    }

    fn into_event(self) -> Option<Event> {
        Some(match self {
            Record::User { text, sent } => Event::UserMessage { text, sent },
            Record::Tools { names } => Event::ToolsAdded { names },
            Record::Text { s } => Event::Delta(StreamDelta::Text(s)),
            Record::Reasoning { s } => Event::Delta(StreamDelta::Reasoning(s)),
            Record::Retry { error } => Event::Retrying {
                retry: 0,
                max_retries: 0,
                delay: Duration::ZERO,
                error: ProviderError::Dropped(error),
            },
            Record::Reply { message } => Event::ReplyDone(message),
            Record::Interrupted { partial } => Event::ReplyInterrupted { partial },
            Record::Approval {
                call_id,
                name,
                choice,
                reason,
            } => Event::ApprovalDecided {
                call_id,
                name,
                choice: choice_from(&choice, reason)?,
            },
            Record::Judge {
                call_id,
                name,
                safe,
                reason,
            } => Event::JudgeFinished {
                call_id,
                name,
                safe,
                reason,
            },
            Record::ToolStarted {
                call_id,
                name,
                cmd_string,
            } => Event::ToolStarted {
                call_id,
                name,
                cmd_string,
                args: Value::Null,
            },
            Record::ToolOutput {
                call_id,
                name,
                content,
                display,
            } => Event::ToolOutput {
                call_id,
                name,
                content,
                display,
            },
            Record::ToolEnd { call_id, name, end } => Event::ToolFinished { call_id, name, end },
            Record::FileChange {
                call_id,
                name,
                change,
            } => Event::FileChanged {
                call_id,
                name,
                change,
            },
            Record::Remembered { tool, command } => Event::Remembered { tool, command },
            Record::Mode { mode } => Event::ModeChanged { mode },
            Record::Model { model } => Event::ModelChanged { model },
            Record::TurnEnd { end, message } => Event::TurnEnded(match end.as_str() {
                "completed" => TurnEnd::Completed,
                "interrupted" => TurnEnd::Stopped,
                _ => TurnEnd::Failed(ProviderError::Dropped(message.unwrap_or_default())),
            }),
            Record::Compaction {
                summary,
                before,
                after,
                tail,
            } => Event::Compacted {
                summary,
                before,
                after,
                tail,
            },
            Record::Context {
                used,
                window,
                source,
                estimated,
                ratio,
            } => Event::Context {
                used,
                window,
                source,
                estimated,
                ratio,
            },
            Record::Session(_) | Record::Unknown => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_as_written_and_unknown_ones_are_kept_apart() {
        let r = Record::ToolOutput {
            call_id: "c1".into(),
            name: "read_file".into(),
            content: "the file".into(),
            display: Some("Read a (3 lines)".into()),
        };
        let line = serde_json::to_string(&r).unwrap();
        assert!(line.starts_with("{\"t\":\"tool_output\""), "{line}");
        assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), r);
        let future: Record = serde_json::from_str(r#"{"t":"hologram","x":1}"#).unwrap();
        assert_eq!(future, Record::Unknown);
    }

    #[test]
    fn a_file_change_replays_as_the_same_event() {
        let e = Event::FileChanged {
            call_id: "c1".into(),
            name: "edit_file".into(),
            change: FileChange::new(
                "a.txt",
                "/w/a.txt",
                crate::events::ChangeKind::Edited,
                "@@ -1 +1 @@\n-a\n+b\n".into(),
            ),
        };
        let r = Record::from_event(&e).unwrap();
        let line = serde_json::to_string(&r).unwrap();
        assert!(line.starts_with("{\"t\":\"file_change\""), "{line}");
        assert_eq!(
            serde_json::from_str::<Record>(&line).unwrap().to_events(),
            [e]
        );
    }

    #[test]
    fn a_decision_replays_as_the_same_choice() {
        let e = Event::ApprovalDecided {
            call_id: "c1".into(),
            name: "run_command".into(),
            choice: UserChoice::Reject(Some("use make".into())),
        };
        let r = Record::from_event(&e).unwrap();
        assert_eq!(r.to_events(), [e]);
    }
}
