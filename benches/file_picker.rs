//! The `@` picker's cost on a generated 100,000-file tree (a `.gitignore`d directory too), in a
//! temp dir: `file_picker/keystroke` ranks the whole index for each prefix of a query as it is
//! typed (what one keystroke costs: `attach::fuzzy::best`, 50 best of 100,000 paths) — the
//! budget is 30 ms a keystroke; `file_picker/walk` is one walk of the index (done on a thread
//! of its own, never on a keystroke). See BENCHMARKS.md.
//!
//! `cargo bench --bench file_picker` (release); `cargo test --bench file_picker` runs each once.

use std::hint::black_box;
use std::path::Path;

use criterion::Criterion;
use sayso::attach::{fuzzy, index};

/// Files in the generated tree.
const FILES: usize = 100_000;

/// `FILES` files in 1,000 directories three levels deep, with source-like names, plus 1,000
/// files under an ignored `target/`.
fn generate(root: &Path) {
    let words = [
        "agent", "input", "menu", "session", "provider", "render", "index", "config", "tools",
        "stream", "window", "picker",
    ];
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    let mut n = 0;
    'outer: for a in 0..10 {
        for b in 0..10 {
            for c in 0..10 {
                let dir = root.join(format!(
                    "{}/{}_{b}/{}{c}",
                    words[a % words.len()],
                    words[(a + b) % words.len()],
                    words[(a + b + c) % words.len()]
                ));
                std::fs::create_dir_all(&dir).unwrap();
                for f in 0..FILES / 1000 {
                    std::fs::write(
                        dir.join(format!("{}_{f:03}.rs", words[(f + c) % words.len()])),
                        "",
                    )
                    .unwrap();
                    n += 1;
                    if n >= FILES {
                        break 'outer;
                    }
                }
            }
        }
    }
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    for f in 0..1000 {
        std::fs::write(root.join(format!("target/debug/dep{f}.rs")), "").unwrap();
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("a temp dir");
    generate(dir.path());
    let snapshot = index::walk(dir.path(), index::MAX_PATHS);
    assert!(snapshot.paths.len() >= FILES, "{}", snapshot.paths.len());
    assert!(!snapshot.paths.iter().any(|p| p.starts_with("target/")));
    let mut c = Criterion::default().configure_from_args();
    let query = "agentmenurs";
    c.bench_function("file_picker/keystroke", |b| {
        // One iteration: every prefix of the query, as it is typed; per keystroke = / len.
        b.iter(|| {
            for end in 1..=query.len() {
                black_box(fuzzy::best(&query[..end], &snapshot.paths, 50));
            }
        })
    });
    let mut walks = c.benchmark_group("file_picker");
    walks.sample_size(10);
    walks.bench_function("walk", |b| {
        b.iter(|| black_box(index::walk(dir.path(), index::MAX_PATHS)))
    });
    walks.finish();
    c.final_summary();
}
