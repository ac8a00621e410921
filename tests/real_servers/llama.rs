//! llama.cpp's `llama-server` with the tiny generated model (real inference, real grammar-
//! constrained tool calls, real error bodies). Needs `SAYSO_TEST_LLAMA_URL`.

use std::collections::HashSet;

use pretty_assertions::assert_eq;
use sayso::provider::{
    AssistantMessage, ChatMessage, ChatRequest, Client, ProviderError, ToolSpec,
};
use serde_json::{Value, json};

use crate::harness::{self, LLAMA_URL};

/// llama-server ignores the model name; the start script serves the model under this alias.
const MODEL: &str = "tiny";

fn user(text: &str) -> ChatMessage {
    ChatMessage::User {
        content: text.into(),
        images: Vec::new(),
    }
}

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "get_weather".into(),
            description: "The weather forecast for a city".into(),
            parameters: json!({
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city", "days"]
            }),
            strict: None,
        },
        ToolSpec {
            name: "get_time".into(),
            description: "The current time in a time zone".into(),
            parameters: json!({
                "type": "object",
                "properties": {"tz": {"type": "string"}},
                "required": ["tz"]
            }),
            strict: None,
        },
    ]
}

/// The tiny random model sometimes samples end-of-sequence first: a valid, empty reply. Tests
/// that need text try a few times; every attempt must still be a clean, complete reply.
const TEXT_TRIES: usize = 5;

/// Streams `req` until the reply has text (at most [`TEXT_TRIES`] times). Every reply must come
/// without retries and end with `finish_reason: "stop"` and consistent usage.
async fn stream_until_text(client: &Client, req: &ChatRequest) -> AssistantMessage {
    let mut replies = Vec::new();
    for _ in 0..TEXT_TRIES {
        let run = harness::stream(client, req).await;
        assert!(
            run.retries.is_empty(),
            "no retry expected: {:?}",
            run.retries
        );
        let m = run.message().clone();
        assert!(
            m.tool_calls.is_empty(),
            "expected text, not a tool call: {m:#?}"
        );
        assert_eq!(m.finish_reason.as_deref(), Some("stop"), "{m:#?}");
        let usage = m
            .usage
            .expect("include_usage was asked for: the usage chunk is read");
        let (prompt, completion) = (
            usage.prompt_tokens.expect("prompt_tokens"),
            usage.completion_tokens.expect("completion_tokens"),
        );
        assert!(prompt > 0 && completion > 0, "{usage:?}");
        assert_eq!(usage.total_tokens, Some(prompt + completion), "{usage:?}");
        if !m.content.is_empty() {
            return m;
        }
        replies.push(m);
    }
    panic!("{TEXT_TRIES} replies without any text: {replies:#?}");
}

#[tokio::test]
async fn llama_streams_text_with_usage() {
    let url = require_url!(LLAMA_URL, "llama_streams_text_with_usage");
    let req = ChatRequest::new(MODEL, vec![user("Hello")]);
    let m = stream_until_text(&harness::client(&url), &req).await;
    // A reply of ~65 byte-level tokens: text arrived in many deltas, all kept.
    assert!(m.usage.unwrap().completion_tokens > Some(1), "{m:#?}");
}

#[tokio::test]
async fn llama_tool_call_round_trip() {
    let url = require_url!(LLAMA_URL, "llama_tool_call_round_trip");
    let client = harness::client(&url);
    let offered = tools();
    let mut req = ChatRequest::new(MODEL, vec![user("What is the weather in Paris?")]);
    req.tools = offered.clone();

    // Turn 1: a streamed tool call, its arguments arriving in 1–4 character pieces.
    let run = harness::stream(&client, &req).await;
    assert!(
        run.retries.is_empty(),
        "no retry expected: {:?}",
        run.retries
    );
    let first = run.message().clone();
    assert_eq!(
        first.finish_reason.as_deref(),
        Some("tool_calls"),
        "{first:#?}"
    );
    assert!(!first.tool_calls.is_empty(), "no tool call: {first:#?}");
    let ids: HashSet<_> = first.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        ids.len(),
        first.tool_calls.len(),
        "tool call ids are distinct: {first:#?}"
    );
    for call in &first.tool_calls {
        assert!(!call.id.is_empty(), "{call:?}");
        let spec = offered
            .iter()
            .find(|t| t.name == call.name)
            .unwrap_or_else(|| panic!("`{}` was not offered: {call:?}", call.name));
        let args: Value = serde_json::from_str(&call.arguments)
            .unwrap_or_else(|e| panic!("arguments are not JSON ({e}): {call:?}"));
        // The server's grammar follows the schema, so every required key must be there with
        // its type: a lost or doubled fragment would break this.
        for key in spec.parameters["required"].as_array().unwrap() {
            let key = key.as_str().unwrap();
            let want = spec.parameters["properties"][key]["type"].as_str().unwrap();
            let got = &args[key];
            let ok = match want {
                "string" => got.is_string(),
                "integer" => got.is_i64() || got.is_u64(),
                _ => unreachable!(),
            };
            assert!(ok, "`{key}` should be a {want}: {call:?}");
        }
    }

    // Turn 2: the calls and their results go back; the model answers in text.
    req.messages.push(ChatMessage::Assistant {
        content: first.content.clone(),
        tool_calls: first.tool_calls.clone(),
        reasoning: first.kept_reasoning(),
    });
    for call in &first.tool_calls {
        req.messages.push(ChatMessage::Tool {
            tool_call_id: call.id.clone(),
            content: format!(
                "{{\"result\": \"sunny, 21 C\", \"tool\": \"{}\"}}",
                call.name
            ),
        });
    }
    let second = &stream_until_text(&client, &req).await;
    // The history was accepted and counted: the second prompt is longer than the first.
    let prompt = |m: &AssistantMessage| m.usage.and_then(|u| u.prompt_tokens);
    assert!(
        prompt(second) > prompt(&first),
        "{:?} vs {:?}",
        second.usage,
        first.usage
    );
}

