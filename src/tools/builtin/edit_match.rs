//! The matching engine behind `edit_file` (SPEC §8.3): search/replace edits applied in order to
//! a text, each located by a chain of strategies, all or nothing.
//!
//! 1. **exact** — `oldText` as a substring (memchr's `memmem`, linear in the text).
//! 2. **whitespace-normalised** — whole lines, runs of spaces/tabs compared as one space and
//!    trailing whitespace ignored.
//! 3. **indentation-tolerant** — whole lines compared with leading and trailing whitespace
//!    trimmed.
//! 4. **block anchor** — a `oldText` of three lines or more whose first and last lines equal a
//!    region's first and last lines after trimming, with the lines between them at least
//!    [`BLOCK_ANCHOR_MIN`] similar (character-level ratio of `similar`); the region may be up to
//!    a quarter longer or shorter than `oldText`.
//!
//! The first strategy that finds anything decides: more than one place without `replaceAll` is
//! an error (never a silent pick of the first, unlike upstream's bug #19). When a line-based
//! strategy matched lines whose indentation differs from `oldText`'s, `newText` is re-indented
//! to the matched block (relative indentation kept, tabs/spaces converted to the file's style).
//!
//! Edits apply in order, each to the result of the previous ones. Text written by an earlier
//! edit of the same call is never matched again: a match that overlaps it is an overlap error,
//! as is an edit that no longer matches but matched the original text where an earlier edit
//! changed it.
//!
//! The text is LF-normalised by the caller (CRLF files are converted back after editing) and
//! has no byte-order mark; offsets are bytes; messages number lines from 1.

use std::time::Duration;

use memchr::memmem;

mod closest;
mod error;
mod indent;
mod lines;
mod tracker;

use closest::closest;
pub use error::{Closest, EditError, ErrorKind, Location};
use error::{first_non_blank, shorten};
use indent::*;
use lines::{Lines, OldLines};
use tracker::Tracker;

/// Minimum similarity of the lines between the anchors for a block-anchor match.
pub const BLOCK_ANCHOR_MIN: f32 = 0.8;
/// How many places an ambiguity error lists.
const MAX_LISTED: usize = 5;
/// Width of a tab when converting indentation.
const TAB: usize = 4;

/// One search/replace edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub old_text: String,
    pub new_text: String,
    pub replace_all: bool,
}

impl Edit {
    pub fn new(old_text: impl Into<String>, new_text: impl Into<String>) -> Self {
        Self {
            old_text: old_text.into(),
            new_text: new_text.into(),
            replace_all: false,
        }
    }

    pub fn all(old_text: impl Into<String>, new_text: impl Into<String>) -> Self {
        Self {
            replace_all: true,
            ..Self::new(old_text, new_text)
        }
    }
}

/// How an edit's `oldText` was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    Exact,
    Whitespace,
    Indentation,
    BlockAnchor,
    /// An empty `oldText` filled an empty file.
    EmptyFile,
}

impl Strategy {
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Exact => "exact",
            Strategy::Whitespace => "whitespace-normalised",
            Strategy::Indentation => "indentation-tolerant",
            Strategy::BlockAnchor => "block anchor",
            Strategy::EmptyFile => "empty file",
        }
    }
}

/// What one edit did.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// 0-based index in the call's `edits`.
    pub index: usize,
    pub strategy: Strategy,
    /// Places changed (more than one only with `replaceAll`).
    pub count: usize,
    /// 1-based line of the first place, in the text as the earlier edits left it.
    pub line: usize,
    /// `newText` was re-indented to the matched block.
    pub reindented: bool,
    /// Interior similarity of a block-anchor match (the lowest, with `replaceAll`).
    pub similarity: Option<f32>,
}

/// The edited text and what each edit did.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub content: String,
    pub applied: Vec<Applied>,
}

/// One place a strategy found.
#[derive(Debug, Clone)]
struct Found {
    start: usize,
    end: usize,
    /// `None`: `newText` as given.
    replacement: Option<String>,
    reindented: bool,
    score: Option<f32>,
}

fn find_exact(text: &str, old: &str) -> Vec<Found> {
    memmem::find_iter(text.as_bytes(), old.as_bytes())
        .map(|start| Found {
            start,
            end: start + old.len(),
            replacement: None,
            reindented: false,
            score: None,
        })
        .collect()
}

/// Every non-overlapping window of lines equal to `old` under `eq`.
fn find_lines(
    lines: &Lines,
    old: &OldLines,
    new: &str,
    eq: impl Fn(&str, &str) -> bool,
) -> Vec<Found> {
    let k = old.lines.len();
    let n = lines.len();
    let mut out = Vec::new();
    let mut i = 0;
    while i + k <= n {
        if (0..k).all(|j| eq(lines.line(i + j), old.lines[j])) {
            out.push(line_replacement(lines, old, new, i, k, None));
            i += k;
        } else {
            i += 1;
        }
    }
    out
}

