//! What reading tool calls written as text costs on a 1 MiB reply: the streamed reply decoded
//! as `Client::stream_chat` does (SSE framing → chunks → assembly), with and without
//! `provider::text_calls::recognise` on the finished text. The goal (issue 21): ≤ 5 % more.
//!
//! The reply is generated deterministically: ~1 MiB of content deltas of a few words, prose
//! that mentions `<tool_call>`, `[TOOL_CALLS]`, `{` and fences now and then (each a place the
//! recogniser must try and reject), ending with a Hermes `<tool_call>`.
//!
//! Run: `cargo bench --bench text_calls`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sayso::provider::ToolSpec;
use sayso::provider::decode::ReplyDecoder;
use sayso::provider::text_calls::recognise;

const TARGET: usize = 1024 * 1024;
const PIECE: usize = 16 * 1024;

const WORDS: &[&str] = &[
    "the",
    "model",
    "writes",
    "a",
    "reply",
    "with",
    "some",
    "code",
    "and",
    "then",
    "calls",
    "`read_file`",
    "because",
    "it",
    "needs",
    "the",
    "file",
    "é",
    "\n",
];
const MENTIONS: &[&str] = &[
    "models write <tool_call> tags",
    "a [TOOL_CALLS] marker",
    "an object {\"name\": \"read_file\", \"arguments\": {}} in prose",
    "\n```json\n{\"a\": 1}\n```\n",
    "to=functions.read_file is harmony",
];

fn delta(out: &mut String, text: &str) {
    let piece = serde_json::to_string(text).expect("a string");
    out.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":");
    out.push_str(&piece);
    out.push_str("},\"finish_reason\":null}]}\n\n");
}

fn stream() -> Vec<u8> {
    let mut out = String::with_capacity(TARGET * 3);
    let (mut content, mut i) = (0, 0usize);
    while content < TARGET {
        let text = if i % 97 == 0 {
            MENTIONS[(i / 97) % MENTIONS.len()].to_owned()
        } else {
            format!("{} ", WORDS[i % WORDS.len()])
        };
        content += text.len();
        delta(&mut out, &text);
        i += 1;
    }
    delta(
        &mut out,
        "\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/main.rs\"}}\n</tool_call>",
    );
    out.push_str("data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n");
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

fn decode(bytes: &[u8]) -> String {
    let mut d = ReplyDecoder::new();
    let mut out = Vec::new();
    for piece in bytes.chunks(PIECE) {
        d.feed(piece, &mut out).expect("the stream decodes");
        black_box(&out);
        out.clear();
    }
    d.finish(&mut out).expect("the stream is complete").content
}

fn tools() -> Vec<ToolSpec> {
    ["read_file", "write_file", "run_command", "search"]
        .iter()
        .map(|n| ToolSpec {
            name: (*n).into(),
            description: String::new(),
            parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            strict: None,
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let bytes = stream();
    let tools = tools();
    let content = decode(&bytes);
    let found = recognise(&content, &tools).expect("the call at the end is recognised");
    assert_eq!(found.calls.len(), 1);
    eprintln!(
        "text_calls: stream of {} bytes, reply of {} bytes",
        bytes.len(),
        content.len()
    );
    let mut g = c.benchmark_group("text_calls");
    g.throughput(Throughput::Bytes(content.len() as u64));
    g.sample_size(30);
    g.bench_function(BenchmarkId::new("decode", "1MiB"), |b| {
        b.iter(|| black_box(decode(black_box(&bytes))))
    });
    g.bench_function(BenchmarkId::new("decode_and_recognise", "1MiB"), |b| {
        b.iter(|| {
            let content = decode(black_box(&bytes));
            black_box(recognise(&content, &tools))
        })
    });
    g.bench_function(BenchmarkId::new("recognise_only", "1MiB"), |b| {
        b.iter(|| black_box(recognise(black_box(&content), &tools)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
