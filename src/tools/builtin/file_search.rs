//! `file_search`: find files under the working directory by glob, respecting `.gitignore`.
//!
//! Also home of what `grep_search` shares with it: how a glob given by the model is read
//! ([`PathGlob`]) and how the working directory is walked ([`walker`]).
//!
//! Glob rules (the tool description gives the model the ones it would not guess):
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
//! not follow symlinks. Files a `deny` path rule covers (the tool's or `*`'s, see
//! [`crate::tools::policy::rules`]) are left out, and the result says how many.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use globset::{GlobBuilder, GlobMatcher};
use ignore::{WalkBuilder, WalkState};
use serde_json::{Value, json};

use crate::provider::ToolSpec;
use crate::tools::policy::rules::paths::PathDenials;
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Tool, ToolOutput};

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
    find_files_excluding(root, glob, &PathDenials::default(), cancel).0
}

/// [`find_files`] without the files `denied` covers, and how many those were.
pub fn find_files_excluding(
    root: &Path,
    glob: &PathGlob,
    denied: &PathDenials,
    cancel: &AtomicBool,
) -> (Vec<PathBuf>, usize) {
    let left_out = std::sync::atomic::AtomicUsize::new(0);
    let found: Mutex<Vec<PathBuf>> = Mutex::default();
    walker(root, glob.wants_hidden()).run(|| {
        // Owned by this thread's closure: its matches move into `found` when the thread ends.
        let mut local = Flush {
            files: Vec::new(),
            into: &found,
        };
        let left_out = &left_out;
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
                    if denied.denies(root, entry.path()) {
                        left_out.fetch_add(1, Ordering::Relaxed);
                    } else {
                        local.files.push(rel);
                    }
                }
            }
            WalkState::Continue
        })
    });
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort();
    (files, left_out.into_inner())
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
    run_excluding(root, args, &PathDenials::default(), cancel)
}

/// [`run`], leaving out the files `denied` covers (and saying so).
pub fn run_excluding(
    root: &Path,
    args: &FileSearchArgs,
    denied: &PathDenials,
    cancel: &AtomicBool,
) -> Result<(String, String), String> {
    let (content, display, left_out) = listing(root, args, denied, cancel)?;
    Ok(match denied.note(left_out) {
        Some(note) => (format!("{content}\n{note}"), display),
        None => (content, display),
    })
}

fn listing(
    root: &Path,
    args: &FileSearchArgs,
    denied: &PathDenials,
    cancel: &AtomicBool,
) -> Result<(String, String, usize), String> {
    let q = &args.query;
    let glob = PathGlob::new(q, root).map_err(|e| format!("Invalid glob pattern `{q}`: {e}"))?;
    let (files, left_out) = find_files_excluding(root, &glob, denied, cancel);
    if files.is_empty() {
        let mut msg = format!("No files match `{q}`");
        let as_dir = glob.normalised().trim_end_matches("/**");
        if !as_dir.contains(['*', '?', '[', '{']) && root.join(as_dir).is_dir() {
            msg.push_str(&format!(
                " (`{as_dir}` is a directory: use `{as_dir}/**` to list the files under it)"
            ));
        }
        return Ok((msg.clone(), msg, left_out));
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
    Ok((content, display, left_out))
}

/// Sets the flag when dropped: a call whose future is dropped (the user stopped) stops its walk.
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs a blocking search off the async threads and reports (content, display) as a command
/// result; dropping the future (the user stopped) sets the cancel flag the search checks.
pub async fn search_blocking<F>(what: &str, f: F) -> CmdResult
where
    F: FnOnce(&AtomicBool) -> Result<(String, String), String> + Send + 'static,
{
    let cancel = Arc::new(AtomicBool::new(false));
    let _guard = CancelOnDrop(cancel.clone());
    let flag = cancel.clone();
    match tokio::task::spawn_blocking(move || f(&flag)).await {
        Ok(Ok((content, display))) => CmdResult::ok(Output::shown(content, display)),
        Ok(Err(e)) => CmdResult::err(e),
        Err(e) => CmdResult::err(format!("The {what} failed: {e}")),
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
            description: "Find files by a glob on their path relative to the working directory, ignoring case and .gitignored files; hidden files only if the glob names them (`.github/**`). \
                          Without `/`, it matches file names at any depth (`*.rs`).".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "The glob"},
                    "max_results": {"type": ["integer", "null"], "description": format!("Default {DEFAULT_MAX_RESULTS}, at most {MAX_MAX_RESULTS}")}
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
                    Err(e) => return Some(CmdResult::err(e)),
                };
                let root = inv.cwd.clone();
                let denied = inv.ctx.rules.path_denials(&inv.name);
                Some(
                    search_blocking("file search", move |cancel| {
                        run_excluding(&root, &args, &denied, cancel)
                    })
                    .await,
                )
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        report::last_output(data, out);
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        report::errors(errors, out);
    }
}

#[cfg(test)]
mod tests;
