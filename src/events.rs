//! What leaves the agent: one typed [`Event`] stream, and one "how it ended" enum per level —
//! [`CallEnd`] for a tool call, [`TurnEnd`] for a user message's turn.
//!
//! The agent loop emits the reply's stream events, the tool engine emits the tool-call
//! lifecycle, and both go into the same [`EventSink`]. The TUI, the headless printers and the
//! transcript consume the same stream (and the session log will). Choices and outcomes are
//! enums, never strings; the JSON spelling of each lives in its `as_str`.
//!
//! This module sits just above `provider` (whose reply types it carries) and below `tools`.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::exit;
use crate::provider::{AssistantMessage, ProviderError, StreamDelta};

pub mod file_change;

pub use crate::config::mode::Mode;
pub use file_change::{ChangeKind, FileChange, MAX_DIFF_BYTES};

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
/// rejection.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// How a user message's turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// The model answered without tool calls (or auto-submit is off).
    Completed,
    /// The user chose Cancel for a tool call: control returns to them.
    Cancelled,
    /// The user stopped (Esc / Ctrl+C / SIGINT).
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
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The user's message: as typed, and as sent to the model (mentions expanded).
    UserMessage { text: String, sent: String },
    /// `@{…}` mentions offered these tools for the rest of the chat.
    ToolsAdded { names: Vec<String> },
    /// A piece of the reply being streamed.
    Delta(StreamDelta),
    /// The current attempt failed and will be retried: discard what it streamed.
    Retrying {
        retry: u32,
        max_retries: u32,
        delay: Duration,
        error: ProviderError,
    },
    /// One round-trip's reply is complete.
    ReplyDone(AssistantMessage),
    /// The user stopped while the reply streamed: what had arrived is kept.
    ReplyInterrupted { partial: String },
    /// A reply's tool calls start to run.
    ToolsStarted { count: usize },
    ApprovalRequested {
        call_id: String,
        name: String,
        cmd_string: String,
        judge_reason: Option<String>,
        /// Why this call must be confirmed (a protected path, a hostile git config…).
        caution: Option<String>,
    },
    ApprovalDecided {
        call_id: String,
        name: String,
        choice: UserChoice,
    },
    JudgeStarted {
        call_id: String,
        name: String,
        context: String,
    },
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
        args: Value,
    },
    ToolOutput {
        call_id: String,
        name: String,
        content: String,
        /// `None`: show `content`; `Some("")`: show nothing.
        display: Option<String>,
    },
    /// A call changed a file (after its `ToolOutput`, before its `ToolFinished`).
    FileChanged {
        call_id: String,
        name: String,
        change: FileChange,
    },
    ToolFinished {
        call_id: String,
        name: String,
        end: CallEnd,
    },
    /// "Always accept" (or the judge's "safe") remembered a tool, or one exact command of it.
    Remembered {
        tool: String,
        command: Option<String>,
    },
    /// Every call of the reply has its result.
    ToolsFinished,
    /// The model for the next request changed.
    ModelChanged { model: String },
    /// The approval mode changed (it applies to the next decision).
    ModeChanged { mode: Mode },
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
    Pruned { outputs: usize, chars: usize },
    /// The older history was replaced by a summary.
    Compacted {
        summary: String,
        /// Tokens before and after (estimates).
        before: u64,
        after: u64,
        /// Messages of the turn in progress kept verbatim after the summary.
        tail: usize,
    },
    /// A saved session was opened: what follows replays it (to be shown, not saved again).
    Resumed {
        id: String,
        mode: Mode,
        model: String,
    },
    /// The saved sessions, newest first (the answer to `/sessions`).
    Sessions(Vec<SessionInfo>),
    /// The answer to a command (`/tools`, `/approvals`…): text to show, or what went wrong.
    Info(Result<String, String>),
    /// The turn is over.
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
