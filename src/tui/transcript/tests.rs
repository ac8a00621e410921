use super::*;
use crate::provider::{AssistantMessage, ProviderError, ToolCall};
use std::time::Duration;

fn text(t: &str) -> Event {
    Event::Delta(StreamDelta::Text(t.into()))
}

#[test]
fn a_retry_discards_the_failed_attempt() {
    let mut t = Transcript::default();
    t.push_user("hi");
    t.apply(&text("Hel"));
    t.apply(&Event::Retrying(crate::provider::Retry {
        retry: 1,
        max_retries: 4,
        delay: Duration::ZERO,
        error: ProviderError::Dropped("x".into()),
    }));
    t.apply(&text("Hello"));
    t.apply(&Event::ReplyDone(AssistantMessage::default()));
    assert_eq!(
        t.entries,
        [
            Entry::User { text: "hi".into() },
            Entry::Assistant {
                text: "Hello".into(),
                interrupted: false
            }
        ]
    );
}

#[test]
fn a_call_written_as_text_is_shown_as_its_tool_block() {
    let mut t = Transcript::default();
    t.push_user("weather?");
    t.apply(&text(
        "Checking.\n<tool_call>\n{\"name\": \"get_weather\", ",
    ));
    t.apply(&text("\"arguments\": {}}\n</tool_call>"));
    t.apply(&Event::ReplyDone(AssistantMessage {
        content: "Checking.".into(),
        tool_calls: vec![ToolCall {
            id: "call_0".into(),
            name: "get_weather".into(),
            arguments: "{}".into(),
        }],
        ..AssistantMessage::default()
    }));
    assert!(
        matches!(
            &t.entries[1..],
            [Entry::Assistant { text, .. }, Entry::Tool { call_id, name, .. }]
                if text == "Checking." && call_id == "call_0" && name == "get_weather"
        ),
        "{:?}",
        t.entries
    );
    // A reply that is only the call leaves no text behind.
    t.apply(&text(
        "<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>",
    ));
    t.apply(&Event::ReplyDone(AssistantMessage {
        tool_calls: vec![ToolCall {
            id: "call_1".into(),
            name: "get_weather".into(),
            arguments: "{}".into(),
        }],
        ..AssistantMessage::default()
    }));
    assert!(matches!(
        t.entries.last(),
        Some(Entry::Tool { call_id, .. }) if call_id == "call_1"
    ));
    assert_eq!(t.entries.len(), 4, "{:?}", t.entries);
}

#[test]
fn tool_entries_keep_content_and_display_apart() {
    let mut t = Transcript::default();
    t.apply(&Event::Delta(StreamDelta::ToolCallStarted {
        index: 0,
        id: "c1".into(),
        name: "read_file".into(),
    }));
    t.apply(&Event::ReplyDone(AssistantMessage {
        tool_calls: vec![ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: "{}".into(),
        }],
        ..AssistantMessage::default()
    }));
    t.apply(
        &(Event::ToolStarted {
            call_id: "c1".into(),
            name: "read_file".into(),
            cmd_string: "read_file a".into(),
            args: serde_json::json!({}),
            unasked: None,
        }),
    );
    t.apply(
        &(Event::ToolOutput {
            call_id: "c1".into(),
            name: "read_file".into(),
            content: "the whole file".into(),
            display: Some("Read a (3 lines)".into()),
        }),
    );
    t.apply(
        &(Event::ToolOutput {
            call_id: "c1".into(),
            name: "read_file".into(),
            content: "hidden note".into(),
            display: Some(String::new()),
        }),
    );
    t.apply(
        &(Event::ToolFinished {
            call_id: "c1".into(),
            name: "read_file".into(),
            end: CallEnd::Success,
        }),
    );
    assert_eq!(
        t.entries,
        [Entry::Tool {
            call_id: "c1".into(),
            name: "read_file".into(),
            cmd_string: "read_file a".into(),
            state: ToolState::Done(CallEnd::Success),
            content: "the whole file\n\nhidden note".into(),
            display: Some("Read a (3 lines)".into()),
            judge: None,
            unasked: None,
            changes: Vec::new(),
        }]
    );
}

#[test]
fn an_interrupted_reply_is_kept_and_marked() {
    let mut t = Transcript::default();
    t.apply(&text("partial"));
    t.apply(&Event::ReplyInterrupted {
        partial: "partial".into(),
    });
    assert_eq!(
        t.entries,
        [Entry::Assistant {
            text: "partial".into(),
            interrupted: true
        }]
    );
}

/// A secret the model server echoes, in pieces, is never kept whole or in part once the
/// piece that completes it arrives.
#[test]
fn a_streamed_secret_is_scrubbed_across_pieces() {
    let secret = "sk-transcript-0123456789";
    crate::secrets::register(&[crate::secrets::Secret::new("$T_KEY", secret)], &[]);
    let mut t = Transcript::default();
    for piece in ["key: ", &secret[..7], &secret[7..], " ok"] {
        t.apply(&text(piece));
    }
    let Some(Entry::Assistant { text, .. }) = t.entries.last() else {
        panic!("{:?}", t.entries);
    };
    assert_eq!(text, "key: [secret $T_KEY removed] ok");
}
