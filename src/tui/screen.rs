//! Writes frames to the terminal: each frame is drawn on a [`Canvas`] into a buffer that still
//! holds the last one, and the terminal is sent only what changed — letting the terminal itself
//! scroll the chat pane when its content moved.
//!
//! ratatui redraws a whole frame and diffs it against the last one cell by cell: when a
//! streamed reply pushes the chat up by one line, every cell of the pane differs and the whole
//! pane is rewritten (~60 bytes to the terminal per byte of reply), and every frame costs a
//! full redraw and diff even when one word changed. Here the chat pane's rows that show the same
//! line as last time are kept ([`canvas`]), the pane's move is found from its lines and done by
//! the terminal (a scroll region, DECSTBM, and DL/IL at its top: ~20 bytes), and only the rows
//! drawn this frame are compared with what the terminal shows. Whatever the guess, the rows sent
//! are diffed against what really is on screen, so a wrong guess costs bytes, never a wrong
//! picture. The changed cells are written by [`cells::Pen`]. Two buffers in all: what the
//! terminal shows and the frame (ratatui's `Terminal` kept two more).

use std::hash::Hasher;
use std::io::{self, Write};

mod canvas;
mod cells;

pub use canvas::Canvas;

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::{Rect, Size};
use unicode_width::UnicodeWidthStr;

/// A terminal drawn frame by frame.
pub struct Screen<W: Write> {
    out: W,
    /// What the terminal shows now.
    shown: Buffer,
    /// The frame being drawn: the last one until the next frame changes it.
    next: Buffer,
    pen: cells::Pen,
    pane: canvas::Pane,
    /// A size reported since the last frame.
    new_size: Option<Rect>,
    /// Scratch copies of the rows being compared (their capacity is kept).
    was: Buffer,
    now: Buffer,
    /// The frame's bytes, written to `out` at once (their capacity is kept).
    bytes: Vec<u8>,
}

/// A frame is written inside synchronized-update markers: the terminal shows it whole.
const BEGIN: &[u8] = b"\x1b[?2026h";
const END: &[u8] = b"\x1b[?2026l";

impl<W: Write> Screen<W> {
    /// A screen on `out` of the terminal's size, taken to be blank (a fresh alternate screen).
    pub fn new(out: W) -> io::Result<Self> {
        let (w, h) = crossterm::terminal::size()?;
        Self::with_area(out, Rect::new(0, 0, w, h))
    }

    /// A screen of a fixed `area` on `out` (no terminal queries): for tests and benchmarks.
    pub fn with_area(out: W, area: Rect) -> io::Result<Self> {
        Ok(Self {
            out,
            shown: Buffer::empty(area),
            next: Buffer::empty(area),
            pen: cells::Pen::default(),
            pane: canvas::Pane::default(),
            new_size: None,
            was: Buffer::default(),
            now: Buffer::default(),
            bytes: Vec::new(),
        })
    }

    /// The last frame drawn.
    pub fn shown(&self) -> &Buffer {
        &self.shown
    }

    pub fn size(&self) -> io::Result<Size> {
        let area = self.new_size.unwrap_or(self.shown.area);
        Ok(Size::new(area.width, area.height))
    }

    /// The terminal reported a new size (crossterm's resize event): the next frame is drawn at
    /// it, on a cleared screen. (Asking the terminal its size every frame would cost an
    /// `open("/dev/tty")` and an ioctl per frame.)
    pub fn resized(&mut self, width: u16, height: u16) {
        self.new_size = Some(Rect::new(0, 0, width, height));
    }

    /// The terminal was cleared behind our back (the editor ran on it): the next frame draws
    /// every cell.
    pub fn forget_shown(&mut self) {
        let area = self.shown.area;
        self.shown = Buffer::empty(area);
        self.next = Buffer::empty(area);
        self.pane.forget();
        self.pen.lost_cursor();
    }

