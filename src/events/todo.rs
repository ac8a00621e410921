//! The model's checklist (the `todo` tool's list), as the events carry it: items with a status,
//! and how the list reads as text (for the model's tool result, the headless text printer and
//! the TUI's pinned list).
//!
//! It owns the data and its wording only; what a valid list is (caps, one item in progress) is
//! the tool's rule (`tools::builtin::todo`), and where the list is drawn is the front-ends'.

use serde::{Deserialize, Serialize};

/// Where one item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Done,
}

impl TodoStatus {
    /// `pending`, `in_progress` or `done`: the spelling of the schema and of `--json`.
    pub fn as_str(self) -> &'static str {
        match self {
            TodoStatus::Pending => "pending",
            TodoStatus::InProgress => "in_progress",
            TodoStatus::Done => "done",
        }
    }

    /// The checkbox an item is drawn with.
    pub fn mark(self) -> &'static str {
        match self {
            TodoStatus::Pending => "[ ]",
            TodoStatus::InProgress => "[>]",
            TodoStatus::Done => "[x]",
        }
    }
}

/// One item of the checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    pub content: String,
    pub status: TodoStatus,
}

/// The list as lines of text, one item a line (`[x] done`, `[>] current`, `[ ] next`).
pub fn checklist(items: &[TodoItem]) -> String {
    items
        .iter()
        .map(|i| format!("{} {}", i.status.mark(), i.content))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `2/5 done`.
pub fn progress(items: &[TodoItem]) -> String {
    let done = items
        .iter()
        .filter(|i| i.status == TodoStatus::Done)
        .count();
    format!("{done}/{} done", items.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_reads_as_checkboxes_and_progress() {
        let items = vec![
            TodoItem {
                content: "read".into(),
                status: TodoStatus::Done,
            },
            TodoItem {
                content: "edit".into(),
                status: TodoStatus::InProgress,
            },
            TodoItem {
                content: "test".into(),
                status: TodoStatus::Pending,
            },
        ];
        assert_eq!(checklist(&items), "[x] read\n[>] edit\n[ ] test");
        assert_eq!(progress(&items), "1/3 done");
        assert_eq!(checklist(&[]), "");
    }
}
