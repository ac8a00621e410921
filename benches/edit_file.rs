//! `edit_file` on a 10 MB file. See BENCHMARKS.md.
//!
//! The file is 10 MB of Rust-like lines (~250,000 lines of 40 bytes) with a short function at
//! the end; each edit targets that function.
//!
//! - `edit_file_match/*`: the matching engine alone (`edit_file::edit_text`: CRLF/BOM checks,
//!   the strategy chain, the final-newline rule, the output string), in memory.
//!   - `exact_near_end`: `oldText` copied exactly (memmem finds it; the whole text is still
//!     scanned to prove it unique).
//!   - `whitespace_near_end`: `oldText` with single spaces where the file has runs of them, so
//!     exact fails and the whitespace-normalised line scan finds it.
//!   - `indentation_near_end`: `oldText` without the file's indentation (exact and whitespace
//!     fail; the trimmed-line scan finds it and `newText` is re-indented).
//!   - `block_anchor_near_end`: a stale line between the first and last lines (three
//!     strategies fail before the block anchor finds it).
//!   - `not_found`: nothing matches: every strategy plus the closest-region search.
//! - `edit_file_tool/*_near_end`: one whole `edit_file` call as the engine runs it
//!   (`edit_file::run`): read, ledger check, UTF-8 check, match, atomic write (temp file +
//!   rename), ledger record, unified diff. The file is restored before each iteration (not
//!   timed); the temp dir is wherever `tempfile` puts it (`$TMPDIR`, else `/tmp`).
//! - `edit_file_tool/preview_exact`: the approval modal's preview (`Tool::preview`): read,
//!   ledger check, match and diff, no write.
//!
//! Run: `cargo bench --bench edit_file`.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use sayso::provider::ToolCall;
use sayso::tools::builtin::edit_file::{EditFile, edit_text, run};
use sayso::tools::builtin::edit_match::Edit;
use sayso::tools::context::ToolContext;
use sayso::tools::tool::{Invocation, Tool};
use serde_json::json;

const SIZE: usize = 10 * 1024 * 1024;

const TAIL: &str = "fn shutdown(server: &mut Server) {\n    server.flush();\n    server.close_all_connections();\n    log::info!(\"server  stopped\");\n}\n";

fn content() -> String {
    let mut s = String::with_capacity(SIZE + 4096);
    let mut i = 0u64;
    while s.len() < SIZE - TAIL.len() {
        s.push_str(&format!("    let value_{i} = table.lookup({i}, &ctx)?;\n"));
        i += 1;
    }
    s.push_str(TAIL);
    s
}

fn edits(case: &str) -> Vec<Edit> {
    let new = "fn shutdown(server: &mut Server) {\n    server.flush();\n    server.close_all_connections();\n    server.join();\n    log::info!(\"server stopped\");\n}\n";
    match case {
        "exact" => vec![Edit::new(TAIL, new)],
        "whitespace" => vec![Edit::new(
            "    server.close_all_connections();\n    log::info!(\"server stopped\");",
            "    server.close_all_connections();\n    server.join();\n    log::info!(\"server stopped\");",
        )],
        "indentation" => vec![Edit::new(
            "server.flush();\nserver.close_all_connections();",
            "server.flush();\nserver.close_all_connections();\nserver.join();",
        )],
        "block_anchor" => vec![Edit::new(
            "fn shutdown(server: &mut Server) {\n    server.flush();\n    server.close_connections();\n    log::info!(\"server  stopped\");\n}",
            new.trim_end(),
        )],
        "not_found" => vec![Edit::new(
            "fn restart(server: &mut Server) {\n    server.reload();\n}",
            "",
        )],
        _ => unreachable!(),
    }
}

fn matching(c: &mut Criterion) {
    let text = content();
    let mut g = c.benchmark_group("edit_file_match");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(20);
    for case in [
        "exact",
        "whitespace",
        "indentation",
        "block_anchor",
        "not_found",
    ] {
        let e = edits(case);
        let ok = edit_text(&text, &e).is_ok();
        assert_eq!(ok, case != "not_found", "{case}");
        g.bench_function(
            format!("{case}_near_end").replace("not_found_near_end", "not_found"),
            |b| b.iter(|| black_box(edit_text(black_box(&text), &e).is_ok())),
        );
    }
    g.finish();
}

fn tool(c: &mut Criterion) {
    let text = content();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.rs");
    let ctx = Arc::new(ToolContext::default());
    let mut g = c.benchmark_group("edit_file_tool");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(20);
    for case in ["exact", "whitespace"] {
        let e = &edits(case)[0];
        let args = json!({
            "filepath": "big.rs",
            "edits": [{"oldText": e.old_text, "newText": e.new_text, "replaceAll": null}],
            "explanation": null
        });
        let inv = Invocation {
            name: "edit_file".into(),
            function_call: ToolCall {
                id: "c".into(),
                name: "edit_file".into(),
                arguments: args.to_string(),
            },
            args,
            opts: EditFile.default_opts(),
            cwd: dir.path().to_path_buf(),
            ctx: ctx.clone(),
        };
        g.bench_function(format!("{case}_near_end"), |b| {
            b.iter_batched(
                || {
                    std::fs::write(&path, &text).unwrap();
                    ctx.ledger.forget(&std::fs::canonicalize(&path).unwrap());
                },
                |()| run(&inv).unwrap(),
                BatchSize::PerIteration,
            )
        });
        if case == "exact" {
            std::fs::write(&path, &text).unwrap();
            g.bench_function("preview_exact", |b| {
                b.iter(|| black_box(EditFile.preview(&inv)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, matching, tool);
criterion_main!(benches);
