//! Tab characters made visible. A terminal cell cannot hold a tab (ratatui drops control
//! characters when it writes a buffer), so without this a tab vanished from the screen and a
//! change that only turned spaces into a tab showed nothing in the approval diff. Every line the
//! wrapping functions lay out passes through [`expand_tabs`] first: each tab becomes a dim `→`
//! padded with spaces to the next tab stop ([`TAB_WIDTH`] columns, counted from the start of
//! the line's own text).

use std::borrow::Cow;

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use super::wrap::str_width;

/// Columns between tab stops.
pub const TAB_WIDTH: usize = 4;

/// What a tab is drawn as (followed by the spaces up to the next tab stop).
pub const TAB_MARK: &str = "→";

/// `line` with every tab drawn as [`TAB_MARK`] and padding; borrowed when it has none.
pub fn expand_tabs<'a>(line: &'a Line<'static>) -> Cow<'a, Line<'static>> {
    if !line.spans.iter().any(|s| s.content.contains('\t')) {
        return Cow::Borrowed(line);
    }
    let mut spans: Vec<Span<'static>> = Vec::with_capacity(line.spans.len() + 2);
    let mut col = 0;
    for span in &line.spans {
        if !span.content.contains('\t') {
            col += str_width(&span.content);
            spans.push(span.clone());
            continue;
        }
        for (i, piece) in span.content.split('\t').enumerate() {
            if i > 0 {
                let pad = TAB_WIDTH - col % TAB_WIDTH;
                spans.push(Span::styled(
                    TAB_MARK,
                    span.style.add_modifier(Modifier::DIM),
                ));
                if pad > 1 {
                    spans.push(Span::styled(" ".repeat(pad - 1), span.style));
                }
                col += pad;
            }
            if !piece.is_empty() {
                col += str_width(piece);
                spans.push(Span::styled(piece.to_owned(), span.style));
            }
        }
    }
    Cow::Owned(Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    })
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Style};

    use super::*;

    fn text(l: &Line<'_>) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_tab_pads_to_the_next_stop() {
        let l = Line::from("\tx\ty\t\tz");
        assert_eq!(text(&expand_tabs(&l)), "→   x→  y→  →   z");
        let l = Line::from("abc\td");
        assert_eq!(text(&expand_tabs(&l)), "abc→d");
        // Wide characters count two columns.
        let l = Line::from("日\tx");
        assert_eq!(text(&expand_tabs(&l)), "日→ x");
    }

    #[test]
    fn the_mark_is_dim_in_its_span_style_and_columns_run_across_spans() {
        let red = Style::default().fg(Color::Red);
        let l = Line::from(vec![Span::raw("+ "), Span::styled("a\tb", red)]);
        let e = expand_tabs(&l);
        assert_eq!(text(&e), "+ a→b");
        let mark = e.spans.iter().find(|s| s.content == TAB_MARK).unwrap();
        assert_eq!(mark.style, red.add_modifier(Modifier::DIM));
    }

    /// Every path to the screen wraps its lines (chat entries, tool output, commands, code,
    /// the modal's diff): none hands on a tab, short lines and long ones alike.
    #[test]
    fn wrapped_lines_show_their_tabs() {
        use crate::tui::wrap::{hard_wrap_line, wrap_line};
        let short = Line::from("\tx");
        let long = Line::from("word\t".repeat(12));
        for lines in [
            wrap_line(&short, 40),
            wrap_line(&long, 20),
            hard_wrap_line(&short, 40),
            hard_wrap_line(&long, 20),
        ] {
            let shown: String = lines.iter().map(text).collect::<Vec<_>>().join("|");
            assert!(!shown.contains('\t'), "{shown:?}");
            assert!(shown.contains(TAB_MARK), "{shown:?}");
            assert!(lines.iter().all(|l| l.width() <= 40), "{shown:?}");
        }
        assert_eq!(text(&wrap_line(&short, 40)[0]), "→   x");
    }

    #[test]
    fn a_line_without_tabs_is_borrowed() {
        let l = Line::from("no tabs here");
        assert!(matches!(expand_tabs(&l), Cow::Borrowed(_)));
    }
}
