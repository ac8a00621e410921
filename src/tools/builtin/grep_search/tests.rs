//! Tests of the parent module.

use super::*;
use crate::tools::builtin::file_search::shown;

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (f, content) in files {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
    }
    dir
}

fn project() -> tempfile::TempDir {
    tree(&[
        (".gitignore", "target/\n*.log\n"),
        (
            "src/main.rs",
            "fn main() {\n    let answer = 42;\n    println!(\"{answer}\");\n}\n",
        ),
        (
            "src/lib.rs",
            "pub fn answer() -> u32 {\n    42 // the Answer\n}\n",
        ),
        (
            "src/args.rs",
            "// flags: --verbose and -v\nlet v = \"--verbose\";\n",
        ),
        ("docs/notes.md", "The answer is 42.\n"),
        ("target/debug/out.rs", "let answer = 42;\n"),
        ("run.log", "answer 42\n"),
        (".hidden/secret.txt", "answer 42\n"),
        ("image.bin", "answer\0\x01\x02 42\n"),
    ])
}

fn call(dir: &Path, args: Value) -> Result<(String, String), String> {
    let args = GrepArgs::parse(&args)?;
    run(dir, &args, &AtomicBool::new(false))
}

fn content(dir: &Path, args: Value) -> String {
    call(dir, args).unwrap().0
}

#[test]
fn literal_search_lists_path_line_text_sorted_and_skips_ignored_hidden_and_binary() {
    let d = project();
    let (content, display) = call(
        d.path(),
        json!({"query": "answer", "is_regexp": null, "include_pattern": null}),
    )
    .unwrap();
    assert_eq!(
        content,
        "5 matches in 3 files for `answer`:\n\
             docs/notes.md:1: The answer is 42.\n\
             src/lib.rs:1: pub fn answer() -> u32 {\n\
             src/lib.rs:2: 42 // the Answer\n\
             src/main.rs:2: let answer = 42;\n\
             src/main.rs:3: println!(\"{answer}\");"
    );
    assert_eq!(display, "5 matches in 3 files for `answer`");
}

#[test]
fn smart_case_an_uppercase_letter_makes_the_search_case_sensitive() {
    let d = project();
    assert_eq!(
        content(d.path(), json!({"query": "Answer"})),
        "1 match in 1 file for `Answer`:\nsrc/lib.rs:2: 42 // the Answer"
    );
}

#[test]
fn the_query_is_literal_by_default_and_a_regex_on_request() {
    let d = project();
    assert_eq!(
        content(d.path(), json!({"query": "println!(\""})),
        "1 match in 1 file for `println!(\"`:\nsrc/main.rs:3: println!(\"{answer}\");"
    );
    assert_eq!(
        content(
            d.path(),
            json!({"query": "fn \\w+\\(\\)", "is_regexp": true})
        ),
        "2 matches in 2 files for `fn \\w+\\(\\)`:\nsrc/lib.rs:1: pub fn answer() -> u32 {\nsrc/main.rs:1: fn main() {"
    );
    assert_eq!(
        content(
            d.path(),
            json!({"query": "fn \\w+\\(\\)", "is_regexp": "true"})
        ),
        content(
            d.path(),
            json!({"query": "fn \\w+\\(\\)", "is_regexp": true})
        ),
    );
    assert_eq!(
        content(d.path(), json!({"query": "fn \\w+\\(\\)"})),
        "No matches for `fn \\w+\\(\\)` (the query was searched as literal text; set is_regexp to true for a regular expression)"
    );
}

#[test]
fn a_query_starting_with_a_dash_works() {
    let d = project();
    assert_eq!(
        content(d.path(), json!({"query": "--verbose"})),
        "2 matches in 1 file for `--verbose`:\nsrc/args.rs:1: // flags: --verbose and -v\nsrc/args.rs:2: let v = \"--verbose\";"
    );
    assert_eq!(
        content(d.path(), json!({"query": "-v\\b", "is_regexp": true})),
        "1 match in 1 file for `-v\\b`:\nsrc/args.rs:1: // flags: --verbose and -v"
    );
}

