//! `grep_search`: search the contents of the files under the working directory, in process.
//!
//! The walk is `ignore`'s parallel walker with the filters of `file_search` (`.gitignore`,
//! hidden files, never `.git`); each file is searched line by line by `grep-searcher` with a
//! `grep-regex` matcher, the libraries ripgrep is made of. The query is literal text unless
//! `is_regexp` is true; matching ignores case unless the query has an uppercase letter (smart
//! case). Files with a NUL byte are binary and skipped.
//!
//! Results are `path:line: text`, sorted by path then line: at most [`MAX_PER_FILE`] lines of one
//! file and [`MAX_MATCHES`] in all, with a count of the rest. Each worker keeps only the first
//! `MAX_MATCHES` lines in path order it has seen, so memory stays bounded whatever the query
//! matches, and the lines of a file that cannot make the cut are counted but not copied.
//!
//! Files a `deny` path rule covers (the tool's or `*`'s, see [`crate::tools::policy::rules`]) are not
//! searched, and the result says how many were left out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::{DirEntry, ParallelVisitor, ParallelVisitorBuilder, WalkState};
use serde_json::{Value, json};

use super::file_search::{PathGlob, relative, search_blocking, walker};
use crate::provider::ToolSpec;
use crate::tools::policy::rules::paths::PathDenials;
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Tool, ToolOutput};

/// Matching lines listed in all.
pub const MAX_MATCHES: usize = 200;
/// Matching lines listed for one file.
pub const MAX_PER_FILE: usize = 20;
/// Characters of a matching line shown; longer lines are cut around the match with `…`.
pub const MAX_LINE_CHARS: usize = 250;

/// The arguments of one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepArgs {
    pub query: String,
    pub is_regexp: bool,
    pub include_pattern: Option<String>,
}

impl GrepArgs {
    pub fn parse(args: &Value) -> Result<Self, String> {
        let query = match args.get("query") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => return Err(format!("`query` must be a string, got {other}")),
        };
        if query.is_empty() {
            return Err("`query` is required and cannot be empty".into());
        }
        let is_regexp = match args.get("is_regexp") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) if s.eq_ignore_ascii_case("true") => true,
            Some(Value::String(s)) if s.eq_ignore_ascii_case("false") => false,
            Some(other) => return Err(format!("`is_regexp` must be true or false, got {other}")),
        };
        let include_pattern = match args.get("include_pattern") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.trim().is_empty() => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(format!(
                    "`include_pattern` must be a glob string, got {other}"
                ));
            }
        };
        Ok(Self {
            query,
            is_regexp,
            include_pattern,
        })
    }
}

/// One listed line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub path: PathBuf,
    pub line: u64,
    pub text: String,
}

/// What a search found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GrepResults {
    /// The listed lines, sorted by path then line.
    pub hits: Vec<Hit>,
    /// Every matching line.
    pub total_matches: u64,
    /// Files with at least one matching line.
    pub files_matched: u64,
    /// Files searched (after the include pattern).
    pub files_searched: u64,
    /// Files a path deny rule kept out of the search.
    pub files_left_out: u64,
}

/// The matcher for a query: literal or regex, smart case, one line at a time.
pub fn matcher(query: &str, is_regexp: bool) -> Result<RegexMatcher, String> {
    if query.contains('\n') {
        return Err(
            "The query cannot contain a line break: grep_search matches one line at a time".into(),
        );
    }
    RegexMatcherBuilder::new()
        .case_smart(true)
        .fixed_strings(!is_regexp)
        .line_terminator(Some(b'\n'))
        .crlf(true)
        .build(query)
        .map_err(|e| {
            if is_regexp {
                format!("Invalid regular expression `{query}`: {e}")
            } else {
                format!("Invalid query `{query}`: {e}")
            }
        })
}

