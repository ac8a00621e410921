use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::*;
use crate::provider::{AssistantMessage, ToolCall as Call};

#[test]
fn tool_kinds_come_from_the_name_then_the_kind() {
    // (name, kind, ACP kind)
    let rows = [
        ("read_file", Kind::ReadOnly, ToolKind::Read),
        ("grep_search", Kind::ReadOnly, ToolKind::Search),
        ("file_search", Kind::ReadOnly, ToolKind::Search),
        ("edit_file", Kind::FileEdit, ToolKind::Edit),
        ("create_file", Kind::FileEdit, ToolKind::Edit),
        ("delete_file", Kind::FileEdit, ToolKind::Delete),
        ("fetch_webpage", Kind::Network, ToolKind::Fetch),
        ("todo", Kind::Other, ToolKind::Think),
        ("run_command", Kind::Shell, ToolKind::Execute),
        ("git_status", Kind::ReadOnly, ToolKind::Read),
        ("gh__create_issue", Kind::Network, ToolKind::Fetch),
        ("mcp__thing", Kind::Other, ToolKind::Other),
        ("my_writer", Kind::FileEdit, ToolKind::Edit),
    ];
    for (name, kind, want) in rows {
        assert_eq!(tool_kind(name, kind), want, "{name}");
    }
}

#[test]
fn only_a_success_completes() {
    let rows = [
        (CallEnd::Success, ToolCallStatus::Completed),
        (CallEnd::Error, ToolCallStatus::Failed),
        (CallEnd::Rejected, ToolCallStatus::Failed),
        (CallEnd::Cancelled, ToolCallStatus::Failed),
    ];
    for (end, want) in rows {
        assert_eq!(call_status(end), want, "{end:?}");
    }
}

#[test]
fn locations_are_absolute_with_their_line() {
    let cwd = Path::new("/p");
    let loc = |args: Value| {
        locations(&args, cwd)
            .into_iter()
            .map(|l| (l.path.display().to_string(), l.line))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        loc(json!({"path": "src/a.rs"})),
        [("/p/src/a.rs".into(), None)]
    );
    assert_eq!(
        loc(json!({"path": "/etc/hosts", "start_line": 3})),
        [("/etc/hosts".into(), Some(3))]
    );
    assert_eq!(
        loc(json!({"file_path": "b.rs", "line": 7})),
        [("/p/b.rs".into(), Some(7))]
    );
    assert_eq!(loc(json!({"cmd": "ls"})), []);
    assert_eq!(loc(json!({"path": "  "})), []);
    assert_eq!(loc(Value::Null), []);
}

#[test]
fn a_diff_has_the_old_and_new_text_of_its_hunks() {
    let diff = "--- a/a.rs\n+++ b/a.rs\n@@ -1,3 +1,3 @@\n keep\n-old\n+new\n tail\n";
    let edited = FileChange::new("a.rs", "/p/a.rs", ChangeKind::Edited, diff.into());
    let ToolCallContent::Diff(d) = diff_content(&edited) else {
        panic!("a diff")
    };
    assert_eq!(d.path, PathBuf::from("/p/a.rs"));
    assert_eq!(d.old_text.as_deref(), Some("keep\nold\ntail\n"));
    assert_eq!(d.new_text, "keep\nnew\ntail\n");
    let created = FileChange::new(
        "n.txt",
        "/p/n.txt",
        ChangeKind::Created,
        "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n".into(),
    );
    let ToolCallContent::Diff(d) = diff_content(&created) else {
        panic!("a diff")
    };
    assert_eq!((d.old_text, d.new_text.as_str()), (None, "hi\n"));
    let ToolCallContent::Diff(d) = diff_text(
        Path::new("/p/n.txt"),
        "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n",
    ) else {
        panic!("a diff")
    };
    assert_eq!(d.old_text, None);
    let ToolCallContent::Diff(d) = diff_text(Path::new("/p/a.rs"), diff) else {
        panic!("a diff")
    };
    assert_eq!(d.old_text.as_deref(), Some("keep\nold\ntail\n"));
}

#[test]
fn the_checklist_is_a_plan() {
    let items = [
        ("a", TodoStatus::Done),
        ("b", TodoStatus::InProgress),
        ("c", TodoStatus::Pending),
    ]
    .map(|(c, s)| TodoItem {
        content: c.into(),
        status: s,
    });
    let p = serde_json::to_value(plan(&items)).unwrap();
    assert_eq!(
        p["entries"],
        json!([
            {"content": "a", "priority": "medium", "status": "completed"},
            {"content": "b", "priority": "medium", "status": "in_progress"},
            {"content": "c", "priority": "medium", "status": "pending"},
        ])
    );
}