#[test]
fn include_pattern_restricts_the_files() {
    let d = project();
    assert_eq!(
        content(d.path(), json!({"query": "42", "include_pattern": "*.md"})),
        "1 match in 1 file for `42`:\ndocs/notes.md:1: The answer is 42."
    );
    assert_eq!(
        content(
            d.path(),
            json!({"query": "42", "include_pattern": "src/**/*.rs"})
        ),
        "2 matches in 2 files for `42`:\nsrc/lib.rs:2: 42 // the Answer\nsrc/main.rs:2: let answer = 42;"
    );
    assert_eq!(
        content(
            d.path(),
            json!({"query": "42", "include_pattern": "**/*.{md,log}"})
        ),
        "1 match in 1 file for `42`:\ndocs/notes.md:1: The answer is 42.",
        "an include pattern does not bring back ignored files"
    );
    assert_eq!(
        content(
            d.path(),
            json!({"query": "42", "include_pattern": ".hidden/**"})
        ),
        "1 match in 1 file for `42`:\n.hidden/secret.txt:1: answer 42",
        "naming a hidden directory searches it"
    );
    assert_eq!(
        content(
            d.path(),
            json!({"query": "zzz", "include_pattern": "src/*.rs"})
        ),
        "No matches for `zzz` in files matching `src/*.rs`"
    );
    assert_eq!(
        content(
            d.path(),
            json!({"query": "42", "include_pattern": "**/*.py"})
        ),
        "No matches for `42`: no files match include_pattern `**/*.py`"
    );
    assert_eq!(
        content(d.path(), json!({"query": "42", "include_pattern": ""})),
        content(d.path(), json!({"query": "42"})),
        "an empty include pattern means all files"
    );
}

#[test]
fn no_match_says_so() {
    let d = project();
    let (content, display) = call(d.path(), json!({"query": "nothing-like-this"})).unwrap();
    assert_eq!(content, "No matches for `nothing-like-this`");
    assert_eq!(display, content);
}

#[test]
fn errors_name_the_problem() {
    let d = project();
    let d = d.path();
    assert_eq!(
        call(d, json!({"query": ""})).unwrap_err(),
        "`query` is required and cannot be empty"
    );
    assert_eq!(
        call(d, json!({})).unwrap_err(),
        "`query` is required and cannot be empty"
    );
    let e = call(d, json!({"query": "fn (", "is_regexp": true})).unwrap_err();
    assert!(e.starts_with("Invalid regular expression `fn (`: "), "{e}");
    assert!(e.contains("unclosed group"), "{e}");
    assert_eq!(
        call(d, json!({"query": "a\nb"})).unwrap_err(),
        "The query cannot contain a line break: grep_search matches one line at a time"
    );
    let e = call(d, json!({"query": "a\\nb", "is_regexp": true})).unwrap_err();
    assert!(e.starts_with("Invalid regular expression `a\\nb`: "), "{e}");
    assert_eq!(
        call(d, json!({"query": "x", "include_pattern": "src/[a"})).unwrap_err(),
        "Invalid include_pattern `src/[a`: unclosed character class; missing ']'"
    );
    assert_eq!(
        call(d, json!({"query": "x", "is_regexp": "yes"})).unwrap_err(),
        "`is_regexp` must be true or false, got \"yes\""
    );
    assert_eq!(
        call(d, json!({"query": "x", "include_pattern": 3})).unwrap_err(),
        "`include_pattern` must be a glob string, got 3"
    );
}

