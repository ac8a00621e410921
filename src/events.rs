//! What leaves the agent: one typed [`Event`] stream, and one "how it ended" enum per level —
//! [`CallEnd`] for a tool call, [`TurnEnd`] for a user message's turn.
//!
//! The agent loop emits the reply's stream events, the tool engine emits the tool-call
//! lifecycle, and both go into the same [`EventSink`]. The TUI, the headless printers and the
//! transcript consume the same stream, and the session log keeps the events that are saved:
//! their serde form (tag `t`) is the record written to the session file
//! (`session::record`), so an event and its record cannot drift apart. Choices and outcomes
//! are enums, never strings; the `--json` spelling of each lives in its `as_str`.
//!
//! This module sits just above `provider` (whose reply types it carries) and below `tools`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::exit;
use crate::provider::{AssistantMessage, ProviderError, Retry, StreamDelta};

pub mod answer;
pub mod checkpoint;
pub mod file_change;
pub mod notice;
pub mod notice_words;
pub mod sandbox_report;
mod saved_form;
pub mod todo;
pub mod unasked;

pub use crate::config::mode::Mode;
pub use answer::{Answer, ContextReport, Counted, ModelRow};
pub use checkpoint::{Checkpoint, Undo, UndoAction};
pub use file_change::{ChangeKind, FileChange, MAX_DIFF_BYTES};
pub use notice::Notice;
pub use sandbox_report::SandboxReport;
pub use todo::{TodoItem, TodoStatus};
pub use unasked::Unasked;

/// A saved session, as a list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    pub id: String,
    /// `2026-12-01 08:30` (UTC).
    pub started: String,
    pub cwd: String,
    /// The directory no longer exists.
    pub dir_gone: bool,
    pub first_message: String,
    /// What the user sent and the model replied.
    pub messages: usize,
    pub bytes: u64,
}

/// How one tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallEnd {
    Success,
    Error,
    Rejected,
    Cancelled,
}

impl CallEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            CallEnd::Success => "success",
            CallEnd::Error => "error",
            CallEnd::Rejected => "rejected",
            CallEnd::Cancelled => "cancelled",
        }
    }
}

/// The user's answer to an approval request (SPEC §5.3), or a headless run's stand-in
/// rejection. Saved as `"choice": "reject", "reason": …` beside the call's fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "choice", content = "reason", rename_all = "snake_case")]
pub enum UserChoice {
    AlwaysAccept,
    Accept,
    /// With the reason, when one was given.
    Reject(Option<String>),
    Cancel,
}

impl UserChoice {
    pub fn as_str(&self) -> &'static str {
        match self {
            UserChoice::AlwaysAccept => "always_accept",
            UserChoice::Accept => "accept",
            UserChoice::Reject(_) => "reject",
            UserChoice::Cancel => "cancel",
        }
    }

    /// The rejection reason, for a rejection that has one.
    pub fn reason(&self) -> Option<&str> {
        match self {
            UserChoice::Reject(r) => r.as_deref(),
            _ => None,
        }
    }
}

/// How a user message's turn ended. Saved as `"end": "max_turns", "detail": 3`; a session
/// file of format 1 wrote `"end": "interrupted"` for a stop (read as one) and `"failed"` with
/// the message for anything else (read by `session::record::v1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "end", content = "detail", rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model answered without tool calls (or auto-submit is off).
    Completed,
    /// The user chose Cancel for a tool call: control returns to them.
    Cancelled,
    /// The user stopped (Esc / Ctrl+C / SIGINT).
    #[serde(alias = "interrupted")]
    Stopped,
    /// `max_turns` round-trips without a final answer.
    MaxTurns(u32),
    /// The reply was cut off by the token limit.
    LengthLimit,
    /// The endpoint failed after retries.
    Failed(ProviderError),
    /// The model made the same failing call again and again; the turn was stopped.
    Repeated { tool: String, times: u32 },
}

impl TurnEnd {
    /// The process exit code of a headless run that ended so (SPEC §2).
    pub fn exit_code(&self) -> u8 {
        match self {
            TurnEnd::Completed => exit::OK,
            TurnEnd::Stopped => exit::INTERRUPTED,
            _ => exit::FAILED,
        }
    }