fn has_alnum(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

/// Character-level similarity of two texts, `0..=1`.
fn similarity(a: &str, b: &str) -> f32 {
    let (la, lb) = (a.chars().count(), b.chars().count());
    if la + lb == 0 {
        return 1.0;
    }
    // The ratio is at most 2·min/(a+b): skip the diff when that cannot reach the threshold.
    let bound = 2.0 * la.min(lb) as f32 / (la + lb) as f32;
    if bound < BLOCK_ANCHOR_MIN {
        return bound;
    }
    similar::TextDiff::configure()
        .timeout(Duration::from_millis(200))
        .diff_chars(a, b)
        .ratio()
}

fn trimmed_join<'s>(lines: impl Iterator<Item = &'s str>) -> String {
    lines.map(str::trim).collect::<Vec<_>>().join("\n")
}

/// Regions whose first and last lines equal `old`'s after trimming and whose lines between
/// are at least [`BLOCK_ANCHOR_MIN`] similar; the region may be a quarter longer or shorter.
fn find_block_anchor(lines: &Lines, old: &OldLines, new: &str) -> Vec<Found> {
    let k = old.lines.len();
    let first = old.lines[0].trim();
    let last = old.lines[k - 1].trim();
    if k < 3 || first.is_empty() || last.is_empty() || !(has_alnum(first) || has_alnum(last)) {
        return Vec::new();
    }
    let slack = (k / 4).max(1);
    let (min_len, max_len) = (k.saturating_sub(slack).max(3), k + slack);
    let interior = trimmed_join(old.lines[1..k - 1].iter().copied());
    let n = lines.len();
    // Scan on the more distinctive anchor.
    let by_first = has_alnum(first);
    let mut out = Vec::new();
    let mut next_free = 0; // first line not yet taken by an accepted region
    let mut a = 0;
    while a < n {
        let anchor_ok = if by_first {
            lines.line(a).trim() == first
        } else {
            lines.line(a).trim() == last
        };
        if !anchor_ok {
            a += 1;
            continue;
        }
        let mut best: Option<(usize, usize, f32)> = None;
        for len in min_len..=max_len {
            let (s, e) = if by_first {
                (a, a + len - 1)
            } else {
                match a.checked_sub(len - 1) {
                    Some(s) => (s, a),
                    None => break,
                }
            };
            if e >= n || s < next_free {
                continue;
            }
            let other_ok = if by_first {
                lines.line(e).trim() == last
            } else {
                lines.line(s).trim() == first
            };
            if !other_ok {
                continue;
            }
            let score = similarity(&interior, &trimmed_join((s + 1..e).map(|i| lines.line(i))));
            if score >= BLOCK_ANCHOR_MIN && best.is_none_or(|(_, _, b)| score > b) {
                best = Some((s, e, score));
            }
        }
        match best {
            Some((s, e, score)) => {
                out.push(line_replacement(lines, old, new, s, e - s + 1, Some(score)));
                next_free = e + 1;
                a = if by_first { e + 1 } else { a + 1 };
            }
            None => a += 1,
        }
    }
    out
}

/// The places strategy `s` finds for `old`.
fn locate(s: Strategy, text: &str, lines: &Lines, edit: &Edit, old: &OldLines) -> Vec<Found> {
    match s {
        Strategy::Exact => find_exact(text, &edit.old_text),
        Strategy::Whitespace => find_lines(lines, old, &edit.new_text, whitespace_eq),
        Strategy::Indentation => find_lines(lines, old, &edit.new_text, trimmed_eq),
        Strategy::BlockAnchor => find_block_anchor(lines, old, &edit.new_text),
        Strategy::EmptyFile => Vec::new(),
    }
}

/// The strategies that apply to `old`, in order.
fn chain(old: &OldLines) -> Vec<Strategy> {
    let mut v = vec![Strategy::Exact];
    if old.has_content() {
        v.extend([Strategy::Whitespace, Strategy::Indentation]);
        if old.lines.len() >= 3 {
            v.push(Strategy::BlockAnchor);
        }
    }
    v
}

