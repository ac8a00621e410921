//! Every server quirk of SPEC §8.2, streamed over real TCP and assembled by the real client.

use pretty_assertions::assert_eq;
use sayso::provider::{ProviderError, StreamDelta, StreamEvent};
use serde_json::json;

use crate::engine_support::call;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::{client, collect, user_request};

fn bytes(parts: &[&str]) -> Vec<Step> {
    parts
        .iter()
        .map(|p| Step::Bytes(p.as_bytes().to_vec()))
        .collect()
}

async fn assemble(steps: Vec<Step>) -> Result<sayso::provider::AssistantMessage, ProviderError> {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(steps));
    collect(&client(&fx.base_url()), &user_request("q")).await.1
}

#[tokio::test]
async fn chunks_without_id_created_or_model_and_odd_finish_reasons() {
    let m = assemble(bytes(&[
        "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":null},\"finish_reason\":null}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"},\"finish_reason\":\"\"}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n",
    ]))
    .await
    .unwrap();
    assert_eq!(m.content, "Hello");
    assert_eq!(m.finish_reason.as_deref(), Some("stop"));
}

#[tokio::test]
async fn tool_call_deltas_without_index() {
    let m = assemble(bytes(&[
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"\\\"x\\\"}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"b\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n",
    ]))
    .await
    .unwrap();
    assert_eq!(
        m.tool_calls,
        [
            call("a", "read_file", r#"{"path":"x"}"#),
            call("b", "ls", "{}")
        ]
    );
}

#[tokio::test]
async fn tool_call_deltas_with_index_always_zero() {
    let m = assemble(bytes(&[
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{\\\"n\\\":1}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{\\\"n\\\"\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\":2}\"}}]}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    ]))
    .await
    .unwrap();
    assert_eq!(
        m.tool_calls,
        [call("a", "f", r#"{"n":1}"#), call("b", "g", r#"{"n":2}"#)]
    );
}

#[tokio::test]
async fn llama_cpp_shape_one_character_arguments_and_repeated_names() {
    let mut steps = vec![Step::Bytes(sse::data(&sse::chunk(
        json!({"tool_calls": [{"index": 0, "id": "qrNKuTedm7fysaebQRjRkviU1a6pp5yK", "type": "function", "function": {"name": "get_weather", "arguments": "{"}}]}),
        None,
    )))];
    for c in "\"city\"\n  :\"Paris\"}".chars() {
        steps.push(Step::Bytes(sse::data(&sse::chunk(
            json!({"tool_calls": [{"index": 0, "function": {"name": "get_weather", "arguments": c.to_string()}}]}),
            None,
        ))));
    }
    steps.push(Step::Bytes(sse::finish("tool_calls")));
    steps.push(Step::Bytes(sse::usage(561, 81)));
    steps.push(Step::Bytes(sse::done()));
    let m = assemble(steps).await.unwrap();
    assert_eq!(
        m.tool_calls,
        [call(
            "qrNKuTedm7fysaebQRjRkviU1a6pp5yK",
            "get_weather",
            "{\"city\"\n  :\"Paris\"}"
        )]
    );
    assert_eq!(m.usage.unwrap().prompt_tokens, Some(561));
}

#[tokio::test]
async fn reasoning_content_field_and_think_tags_split_across_chunks() {
    let m = assemble(bytes(&[
        "data: {\"choices\":[{\"delta\":{\"reasoning_content\":\"first \"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"<thi\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"nk>second</th\"}}]}\n\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"ink>\\n\\nAnswer\"},\"finish_reason\":\"stop\"}]}\n\n",
    ]))
    .await
    .unwrap();
    assert_eq!(m.reasoning, "first second");
    assert_eq!(m.content, "Answer");
}

#[tokio::test]
async fn usage_only_final_chunk_keep_alives_and_crlf_framing() {
    let m = assemble(bytes(&[
        ": keep-alive\r\n\r\n",
        "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}],\"usage\":null}\r\n\r\n",
        ": ping\n\n",
        "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}],\"usage\":null}\r\n\r\n",
        "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4}}\r\n\r\n",
        "data: [DONE]\r\n\r\n",
    ]))
    .await
    .unwrap();
    assert_eq!(m.content, "a");
    assert_eq!(m.usage.unwrap().total_tokens, Some(4));
}

#[tokio::test]
async fn stream_ending_after_finish_reason_without_done_is_complete() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(bytes(&[
        "data: {\"choices\":[{\"delta\":{\"content\":\"whole\"},\"finish_reason\":\"stop\"}]}\n\n",
    ])));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "whole");
    assert!(!events.iter().any(|e| matches!(e, StreamEvent::Retrying(_))));
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn in_stream_error_event_is_reported_with_its_message() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(bytes(&[
        "data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n",
        "data: {\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\",\"code\":400}}\n\n",
    ])));
    let (_, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    let e = result.unwrap_err();
    // A context overflow in the stream is recognised as one (and not retried).
    assert_eq!(
        e.to_string(),
        "the request does not fit the model's context window: This model's maximum context length is 8192 tokens"
    );
    assert_eq!(
        fx.requests().len(),
        1,
        "a 4xx in-stream error is not retried"
    );
}

#[tokio::test]
async fn finish_reason_length_is_reported() {
    let m = assemble(
        sse::text_reply(&["cut "])
            .into_iter()
            .map(|s| match s {
                Step::Bytes(b) if b == sse::finish("stop") => Step::Bytes(sse::finish("length")),
                other => other,
            })
            .collect(),
    )
    .await
    .unwrap();
    assert!(m.hit_length_limit());
}

#[tokio::test]
async fn deltas_arrive_in_order_as_they_stream() {
    let fx = Fixture::start().await;
    // Odd 7-byte writes with pauses between them: pieces straddle both SSE events and reads.
    let steps = sse::rechunk(sse::text_reply(&["one ", "two ", "three"]), 7)
        .into_iter()
        .flat_map(|s| [s, Step::Sleep(std::time::Duration::from_millis(1))])
        .collect();
    fx.push(Reply::Stream(steps));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    let texts: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Delta(StreamDelta::Text(t)) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(texts, ["one ", "two ", "three"]);
    assert_eq!(result.unwrap().content, "one two three");
}

/// A short reply whose first attempt has `corrupt` in place of step `at` of
/// `sse::text_reply(&["Hello ", "world"])` (0 role, 1–2 text, 3 finish, 4 usage, 5 `[DONE]`);
/// the retry sends it whole. The events of the stream and its result.
async fn corrupted_then_whole(at: usize, corrupt: &str) -> (Vec<StreamEvent>, String) {
    let fx = Fixture::start().await;
    let mut first = sse::text_reply(&["Hello ", "world"]);
    first[at] = Step::Bytes(corrupt.as_bytes().to_vec());
    fx.push(Reply::Stream(first));
    fx.push(Reply::Stream(sse::text_reply(&["Hello ", "world"])));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert_eq!(
        fx.requests().len(),
        2,
        "the corrupted attempt was not retried"
    );
    (events, result.expect("the retry succeeds").content)
}

fn dropped_retries(events: &[StreamEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying(sayso::provider::Retry {
                error: e @ ProviderError::Dropped(_),
                ..
            }) => Some(e.to_string()),
            StreamEvent::Retrying(sayso::provider::Retry { error, .. }) => {
                panic!("not a dropped stream: {error:?}")
            }
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_corrupted_last_content_chunk_is_retried_not_skipped() {
    // LLMock's "malformed" fault: the JSON cut in half, the framing kept.
    let (events, text) = corrupted_then_whole(
        2,
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"wor\n\n",
    )
    .await;
    assert_eq!(text, "Hello world");
    assert_eq!(
        dropped_retries(&events),
        [
            "the stream stopped before the reply was complete (a chunk arrived corrupted: EOF while parsing a string at line 1 column 97)"
        ]
    );
}

#[tokio::test]
async fn a_corrupted_finish_chunk_is_retried() {
    let (events, text) = corrupted_then_whole(
        3,
        "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_re\n\n",
    )
    .await;
    assert_eq!(text, "Hello world");
    assert_eq!(dropped_retries(&events).len(), 1);
}

#[tokio::test]
async fn a_corrupted_done_is_retried() {
    let (events, text) = corrupted_then_whole(5, "data: [DO\n\n").await;
    assert_eq!(text, "Hello world");
    assert_eq!(dropped_retries(&events).len(), 1);
}

#[tokio::test]
async fn a_chunk_that_lost_its_head_is_retried_not_skipped() {
    // The tail of a content chunk: not JSON, but not a status line either. Skipping it would
    // show "Hello " as the whole reply.
    let (events, text) =
        corrupted_then_whole(2, "data: ntent\":\"world\"},\"finish_reason\":null}]}\n\n").await;
    assert_eq!(text, "Hello world");
    assert_eq!(dropped_retries(&events).len(), 1);
}
