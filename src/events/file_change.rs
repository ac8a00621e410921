//! What a file tool changed: a [`FileChange`] per applied `create_file`, `edit_file` or
//! `delete_file`, carried by `Event::FileChanged` to the screen, the headless printers and the
//! session file (so a resumed chat still shows it, and `/diff` can sum a chat's changes up).
//!
//! The diff is a unified diff as the approval modal shows it (`---`/`+++` header, `@@` hunks);
//! a deleted file's is its content as removed lines. It is capped at [`MAX_DIFF_BYTES`] (cut at
//! a line end, `truncated` set), while `added` and `removed` count the whole change. Secret
//! values are replaced before it leaves the tool engine, like any tool output.

use serde::{Deserialize, Serialize};

/// The most of a diff kept (and saved) for one change.
pub const MAX_DIFF_BYTES: usize = 128 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Created,
    Edited,
    Deleted,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Edited => "edited",
            ChangeKind::Deleted => "deleted",
        }
    }
}

/// One file changed by one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    /// The path as the user reads it (relative when inside the working directory).
    pub path: String,
    /// The absolute path (what `/diff` reads the file's current content from).
    pub file: String,
    pub kind: ChangeKind,
    pub diff: String,
    pub added: usize,
    pub removed: usize,
    /// The diff is not the whole change: cut at [`MAX_DIFF_BYTES`], or a deleted file too large
    /// or not text enough to show whole.
    #[serde(default)]
    pub truncated: bool,
}

impl FileChange {
    /// A change with its counts taken from `diff` (the lines its hunks add and remove), capped.
    pub fn new(path: &str, file: &str, kind: ChangeKind, diff: String) -> Self {
        let (added, removed) = count_lines(&diff);
        Self {
            path: path.to_owned(),
            file: file.to_owned(),
            kind,
            diff,
            added,
            removed,
            truncated: false,
        }
        .capped(MAX_DIFF_BYTES)
    }

    /// The diff cut to at most `max` bytes at a line end (`truncated` set when cut).
    pub fn capped(mut self, max: usize) -> Self {
        if self.diff.len() > max {
            let kept = crate::text_cut::head(&self.diff, max);
            let end = kept.rfind('\n').map_or(0, |i| i + 1);
            self.diff.truncate(end);
            self.truncated = true;
        }
        self
    }

    /// "Edited src/a.rs (+1 −1)", "Created notes.txt (+3)", "Deleted old.txt (−12)".
    pub fn headline(&self) -> String {
        let verb = match self.kind {
            ChangeKind::Created => "Created",
            ChangeKind::Edited => "Edited",
            ChangeKind::Deleted => "Deleted",
        };
        format!(
            "{verb} {} ({})",
            self.path,
            counts(self.added, self.removed)
        )
    }

    /// Every secret value (`crate::secrets`) replaced by its marker.
    pub fn scrubbed(self) -> Self {
        Self {
            diff: crate::secrets::scrub_owned(self.diff),
            ..self
        }
    }
}

/// "+2 −1", "+3", "−4", "no lines".
pub fn counts(added: usize, removed: usize) -> String {
    match (added, removed) {
        (0, 0) => "no lines".into(),
        (a, 0) => format!("+{a}"),
        (0, r) => format!("−{r}"),
        (a, r) => format!("+{a} −{r}"),
    }
}

/// The lines a unified diff adds and removes (inside its hunks: a `+++` header is not one).
pub fn count_lines(diff: &str) -> (usize, usize) {
    let (mut added, mut removed, mut in_hunk) = (0, 0, false);
    for line in diff.lines() {
        if line.starts_with("@@") {
            in_hunk = true;
        } else if in_hunk && line.starts_with('+') {
            added += 1;
        } else if in_hunk && line.starts_with('-') {
            removed += 1;
        }
    }
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_from_the_hunks_and_a_cap_cuts_at_a_line_end() {
        let diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n++plus\n".to_owned();
        let c = FileChange::new("x", "/w/x", ChangeKind::Edited, diff.clone());
        assert_eq!((c.added, c.removed, c.truncated), (2, 1, false));
        assert_eq!(c.headline(), "Edited x (+2 −1)");
        let cut = c.capped(diff.len() - 3);
        assert!(cut.truncated);
        assert_eq!(
            cut.diff,
            "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n keep\n-old\n+new\n"
        );
        assert_eq!(
            (cut.added, cut.removed),
            (2, 1),
            "the counts are the whole change's"
        );
    }
}
