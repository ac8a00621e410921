//! What the engine reports while it works (SPEC §4.3.6), and how an approval is requested.
//!
//! Events go out on an unbounded channel; the TUI, the headless printer and the session store
//! all consume the same stream. An approval request carries a one-shot reply channel: whoever
//! shows it (the TUI's modal) answers with a [`UserChoice`]; a dropped reply counts as Cancel.

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::tool::Preview;

/// How one call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    Success,
    Error,
    Rejected,
    Cancelled,
}

/// The user's answer in the approval modal (SPEC §5.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserChoice {
    AlwaysAccept,
    Accept,
    Reject(Option<String>),
    Cancel,
}

impl UserChoice {
    pub fn label(&self) -> &'static str {
        match self {
            UserChoice::AlwaysAccept => "always_accept",
            UserChoice::Accept => "accept",
            UserChoice::Reject(_) => "reject",
            UserChoice::Cancel => "cancel",
        }
    }
}

/// What "Always accept" would remember for this call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Remember {
    Tool(String),
    Command(String),
    /// Nothing: this call asks every time (a protected path), so Always accept is Accept.
    Nothing,
}

/// A call waiting for the user's decision.
#[derive(Debug)]
pub struct ApprovalRequest {
    pub call_id: String,
    pub tool: String,
    pub cmd_string: String,
    /// `output.prompt`, or the default question.
    pub prompt: String,
    pub args: Value,
    pub preview: Option<Preview>,
    /// Why the judge sent the call here.
    pub judge_reason: Option<String>,
    /// Why this call must be confirmed (a protected path, a hostile git config…).
    pub caution: Option<String>,
    /// 1-based position of this call in its batch, and the batch size.
    pub position: usize,
    pub total: usize,
    pub remember: Remember,
    pub reply: oneshot::Sender<UserChoice>,
}

pub type ApprovalSender = mpsc::UnboundedSender<ApprovalRequest>;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EngineEvent {
    ToolsStarted {
        count: usize,
    },
    ToolApprovalRequested {
        call_id: String,
        name: String,
        cmd_string: String,
        judge_reason: Option<String>,
        caution: Option<String>,
    },
    ToolApprovalFinished {
        call_id: String,
        name: String,
        /// always_accept / accept / reject / cancel.
        choice: String,
        reason: Option<String>,
    },
    ToolsJudgeStarted {
        call_id: String,
        name: String,
        context: String,
    },
    ToolsJudgeFinished {
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
    ToolFinished {
        call_id: String,
        name: String,
        status: ToolStatus,
    },
    ToolsFinished {
        outcome: &'static str,
    },
}

/// Where engine events go: any function, so the agent can wrap them in its own events.
#[derive(Clone)]
pub struct EventSender(std::sync::Arc<dyn Fn(EngineEvent) + Send + Sync>);

impl EventSender {
    pub fn new(f: impl Fn(EngineEvent) + Send + Sync + 'static) -> Self {
        Self(std::sync::Arc::new(f))
    }

    pub fn send(&self, e: EngineEvent) {
        (self.0)(e)
    }
}

impl From<mpsc::UnboundedSender<EngineEvent>> for EventSender {
    fn from(tx: mpsc::UnboundedSender<EngineEvent>) -> Self {
        Self::new(move |e| {
            let _ = tx.send(e);
        })
    }
}
