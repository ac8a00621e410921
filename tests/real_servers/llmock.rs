//! LLMock: scripted faults against sayso's retry and stream-end logic, each test graded by
//! LLMock's own verdict. Needs `SAYSO_TEST_LLMOCK_URL`.
//!
//! Every test uses its own prompt: LLMock groups attempts into calls by a hash of the request
//! body, so equal bodies across scenarios could be mistaken for retries of each other.

use std::time::Duration;

use pretty_assertions::assert_eq;
use sayso::provider::{ChatMessage, ChatRequest, ProviderError, ToolSpec};
use serde_json::{Value, json};

use crate::harness::{self, LLMOCK_URL, Run};
use crate::llmock_control::Mock;

const MODEL: &str = "gpt-4o";
const TEXT: &str = "The quick brown fox jumps over the lazy dog.";
fn ask(prompt: &str) -> ChatRequest {
    ChatRequest::new(
        MODEL,
        vec![ChatMessage::User {
            content: prompt.into(),
            images: Vec::new(),
        }],
    )
}

fn reply(text: &str, times: u32) -> Value {
    json!({"type": "reply", "text": text, "times": times})
}

/// The scripted reply arrived whole, and exactly as scripted.
fn assert_complete(run: &Run, text: &str) {
    let m = run.message();
    assert_eq!(m.content, text);
    assert_eq!(m.finish_reason.as_deref(), Some("stop"));
    assert!(
        m.usage.is_some_and(|u| u.completion_tokens > Some(0)),
        "{m:#?}"
    );
}

/// A tool `name` taking one string argument `arg`.
fn tool(name: &str, arg: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("{name} by {arg}"),
        parameters: json!({
            "type": "object",
            "properties": {arg: {"type": "string"}},
            "required": [arg]
        }),
        strict: None,
    }
}

