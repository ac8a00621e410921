//! One-off notices outside the transcript, wrapped instead of cut at the screen's edge: a
//! retry's error with its countdown (at the chat pane's bottom, which gives up those rows),
//! and the flash line under the input (a slash command's error, a hint). Each takes as many
//! rows as its words need up to a limit; a text longer still ends with `…` on its last row.

use std::time::Instant;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::duration_text;
use crate::tui::app::{Activity, App};
use crate::tui::wrap::{truncate_spans, wrap_line_indent};

/// Rows the flash line may take.
pub const FLASH_ROWS: usize = 3;

/// `text` wrapped to `width` (continuation rows indented by two), in at most `max_rows` rows.
pub fn wrapped(text: &str, style: Style, width: u16, max_rows: usize) -> Vec<Line<'static>> {
    let line = Line::from(Span::styled(text.to_owned(), style));
    let mut rows = wrap_line_indent(&line, width.max(1), &[Span::raw("  ")]);
    if rows.len() > max_rows.max(1) {
        rows.truncate(max_rows.max(1));
        if let Some(last) = rows.last_mut() {
            let room = usize::from(width.max(1)).saturating_sub(2);
            let mut spans = truncate_spans(&last.spans, room, false);
            spans.push(Span::styled(" …", style));
            last.spans = spans;
        }
    }
    rows
}

/// The flash line's rows at `width`.
pub fn flash_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    app.flash()
        .map(|m| wrapped(m, app.theme().notice, width, FLASH_ROWS))
        .unwrap_or_default()
}

/// How many rows the flash `text` takes at `width` (0 without one).
pub fn flash_rows(text: Option<&str>, width: u16) -> u16 {
    text.map_or(0, |m| {
        wrapped(m, Style::default(), width, FLASH_ROWS).len() as u16
    })
}

/// A retry's notice, wrapped to `width` in at most `max_rows` rows; empty unless retrying.
pub fn retry_lines(app: &App, now: Instant, width: u16, max_rows: usize) -> Vec<Line<'static>> {
    let Activity::Retrying {
        until,
        retry,
        max,
        error,
    } = app.activity()
    else {
        return Vec::new();
    };
    let msg = format!(
        "⚠ {error} — retrying in {} (attempt {retry}/{max})",
        duration_text::spaced(until.saturating_duration_since(now))
    );
    wrapped(&msg, app.theme().notice, width, max_rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'static>]) -> Vec<String> {
        lines.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn a_long_notice_wraps_with_every_word_kept() {
        let rows = wrapped(
            "⚠ the server answered 503: overloaded — retrying in 2 s (attempt 1/4)",
            Style::default(),
            30,
            5,
        );
        assert_eq!(
            text(&rows),
            [
                "⚠ the server answered 503:",
                "  overloaded — retrying in 2 s",
                "  (attempt 1/4)"
            ]
        );
    }

    #[test]
    fn past_its_rows_a_notice_ends_with_an_ellipsis() {
        let rows = wrapped("one two three four five six", Style::default(), 10, 2);
        assert_eq!(text(&rows), ["one two", "  three …"]);
        assert_eq!(flash_rows(Some("one two three four five six seven"), 10), 3);
        assert_eq!(flash_rows(None, 10), 0);
    }
}
