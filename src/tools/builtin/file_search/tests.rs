//! Tests of the parent module.

use super::*;

fn tree(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in files {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, format!("content of {f}\n")).unwrap();
    }
    dir
}

fn project() -> tempfile::TempDir {
    let dir = tree(&[
        "package.json",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "src/components/Button.tsx",
        "src/components/Button.test.ts",
        "src/components/nested/Deep.js",
        "src/util.js",
        "src/util.test.js",
        "web/package.json",
        "web/app.ts",
        "target/debug/build.rs",
        "logs/run.log",
        ".github/workflows/ci.yml",
        ".env",
    ]);
    std::fs::write(dir.path().join(".gitignore"), "target/\n*.log\n").unwrap();
    dir
}

fn find(dir: &Path, q: &str) -> Vec<String> {
    let glob = PathGlob::new(q, dir).unwrap();
    find_files(dir, &glob, &AtomicBool::new(false))
        .iter()
        .map(|p| shown(p))
        .collect()
}

fn call(dir: &Path, args: Value) -> Result<(String, String), String> {
    let args = FileSearchArgs::parse(&args)?;
    run(dir, &args, &AtomicBool::new(false))
}

#[test]
fn globs_match_the_right_files() {
    let d = project();
    let d = d.path();
    assert_eq!(find(d, "**/*.rs"), ["src/lib.rs", "src/main.rs"]);
    assert_eq!(find(d, "*.rs"), ["src/lib.rs", "src/main.rs"]);
    assert_eq!(
        find(d, "**/*.js"),
        [
            "src/components/nested/Deep.js",
            "src/util.js",
            "src/util.test.js"
        ]
    );
    assert_eq!(
        find(d, "**/*.ts"),
        ["src/components/Button.test.ts", "web/app.ts"]
    );
    assert_eq!(
        find(d, "**/*.{js,ts}"),
        [
            "src/components/Button.test.ts",
            "src/components/nested/Deep.js",
            "src/util.js",
            "src/util.test.js",
            "web/app.ts"
        ]
    );
    assert_eq!(
        find(d, "src/components/*"),
        ["src/components/Button.test.ts", "src/components/Button.tsx"]
    );
    assert_eq!(
        find(d, "**/*.test.*"),
        ["src/components/Button.test.ts", "src/util.test.js"]
    );
    assert_eq!(
        find(d, "**/package.json"),
        ["package.json", "web/package.json"]
    );
    assert_eq!(
        find(d, "package.json"),
        ["package.json", "web/package.json"]
    );
    assert_eq!(find(d, "/package.json"), ["package.json"]);
    assert_eq!(find(d, "./src/*.rs"), ["src/lib.rs", "src/main.rs"]);
    assert_eq!(find(d, "readme.md"), ["README.md"], "case is ignored");
    assert_eq!(
        find(d, "src/components/"),
        [
            "src/components/Button.test.ts",
            "src/components/Button.tsx",
            "src/components/nested/Deep.js"
        ]
    );
    let abs = format!("{}/src/*.rs", d.display());
    assert_eq!(find(d, &abs), ["src/lib.rs", "src/main.rs"]);
}

#[test]
fn gitignored_and_hidden_files_are_skipped_unless_named() {
    let d = project();
    let d = d.path();
    let all = find(d, "**");
    assert!(!all.iter().any(|f| f.starts_with("target/")), "{all:?}");
    assert!(!all.iter().any(|f| f.ends_with(".log")), "{all:?}");
    assert!(!all.iter().any(|f| f.starts_with('.')), "{all:?}");
    assert!(find(d, "**/build.rs").is_empty());
    assert_eq!(find(d, ".github/**"), [".github/workflows/ci.yml"]);
    assert_eq!(find(d, ".env"), [".env"]);
    assert_eq!(find(d, ".gitignore"), [".gitignore"]);
}

#[test]
fn the_git_directory_is_never_listed() {
    let d = project();
    std::fs::create_dir_all(d.path().join(".git/objects")).unwrap();
    std::fs::write(d.path().join(".git/config"), "[core]\n").unwrap();
    std::fs::write(d.path().join(".git/objects/ab"), "x").unwrap();
    assert!(find(d.path(), ".git/**").is_empty());
    assert!(find(d.path(), "config").is_empty());
}

#[test]
fn results_are_sorted_by_path_components() {
    let d = tree(&["src-x/b.rs", "src/a.rs", "a.rs", "src/sub/c.rs"]);
    assert_eq!(
        find(d.path(), "**/*.rs"),
        ["a.rs", "src/a.rs", "src/sub/c.rs", "src-x/b.rs"]
    );
}

