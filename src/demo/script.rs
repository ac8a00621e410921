//! What the demo's scripted model says, and how it is framed as Chat Completions chunks.
//!
//! The first user message gets a guided tour in Markdown (with reasoning); later messages get a
//! short answer that quotes them, so a conversation visibly goes on.

use serde_json::{Value, json};

use super::DEMO_MODEL;

const TOUR: &str = include_str!("../../assets/demo/tour.md");
const TOUR_REASONING: &str = include_str!("../../assets/demo/reasoning.md");

/// One scripted reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub reasoning: String,
    pub text: String,
}

/// The reply to a chat-completions request body.
pub fn reply_for(request: &Value) -> Reply {
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let users: Vec<&str> = messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .filter_map(|m| m.get("content").and_then(Value::as_str))
        .collect();
    match users.as_slice() {
        [] | [_] => Reply {
            reasoning: TOUR_REASONING.trim().to_owned(),
            text: TOUR.to_owned(),
        },
        [.., last] => Reply {
            reasoning: String::new(),
            text: format!(
                "You said:\n\n> {}\n\nThis is the scripted demo, so that is all it can say. \
                 Connect a real model to get real answers.\n",
                last.trim().replace('\n', "\n> ")
            ),
        },
    }
}

/// Splits text into word-sized pieces (each keeps its trailing whitespace), like tokens.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, c) in text.char_indices() {
        let space = c.is_whitespace();
        if in_space && !space {
            out.push(&text[start..i]);
            start = i;
        }
        in_space = space;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    let v = json!({
        "id": "chatcmpl-demo",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": DEMO_MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    format!("data: {v}\n\n")
}

/// The reply as SSE events, ending with a usage chunk and `[DONE]`.
pub fn sse_events(reply: &Reply) -> Vec<String> {
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for p in pieces(&reply.reasoning) {
        events.push(chunk(json!({"reasoning_content": p}), None));
    }
    let text_pieces = pieces(&reply.text);
    for p in &text_pieces {
        events.push(chunk(json!({"content": p}), None));
    }
    events.push(chunk(json!({}), Some("stop")));
    let completion = (pieces(&reply.reasoning).len() + text_pieces.len()) as u64;
    let usage = json!({
        "id": "chatcmpl-demo", "object": "chat.completion.chunk", "created": 0, "model": DEMO_MODEL,
        "choices": [],
        "usage": {"prompt_tokens": 42, "completion_tokens": completion, "total_tokens": 42 + completion},
    });
    events.push(format!("data: {usage}\n\n"));
    events.push("data: [DONE]\n\n".to_owned());
    events
}

/// The reply as a non-streamed completion body.
pub fn completion_json(reply: &Reply) -> Value {
    json!({
        "id": "chatcmpl-demo",
        "object": "chat.completion",
        "created": 0,
        "model": DEMO_MODEL,
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": reply.text, "reasoning_content": reply.reasoning},
            "finish_reason": "stop",
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_rejoin_to_the_text() {
        let t = "a  b\nc d ";
        assert_eq!(pieces(t).concat(), t);
        assert_eq!(pieces(t), ["a  ", "b\n", "c ", "d "]);
    }

    #[test]
    fn later_turns_quote_the_user() {
        let r = reply_for(&json!({"messages": [
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "what now?"}]}));
        assert!(r.text.contains("> what now?"));
    }
}
