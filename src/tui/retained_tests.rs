//! The screen keeps the chat pane's unchanged rows from one frame to the next
//! (`screen::canvas`): here a chat goes through what changes a frame — a welcome, a streamed
//! reply with code, tool calls running and done, an approval modal opening and closing over the
//! pane, scrolling up while output arrives (the "new output" marker) and back, a narrower
//! terminal, reasoning shown and hidden, a retry's countdown, a flash message — and after every
//! frame the picture kept from the last one must be, cell for cell, the frame drawn afresh on a
//! blank buffer, and the terminal (a vt100 emulator fed the bytes) must show it.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::app::{App, AppEvent};
use super::screen::{Canvas, Screen};
use super::stream_render_tests::long_reply;
use super::tests_support::{
    Shared, agent, app, ctrl, deliberate, finished_tool, key, request, send,
};
use super::ui;
use crate::events::{Event, TurnEnd};
use crate::provider::{AssistantMessage, StreamDelta};

struct Rig {
    screen: Screen<Shared>,
    out: Shared,
    vt: vt100::Parser,
    fed: usize,
    size: (u16, u16),
    frames: usize,
}

impl Rig {
    fn new(w: u16, h: u16) -> Self {
        let out = Shared::default();
        Self {
            screen: Screen::with_area(out.clone(), Rect::new(0, 0, w, h)).expect("screen"),
            out,
            vt: vt100::Parser::new(h, w, 0),
            fed: 0,
            size: (w, h),
            frames: 0,
        }
    }

    fn resize(&mut self, app: &mut App, w: u16, h: u16) {
        app.update(AppEvent::Resize(w, h));
        self.screen.resized(w, h);
        self.vt.screen_mut().set_size(h, w);
        self.size = (w, h);
    }

    /// Draws a frame; it must be the frame drawn afresh, and the emulator must show it.
    fn frame(&mut self, app: &App, now: Instant, what: &str) {
        self.screen
            .draw(|f| {
                ui::draw(f, app, now);
            })
            .expect("draw");
        self.frames += 1;
        let (w, h) = self.size;
        let mut fresh = Buffer::empty(Rect::new(0, 0, w, h));
        ui::draw(&mut Canvas::new(&mut fresh), app, now);
        let kept = self.screen.shown();
        for y in 0..h {
            for x in 0..w {
                assert_eq!(
                    kept[(x, y)],
                    fresh[(x, y)],
                    "frame {} ({what}): cell ({x},{y})",
                    self.frames
                );
            }
        }
        let bytes = self.out.0.borrow();
        self.vt.process(&bytes[self.fed..]);
        self.fed = bytes.len();
        drop(bytes);
        let vt = self.vt.screen();
        for y in 0..h {
            for x in 0..w {
                let got = vt.cell(y, x).expect("a cell");
                if got.is_wide_continuation() {
                    continue;
                }
                let text = if got.contents().is_empty() {
                    " "
                } else {
                    got.contents()
                };
                assert_eq!(
                    text,
                    kept[(x, y)].symbol(),
                    "frame {} ({what}): the terminal's cell ({x},{y}):\n{}",
                    self.frames,
                    vt.contents()
                );
            }
        }
    }
}

fn delta(a: &mut App, t: &str) {
    agent(a, Event::Delta(StreamDelta::Text(t.into())));
}

/// Streams `text` in uneven pieces, a frame every few.
fn stream(a: &mut App, rig: &mut Rig, text: &str, now: Instant, what: &str) {
    let mut sent = 0;
    let mut seed: u64 = 0x5eed_1234;
    while sent < text.len() {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut end = (sent + 1 + (seed >> 58) as usize).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        delta(a, &text[sent..end]);
        sent = end;
        if (seed >> 20).is_multiple_of(2) || sent == text.len() {
            rig.frame(a, now, what);
        }
    }
}

