//! What the engine asks of whoever is at the keyboard (SPEC §5.3, §6.4): an approval request
//! carries everything the modal shows, and a one-shot reply channel. Whoever shows it answers
//! with a [`UserChoice`]; a dropped reply counts as Cancel.

use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

pub use crate::events::UserChoice;
use crate::sandbox::Denial;
use crate::tools::tool::Preview;

/// What "Always accept" would remember for this call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Remember {
    Tool(String),
    /// A shell command, exactly (the whole command).
    Command(String),
    /// One call of another tool: remembered by `key`, its exact arguments
    /// (`approval::call_key`); the rules `s` offers are built from `display`, the call's
    /// `cmd_string`, which approval rules match (none for an MCP call, whose arguments are JSON).
    Call {
        key: String,
        display: String,
    },
    /// Nothing: this call asks every time (a protected path), so Always accept is Accept.
    Nothing,
}

/// Everything the approval modal shows about a call.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
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
    /// A rerun outside the sandbox of a command the sandbox denied, and what it denied: the
    /// same command runs once more, unconfined, if the user accepts (Always accept remembers
    /// nothing: `remember` is [`Remember::Nothing`]).
    pub rerun: Option<Denial>,
}

/// A call waiting for the user's decision.
#[derive(Debug)]
pub struct ApprovalRequest {
    pub ask: Ask,
    pub reply: oneshot::Sender<UserChoice>,
}

pub type ApprovalSender = mpsc::UnboundedSender<ApprovalRequest>;
