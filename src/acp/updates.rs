//! The agent's [`Event`]s as ACP `session/update`s: text and reasoning chunks, each tool call
//! as a `tool_call` and its `tool_call_update`s (kind, status, locations, raw input, content:
//! the display text, a command's output, an edit's diff), the `todo` list as a `plan`.
//!
//! Pure: [`Updates::map`] reads one event and says what to send; it remembers only what a
//! later update needs (which calls were announced, their content so far, whether a reply's text
//! came as deltas). It never sends, and never decides anything about a call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Diff, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    SessionUpdate, TextContent, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use serde_json::Value;

use crate::events::{CallEnd, ChangeKind, Event, FileChange, TodoItem, TodoStatus};
use crate::provider::StreamDelta;
use crate::tools::tool::Kind;

/// What a tool is, as ACP names it: by the built-in tool's name where it says more than its
/// kind (a search, a delete, the checklist), else by the tool's [`Kind`].
pub fn tool_kind(name: &str, kind: Kind) -> ToolKind {
    match name {
        "read_file" | "get_changed_files" => ToolKind::Read,
        "file_search" | "grep_search" => ToolKind::Search,
        "create_file" | "edit_file" => ToolKind::Edit,
        "delete_file" => ToolKind::Delete,
        "fetch_webpage" => ToolKind::Fetch,
        "todo" => ToolKind::Think,
        _ => match kind {
            Kind::ReadOnly => ToolKind::Read,
            Kind::FileEdit => ToolKind::Edit,
            Kind::Shell => ToolKind::Execute,
            Kind::Network => ToolKind::Fetch,
            Kind::Other => ToolKind::Other,
        },
    }
}

/// How a call that ended so shows: only a success is `completed`.
pub fn call_status(end: CallEnd) -> ToolCallStatus {
    match end {
        CallEnd::Success => ToolCallStatus::Completed,
        CallEnd::Error | CallEnd::Rejected | CallEnd::Cancelled => ToolCallStatus::Failed,
    }
}

/// The files a call's arguments name (`filepath`, `path`, `file_path`, `filePath`), absolute
/// (relative ones under `cwd`), with the line they start at when given (`start_line`, `line`,
/// `offset`).
pub fn locations(args: &Value, cwd: &Path) -> Vec<ToolCallLocation> {
    let Some(path) = ["filepath", "path", "file_path", "filePath"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
        .filter(|p| !p.trim().is_empty())
    else {
        return Vec::new();
    };
    let line = ["start_line", "line", "offset"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_u64))
        .and_then(|n| u32::try_from(n).ok());
    vec![ToolCallLocation::new(absolute(path, cwd)).line(line)]
}

