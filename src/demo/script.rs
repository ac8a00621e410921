//! What the demo's scripted model says, and how it is framed as Chat Completions chunks.
//!
//! The first user message gets a guided tour in Markdown (with reasoning) that ends in tool
//! calls — commands and a file creation — when tools are offered. A later message that asks
//! for something the demo can show (“run a command”, “edit a file”, “ask me a question”…)
//! gets that ([`super::asks`]); one that asks for nothing it knows gets a short menu. When tool results come back, the reply reacts to each
//! ([`super::reactions`]). Judge requests (a `response_format`) get a verdict.

use serde_json::{Value, json};

use super::DEMO_MODEL;
use super::asks::{self, Context};

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

pub(super) fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or_default()
}

pub(super) fn text_of(m: &Value) -> &str {
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
    let cx = Context {
        offered: &offered,
        past: past_calls(messages),
    };
    if messages.last().is_some_and(|m| role(m) == "tool") {
        return super::reactions::react(messages, &cx);
    }
    let users: Vec<&str> = messages
        .iter()
        .filter(|m| role(m) == "user")
        .map(text_of)
        .collect();
    let last = users.last().copied().unwrap_or_default();
    // The first message always gets the tour: it shows every tool kind and the modal.
    if users.len() <= 1 {
        return tour(&offered);
    }
    asks::reply(asks::ask_of(last), last, &cx)
}

/// The first reply: the Markdown tour, and a command, a file and another command to approve.
pub fn tour(offered: &[&str]) -> Reply {
    let mut text = TOUR.to_owned();
    let mut tool_calls = Vec::new();
    if offered.contains(&"run_command") {
        tool_calls.push((
            "demo_call_1".into(),
            "run_command".into(),
            json!({"cmd": "ls -la"}).to_string(),
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
            json!({"cmd": "date"}).to_string(),
        ));
    }
    if !tool_calls.is_empty() {
        text.push_str(
            "\nNow some tools. In balanced mode (the default) sayso asks before each command or \
             edit — Always accept, Accept, Reject with a reason, or Cancel — but a read-only command \
             on the safe list (`ls -la`) runs unasked, in a read-only sandbox. In auto mode safe \
             calls run and the judge vets the rest; `/mode` lists all five modes.\n",
        );
    }
    Reply {
        reasoning: TOUR_REASONING.trim().to_owned(),
        text,
        tool_calls,
    }
}

/// Every call the assistant made in `messages`, with the tool message that answered it:
/// (name, arguments, result).
fn past_calls(messages: &[Value]) -> Vec<(String, Value, String)> {
    let mut out = Vec::new();
    for m in messages.iter().filter(|m| role(m) == "assistant") {
        for c in m
            .get("tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let id = c.get("id").and_then(Value::as_str).unwrap_or_default();
            let name = c
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let args = c
                .pointer("/function/arguments")
                .and_then(Value::as_str)
                .and_then(|a| serde_json::from_str(a).ok())
                .unwrap_or(Value::Null);
            let result = messages
                .iter()
                .find(|r| {
                    role(r) == "tool" && r.get("tool_call_id").and_then(Value::as_str) == Some(id)
                })
                .map(text_of)
                .unwrap_or_default();
            out.push((name.to_owned(), args, result.to_owned()));
        }
    }
    out
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
    fn later_turns_without_a_request_get_the_menu_with_the_message_quoted() {
        let r = reply_for(&json!({"messages": [
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "what now?"}]}));
        assert!(
            r.text.contains("“what now?”") && r.text.contains("**run a command**"),
            "{}",
            r.text
        );
    }

    #[test]
    fn a_later_request_gets_its_tool_call() {
        let tools = json!([
            {"type": "function", "function": {"name": "run_command"}},
            {"type": "function", "function": {"name": "ask_questions"}}]);
        let r = reply_for(&json!({"tools": tools, "messages": [
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "run a command"}]}));
        assert_eq!(r.tool_calls.len(), 1);
        assert_eq!(r.tool_calls[0].1, "run_command");
        let r = reply_for(&json!({"tools": tools, "messages": [
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "ask me a question"}]}));
        assert_eq!(r.tool_calls[0].1, "ask_questions");
        // The answer to the question is taken up at once.
        let r = reply_for(&json!({"tools": tools, "messages": [
            {"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"},
            {"role": "user", "content": "ask me a question"},
            {"role": "assistant", "tool_calls": [{"id": "q", "type": "function", "function": {"name": "ask_questions", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "q", "content": "**Next**: What should the demo show next?\nrun a command"}]}));
        assert!(
            r.text.starts_with("You picked **run a command**."),
            "{}",
            r.text
        );
        assert_eq!(r.tool_calls[0].1, "run_command");
    }

    #[test]
    fn the_tour_speaks_of_the_current_modes() {
        let tools = json!([{"type": "function", "function": {"name": "run_command"}}]);
        let r =
            reply_for(&json!({"tools": tools, "messages": [{"role": "user", "content": "hello"}]}));
        assert!(r.text.contains("balanced mode (the default)"), "{}", r.text);
        assert!(!r.text.to_lowercase().contains("normal mode"));
    }
}
