//! The transcript: what the chat shows, stored width-independently, built from [`Event`]s in
//! one place (replies, tool blocks, and the notices for the agent's notices, turn ends, model
//! and mode changes, worded by [`super::notices`]). Tool entries keep both the `content` the
//! model received and the `display` text the user sees (SPEC §4.4). Only the TUI has one.

use serde::Serialize;

use super::notices;
use crate::events::{CallEnd, Event, FileChange, Unasked};
use crate::provider::StreamDelta;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolState {
    Queued,
    AwaitingApproval,
    Running,
    Done(CallEnd),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Entry {
    User {
        text: String,
    },
    Reasoning {
        text: String,
    },
    Assistant {
        text: String,
        interrupted: bool,
    },
    Tool {
        call_id: String,
        name: String,
        cmd_string: String,
        state: ToolState,
        /// What the model was sent.
        content: String,
        /// What the user sees; `None` = the content.
        display: Option<String>,
        /// The judge's verdict, when it was asked.
        judge: Option<(bool, String)>,
        /// Why it ran without anyone being asked (one dim line under the header).
        #[serde(skip_serializing_if = "Option::is_none")]
        unasked: Option<Unasked>,
        /// The files the call changed, with their diffs.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        changes: Vec<FileChange>,
    },
    Notice {
        text: String,
    },
    /// The older history was summarised to fit the model's window.
    Compaction {
        summary: String,
        before: u64,
        after: u64,
    },
    /// `/diff`: the files the chat's file tools changed so far.
    Changes {
        files: Vec<ChangedFile>,
    },
}

/// One file of `/diff`: its change since before the chat first touched it, or, when that
/// cannot be told, the diffs as they were applied (and why).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangedFile {
    /// "src/a.rs — edited 2 times (+3 −1)".
    pub title: String,
    pub note: Option<String>,
    /// What each diff is ("" when the title says it), and the diff.
    pub diffs: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Transcript {
    pub entries: Vec<Entry>,
    /// Where the reply being streamed began (a retry discards everything after it).
    #[serde(skip)]
    attempt_start: Option<usize>,
    /// The first entry changed since the last [`Transcript::take_changed`].
    #[serde(skip)]
    changed_from: Option<usize>,
}

impl Transcript {
    pub fn push_user(&mut self, text: &str) {
        self.mark(self.entries.len());
        self.entries.push(Entry::User {
            text: text.to_owned(),
        });
        self.attempt_start = None;
    }

    pub fn push_notice(&mut self, text: impl Into<String>) {
        self.mark(self.entries.len());
        self.entries.push(Entry::Notice { text: text.into() });
    }

    /// Adds the answer to `/diff`; its index.
    pub fn push_changes(&mut self, files: Vec<ChangedFile>) -> usize {
        self.mark(self.entries.len());
        self.entries.push(Entry::Changes { files });
        self.entries.len() - 1
    }

    /// The first entry that changed since the last call (a view's cache starts there).
    pub fn take_changed(&mut self) -> Option<usize> {
        self.changed_from.take()
    }

    fn mark(&mut self, i: usize) {
        self.changed_from = Some(self.changed_from.map_or(i, |c| c.min(i)));
    }

    fn tool_mut(&mut self, id: &str) -> Option<&mut Entry> {
        let i = self
            .entries
            .iter()
            .rposition(|e| matches!(e, Entry::Tool { call_id, .. } if call_id == id))?;
        self.mark(i);
        self.entries.get_mut(i)
    }

    fn streaming_start(&mut self) -> usize {
        *self.attempt_start.get_or_insert(self.entries.len())
    }

    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::UserMessage { text, .. } => self.push_user(text),
            // A saved session follows, from its start.
            Event::Resumed { .. } => {
                self.entries.clear();
                self.attempt_start = None;
                self.mark(0);
            }
            Event::Delta(_)
            | Event::Retrying { .. }
            | Event::ReplyDone(_)
            | Event::ReplyInterrupted { .. } => self.apply_stream(event),
            Event::ApprovalRequested {
                call_id,
                cmd_string,
                ..
            } => self.tool_state(call_id, ToolState::AwaitingApproval, Some(cmd_string)),
            Event::JudgeFinished {
                call_id,
                safe,
                reason,
                ..
            } => {
                if let Some(Entry::Tool { judge, .. }) = self.tool_mut(call_id) {
                    *judge = Some((*safe, reason.clone()));
                }
            }
            Event::ToolStarted {
                call_id,
                cmd_string,
                unasked: why,
                ..
            } => {
                self.tool_state(call_id, ToolState::Running, Some(cmd_string));
                if let Some(Entry::Tool { unasked, .. }) = self.tool_mut(call_id) {
                    *unasked = why.clone();
                }
            }
            Event::ToolOutput {
                call_id,
                content,
                display,
                ..
            } => self.tool_output(call_id, content, display.as_deref()),
            Event::FileChanged {
                call_id, change, ..
            } => {
                if let Some(Entry::Tool { changes, .. }) = self.tool_mut(call_id) {
                    changes.push(change.clone());
                }
            }
            Event::ToolFinished { call_id, end, .. } => {
                self.tool_state(call_id, ToolState::Done(*end), None)
            }
            Event::ModelChanged { model } => self.push_notice(notices::model_notice(model)),
            Event::ModeChanged { mode } => self.push_notice(notices::mode_notice(*mode)),
            Event::Pruned { outputs, chars } => self.push_notice(notices::pruned(*outputs, *chars)),
            Event::Compacted {
                summary,
                before,
                after,
                ..
            } => {
                self.mark(self.entries.len());
                self.entries.push(Entry::Compaction {
                    summary: summary.clone(),
                    before: *before,
                    after: *after,
                });
            }
            Event::Notice(n) => self.push_notice(notices::text(n)),
            Event::TurnEnded(end) => {
                if let Some(note) = notices::turn_end(end) {
                    self.push_notice(note);
                }
            }
            Event::ToolsStarted { .. }
            | Event::ToolsAdded { .. }
            | Event::ApprovalDecided { .. }
            | Event::JudgeStarted { .. }
            | Event::Remembered { .. }
            // The tool's block shows the list; the pinned list is the app's (`tui::todo_view`).
            | Event::Todo { .. }
            // Undo's records (`crate::checkpoint`): the undo commands read them.
            | Event::Checkpoint(_)
            | Event::Undo(_)
            | Event::PlanMode { .. }
            | Event::Sessions(_)
            // Worded by the front-end that asked (`tui::answers`).
            | Event::Answer(_)
            | Event::Context { .. }
            | Event::RequestSent
            | Event::ToolsFinished => {}
        }
    }

    /// The reply being streamed.
    fn apply_stream(&mut self, event: &Event) {
        // Stream events touch only the reply being streamed (and what follows it).
        let from = self
            .attempt_start
            .unwrap_or(self.entries.len())
            .min(self.entries.len().saturating_sub(1));
        self.mark(from);
        match event {
            Event::Delta(d) => self.delta(d),
            Event::Retrying { .. } => {
                if let Some(start) = self.attempt_start {
                    self.entries.truncate(start);
                }
            }
            Event::ReplyDone(m) => {
                // Ids made up during streaming are replaced by the final ones, in order.
                let start = self.attempt_start.take().unwrap_or(self.entries.len());
                let mut calls = m.tool_calls.iter();
                for e in &mut self.entries[start..] {
                    if let Entry::Tool { call_id, .. } = e
                        && let Some(c) = calls.next()
                    {
                        *call_id = c.id.clone();
                    }
                }
                if !m.tool_calls.is_empty() {
                    let rest: Vec<_> = calls.collect();
                    self.calls_from_text(start, &m.content, &rest);
                }
            }
            Event::ReplyInterrupted { .. } => {
                let start = self.attempt_start.take().unwrap_or(self.entries.len());
                match self.entries[start..]
                    .iter_mut()
                    .rev()
                    .find(|e| matches!(e, Entry::Assistant { .. }))
                {
                    Some(Entry::Assistant { interrupted, .. }) => *interrupted = true,
                    _ => self.entries.push(Entry::Assistant {
                        text: String::new(),
                        interrupted: true,
                    }),
                }
            }
            _ => {}
        }
    }

    /// A reply whose calls were written in its text (`provider::text_calls`): the text shown
    /// becomes the reply's text without them, and each call not streamed as one gets its tool
    /// block.
    fn calls_from_text(
        &mut self,
        start: usize,
        content: &str,
        rest: &[&crate::provider::ToolCall],
    ) {
        let start = start.min(self.entries.len());
        let shown = crate::secrets::scrub_owned(content.to_owned());
        if let Some(i) = self.entries[start..]
            .iter()
            .rposition(|e| matches!(e, Entry::Assistant { text, .. } if *text != shown))
        {
            if shown.is_empty() {
                self.entries.remove(start + i);
            } else if let Some(Entry::Assistant { text, .. }) = self.entries.get_mut(start + i) {
                *text = shown;
            }
        }
        for c in rest {
            self.entries.push(Entry::Tool {
                call_id: c.id.clone(),
                name: c.name.clone(),
                cmd_string: c.name.clone(),
                state: ToolState::Queued,
                content: String::new(),
                display: None,
                judge: None,
                unasked: None,
                changes: Vec::new(),
            });
        }
    }

    fn delta(&mut self, d: &StreamDelta) {
        let start = self.streaming_start();
        let streaming = &mut self.entries[start..];
        match d {
            // The text so far is scrubbed of secret values (`crate::secrets`) as it grows, so
            // that one the model server echoes never stays on screen, in whatever pieces it
            // streams it.
            StreamDelta::Text(t) => match streaming.last_mut() {
                Some(Entry::Assistant { text, .. }) => grow_scrubbed(text, t),
                _ => self.entries.push(Entry::Assistant {
                    text: crate::secrets::scrub_owned(t.clone()),
                    interrupted: false,
                }),
            },
            StreamDelta::Reasoning(r) => match streaming.last_mut() {
                Some(Entry::Reasoning { text }) => grow_scrubbed(text, r),
                _ => self.entries.push(Entry::Reasoning {
                    text: crate::secrets::scrub_owned(r.clone()),
                }),
            },
            StreamDelta::ToolCallStarted { id, name, .. } => self.entries.push(Entry::Tool {
                call_id: id.clone(),
                name: name.clone(),
                cmd_string: name.clone(),
                state: ToolState::Queued,
                content: String::new(),
                display: None,
                judge: None,
                unasked: None,
                changes: Vec::new(),
            }),
            StreamDelta::ToolCallArguments { .. } | StreamDelta::Usage(_) => {}
        }
    }

    fn tool_state(&mut self, id: &str, new: ToolState, cmd: Option<&String>) {
        if let Some(Entry::Tool {
            state, cmd_string, ..
        }) = self.tool_mut(id)
        {
            *state = new;
            if let Some(c) = cmd {
                *cmd_string = c.clone();
            }
        }
    }

    fn tool_output(&mut self, id: &str, c: &str, d: Option<&str>) {
        if let Some(Entry::Tool {
            content, display, ..
        }) = self.tool_mut(id)
        {
            let shown = d.unwrap_or(c).to_owned();
            if !content.is_empty() {
                content.push_str("\n\n");
            }
            content.push_str(c);
            match display {
                Some(prev) if !shown.is_empty() => {
                    if !prev.is_empty() {
                        prev.push_str("\n\n");
                    }
                    prev.push_str(&shown);
                }
                Some(_) => {}
                None => *display = Some(shown),
            }
        }
    }
}

/// `text` + `piece`, scrubbed of secret values: a secret split over pieces is whole here.
fn grow_scrubbed(text: &mut String, piece: &str) {
    let from = text.len();
    text.push_str(piece);
    crate::secrets::scrub_grown(text, from);
}

#[cfg(test)]
mod tests;