    /// `completed`, `interrupted` or `failed`, as headless `session_finished` reports it.
    pub fn status(&self) -> &'static str {
        match self {
            TurnEnd::Completed => "completed",
            TurnEnd::Stopped => "interrupted",
            _ => "failed",
        }
    }

    /// What the user should read about an ending that is not a plain completion.
    pub fn message(&self) -> Option<String> {
        match self {
            TurnEnd::Completed => None,
            TurnEnd::Stopped => Some("interrupted".into()),
            TurnEnd::Cancelled => Some("the tool calls were cancelled".into()),
            TurnEnd::MaxTurns(n) => Some(format!(
                "stopped after {n} model round-trips (--max-turns) without a final answer"
            )),
            TurnEnd::LengthLimit => Some(
                "the reply was cut off: the model reached its output token limit (finish_reason: length)"
                    .into(),
            ),
            TurnEnd::Failed(e) => Some(e.to_string()),
            TurnEnd::Repeated { tool, times } => Some(format!(
                "stopped: the model called `{tool}` with the same arguments {times} times in a row and it failed each time"
            )),
        }
    }
}

/// Everything that happens during a turn, in order.
///
/// The serde form is the session record of the events that are saved (each named by its
/// tag); the others (`#[serde(skip)]`) are never written. Text and reasoning deltas are saved
/// coalesced, as the session's own `text` and `reasoning` records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Event {
    /// The user's message: as typed, and as sent to the model (mentions expanded).
    #[serde(rename = "user")]
    UserMessage { text: String, sent: String },
    /// `@{…}` mentions offered these tools for the rest of the chat.
    #[serde(rename = "tools")]
    ToolsAdded { names: Vec<String> },
    /// A request for the model's reply went out (each round's, not its retries): until a delta
    /// comes, the front end can say how long it has waited for the first token.
    #[serde(skip)]
    RequestSent,
    /// A piece of the reply being streamed.
    #[serde(skip)]
    Delta(StreamDelta),
    /// The current attempt failed and will be retried: discard what it streamed.
    #[serde(rename = "retry")]
    Retrying(Retry),
    /// One round-trip's reply is complete.
    #[serde(rename = "reply", with = "saved_form::reply")]
    ReplyDone(AssistantMessage),
    /// The user stopped while the reply streamed: what had arrived is kept.
    #[serde(rename = "interrupted")]
    ReplyInterrupted { partial: String },
    /// A reply's tool calls start to run.
    #[serde(skip)]
    ToolsStarted { count: usize },
    #[serde(skip)]
    ApprovalRequested {
        call_id: String,
        name: String,
        cmd_string: String,
        judge_reason: Option<String>,
        /// Why this call must be confirmed (a protected path, a hostile git config…).
        caution: Option<String>,
    },
    #[serde(rename = "approval")]
    ApprovalDecided {
        call_id: String,
        name: String,
        #[serde(flatten)]
        choice: UserChoice,
    },
    #[serde(skip)]
    JudgeStarted {
        call_id: String,
        name: String,
        context: String,
    },
    #[serde(rename = "judge")]
    JudgeFinished {
        call_id: String,
        name: String,
        safe: bool,
        reason: String,
    },
    ToolStarted {
        call_id: String,
        name: String,
        cmd_string: String,
        /// Not saved (the reply the call came in has them): `null` in a replayed event.
        #[serde(skip)]
        args: Value,
        /// Why it runs without anyone being asked; `None` when someone accepted it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unasked: Option<Unasked>,
    },
    ToolOutput {
        call_id: String,
        name: String,
        content: String,
        /// `None`: show `content`; `Some("")`: show nothing.
        display: Option<String>,
    },
    /// A call changed a file (after its `ToolOutput`, before its `ToolFinished`).
    #[serde(rename = "file_change")]
    FileChanged {
        call_id: String,
        name: String,
        change: FileChange,
    },
    /// A call's checkpoint for undo: pending before it runs (after its `ToolStarted`), complete
    /// after (before its `ToolFinished`).
    #[serde(rename = "checkpoint")]
    Checkpoint(Checkpoint),
    /// An undo or redo was applied.
    #[serde(rename = "undo")]
    Undo(Undo),
    #[serde(rename = "tool_end")]
    ToolFinished {
        call_id: String,
        name: String,
        end: CallEnd,
    },
    /// The model's checklist (the `todo` tool), whole: each call replaces the list (after the
    /// call's `ToolOutput`, before its `ToolFinished`).
    #[serde(rename = "todo")]
    Todo {
        call_id: String,
        items: Vec<TodoItem>,
    },
    /// "Always accept" (or the judge's "safe") remembered a tool, or one exact command of it,
    /// for the mode it was given in: a change of mode forgets it, and a resumed chat takes it
    /// back only in that mode.
    Remembered {
        tool: String,
        command: Option<String>,
        /// Absent in sessions saved before memory was scoped to its mode: the mode in force
        /// at that point of the session is taken.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<Mode>,
        /// The judge's safe verdict, not the user's Always accept.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        judge: bool,
    },
    /// Every call of the reply has its result.
    #[serde(skip)]
    ToolsFinished,
    /// The model for the next request changed.
    #[serde(rename = "model")]
    ModelChanged { model: String },
    /// The approval mode changed (it applies to the next decision).
    #[serde(rename = "mode")]
    ModeChanged { mode: Mode },
    /// Plan mode went on or off (`tools::policy::plan`; it applies to the next decision).
    #[serde(skip)]
    PlanMode { on: bool },
    /// How full the model's context window is, after a reply (the server's usage) or before a
    /// request (an estimate).
    Context {
        used: u64,
        window: u64,
        /// Where the window's size came from ("llama.cpp /props (n_ctx)", "config"…).
        source: String,
        estimated: bool,
        /// Characters a token, as calibrated on the server's usage (kept by the session, so a
        /// resumed chat estimates as well as the one it continues).
        ratio: f64,
    },
    /// Old tool outputs are now sent as short stand-ins (the transcript keeps them).
    #[serde(skip)]
    Pruned { outputs: usize, chars: usize },
    /// The older history was replaced by a summary.
    #[serde(rename = "compaction")]
    Compacted {
        summary: String,
        /// Tokens before and after (estimates).
        before: u64,
        after: u64,
        /// Messages of the turn in progress kept verbatim after the summary.
        tail: usize,
    },
    /// A saved session was opened: what follows replays it (to be shown, not saved again).
    #[serde(skip)]
    Resumed {
        id: String,
        mode: Mode,
        model: String,
    },
    /// The saved sessions, newest first (the answer to `/sessions`).
    #[serde(skip)]
    Sessions(Vec<SessionInfo>),
    /// The answer to a command (`/tools`, `/context`…), as data: the front-end words it.
    #[serde(skip)]
    Answer(Answer),
    /// Something to tell the user along the way (a note on the window, the endpoint, a
    /// server), or what went wrong, as data: the front-end words it.
    #[serde(skip)]
    Notice(Notice),
    /// The turn is over.
    #[serde(rename = "turn_end")]
    TurnEnded(TurnEnd),
}

