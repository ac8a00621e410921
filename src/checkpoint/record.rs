//! What a session file keeps of undo (by reference: the content is in the store): a
//! [`Checkpoint`] per tool call that could change files, and an [`Undo`] per undo or redo that
//! was applied. They are saved events (`Event::Checkpoint`, `Event::Undo`); replaying them
//! through [`super::history::History`] gives the undo state a resumed chat and the CLI agree on.
//!
//! A call's checkpoint is written twice: `pending` before the call runs (what it may change:
//! the before-images of the paths it names, or the project's tree), so a `kill -9` in the middle
//! still leaves something to undo; then complete after it ran (the changes), superseding the
//! pending one. A call that never ran has neither.

use serde::{Deserialize, Serialize};

use super::object::ObjectId;

/// One tool call's checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The ordinal of the user message whose turn made the call (1 for the chat's first).
    pub turn: u32,
    pub call_id: String,
    /// The manifest object ([`super::manifest::Manifest`]).
    pub manifest: ObjectId,
    /// The paths the call changed (relative to the project, `/`-separated); empty while pending.
    pub paths: Vec<String>,
    /// Written before the call ran; a complete record with the same call id supersedes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Paths whose earlier content was kept by hash only (too large, or the session's cap).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unrecoverable: Vec<String>,
    /// The session's checkpoint cap was reached: files from now on are kept by hash only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cap_reached: bool,
}

/// Undo or redo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UndoAction {
    Undo,
    Redo,
}

impl UndoAction {
    pub fn as_str(self) -> &'static str {
        match self {
            UndoAction::Undo => "undo",
            UndoAction::Redo => "redo",
        }
    }
}

/// An undo or redo that was applied (some of its paths may have been left as conflicts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Undo {
    pub action: UndoAction,
    /// The turns it took back (or re-applied), ascending.
    pub turns: Vec<u32>,
    /// The paths written.
    pub restored: Vec<String>,
    /// The paths left alone because something else changed them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
}
