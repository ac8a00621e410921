//! `/diff`'s sum of one file's changes: from the file as it is now, every diff the chat applied
//! is undone, newest first, and the text that leaves is the file before the chat touched it;
//! the combined change is the diff from that to now.
//!
//! Undoing is strict ([`unapply`]): each hunk's new side must be exactly where its header says,
//! and its old side must land exactly where that header says too. So the sum is shown only when
//! it is sound: when a diff was cut, the file cannot be read, or something other than sayso's
//! file tools changed it where sayso did (a shell command, an editor), the diffs are shown as
//! they were applied instead, with the reason. A change elsewhere in the file is neither
//! undone nor shown. Pure: the caller reads the file.

use std::borrow::Cow;

use crate::events::file_change::counts;
use crate::events::{ChangeKind, FileChange, MAX_DIFF_BYTES};
use crate::tui::transcript::ChangedFile;

/// One `@@` hunk: where it starts on each side (1-based, as written) and its lines, each with
/// its line end.
struct Hunk<'a> {
    old_start: usize,
    new_start: usize,
    old: Vec<Cow<'a, str>>,
    new: Vec<Cow<'a, str>>,
}

/// `-12,3` or `+4` → (12, 3) or (4, 1).
fn range(s: &str) -> Option<(usize, usize)> {
    match s.split_once(',') {
        Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
        None => Some((s.parse().ok()?, 1)),
    }
}

fn hunks(diff: &str) -> Option<Vec<Hunk<'_>>> {
    #[derive(Clone, Copy)]
    enum Side {
        Both,
        Old,
        New,
    }
    fn strip_newline(l: &mut Cow<'_, str>) {
        if let Some(s) = l.strip_suffix('\n') {
            *l = Cow::Owned(s.to_owned());
        }
    }
    let mut out: Vec<Hunk> = Vec::new();
    let mut lens = (0, 0);
    let mut last = None;
    for line in diff.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("@@ -") {
            let mut parts = rest.split(' ');
            let old = range(parts.next()?)?;
            let new = range(parts.next()?.strip_prefix('+')?)?;
            if let Some(h) = out.last()
                && (h.old.len(), h.new.len()) != lens
            {
                return None;
            }
            lens = (old.1, new.1);
            out.push(Hunk {
                old_start: old.0,
                new_start: new.0,
                old: Vec::new(),
                new: Vec::new(),
            });
            last = None;
            continue;
        }
        let Some(h) = out.last_mut() else {
            // The `---`/`+++` header.
            continue;
        };
        let text = Cow::Borrowed(line.get(1..).unwrap_or(""));
        match line.as_bytes().first() {
            Some(b' ') => {
                h.old.push(text.clone());
                h.new.push(text);
                last = Some(Side::Both);
            }
            Some(b'-') => {
                h.old.push(text);
                last = Some(Side::Old);
            }
            Some(b'+') => {
                h.new.push(text);
                last = Some(Side::New);
            }
            // `\ No newline at end of file`: the line before has none.
            Some(b'\\') => match last? {
                Side::Both => {
                    strip_newline(h.old.last_mut()?);
                    strip_newline(h.new.last_mut()?);
                }
                Side::Old => strip_newline(h.old.last_mut()?),
                Side::New => strip_newline(h.new.last_mut()?),
            },
            _ => return None,
        }
    }
    if let Some(h) = out.last()
        && (h.old.len(), h.new.len()) != lens
    {
        return None;
    }
    Some(out)
}

/// The text `diff` was made from, given the text it made (`after`); `None` when `after` is not
/// exactly what `diff` says it made, where it says so.
pub fn unapply(diff: &str, after: &str) -> Option<String> {
    let lines: Vec<&str> = after.split_inclusive('\n').collect();
    let mut out = String::with_capacity(after.len());
    let (mut cursor, mut written) = (0, 0);
    // A side with no lines names the line before it; otherwise its first line.
    let index = |start: usize, len: usize| if len == 0 { start } else { start - 1 };
    for h in hunks(diff)? {
        if h.new_start == 0 && !h.new.is_empty() || h.old_start == 0 && !h.old.is_empty() {
            return None;
        }
        let at = index(h.new_start, h.new.len());
        let end = at + h.new.len();
        if at < cursor || end > lines.len() {
            return None;
        }
        for l in &lines[cursor..at] {
            out.push_str(l);
        }
        written += at - cursor;
        let same = lines[at..end].iter().zip(&h.new).all(|(a, b)| *a == b);
        if !same || written != index(h.old_start, h.old.len()) {
            return None;
        }
        for l in &h.old {
            out.push_str(l);
        }
        written += h.old.len();
        cursor = end;
    }
    for l in &lines[cursor..] {
        out.push_str(l);
    }
    Some(out)
}

