//! Path rules beyond a file tool's `filepath`: the paths a shell command names, the directories
//! it searches, and what search tools and diffs must leave out.
//!
//! - [`path_words`]: the words of a command that may name a file (every argument, the value of
//!   `--opt=value` or of `-fVALUE`, a redirection's target, what follows `REV:`), resolved against the working directory (and every `cd` target before it)
//!   after symlinks.
//! - [`holding`]: whether a directory a command reads holds a path a deny rule covers — a
//!   bounded walk that never follows symlinks and skips `.git`; past [`WALK_LIMIT`] entries it
//!   cannot tell, which counts as holding.
//! - [`PathDenials`]: a tool's `deny` path rules, for `grep_search`, `file_search` and
//!   `get_changed_files`, which leave those paths out and say so.
//! - [`reads_implicitly`]: programs that read the working directory's files when they name no
//!   existing path (`rg PATTERN`, `grep -r PATTERN`, `find -exec …`, `git diff`, `git grep`).

use std::path::{Path, PathBuf};

use globset::GlobMatcher;

use crate::tools::builtin::paths::resolve;

/// Directory entries a [`holding`] walk looks at before it gives up.
pub const WALK_LIMIT: usize = 20_000;

/// The words of a command that may name a file: every argument (an option too, which may be
/// a file after `--`), a redirection's target, the value of an `--option=value`, what follows
/// each letter of a short option cluster (`-f.env`, `-if/proc/1/environ`: the value may be
/// attached), and what follows a `:` in any of them (`HEAD:secrets/key`, `-L1,2:.env`).
pub fn path_words(argv: &[String]) -> impl Iterator<Item = &str> {
    let mut words = Vec::new();
    for w in argv.iter().skip(1) {
        // A redirection's target (`<.env`, `2>>log`, `&>out`).
        let unnumbered = w.trim_start_matches(|c: char| c.is_ascii_digit());
        if let Some(op) = ["&>>", ">>", "<<<", "<>", ">&", "<&", "&>", ">|", ">", "<"]
            .iter()
            .find(|op| unnumbered.starts_with(**op))
        {
            words.push(&unnumbered[op.len()..]);
        }
        // After `--` (or for a program that takes no options) a word such as `-p/1/environ`
        // is a file: a link named `-p` may lead to `/proc`.
        if w.starts_with('-') && w != "-" && w != "--" {
            words.push(w.as_str());
        }
        match w.strip_prefix('-') {
            Some(opt) => match opt.split_once('=') {
                Some((_, v)) => words.push(v),
                None if !opt.starts_with('-') => {
                    for (j, c) in opt.char_indices() {
                        if !c.is_ascii_alphanumeric() {
                            break;
                        }
                        words.push(&opt[j + c.len_utf8()..]);
                    }
                }
                None => {}
            },
            None => words.push(w.as_str()),
        }
    }
    let after_colons: Vec<&str> = words
        .iter()
        .filter_map(|w| w.split_once(':').map(|(_, rest)| rest))
        .collect();
    words.extend(after_colons);
    words.into_iter().filter(|w| !w.is_empty())
}

/// `path` (absolute, resolved) as path rules see it: relative to the project root `root`
/// when inside it, else absolute.
pub fn shown(root: &Path, path: &Path) -> String {
    match path.strip_prefix(root) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

/// One deny (or ask) path rule's glob, with the literal directory it starts in.
#[derive(Debug, Clone)]
pub struct PathGlob {
    pub text: String,
    pub matcher: GlobMatcher,
}

impl PathGlob {
    /// The glob's directory part before its first pattern character (`secrets` for
    /// `secrets/**`, empty for `**/.env`).
    fn literal_dir(&self) -> PathBuf {
        let mut dir = PathBuf::new();
        let parts: Vec<&str> = self.text.split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            if part.contains(['*', '?', '[', '{']) {
                break;
            }
            dir.push(part);
        }
        dir
    }
}

/// What a [`holding`] walk found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    Nothing,
    /// A covered file, as path rules see it.
    File(String),
    /// The walk reached [`WALK_LIMIT`] first.
    TooMany,
}

