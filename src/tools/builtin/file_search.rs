//! `file_search`: find files under the working directory by glob, respecting `.gitignore`.
//!
//! Also home of what `grep_search` shares with it: how a glob given by the model is read
//! ([`PathGlob`]) and how the working directory is walked ([`walker`]).
//!
//! Glob rules (the model sees them in the tool description):
//! - matched against the path relative to the working directory, `/`-separated, ignoring case;
//!   `*` and `?` stay inside one path segment, `**` crosses directories, `{a,b}` alternates,
//!   `[abc]` classes, `\` escapes;
//! - a glob without `/` matches the file name at any depth (`Cargo.toml`, `*.rs`), as in
//!   `.gitignore`; a leading `/` anchors it to the working directory; a leading `./` is dropped;
//!   a trailing `/` means everything under that directory;
//! - an absolute glob inside the working directory is made relative to it.
//!
//! The walk honours `.gitignore` (even outside a git repository), `.ignore`, `.git/info/exclude`
//! and the global git excludes, skips hidden files and directories unless the glob names one
//! (a segment starting with `.`, e.g. `.github/**` or `**/.env`), never enters `.git`, and does
//! not follow symlinks.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobMatcher};
use ignore::{WalkBuilder, WalkState};
use serde_json::{Value, json};

use crate::provider::ToolSpec;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Tool, ToolOutput};

/// Files listed when the model gives no `max_results`.
pub const DEFAULT_MAX_RESULTS: usize = 200;
/// The largest `max_results` honoured; larger values are lowered to it.
pub const MAX_MAX_RESULTS: usize = 1000;

/// A glob from the model, read with the rules of this module.
#[derive(Debug, Clone)]
pub struct PathGlob {
    matcher: GlobMatcher,
    /// The glob, normalised (what is matched).
    normalised: String,
    /// No `/` in the glob: match the file name at any depth.
    basename: bool,
    /// The glob names a hidden file or directory: walk hidden entries too.
    hidden: bool,
}

impl PathGlob {
    /// Reads `pattern`; `root` (the working directory) lets an absolute glob inside it work.
    /// The error names the problem: empty, or why the glob is invalid.
    pub fn new(pattern: &str, root: &Path) -> Result<Self, String> {
        let mut p = pattern.trim();
        if p.is_empty() {
            return Err("the glob is empty".into());
        }
        let root_str = root.to_string_lossy();
        let root_str = root_str.trim_end_matches('/');
        if !root_str.is_empty()
            && let Some(rest) = p.strip_prefix(root_str)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            p = rest.trim_start_matches('/');
            if p.is_empty() {
                p = "**";
            }
        }
        let anchored = p.starts_with('/');
        let mut p = p.trim_start_matches('/');
        while let Some(rest) = p.strip_prefix("./") {
            p = rest.trim_start_matches('/');
        }
        let mut normalised = p.to_owned();
        if normalised.ends_with('/') {
            normalised.push_str("**");
        }
        if normalised.is_empty() || normalised == "." {
            normalised = "**".into();
        }
        let basename = !anchored && !normalised.contains('/');
        let hidden = normalised
            .split('/')
            .any(|seg| seg.starts_with('.') && seg != "." && seg != "..");
        let matcher = GlobBuilder::new(&normalised)
            .literal_separator(true)
            .backslash_escape(true)
            .case_insensitive(true)
            .empty_alternates(true)
            .build()
            .map_err(|e| e.kind().to_string())?
            .compile_matcher();
        Ok(Self {
            matcher,
            normalised,
            basename,
            hidden,
        })
    }

    /// Whether `rel` (a path relative to the working directory) matches.
    pub fn is_match(&self, rel: &Path) -> bool {
        if self.basename {
            rel.file_name().is_some_and(|n| self.matcher.is_match(n))
        } else {
            self.matcher.is_match(rel)
        }
    }

    /// Whether the walk must include hidden files for this glob to find anything.
    pub fn wants_hidden(&self) -> bool {
        self.hidden
    }

    pub fn normalised(&self) -> &str {
        &self.normalised
    }
}

/// A parallel walk of `root` with the standard filters (see the module doc).
pub fn walker(root: &Path, include_hidden: bool) -> ignore::WalkParallel {
    WalkBuilder::new(root)
        .standard_filters(true)
        .hidden(!include_hidden)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel()
}

/// `path` relative to `root` (see [`shown`] for the text the model sees).
pub fn relative(root: &Path, path: &Path) -> PathBuf {
    path.strip_prefix(root).unwrap_or(path).to_path_buf()
}

/// `rel` as the model sees it.
pub fn shown(rel: &Path) -> String {
    let s = rel.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        s.into_owned()
    } else {
        s.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// Every file under `root` matching `glob`, relative and sorted (component by component).
/// Stops early, with what it has, when `cancel` is set.
pub fn find_files(root: &Path, glob: &PathGlob, cancel: &AtomicBool) -> Vec<PathBuf> {
    let found: Mutex<Vec<PathBuf>> = Mutex::default();
    walker(root, glob.wants_hidden()).run(|| {
        // Owned by this thread's closure: its matches move into `found` when the thread ends.
        let mut local = Flush {
            files: Vec::new(),
            into: &found,
        };
        Box::new(move |entry| {
            if cancel.load(Ordering::Relaxed) {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            let is_file = entry
                .file_type()
                .is_some_and(|t| t.is_file() || (t.is_symlink() && entry.path().is_file()));
            if is_file {
                let rel = relative(root, entry.path());
                if glob.is_match(&rel) {
                    local.files.push(rel);
                }
            }
            WalkState::Continue
        })
    });
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort();
    files
}

struct Flush<'a> {
    files: Vec<PathBuf>,
    into: &'a Mutex<Vec<PathBuf>>,
}

impl Drop for Flush<'_> {
    fn drop(&mut self) {
        if !self.files.is_empty() {
            self.into
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .append(&mut self.files);
        }
    }
}