#[test]
fn content_lists_the_files_and_display_counts_them() {
    let d = project();
    let (content, display) =
        call(d.path(), json!({"query": "**/*.rs", "max_results": null})).unwrap();
    assert_eq!(
        content,
        "Found 2 files for `**/*.rs`:\nsrc/lib.rs\nsrc/main.rs"
    );
    assert_eq!(display, "Found 2 files for `**/*.rs`");
    let (content, display) = call(d.path(), json!({"query": "main.rs"})).unwrap();
    assert_eq!(content, "Found 1 file for `main.rs`:\nsrc/main.rs");
    assert_eq!(display, "Found 1 file for `main.rs`");
}

#[test]
fn max_results_caps_the_list_and_says_how_many_more() {
    let d = project();
    let (content, display) =
        call(d.path(), json!({"query": "**/*.{js,ts}", "max_results": 3})).unwrap();
    assert_eq!(
        content,
        "Found 5 files for `**/*.{js,ts}` (showing the first 3):\n\
             src/components/Button.test.ts\nsrc/components/nested/Deep.js\nsrc/util.js\n\
             2 more not shown; narrow the query or raise max_results (at most 1000)"
    );
    assert_eq!(display, "Found 5 files for `**/*.{js,ts}`");
    let many: Vec<String> = (0..1005).map(|i| format!("f/{i:04}.txt")).collect();
    let d = tree(&many.iter().map(String::as_str).collect::<Vec<_>>());
    let (content, _) = call(d.path(), json!({"query": "*.txt", "max_results": 5000})).unwrap();
    assert_eq!(content.lines().count(), 1 + 1000 + 1);
    assert!(
        content.ends_with("\n5 more not shown; narrow the query"),
        "{}",
        &content[content.len() - 80..]
    );
    let (content, _) = call(d.path(), json!({"query": "*.txt", "max_results": "2"})).unwrap();
    assert_eq!(content.lines().count(), 4);
}

#[test]
fn no_match_says_so() {
    let d = project();
    let (content, display) = call(d.path(), json!({"query": "**/*.py"})).unwrap();
    assert_eq!(content, "No files match `**/*.py`");
    assert_eq!(display, content);
    let (content, _) = call(d.path(), json!({"query": "src/components"})).unwrap();
    assert_eq!(
        content,
        "No files match `src/components` (`src/components` is a directory: use `src/components/**` to list the files under it)"
    );
}

#[test]
fn bad_arguments_are_errors_naming_the_problem() {
    let d = project();
    let d = d.path();
    assert_eq!(
        call(d, json!({"query": ""})).unwrap_err(),
        "`query` is required and cannot be empty"
    );
    assert_eq!(
        call(d, json!({"query": "   "})).unwrap_err(),
        "`query` is required and cannot be empty"
    );
    assert_eq!(
        call(d, json!({})).unwrap_err(),
        "`query` is required and cannot be empty"
    );
    assert_eq!(
        call(d, json!({"query": 3})).unwrap_err(),
        "`query` must be a string, got 3"
    );
    assert_eq!(
        call(d, json!({"query": "src/[a"})).unwrap_err(),
        "Invalid glob pattern `src/[a`: unclosed character class; missing ']'"
    );
    assert_eq!(
        call(d, json!({"query": "{a,b"})).unwrap_err(),
        "Invalid glob pattern `{a,b`: unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"
    );
    assert_eq!(
        call(d, json!({"query": "*", "max_results": 0})).unwrap_err(),
        "`max_results` must be at least 1, got 0"
    );
    assert_eq!(
        call(d, json!({"query": "*", "max_results": "many"})).unwrap_err(),
        "`max_results` must be a whole number, got \"many\""
    );
}

#[test]
fn a_cancelled_search_stops() {
    let d = project();
    let glob = PathGlob::new("**", d.path()).unwrap();
    assert!(find_files(d.path(), &glob, &AtomicBool::new(true)).is_empty());
}

#[test]
fn schema_is_strict_with_nullable_optionals() {
    let spec = FileSearch.spec();
    assert_eq!(spec.strict, Some(true));
    assert_eq!(spec.parameters["required"], json!(["query", "max_results"]));
    assert_eq!(
        spec.parameters["properties"]["max_results"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(FileSearch.kind(), Kind::ReadOnly);
    assert_eq!(
        FileSearch.default_opts().approval_before(),
        crate::config::opts::ApprovalBefore::Never
    );
}
