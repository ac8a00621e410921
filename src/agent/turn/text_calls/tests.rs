//! Calls written as text through the turn: they run like structured calls, the history keeps
//! the structured form, `off` leaves them as text, and a refused `tools` parameter is answered
//! once by describing the tools.

use super::super::tests::{rules, system, turn_on, user};
use super::super::*;
use crate::events::Notice;
use crate::provider::AssistantMessage;

const HERMES: &str = "Let me run it.\n<tool_call>\n{\"name\": \"run_command\", \"arguments\": {\"cmd\": \"make\"}}\n</tool_call>";

fn reply(text: &str) -> Input {
    Input::Stream(StreamEvent::Finished(Ok(AssistantMessage {
        content: text.into(),
        ..AssistantMessage::default()
    })))
}

fn refused() -> Input {
    Input::Stream(StreamEvent::Finished(Err(ProviderError::Status {
        status: 500,
        message: "Internal Server Error: tools param requires --jinja flag".into(),
        retry_after: None,
    })))
}

fn batch(fx: &[Effect]) -> Option<&Vec<ToolCall>> {
    fx.iter().find_map(|e| match e {
        Effect::RunBatch(c) => Some(c),
        _ => None,
    })
}

fn request(fx: &[Effect]) -> Option<&ChatRequest> {
    fx.iter().find_map(|e| match e {
        Effect::Request(r) => Some(r),
        _ => None,
    })
}

#[test]
fn a_call_written_as_text_runs_and_the_history_is_structured() {
    let mut t = turn_on(vec![system("sys")], 100_000, rules());
    t.step(user("build it"));
    let fx = t.step(reply(HERMES));
    let calls = batch(&fx).expect("the call runs");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].name, "run_command");
    assert_eq!(calls[0].arguments, r#"{"cmd":"make"}"#);
    assert!(!calls[0].id.is_empty(), "the call got an id");
    let done = fx.iter().find_map(|e| match e {
        Effect::Emit(Event::ReplyDone(m)) => Some(m),
        _ => None,
    });
    assert_eq!(done.map(|m| m.content.as_str()), Some("Let me run it."));
    assert!(matches!(
        t.chat().messages.last(),
        Some(ChatMessage::Assistant { content, tool_calls, .. })
            if content == "Let me run it." && tool_calls == calls
    ));
}

#[test]
fn off_leaves_the_text_as_it_is() {
    let mut off = rules();
    off.text_tool_calls = false;
    let mut t = turn_on(vec![system("sys")], 100_000, off);
    t.step(user("build it"));
    let fx = t.step(reply(HERMES));
    assert!(batch(&fx).is_none());
    assert!(t.is_done());
    assert!(matches!(
        t.chat().messages.last(),
        Some(ChatMessage::Assistant { content, tool_calls, .. }) if content == HERMES && tool_calls.is_empty()
    ));
}

#[test]
fn a_refused_tools_parameter_is_answered_once_with_the_tools_described() {
    let mut one_round = rules();
    one_round.max_turns = 1;
    let mut t = turn_on(vec![system("sys")], 100_000, one_round);
    let fx = t.step(user("build it"));
    assert!(!request(&fx).expect("a request").tools.is_empty());
    let fx = t.step(refused());
    let notices: Vec<_> = fx
        .iter()
        .filter(|e| matches!(e, Effect::Emit(Event::Notice(Notice::ToolsInText { .. }))))
        .collect();
    assert_eq!(notices.len(), 1, "said once");
    let again = request(&fx).expect("sent again, within the one round");
    assert!(again.tools.is_empty());
    assert!(matches!(
        again.messages.first(),
        Some(ChatMessage::System { content })
            if content.starts_with("sys\n\n# Tools") && content.contains("\"name\":\"run_command\"")
    ));
    assert!(t.chat().tools_in_text, "kept for the chat");
    // The call it then writes as text runs.
    assert!(batch(&t.step(reply(HERMES))).is_some());
}

#[test]
fn a_second_refusal_ends_the_turn() {
    let mut t = turn_on(vec![system("sys")], 100_000, rules());
    t.step(user("build it"));
    t.step(refused());
    let fx = t.step(refused());
    assert!(request(&fx).is_none());
    assert!(t.is_done());
}

#[test]
fn earlier_calls_are_written_as_text_for_a_server_without_tools() {
    let mut r = ChatRequest::new(
        String::new(),
        vec![
            system("sys"),
            ChatMessage::Assistant {
                content: "Running.".into(),
                tool_calls: vec![ToolCall {
                    id: "call_0".into(),
                    name: "run_command".into(),
                    arguments: r#"{"cmd":"make"}"#.into(),
                }],
                reasoning: None,
            },
        ],
    );
    r.tools = vec![super::super::tests::tool()];
    super::tools_in_text(&mut r);
    assert!(r.tools.is_empty());
    assert_eq!(
        r.messages[1],
        ChatMessage::Assistant {
            content: "Running.\n<tool_call>\n{\"name\":\"run_command\",\"arguments\":{\"cmd\":\"make\"}}\n</tool_call>".into(),
            tool_calls: Vec::new(),
            reasoning: None,
        }
    );
}
