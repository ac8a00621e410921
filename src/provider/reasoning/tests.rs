use serde_json::{Value, json};

use super::*;
use crate::provider::{ChatRequest, ToolCall};

fn call(id: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "f".into(),
        arguments: "{}".into(),
    }
}

fn assistant(
    content: &str,
    calls: &[&str],
    reasoning: Option<(&str, ReasoningField)>,
) -> ChatMessage {
    ChatMessage::Assistant {
        content: content.into(),
        tool_calls: calls.iter().map(|id| call(id)).collect(),
        reasoning: reasoning.map(|(text, field)| Reasoning {
            text: text.into(),
            field,
        }),
    }
}

fn user(s: &str) -> ChatMessage {
    ChatMessage::user(s)
}

fn tool(id: &str) -> ChatMessage {
    ChatMessage::Tool {
        tool_call_id: id.into(),
        content: "out".into(),
    }
}

/// A past turn (a call and an answer), then the current one: a call with reasoning, one
/// without, and a last reply with reasoning but no call.
fn history(field: ReasoningField) -> Vec<ChatMessage> {
    vec![
        ChatMessage::System {
            content: "sys".into(),
        },
        user("first"),
        assistant("", &["p1"], Some(("old plan", field))),
        tool("p1"),
        assistant("done before", &[], Some(("old answer", field))),
        user("second"),
        assistant("", &["c1"], Some(("plan", field))),
        tool("c1"),
        assistant("", &["c2"], None),
        tool("c2"),
        assistant("answer", &[], Some(("why", field))),
    ]
}

/// (index, the text sent back) of what [`sent_back`] picks.
fn picked(h: &[ChatMessage], send: SendReasoning) -> Vec<(usize, String)> {
    sent_back(h, send)
        .into_iter()
        .map(|(i, s)| match s {
            SentBack::Reasoning(r) => (i, r.text.clone()),
            SentBack::Empty(key) => (i, format!("empty {key}")),
        })
        .collect()
}

fn rows(list: &[(usize, &str)]) -> Vec<(usize, String)> {
    list.iter().map(|(i, s)| (*i, s.to_string())).collect()
}

#[test]
fn which_messages_get_their_reasoning_back() {
    let table = [
        (
            ReasoningField::ReasoningContent,
            SendReasoning::Auto,
            rows(&[(6, "plan"), (8, "empty reasoning_content")]),
        ),
        (
            ReasoningField::Reasoning,
            SendReasoning::Always,
            rows(&[
                (2, "old plan"),
                (4, "old answer"),
                (6, "plan"),
                (8, "empty reasoning"),
                (10, "why"),
            ]),
        ),
        (
            ReasoningField::ReasoningContent,
            SendReasoning::Never,
            rows(&[]),
        ),
        // A <think> block has no key to send an empty one under.
        (
            ReasoningField::ThinkTags,
            SendReasoning::Auto,
            rows(&[(6, "plan")]),
        ),
    ];
    for (field, send, want) in table {
        assert_eq!(picked(&history(field), send), want, "{field:?} {send:?}");
    }
    // Nothing before the first user message counts as a past turn.
    let no_user = vec![assistant(
        "",
        &["c"],
        Some(("r", ReasoningField::Reasoning)),
    )];
    assert_eq!(picked(&no_user, SendReasoning::Auto), rows(&[(0, "r")]));
    // Empty reasoning is never sent, and with no reasoning anywhere the key is unknown.
    let empty = vec![
        user("u"),
        assistant("", &["c"], Some(("", ReasoningField::Reasoning))),
    ];
    assert_eq!(picked(&empty, SendReasoning::Always), rows(&[]));
}

fn messages(field: ReasoningField, send: SendReasoning, effort: Option<&str>) -> Vec<Value> {
    let req = ChatRequest::new("m", history(field));
    let settings = ReasoningSettings {
        send,
        effort: effort.map(str::to_owned),
    };
    let body = req.body_value(true, &settings);
    assert_eq!(
        body.get("reasoning_effort"),
        effort.map(|e| json!(e)).as_ref(),
        "{body}"
    );
    body["messages"].as_array().cloned().unwrap_or_default()
}

#[test]
fn reasoning_goes_back_in_the_field_the_server_used() {
    for (field, key) in [
        (ReasoningField::ReasoningContent, "reasoning_content"),
        (ReasoningField::Reasoning, "reasoning"),
    ] {
        let m = messages(field, SendReasoning::Auto, None);
        assert_eq!(
            m[6],
            json!({"role": "assistant", key: "plan", "tool_calls": [
                {"type": "function", "id": "c1", "function": {"name": "f", "arguments": "{}"}}
            ]})
        );
        // The current turn's call that came without reasoning: an empty one, in that field.
        assert_eq!(m[8][key], json!(""), "{}", m[8]);
        for (i, msg) in m.iter().enumerate().filter(|(i, _)| *i != 6 && *i != 8) {
            let o = msg.as_object().unwrap();
            assert!(
                !o.contains_key("reasoning_content") && !o.contains_key("reasoning"),
                "message {i}: {msg}"
            );
        }
    }
}

#[test]
fn think_tags_go_back_before_the_content() {
    let m = messages(ReasoningField::ThinkTags, SendReasoning::Always, None);
    assert_eq!(m[6]["content"], json!("<think>\nplan\n</think>\n\n"));
    assert_eq!(m[10]["content"], json!("<think>\nwhy\n</think>\n\nanswer"));
    assert!(m[6].get("reasoning_content").is_none());
}

#[test]
fn never_sends_no_reasoning_key_and_no_null() {
    let m = messages(ReasoningField::ReasoningContent, SendReasoning::Never, None);
    let text = serde_json::to_string(&m).unwrap();
    assert!(!text.contains("reasoning"), "{text}");
    assert!(!text.contains("null"), "{text}");
}

#[test]
fn effort_is_a_top_level_field_only_when_set() {
    messages(ReasoningField::Reasoning, SendReasoning::Auto, Some("high"));
    messages(ReasoningField::Reasoning, SendReasoning::Auto, None);
}

#[test]
fn effort_words() {
    for (e, ok) in [
        ("high", true),
        ("low", true),
        ("x_high", true),
        ("", false),
        ("HIGH", false),
        ("hi gh", false),
        ("\"", false),
    ] {
        assert_eq!(valid_effort(e), ok, "{e:?}");
    }
}

#[test]
fn send_reasoning_names_parse() {
    for n in SendReasoning::NAMES {
        assert!(SendReasoning::parse(n).is_some(), "{n}");
    }
    assert_eq!(SendReasoning::parse("sometimes"), None);
}

#[test]
fn history_message_serde_round_trips_and_omits_absent_reasoning() {
    let m = assistant("a", &[], None);
    let v = serde_json::to_value(&m).unwrap();
    assert_eq!(v, json!({"role": "assistant", "content": "a"}));
    let with = assistant("a", &["c"], Some(("r", ReasoningField::Reasoning)));
    let back: ChatMessage = serde_json::from_value(serde_json::to_value(&with).unwrap()).unwrap();
    assert_eq!(back, with);
}
