//! What a command hands on and what a call reports (SPEC §4.4), as typed values: an [`Output`]
//! carries the text for the model, what the user sees when it differs, and the file a command
//! changed, side by side — never packed into one string and split again. A command's result is
//! a [`CmdResult`] of one; a call collects its reports in a [`ToolOutput`].
//!
//! It does not decide what a tool reports (the tool's `on_success`…, or the shared handlers of
//! [`crate::tools::tool::report`]) nor cap or scrub anything on its own (`lifecycle/finishing.rs` does).

use crate::events::{FileChange, TodoItem};

/// One output: `content` for the model, `display` for the user, the file a command changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// What the model is sent.
    pub content: String,
    /// What the user reads instead: `None` shows `content`, `Some("")` shows nothing.
    pub display: Option<String>,
    /// The file the command changed (shown, never sent to the model).
    pub change: Option<FileChange>,
    /// The checklist the command set (the `todo` tool; shown, and told to the model in
    /// `content`).
    pub todo: Option<Vec<TodoItem>>,
}

impl Output {
    /// Content shown as it is.
    pub fn text(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            ..Self::default()
        }
    }

    /// Content for the model, another text for the user.
    pub fn shown(content: impl Into<String>, display: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            display: Some(display.into()),
            change: None,
            todo: None,
        }
    }

    /// The same output, recording the file the command changed.
    pub fn with_change(mut self, change: FileChange) -> Self {
        self.change = Some(change);
        self
    }

    /// The same output, recording the checklist the command set.
    pub fn with_todo(mut self, items: Vec<TodoItem>) -> Self {
        self.todo = Some(items);
        self
    }
}

impl From<String> for Output {
    fn from(content: String) -> Self {
        Self::text(content)
    }
}

impl From<&str> for Output {
    fn from(content: &str) -> Self {
        Self::text(content)
    }
}

/// The result of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CmdResult {
    Success(Output),
    Error(Output),
}

impl CmdResult {
    /// A success whose output is `out` (a string is content shown as it is).
    pub fn ok(out: impl Into<Output>) -> Self {
        Self::Success(out.into())
    }

    /// An error whose output is `out`.
    pub fn err(out: impl Into<Output>) -> Self {
        Self::Error(out.into())
    }
}

/// Collects what one call reports (SPEC §4.4): `content` for the model, `display` for the user,
/// and the files it changed (shown, never sent to the model).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOutput {
    parts: Vec<(String, Option<String>)>,
    changes: Vec<FileChange>,
    todo: Option<Vec<TodoItem>>,
}

impl ToolOutput {
    /// Adds a result. `display: None` shows `content`; `Some("")` shows nothing.
    pub fn add(&mut self, content: impl Into<String>, display: Option<String>) {
        self.parts.push((content.into(), display));
    }

    /// Adds `line` to the last part, its content and its shown text alike, so the call still
    /// reports one output (one `tool_output` event); a part of its own when there is none.
    pub fn note(&mut self, line: impl Into<String>) {
        let line = line.into();
        match self.parts.last_mut() {
            Some((content, display)) => {
                content.push_str("\n\n");
                content.push_str(&line);
                if let Some(shown) = display {
                    if !shown.is_empty() {
                        shown.push_str("\n\n");
                    }
                    shown.push_str(&line);
                }
            }
            None => self.parts.push((line, None)),
        }
    }

    /// Adds an output whole: its texts, and the file it changed.
    pub fn push(&mut self, out: Output) {
        self.parts.push((out.content, out.display));
        self.changes.extend(out.change);
        if out.todo.is_some() {
            self.todo = out.todo;
        }
    }

    /// The checklist the call set last, if it set one.
    pub fn todo(&self) -> Option<&[TodoItem]> {
        self.todo.as_deref()
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The tool message content: every part, separated by a blank line.
    pub fn content(&self) -> String {
        self.parts
            .iter()
            .map(|(c, _)| c.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// What the chat pane shows: `None` when nothing is to be shown.
    pub fn display(&self) -> Option<String> {
        let shown: Vec<&str> = self
            .parts
            .iter()
            .map(|(c, d)| d.as_deref().unwrap_or(c))
            .filter(|s| !s.is_empty())
            .collect();
        (!shown.is_empty()).then(|| shown.join("\n\n"))
    }

    pub fn parts(&self) -> &[(String, Option<String>)] {
        &self.parts
    }

    /// Records a file the call changed.
    pub fn add_change(&mut self, change: FileChange) {
        self.changes.push(change);
    }

    pub fn changes(&self) -> &[FileChange] {
        &self.changes
    }

    /// Every secret value (`crate::secrets`) replaced by its marker, in content, display and
    /// the changes' diffs.
    pub fn scrubbed(self) -> Self {
        Self {
            todo: self.todo.map(|items| {
                items
                    .into_iter()
                    .map(|i| TodoItem {
                        content: crate::secrets::scrub_owned(i.content),
                        status: i.status,
                    })
                    .collect()
            }),
            changes: self.changes.into_iter().map(|c| c.scrubbed()).collect(),
            parts: self
                .parts
                .into_iter()
                .map(|(c, d)| {
                    (
                        crate::secrets::scrub_owned(c),
                        d.map(crate::secrets::scrub_owned),
                    )
                })
                .collect(),
        }
    }

    /// Every part's content capped to `limit` characters (SPEC §8.3); display texts are kept.
    pub fn capped(self, limit: usize) -> Self {
        Self {
            changes: self.changes,
            todo: self.todo,
            parts: self
                .parts
                .into_iter()
                .map(|(c, d)| (crate::tools::exec::output_cap::cap(&c, limit), d))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::ChangeKind;

    #[test]
    fn an_output_keeps_its_texts_apart_whatever_they_hold() {
        let change = FileChange::new(
            "a.txt",
            "/w/a.txt",
            ChangeKind::Created,
            "@@ -0,0 +1 @@\n+hi\n".into(),
        );
        // A display with a newline (a file name may hold one) stays whole, and so does the
        // content after it: nothing is split at a separator.
        let cases = [
            (Output::text("plain"), "plain", Some("plain")),
            (
                Output::shown("for\nthe model", "Read a\nb"),
                "for\nthe model",
                Some("Read a\nb"),
            ),
            (Output::shown("quiet", ""), "quiet", None),
            (
                Output::from("x").with_change(change.clone()),
                "x",
                Some("x"),
            ),
        ];
        for (out, content, display) in cases {
            let mut t = ToolOutput::default();
            let changed = out.change.is_some();
            t.push(out);
            assert_eq!(t.content(), content);
            assert_eq!(t.display().as_deref(), display);
            assert_eq!(t.changes().len(), usize::from(changed));
        }
    }
}