/// Searches every file under `root` (matching `include`, when given), but those `denied`
/// covers. Stops early, with what it has, when `cancel` is set.
pub fn search(
    root: &Path,
    matcher: &RegexMatcher,
    include: Option<&PathGlob>,
    denied: &PathDenials,
    cancel: &AtomicBool,
) -> GrepResults {
    let shared = Mutex::new(Collector::default());
    let hidden = include.is_some_and(PathGlob::wants_hidden);
    walker(root, hidden).visit(&mut Workers {
        root,
        matcher,
        include,
        denied,
        cancel,
        shared: &shared,
    });
    let c = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    GrepResults {
        hits: c
            .files
            .into_iter()
            .flat_map(|(path, lines)| {
                lines.into_iter().map(move |(line, text)| Hit {
                    path: path.clone(),
                    line,
                    text,
                })
            })
            .collect(),
        total_matches: c.total_matches,
        files_matched: c.files_matched,
        files_searched: c.files_searched,
        files_left_out: c.files_left_out,
    }
}

/// The first [`MAX_MATCHES`] lines in (path, line) order of the files one worker (or all) saw,
/// and counts.
#[derive(Default)]
struct Collector {
    files: BTreeMap<PathBuf, Vec<(u64, String)>>,
    stored: usize,
    total_matches: u64,
    files_matched: u64,
    files_searched: u64,
    files_left_out: u64,
}

impl Collector {
    /// Whether lines of `rel` can still be among the first `MAX_MATCHES`.
    fn may_keep(&self, rel: &Path) -> bool {
        self.stored < MAX_MATCHES
            || self
                .files
                .last_key_value()
                .is_some_and(|(last, _)| rel < last.as_path())
    }

    fn store(&mut self, rel: PathBuf, lines: Vec<(u64, String)>) {
        if lines.is_empty() || !self.may_keep(&rel) {
            return;
        }
        self.stored += lines.len();
        self.files.insert(rel, lines);
        while self.stored > MAX_MATCHES {
            let excess = self.stored - MAX_MATCHES;
            let Some(mut last) = self.files.last_entry() else {
                break;
            };
            let len = last.get().len();
            if len > excess {
                last.get_mut().truncate(len - excess);
                self.stored -= excess;
            } else {
                self.stored -= len;
                last.remove();
            }
        }
    }

    fn merge(&mut self, other: Collector) {
        self.total_matches += other.total_matches;
        self.files_matched += other.files_matched;
        self.files_searched += other.files_searched;
        self.files_left_out += other.files_left_out;
        for (path, lines) in other.files {
            self.store(path, lines);
        }
    }
}

struct Workers<'a> {
    root: &'a Path,
    matcher: &'a RegexMatcher,
    include: Option<&'a PathGlob>,
    denied: &'a PathDenials,
    cancel: &'a AtomicBool,
    shared: &'a Mutex<Collector>,
}

impl<'s> ParallelVisitorBuilder<'s> for Workers<'s> {
    fn build(&mut self) -> Box<dyn ParallelVisitor + 's> {
        Box::new(Worker {
            root: self.root,
            matcher: self.matcher.clone(),
            include: self.include,
            denied: self.denied,
            cancel: self.cancel,
            shared: self.shared,
            searcher: SearcherBuilder::new()
                .line_number(true)
                .line_terminator(LineTerminator::crlf())
                .binary_detection(BinaryDetection::quit(b'\0'))
                .build(),
            local: Collector::default(),
        })
    }
}

/// One walker thread: its own searcher and collector, merged into the shared one when the
/// thread ends (on drop).
struct Worker<'a> {
    root: &'a Path,
    matcher: RegexMatcher,
    include: Option<&'a PathGlob>,
    denied: &'a PathDenials,
    cancel: &'a AtomicBool,
    shared: &'a Mutex<Collector>,
    searcher: Searcher,
    local: Collector,
}