fn absolute(path: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

/// A file change as ACP diff content: the old and new text of the hunks (context lines in
/// both), from the unified diff the change carries; a created file has no old text.
pub fn diff_content(change: &FileChange) -> ToolCallContent {
    let (old, new) = sides(&change.diff);
    let old = match change.kind {
        ChangeKind::Created => None,
        ChangeKind::Edited | ChangeKind::Deleted => Some(old),
    };
    ToolCallContent::Diff(Diff::new(PathBuf::from(&change.file), new).old_text(old))
}

/// A unified diff (an approval's preview) of `file` as ACP diff content; a diff from
/// `/dev/null` (a new file) has no old text.
pub fn diff_text(file: &Path, unified: &str) -> ToolCallContent {
    let (old, new) = sides(unified);
    let created = unified.lines().any(|l| l.starts_with("--- /dev/null"));
    ToolCallContent::Diff(Diff::new(file.to_path_buf(), new).old_text((!created).then_some(old)))
}

/// The old and new sides of a unified diff's hunks.
fn sides(unified: &str) -> (String, String) {
    let (mut old, mut new) = (String::new(), String::new());
    for line in unified.lines() {
        if line.starts_with("---") || line.starts_with("+++") || line.starts_with("@@") {
            continue;
        }
        if let Some(rest) = line.strip_prefix('-') {
            old.push_str(rest);
            old.push('\n');
        } else if let Some(rest) = line.strip_prefix('+') {
            new.push_str(rest);
            new.push('\n');
        } else if let Some(rest) = line.strip_prefix(' ') {
            for side in [&mut old, &mut new] {
                side.push_str(rest);
                side.push('\n');
            }
        }
    }
    (old, new)
}

/// The checklist as an ACP plan (every entry of medium priority: the list has no priorities).
pub fn plan(items: &[TodoItem]) -> Plan {
    Plan::new(
        items
            .iter()
            .map(|i| {
                let status = match i.status {
                    TodoStatus::Pending => PlanEntryStatus::Pending,
                    TodoStatus::InProgress => PlanEntryStatus::InProgress,
                    TodoStatus::Done => PlanEntryStatus::Completed,
                };
                PlanEntry::new(i.content.clone(), PlanEntryPriority::Medium, status)
            })
            .collect(),
    )
}

fn text(t: &str) -> ContentBlock {
    ContentBlock::Text(TextContent::new(t))
}

fn chunk(t: &str) -> ContentChunk {
    ContentChunk::new(text(t))
}

/// A tool's output as the editor shows it: a command's in a code block, else as text.
fn output_content(kind: ToolKind, shown: &str) -> ToolCallContent {
    let body = match kind {
        ToolKind::Execute => format!("```\n{}\n```", shown.trim_end_matches('\n')),
        _ => shown.to_owned(),
    };
    ToolCallContent::from(text(&body))
}

/// One call as announced so far.
struct Call {
    kind: ToolKind,
    content: Vec<ToolCallContent>,
}

/// The mapping's memory between events.
pub struct Updates {
    cwd: PathBuf,
    calls: HashMap<String, Call>,
    /// The reply being streamed sent text (or reasoning) as deltas: its `ReplyDone` does not
    /// send it again (a replayed reply has no deltas, so it does).
    streamed_text: bool,
    streamed_reasoning: bool,
}

impl Updates {
    /// `cwd`: the session's directory, against which relative paths are made absolute.
    pub fn new(cwd: PathBuf) -> Self {
        Self {
            cwd,
            calls: HashMap::new(),
            streamed_text: false,
            streamed_reasoning: false,
        }
    }

    /// What `ev` becomes for the editor; `kind_of` gives a tool's kind by its name.
    pub fn map(&mut self, ev: &Event, kind_of: &dyn Fn(&str) -> Kind) -> Vec<SessionUpdate> {
        match ev {
            Event::UserMessage { text: t, .. } => {
                vec![SessionUpdate::UserMessageChunk(chunk(t))]
            }
            Event::Delta(StreamDelta::Text(t)) if !t.is_empty() => {
                self.streamed_text = true;
                vec![SessionUpdate::AgentMessageChunk(chunk(t))]
            }
            Event::Delta(StreamDelta::Reasoning(t)) if !t.is_empty() => {
                self.streamed_reasoning = true;
                vec![SessionUpdate::AgentThoughtChunk(chunk(t))]
            }
            Event::ReplyDone(m) => {
                let mut out = Vec::new();
                if !self.streamed_reasoning && !m.reasoning.is_empty() {
                    out.push(SessionUpdate::AgentThoughtChunk(chunk(&m.reasoning)));
                }
                if !self.streamed_text && !m.content.is_empty() {
                    out.push(SessionUpdate::AgentMessageChunk(chunk(&m.content)));
                }
                (self.streamed_text, self.streamed_reasoning) = (false, false);
                for call in &m.tool_calls {
                    let args: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
                    out.push(self.announce(&call.id, &call.name, &args, kind_of));
                }
                out
            }
            Event::Retrying(_) | Event::ReplyInterrupted { .. } => {
                (self.streamed_text, self.streamed_reasoning) = (false, false);
                Vec::new()
            }
            Event::ApprovalRequested {
                call_id,
                cmd_string,
                ..
            } => vec![update(
                call_id,
                ToolCallUpdateFields::new().title(cmd_string.clone()),
            )],
            Event::ToolStarted {
                call_id,
                name,
                cmd_string,
                args,
                ..
            } => {
                let mut out = Vec::new();
                if !self.calls.contains_key(call_id) {
                    out.push(self.announce(call_id, name, args, kind_of));
                }
                let mut fields = ToolCallUpdateFields::new()
                    .status(ToolCallStatus::InProgress)
                    .title(cmd_string.clone());
                if !args.is_null() {
                    fields = fields
                        .raw_input(args.clone())
                        .locations(locations(args, &self.cwd));
                }
                out.push(update(call_id, fields));
                out
            }
            Event::ToolOutput {
                call_id,
                content,
                display,
                ..
            } => {
                let shown = display.as_deref().unwrap_or(content);
                let Some(call) = self.calls.get_mut(call_id) else {
                    return Vec::new();
                };
                if shown.is_empty() {
                    return Vec::new();
                }
                call.content.push(output_content(call.kind, shown));
                vec![update(
                    call_id,
                    ToolCallUpdateFields::new()
                        .content(call.content.clone())
                        .raw_output(Value::String(content.clone())),
                )]
            }
            Event::FileChanged {
                call_id, change, ..
            } => {
                let Some(call) = self.calls.get_mut(call_id) else {
                    return Vec::new();
                };
                call.content.push(diff_content(change));
                vec![update(
                    call_id,
                    ToolCallUpdateFields::new()
                        .content(call.content.clone())
                        .locations(vec![ToolCallLocation::new(PathBuf::from(&change.file))]),
                )]
            }
            Event::ToolFinished { call_id, end, .. } => {
                let fields = ToolCallUpdateFields::new().status(call_status(*end));
                self.calls.remove(call_id);
                vec![update(call_id, fields)]
            }
            Event::Todo { items, .. } => vec![SessionUpdate::Plan(plan(items))],
            _ => Vec::new(),
        }
    }

    /// The `tool_call` that announces a call, pending.
    fn announce(
        &mut self,
        id: &str,
        name: &str,
        args: &Value,
        kind_of: &dyn Fn(&str) -> Kind,
    ) -> SessionUpdate {
        let kind = tool_kind(name, kind_of(name));
        self.calls.insert(
            id.to_owned(),
            Call {
                kind,
                content: Vec::new(),
            },
        );
        let mut call = ToolCall::new(id.to_owned(), name.to_owned())
            .kind(kind)
            .status(ToolCallStatus::Pending);
        if !args.is_null() {
            call = call
                .raw_input(args.clone())
                .locations(locations(args, &self.cwd));
        }
        SessionUpdate::ToolCall(call)
    }
}

fn update(call_id: &str, fields: ToolCallUpdateFields) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(call_id.to_owned(), fields))
}

#[cfg(test)]
#[path = "updates_tests.rs"]
mod tests;
