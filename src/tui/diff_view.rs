//! Diffs on screen: the coloured lines of a file change (in a tool block, folded like any block,
//! and in the approval modal, with the same colours), and `/diff` — every file the chat's file
//! tools changed, each summed up from before the chat's first change to now
//! ([`combine`] decides when that is sound), drawn as one foldable block.
//!
//! Invisible characters in a diff are drawn (`tabs::reveal`). Only what `create_file`,
//! `edit_file` and `delete_file` did is known here: a shell command that changes a file is not
//! tracked. Reading the files for `/diff` is the only IO.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::theme::Theme;
use super::wrap::wrap_line_indent;
use crate::events::{CallEnd, FileChange, MAX_DIFF_BYTES};
use crate::tui::transcript::{ChangedFile, Entry, ToolState, Transcript};

pub mod combine;

/// Diff lines a folded tool block shows.
pub const FOLDED_DIFF_LINES: usize = 12;

/// Lines a folded `/diff` block shows.
pub const FOLDED_CHANGES_LINES: usize = 20;

/// Files larger than this are not read back for `/diff`.
const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// The colour of one unified-diff line.
pub fn line_style(theme: &Theme, line: &str) -> Style {
    if line.starts_with("+++") || line.starts_with("---") {
        theme.diff_header
    } else if line.starts_with('+') {
        theme.diff_add
    } else if line.starts_with('-') {
        theme.diff_del
    } else if line.starts_with("@@") {
        theme.diff_hunk
    } else if line.starts_with('\\') {
        theme.dim
    } else {
        theme.text
    }
}

/// A diff's lines from its first hunk on (the block already names the file), indented and
/// wrapped to `w`.
pub fn diff_lines(diff: &str, theme: &Theme, w: u16) -> Vec<Line<'static>> {
    let body = match diff.find("\n@@") {
        Some(i) if !diff.starts_with("@@") => &diff[i + 1..],
        _ => diff,
    };
    body.lines()
        .flat_map(|l| {
            let line = Line::from(vec![
                Span::raw("  "),
                Span::styled(l.to_owned(), line_style(theme, l)),
            ]);
            wrap_line_indent(&super::tabs::reveal(line), w, &[Span::raw("    ")])
        })
        .collect()
}

/// What a cut change is missing, when it is.
fn cut_note(c: &FileChange) -> Option<String> {
    match (c.truncated, c.diff.is_empty()) {
        (false, _) => None,
        (true, true) => Some("  (not text: no lines to show)".into()),
        (true, false) => Some(format!(
            "  … the rest of the diff is not kept (over {} KiB)",
            MAX_DIFF_BYTES / 1024
        )),
    }
}

/// The `… N more diff lines` line of a folded block.
fn more(hidden: usize, theme: &Theme) -> Line<'static> {
    Line::from(Span::styled(
        format!("  … {hidden} more diff lines (Tab to expand)"),
        theme.dim,
    ))
}

/// `lines` cut to `keep` plus the note, unless expanded (or only one line would be hidden).
fn folded(
    mut lines: Vec<Line<'static>>,
    keep: usize,
    expanded: bool,
    t: &Theme,
) -> Vec<Line<'static>> {
    if !expanded && lines.len() > keep + 1 {
        let hidden = lines.len() - keep;
        lines.truncate(keep);
        lines.push(more(hidden, t));
    }
    lines
}

/// The diffs of a tool block's changes, folded to [`FOLDED_DIFF_LINES`] unless expanded.
pub fn change_lines(
    changes: &[FileChange],
    expanded: bool,
    t: &Theme,
    w: u16,
) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for c in changes {
        out.extend(diff_lines(&c.diff, t, w));
        if let Some(note) = cut_note(c) {
            out.push(Line::from(Span::styled(note, t.dim)));
        }
    }
    folded(out, FOLDED_DIFF_LINES, expanded, t)
}

/// The `/diff` block.
pub fn changes_lines(
    files: &[ChangedFile],
    expanded: bool,
    t: &Theme,
    w: u16,
) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled(
        format!(
            "Δ {} file(s) changed by sayso's file tools in this chat (shell commands are not tracked)",
            files.len()
        ),
        t.notice,
    ))];
    for f in files {
        out.extend(wrap_line_indent(
            &Line::from(Span::styled(f.title.clone(), t.strong)),
            w,
            &[Span::raw("  ")],
        ));
        if let Some(note) = &f.note {
            out.extend(wrap_line_indent(
                &Line::from(Span::styled(format!("  {note}"), t.dim)),
                w,
                &[Span::raw("  ")],
            ));
        }
        for (label, diff) in &f.diffs {
            if !label.is_empty() {
                out.push(Line::from(Span::styled(format!("  {label}"), t.dim)));
            }
            out.extend(diff_lines(diff, t, w));
        }
    }
    folded(out, FOLDED_CHANGES_LINES, expanded, t)
}

/// The file as it is now, for [`combine::combine`]. Read as sayso reads its own files: a
/// regular file outside `/proc`, `/sys` and `/dev`, opened without following a link or waiting
/// (a command may have put a FIFO or a link to `/dev/zero` where sayso's edit was, and the UI
/// must not wait on it), at most [`MAX_READ_BYTES`].
fn read_now(file: &str) -> combine::Now {
    use crate::secrets::own_files::{Refused, read_at_most};
    use combine::Now;
    match read_at_most(std::path::Path::new(file), &[], MAX_READ_BYTES) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Now::Text(text),
            Err(_) => Now::Unreadable("it is no longer UTF-8 text".into()),
        },
        Err(Refused::Missing) => Now::Missing,
        Err(e) => Now::Unreadable(format!("cannot read it now: {e}")),
    }
}

/// Every file the chat's file tools changed (in the order first changed), summed up; empty
/// when none was.
pub fn chat_changes(transcript: &Transcript) -> Vec<ChangedFile> {
    let mut files: Vec<(&str, Vec<&FileChange>)> = Vec::new();
    for e in &transcript.entries {
        let Entry::Tool {
            state: ToolState::Done(CallEnd::Success),
            changes,
            ..
        } = e
        else {
            continue;
        };
        for c in changes {
            match files.iter_mut().find(|(f, _)| *f == c.file) {
                Some((_, list)) => list.push(c),
                None => files.push((&c.file, vec![c])),
            }
        }
    }
    files
        .into_iter()
        .map(|(file, list)| combine::combine(&list, read_now(file)))
        .collect()
}

#[cfg(test)]
mod tests;