impl ParallelVisitor for Worker<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        if self.cancel.load(Ordering::Relaxed) {
            return WalkState::Quit;
        }
        let Ok(entry) = entry else {
            return WalkState::Continue;
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return WalkState::Continue;
        }
        let rel = relative(self.root, entry.path());
        if self.include.is_some_and(|g| !g.is_match(&rel)) {
            return WalkState::Continue;
        }
        if self.denied.denies(self.root, entry.path()) {
            self.local.files_left_out += 1;
            return WalkState::Continue;
        }
        self.local.files_searched += 1;
        let mut sink = FileSink {
            matcher: &self.matcher,
            keep: self.local.may_keep(&rel),
            lines: Vec::new(),
            count: 0,
            binary: false,
        };
        // An unreadable file (permissions, vanished) is skipped, as a binary one is.
        let ok = self
            .searcher
            .search_path(&self.matcher, entry.path(), &mut sink)
            .is_ok();
        if ok && !sink.binary && sink.count > 0 {
            self.local.total_matches += sink.count;
            self.local.files_matched += 1;
            self.local.store(rel, sink.lines);
        }
        WalkState::Continue
    }
}

impl Drop for Worker<'_> {
    fn drop(&mut self) {
        let local = std::mem::take(&mut self.local);
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .merge(local);
    }
}

struct FileSink<'a> {
    matcher: &'a RegexMatcher,
    /// Copy the first lines (false: this file cannot be listed, only counted).
    keep: bool,
    lines: Vec<(u64, String)>,
    count: u64,
    binary: bool,
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, m: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.count += 1;
        if self.keep && self.lines.len() < MAX_PER_FILE {
            let line = m.line_number().unwrap_or(0);
            self.lines.push((line, snippet(self.matcher, m.bytes())));
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

/// Runs one call: `(content, display)`, or the error text.
pub fn run(root: &Path, args: &GrepArgs, cancel: &AtomicBool) -> Result<(String, String), String> {
    run_excluding(root, args, &PathDenials::default(), cancel)
}

/// [`run`], leaving out the files `denied` covers (and saying so).
pub fn run_excluding(
    root: &Path,
    args: &GrepArgs,
    denied: &PathDenials,
    cancel: &AtomicBool,
) -> Result<(String, String), String> {
    let m = matcher(&args.query, args.is_regexp)?;
    let include = match &args.include_pattern {
        Some(p) => Some(
            PathGlob::new(p, root).map_err(|e| format!("Invalid include_pattern `{p}`: {e}"))?,
        ),
        None => None,
    };
    let results = search(root, &m, include.as_ref(), denied, cancel);
    let (mut content, display) = render(args, &results);
    if let Some(note) = denied.note(results.files_left_out as usize) {
        content.push_str(&format!("\n{note}"));
    }
    Ok((content, display))
}

pub struct GrepSearch;

impl Tool for GrepSearch {
    fn name(&self) -> &str {
        "grep_search"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "grep_search".into(),
            description: format!(
                "Search the working directory's files (not .gitignored or binary ones) line by line. Returns `path:line: text`, at most {MAX_PER_FILE} lines a file and {MAX_MATCHES} in all. Ignores case unless the query has an uppercase letter."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Literal text, or a Rust regex if is_regexp"},
                    "is_regexp": {"type": ["boolean", "null"]},
                    "include_pattern": {"type": ["string", "null"], "description": "Glob of the files to search (`*.rs`, `src/**`); null: all"}
                },
                "required": ["query", "is_regexp", "include_pattern"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    fn kind(&self) -> Kind {
        Kind::ReadOnly
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("grep_search {}", inv.arg_str("query"))
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        Some(format!("Search the files for `{}`?", inv.arg_str("query")))
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                let args = match GrepArgs::parse(&inv.args) {
                    Ok(a) => a,
                    Err(e) => return Some(CmdResult::err(e)),
                };
                let root = inv.cwd.clone();
                let denied = inv.ctx.rules.path_denials(&inv.name);
                Some(
                    search_blocking("search", move |cancel| {
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

mod render;
pub use render::{render, snippet};

#[cfg(test)]
mod tests;