/// The arguments of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSearchArgs {
    pub query: String,
    pub max_results: usize,
}

impl FileSearchArgs {
    pub fn parse(args: &Value) -> Result<Self, String> {
        let query = match args.get("query") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => return Err(format!("`query` must be a string, got {other}")),
        };
        if query.trim().is_empty() {
            return Err("`query` is required and cannot be empty".into());
        }
        let max_results = match args.get("max_results") {
            None | Some(Value::Null) => DEFAULT_MAX_RESULTS,
            Some(v) => {
                let n = v
                    .as_i64()
                    .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                    .ok_or_else(|| format!("`max_results` must be a whole number, got {v}"))?;
                if n < 1 {
                    return Err(format!("`max_results` must be at least 1, got {n}"));
                }
                (n as u64).min(MAX_MAX_RESULTS as u64) as usize
            }
        };
        Ok(Self { query, max_results })
    }
}

/// Runs one search: `(content for the model, display)`, or the error text.
pub fn run(
    root: &Path,
    args: &FileSearchArgs,
    cancel: &AtomicBool,
) -> Result<(String, String), String> {
    let q = &args.query;
    let glob = PathGlob::new(q, root).map_err(|e| format!("Invalid glob pattern `{q}`: {e}"))?;
    let files = find_files(root, &glob, cancel);
    if files.is_empty() {
        let mut msg = format!("No files match `{q}`");
        let as_dir = glob.normalised().trim_end_matches("/**");
        if !as_dir.contains(['*', '?', '[', '{']) && root.join(as_dir).is_dir() {
            msg.push_str(&format!(
                " (`{as_dir}` is a directory: use `{as_dir}/**` to list the files under it)"
            ));
        }
        return Ok((msg.clone(), msg));
    }
    let n = files.len();
    let noun = if n == 1 { "file" } else { "files" };
    let display = format!("Found {n} {noun} for `{q}`");
    let mut content = display.clone();
    if n > args.max_results {
        content.push_str(&format!(" (showing the first {})", args.max_results));
    }
    content.push(':');
    for f in files.iter().take(args.max_results) {
        content.push('\n');
        content.push_str(&shown(f));
    }
    if n > args.max_results {
        let more = n - args.max_results;
        content.push_str(&format!("\n{more} more not shown"));
        if args.max_results < MAX_MAX_RESULTS {
            content.push_str(&format!(
                "; narrow the query or raise max_results (at most {MAX_MAX_RESULTS})"
            ));
        } else {
            content.push_str("; narrow the query");
        }
    }
    Ok((content, display))
}

/// Sets the flag when dropped: a call whose future is dropped (the user stopped) stops its walk.
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

pub struct FileSearch;

impl Tool for FileSearch {
    fn name(&self) -> &str {
        "file_search"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "file_search".into(),
            description: "Find files in the working directory by glob pattern, respecting .gitignore. Returns relative paths, sorted. The glob is matched against the path relative to the working directory, ignoring case: `*` stays within one directory, `**` crosses directories, `{a,b}` alternates. A glob without `/` matches the file name at any depth (`Cargo.toml`, `*.rs`); a leading `/` anchors it to the working directory. Examples: `**/*.rs`, `src/components/*`, `**/*.{js,ts}`, `**/*.test.*`, `docs/**`. Hidden files are skipped unless the glob names them (`.github/**`).".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "The glob pattern to match file paths against"},
                    "max_results": {"type": ["integer", "null"], "description": format!("Most paths to list (default {DEFAULT_MAX_RESULTS}, at most {MAX_MAX_RESULTS}); null for the default")}
                },
                "required": ["query", "max_results"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    fn kind(&self) -> Kind {
        Kind::ReadOnly
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("file_search {}", inv.arg_str("query"))
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        Some(format!(
            "Search the working directory for `{}`?",
            inv.arg_str("query")
        ))
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                let args = match FileSearchArgs::parse(&inv.args) {
                    Ok(a) => a,
                    Err(e) => return Some(CmdResult::Error(e)),
                };
                let cancel = Arc::new(AtomicBool::new(false));
                let _guard = CancelOnDrop(cancel.clone());
                let root = inv.cwd.clone();
                let res = tokio::task::spawn_blocking(move || run(&root, &args, &cancel)).await;
                Some(match res {
                    Ok(Ok((content, display))) => {
                        CmdResult::Success(format!("{display}\n{content}"))
                    }
                    Ok(Err(e)) => CmdResult::Error(e),
                    Err(e) => CmdResult::Error(format!("The file search failed: {e}")),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: Option<&[String]>) {
        let data = data.and_then(<[String]>::last).cloned().unwrap_or_default();
        let (display, content) = data.split_once('\n').unwrap_or((&data, &data));
        out.add(content.to_owned(), Some(display.to_owned()));
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[String]) {
        out.add(errors.join("\n"), None);
    }
}

#[cfg(test)]
mod tests {
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
            FileSearch.default_opts().approval_setting(),
            crate::tools::opts::ApprovalSetting::No
        );
    }
}
