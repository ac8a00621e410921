//! Speed of the in-process search tools. See BENCHMARKS.md and `scripts/bench_grep.sh`.
//!
//! Two modes:
//!
//! - `cargo bench --bench grep_search`: criterion benchmarks on a generated tree of
//!   [`SMALL_TREE_FILES`] source-like files (with a `.gitignore`d directory) in a temp dir:
//!   `grep_search/literal` (a rare literal), `grep_search/regex` (a regex), `grep_search/common`
//!   (a literal on most lines: every match is counted) and `file_search/glob` (`**/*.rs`). Each
//!   iteration is one whole tool call without the engine: walk, search, sort, render.
//! - `BIN --search ROOT QUERY [--regex] [--include GLOB]`: one `grep_search` call on ROOT,
//!   printing what the model would receive; `BIN --files ROOT GLOB`: one `file_search` call
//!   (up to 1,000 paths). `scripts/bench_grep.sh` times these against `rg` with hyperfine on a
//!   100,000-file tree.

use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicBool;

use criterion::Criterion;
use sayso::tools::builtin::file_search::{self, FileSearchArgs};
use sayso::tools::builtin::grep_search::{self, GrepArgs};

/// Files in the tree of the criterion benchmarks.
const SMALL_TREE_FILES: usize = 5_000;

/// A tiny deterministic generator (xorshift), so every run sees the same tree.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &[
    "request", "buffer", "config", "parse", "value", "state", "event", "token", "stream", "index",
    "cache", "entry", "queue", "result", "error", "handle", "client", "server", "path", "line",
    "count", "render", "layout", "widget", "message", "session", "model", "tool", "command",
    "output",
];

/// A source-like file of about `lines` lines.
fn source_file(rng: &mut Rng, lines: usize) -> String {
    let mut s = String::new();
    for _ in 0..lines {
        let a = WORDS[rng.below(WORDS.len())];
        let b = WORDS[rng.below(WORDS.len())];
        let line = match rng.below(8) {
            0 => format!("fn {a}_{b}({a}: &{b}) -> Result<(), Error> {{\n"),
            1 => format!("    let {a} = {b}.{a}_{b}({});\n", rng.below(1000)),
            2 => format!("    // {a} the {b} before the next {a}\n"),
            3 => format!("    if {a}.len() > {} {{ return {b}; }}\n", rng.below(100)),
            4 => format!("fn {a}_handler({b}: u32) {{\n"),
            5 => "}\n".to_string(),
            6 => format!("    self.{a}.push({b}.clone());\n"),
            _ => format!("use crate::{a}::{b};\n"),
        };
        s.push_str(&line);
    }
    if rng.below(200) == 0 {
        s.push_str("    // FIXME(perf): avoid this allocation\n");
    }
    s
}

/// `n` files in nested directories under `root`, a tenth of them under `.gitignore`d ones.
fn generate(root: &Path, n: usize) {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    std::fs::write(root.join(".gitignore"), "target/\nnode_modules/\n").unwrap();
    for i in 0..n {
        let top = if i % 10 == 9 { "target" } else { "src" };
        let dir = root.join(format!("{top}/m{:02}/s{:02}", i / 500 % 40, i / 25 % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let ext = ["rs", "ts", "py", "go"][i % 4];
        let lines = 30 + rng.below(60);
        std::fs::write(
            dir.join(format!("f{i:06}.{ext}")),
            source_file(&mut rng, lines),
        )
        .unwrap();
    }
}

fn grep_once(root: &Path, query: &str, is_regexp: bool, include: Option<&str>) -> String {
    let args = GrepArgs {
        query: query.into(),
        is_regexp,
        include_pattern: include.map(String::from),
    };
    grep_search::run(root, &args, &AtomicBool::new(false))
        .unwrap()
        .0
}

fn benches(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    generate(root, SMALL_TREE_FILES);
    let mut g = c.benchmark_group("grep_search");
    g.bench_function("literal", |b| {
        b.iter(|| black_box(grep_once(root, "FIXME(perf)", false, None)))
    });
    g.bench_function("regex", |b| {
        b.iter(|| black_box(grep_once(root, r"\bfn\s+\w+_handler\(", true, None)))
    });
    g.bench_function("common", |b| {
        b.iter(|| black_box(grep_once(root, "self", false, None)))
    });
    g.finish();
    let mut g = c.benchmark_group("file_search");
    g.bench_function("glob", |b| {
        let args = FileSearchArgs {
            query: "**/*.rs".into(),
            max_results: 200,
        };
        b.iter(|| black_box(file_search::run(root, &args, &AtomicBool::new(false)).unwrap()))
    });
    g.finish();
}

/// `--search ROOT QUERY [--regex] [--include GLOB]`.
fn search_cli(args: &[String]) {
    let mut it = args.iter();
    let (Some(root), Some(query)) = (it.next(), it.next()) else {
        eprintln!("usage: grep_search --search ROOT QUERY [--regex] [--include GLOB]");
        std::process::exit(2);
    };
    let mut is_regexp = false;
    let mut include = None;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--regex" => is_regexp = true,
            "--include" => include = it.next().cloned(),
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let out = grep_once(Path::new(root), query, is_regexp, include.as_deref());
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{out}");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(pos) = args.iter().position(|a| a == "--files") {
        let (Some(root), Some(query)) = (args.get(pos + 1), args.get(pos + 2)) else {
            eprintln!("usage: grep_search --files ROOT GLOB");
            std::process::exit(2);
        };
        let args = FileSearchArgs {
            query: query.clone(),
            max_results: file_search::MAX_MAX_RESULTS,
        };
        let (content, _) = file_search::run(Path::new(root), &args, &AtomicBool::new(false))
            .unwrap_or_else(|e| (e, String::new()));
        let _ = writeln!(std::io::stdout().lock(), "{content}");
        return;
    }
    if let Some(pos) = args.iter().position(|a| a == "--search") {
        search_cli(&args[pos + 1..]);
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
}
