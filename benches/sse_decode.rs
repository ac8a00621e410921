//! Throughput of the streamed-reply decoding pipeline (SSE framing → lenient JSON chunks →
//! delta assembly) on a ~10 MB recorded-style chat-completions stream. See BENCHMARKS.md.
//!
//! The stream is generated deterministically here (no 10 MB fixture in the repository): OpenAI
//! shaped `data: {...}` chunks with id/object/created/model/system_fingerprint, a role chunk, a
//! phase of `reasoning_content` deltas, mostly small `content` deltas (1–6 words, with the
//! occasional newline, quote and non-ASCII character), a few streamed tool calls with argument
//! fragments, `: ping` keep-alives, a finish chunk, a usage chunk and `data: [DONE]`.
//!
//! Run: `cargo bench --bench sse_decode`.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use sayso::provider::chunk::Chunk;
use sayso::provider::decode::ReplyDecoder;
use sayso::provider::sse::SseDecoder;

/// Size of the pieces the bytes are fed in, as a socket read would deliver them.
const PIECE: usize = 16 * 1024;
/// Target size of the generated stream.
const TARGET: usize = 10 * 1024 * 1024;

/// A small deterministic PRNG (xorshift64*), so every run decodes the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "that",
    "for",
    "it",
    "with",
    "as",
    "on",
    "this",
    "function",
    "returns",
    "value",
    "error",
    "file",
    "stream",
    "buffer",
    "request",
    "server",
    "client",
    "model",
    "token",
    "should",
    "could",
    "would",
    "because",
    "therefore",
    "however",
    "`Vec<u8>`",
    "`String`",
    "`async`",
    "`await`",
    "crate",
    "module",
    "test",
    "config",
    "line",
    "byte",
    "chunk",
    "parse",
    "decode",
    "write",
    "read",
    "call",
    "result",
    "option",
    "café",
    "naïve",
    "über",
    "→",
    "✓",
    "日本語",
    "🙂",
    "x",
    "y",
    "n",
    "i",
    "0",
    "1",
    "42",
    "3.14",
];

/// Appends a JSON string literal of `s` (with the escapes a server would send).
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A 1–6 word text fragment, as a tokenizer-sized content delta would be.
fn words(rng: &mut Rng) -> String {
    let n = 1 + rng.below(6);
    let mut s = String::new();
    for _ in 0..n {
        match rng.below(40) {
            0 => s.push_str("\n\n"),
            1 => s.push('\n'),
            2 => s.push_str(" \"quoted\""),
            3 => s.push_str(" C:\\path"),
            4 => s.push_str(".\n- "),
            _ => {
                s.push(' ');
                s.push_str(WORDS[rng.below(WORDS.len())]);
            }
        }
    }
    s
}

struct Gen {
    rng: Rng,
    out: String,
    chunks: usize,
}

impl Gen {
    /// One `data:` line of a `chat.completion.chunk` with the given `choices` JSON.
    fn chunk(&mut self, choices: &str) {
        let _ = write!(
            self.out,
            "data: {{\"id\":\"chatcmpl-AbCdEf0123456789GhIjKlMnOpQr\",\"object\":\"chat.completion.chunk\",\
             \"created\":1764460800,\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_7f6be3efb0\",\
             \"choices\":{choices}}}\n\n"
        );
        self.chunks += 1;
        if self.chunks.is_multiple_of(400) {
            self.out.push_str(": ping\n\n");
        }
    }

    fn delta(&mut self, field: &str, text: &str) {
        let mut choices = String::with_capacity(96);
        let _ = write!(choices, "[{{\"index\":0,\"delta\":{{\"{field}\":");
        push_json_str(&mut choices, text);
        choices.push_str("},\"logprobs\":null,\"finish_reason\":null}]");
        self.chunk(&choices);
    }

    fn tool_call(&mut self, index: usize, name: &str, fragments: usize) {
        self.chunk(&format!(
            "[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"id\":\"call_{index:0>4}xYzAbCdEfGhIjKlMnOp\",\
             \"type\":\"function\",\"function\":{{\"name\":\"{name}\",\"arguments\":\"\"}}}}]}},\
             \"logprobs\":null,\"finish_reason\":null}}]"
        ));
        let mut args = String::from("{\"path\": \"src/provider/decode.rs\", \"content\": \"");
        while args.len() < fragments * 6 {
            args.push_str(&words(&mut self.rng).replace('\n', "\\n").replace('"', "'"));
        }
        args.push_str("\"}");
        // Fragments of 1–12 bytes on char boundaries, as servers stream them.
        let mut rest = args.as_str();
        while !rest.is_empty() {
            let mut end = (1 + self.rng.below(12)).min(rest.len());
            while !rest.is_char_boundary(end) {
                end += 1;
            }
            let (frag, tail) = rest.split_at(end);
            rest = tail;
            let mut choices = String::with_capacity(128);
            let _ = write!(
                choices,
                "[{{\"index\":0,\"delta\":{{\"tool_calls\":[{{\"index\":{index},\"function\":{{\"arguments\":"
            );
            push_json_str(&mut choices, frag);
            choices.push_str("}}]},\"logprobs\":null,\"finish_reason\":null}]");
            self.chunk(&choices);
        }
    }
}

