//! A long Markdown reply (headings, paragraphs, lists, tables, fenced code in several languages,
//! a long code block and a long table) streamed into the app in small, uneven chunks, with a
//! frame drawn through [`Screen`] every few chunks and replayed through a vt100 emulator:
//! every frame's picture is whole, and the chat pane is what the same text rendered in one
//! piece (highlighted, no cache) shows — so an incremental or lazy renderer cannot drift, at
//! the bottom (following) nor at the top (scrolled back at the end).

use std::time::Instant;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Color;
use ratatui::text::Line;

use super::app::{App, AppEvent};
use super::entry_lines::{Facts, entry_lines};
use super::markdown::render_markdown;
use super::screen::Screen;
use super::tests_support::{Shared, agent, app, key};
use super::theme::Theme;
use super::transcript::Entry;
use super::ui;
use crate::events::Event;
use crate::provider::{AssistantMessage, StreamDelta};

const W: u16 = 100;
const H: u16 = 30;

/// A reply like a model writes: every construct the renderer knows, some of them long.
pub(super) fn long_reply(sections: usize) -> String {
    let mut s = String::from(
        "# A long reply\n\nIntro with `code`, **bold** and a [link](https://x.y).\n\n",
    );
    for i in 0..sections {
        s += &format!("## Section {i}\n\nSome prose about item {i}: the *stream* keeps going, ");
        s += "and a long sentence wraps across the pane's width more than once because it goes on and on. ";
        s += "Ünïcödé — 日本語 🙂 too.\n\n";
        match i % 6 {
            0 => {
                s += "```rust\n";
                for k in 0..(3 + i % 5) {
                    s += &format!(
                        "fn f{k}(x: u32) -> u32 {{ let s = \"str {k}\"; x + {k} }} // c\n"
                    );
                }
                s += "```\n\n";
            }
            1 => {
                s += "| name | value | note |\n|---|---:|:---:|\n";
                for k in 0..(2 + i % 4) {
                    s += &format!(
                        "| row {k} | {} | a cell that is rather long, {k} |\n",
                        k * 37
                    );
                }
                s += "\n";
            }
            2 => {
                s += "- first item\n- second with `code`\n  continued\n- [x] done\n1. one\n2. two\n\n";
            }
            3 => {
                s += "```python\ndef g(a):\n    \"\"\"Doc.\"\"\"\n\n    return [x * 2 for x in a]\n```\n\n";
                s += "> a quote\n> on two lines\n\n---\n\n";
            }
            4 => {
                s += "```json\n{\n  \"id\": 1,\n  \"ok\": true\n}\n```\n\n```bash\nfor f in *; do echo \"$f\"; done\n```\n\n";
            }
            _ => {
                s += "```\nplain code\n\twith a tab\n```\n\n";
            }
        }
    }
    // A model writing a whole file, then a long table: single blocks that grow for a while.
    s += "```rust\n";
    for k in 0..120 {
        s += &format!(
            "    let v{k} = compute({k}, \"{}\"); // line {k}\n",
            "x".repeat(k % 40)
        );
    }
    s += "```\n\n| a | b |\n|---|---|\n";
    for k in 0..60 {
        s += &format!("| {k} | {} |\n", "cell ".repeat(k % 12));
    }
    s += "\nThe end.\n";
    s
}

struct Rig {
    screen: Screen<Shared>,
    out: Shared,
    vt: vt100::Parser,
    fed: usize,
}

impl Rig {
    fn new() -> Self {
        let out = Shared::default();
        Self {
            screen: Screen::with_area(out.clone(), Rect::new(0, 0, W, H)).expect("screen"),
            out,
            vt: vt100::Parser::new(H, W, 0),
            fed: 0,
        }
    }

    /// Draws `app`; the emulator must show exactly the frame. Returns the chat pane's area.
    fn frame(&mut self, app: &App, now: Instant) -> Rect {
        let mut chat = Rect::default();
        self.screen
            .draw(|f| {
                chat = ui::draw(f, app, now);
            })
            .expect("draw");
        let bytes = self.out.0.borrow();
        self.vt.process(&bytes[self.fed..]);
        self.fed = bytes.len();
        drop(bytes);
        let buf = self.screen.shown();
        let vt = self.vt.screen();
        for y in 0..H {
            for x in 0..W {
                let got = vt.cell(y, x).expect("a cell");
                if got.is_wide_continuation() {
                    continue;
                }
                let want = &buf[(x, y)];
                let text = if got.contents().is_empty() {
                    " "
                } else {
                    got.contents()
                };
                assert_eq!(text, want.symbol(), "cell ({x},{y}):\n{}", vt.contents());
                if text != " " {
                    assert_eq!(colour(got.fgcolor()), indexed(want.fg), "fg of ({x},{y})");
                }
                assert_eq!(colour(got.bgcolor()), indexed(want.bg), "bg of ({x},{y})");
            }
        }
        chat
    }
}

