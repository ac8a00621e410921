//! Tests of the parent module.

use super::*;
use proptest::prelude::*;
use ratatui::style::{Color, Modifier};

fn text(lines: &[Line<'static>]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

#[test]
fn fits_unchanged() {
    let line = Line::from("hello world  ");
    assert_eq!(wrap_line(&line, 20), vec![line]);
}

#[test]
fn wraps_at_spaces_and_keeps_styles() {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let red = Style::default().fg(Color::Red);
    let line = Line::from(vec![
        Span::styled("the quick ", bold),
        Span::styled("brown fox jumps", red),
    ])
    .style(Style::default().bg(Color::Blue))
    .centered();
    let out = wrap_line(&line, 10);
    assert_eq!(text(&out), ["the quick", "brown fox", "jumps"]);
    assert_eq!(out[0].spans, [Span::styled("the quick", bold)]);
    assert_eq!(out[1].spans, [Span::styled("brown fox", red)]);
    for l in &out {
        assert_eq!(l.style, line.style);
        assert_eq!(l.alignment, line.alignment);
    }
}

#[test]
fn word_across_spans_stays_together() {
    let line = Line::from(vec![
        Span::raw("aaa bb"),
        Span::styled("cc", Style::default().fg(Color::Red)),
        Span::raw(" d"),
    ]);
    assert_eq!(text(&wrap_line(&line, 5)), ["aaa", "bbcc", "d"]);
}

#[test]
fn long_words_are_broken() {
    let line = Line::from("ab abcdefghij xy");
    assert_eq!(
        text(&wrap_line(&line, 4)),
        ["ab", "abcd", "efgh", "ij", "xy"]
    );
}

#[test]
fn cjk_is_double_width_and_breaks_between_characters() {
    let line = Line::from("漢字かな交じり文");
    let out = wrap_line(&line, 5);
    assert_eq!(text(&out), ["漢字", "かな", "交じ", "り文"]);
    assert!(out.iter().all(|l| l.width() <= 5));
}

#[test]
fn combining_marks_stay_with_base() {
    // "e" + COMBINING ACUTE, six times: width 6.
    let line = Line::from("e\u{301}".repeat(6));
    let out = wrap_line(&line, 4);
    assert_eq!(text(&out), ["e\u{301}".repeat(4), "e\u{301}".repeat(2)]);
}

#[test]
fn width_zero_is_one() {
    let out = wrap_line(&Line::from("ab 漢"), 0);
    assert_eq!(text(&out), ["a", "b", "\u{FFFD}"]);
}

#[test]
fn hanging_indent() {
    let out = wrap_line_prefixed(
        &Line::from("one two three four"),
        10,
        &[Span::raw("- ")],
        &[Span::raw("  ")],
    );
    assert_eq!(text(&out), ["- one two", "  three", "  four"]);
    let out = wrap_line_indent(&Line::from("one two three four"), 10, &[Span::raw("> ")]);
    assert_eq!(text(&out), ["one two", "> three", "> four"]);
}

#[test]
fn prefix_is_clipped_at_tiny_widths() {
    let out = wrap_line_prefixed(&Line::from("abc"), 3, &[Span::raw("│ │ ")], &[]);
    assert_eq!(text(&out), ["│ab", "c"]);
    assert_eq!(available_width(3, 4), 2);
    assert_eq!(available_width(1, 4), 1);
}

#[test]
fn hard_wrap_keeps_spaces() {
    let out = hard_wrap_line(&Line::from("    let x = 1;"), 6);
    assert_eq!(text(&out), ["    le", "t x = ", "1;"]);
}

#[test]
fn truncate_with_ellipsis() {
    let spans = [Span::raw("hello "), Span::raw("world")];
    let out = truncate_spans(&spans, 8, true);
    assert_eq!(Line::from(out).to_string(), "hello w…");
    assert_eq!(
        Line::from(truncate_spans(&spans, 3, false)).to_string(),
        "hel"
    );
}

fn non_ws(s: &str) -> String {
    s.chars().filter(|c| !is_break_space(*c)).collect()
}

/// Text from ASCII words, spaces, CJK, combining marks and emoji.
fn arb_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            4 => "[a-z]{1,12}",
            3 => Just(" ".to_string()),
            1 => Just("  ".to_string()),
            1 => "[漢字かな한국어]{1,6}",
            1 => Just("e\u{301}".to_string()),
            1 => Just("❤\u{FE0F}".to_string()),
            1 => Just("😀".to_string()),
            1 => "\\PC{1,4}",
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

fn split_spans(s: &str, cuts: &[usize]) -> Line<'static> {
    // Cut the text into spans at character positions, alternating styles.
    let chars: Vec<char> = s.chars().collect();
    let mut spans = Vec::new();
    let mut last = 0;
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (chars.len() + 1)).collect();
    points.sort_unstable();
    points.push(chars.len());
    for (k, p) in points.into_iter().enumerate() {
        if p > last {
            let style = if k % 2 == 0 {
                Style::default()
            } else {
                Style::default().fg(Color::Red)
            };
            spans.push(Span::styled(
                chars[last..p].iter().collect::<String>(),
                style,
            ));
            last = p;
        }
    }
    Line::from(spans)
}

