//! The transcript: what the chat shows, stored width-independently, built from
//! [`AgentEvent`]s in one place. Tool entries keep both the `content` the model received and the
//! `display` text the user sees (SPEC §4.4).

use serde::Serialize;

use super::AgentEvent;
use crate::provider::StreamDelta;
use crate::tools::events::{EngineEvent, ToolStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolState {
    Queued,
    AwaitingApproval,
    Running,
    Done(ToolStatus),
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
    },
    Notice {
        text: String,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Transcript {
    pub entries: Vec<Entry>,
    /// Where the reply being streamed began (a retry discards everything after it).
    #[serde(skip)]
    attempt_start: Option<usize>,
}

impl Transcript {
    pub fn push_user(&mut self, text: &str) {
        self.entries.push(Entry::User {
            text: text.to_owned(),
        });
        self.attempt_start = None;
    }

    pub fn push_notice(&mut self, text: impl Into<String>) {
        self.entries.push(Entry::Notice { text: text.into() });
    }

    fn tool_mut(&mut self, id: &str) -> Option<&mut Entry> {
        self.entries
            .iter_mut()
            .rev()
            .find(|e| matches!(e, Entry::Tool { call_id, .. } if call_id == id))
    }

    fn streaming_start(&mut self) -> usize {
        *self.attempt_start.get_or_insert(self.entries.len())
    }

    pub fn apply(&mut self, event: &AgentEvent) {
        match event {
            AgentEvent::Delta(d) => {
                let start = self.streaming_start();
                let streaming = &mut self.entries[start..];
                match d {
                    StreamDelta::Text(t) => match streaming.last_mut() {
                        Some(Entry::Assistant { text, .. }) => text.push_str(t),
                        _ => self.entries.push(Entry::Assistant {
                            text: t.clone(),
                            interrupted: false,
                        }),
                    },
                    StreamDelta::Reasoning(r) => match streaming.last_mut() {
                        Some(Entry::Reasoning { text }) => text.push_str(r),
                        _ => self.entries.push(Entry::Reasoning { text: r.clone() }),
                    },
                    StreamDelta::ToolCallStarted { id, name, .. } => {
                        self.entries.push(Entry::Tool {
                            call_id: id.clone(),
                            name: name.clone(),
                            cmd_string: name.clone(),
                            state: ToolState::Queued,
                            content: String::new(),
                            display: None,
                            judge: None,
                        })
                    }
                    StreamDelta::ToolCallArguments { .. } | StreamDelta::Usage(_) => {}
                }
            }
            AgentEvent::Retrying { .. } => {
                if let Some(start) = self.attempt_start {
                    self.entries.truncate(start);
                }
            }
            AgentEvent::ReplyDone(m) => {
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
            }
            AgentEvent::ReplyInterrupted { .. } => {
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
            AgentEvent::Engine(e) => self.apply_engine(e),
        }
    }

    fn apply_engine(&mut self, e: &EngineEvent) {
        match e {
            EngineEvent::ToolApprovalRequested {
                call_id,
                cmd_string: c,
                ..
            } => {
                if let Some(Entry::Tool {
                    state, cmd_string, ..
                }) = self.tool_mut(call_id)
                {
                    *state = ToolState::AwaitingApproval;
                    *cmd_string = c.clone();
                }
            }
            EngineEvent::ToolsJudgeFinished {
                call_id,
                safe,
                reason,
                ..
            } => {
                if let Some(Entry::Tool { judge, .. }) = self.tool_mut(call_id) {
                    *judge = Some((*safe, reason.clone()));
                }
            }
            EngineEvent::ToolStarted {
                call_id,
                cmd_string: c,
                ..
            } => {
                if let Some(Entry::Tool {
                    state, cmd_string, ..
                }) = self.tool_mut(call_id)
                {
                    *state = ToolState::Running;
                    *cmd_string = c.clone();
                }
            }
            EngineEvent::ToolOutput {
                call_id,
                content: c,
                display: d,
                ..
            } => {
                if let Some(Entry::Tool {
                    content, display, ..
                }) = self.tool_mut(call_id)
                {
                    let shown = d.clone().unwrap_or_else(|| c.clone());
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
            EngineEvent::ToolFinished {
                call_id, status, ..
            } => {
                if let Some(Entry::Tool { state, .. }) = self.tool_mut(call_id) {
                    *state = ToolState::Done(*status);
                }
            }
            EngineEvent::ToolsStarted { .. }
            | EngineEvent::ToolApprovalFinished { .. }
            | EngineEvent::ToolsJudgeStarted { .. }
            | EngineEvent::ToolsFinished { .. } => {}
        }
    }
}
