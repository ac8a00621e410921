//! Word wrapping for styled [`Line`]s, measured in terminal columns.
//!
//! Widths come from `unicode-width` (CJK and other wide characters take two columns, combining
//! marks and other zero-width characters none). Text is cut into *clusters*: a character plus
//! the zero-width characters that follow it, so a combining mark or a variation selector always
//! stays with its base character. A cluster's width is the `unicode-width` string width of the
//! cluster, so it agrees with [`Span::width`]/[`Line::width`].
//!
//! Rules of [`wrap_line`] and friends:
//! - A line that already fits is returned unchanged (trailing spaces included).
//! - Otherwise the line is broken at whitespace; a word longer than a whole line is broken
//!   between clusters. Wide clusters (CJK, emoji) are break opportunities on both sides, so
//!   text without spaces (Chinese, Japanese) wraps too.
//! - Whitespace at a break is dropped, as is leading whitespace of continuation lines; leading
//!   whitespace of the first line is kept when it leaves room for text.
//! - Each piece keeps its span's style; each output line keeps the input line's style and
//!   alignment.
//! - Width 0 is treated as 1. No output line is ever wider than the width. The only loss of
//!   text: a cluster wider than the whole room left for text (a two-column character when only
//!   one column is available) is replaced by `�` (one column).
//! - Tabs are drawn as a dim `→` padded to the next tab stop ([`super::tabs`]) before anything
//!   is measured; no output line contains a tab.
//! - Prefixes (indents, list markers, quote bars) are clipped so that at least
//!   `min(width, 2)` columns stay available for text; see [`available_width`].

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Replacement for a cluster too wide for the room available.
const REPLACEMENT: &str = "\u{FFFD}";