/// The places the first fruitful strategy finds, clear of earlier changes, with the 1-based
/// line of the first; `Ok(None)` when no strategy finds anything.
fn search(
    text: &str,
    tracker: &Tracker,
    edit: &Edit,
    old: &OldLines,
    strategies: &[Strategy],
) -> Result<Option<(Strategy, Vec<Found>, usize)>, ErrorKind> {
    let mut lines: Option<Lines> = None;
    for &s in strategies {
        let found = if s == Strategy::Exact {
            find_exact(text, &edit.old_text)
        } else {
            let l = lines.get_or_insert_with(|| Lines::new(text));
            locate(s, text, l, edit, old)
        };
        if found.is_empty() {
            continue;
        }
        let (clear, blocked): (Vec<Found>, Vec<Found>) = found
            .into_iter()
            .partition(|f| tracker.overlapping(f.start, f.end).is_none());
        if clear.len() == 1 || (edit.replace_all && !clear.is_empty()) {
            // The common case: no line index needed, count the newlines before the match.
            let start = clear[0].start;
            let line = match &lines {
                Some(l) => l.line_of(start) + 1,
                None => memchr::memchr_iter(b'\n', &text.as_bytes()[..start]).count() + 1,
            };
            return Ok(Some((s, clear, line)));
        }
        let l = lines.get_or_insert_with(|| Lines::new(text));
        if clear.is_empty() {
            let f = &blocked[0];
            let earlier = tracker.overlapping(f.start, f.end).map_or(0, |r| r.edit);
            return Err(ErrorKind::Overlap {
                earlier,
                place: l.location(f.start, f.end),
            });
        }
        return Err(ErrorKind::Ambiguous {
            strategy: s,
            count: clear.len(),
            places: clear
                .iter()
                .take(MAX_LISTED)
                .map(|f| l.location(f.start, f.end))
                .collect(),
        });
    }
    Ok(None)
}

/// Whether `edit` matched the original text where an earlier edit changed it.
fn overlap_in_original(
    content: &str,
    tracker: &Tracker,
    edit: &Edit,
    old: &OldLines,
    strategies: &[Strategy],
) -> Option<ErrorKind> {
    if tracker.is_empty() {
        return None;
    }
    let lines = Lines::new(content);
    for &s in strategies {
        let found = locate(s, content, &lines, edit, old);
        if found.is_empty() {
            continue;
        }
        let (f, r) = found
            .iter()
            .find_map(|f| tracker.overlapping_original(f.start, f.end).map(|r| (f, r)))?;
        return Some(ErrorKind::Overlap {
            earlier: r.edit,
            place: lines.location(f.start, f.end),
        });
    }
    None
}

/// Applies `edits` in order to `content` (LF line endings, no BOM). All or nothing.
pub fn apply_edits(content: &str, edits: &[Edit]) -> Result<Outcome, EditError> {
    // Borrowed until the first edit applies: no copy of a large file just to search it.
    let mut text: std::borrow::Cow<str> = content.into();
    let mut tracker = Tracker::default();
    let mut applied = Vec::with_capacity(edits.len());
    for (index, edit) in edits.iter().enumerate() {
        let err = |kind, after_earlier| EditError {
            index,
            old_first_line: shorten(first_non_blank(&edit.old_text), 80),
            kind,
            after_earlier,
        };
        let changed = !tracker.is_empty();
        if edit.old_text.is_empty() {
            if !text.is_empty() {
                return Err(err(ErrorKind::EmptyOldText, false));
            }
            let start = Found {
                start: 0,
                end: 0,
                replacement: None,
                reindented: false,
                score: None,
            };
            text = tracker.apply(&text, &[start], &edit.new_text, index).into();
            applied.push(Applied {
                index,
                strategy: Strategy::EmptyFile,
                count: 1,
                line: 1,
                reindented: false,
                similarity: None,
            });
            continue;
        }
        let old = OldLines::new(&edit.old_text);
        let strategies = chain(&old);
        match search(&text, &tracker, edit, &old, &strategies) {
            Err(kind) => return Err(err(kind, changed)),
            Ok(Some((strategy, found, line))) => {
                let reindented = found.iter().any(|f| f.reindented);
                let similarity = found
                    .iter()
                    .filter_map(|f| f.score)
                    .min_by(|a, b| a.total_cmp(b));
                text = tracker.apply(&text, &found, &edit.new_text, index).into();
                applied.push(Applied {
                    index,
                    strategy,
                    count: found.len(),
                    line,
                    reindented,
                    similarity,
                });
            }
            Ok(None) => {
                if let Some(kind) = overlap_in_original(content, &tracker, edit, &old, &strategies)
                {
                    return Err(err(kind, false));
                }
                return Err(err(
                    ErrorKind::NotFound {
                        tried: strategies,
                        closest: closest(&Lines::new(&text), &old).map(Box::new),
                        empty_file: text.is_empty(),
                    },
                    changed,
                ));
            }
        }
    }
    Ok(Outcome {
        content: text.into_owned(),
        applied,
    })
}

#[cfg(test)]
mod tests;