fn kind_of(name: &str) -> Kind {
    match name {
        "run_command" => Kind::Shell,
        _ => Kind::Other,
    }
}

/// The updates of a run of events, as JSON (what goes on the wire).
fn wire(events: &[Event]) -> Vec<Value> {
    let mut u = Updates::new(PathBuf::from("/p"));
    events
        .iter()
        .flat_map(|e| u.map(e, &kind_of))
        .map(|u| serde_json::to_value(u).unwrap())
        .collect()
}

fn reply(content: &str, calls: &[(&str, &str, &str)]) -> Event {
    Event::ReplyDone(AssistantMessage {
        content: content.into(),
        tool_calls: calls
            .iter()
            .map(|(id, name, args)| Call {
                id: (*id).into(),
                name: (*name).into(),
                arguments: (*args).into(),
            })
            .collect(),
        ..Default::default()
    })
}

#[test]
fn a_streamed_reply_is_sent_once_and_a_replayed_one_whole() {
    let streamed = [
        Event::Delta(StreamDelta::Reasoning("hmm".into())),
        Event::Delta(StreamDelta::Text("Hel".into())),
        Event::Delta(StreamDelta::Text("lo".into())),
        reply("Hello", &[]),
    ];
    assert_eq!(
        wire(&streamed),
        [
            json!({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hel"}}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "lo"}}),
        ]
    );
    let replayed = [
        Event::UserMessage {
            text: "hi".into(),
            sent: "hi (expanded)".into(),
        },
        reply("Hello", &[]),
    ];
    assert_eq!(
        wire(&replayed),
        [
            json!({"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "hi"}}),
            json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hello"}}),
        ]
    );
}

#[test]
fn a_command_goes_pending_in_progress_completed_with_its_output() {
    let events = [
        reply("", &[("c1", "run_command", r#"{"cmd":"ls"}"#)]),
        Event::ApprovalRequested {
            call_id: "c1".into(),
            name: "run_command".into(),
            cmd_string: "ls".into(),
            judge_reason: None,
            caution: None,
        },
        Event::ToolStarted {
            call_id: "c1".into(),
            name: "run_command".into(),
            cmd_string: "ls".into(),
            args: json!({"cmd": "ls"}),
            unasked: None,
        },
        Event::ToolOutput {
            call_id: "c1".into(),
            name: "run_command".into(),
            content: "a\nb\n".into(),
            display: None,
        },
        Event::ToolFinished {
            call_id: "c1".into(),
            name: "run_command".into(),
            end: CallEnd::Success,
        },
    ];
    assert_eq!(
        wire(&events),
        [
            // `pending` is the default status: the crate leaves it out of the wire.
            json!({"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "run_command",
                   "kind": "execute", "rawInput": {"cmd": "ls"}}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "ls"}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress",
                   "title": "ls", "locations": [], "rawInput": {"cmd": "ls"}}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1",
                   "content": [{"type": "content", "content": {"type": "text", "text": "```\na\nb\n```"}}],
                   "rawOutput": "a\nb\n"}),
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}),
        ]
    );
}

#[test]
fn an_edit_shows_its_display_text_then_its_diff() {
    let change = FileChange::new(
        "a.rs",
        "/p/a.rs",
        ChangeKind::Edited,
        "--- a/a.rs\n+++ b/a.rs\n@@ -1 +1 @@\n-x\n+y\n".into(),
    );
    let events = [
        reply("", &[("e1", "edit_file", r#"{"filepath":"a.rs"}"#)]),
        Event::ToolOutput {
            call_id: "e1".into(),
            name: "edit_file".into(),
            content: "long text for the model".into(),
            display: Some("Edited a.rs".into()),
        },
        Event::FileChanged {
            call_id: "e1".into(),
            name: "edit_file".into(),
            change,
        },
        Event::ToolFinished {
            call_id: "e1".into(),
            name: "edit_file".into(),
            end: CallEnd::Rejected,
        },
    ];
    let w = wire(&events);
    assert_eq!(w[0]["kind"], "edit");
    assert_eq!(w[0]["locations"], json!([{"path": "/p/a.rs"}]));
    assert_eq!(w[1]["content"][0]["content"]["text"], "Edited a.rs");
    assert_eq!(
        w[2]["content"][1],
        json!({"type": "diff", "path": "/p/a.rs", "oldText": "x\n", "newText": "y\n"})
    );
    assert_eq!(w[3]["status"], "failed");
    // An update for a call never announced is dropped, not invented.
    assert_eq!(
        wire(&[Event::ToolOutput {
            call_id: "zz".into(),
            name: "x".into(),
            content: "c".into(),
            display: None,
        }]),
        Vec::<Value>::new()
    );
}
