//! Splitting a Markdown text into top-level blocks, so a streaming reply re-renders only its last one.

use std::ops::Range;

/// Split `text` into top-level blocks: runs of lines separated by blank lines (only spaces or
/// tabs) that are not inside a fenced code block. Each range starts at the start of a
/// non-blank line and ends after the line end of the block's last line (or at the end of
/// `text`); the blank lines between blocks belong to no range.
///
/// A block followed by a blank line and more text never changes as text is appended, so a
/// caller can cache its rendered lines and re-render only the last block while a reply
/// streams. Rendering each block with [`render_markdown`](super::render_markdown) and joining the results with one
/// blank line gives the same lines as rendering the whole text for ordinary documents:
/// paragraphs, headings, fenced code (blank lines inside fences are handled, also when the
/// fence is indented in a list item), tables, rules, block quotes, tight lists. It differs
/// where a construct spans a blank line outside a fence:
/// - loose lists: an item's second paragraph (or an indented block after a blank line)
///   renders as a top-level paragraph/code block, without the item's hanging indent; items of
///   a loose list render alike (a blank line between items either way) but an ordered loose
///   list's numbering restarts from each block's first number, which is the source number;
/// - indented (4-space) code blocks with blank lines inside become several code blocks;
/// - HTML blocks that contain blank lines (`<pre>`, comments);
/// - link reference definitions (`[x]: url`) only apply within their own block;
/// - a block that renders to nothing (e.g. only a reference definition) still gets a blank
///   line when joined.
///
/// Fence detection is line-based: a line whose text (after indentation and list markers)
/// starts with three or more backticks or tildes opens a fence, closed by a line of at least as
/// many of the same character. Fences inside block quotes are not tracked (a blank line ends
/// a quote anyway).
pub fn split_blocks(text: &str) -> Vec<Range<usize>> {
    let mut blocks = Vec::new();
    let mut start: Option<usize> = None;
    let mut fence: Option<(u8, usize)> = None;
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        let line_start = pos;
        pos += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let blank = content.trim_matches([' ', '\t']).is_empty();
        if blank && fence.is_none() {
            if let Some(s) = start.take() {
                blocks.push(s..line_start);
            }
            continue;
        }
        start.get_or_insert(line_start);
        match fence {
            None => fence = fence_open(content),
            Some((ch, n)) => {
                if is_fence_close(content, ch, n) {
                    fence = None;
                }
            }
        }
    }
    if let Some(s) = start {
        blocks.push(s..text.len());
    }
    blocks
}

/// `Some((char, count))` if `line` opens a code fence (possibly inside list items).
fn fence_open(line: &str) -> Option<(u8, usize)> {
    let mut s = line.trim_start_matches([' ', '\t']);
    // Skip list markers: `- `, `* `, `+ `, `12. `, `3) `.
    loop {
        let b = s.as_bytes();
        let marker_len = match b.first() {
            Some(b'-' | b'*' | b'+') => 1,
            Some(b'0'..=b'9') => {
                let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
                match b.get(digits) {
                    Some(b'.' | b')') if digits <= 9 => digits + 1,
                    _ => 0,
                }
            }
            _ => 0,
        };
        if marker_len > 0 && matches!(b.get(marker_len), Some(b' ' | b'\t')) {
            s = s[marker_len..].trim_start_matches([' ', '\t']);
        } else {
            break;
        }
    }
    let ch = *s.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = s.bytes().take_while(|&c| c == ch).count();
    if n < 3 {
        return None;
    }
    // A backtick fence's info string cannot contain backticks (that is inline code).
    if ch == b'`' && s[n..].contains('`') {
        return None;
    }
    Some((ch, n))
}

fn is_fence_close(line: &str, ch: u8, n: usize) -> bool {
    let s = line.trim_start_matches([' ', '\t']);
    let run = s.bytes().take_while(|&c| c == ch).count();
    run >= n && s[run..].trim_matches([' ', '\t']).is_empty()
}

// ----------------------------------------------------------------------------------------------
