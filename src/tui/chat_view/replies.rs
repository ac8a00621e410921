//! An assistant reply's lines in the chat pane, rendered Markdown block by block: the finished
//! blocks' lines are kept while the reply streams (only the text after them is rendered again),
//! and code is rendered plain first and coloured only once it is on screen.
//!
//! Why: a fast reply brings far more text between two frames than the pane shows, and syntax
//! highlighting is most of what rendering costs (regexes per code line); the blocks that scroll
//! past unseen are never highlighted, and one scrolled back to is coloured when it shows up.
//! Plain and coloured code have the same text and line breaks (colour is all that differs), so
//! the line counts the scrolling arithmetic uses do not change when a block is coloured.
//!
//! Invariant: what is drawn is what [`render_markdown`] of each block, joined by one blank
//! line, gives — the lines of the blocks on screen are always coloured when drawn. It does not
//! own the cache itself (`ChatView` does) nor decide what is on screen.

use std::ops::Range;

use ratatui::text::Line;

use crate::tui::markdown::{render_markdown, render_markdown_plain, split_blocks};
use crate::tui::theme::Theme;

/// What is known about a reply's cached lines besides the lines.
#[derive(Clone, Default)]
pub(super) struct Reply {
    /// Bytes of the text that are finished blocks.
    text_end: usize,
    /// Lines those blocks rendered to (without a trailing separator).
    lines: usize,
    /// Blocks whose code was left plain, in order: still to colour when they show.
    plain: Vec<Plain>,
}

#[derive(Clone)]
struct Plain {
    /// The block's lines in the entry's lines.
    lines: Range<usize>,
    /// The block's text in the reply.
    text: Range<usize>,
}

/// Renders `text` into `old` (the reply's lines from the last render, kept up to the finished
/// blocks'), updating `reply`. Code is left plain ([`colour`] colours it), except in the last
/// block when `colour_last` (the pane follows the end, so that block is on screen: rendering
/// it plain and then coloured would render it twice each frame while it streams).
pub(super) fn render(
    text: &str,
    old: Vec<Line<'static>>,
    reply: &mut Reply,
    width: u16,
    theme: &Theme,
    colour_last: bool,
) -> Vec<Line<'static>> {
    let mut lines = old;
    if reply.text_end > text.len()
        || !text.is_char_boundary(reply.text_end)
        || lines.len() < reply.lines
    {
        *reply = Reply::default();
    }
    lines.truncate(reply.lines);
    let kept = reply.lines;
    reply.plain.retain(|p| p.lines.end <= kept);
    let base = reply.text_end;
    let tail = &text[base..];
    let ranges = split_blocks(tail);
    for (k, range) in ranges.iter().enumerate() {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        let start = lines.len();
        let source = &tail[range.clone()];
        let (block, plain) = if colour_last && k + 1 == ranges.len() {
            (render_markdown(source, width.max(8), theme), false)
        } else {
            render_markdown_plain(source, width.max(8), theme)
        };
        lines.extend(block);
        if plain {
            reply.plain.push(Plain {
                lines: start..lines.len(),
                text: base + range.start..base + range.end,
            });
        }
        if let Some(next) = ranges.get(k + 1) {
            reply.text_end = base + next.start;
            reply.lines = lines.len();
        }
    }
    lines.push(Line::default());
    lines
}

/// Colours the plain blocks among `shown` (line indices) of a reply rendered by [`render`]
/// from `text`. Returns how many lines the reply gained (negative: lost), which is 0 unless
/// the highlighter broke lines differently.
pub(super) fn colour(
    text: &str,
    lines: &mut Vec<Line<'static>>,
    reply: &mut Reply,
    shown: Range<usize>,
    width: u16,
    theme: &Theme,
) -> isize {
    let mut shift = 0isize;
    let mut k = 0;
    while k < reply.plain.len() {
        let p = &mut reply.plain[k];
        p.lines = moved(&p.lines, shift);
        let overlaps = p.lines.start < shown.end && shown.start < p.lines.end;
        let Some(source) = text.get(p.text.clone()).filter(|_| overlaps) else {
            k += 1;
            continue;
        };
        let coloured = render_markdown(source, width.max(8), theme);
        let end = p.lines.end.min(lines.len());
        let start = p.lines.start.min(end);
        let grown = coloured.len() as isize - (end - start) as isize;
        if reply.lines >= end {
            reply.lines = reply.lines.saturating_add_signed(grown);
        }
        lines.splice(start..end, coloured);
        shift += grown;
        reply.plain.remove(k);
    }
    shift
}

