//! Property: however a byte stream is split into network reads, the decoded reply is the same.

use proptest::prelude::*;
use sayso::provider::decode::ReplyDecoder;
use sayso::provider::{AssistantMessage, ProviderError, StreamDelta};
use serde_json::json;

use crate::support::fixture::sse;

/// A recorded stream with every feature: text, reasoning (field and think tags), two
/// interleaved tool calls, keep-alives, CRLF framing, multi-byte characters, usage, `[DONE]`.
fn recorded_stream() -> Vec<u8> {
    let mut s = Vec::new();
    s.extend(b": keep-alive\r\n\r\n");
    s.extend(sse::data(&sse::chunk(
        json!({"role": "assistant", "content": "<thi"}),
        None,
    )));
    s.extend(sse::data(&sse::chunk(
        json!({"content": "nk>plan ✓</think>\n"}),
        None,
    )));
    s.extend(sse::data(&sse::chunk(
        json!({"reasoning_content": "more ünïcode "}),
        None,
    )));
    s.extend(sse::data(&sse::chunk(json!({"content": "Voilà — "}), None)));
    s.extend(sse::data(&sse::chunk(json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "read_file", "arguments": "{\"pa"}}]}), None)));
    s.extend(sse::data(&sse::chunk(json!({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "ls", "arguments": "{"}}]}), None)));
    s.extend("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\\\"日本\\\"}\"}}]}}]}\r\n\r\n".as_bytes());
    s.extend(sse::data(&sse::chunk(
        json!({"tool_calls": [{"index": 1, "function": {"arguments": "}"}}]}),
        None,
    )));
    s.extend(sse::finish("tool_calls"));
    s.extend(sse::usage(100, 20));
    s.extend(sse::done());
    s
}

fn decode(
    bytes: &[u8],
    cuts: &[usize],
) -> (Result<AssistantMessage, ProviderError>, Vec<StreamDelta>) {
    let mut d = ReplyDecoder::new();
    let mut deltas = Vec::new();
    let mut start = 0;
    for &cut in cuts.iter().chain(std::iter::once(&bytes.len())) {
        let cut = cut.clamp(start, bytes.len());
        if let Err(e) = d.feed(&bytes[start..cut], &mut deltas) {
            return (Err(e), deltas);
        }
        start = cut;
    }
    let result = d.finish(&mut deltas);
    (result, deltas)
}

/// Deltas with adjacent text/reasoning pieces merged: a split may cut a delta in two only
/// inside held-back think tags, never change what is said.
fn normalised(deltas: Vec<StreamDelta>) -> Vec<StreamDelta> {
    let mut out: Vec<StreamDelta> = Vec::new();
    for d in deltas {
        match (out.last_mut(), d) {
            (Some(StreamDelta::Text(a)), StreamDelta::Text(b)) => a.push_str(&b),
            (Some(StreamDelta::Reasoning(a)), StreamDelta::Reasoning(b)) => a.push_str(&b),
            (_, d) => out.push(d),
        }
    }
    out
}

#[test]
fn the_recorded_stream_decodes_as_expected() {
    let bytes = recorded_stream();
    let (m, _) = decode(&bytes, &[]);
    let m = m.unwrap();
    assert_eq!(m.content, "Voilà — ");
    assert_eq!(m.reasoning, "plan ✓more ünïcode ");
    assert_eq!(m.tool_calls.len(), 2);
    assert_eq!(m.tool_calls[0].arguments, "{\"path\":\"日本\"}");
    assert_eq!(m.tool_calls[1].arguments, "{}");
    assert_eq!(m.usage.unwrap().total_tokens, Some(120));
}

proptest! {
    #[test]
    fn any_split_gives_the_same_message(mut cuts in proptest::collection::vec(0usize..2000, 0..40)) {
        let bytes = recorded_stream();
        cuts.sort_unstable();
        let (whole, whole_deltas) = decode(&bytes, &[]);
        let (split, split_deltas) = decode(&bytes, &cuts);
        prop_assert_eq!(whole.unwrap(), split.unwrap());
        prop_assert_eq!(normalised(whole_deltas), normalised(split_deltas));
    }

    #[test]
    fn every_single_byte_split_point(cut in 0usize..2000) {
        let bytes = recorded_stream();
        let (whole, _) = decode(&bytes, &[]);
        let (split, _) = decode(&bytes, &[cut]);
        prop_assert_eq!(whole.unwrap(), split.unwrap());
    }
}