/// A file under `dir` (absolute, resolved) that `glob` covers.
pub fn holding(root: &Path, dir: &Path, glob: &PathGlob) -> Held {
    let start = if dir.starts_with(root) {
        let from_glob = root.join(glob.literal_dir());
        if from_glob.starts_with(dir) {
            from_glob
        } else if dir.starts_with(&from_glob) {
            dir.to_path_buf()
        } else {
            return Held::Nothing;
        }
    } else {
        dir.to_path_buf()
    };
    let mut seen = 0;
    let mut stack = vec![start];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > WALK_LIMIT {
                return Held::TooMany;
            }
            let path = entry.path();
            let shown = shown(root, &path);
            if glob.matcher.is_match(&shown) {
                return Held::File(shown);
            }
            let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && entry.file_name() != ".git" {
                stack.push(path);
            }
        }
    }
    Held::Nothing
}

/// Whether `argv` (a normalised run) reads the files of its working directory when it names
/// no existing path: recursive searches and git's commands that show file contents.
pub fn reads_implicitly(argv: &[String]) -> bool {
    let args = &argv[1..];
    let has = |short: char, long: &str| {
        args.iter().any(|a| {
            a.strip_prefix("--")
                .is_some_and(|l| l.split('=').next() == Some(long))
                || a.strip_prefix('-')
                    .is_some_and(|c| !c.starts_with('-') && c.contains(short))
        })
    };
    match argv[0].as_str() {
        // `find` with no starting point searches `.` (and may `-exec cat {}` what it finds).
        "rg" | "ag" | "ack" | "find" | "gfind" | "fd" | "fdfind" => true,
        "grep" | "egrep" | "fgrep" => {
            has('r', "recursive")
                || has('R', "dereference-recursive")
                || args.iter().any(|a| a == "--directories=recurse")
        }
        "git" => {
            let sub = args.iter().find(|a| !a.starts_with('-'));
            match sub.map(String::as_str) {
                Some(
                    "diff" | "show" | "grep" | "blame" | "annotate" | "cat-file" | "archive"
                    | "format-patch" | "stash" | "whatchanged" | "range-diff",
                ) => true,
                Some("log") => args.iter().any(|a| {
                    ["-p", "-u", "--patch", "--word-diff"].contains(&a.as_str())
                        || a.starts_with("-L")
                        || a.starts_with("-G")
                        || a.starts_with("-S")
                }),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The directories a run is taken to read its relative paths from: the working directory and
/// every `cd` target before it (a subshell's `cd` may or may not last: both are checked).
#[derive(Debug, Clone)]
pub struct Bases {
    pub root: PathBuf,
    dirs: Vec<PathBuf>,
}

impl Bases {
    pub fn new(cwd: &Path) -> Self {
        let root = resolve(cwd, ".").path;
        Self {
            dirs: vec![root.clone()],
            root,
        }
    }

    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// A `cd DIR` (or `pushd`) ran: later relative paths may be under `dir` too.
    pub fn cd(&mut self, dir: &str) {
        let more: Vec<PathBuf> = self
            .dirs
            .iter()
            .map(|b| resolve(b, dir).path)
            .filter(|d| !self.dirs.contains(d))
            .collect();
        self.dirs.extend(more);
        self.dirs.truncate(16);
    }

    /// `word` resolved against each base.
    pub fn resolve_all<'a>(&'a self, word: &'a str) -> impl Iterator<Item = PathBuf> + 'a {
        self.dirs.iter().map(move |b| resolve(b, word).path)
    }
}

/// A tool's `deny` path rules (its own and `*`'s, the user's and the project's): the paths
/// its results leave out.
#[derive(Debug, Clone, Default)]
pub struct PathDenials {
    pub(super) globs: Vec<PathGlob>,
}

impl PathDenials {
    pub fn is_empty(&self) -> bool {
        self.globs.is_empty()
    }

    /// The globs, for messages and git pathspecs.
    pub fn patterns(&self) -> Vec<&str> {
        self.globs.iter().map(|g| g.text.as_str()).collect()
    }

    /// Whether `path` (a file found under `root`, the working directory) is denied: by its
    /// place, or — a symlink — by where it leads.
    pub fn denies(&self, root: &Path, path: &Path) -> bool {
        if self.globs.is_empty() {
            return false;
        }
        let matches = |s: &str| self.globs.iter().any(|g| g.matcher.is_match(s));
        let rel = path.strip_prefix(root).unwrap_or(path);
        if matches(&rel.to_string_lossy()) {
            return true;
        }
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) && {
            let base = resolve(root, ".").path;
            matches(&shown(&base, &resolve(root, &path.to_string_lossy()).path))
        }
    }

    /// The sentence a result ends with when it left `n` paths out.
    pub fn note(&self, n: usize) -> Option<String> {
        (n > 0).then(|| {
            format!(
                "({n} {} left out: a deny rule covers {})",
                if n == 1 { "file" } else { "files" },
                self.patterns()
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    }
}