#[tokio::test]
async fn llama_lists_models() {
    let url = require_url!(LLAMA_URL, "llama_lists_models");
    let ids = harness::client(&url)
        .list_models()
        .await
        .expect("GET /models works");
    assert!(!ids.is_empty(), "no models listed");
    // Cross-check with the raw answer: the ids of its OpenAI-style `data` list, sorted.
    let raw: Value = sayso::provider::http::client_builder()
        .build()
        .unwrap()
        .get(format!("{url}/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut want: Vec<String> = raw["data"]
        .as_array()
        .expect("llama-server answers with a `data` list")
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect();
    want.sort();
    assert_eq!(ids, want);
}

#[tokio::test]
async fn llama_context_overflow_is_recognised_with_its_sizes_and_not_retried() {
    let url = require_url!(
        LLAMA_URL,
        "llama_context_overflow_is_recognised_with_its_sizes_and_not_retried"
    );
    // ~33,000 tokens: far beyond the 4096-token slot.
    let huge = "hello world ".repeat(3000);
    let run = harness::stream(
        &harness::client(&url),
        &ChatRequest::new(MODEL, vec![user(&huge)]),
    )
    .await;
    assert!(
        run.retries.is_empty(),
        "an overflow must not be retried as it is: {:?}",
        run.retries
    );
    assert!(run.deltas.is_empty(), "{:?}", run.deltas);
    match run.error() {
        e @ ProviderError::ContextOverflow {
            message,
            window,
            prompt,
        } => {
            assert!(
                message.contains("exceeds the available context size"),
                "the server's own message is kept: {message}"
            );
            assert_eq!(*window, Some(4096), "{e:?}");
            assert!(prompt.is_some_and(|p| p > 4096), "{e:?}");
            assert!(!e.is_retryable());
        }
        other => panic!("expected a context overflow, got {other:?}"),
    }
}

#[tokio::test]
async fn llama_headless_binary_text_and_json() {
    let url = require_url!(LLAMA_URL, "llama_headless_binary_text_and_json");

    // Text mode: the reply on stdout, ended by a newline; on stderr only the line that says how
    // to continue the saved chat.
    let mut texts = Vec::new();
    for _ in 0..TEXT_TRIES {
        let out = harness::run_sayso(&url, MODEL, &["--tools", "", "Hello"], None).await;
        assert_eq!(out.status, Some(0), "{out:?}");
        assert!(
            out.stderr.lines().count() == 1
                && out.stderr.starts_with("sayso: this chat is saved as "),
            "{out:?}"
        );
        if !out.stdout.is_empty() {
            assert!(out.stdout.ends_with('\n'), "{out:?}");
            break;
        }
        texts.push(out);
    }
    assert!(
        texts.len() < TEXT_TRIES,
        "no text in {TEXT_TRIES} runs: {texts:#?}"
    );

    // JSON mode: well-formed events whose deltas add up to the final text.
    let mut empty = 0;
    loop {
        let out = harness::run_sayso(&url, MODEL, &["--tools", "", "--json", "Hello"], None).await;
        assert_eq!(out.status, Some(0), "{out:?}");
        let events = out.json_events();
        let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(kinds.first(), Some(&"session_started"), "{out:?}");
        assert_eq!(events[0]["model"], MODEL);
        assert_eq!(
            &kinds[kinds.len() - 2..],
            ["turn_completed", "session_finished"],
            "{out:?}"
        );
        assert!(!kinds.contains(&"error"), "{out:?}");
        let streamed: String = events
            .iter()
            .filter(|e| e["type"] == "message_delta")
            .map(|e| e["text"].as_str().unwrap())
            .collect();
        let last = events.last().unwrap();
        assert_eq!(last["status"], "completed");
        assert_eq!(last["text"].as_str(), Some(streamed.as_str()), "{out:?}");
        let done = &events[events.len() - 2];
        assert_eq!(done["finish_reason"], "stop", "{out:?}");
        assert!(done["usage"]["prompt_tokens"].as_u64() > Some(0), "{done}");
        assert!(
            done["usage"]["completion_tokens"].as_u64() > Some(0),
            "{done}"
        );
        if !streamed.is_empty() {
            break;
        }
        empty += 1;
        assert!(empty < TEXT_TRIES, "no text in {TEXT_TRIES} runs: {out:?}");
    }
}
