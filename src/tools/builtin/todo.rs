//! `todo`: the model's checklist for the task at hand, a short list of items each pending, in
//! progress or done. Every call replaces the whole list (as Claude Code's `TodoWrite`); the
//! result tells the model the list as it now stands, and the call's output carries it to the
//! front-ends (`Event::Todo`: pinned above the TUI's input, a `todo` event headless, saved in
//! the session).
//!
//! It checks the list (at most [`MAX_ITEMS`] items of at most [`MAX_CHARS`] characters, at most
//! one in progress) and refuses a bad one with the reason; it keeps no state of its own and
//! touches no file.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::events::todo::{checklist, progress};
use crate::events::{TodoItem, TodoStatus};
use crate::provider::ToolSpec;
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Tool, ToolOutput};

pub struct Todo;

/// The most items a list may hold.
pub const MAX_ITEMS: usize = 20;
/// The longest an item may be, in characters.
pub const MAX_CHARS: usize = 200;

/// The list the arguments hold, or why it is refused (worded for the model).
pub fn parse(args: &Value) -> Result<Vec<TodoItem>, String> {
    let Some(list) = args.get("items").and_then(Value::as_array) else {
        return Err(
            "`items` must be a list of {content, status} (status: pending, in_progress or done)"
                .into(),
        );
    };
    if list.len() > MAX_ITEMS {
        return Err(format!(
            "A checklist holds at most {MAX_ITEMS} items, not {}: merge or drop some",
            list.len()
        ));
    }
    let mut items = Vec::with_capacity(list.len());
    for (n, v) in list.iter().enumerate() {
        let item: TodoItem = serde_json::from_value(v.clone()).map_err(|e| {
            format!(
                "Item {}: expected {{content, status}} with status pending, in_progress or done: {e}",
                n + 1
            )
        })?;
        let content = item.content.trim();
        if content.is_empty() {
            return Err(format!("Item {} is empty: say what the step is", n + 1));
        }
        let chars = content.chars().count();
        if chars > MAX_CHARS {
            return Err(format!(
                "Item {} is {chars} characters long; keep each item under {MAX_CHARS}",
                n + 1
            ));
        }
        items.push(TodoItem {
            content: content.split_whitespace().collect::<Vec<_>>().join(" "),
            status: item.status,
        });
    }
    let current = items
        .iter()
        .filter(|i| i.status == TodoStatus::InProgress)
        .count();
    if current > 1 {
        return Err(format!(
            "{current} items are in_progress: mark at most one in progress at a time"
        ));
    }
    Ok(items)
}

/// What the model reads back: the list as it now stands.
fn result_text(items: &[TodoItem]) -> String {
    if items.is_empty() {
        return "The checklist is now empty.".into();
    }
    format!(
        "The checklist is now ({}):\n{}",
        progress(items),
        checklist(items)
    )
}

impl Tool for Todo {
    fn name(&self) -> &str {
        "todo"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "todo".into(),
            description: "Your task checklist, shown to the user; send the whole list each time."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"items": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "content": {"type": "string"},
                        "status": {"enum": ["pending", "in_progress", "done"]}
                    },
                    "required": ["content", "status"]
                }}},
                "required": ["items"]
            }),
            strict: None,
        }
    }

    /// It reads and writes nothing but the list: it never asks, in any mode (plan mode too).
    fn kind(&self) -> Kind {
        Kind::ReadOnly
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        match parse(&inv.args) {
            Ok(items) => format!("todo ({})", progress(&items)),
            Err(_) => "todo".into(),
        }
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                Some(match parse(&inv.args) {
                    Ok(items) => CmdResult::ok(
                        Output::shown(result_text(&items), checklist(&items)).with_todo(items),
                    ),
                    Err(e) => CmdResult::err(e),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        report::last_output(data, out);
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        report::errors(errors, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(content: &str, status: &str) -> Value {
        json!({"content": content, "status": status})
    }

    #[test]
    fn lists_are_checked_and_refused_with_the_reason() {
        let long = "x".repeat(MAX_CHARS + 1);
        let many: Vec<Value> = (0..=MAX_ITEMS).map(|_| item("a", "pending")).collect();
        let cases: Vec<(Value, Result<usize, &str>)> = vec![
            (json!({"items": []}), Ok(0)),
            (
                json!({"items": [item("read", "done"), item("edit", "in_progress"), item("test", "pending")]}),
                Ok(3),
            ),
            (json!({}), Err("`items` must be a list")),
            (json!({"items": "a, b"}), Err("`items` must be a list")),
            (
                json!({"items": [item("a", "started")]}),
                Err("Item 1: expected"),
            ),
            (
                json!({"items": [{"content": "a"}]}),
                Err("Item 1: expected"),
            ),
            (
                json!({"items": [item("  ", "pending")]}),
                Err("Item 1 is empty"),
            ),
            (
                json!({"items": [item("a", "pending"), item(&long, "pending")]}),
                Err("Item 2 is 201 characters"),
            ),
            (json!({"items": many}), Err("at most 20 items, not 21")),
            (
                json!({"items": [item("a", "in_progress"), item("b", "in_progress")]}),
                Err("2 items are in_progress"),
            ),
        ];
        for (args, want) in cases {
            match (parse(&args), want) {
                (Ok(items), Ok(n)) => assert_eq!(items.len(), n, "{args}"),
                (Err(e), Err(w)) => assert!(e.contains(w), "{args}: {e}"),
                (got, want) => panic!("{args}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn the_result_tells_the_model_the_list() {
        let items =
            parse(&json!({"items": [item("read  the\ncode", "done"), item("fix", "pending")]}))
                .unwrap();
        assert_eq!(items[0].content, "read the code");
        assert_eq!(
            result_text(&items),
            "The checklist is now (1/2 done):\n[x] read the code\n[ ] fix"
        );
        assert_eq!(result_text(&[]), "The checklist is now empty.");
    }
}