/// Where events go: a channel to whoever listens, and to the session log when one is kept.
#[derive(Debug, Clone)]
pub struct EventSink {
    to: Vec<mpsc::UnboundedSender<Event>>,
}

impl EventSink {
    /// A sink and the receiver of what is sent into it.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { to: vec![tx] }, rx)
    }

    /// This sink sending to one more listener as well (the session log).
    pub fn also(mut self) -> (Self, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        self.to.push(tx);
        (self, rx)
    }

    /// This sink sending to `tx` as well.
    pub fn and(mut self, tx: mpsc::UnboundedSender<Event>) -> Self {
        self.to.push(tx);
        self
    }

    /// Sends an event to every listener; one that went away is not an error.
    pub fn emit(&self, event: Event) {
        if let Some((last, rest)) = self.to.split_last() {
            for tx in rest {
                let _ = tx.send(event.clone());
            }
            let _ = last.send(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_ends_map_to_exit_codes_and_statuses() {
        assert_eq!(TurnEnd::Completed.exit_code(), exit::OK);
        assert_eq!(TurnEnd::Stopped.exit_code(), exit::INTERRUPTED);
        assert_eq!(TurnEnd::Cancelled.exit_code(), exit::FAILED);
        assert_eq!(TurnEnd::MaxTurns(3).status(), "failed");
        assert_eq!(TurnEnd::Stopped.status(), "interrupted");
        assert_eq!(TurnEnd::Completed.message(), None);
    }
}
