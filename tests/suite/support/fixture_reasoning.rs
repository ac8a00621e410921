//! A DeepSeek-like server for the reasoning round trip: replies that stream their reasoning in
//! `reasoning_content` (or `reasoning`), and a [`Guard`] that answers 400, with DeepSeek's own
//! error body, when an assistant message with tool calls of the current turn (after the last
//! user message) comes back without its `reasoning_content`.
//!
//! The error's wording is DeepSeek's (`thinking_mode#tool-calls`), as its users report it, e.g.
//! github.com/hotovo/aider-desk/issues/529 and github.com/continuedev/continue/issues/9913.

use serde_json::{Value, json};

use super::fixture::{Guard, Reply, Step, sse};

/// The 400 DeepSeek answers for the first current-turn tool-call message without
/// `reasoning_content`.
pub fn deepseek(body: &Value) -> Option<Reply> {
    missing(body, "reasoning_content").map(|i| refusal(i, "reasoning_content"))
}

/// The same check for a server that streams `reasoning` (and wants it back there).
pub fn wants_reasoning(body: &Value) -> Option<Reply> {
    missing(body, "reasoning").map(|i| refusal(i, "reasoning"))
}

/// The guards, by the field their server uses.
pub fn guard_for(field: &str) -> Guard {
    match field {
        "reasoning" => wants_reasoning,
        _ => deepseek,
    }
}

/// The index of the first assistant message with tool calls after the last user message that
/// lacks `field` (a string).
fn missing(body: &Value, field: &str) -> Option<usize> {
    let messages = body["messages"].as_array()?;
    let current = messages
        .iter()
        .rposition(|m| m["role"] == "user")
        .map_or(0, |i| i + 1);
    messages
        .iter()
        .enumerate()
        .skip(current)
        .find(|(_, m)| {
            m["role"] == "assistant"
                && m["tool_calls"].as_array().is_some_and(|c| !c.is_empty())
                && !m[field].is_string()
        })
        .map(|(i, _)| i)
}

fn refusal(index: usize, field: &str) -> Reply {
    let body = json!({"error": {
        "message": format!("Missing `{field}` field in the assistant message at message index {index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"),
        "type": "invalid_request_error",
        "param": null,
        "code": "invalid_request_error",
    }});
    Reply::Status {
        status: 400,
        headers: vec![],
        body: body.to_string(),
    }
}

/// A streamed reply that thinks in `field` (in two pieces), then calls `tool` with `args`.
pub fn thinking_call(field: &str, thought: &str, id: &str, tool: &str, args: Value) -> Reply {
    let (a, b) = thought.split_at(thought.len() / 2);
    let mut steps = vec![Step::Bytes(sse::data(&sse::chunk(
        json!({"role": "assistant", "content": null}),
        None,
    )))];
    for piece in [a, b] {
        steps.push(Step::Bytes(sse::data(&sse::chunk(
            json!({ field: piece }),
            None,
        ))));
    }
    steps.push(Step::Bytes(sse::data(&sse::chunk(
        json!({"tool_calls": [{"index": 0, "id": id, "type": "function", "function": {"name": tool, "arguments": args.to_string()}}]}),
        None,
    ))));
    steps.push(Step::Bytes(sse::finish("tool_calls")));
    steps.push(Step::Bytes(sse::done()));
    Reply::Stream(steps)
}

/// A streamed reply that thinks in `field`, then answers `text`.
pub fn thinking_answer(field: &str, thought: &str, text: &str) -> Reply {
    Reply::Stream(vec![
        Step::Bytes(sse::data(&sse::chunk(json!({ field: thought }), None))),
        Step::Bytes(sse::text(text)),
        Step::Bytes(sse::finish("stop")),
        Step::Bytes(sse::done()),
    ])
}
