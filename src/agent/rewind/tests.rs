use serde_json::json;

use super::*;
use crate::provider::{AssistantMessage, ChatMessage, ToolCall};
use crate::session::resume::{Step, resume};

fn records(lines: &[serde_json::Value]) -> Vec<Record> {
    lines
        .iter()
        .map(|l| serde_json::from_value(l.clone()).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn user(text: &str) -> serde_json::Value {
    json!({"t": "user", "text": text, "sent": format!("{text} (sent)")})
}

fn reply(text: &str, calls: &[&str]) -> serde_json::Value {
    let tool_calls: Vec<ToolCall> = calls
        .iter()
        .map(|id| ToolCall {
            id: (*id).into(),
            name: "run_command".into(),
            arguments: "{}".into(),
        })
        .collect();
    json!({"t": "reply", "message": AssistantMessage {
        content: text.into(),
        tool_calls,
        ..AssistantMessage::default()
    }})
}

fn done(id: &str) -> [serde_json::Value; 2] {
    [
        json!({"t": "tool_output", "call_id": id, "name": "run_command", "content": "ok", "display": null}),
        json!({"t": "tool_end", "call_id": id, "name": "run_command", "end": "success"}),
    ]
}

fn end() -> serde_json::Value {
    json!({"t": "turn_end", "end": "completed"})
}

/// A chat of three turns: plain, with a tool call, and one whose message added a tool;
/// a mode change between turns.
fn chat() -> Vec<Record> {
    let [o1, e1] = done("c1");
    records(&[
        user("one"),
        json!({"t": "text", "s": "first"}),
        reply("first", &[]),
        end(),
        json!({"t": "mode", "mode": "auto"}),
        user("two"),
        reply("", &["c1"]),
        o1,
        e1,
        reply("second", &[]),
        end(),
        json!({"t": "tools", "names": ["fetch_webpage"]}),
        user("three @{fetch_webpage}"),
        reply("third", &[]),
        end(),
    ])
}

fn messages(steps: &[Step]) -> Vec<ChatMessage> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Message(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_cut_is_just_before_the_message_and_the_tools_it_added() {
    let r = chat();
    // (index, text, kept records)
    let rows = [
        (0, "one", 0),
        (1, "two", 5),
        // The `tools` record the mention wrote belongs to the message.
        (2, "three @{fetch_webpage}", 11),
    ];
    for (index, text, keep) in rows {
        assert_eq!(cut(&r, index, text), Ok(keep), "{index}");
    }
}

#[test]
fn a_cut_refuses_a_message_that_is_not_there_or_not_the_one_listed() {
    let r = chat();
    assert_eq!(
        cut(&r, 3, "four"),
        Err(CutError::NoSuchMessage { index: 3, count: 3 })
    );
    assert_eq!(cut(&r, 1, "one"), Err(CutError::Changed { index: 1 }));
    assert_eq!(
        cut(&[], 0, "x"),
        Err(CutError::NoSuchMessage { index: 0, count: 0 })
    );
    assert_eq!(user_messages(&r), ["one", "two", "three @{fetch_webpage}"]);
}

/// The history rebuilt from what a cut keeps is the whole chat's history up to (not
/// including) the chosen message: what the model had seen when it was sent.
#[test]
fn the_rewound_history_is_the_history_before_the_message() {
    let r = chat();
    let whole = messages(&resume(r.clone()).history);
    let users: Vec<usize> = whole
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, ChatMessage::User { .. }))
        .map(|(i, _)| i)
        .collect();
    for (index, text) in user_messages(&r).into_iter().enumerate() {
        let keep = cut(&r, index, text).unwrap();
        let rewound = resume(r[..keep].to_vec());
        assert_eq!(
            messages(&rewound.history),
            whole[..users[index]],
            "rewind to {index}"
        );
        assert!(!rewound.interrupted, "rewind to {index}");
    }
    // The tool the third message added is gone with it; the mode set before the second
    // message stays.
    let keep = cut(&r, 2, "three @{fetch_webpage}").unwrap();
    let rewound = resume(r[..keep].to_vec());
    assert!(rewound.tools_added.is_empty());
    assert_eq!(rewound.mode, Some(crate::events::Mode::Auto));
    let keep = cut(&r, 1, "two").unwrap();
    assert_eq!(
        resume(r[..keep].to_vec()).mode,
        Some(crate::events::Mode::Auto)
    );
    let keep = cut(&r, 0, "one").unwrap();
    assert_eq!(resume(r[..keep].to_vec()).mode, None);
}

/// A message queued during a turn is a user message too: rewinding to it keeps the turn's
/// start, and every call before it stays answered.
#[test]
fn a_rewind_to_a_queued_message_keeps_every_call_answered() {
    let [o1, e1] = done("c1");
    let r = records(&[
        user("go"),
        reply("", &["c1"]),
        o1,
        e1,
        user("and also this"),
        reply("done", &[]),
        end(),
    ]);
    let keep = cut(&r, 1, "and also this").unwrap();
    assert_eq!(keep, 4);
    let m = messages(&resume(r[..keep].to_vec()).history);
    assert_eq!(m.len(), 3);
    assert!(
        matches!(&m[2], ChatMessage::Tool { tool_call_id, content } if tool_call_id == "c1" && content == "ok")
    );
}
