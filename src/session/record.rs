//! One line of a session file: a [`Record`], tagged by `t`. A record is a saved [`Event`] in
//! the event's own serde form (`events` says which events are saved and how each is spelled),
//! streamed text or reasoning coalesced into a chunk, or the header. Replaying records
//! through [`Record::into_events`] rebuilds the transcript exactly as it was shown, and the
//! history the model saw (`super::resume`).
//!
//! Reading is lenient in two ways: a file of format 1 (where a retry's error and a turn's end
//! were strings) reads through [`v1`], and a kind this version does not know (written by a
//! newer sayso) is kept as [`Record::Unknown`] and ignored. A line of a known kind that does
//! not read is an error (the caller skips it and says so).
//!
//! What is never written: API keys, header values, the config. Tool output is written as the
//! model and the user saw it (`content` and `display`).

use serde::{Deserialize, Deserializer, Serialize};

use crate::events::{Event, Mode};
use crate::provider::StreamDelta;

pub mod v1;

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
    /// The session this one was forked from by `/rewind` (absent in older files, and in a
    /// session that is no fork; an older sayso reading a fork ignores it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
}

/// 2: a retry's error, a turn's end and an approval's choice are typed (format 1 read too).
pub const VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case", from = "ReadForm")]
pub enum Record {
    Session(Header),
    /// Reply text as it streamed (several deltas in one record).
    Text {
        s: String,
    },
    Reasoning {
        s: String,
    },
    /// A record this version does not know (written by a newer sayso): kept, ignored.
    #[serde(skip)]
    Unknown,
    /// A saved event, tagged as the event's serde form says.
    #[serde(untagged)]
    Event(Event),
}

/// Every tag this version writes (a line with another tag is [`Record::Unknown`]).
pub const KINDS: &[&str] = &[
    "session",
    "text",
    "reasoning",
    "user",
    "tools",
    "retry",
    "reply",
    "interrupted",
    "approval",
    "judge",
    "tool_started",
    "tool_output",
    "tool_end",
    "file_change",
    "checkpoint",
    "undo",
    "remembered",
    "mode",
    "model",
    "turn_end",
    "compaction",
    "context",
];

/// What a line may hold, in the order it is tried: a record of this format, one of format 1,
/// or one of a kind this version does not know.
#[derive(Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
enum ReadForm {
    Session(Header),
    Text {
        s: String,
    },
    Reasoning {
        s: String,
    },
    #[serde(untagged)]
    Event(Event),
    #[serde(untagged)]
    V1(v1::Record),
    #[serde(untagged)]
    Unknown(UnknownKind),
}

impl From<ReadForm> for Record {
    fn from(f: ReadForm) -> Self {
        match f {
            ReadForm::Session(h) => Record::Session(h),
            ReadForm::Text { s } => Record::Text { s },
            ReadForm::Reasoning { s } => Record::Reasoning { s },
            ReadForm::Event(e) => Record::Event(e),
            ReadForm::V1(old) => Record::Event(old.into_event()),
            ReadForm::Unknown(UnknownKind) => Record::Unknown,
        }
    }
}

/// A line whose tag is none of [`KINDS`].
struct UnknownKind;

impl<'de> Deserialize<'de> for UnknownKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Tagged {
            t: String,
        }
        let Tagged { t } = Tagged::deserialize(d)?;
        match KINDS.contains(&t.as_str()) {
            true => Err(serde::de::Error::custom(format!(
                "a `{t}` record that does not read"
            ))),
            false => Ok(UnknownKind),
        }
    }
}

impl Record {
    /// The record for an event, when the event is saved (streamed text and reasoning are
    /// coalesced by the writer into [`Record::Text`] and [`Record::Reasoning`]; the other
    /// deltas and the transient events are not saved).
    pub fn from_event(e: &Event) -> Option<Record> {
        match e {
            Event::UserMessage { .. }
            | Event::ToolsAdded { .. }
            | Event::Retrying(_)
            | Event::ReplyDone(_)
            | Event::ReplyInterrupted { .. }
            | Event::ApprovalDecided { .. }
            | Event::JudgeFinished { .. }
            | Event::ToolStarted { .. }
            | Event::ToolOutput { .. }
            | Event::FileChanged { .. }
            | Event::Checkpoint(_)
            | Event::Undo(_)
            | Event::Todo { .. }
            | Event::ToolFinished { .. }
            | Event::Remembered { .. }
            | Event::ModelChanged { .. }
            | Event::ModeChanged { .. }
            | Event::Context { .. }
            | Event::Compacted { .. }
            | Event::TurnEnded(_) => Some(Record::Event(e.clone())),
            Event::Delta(StreamDelta::Text(s)) => Some(Record::Text { s: s.clone() }),
            Event::Delta(StreamDelta::Reasoning(s)) => Some(Record::Reasoning { s: s.clone() }),
            Event::Delta(_)
            | Event::RequestSent
            | Event::ToolsStarted { .. }
            | Event::ApprovalRequested { .. }
            | Event::JudgeStarted { .. }
            | Event::ToolsFinished
            | Event::Pruned { .. }
            | Event::PlanMode { .. }
            | Event::Resumed { .. }
            | Event::Sessions(_)
            | Event::Answer(_)
            | Event::Notice(_) => None,
        }
    }

    /// The events this record replays as, for rebuilding the transcript.
    pub fn to_events(&self) -> Vec<Event> {
        self.clone().into_events()
    }

    /// [`Record::to_events`], taking the record (no copy of its text).
    pub fn into_events(self) -> Vec<Event> {
        match self {
            Record::Event(Event::ReplyDone(message)) => {
                // The streamed tool-call deltas are not recorded: the reply announces its
                // calls, so the transcript gets a block for each.
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
                out
            }
            Record::Event(e) => vec![e],
            Record::Text { s } => vec![Event::Delta(StreamDelta::Text(s))],
            Record::Reasoning { s } => vec![Event::Delta(StreamDelta::Reasoning(s))],
            Record::Session(_) | Record::Unknown => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
