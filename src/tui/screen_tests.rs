//! [`Screen`] checked through a terminal emulator (vt100): after every frame, the picture its
//! bytes make is exactly the frame; a streaming chat costs a few bytes per byte of text.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::screen::{Canvas, Screen, scroll};
use super::tests_support::Shared;

/// A status row, the chat pane (lines from `top`), an input box, and optionally a modal over
/// the chat.
fn paint(f: &mut Canvas, status: &str, lines: &[Line<'static>], top: usize, modal: bool) {
    let status_row = Rect::new(0, 0, W, 1);
    let chat = Rect::new(0, 1, W, H - 4);
    let input = Rect::new(0, H - 3, W, 3);
    f.start(chat);
    f.render_widget(Paragraph::new(status.to_owned()), status_row);
    let shown: Vec<Line<'static>> = lines.iter().skip(top).cloned().collect();
    f.draw_pane(shown);
    f.render_widget(
        Block::default().borders(Borders::TOP | Borders::BOTTOM),
        input,
    );
    if modal {
        let m = Rect::new(10, 4, 40, 5);
        f.render_widget(Clear, m);
        f.render_widget(
            Paragraph::new("Run this command?").block(Block::default().borders(Borders::ALL)),
            m,
        );
    }
}

const W: u16 = 60;
const H: u16 = 16;

struct Rig {
    screen: Screen<Shared>,
    out: Shared,
    vt: vt100::Parser,
    /// Bytes already fed to `vt`.
    fed: usize,
}

impl Rig {
    fn new() -> Self {
        let out = Shared::default();
        let screen = Screen::with_area(out.clone(), Rect::new(0, 0, W, H)).unwrap();
        Self {
            screen,
            out,
            vt: vt100::Parser::new(H, W, 0),
            fed: 0,
        }
    }

    /// Draws a chat frame: a status row, the chat (lines from `top`), an input box, and
    /// optionally a modal over the chat. Checks the emulator's picture, and that the frame kept
    /// from the last one is the frame drawn afresh; returns the bytes written.
    fn frame(&mut self, status: &str, lines: &[Line<'static>], top: usize, modal: bool) -> usize {
        self.screen
            .draw(|f| paint(f, status, lines, top, modal))
            .unwrap();
        let bytes = self.out.0.borrow();
        let new = &bytes[self.fed..];
        self.vt.process(new);
        let n = new.len();
        self.fed = bytes.len();
        drop(bytes);
        let mut fresh = Buffer::empty(Rect::new(0, 0, W, H));
        paint(&mut Canvas::new(&mut fresh), status, lines, top, modal);
        assert_eq!(self.screen.shown(), &fresh, "the kept frame is the frame");
        self.assert_picture();
        n
    }

    /// The emulator shows exactly the last frame: every cell's text and colours.
    fn assert_picture(&self) {
        let buf = self.screen.shown();
        let vt = self.vt.screen();
        for y in 0..H {
            for x in 0..W {
                let got = vt.cell(y, x).expect("a cell");
                if got.is_wide_continuation() {
                    continue;
                }
                let want = &buf[(x, y)];
                let text = match got.contents() {
                    "" => " ",
                    s => s,
                };
                assert_eq!(
                    text,
                    want.symbol(),
                    "cell ({x},{y}); screen:\n{}",
                    vt.contents()
                );
                // A blank's foreground is invisible (and ratatui does not always rewrite it).
                if text != " " {
                    assert_eq!(colour(got.fgcolor()), want.fg, "fg of ({x},{y})");
                }
                assert_eq!(colour(got.bgcolor()), want.bg, "bg of ({x},{y})");
                let m = want.modifier;
                let attrs = (got.bold(), got.dim(), got.italic(), got.inverse());
                let wanted = (
                    m.contains(Modifier::BOLD),
                    m.contains(Modifier::DIM),
                    m.contains(Modifier::ITALIC),
                    m.contains(Modifier::REVERSED),
                );
                // Bold, dim and italic do not show on a blank (ratatui's diff leaves the half of
                // a wide character that a narrow one overwrote to the terminal, which clears it
                // in the pen's attributes); reverse video does.
                if text == " " {
                    assert_eq!(attrs.3, wanted.3, "reverse video of ({x},{y})");
                } else {
                    assert_eq!(attrs, wanted, "attributes of ({x},{y})");
                }
                if text != " " {
                    assert_eq!(got.underline(), m.contains(Modifier::UNDERLINED));
                }
            }
        }
    }
}

fn colour(c: vt100::Color) -> Color {
    match c {
        vt100::Color::Default => Color::Reset,
        vt100::Color::Idx(i) => match i {
            1 => Color::Red,
            2 => Color::Green,
            3 => Color::Yellow,
            i => Color::Indexed(i),
        },
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

fn word(i: usize) -> &'static str {
    [
        "alpha", "β", "gamma", "日本", "delta", "🙂", "epsilon", "x", "zeta", "eta",
    ][i % 10]
}

/// A line of styled words, as the chat renders them.
fn line(seed: usize, words: usize) -> Line<'static> {
    let spans: Vec<Span> = (0..words)
        .map(|k| {
            let style = match (seed + k) % 7 {
                0 => Style::default().fg(Color::Red),
                1 => Style::default()
                    .fg(Color::Green)
                    .add_modifier(Modifier::BOLD),
                2 => Style::default().fg(Color::Indexed(244)),
                3 => Style::default().add_modifier(Modifier::ITALIC | Modifier::REVERSED),
                4 => Style::default().fg(Color::Rgb(1, 2, 3)).bg(Color::Yellow),
                5 => Style::default().add_modifier(Modifier::DIM | Modifier::UNDERLINED),
                _ => Style::default(),
            };
            Span::styled(format!("{} ", word(seed * 7 + k)), style)
        })
        .collect();
    Line::from(spans)
}

#[test]
fn a_streamed_reply_scrolls_the_pane_in_the_terminal_and_costs_a_few_bytes_per_byte() {
    let mut rig = Rig::new();
    let chat_h = (H - 4) as usize;
    let mut lines: Vec<Line<'static>> = Vec::new();
    rig.frame("status", &lines, 0, false);
    let mut text_bytes = 0;
    let mut written = 0;
    // Words arrive one by one; a line holds six, then the next begins (following the end).
    for i in 0..600 {
        if i % 6 == 0 {
            lines.push(Line::default());
        }
        let span = Span::styled(format!("{} ", word(i)), Style::default().fg(Color::Green));
        text_bytes += span.content.len();
        lines.last_mut().unwrap().spans.push(span);
        let top = lines.len().saturating_sub(chat_h);
        written += rig.frame("status", &lines, top, false);
    }
    // Every frame is one synchronized update (its two markers, 16 bytes, are not the picture).
    let bytes = rig.out.0.borrow();
    let marks = |m: &[u8]| bytes.windows(m.len()).filter(|w| *w == m).count();
    assert_eq!(marks(b"\x1b[?2026h"), 601, "one begin marker a frame");
    assert_eq!(marks(b"\x1b[?2026l"), 601, "one end marker a frame");
    drop(bytes);
    let written = written - 601 * 16;
    // One frame per word is the worst case (frames batch what arrives within 16 ms).
    let per_byte = written as f64 / text_bytes as f64;
    assert!(
        per_byte <= 5.0,
        "{written} bytes for {text_bytes} bytes of text: {per_byte:.1} per byte"
    );
    let bytes = rig.out.0.borrow();
    let scrolled = bytes.windows(4).filter(|w| w == b"\x1b[1M").count();
    assert_eq!(
        scrolled,
        100 - chat_h,
        "one scroll per new line once the pane is full"
    );
}

#[test]
fn scrolling_up_and_down_a_modal_and_random_changes_always_leave_the_right_picture() {
    let mut rig = Rig::new();
    let chat_h = (H - 4) as usize;
    let mut lines: Vec<Line<'static>> = (0..80).map(|i| line(i, 1 + i % 9)).collect();
    let mut top = 0usize;
    let mut seed: u64 = 0x5EED;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut up_or_down = 0;
    for i in 0..400 {
        match next() % 7 {
            0 => top = top.saturating_sub(1 + next() % 5),
            1 => top = (top + 1 + next() % 5).min(lines.len().saturating_sub(chat_h)),
            2 => lines.push(line(next(), 1 + next() % 9)),
            3 => {
                let k = next() % lines.len();
                lines[k] = line(next(), next() % 9);
            }
            4 => top = lines.len().saturating_sub(chat_h),
            _ => top = top.saturating_sub(1),
        }
        let before = rig.fed;
        rig.frame(&format!("frame {i}"), &lines, top, next() % 5 == 0);
        let bytes = rig.out.0.borrow();
        let new = &bytes[before..];
        if new.windows(4).any(|w| w == b"M\x1b[r" || w == b"L\x1b[r") {
            up_or_down += 1;
        }
    }
    assert!(
        up_or_down > 50,
        "the terminal scrolled in {up_or_down} frames"
    );
}

#[test]
fn scrolling_a_region_moves_its_rows_and_blanks_what_comes_in() {
    let area = Rect::new(0, 0, 10, 8);
    let region = Rect::new(0, 1, 10, 6);
    // The rows above and below the region stay as they are.
    let frame = |rows: &[&str]| {
        let mut b = Buffer::empty(area);
        b.set_string(0, 0, "above", Style::default());
        for (y, r) in rows.iter().enumerate() {
            b.set_string(0, 1 + y as u16, r, Style::default());
        }
        b.set_string(0, 7, "below", Style::default());
        b
    };
    let mut moved = frame(&["a", "b", "c", "d", "e", "f"]);
    scroll(&mut moved, region, 2);
    assert_eq!(moved, frame(&["c", "d", "e", "f", "", ""]));
    scroll(&mut moved, region, -1);
    assert_eq!(moved, frame(&["", "c", "d", "e", "f", ""]));
    scroll(&mut moved, region, -9);
    assert_eq!(moved, frame(&[]), "more than the region: all of it blank");
    let mut moved = frame(&["a", "b", "c", "d", "e", "f"]);
    scroll(&mut moved, region, 6);
    assert_eq!(moved, frame(&[]));
    assert_eq!(moved.content.len(), 80, "as many cells as before");
}
