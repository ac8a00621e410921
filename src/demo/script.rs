//! What the demo's scripted model says, and how it is framed as Chat Completions chunks.
//!
//! The first user message gets a guided tour in Markdown (with reasoning) that ends in two tool
//! calls — a command and a file creation — when tools are offered. When the tool results come
//! back, the reply reacts to each: what ran, what the user rejected (and why), what needed an
//! approval nobody could give. Later messages get a short answer that quotes them.

use serde_json::{Value, json};

use super::DEMO_MODEL;

const TOUR: &str = include_str!("../../assets/demo/tour.md");
const TOUR_REASONING: &str = include_str!("../../assets/demo/reasoning.md");
const HELLO_FILE: &str = include_str!("../../assets/demo/hello.md");

/// One scripted reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub reasoning: String,
    pub text: String,
    /// (id, name, JSON arguments)
    pub tool_calls: Vec<(String, String, String)>,
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or_default()
}

fn text_of(m: &Value) -> &str {
    m.get("content").and_then(Value::as_str).unwrap_or_default()
}

/// The reply to a chat-completions request body.
pub fn reply_for(request: &Value) -> Reply {
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let offered: Vec<&str> = request
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.pointer("/function/name").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if request.get("response_format").is_some() {
        return judge_verdict(messages);
    }
    if messages.last().is_some_and(|m| role(m) == "tool") {
        return react_to_tools(messages);
    }
    let users: Vec<&str> = messages
        .iter()
        .filter(|m| role(m) == "user")
        .map(text_of)
        .collect();
    match users.as_slice() {
        [] | [_] => {
            let mut text = TOUR.to_owned();
            let mut tool_calls = Vec::new();
            if offered.contains(&"run_command") {
                tool_calls.push((
                    "demo_call_1".into(),
                    "run_command".into(),
                    json!({"cmd": "ls -la", "flag": null}).to_string(),
                ));
            }
            if offered.contains(&"create_file") {
                tool_calls.push((
                    "demo_call_2".into(),
                    "create_file".into(),
                    json!({"filepath": "hello.md", "content": HELLO_FILE}).to_string(),
                ));
            }
            if offered.contains(&"run_command") {
                tool_calls.push((
                    "demo_call_3".into(),
                    "run_command".into(),
                    json!({"cmd": "date", "flag": null}).to_string(),
                ));
            }
            if !tool_calls.is_empty() {
                text.push_str("\nNow some tools. In normal mode sayso asks before each call (Always accept, Accept, Reject with a reason, or Cancel); in auto mode safe calls run and the judge vets the rest.\n");
            }
            Reply {
                reasoning: TOUR_REASONING.trim().to_owned(),
                text,
                tool_calls,
            }
        }
        [.., last] => Reply {
            reasoning: String::new(),
            text: format!(
                "You said:\n\n> {}\n\nThis is the scripted demo, so that is all it can say. \
                 Connect a real model to get real answers.\n",
                last.trim().replace('\n', "\n> ")
            ),
            tool_calls: Vec::new(),
        },
    }
}

/// The demo's judge: anything that deletes, uploads or escalates is unsafe.
fn judge_verdict(messages: &[Value]) -> Reply {
    let asked = messages.last().map(text_of).unwrap_or_default();
    let action = asked.rsplit("\n\n").next().unwrap_or(asked);
    let risky = action
        .split_whitespace()
        .any(|w| ["rm", "curl", "wget", "sudo", "chmod", "dd"].contains(&w))
        || action.contains("> /");
    let verdict = if risky {
        json!({"safe": false, "reason": "it could delete, upload or change things outside the project"})
    } else {
        json!({"safe": true, "reason": "it only reads or prints; nothing is written or sent"})
    };
    Reply {
        reasoning: String::new(),
        text: verdict.to_string(),
        tool_calls: Vec::new(),
    }
}

