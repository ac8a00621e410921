//! A denied write, told from an output line: the line shows a denial's phrase (`Read-only file
//! system`, `Permission denied`, `Operation not permitted`, their errno names), names a path
//! (quoted, the field before the phrase, or a word with a `/`), and sayso checks that path
//! against the run: one the policy does not let it write, and that a write outside would reach,
//! is the sandbox's doing; one inside sayso's hidden files is sayso's own; any other path was
//! not the sandbox's to deny.

use std::path::{Component, Path, PathBuf};

use super::{Denial, DenialKind, Host, Run};
use crate::sandbox::policy::PROTECTED_NAMES;

/// The phrases of a denied access (lowercase; the line is compared lowercased).
const PHRASES: [&str; 9] = [
    "read-only file system",
    "permission denied",
    "operation not permitted",
    "erofs",
    "eacces",
    "eperm",
    "os error 30",
    "os error 13",
    "os error 1)",
];

/// Words before a path in common messages (`touch: cannot touch 'x'`, `cannot create x`).
const VERBS: [&str; 4] = ["cannot ", "could not ", "can't ", "unable to "];

/// Trees no write of a command is attributed in (devices, kernel interfaces).
const SYSTEM: [&str; 3] = ["/dev", "/proc", "/sys"];

/// Logins refused, which say "Permission denied" too (ssh's `(publickey,password)`).
const LOGINS: [&str; 3] = [
    "permission denied (publickey",
    "permission denied (password",
    "permission denied, please try again",
];

/// The line shows a denied access (not a refused login).
pub fn denial_phrase(line: &str) -> bool {
    let lower = line.to_lowercase();
    PHRASES.iter().any(|p| lower.contains(p)) && !LOGINS.iter().any(|l| lower.contains(l))
}

/// What one line's paths say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// A path the sandbox denied and a run outside could write.
    Denied(Denial),
    /// A path inside sayso's own (hidden) files.
    Own(PathBuf),
    /// Every path it names was the run's to write, or is not writable outside either.
    NotSandbox,
    /// It names no path sayso can check.
    NoPath,
}

/// The verdict on the paths `line` names (it shows a denial phrase).
pub fn verdict(line: &str, run: &Run, host: &dyn Host) -> Verdict {
    let found = candidates(line);
    if found.is_empty() {
        return Verdict::NoPath;
    }
    let mut own = None;
    for raw in found {
        let path = Path::new(&raw);
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            run.cwd.join(path)
        };
        let resolved = host.resolve(&absolute);
        if SYSTEM.iter().any(|s| resolved.starts_with(s)) {
            continue;
        }
        if hidden(run, &resolved) {
            own.get_or_insert(resolved);
            continue;
        }
        if let Some(why) = refusal(run, &resolved)
            && host.writable(&resolved)
        {
            return Verdict::Denied(Denial {
                what: format!("a write to {} ({why})", resolved.display()),
                kind: DenialKind::Write,
                path: Some(resolved.display().to_string()),
                address: None,
            });
        }
    }
    own.map_or(Verdict::NotSandbox, Verdict::Own)
}

/// Why the run's policy does not let it write `path`, or `None` when it does.
pub fn refusal(run: &Run, path: &Path) -> Option<&'static str> {
    let p = run.policy;
    if !p.writes() {
        return Some("this command runs read-only");
    }
    if !p.writable.iter().any(|w| path.starts_with(w)) {
        return Some("outside the places this command may write");
    }
    if !run.inner_paths {
        return None;
    }
    let named = p
        .protected_dirs
        .iter()
        .any(|d| PROTECTED_NAMES.iter().any(|n| path.starts_with(d.join(n))));
    if named || p.protected.iter().any(|r| path.starts_with(r)) {
        return Some("a protected path, read-only inside the sandbox");
    }
    None
}

/// `path` is one of sayso's own, which the sandbox hides (Landlock cannot hide one inside a
/// writable place).
fn hidden(run: &Run, path: &Path) -> bool {
    let p = run.policy;
    p.hidden.iter().any(|h| {
        path.starts_with(h) && (run.inner_paths || !p.writable.iter().any(|w| h.starts_with(w)))
    })
}

/// The paths `line` may name, most likely first: quoted text, the field before the denial's
/// phrase (`sh: 1: cannot create x: Read-only file system`), and words with a `/`.
pub fn candidates(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        let s = s
            .trim()
            .trim_end_matches([':', ',', ';', '.', ')'])
            .trim_start_matches('(');
        if plausible(s) && !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    };
    for q in quoted_parts(line) {
        push(&q);
    }
    if let Some(field) = field_before_phrase(line) {
        // `cannot create directory X`, `cannot touch X`: the path is the last word. A bare
        // word counts only after such a verb (`Error: EPERM` names no file `Error`).
        let after_verb = VERBS
            .iter()
            .find_map(|v| field.find(v).map(|i| &field[i + v.len()..]))
            .map(|rest| rest.rsplit(' ').next().unwrap_or(rest));
        let word = after_verb.unwrap_or(field);
        let word = word.trim_matches(['\'', '"', '‘', '’', '`']);
        let shaped = !word.contains([' ', '[', ']']);
        if shaped && (after_verb.is_some() || word.contains('/')) {
            push(word);
        }
    }
    for word in line.split_whitespace() {
        let word = word.trim_matches(['\'', '"', '‘', '’', '`']);
        if word.contains('/') {
            push(word);
        }
    }
    out
}

/// Text that could be a path: not empty, not a URL, not an option or a number, no `~`
/// (sayso does not guess the shell's home), no control characters.
fn plausible(s: &str) -> bool {
    !s.is_empty()
        && s.len() < 4096
        && !s.contains("://")
        && !s.starts_with('-')
        && !s.starts_with('~')
        && !s.chars().all(|c| c.is_ascii_digit())
        && !s.chars().any(char::is_control)
        && Path::new(s)
            .components()
            .all(|c| !matches!(c, Component::Prefix(_)))
}

/// The text between matching quotes: '…', "…", ‘…’ and `…' (GNU's older style).
fn quoted_parts(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let close = match chars[i] {
            '\'' => Some(vec!['\'']),
            '"' => Some(vec!['"']),
            '‘' => Some(vec!['’']),
            '`' => Some(vec!['\'', '`']),
            _ => None,
        };
        if let Some(close) = close
            && let Some(len) = chars[i + 1..].iter().position(|c| close.contains(c))
        {
            out.push(chars[i + 1..i + 1 + len].iter().collect());
            i += len + 2;
            continue;
        }
        i += 1;
    }
    out
}

/// The colon-separated field just before the denial's phrase (`X` in `…: X: Permission
/// denied`), if the phrase follows one.
fn field_before_phrase(line: &str) -> Option<&str> {
    let lower = line.to_lowercase();
    let at = PHRASES.iter().filter_map(|p| lower.find(p)).min()?;
    // Lowercasing can move byte offsets for some characters: fall back to no field.
    let before = line.get(..at)?.trim_end();
    let before = before.strip_suffix(':')?;
    let start = before.rfind(": ").map_or(0, |i| i + 2);
    Some(before[start..].trim())
}