/// Word-wrap `line` to `width` columns.
pub fn wrap_line(line: &Line<'static>, width: u16) -> Vec<Line<'static>> {
    wrap_prefixed(line, usize::from(width), &[], &[])
}

/// Word-wrap every line of `lines` to `width` columns.
pub fn wrap_lines(lines: &[Line<'static>], width: u16) -> Vec<Line<'static>> {
    lines.iter().flat_map(|l| wrap_line(l, width)).collect()
}

/// Word-wrap `line`, starting every continuation line with `indent` (a hanging indent for list
/// items, a quote bar for quotes). The first line is not indented.
pub fn wrap_line_indent(
    line: &Line<'static>,
    width: u16,
    indent: &[Span<'static>],
) -> Vec<Line<'static>> {
    wrap_prefixed(line, usize::from(width), &[], indent)
}

/// Word-wrap `line`, starting the first output line with `first` and every other with `rest`
/// (e.g. `"• "` and `"  "`). `width` includes the prefixes.
pub fn wrap_line_prefixed(
    line: &Line<'static>,
    width: u16,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    wrap_prefixed(line, usize::from(width), first, rest)
}

/// Break `line` at exactly `width` columns without looking for word boundaries and without
/// dropping any whitespace (for code). Lines that fit are returned unchanged.
pub fn hard_wrap_line(line: &Line<'static>, width: u16) -> Vec<Line<'static>> {
    hard_wrap_prefixed(line, usize::from(width), &[], &[])
}

/// Columns left for text on a line of `width` columns after a prefix of `prefix_width`
/// columns, after the prefix clipping done by the wrapping functions. Always at least
/// `min(width, 2)` (and at least 1).
pub fn available_width(width: usize, prefix_width: usize) -> usize {
    let width = width.max(1);
    width - prefix_width.min(max_prefix(width))
}

/// Display width of a string, in columns.
pub fn str_width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// Display width of spans, in columns.
pub fn spans_width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(|s| str_width(&s.content)).sum()
}

/// Cut `spans` to at most `width` columns (cluster-wise, never splitting a cluster). When text
/// was cut off and `ellipsis` is set, the last column is `…`.
pub fn truncate_spans(spans: &[Span<'static>], width: usize, ellipsis: bool) -> Vec<Span<'static>> {
    if spans_width(spans) <= width {
        return spans.to_vec();
    }
    let budget = if ellipsis {
        width.saturating_sub(1)
    } else {
        width
    };
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    'outer: for span in spans {
        let mut end = 0;
        for (start, stop) in clusters(&span.content) {
            let w = str_width(&span.content[start..stop]);
            if used + w > budget {
                if end > 0 {
                    out.push(Span::styled(span.content[..end].to_string(), span.style));
                }
                break 'outer;
            }
            used += w;
            end = stop;
        }
        out.push(span.clone());
    }
    if ellipsis && width > 0 {
        let style = spans.last().map(|s| s.style).unwrap_or_default();
        out.push(Span::styled("…", style));
    }
    out
}

// ----------------------------------------------------------------------------------------------

/// The widest prefix allowed on a line of `width` columns.
fn max_prefix(width: usize) -> usize {
    width.saturating_sub(2)
}

/// Byte ranges of the clusters of `s`: a character plus the zero-width characters after it.
fn clusters(s: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut iter = s.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, c) = iter.next()?;
        let mut end = start + c.len_utf8();
        while let Some(&(i, next)) = iter.peek() {
            if next.width() == Some(0) {
                end = i + next.len_utf8();
                iter.next();
            } else {
                break;
            }
        }
        Some((start, end))
    })
}

fn is_break_space(c: char) -> bool {
    c.is_whitespace() && !matches!(c, '\u{A0}' | '\u{2007}' | '\u{202F}')
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Space,
    Word,
    /// A wide cluster: a word on its own, with break opportunities on both sides.
    Wide,
}

#[derive(Clone, Copy)]
struct Cluster {
    span: usize,
    start: usize,
    end: usize,
    width: usize,
    kind: Kind,
}

fn collect_clusters(line: &Line<'static>) -> Vec<Cluster> {
    let mut out = Vec::new();
    for (i, span) in line.spans.iter().enumerate() {
        let s: &str = &span.content;
        // Printable ASCII (most text a model writes): a cluster a byte, one column each, a
        // space or part of a word — what the general path finds, without looking up
        // characters (a third of the first frame's work was wrapping the welcome and footer).
        if s.bytes().all(|b| (b' '..=b'~').contains(&b)) {
            out.extend(s.bytes().enumerate().map(|(k, b)| Cluster {
                span: i,
                start: k,
                end: k + 1,
                width: 1,
                kind: if b == b' ' { Kind::Space } else { Kind::Word },
            }));
            continue;
        }
        for (start, end) in clusters(s) {
            let text = &s[start..end];
            let width = str_width(text);
            // Whitespace only if nothing (e.g. a combining mark) is attached to it.
            let kind = if text.chars().all(is_break_space) {
                Kind::Space
            } else if width >= 2 {
                Kind::Wide
            } else {
                Kind::Word
            };
            out.push(Cluster {
                span: i,
                start,
                end,
                width,
                kind,
            });
        }
    }
    out
}

/// Builds output lines from pieces of the input spans.
struct Builder<'a> {
    line: &'a Line<'static>,
    width: usize,
    first: Vec<Span<'static>>,
    first_w: usize,
    rest: Vec<Span<'static>>,
    rest_w: usize,
    out: Vec<Line<'static>>,
    /// Pieces of the current line: (span index, start, end), or a replacement cluster.
    cur: Vec<Piece>,
    cur_w: usize,
}

#[derive(Clone, Copy)]
enum Piece {
    Text {
        span: usize,
        start: usize,
        end: usize,
    },
    Replacement {
        span: usize,
    },
}