#[test]
fn results_are_capped_per_file_and_in_all_with_a_count_of_the_rest() {
    let many: String = (1..=30).map(|i| format!("hit {i}\n")).collect();
    let mut files: Vec<(String, String)> = vec![("a/big.txt".into(), many)];
    for i in 0..300 {
        files.push((format!("f/{i:03}.txt"), "one hit\nnothing\n".into()));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let d = tree(&refs);
    let (content, display) = call(d.path(), json!({"query": "hit"})).unwrap();
    assert_eq!(display, "330 matches in 301 files for `hit`");
    let lines: Vec<&str> = content.lines().collect();
    assert_eq!(lines.len(), 1 + MAX_MATCHES + 1);
    assert_eq!(lines[1], "a/big.txt:1: hit 1");
    assert_eq!(lines[20], "a/big.txt:20: hit 20");
    assert_eq!(lines[21], "f/000.txt:1: one hit");
    assert_eq!(lines[200], "f/179.txt:1: one hit");
    assert_eq!(
        lines[201],
        "130 more matches not shown (at most 20 per file and 200 in all); narrow the query or use include_pattern"
    );
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let m = matcher("needle", false).unwrap();
    let short = snippet(&m, b"   short needle line \r\n");
    assert_eq!(short, "short needle line");
    let head = format!("needle {}", "x".repeat(400));
    let s = snippet(&m, head.as_bytes());
    assert_eq!(s.chars().count(), MAX_LINE_CHARS + 1);
    assert!(s.starts_with("needle x") && s.ends_with("x…"), "{s}");
    let mid = format!("{} needle {}", "a".repeat(300), "b".repeat(300));
    let s = snippet(&m, mid.as_bytes());
    assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
    assert!(s.contains("needle"), "{s}");
    assert_eq!(s.chars().count(), MAX_LINE_CHARS + 2);
    let tail = format!("{}needle", "é".repeat(400));
    let s = snippet(&m, tail.as_bytes());
    assert!(s.starts_with('…') && s.ends_with("needle"), "{s}");
    assert_eq!(s.chars().count(), MAX_LINE_CHARS + 1);
}

#[test]
fn crlf_files_match_anchors_and_show_clean_text() {
    let d = tree(&[("win.txt", "first line\r\nsecond end\r\n")]);
    assert_eq!(
        content(d.path(), json!({"query": "end$", "is_regexp": true})),
        "1 match in 1 file for `end$`:\nwin.txt:2: second end"
    );
}

#[test]
fn a_cancelled_search_stops() {
    let d = project();
    let m = matcher("answer", false).unwrap();
    let r = search(
        d.path(),
        &m,
        None,
        &PathDenials::default(),
        &AtomicBool::new(true),
    );
    assert_eq!(r, GrepResults::default());
}

#[test]
fn files_a_deny_rule_covers_are_not_searched_and_the_result_says_so() {
    use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};
    let d = project();
    let rules = crate::tools::policy::rules::Rules::new(&[RuleSpec {
        tool: "*".into(),
        target: RuleTarget::Path("src/lib.rs".into()),
        decision: RuleDecision::Deny,
        source: "user:1".into(),
        project: false,
        unsandboxed: false,
        network: false,
    }]);
    let args = GrepArgs::parse(&json!({"query": "answer"})).unwrap();
    let denied = rules.path_denials("grep_search");
    let (content, _) = run_excluding(d.path(), &args, &denied, &AtomicBool::new(false)).unwrap();
    assert!(!content.contains("src/lib.rs:"), "{content}");
    assert!(content.contains("src/main.rs"), "{content}");
    assert!(
        content.ends_with("(1 file left out: a deny rule covers `src/lib.rs`)"),
        "{content}"
    );
}

#[test]
fn collector_keeps_the_first_lines_in_path_order_whatever_the_arrival_order() {
    let mut a = Collector::default();
    let mut b = Collector::default();
    for i in (0..150).rev() {
        let target = if i % 2 == 0 { &mut a } else { &mut b };
        target.store(
            PathBuf::from(format!("p{i:03}")),
            vec![(1, "x".into()), (2, "y".into())],
        );
    }
    let mut all = Collector::default();
    all.merge(a);
    all.merge(b);
    assert_eq!(all.stored, MAX_MATCHES);
    let keys: Vec<String> = all.files.keys().map(|k| shown(k)).collect();
    assert_eq!(keys.len(), 100);
    assert_eq!(keys[0], "p000");
    assert_eq!(keys[99], "p099");
}

#[test]
fn schema_is_strict_with_nullable_optionals() {
    let spec = GrepSearch.spec();
    assert_eq!(spec.strict, Some(true));
    assert_eq!(
        spec.parameters["required"],
        json!(["query", "is_regexp", "include_pattern"])
    );
    assert_eq!(
        spec.parameters["properties"]["is_regexp"]["type"],
        json!(["boolean", "null"])
    );
    assert_eq!(
        spec.parameters["properties"]["include_pattern"]["type"],
        json!(["string", "null"])
    );
    assert_eq!(GrepSearch.kind(), Kind::ReadOnly);
}

/// A long line is cut around the match: the query chooses where, so a cut through a secret
/// would show any part of it that the exact-match scrubber then misses. The line is scrubbed
/// before it is cut.
#[test]
fn a_cut_never_leaves_part_of_a_secret() {
    let secret = "sk-grep-window-0123456789abcdef";
    crate::secrets::register(&[crate::secrets::Secret::new("$GREP_KEY", secret)], &[]);
    // The secret at characters 230..260 of a 600-character line.
    let line = format!(
        "{}{secret}{}marker-{}",
        "a".repeat(230),
        "b".repeat(50),
        "c".repeat(300)
    );
    for query in ["aaaa", "bbbb", "marker-"] {
        let s = snippet(&matcher(query, false).unwrap(), line.as_bytes());
        let shown = crate::secrets::scrub(&s);
        for piece in [&secret[..12], &secret[12..24], &secret[18..]] {
            assert!(!shown.contains(piece), "{query}: {piece} shown in {shown}");
        }
    }
}