/// The file's text as `edit_file` diffs it: no byte-order mark, LF line ends.
fn normalised(text: &str) -> Option<String> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    (body.len() != text.len() || body.contains("\r\n")).then(|| body.replace("\r\n", "\n"))
}

/// What the file is now, as `/diff` read it.
pub enum Now {
    Text(String),
    Missing,
    /// It cannot be compared (unreadable, too large, not UTF-8): why.
    Unreadable(String),
}

/// The file's text before `changes` (oldest first), undone from `now`.
fn original(changes: &[&FileChange], now: &str) -> Option<String> {
    changes
        .iter()
        .rev()
        .try_fold(now.to_owned(), |text, c| unapply(&c.diff, &text))
}

/// The diffs as they were applied, and why they are not summed up.
fn as_applied(path: &str, changes: &[&FileChange], why: String) -> ChangedFile {
    ChangedFile {
        title: format!("{path} — {} changes, as applied", changes.len()),
        note: Some(why),
        diffs: changes
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("{}. {}", i + 1, c.headline()), c.diff.clone()))
            .collect(),
    }
}

/// The sum of one file's `changes` (oldest first, at least one).
pub fn combine(changes: &[&FileChange], now: Now) -> ChangedFile {
    let (Some(first), Some(last)) = (changes.first(), changes.last()) else {
        return ChangedFile {
            title: String::new(),
            note: None,
            diffs: Vec::new(),
        };
    };
    let path = last.path.as_str();
    if changes.len() == 1 {
        let c = last;
        return ChangedFile {
            title: format!(
                "{path} — {} ({})",
                c.kind.as_str(),
                counts(c.added, c.removed)
            ),
            note: c
                .truncated
                .then(|| "the diff was too long (or not text) to keep whole".to_owned()),
            diffs: vec![(String::new(), c.diff.clone())],
        };
    }
    if changes.iter().any(|c| c.truncated) {
        let why = "a diff was too long (or not text) to keep whole, so they cannot be summed up";
        return as_applied(path, changes, why.into());
    }
    let changed_since = || {
        format!(
            "{path} was changed since, by something other than sayso's file tools, where sayso changed it"
        )
    };
    let now = match now {
        Now::Unreadable(why) => return as_applied(path, changes, why),
        Now::Missing if last.kind != ChangeKind::Deleted => {
            return as_applied(path, changes, format!("{path} no longer exists"));
        }
        Now::Text(_) if last.kind == ChangeKind::Deleted => {
            return as_applied(path, changes, format!("{path} was created again since"));
        }
        Now::Missing => String::new(),
        Now::Text(t) => t,
    };
    let (before, now) = match original(changes, &now) {
        Some(before) => (before, now),
        None => match normalised(&now).and_then(|n| Some((original(changes, &n)?, n))) {
            Some(pair) => pair,
            None => return as_applied(path, changes, changed_since()),
        },
    };
    let created = first.kind == ChangeKind::Created;
    if created && !before.is_empty() {
        return as_applied(path, changes, changed_since());
    }
    let kind = match (created, last.kind == ChangeKind::Deleted) {
        (true, true) => {
            return ChangedFile {
                title: format!(
                    "{path} — created and deleted again by {} changes: nothing left",
                    changes.len()
                ),
                note: None,
                diffs: Vec::new(),
            };
        }
        (true, false) => ChangeKind::Created,
        (false, true) => ChangeKind::Deleted,
        (false, false) => ChangeKind::Edited,
    };
    if before == now && kind == ChangeKind::Edited {
        return ChangedFile {
            title: format!(
                "{path} — {} changes that cancel out: as before the chat",
                changes.len()
            ),
            note: None,
            diffs: Vec::new(),
        };
    }
    let (diff, added, removed) = crate::tools::builtin::edit_file::diff(path, &before, &now);
    let whole = FileChange::new(path, &last.file, kind, crate::secrets::scrub_owned(diff));
    ChangedFile {
        title: format!(
            "{path} — {} ({}; {} changes summed up)",
            kind.as_str(),
            counts(added, removed),
            changes.len()
        ),
        note: whole
            .truncated
            .then(|| format!("only the first {} KiB are shown", MAX_DIFF_BYTES / 1024)),
        diffs: vec![(String::new(), whole.diff)],
    }
}

#[cfg(test)]
mod tests;
