//! Line views of the texts being matched: [`Lines`] indexes where each line of the file's text
//! starts (line of an offset, locations for messages); [`OldLines`] is an `oldText` split into
//! lines for the line-based strategies.

use super::Location;
use super::error::shorten;

/// The start of each line of a text. A final `\n` ends the last line; no empty line follows it.
pub(super) struct Lines<'a> {
    pub(super) text: &'a str,
    pub(super) starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        if !text.is_empty() {
            starts.push(0);
        }
        starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .filter(|&s| s < text.len()),
        );
        Self { text, starts }
    }

    pub(super) fn len(&self) -> usize {
        self.starts.len()
    }

    /// Offset just past line `i`'s text (its `\n`, or the end of the text).
    pub(super) fn end(&self, i: usize) -> usize {
        match self.starts.get(i + 1) {
            Some(&s) => s - 1,
            None if self.text.ends_with('\n') => self.text.len() - 1,
            None => self.text.len(),
        }
    }

    /// Line `i` without its `\n`.
    pub(super) fn line(&self, i: usize) -> &'a str {
        &self.text[self.starts[i]..self.end(i)]
    }

    /// The 0-based line holding `offset`.
    pub(super) fn line_of(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1)
    }

    /// The place `[start, end)`, for messages.
    pub(super) fn location(&self, start: usize, end: usize) -> Location {
        let first = self.line_of(start);
        let last = self.line_of(end.saturating_sub(1).max(start));
        let preview = (first..=last.min(self.len().saturating_sub(1)))
            .map(|i| self.line(i))
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        Location {
            start_line: first + 1,
            end_line: last + 1,
            preview: shorten(preview, 80),
        }
    }
}

/// A `oldText` as lines (for the line-based strategies): one final `\n` is dropped and noted.
pub(super) struct OldLines<'a> {
    pub(super) lines: Vec<&'a str>,
    /// `oldText` ended with a newline: the match takes the last line's `\n` too.
    pub(super) eol: bool,
}

impl<'a> OldLines<'a> {
    pub(super) fn new(old: &'a str) -> Self {
        let (body, eol) = match old.strip_suffix('\n') {
            Some(b) => (b, true),
            None => (old, false),
        };
        Self {
            lines: body.split('\n').collect(),
            eol,
        }
    }

    pub(super) fn has_content(&self) -> bool {
        self.lines.iter().any(|l| !l.trim().is_empty())
    }
}
