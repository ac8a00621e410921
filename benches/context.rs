//! Preparing a request (criterion): what the agent does before every request to stay inside
//! the model's window — estimating the history, and pruning old tool outputs to stand-ins —
//! for a 10,000-message history (goal: at most 1 ms, BENCHMARKS.md).
//!
//! - `prepare/estimate/10000`: the estimate of the whole history and the tool schemas.
//! - `prepare/prune/10000`: the history with the tool outputs before the last three rounds
//!   replaced by stand-ins, and its estimate: what a request sends once the history passed
//!   60 % of the window.
//! - `prepare/fit/10000`: `context::prepare` as the agent calls it, for a window the history
//!   does not fit unpruned.
//!
//! The history: exchanges of a user message (200 characters), an assistant message calling
//! `run_command` (120 characters of text), its output (1,000 characters, 20 lines) and an
//! answer (300 characters) — 4 messages each, 4.1 MB in all.
//!
//! Run: `cargo bench --bench context`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use sayso::agent::context::{self, Budget, KEEP_ROUNDS, prune, request_chars, tools_chars};
use sayso::provider::{ChatMessage, ToolCall, ToolSpec};

const MESSAGES: usize = 10_000;

fn history(messages: usize) -> Vec<ChatMessage> {
    let mut out = vec![ChatMessage::System {
        content: "You are sayso. ".repeat(30),
    }];
    let line = "test result: ok. 12 passed; 0 failed\n";
    let output: String = (0..20)
        .map(|i| format!("{i:03} {line}"))
        .collect::<String>();
    let output = format!("{output:<1000}");
    for i in 0..messages / 4 {
        out.push(ChatMessage::User {
            content: format!("question {i} {}", "x".repeat(190)),
            images: Vec::new(),
        });
        out.push(ChatMessage::Assistant {
            content: "Let me run the tests to see where we are. ".repeat(3),
            tool_calls: vec![ToolCall {
                id: format!("call_{i}"),
                name: "run_command".into(),
                arguments: format!(r#"{{"cmd":"cargo test -p crate{i}"}}"#),
            }],
            reasoning: None,
        });
        out.push(ChatMessage::Tool {
            tool_call_id: format!("call_{i}"),
            content: output.clone(),
        });
        out.push(ChatMessage::Assistant {
            content: "All tests pass; the change is done. ".repeat(8),
            tool_calls: vec![],
            reasoning: None,
        });
    }
    out
}

fn tools() -> Vec<ToolSpec> {
    (0..9)
        .map(|i| ToolSpec {
            name: format!("tool_{i}"),
            description: "Does one thing well, described in a sentence or two.".into(),
            parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
            strict: Some(true),
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let messages = history(MESSAGES);
    let tools = tools();
    let total = request_chars(&messages, &tools);
    println!("history: {} messages, {total} characters", messages.len());
    let mut g = c.benchmark_group("prepare");
    g.bench_function(format!("estimate/{MESSAGES}"), |b| {
        b.iter(|| black_box(request_chars(black_box(&messages), &tools)))
    });
    g.bench_function(format!("prune/{MESSAGES}"), |b| {
        b.iter(|| {
            let (sent, stats) = prune(black_box(&messages), KEEP_ROUNDS);
            black_box((request_chars(&sent, &tools), stats))
        })
    });
    // A window the pruned history fits at 3 characters a token, the whole one not.
    let budget = Budget {
        window: (total as u64 / 3) * 2 / 3,
    };
    let schemas = tools_chars(&tools);
    // As the agent runs it: the stand-ins of earlier requests are kept.
    let mut cache = context::StandIns::default();
    g.bench_function(format!("fit/{MESSAGES}"), |b| {
        b.iter(|| {
            black_box(context::prepare(
                black_box(&messages),
                schemas,
                context::DEFAULT_RATIO,
                budget.compact_at(),
                &mut cache,
            ))
        })
    });
    // The decision alone: sizes and stand-ins, nothing copied.
    g.bench_function(format!("plan/{MESSAGES}"), |b| {
        b.iter(|| {
            black_box(context::plan(
                black_box(&messages),
                schemas,
                context::DEFAULT_RATIO,
                budget.compact_at(),
                &mut cache,
            ))
        })
    });
    // For scale: the request body the pruned history becomes, serialised.
    let (sent, _) = prune(&messages, KEEP_ROUNDS);
    let request = sayso::provider::ChatRequest::new("m", sent);
    g.bench_function(format!("serialise_body/{MESSAGES}"), |b| {
        b.iter(|| black_box(serde_json::to_vec(&request.body(true)).map(|v| v.len())))
    });
    // The first request after a resume or a compaction: every stand-in worked out.
    g.bench_function(format!("fit_cold/{MESSAGES}"), |b| {
        b.iter(|| {
            black_box(context::prepare(
                black_box(&messages),
                schemas,
                context::DEFAULT_RATIO,
                budget.compact_at(),
                &mut context::StandIns::default(),
            ))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