proptest! {
    #[test]
    fn wrapped_lines_fit_and_keep_content(
        s in arb_text(),
        cuts in proptest::collection::vec(0usize..200, 0..4),
        width in 1u16..=120,
    ) {
        let line = split_spans(&s, &cuts);
        let out = wrap_line(&line, width);
        prop_assert!(!out.is_empty());
        for l in &out {
            prop_assert!(l.width() <= usize::from(width), "{:?} wider than {}", l.to_string(), width);
        }
        let joined: String = out.iter().map(|l| l.to_string()).collect();
        if width >= 2 {
            // Every cluster fits (the widest in the strategy is 2 columns, except for
            // rare three-column characters in \PC).
            let lossless = s.chars().all(|c| c.width().unwrap_or(0) <= 2);
            if lossless {
                prop_assert_eq!(non_ws(&joined), non_ws(&s));
            }
        }
    }

    #[test]
    fn indented_and_hard_wrapped_lines_fit(
        s in arb_text(),
        width in 1u16..=60,
        indent in 0usize..8,
    ) {
        let line = Line::from(s.clone());
        let ind = [Span::raw(" ".repeat(indent))];
        for l in wrap_line_prefixed(&line, width, &ind, &ind) {
            prop_assert!(l.width() <= usize::from(width));
        }
        let out = hard_wrap_line(&line, width);
        for l in &out {
            prop_assert!(l.width() <= usize::from(width));
        }
        if width >= 2 && s.chars().all(|c| c.width().unwrap_or(0) <= 2) {
            let joined: String = out.iter().map(|l| l.to_string()).collect();
            prop_assert_eq!(joined, s);
        }
    }
}

/// The general cluster walk, for comparison with the printable-ASCII shortcut.
fn clusters_the_long_way(line: &Line<'static>) -> Vec<(usize, usize, usize, usize, bool)> {
    let mut out = Vec::new();
    for (i, span) in line.spans.iter().enumerate() {
        for (start, end) in clusters(&span.content) {
            let text = &span.content[start..end];
            let space = text.chars().all(is_break_space);
            out.push((i, start, end, str_width(text), space));
        }
    }
    out
}

proptest! {
    #[test]
    fn printable_ascii_clusters_are_what_the_general_walk_finds(
        parts in proptest::collection::vec("[ -~]{0,30}", 1..4)
    ) {
        let line = Line::from(parts.iter().map(|p| Span::raw(p.clone())).collect::<Vec<_>>());
        let fast: Vec<_> = collect_clusters(&line)
            .iter()
            .map(|c| (c.span, c.start, c.end, c.width, c.kind == Kind::Space))
            .collect();
        prop_assert_eq!(fast, clusters_the_long_way(&line));
    }
}