    /// Draws a frame with `render`, which declares the chat pane ([`Canvas::start`]) first. What
    /// changed is written in one `write` (each write to a terminal wakes its reader, and a
    /// woken reader can take the CPU from this thread: one write, one wake-up), inside
    /// synchronized-update markers; a frame that changed nothing writes nothing.
    pub fn draw(&mut self, render: impl FnOnce(&mut Canvas)) -> io::Result<()> {
        self.bytes.clear();
        self.bytes.extend_from_slice(BEGIN);
        // A new size clears the terminal, and nothing drawn before is kept.
        if let Some(area) = self.new_size.take()
            && area != self.shown.area
        {
            self.bytes.extend_from_slice(b"\x1b[H\x1b[2J");
            self.shown = Buffer::empty(area);
            self.next = Buffer::empty(area);
            self.pane.forget();
            self.pen.lost_cursor();
        }
        let mut marks = canvas::Marks::default();
        let mut canvas = Canvas::retained(&mut self.next, &mut self.pane, &mut marks);
        render(&mut canvas);
        canvas.finish();
        if let Some((region, amount)) = marks.scroll {
            // Inside the region's margins, delete (DL) or insert (IL) lines at its top row: the
            // rows below move up (down) and blank rows come in at the other end — SU/SD, in the
            // form every terminal has, the Linux console included. Between frames the pen is
            // back to the default style, so the new rows have the default background.
            let (n, op) = (amount.unsigned_abs(), if amount > 0 { 'M' } else { 'L' });
            let top = region.top() + 1;
            write!(
                self.bytes,
                "\x1b[{top};{}r\x1b[{top};1H\x1b[{n}{op}\x1b[r",
                region.bottom()
            )?;
            self.pen.lost_cursor();
            scroll(&mut self.shown, region, amount);
        }
        // The rows drawn, run by run: each run's cells as ratatui's diff finds them, written in
        // one go (the pen keeps its style and place from one run to the next).
        let width = usize::from(self.next.area.width);
        let top = self.next.area.y;
        let mut changed: Vec<(u16, u16)> = Vec::new();
        // A drawn row that came out as the terminal shows it (a status bar or an input box
        // drawn again the same) is not compared cell by cell.
        for (y, dirty) in marks.dirty.iter_mut().enumerate() {
            let row = y * width..(y + 1) * width;
            *dirty = *dirty && self.shown.content[row.clone()] != self.next.content[row];
        }
        let mut y = 0;
        while y < marks.dirty.len() {
            if !marks.dirty[y] {
                y += 1;
                continue;
            }
            let start = y;
            while y < marks.dirty.len() && marks.dirty[y] {
                y += 1;
            }
            let cells = start * width..y * width;
            let rows = (y - start) as u16;
            let run = Rect::new(
                self.next.area.x,
                top + start as u16,
                self.next.area.width,
                rows,
            );
            copy_rows(&mut self.was, &self.shown.content[cells.clone()], run);
            copy_rows(&mut self.now, &self.next.content[cells.clone()], run);
            let updates = with_right_halves(self.was.diff(&self.now), &self.was, &self.now);
            changed.extend(updates.into_iter().map(|(x, y, _)| (x, y)));
            self.shown.content[cells.clone()].clone_from_slice(&self.next.content[cells]);
        }
        let next = &self.next;
        let cells = changed.into_iter().map(|(x, y)| (x, y, &next[(x, y)]));
        self.pen.draw(&mut self.bytes, next, cells)?;
        if self.bytes.len() == BEGIN.len() {
            return Ok(());
        }
        self.bytes.extend_from_slice(END);
        self.out.write_all(&self.bytes)?;
        self.out.flush()
    }
}

/// ratatui's diff leaves the right half of a wide character that a narrow one replaced to the
/// terminal, which blanks it in the pen's attributes — in reverse video, a visible block. The
/// cell after such a narrow one is written too.
fn with_right_halves<'a>(
    updates: Vec<(u16, u16, &'a Cell)>,
    was: &Buffer,
    now: &'a Buffer,
) -> Vec<(u16, u16, &'a Cell)> {
    let mut out = Vec::with_capacity(updates.len());
    let mut it = updates.into_iter().peekable();
    while let Some((x, y, cell)) = it.next() {
        out.push((x, y, cell));
        let half = x + 1;
        if half < now.area.right()
            && cell.symbol().width() < 2
            && was[(x, y)].symbol().width() > 1
            && it.peek().is_none_or(|&(nx, ny, _)| (nx, ny) != (half, y))
        {
            out.push((half, y, &now[(half, y)]));
        }
    }
    out
}

/// `buf` made a copy of `cells`, the rows of `area`.
fn copy_rows(buf: &mut Buffer, cells: &[Cell], area: Rect) {
    buf.area = area;
    buf.content.clear();
    buf.content.extend_from_slice(cells);
}

/// The rustc "Fx" hash: a multiply and a rotate per word. Row hashes only decide which rows look
/// alike (a collision costs bytes, not correctness), so speed is what matters.
struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let mut last = [0u8; 8];
        let rest = chunks.remainder();
        last[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(last) ^ rest.len() as u64);
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// What the terminal does to `region` when its rows are scrolled up (`amount` > 0) or down:
/// rows move by `amount`, blank rows come in.
///
/// Done as one removal and one insertion in the buffer's cells (two moves of the cells after
/// them), not as a rotation of the region (a rotation by whole rows swaps blocks of cells: twice
/// the memory traffic, and it ran every frame a streamed reply scrolled).
pub fn scroll(buf: &mut Buffer, region: Rect, amount: i32) {
    let w = buf.area.width as usize;
    let start = (region.top() - buf.area.y) as usize * w;
    let end = start + region.height as usize * w;
    let n = (amount.unsigned_abs() as usize).min(region.height as usize) * w;
    let blank = std::iter::repeat_n(Cell::EMPTY, n);
    if amount > 0 {
        buf.content.drain(start..start + n);
        buf.content.splice(end - n..end - n, blank);
    } else {
        buf.content.drain(end - n..end);
        buf.content.splice(start..start, blank);
    }
}