/// A reply that reacts to the tool results at the end of the conversation.
fn react_to_tools(messages: &[Value]) -> Reply {
    let start = messages
        .iter()
        .rposition(|m| role(m) == "assistant")
        .unwrap_or(0);
    let calls = messages[start]
        .get("tool_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut lines = Vec::new();
    for result in &messages[start + 1..] {
        let id = result
            .get("tool_call_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let call = calls
            .iter()
            .find(|c| c.get("id").and_then(Value::as_str) == Some(id));
        let name = call
            .and_then(|c| c.pointer("/function/name"))
            .and_then(Value::as_str)
            .unwrap_or("tool");
        let content = text_of(result);
        let line = if content.starts_with("Approval required") {
            format!(
                "- `{name}` needed your approval, and nobody was there to give it: run the demo in the \
                 terminal UI, or add `--auto` / `--allowed-tools {name}`."
            )
        } else if let Some(reason) = content
            .split(", with the reason: ")
            .nth(1)
            .filter(|_| content.starts_with("The user rejected"))
        {
            format!(
                "- You rejected `{name}` because {}. Fair enough — I will not do that.",
                reason.trim_matches('"')
            )
        } else if content.starts_with("The user rejected") {
            format!("- You rejected `{name}`, so I left it alone.")
        } else if name == "run_command" {
            let cmd = call
                .and_then(|c| c.pointer("/function/arguments"))
                .and_then(Value::as_str)
                .and_then(|a| serde_json::from_str::<Value>(a).ok())
                .and_then(|a| a.get("cmd").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default();
            format!("- `{cmd}` ran in the demo's scratch directory.")
        } else if name == "create_file" && content.starts_with("Created") {
            "- I created `hello.md` in the demo's scratch directory.".to_owned()
        } else {
            format!(
                "- `{name}` reported: {}",
                content.lines().next().unwrap_or_default()
            )
        };
        lines.push(line);
    }
    Reply {
        reasoning: String::new(),
        text: format!(
            "Here is what happened:\n\n{}\n\nThat is the whole demo. Connect a real model to do real work.\n",
            lines.join("\n")
        ),
        tool_calls: Vec::new(),
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
    for (i, (id, name, args)) in reply.tool_calls.iter().enumerate() {
        events.push(chunk(
            json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
            None,
        ));
        let chars: Vec<char> = args.chars().collect();
        for piece in chars.chunks(24) {
            let piece: String = piece.iter().collect();
            events.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
                None,
            ));
        }
    }
    let finish = if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    events.push(chunk(json!({}), Some(finish)));
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
            "message": {
                "role": "assistant",
                "content": reply.text,
                "reasoning_content": reply.reasoning,
                "tool_calls": reply.tool_calls.iter().map(|(id, name, args)| json!({
                    "id": id, "type": "function", "function": {"name": name, "arguments": args}
                })).collect::<Vec<_>>(),
            },
            "finish_reason": if reply.tool_calls.is_empty() { "stop" } else { "tool_calls" },
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
    fn the_reply_reacts_to_a_rejection_and_its_reason() {
        let r = reply_for(&json!({"messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "create_file", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "a", "content": "The user rejected the execution of the create_file tool, with the reason: \"not in my repo\""}]}));
        assert!(
            r.text
                .contains("You rejected `create_file` because not in my repo."),
            "{}",
            r.text
        );
        assert!(r.tool_calls.is_empty());
    }

    #[test]
    fn judge_requests_get_a_verdict() {
        let ask = |action: &str| {
            reply_for(&json!({"response_format": {"type": "json_object"}, "messages": [
                {"role": "system", "content": "judge"},
                {"role": "user", "content": format!("The `run_command` tool wants to perform this action:\n\n{action}")}]}))
            .text
        };
        assert!(ask("date").contains("\"safe\":true"));
        assert!(ask("rm -rf /").contains("\"safe\":false"));
    }

    #[test]
    fn later_turns_quote_the_user() {
        let r = reply_for(&json!({"messages": [
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "what now?"}]}));
        assert!(r.text.contains("> what now?"));
    }
}
