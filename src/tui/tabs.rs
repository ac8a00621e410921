//! Characters the screen would hide, made visible. A terminal cell cannot hold a tab (ratatui
//! drops control characters when it writes a buffer), so without this a tab vanished from the
//! screen and a change that only turned spaces into a tab showed nothing in the approval diff;
//! and a bidirectional control (U+202A–U+202E, U+2066–U+2069: "Trojan Source") makes a terminal
//! that applies bidi show a command in another order than the one that runs. Every line the
//! wrapping functions lay out passes through [`expand_tabs`] first: each tab becomes a dim `→`
//! padded with spaces to the next tab stop ([`TAB_WIDTH`] columns, counted from the start of
//! the line's own text), and each bidi control a dim `⟨U+202E⟩`.
//!
//! What the user approves and what tools did is shown with every invisible character drawn
//! (`crate::invisible`: tag characters, zero-width characters, variation selectors, a BOM…):
//! [`reveal`] makes each one a reversed `⟨ZWSP⟩`, `⟨U+E0041⟩` in its span's style. The approval
//! modal (command, arguments, diff, the rule it would save), the chat's tool blocks and file
//! changes, and sayso's notices (the `/approvals` view among them) go through it; a reply's or
//! a message's text does not (a Persian reply is full of zero-width non-joiners).

use std::borrow::Cow;

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use super::wrap::str_width;

/// Columns between tab stops.
pub const TAB_WIDTH: usize = 4;

/// What a tab is drawn as (followed by the spaces up to the next tab stop).
pub const TAB_MARK: &str = "→";

/// A bidirectional embedding, override or isolate control.
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every bidi control written as a visible `⟨U+XXXX⟩`.
fn show_bidi(text: &str) -> String {
    text.chars()
        .map(|c| {
            if is_bidi_control(c) {
                format!("⟨U+{:04X}⟩", c as u32)
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// `line` with every tab drawn as [`TAB_MARK`] and padding, and every bidi control as
/// `⟨U+XXXX⟩`; borrowed when it has neither.
pub fn expand_tabs<'a>(line: &'a Line<'static>) -> Cow<'a, Line<'static>> {
    let hidden = |s: &Span<'_>| s.content.chars().any(|c| c == '\t' || is_bidi_control(c));
    if !line.spans.iter().any(hidden) {
        return Cow::Borrowed(line);
    }
    let bidi: Vec<Span<'static>> = line
        .spans
        .iter()
        .flat_map(|span| {
            if !span.content.chars().any(is_bidi_control) {
                return vec![span.clone()];
            }
            // Each control as its own dim span, the text around it as it was.
            let mut parts = Vec::new();
            let mut rest = String::new();
            for c in span.content.chars() {
                if is_bidi_control(c) {
                    if !rest.is_empty() {
                        parts.push(Span::styled(std::mem::take(&mut rest), span.style));
                    }
                    parts.push(Span::styled(
                        show_bidi(&c.to_string()),
                        span.style.add_modifier(Modifier::DIM),
                    ));
                } else {
                    rest.push(c);
                }
            }
            if !rest.is_empty() {
                parts.push(Span::styled(rest, span.style));
            }
            parts
        })
        .collect();
    let line = &Line {
        spans: bidi,
        style: line.style,
        alignment: line.alignment,
    };
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

/// `line` with every invisible character (`crate::invisible`) drawn as its reversed marker in
/// its span's style; the same line when there is none.
pub fn reveal(line: Line<'static>) -> Line<'static> {
    if !line.spans.iter().any(|s| crate::invisible::any(&s.content)) {
        return line;
    }
    let mut spans = Vec::with_capacity(line.spans.len() + 2);
    for span in &line.spans {
        for piece in crate::invisible::pieces(&span.content) {
            spans.push(match piece {
                crate::invisible::Piece::Text(t) => Span::styled(t.to_owned(), span.style),
                crate::invisible::Piece::Hidden(c) => Span::styled(
                    crate::invisible::marker(c),
                    span.style.add_modifier(Modifier::REVERSED),
                ),
            });
        }
    }
    Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    }
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
    fn bidi_controls_are_shown_not_applied() {
        // `rm -rf ~ #` reversed on screen by an RLO in a comment: the control shows as text.
        let l = Line::from("ls \u{202E}# ~ fr- mr\u{2066}x\u{2069}");
        let shown = text(&expand_tabs(&l));
        assert_eq!(shown, "ls ⟨U+202E⟩# ~ fr- mr⟨U+2066⟩x⟨U+2069⟩");
        assert!(!shown.chars().any(is_bidi_control));
        // With a tab too, the columns count the shown text.
        let l = Line::from("\u{202E}\tx");
        assert_eq!(text(&expand_tabs(&l)), "⟨U+202E⟩→   x");
    }

    #[test]
    fn invisible_characters_are_revealed_reversed_in_their_span_style() {
        let red = Style::default().fg(Color::Red);
        let l = Line::from(vec![
            Span::raw("$ "),
            Span::styled("cat a\u{200B}b\u{E0041}", red),
        ]);
        let r = reveal(l);
        assert_eq!(text(&r), "$ cat a⟨ZWSP⟩b⟨U+E0041⟩");
        let marker = r.spans.iter().find(|s| s.content == "⟨ZWSP⟩").unwrap();
        assert_eq!(marker.style, red.add_modifier(Modifier::REVERSED));
        let plain = Line::from("nothing hidden 👩\u{200D}💻");
        assert_eq!(reveal(plain.clone()), plain);
    }

    #[test]
    fn a_line_without_tabs_is_borrowed() {
        let l = Line::from("no tabs here");
        assert!(matches!(expand_tabs(&l), Cow::Borrowed(_)));
    }
}