impl<'a> Builder<'a> {
    fn new(
        line: &'a Line<'static>,
        width: usize,
        first: &[Span<'static>],
        rest: &[Span<'static>],
    ) -> Self {
        let width = width.max(1);
        let first = truncate_spans(first, max_prefix(width), false);
        let rest = truncate_spans(rest, max_prefix(width), false);
        Self {
            line,
            width,
            first_w: spans_width(&first),
            first,
            rest_w: spans_width(&rest),
            rest,
            out: Vec::new(),
            cur: Vec::new(),
            cur_w: 0,
        }
    }

    /// Columns available for text on the current line.
    fn avail(&self) -> usize {
        let prefix = if self.out.is_empty() {
            self.first_w
        } else {
            self.rest_w
        };
        self.width - prefix
    }

    fn on_first_line(&self) -> bool {
        self.out.is_empty()
    }

    fn push(&mut self, c: &Cluster) {
        if c.width > self.avail() {
            self.cur.push(Piece::Replacement { span: c.span });
            self.cur_w += 1;
            return;
        }
        if let Some(Piece::Text { span, end, .. }) = self.cur.last_mut()
            && *span == c.span
            && *end == c.start
        {
            *end = c.end;
        } else {
            self.cur.push(Piece::Text {
                span: c.span,
                start: c.start,
                end: c.end,
            });
        }
        self.cur_w += c.width;
    }

    fn finish_line(&mut self) {
        let prefix = if self.out.is_empty() {
            &self.first
        } else {
            &self.rest
        };
        let mut spans: Vec<Span<'static>> = prefix.clone();
        for piece in self.cur.drain(..) {
            match piece {
                Piece::Text { span, start, end } => {
                    let s = &self.line.spans[span];
                    spans.push(Span::styled(s.content[start..end].to_string(), s.style));
                }
                Piece::Replacement { span } => {
                    spans.push(Span::styled(REPLACEMENT, self.line.spans[span].style));
                }
            }
        }
        self.out.push(Line {
            spans,
            style: self.line.style,
            alignment: self.line.alignment,
        });
        self.cur_w = 0;
    }

    /// The input line unchanged, behind the first prefix.
    fn whole(mut self) -> Vec<Line<'static>> {
        let mut spans = std::mem::take(&mut self.first);
        spans.extend(self.line.spans.iter().cloned());
        vec![Line {
            spans,
            style: self.line.style,
            alignment: self.line.alignment,
        }]
    }
}

/// Word wrap with a first-line prefix and a continuation prefix; `width` includes them.
pub(crate) fn wrap_prefixed(
    line: &Line<'static>,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let line = &*super::tabs::expand_tabs(line);
    let mut b = Builder::new(line, width, first, rest);
    if b.first_w + spans_width(&line.spans) <= b.width {
        return b.whole();
    }
    let clusters = collect_clusters(line);
    let mut i = 0;
    while i < clusters.len() {
        // The next token: a run of spaces, a run of word clusters, or one wide cluster.
        let kind = clusters[i].kind;
        let mut j = i + 1;
        if kind != Kind::Wide {
            while j < clusters.len() && clusters[j].kind == kind {
                j += 1;
            }
        }
        let token = &clusters[i..j];
        let token_w: usize = token.iter().map(|c| c.width).sum();
        i = j;

        if kind == Kind::Space {
            if b.cur.is_empty() {
                // Leading whitespace: kept on the first line when it leaves room for text.
                if b.on_first_line() && token_w < b.avail() {
                    token.iter().for_each(|c| b.push(c));
                }
                continue;
            }
            // Interior whitespace: placed only if the next word also fits.
            let next_w = next_token_width(&clusters[i..]);
            if next_w.is_some_and(|w| b.cur_w + token_w + w <= b.avail()) {
                token.iter().for_each(|c| b.push(c));
            } else if next_w.is_some() {
                b.finish_line();
            }
            continue;
        }

        if b.cur_w + token_w <= b.avail() {
            token.iter().for_each(|c| b.push(c));
            continue;
        }
        if b.cur_w > 0 && token_w <= b.avail_next() {
            b.finish_line();
            token.iter().for_each(|c| b.push(c));
            continue;
        }
        // The word is longer than a line: break it between clusters.
        for c in token {
            if b.cur_w + c.width > b.avail() && b.cur_w > 0 {
                b.finish_line();
            }
            b.push(c);
        }
    }
    if !b.cur.is_empty() || b.out.is_empty() {
        b.finish_line();
    }
    b.out
}

impl Builder<'_> {
    /// Columns available on a continuation line.
    fn avail_next(&self) -> usize {
        self.width - self.rest_w
    }
}

/// Width of the word token at the start of `clusters` (None if there is none).
fn next_token_width(clusters: &[Cluster]) -> Option<usize> {
    let first = clusters.first()?;
    if first.kind == Kind::Wide {
        return Some(first.width);
    }
    Some(
        clusters
            .iter()
            .take_while(|c| c.kind == first.kind)
            .map(|c| c.width)
            .sum(),
    )
}

/// Hard wrap (no word boundaries, whitespace kept) with prefixes; `width` includes them.
pub(crate) fn hard_wrap_prefixed(
    line: &Line<'static>,
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let line = &*super::tabs::expand_tabs(line);
    let mut b = Builder::new(line, width, first, rest);
    if b.first_w + spans_width(&line.spans) <= b.width {
        return b.whole();
    }
    for c in collect_clusters(line) {
        if b.cur_w + c.width > b.avail() && b.cur_w > 0 {
            b.finish_line();
        }
        b.push(&c);
    }
    if !b.cur.is_empty() || b.out.is_empty() {
        b.finish_line();
    }
    b.out
}

/// Spans of `n` spaces in `style` (nothing for 0).
pub(crate) fn spaces(n: usize, style: Style) -> Option<Span<'static>> {
    (n > 0).then(|| Span::styled(Cow::Owned(" ".repeat(n)), style))
}

#[cfg(test)]
mod tests;