fn moved(r: &Range<usize>, by: isize) -> Range<usize> {
    r.start.saturating_add_signed(by)..r.end.saturating_add_signed(by)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module's invariant: each block rendered coloured, joined by one blank line.
    fn coloured_whole(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let mut whole = Vec::new();
        for r in split_blocks(text) {
            if !whole.is_empty() {
                whole.push(Line::default());
            }
            whole.extend(render_markdown(&text[r], width, theme));
        }
        whole.push(Line::default());
        whole
    }

    fn text_of(lines: &[Line]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn code_is_plain_until_coloured_and_then_as_a_whole_render_colours_it() {
        crate::tui::highlight::warm_up();
        let theme = Theme::dark();
        let text = "intro\n\n```rust\nfn main() { let x = 1; }\n```\n\nmiddle\n\n```python\ndef f():\n    return 2\n```\n\nend\n";
        let mut reply = Reply::default();
        let mut lines = render(text, Vec::new(), &mut reply, 60, &theme, false);
        let whole = coloured_whole(text, 60, &theme);
        assert_eq!(text_of(&lines), text_of(&whole), "same text plain");
        assert_ne!(lines, whole, "but not coloured");
        assert_eq!(reply.plain.len(), 2);
        // Only the first code block is on screen: only it is coloured.
        let first = reply.plain[0].lines.clone();
        assert_eq!(
            colour(text, &mut lines, &mut reply, first.clone(), 60, &theme),
            0
        );
        assert_eq!(lines[first.clone()], whole[first]);
        assert_eq!(reply.plain.len(), 1);
        assert_ne!(lines, whole);
        let all = 0..lines.len();
        colour(text, &mut lines, &mut reply, all, 60, &theme);
        assert_eq!(lines, whole);
        assert!(reply.plain.is_empty());
    }

    /// Following the end, the block being streamed is rendered coloured at once; the blocks
    /// before it stay plain until shown, and what is drawn is the whole coloured render.
    #[test]
    fn the_last_block_is_coloured_at_once_when_the_pane_follows_the_end() {
        crate::tui::highlight::warm_up();
        let theme = Theme::dark();
        let text = "a\n\n```rust\nfn f() {}\n```\n\nb\n\n```python\ndef g():\n    return 1\n";
        let whole = coloured_whole(text, 40, &theme);
        let mut reply = Reply::default();
        let mut lines = Vec::new();
        for end in 1..=text.len() {
            if text.is_char_boundary(end) {
                lines = render(&text[..end], lines, &mut reply, 40, &theme, true);
            }
        }
        assert_eq!(
            reply.plain.len(),
            1,
            "only the finished rust block is plain"
        );
        let n = lines.len();
        let tail = reply.plain[0].lines.end..n;
        assert_eq!(
            lines[tail.clone()],
            whole[tail],
            "the streamed block is coloured"
        );
        colour(text, &mut lines, &mut reply, 0..n, 40, &theme);
        assert_eq!(lines, whole);
    }

    #[test]
    fn a_streamed_reply_keeps_its_finished_blocks_and_their_plain_marks() {
        let theme = Theme::dark();
        let text = "a\n\n```rust\nfn f() {}\n```\n\nb\n\n```sh\nls\n";
        let mut reply = Reply::default();
        let mut lines = Vec::new();
        for end in 1..=text.len() {
            lines = render(&text[..end], lines, &mut reply, 40, &theme, false);
        }
        let mut fresh = Reply::default();
        let scratch = render(text, Vec::new(), &mut fresh, 40, &theme, false);
        assert_eq!(lines, scratch);
        let marks = |r: &Reply| {
            r.plain
                .iter()
                .map(|p| (p.lines.clone(), p.text.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(marks(&reply), marks(&fresh));
        assert_eq!(reply.plain.len(), 2, "both code blocks, each once");
    }
}