#[test]
fn every_frame_kept_from_the_last_one_is_the_frame_drawn_afresh() {
    crate::tui::highlight::warm_up();
    let now = Instant::now();
    let mut a = app();
    let mut rig = Rig::new(80, 24);
    rig.resize(&mut a, 80, 24);
    rig.frame(&a, now, "empty chat");
    send(&mut a, "write it");
    rig.frame(&a, now, "the message sent");
    // Reasoning, then the reply; halfway, the user scrolls up (output goes on below, the
    // marker shows) and comes back.
    agent(
        &mut a,
        Event::Delta(StreamDelta::Reasoning("thinking about it\n".repeat(6))),
    );
    rig.frame(&a, now, "reasoning");
    let text = long_reply(8);
    let cut = |at: usize| {
        (at..text.len())
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(text.len())
    };
    let (half, more) = (cut(text.len() / 2), cut(text.len() / 2 + 2000));
    stream(&mut a, &mut rig, &text[..half], now, "streaming");
    a.update(key(KeyCode::PageUp));
    rig.frame(&a, now, "scrolled up");
    stream(&mut a, &mut rig, &text[half..more], now, "streaming below");
    a.update(key(KeyCode::PageUp));
    rig.frame(&a, now, "scrolled up more");
    a.update(key(KeyCode::PageDown));
    rig.frame(&a, now, "scrolled down");
    a.update(key(KeyCode::End));
    rig.frame(&a, now, "following again");
    stream(&mut a, &mut rig, &text[more..], now, "streaming the rest");
    agent(&mut a, Event::ReplyDone(AssistantMessage::default()));
    rig.frame(&a, now, "reply done");
    // Reasoning folded and unfolded (every line of the entry moves).
    a.update(ctrl('t'));
    rig.frame(&a, now, "reasoning hidden");
    a.update(ctrl('t'));
    rig.frame(&a, now, "reasoning shown");
    // A tool call, then an approval modal over the pane, answered.
    finished_tool(&mut a, "call_a", 30);
    rig.frame(&a, now, "a tool call");
    let (req, _answer) = request(1, 1, None, None);
    a.update(AppEvent::Approval(req));
    rig.frame(&a, now, "the approval modal");
    rig.frame(&a, now, "the approval modal again");
    // Answered (a reject, with Esc: the reason box, then Esc again) as a user who read it.
    deliberate(&mut a, key(KeyCode::Char('r')));
    rig.frame(&a, now, "the reason box");
    deliberate(&mut a, key(KeyCode::Enter));
    assert!(a.modal().is_none(), "the modal is answered");
    rig.frame(&a, now, "the modal gone");
    // A retry's countdown takes the pane's bottom rows, then goes.
    agent(
        &mut a,
        Event::Retrying(crate::provider::Retry {
            retry: 1,
            max_retries: 3,
            delay: Duration::from_secs(5),
            error: crate::provider::ProviderError::Status {
                status: 503,
                message: "Service Unavailable".into(),
                retry_after: None,
            },
        }),
    );
    rig.frame(&a, now, "retrying");
    rig.frame(&a, now + Duration::from_secs(2), "retrying, later");
    delta(&mut a, "Back again, with more text.\n\n");
    rig.frame(&a, now, "streaming after the retry");
    agent(&mut a, Event::ReplyDone(AssistantMessage::default()));
    agent(&mut a, Event::TurnEnded(TurnEnd::Completed));
    rig.frame(&a, now, "turn done");
    // A narrower terminal, then the input growing to several lines.
    rig.resize(&mut a, 60, 20);
    rig.frame(&a, now, "narrower");
    for _ in 0..3 {
        a.update(AppEvent::Paste("a line of input\n".into()));
    }
    rig.frame(&a, now, "a taller input");
    a.update(key(KeyCode::Home));
    rig.frame(&a, now, "the top of the chat");
    assert!(rig.frames > 40, "{} frames", rig.frames);
}