/// The deterministic ~10 MB stream.
fn recorded_stream() -> Vec<u8> {
    let mut g = Gen {
        rng: Rng(0x5EED_CAFE_F00D_BEEF),
        out: String::with_capacity(TARGET + 64 * 1024),
        chunks: 0,
    };
    g.chunk(
        "[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null},\
         \"logprobs\":null,\"finish_reason\":null}]",
    );
    // Reasoning first (~15 %), then the answer; tool calls in the last ~5 %.
    while g.out.len() < TARGET * 15 / 100 {
        let w = words(&mut g.rng);
        g.delta("reasoning_content", &w);
    }
    while g.out.len() < TARGET * 95 / 100 {
        let w = words(&mut g.rng);
        g.delta("content", &w);
    }
    let names = ["read_file", "write_file", "run_command", "search"];
    let mut index = 0;
    while g.out.len() < TARGET {
        g.tool_call(index, names[index % names.len()], 800);
        index += 1;
    }
    g.chunk("[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"tool_calls\"}]");
    g.out.push_str(
        "data: {\"id\":\"chatcmpl-AbCdEf0123456789GhIjKlMnOpQr\",\"object\":\"chat.completion.chunk\",\
         \"created\":1764460800,\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_7f6be3efb0\",\
         \"choices\":[],\"usage\":{\"prompt_tokens\":1234,\"completion_tokens\":987654,\"total_tokens\":988888,\
         \"prompt_tokens_details\":{\"cached_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":150000}}}\n\n",
    );
    g.out.push_str("data: [DONE]\n\n");
    g.out.into_bytes()
}

/// Feeds the whole stream in `PIECE`-sized pieces, draining the deltas after each piece as the
/// client does, and returns the assembled reply's sizes.
fn decode(bytes: &[u8]) -> (usize, usize, usize) {
    let mut d = ReplyDecoder::new();
    let mut out = Vec::new();
    for piece in bytes.chunks(PIECE) {
        d.feed(piece, &mut out).expect("the stream decodes");
        black_box(&out);
        out.clear();
    }
    let m = d.finish(&mut out).expect("the stream is complete");
    (m.content.len(), m.reasoning.len(), m.tool_calls.len())
}

fn bench(c: &mut Criterion) {
    let bytes = recorded_stream();
    let (content, reasoning, calls) = decode(&bytes);
    assert!(
        content > 0 && reasoning > 0 && calls >= 2,
        "the generated stream looks wrong"
    );
    let events = bytes.windows(6).filter(|w| w == b"data: ").count();
    eprintln!(
        "sse_decode: stream of {} bytes in {events} events; reply has {content} bytes of content, \
         {reasoning} of reasoning, {calls} tool calls",
        bytes.len()
    );

    let mut g = c.benchmark_group("sse_decode");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.sample_size(20);

    // The goal: the whole pipeline as `Client::stream_chat` runs it.
    g.bench_function(BenchmarkId::new("reply_decoder", "16KiB_pieces"), |b| {
        b.iter(|| black_box(decode(black_box(&bytes))))
    });

    // Breakdown, to see where the time goes.
    g.bench_function(BenchmarkId::new("sse_framing_only", "16KiB_pieces"), |b| {
        b.iter(|| {
            let mut sse = SseDecoder::new();
            let mut events = Vec::new();
            let mut n = 0;
            for piece in black_box(&bytes).chunks(PIECE) {
                sse.feed(piece, &mut events);
                n += events.len();
                events.clear();
            }
            sse.finish(&mut events);
            black_box(n + events.len())
        })
    });

    let payloads: Vec<String> = {
        let mut sse = SseDecoder::new();
        let mut events = Vec::new();
        sse.feed(&bytes, &mut events);
        sse.finish(&mut events);
        events
            .into_iter()
            .map(|e| e.data)
            .filter(|d| d != "[DONE]")
            .collect()
    };
    g.bench_function(BenchmarkId::new("chunk_json_only", "all_events"), |b| {
        b.iter(|| {
            let mut n = 0;
            for p in black_box(&payloads) {
                let c: Chunk = serde_json::from_str(p).expect("a chunk");
                n += c.choices.len();
            }
            black_box(n)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