/// The emulator's colour and the frame's, in one form (named colours are indices 0-15).
fn colour(c: vt100::Color) -> Color {
    match c {
        vt100::Color::Default => Color::Reset,
        vt100::Color::Idx(i) => Color::Indexed(i),
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

fn indexed(c: Color) -> Color {
    let named = [
        Color::Black,
        Color::Red,
        Color::Green,
        Color::Yellow,
        Color::Blue,
        Color::Magenta,
        Color::Cyan,
        Color::Gray,
        Color::DarkGray,
        Color::LightRed,
        Color::LightGreen,
        Color::LightYellow,
        Color::LightBlue,
        Color::LightMagenta,
        Color::LightCyan,
        Color::White,
    ];
    match named.iter().position(|&n| n == c) {
        Some(i) => Color::Indexed(i as u8),
        None => c,
    }
}

fn chat_app() -> App {
    let mut a = app();
    a.update(AppEvent::Resize(W, H));
    agent(
        &mut a,
        Event::UserMessage {
            text: "write it".into(),
            sent: "write it".into(),
        },
    );
    a
}

fn delta(a: &mut App, t: &str) {
    agent(a, Event::Delta(StreamDelta::Text(t.into())));
}

/// The rows of `area` in `buf`, cell by cell (symbol and style).
fn rows(buf: &Buffer, area: Rect) -> Vec<String> {
    (area.top()..area.bottom())
        .map(|y| {
            (area.left()..area.right())
                .map(|x| {
                    let c = &buf[(x, y)];
                    format!("{}{:?}{:?}{:?}", c.symbol(), c.fg, c.bg, c.modifier)
                })
                .collect()
        })
        .collect()
}

/// What the chat pane of `area` shows for the user's message and the reply `text` rendered
/// in one piece, code highlighted, without the chat view's cache: the bottom of it (following)
/// or the top (`top`).
fn from_scratch(text: &str, area: Rect, top: bool) -> Vec<String> {
    let theme = Theme::dark();
    let facts = Facts {
        theme: &theme,
        width: area.width,
        expanded: false,
        selected: false,
        elapsed: None,
        show_reasoning: true,
    };
    let user = Entry::User {
        text: "write it".into(),
    };
    let mut lines = entry_lines(&user, &facts);
    lines.extend(render_markdown(text, area.width, &theme));
    lines.push(Line::default());
    let h = usize::from(area.height);
    let first = if top {
        0
    } else {
        lines.len().saturating_sub(h)
    };
    let mut buf = Buffer::empty(area);
    for (y, line) in lines.iter().skip(first).take(h).enumerate() {
        buf.set_line(area.x, area.y + y as u16, line, area.width);
    }
    rows(&buf, area)
}

#[test]
fn a_long_markdown_reply_streamed_in_small_chunks_draws_what_a_render_from_scratch_draws() {
    crate::tui::highlight::warm_up();
    let text = long_reply(30);
    let now = Instant::now();
    let mut a = chat_app();
    let mut rig = Rig::new();
    let mut sent = 0;
    let mut seed: u64 = 0x51_7e_a4;
    let mut frames = 0u32;
    while sent < text.len() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // 1 to 48 bytes at a time, cut anywhere (on a character boundary).
        let mut end = (sent + 1 + (seed >> 59) as usize * 3).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        delta(&mut a, &text[sent..end]);
        sent = end;
        if (seed >> 20).is_multiple_of(3) || sent == text.len() {
            let chat = rig.frame(&a, now);
            frames += 1;
            if frames.is_multiple_of(7) || sent == text.len() {
                assert_eq!(
                    rows(rig.screen.shown(), chat),
                    from_scratch(&text[..sent], chat, false),
                    "the chat pane after {sent} of {} bytes",
                    text.len()
                );
            }
        }
    }
    assert!(frames > 100, "{frames} frames");
    agent(&mut a, Event::ReplyDone(AssistantMessage::default()));
    let chat = rig.frame(&a, now);
    assert_eq!(
        rows(rig.screen.shown(), chat),
        from_scratch(&text, chat, false)
    );
    // The top of the reply too, where the first blocks were rendered long ago.
    a.update(key(crossterm::event::KeyCode::Home));
    let chat = rig.frame(&a, now);
    assert_eq!(
        rows(rig.screen.shown(), chat),
        from_scratch(&text, chat, true)
    );
}