#[tokio::test]
async fn llmock_happy_path_text() {
    let url = require_url!(LLMOCK_URL, "llmock_happy_path_text");
    let mock = Mock::take(&url).await;
    mock.script(json!([reply(TEXT, 1)])).await;
    let run = harness::stream(&mock.client(), &ask("happy path, scripted")).await;
    assert!(run.retries.is_empty(), "{:?}", run.retries);
    assert_complete(&run, TEXT);

    // Unscripted: LLMock's own generated text.
    let run = harness::stream(&mock.client(), &ask("happy path, unscripted")).await;
    assert!(run.retries.is_empty(), "{:?}", run.retries);
    assert!(!run.message().content.is_empty());
    assert_eq!(run.message().finish_reason.as_deref(), Some("stop"));

    // What the server received: a streamed request asking for usage, with our message.
    let attempts = mock.attempts().await;
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    let first = &attempts[0];
    assert_eq!(first["status"], 200);
    assert_eq!(first["completed"], true);
    assert_eq!(first["stream"], true);
    assert_eq!(first["model"], MODEL);
    let body = &first["body"];
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"]["include_usage"], true);
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": "happy path, scripted"}])
    );
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_429_waits_for_retry_after() {
    let url = require_url!(LLMOCK_URL, "llmock_429_waits_for_retry_after");
    let mock = Mock::take(&url).await;
    // A failing request leaves the rest of the queue for the next one: the retry gets TEXT.
    mock.script(json!([
        {"type": "fail", "status": 429, "retry_after": 1},
        reply(TEXT, 1),
    ]))
    .await;
    let run = harness::stream(&mock.client(), &ask("rate limited")).await;
    assert_complete(&run, TEXT);
    assert_eq!(run.retries.len(), 1, "{:?}", run.retries);
    let r = &run.retries[0];
    // LLMock sends `retry-after: 1` and `retry-after-ms: 1000`; it beats the 50 ms backoff.
    assert_eq!(r.delay, Duration::from_secs(1), "{r:?}");
    match &r.error {
        ProviderError::Status {
            status: 429,
            message,
            retry_after: Some(d),
        } => {
            assert_eq!(*d, Duration::from_secs(1));
            assert!(message.contains("Rate limit exceeded"), "{message}");
        }
        other => panic!("expected a 429, got {other:?}"),
    }
    assert!(run.elapsed >= Duration::from_secs(1), "{:?}", run.elapsed);
    assert_eq!(mock.statuses().await, [429, 200]);
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_500_is_retried_with_backoff() {
    let url = require_url!(LLMOCK_URL, "llmock_500_is_retried_with_backoff");
    let mock = Mock::take(&url).await;
    mock.script(json!([
        {"type": "fail", "status": 500, "times": 2},
        reply(TEXT, 1),
    ]))
    .await;
    let run = harness::stream(&mock.client(), &ask("server error")).await;
    assert_complete(&run, TEXT);
    let delays: Vec<_> = run.retries.iter().map(|r| r.delay).collect();
    assert_eq!(
        delays,
        [Duration::from_millis(50), Duration::from_millis(100)]
    );
    for r in &run.retries {
        assert!(
            matches!(&r.error, ProviderError::Status { status: 500, message, retry_after: None }
                if message.contains("Internal server error")),
            "{r:?}"
        );
    }
    assert_eq!(mock.statuses().await, [500, 500, 200]);
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_400_is_not_retried() {
    let url = require_url!(LLMOCK_URL, "llmock_400_is_not_retried");
    let mock = Mock::take(&url).await;
    mock.script(json!([
        {"type": "fail", "status": 400, "message": "messages[0] is not valid"},
        reply(TEXT, 1),
    ]))
    .await;
    let run = harness::stream(&mock.client(), &ask("bad request")).await;
    assert!(run.retries.is_empty(), "{:?}", run.retries);
    match run.error() {
        ProviderError::Status {
            status: 400,
            message,
            ..
        } => assert!(message.contains("messages[0] is not valid"), "{message}"),
        other => panic!("expected a 400, got {other:?}"),
    }
    assert_eq!(mock.statuses().await, [400]);
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_disconnect_mid_stream_is_retried() {
    let url = require_url!(LLMOCK_URL, "llmock_disconnect_mid_stream_is_retried");
    let mock = Mock::take(&url).await;
    // The fault and the reply both apply to the first attempt; the retry gets the reply again.
    mock.script(json!([
        {"type": "stream_fault", "kind": "disconnect", "after_chunks": 3},
        reply(TEXT, 2),
    ]))
    .await;
    let run = harness::stream(&mock.client(), &ask("disconnect")).await;
    assert_complete(&run, TEXT);
    assert_eq!(run.retries.len(), 1, "{:?}", run.retries);
    assert!(
        matches!(run.retries[0].error, ProviderError::Dropped(_)),
        "{:?}",
        run.retries[0]
    );
    let attempts = mock.attempts().await;
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    assert!(
        attempts[0]["fault"]
            .as_str()
            .unwrap()
            .starts_with("stream:disconnect")
    );
    assert_eq!(attempts[0]["completed"], false);
    assert_eq!(attempts[1]["completed"], true);
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_truncated_stream_is_retried() {
    let url = require_url!(LLMOCK_URL, "llmock_truncated_stream_is_retried");
    let mock = Mock::take(&url).await;
    // A clean end of the HTTP body with no finish_reason and no [DONE].
    mock.script(json!([
        {"type": "stream_fault", "kind": "truncate", "after_chunks": 3},
        reply(TEXT, 2),
    ]))
    .await;
    let run = harness::stream(&mock.client(), &ask("truncate")).await;
    assert_complete(&run, TEXT);
    assert_eq!(run.retries.len(), 1, "{:?}", run.retries);
    assert!(
        matches!(&run.retries[0].error, ProviderError::Dropped(why) if why.contains("finish_reason")),
        "{:?}",
        run.retries[0]
    );
    let attempts = mock.attempts().await;
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    assert!(
        attempts[0]["fault"]
            .as_str()
            .unwrap()
            .starts_with("stream:truncate")
    );
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_stall_hits_the_idle_timeout() {
    let url = require_url!(LLMOCK_URL, "llmock_stall_hits_the_idle_timeout");
    let mock = Mock::take(&url).await;
    let stall = 3.0;
    mock.script(json!([
        {"type": "stream_fault", "kind": "stall", "after_chunks": 2, "stall_seconds": stall},
        reply(TEXT, 2),
    ]))
    .await;
    let idle = Duration::from_secs(1);
    let client = harness::client_with_idle(&url, idle);
    let run = harness::stream(&client, &ask("stall")).await;
    assert_complete(&run, TEXT);
    assert_eq!(run.retries.len(), 1, "{:?}", run.retries);
    let r = &run.retries[0];
    assert_eq!(r.error, ProviderError::IdleTimeout(idle), "{r:?}");
    assert!(r.at >= idle, "gave up before the idle timeout: {r:?}");
    // It did not sit through the stall.
    assert!(
        run.elapsed < Duration::from_secs_f64(stall),
        "{:?}",
        run.elapsed
    );
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_malformed_chunk_does_not_break_the_reply() {
    let url = require_url!(
        LLMOCK_URL,
        "llmock_malformed_chunk_does_not_break_the_reply"
    );
    let mock = Mock::take(&url).await;
    // LLMock cuts the JSON of the 3rd event (the content "quick ") in half.
    mock.script(json!([
        {"type": "stream_fault", "kind": "malformed", "after_chunks": 2},
        reply(TEXT, 2),
    ]))
    .await;
    // LLMock counts a request as a retry only once the failed stream has ended; give it time.
    let client = harness::client_with_retry_delay(&url, std::time::Duration::from_millis(1000));
    let run = harness::stream(&client, &ask("malformed")).await;
    let m = run.message();
    assert_eq!(m.finish_reason.as_deref(), Some("stop"), "{m:#?}");
    // The corrupted event's text cannot be recovered, so sayso drops the attempt and retries
    // rather than show a reply with a word missing.
    assert_eq!(run.retries.len(), 1, "{:?}", run.retries);
    assert!(
        matches!(run.retries[0].error, ProviderError::Dropped(_)),
        "{:?}",
        run.retries
    );
    assert_complete(&run, TEXT);
    mock.assert_verdict_after_retried_fault("malformed_chunk_ignored")
        .await;
}

#[tokio::test]
async fn llmock_malformed_chunk_in_a_generated_reply_is_retried() {
    let url = require_url!(
        LLMOCK_URL,
        "llmock_malformed_chunk_in_a_generated_reply_is_retried"
    );
    let mock = Mock::take(&url).await;
    // LLMock's own short reply (response style `varied`), its 3rd event cut in half.
    mock.script(json!([
        {"type": "stream_fault", "kind": "malformed", "after_chunks": 2},
    ]))
    .await;
    let client = harness::client_with_retry_delay(&url, std::time::Duration::from_millis(1000));
    let run = harness::stream(&client, &ask("malformed, generated")).await;
    assert_eq!(run.retries.len(), 1, "{:?}", run.retries);
    assert!(
        matches!(run.retries[0].error, ProviderError::Dropped(_)),
        "{:?}",
        run.retries
    );
    // The reply is the whole one: the same request without a fault gets the same text.
    let whole = harness::stream(&client, &ask("malformed, generated")).await;
    assert!(whole.retries.is_empty(), "{:?}", whole.retries);
    assert_eq!(run.message().content, whole.message().content);
    assert_eq!(run.message().finish_reason.as_deref(), Some("stop"));
    mock.assert_verdict_after_retried_fault("malformed_chunk_ignored")
        .await;
}

#[tokio::test]
async fn llmock_two_scripted_tool_calls_round_trip() {
    let url = require_url!(LLMOCK_URL, "llmock_two_scripted_tool_calls_round_trip");
    let mock = Mock::take(&url).await;
    mock.script(json!([{"type": "reply", "tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Paris"}},
        {"name": "get_time", "arguments": {"tz": "Europe/Paris"}},
    ]}]))
    .await;
    let mut req = ask("weather and time in Paris");
    req.tools = vec![tool("get_weather", "city"), tool("get_time", "tz")];
    let run = harness::stream(&mock.client(), &req).await;
    assert!(run.retries.is_empty(), "{:?}", run.retries);
    let m = run.message().clone();
    assert_eq!(m.finish_reason.as_deref(), Some("tool_calls"));
    let calls: Vec<(&str, Value)> = m
        .tool_calls
        .iter()
        .map(|c| {
            let args = serde_json::from_str(&c.arguments)
                .unwrap_or_else(|e| panic!("arguments are not JSON ({e}): {c:?}"));
            (c.name.as_str(), args)
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("get_weather", json!({"city": "Paris"})),
            ("get_time", json!({"tz": "Europe/Paris"}))
        ]
    );
    assert!(
        m.tool_calls.iter().all(|c| c.id.starts_with("call_")),
        "{m:#?}"
    );
    assert_ne!(m.tool_calls[0].id, m.tool_calls[1].id);

    // Turn 2: send the calls and their results back; LLMock answers a tool result with text.
    req.messages.push(ChatMessage::Assistant {
        content: m.content.clone(),
        tool_calls: m.tool_calls.clone(),
        reasoning: m.kept_reasoning(),
    });
    for c in &m.tool_calls {
        req.messages.push(ChatMessage::Tool {
            tool_call_id: c.id.clone(),
            content: format!("result of {}", c.name),
        });
    }
    let run = harness::stream(&mock.client(), &req).await;
    let answer = run.message();
    assert!(answer.tool_calls.is_empty(), "{answer:#?}");
    assert!(!answer.content.is_empty(), "{answer:#?}");

    // The server received the history in OpenAI's shape, ids matching.
    let attempts = mock.attempts().await;
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    let sent = &attempts[1]["body"]["messages"];
    let ids: Vec<&str> = m.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(sent[1]["role"], "assistant", "{sent:#}");
    assert_eq!(sent[1]["tool_calls"][0]["id"], ids[0], "{sent:#}");
    assert_eq!(
        sent[1]["tool_calls"][1]["function"]["name"], "get_time",
        "{sent:#}"
    );
    assert_eq!(
        sent[2],
        json!({"role": "tool", "tool_call_id": ids[0], "content": "result of get_weather"})
    );
    assert_eq!(
        sent[3],
        json!({"role": "tool", "tool_call_id": ids[1], "content": "result of get_time"})
    );
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_malformed_tool_arguments_are_passed_on() {
    let url = require_url!(LLMOCK_URL, "llmock_malformed_tool_arguments_are_passed_on");
    let mock = Mock::take(&url).await;
    mock.script(json!([{"type": "tool_fault", "kind": "malformed_arguments"}]))
        .await;
    let mut req = ask("broken tool call");
    req.tools = vec![tool("get_weather", "city")];
    let run = harness::stream(&mock.client(), &req).await;
    // The stream itself is well-formed: the reply completes, and the broken arguments reach
    // the caller verbatim (the agent loop must report them to the model, not crash).
    let m = run.message();
    assert_eq!(m.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(m.tool_calls.len(), 1, "{m:#?}");
    assert_eq!(m.tool_calls[0].name, "get_weather");
    assert_eq!(m.tool_calls[0].arguments, "{\"city\": \"");
    assert!(serde_json::from_str::<Value>(&m.tool_calls[0].arguments).is_err());
    mock.assert_verdict(&[]).await;
}

/// The binary's own config for these runs: fast backoff, so a retry does not wait 1 s; the
/// window given, so that no probe for it takes one of the mock's scripted answers.
const FAST_RETRIES: &str =
    "[provider]\nretry_initial_delay_ms = 50\nretry_max_delay_ms = 400\ncontext_window = 128000\n";

#[tokio::test]
async fn llmock_headless_binary_retries() {
    let url = require_url!(LLMOCK_URL, "llmock_headless_binary_retries");
    let mock = Mock::take(&url).await;

    // Text mode, a 429: a readable retry line on stderr, the reply once on stdout.
    mock.script(json!([
        {"type": "fail", "status": 429, "retry_after": 1},
        reply(TEXT, 1),
    ]))
    .await;
    let out = harness::run_sayso(&url, MODEL, &["binary, rate limited"], Some(FAST_RETRIES)).await;
    assert_eq!(out.status, Some(0), "{out:?}");
    assert_eq!(out.stdout, format!("{TEXT}\n"), "{out:?}");
    assert!(out.stderr.contains("429"), "{out:?}");
    assert!(out.stderr.contains("retrying in 1 s (1/4)"), "{out:?}");

    // JSON mode, a disconnect mid-stream: an error event that will be retried and tells the
    // reader to discard the partial text, then the whole reply.
    mock.script(json!([
        {"type": "stream_fault", "kind": "disconnect", "after_chunks": 4},
        reply(TEXT, 2),
    ]))
    .await;
    let out = harness::run_sayso(
        &url,
        MODEL,
        &["--json", "binary, disconnect"],
        Some(FAST_RETRIES),
    )
    .await;
    assert_eq!(out.status, Some(0), "{out:?}");
    let events = out.json_events();
    let retry_at = events
        .iter()
        .position(|e| e["type"] == "error")
        .unwrap_or_else(|| panic!("no retry event: {out:?}"));
    let retry = &events[retry_at];
    assert_eq!(retry["will_retry"], true, "{retry}");
    assert_eq!(retry["discard_partial"], true, "{retry}");
    assert_eq!(retry["delay_ms"], 50, "{retry}");
    let partial: String = events[..retry_at]
        .iter()
        .filter(|e| e["type"] == "message_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(!partial.is_empty() && TEXT.starts_with(&partial), "{out:?}");
    let after: String = events[retry_at..]
        .iter()
        .filter(|e| e["type"] == "message_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(after, TEXT, "{out:?}");
    let last = events.last().unwrap();
    assert_eq!(last["type"], "session_finished");
    assert_eq!(last["status"], "completed");
    assert_eq!(last["text"], TEXT);

    // Text mode, a 500 every time: the retries run out, exit status 1 and a clear error.
    mock.script(json!([{"type": "fail", "status": 500, "times": null}]))
        .await;
    let out =
        harness::run_sayso(&url, MODEL, &["binary, always failing"], Some(FAST_RETRIES)).await;
    assert_eq!(out.status, Some(1), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    assert!(out.stderr.contains("retrying in 400 ms (4/4)"), "{out:?}");
    assert!(
        out.stderr.contains("sayso: error: the server answered 500"),
        "{out:?}"
    );
    let statuses = mock.statuses().await;
    // 429, 200 | 200 after a disconnect (200) | five 500s.
    assert_eq!(statuses, [429, 200, 200, 200, 500, 500, 500, 500, 500]);
    mock.assert_verdict(&[]).await;
}
