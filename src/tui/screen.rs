//! Writes frames to the terminal: ratatui renders each frame into its buffer, and this module
//! sends the terminal only what changed — letting the terminal itself scroll the chat pane when
//! its content moved.
//!
//! ratatui diffs a frame against the last one cell by cell, so when a streamed reply pushes the
//! chat up by one line, every cell of the pane differs and the whole pane is rewritten: ~60 bytes
//! to the terminal per byte of reply. Instead, [`Screen`] keeps a copy of what the terminal shows,
//! finds how far the pane's rows moved ([`scroll_amount`]), has the terminal move them (a scroll
//! region, DECSTBM, and DL/IL at its top: ~20 bytes), moves its copy the same way, and diffs the new frame
//! against that. Whatever the amount, the diff is against what really is on screen, so a wrong
//! guess costs bytes, never a wrong picture. Only full-width regions are scrolled (a scroll
//! region spans whole rows). The changed cells are written by [`cells::Pen`].

use std::hash::{Hash, Hasher};
use std::io::{self, Write};

mod cells;

use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::{Frame, Terminal};

/// A terminal drawn frame by frame.
pub struct Screen<W: Write> {
    term: Terminal<CrosstermBackend<W>>,
    /// What the terminal shows now.
    shown: Buffer,
    /// The frame being written (taken from ratatui's current buffer).
    next: Buffer,
    pen: cells::Pen,
    /// A size reported since the last frame.
    new_size: Option<Rect>,
}

impl<W: Write> Screen<W> {
    /// A screen on `out`, taken to be blank (a fresh alternate screen).
    pub fn new(out: W) -> io::Result<Self> {
        let term = Terminal::new(CrosstermBackend::new(out))?;
        Ok(Self {
            term,
            shown: Buffer::default(),
            next: Buffer::default(),
            pen: cells::Pen::default(),
            new_size: None,
        })
    }

    /// A screen of a fixed `area` on `out` (no terminal queries): for tests and benchmarks.
    pub fn with_area(out: W, area: Rect) -> io::Result<Self> {
        let options = ratatui::TerminalOptions {
            viewport: ratatui::Viewport::Fixed(area),
        };
        let term = Terminal::with_options(CrosstermBackend::new(out), options)?;
        Ok(Self {
            term,
            shown: Buffer::default(),
            next: Buffer::default(),
            pen: cells::Pen::default(),
            new_size: None,
        })
    }

    /// The last frame drawn.
    pub fn shown(&self) -> &Buffer {
        &self.shown
    }

    pub fn size(&self) -> io::Result<ratatui::layout::Size> {
        self.term.size()
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
        self.shown = Buffer::default();
        self.pen.lost_cursor();
    }

    /// Draws a frame. `render` draws it and returns the region whose rows may have scrolled
    /// (the chat pane), or an empty `Rect`.
    pub fn draw(&mut self, render: impl FnOnce(&mut Frame) -> Rect) -> io::Result<()> {
        // A new size clears the terminal (and ratatui's buffers).
        if let Some(area) = self.new_size.take()
            && area != self.shown.area
        {
            self.term.resize(area)?;
        }
        let mut frame = self.term.get_frame();
        let region = render(&mut frame);
        // Take the frame out of ratatui's buffer in exchange for a spare of the same size (its
        // diff is not used, so the spare is only ever reset and drawn into again).
        let current = self.term.current_buffer_mut();
        if self.next.area != current.area {
            self.next = Buffer::empty(current.area);
        }
        std::mem::swap(&mut self.next, current);
        if self.shown.area != self.next.area {
            // A new size: the terminal was cleared.
            self.shown = Buffer::empty(self.next.area);
            self.pen.lost_cursor();
        }
        let mut updates = self.shown.diff(&self.next);
        // Most frames change a row or two (the line being streamed): nothing to look for then.
        // (The updates come row by row.)
        let mut rows = updates
            .iter()
            .map(|&(_, y, _)| y)
            .filter(|&y| y >= region.top() && y < region.bottom())
            .collect::<Vec<_>>();
        rows.dedup();
        let amount = if rows.len() >= 3 {
            scroll_amount(&self.shown, &self.next, region)
        } else {
            0
        };
        let backend = self.term.backend_mut();
        if amount != 0 {
            // Inside the region's margins, delete (DL) or insert (IL) lines at its top row: the
            // rows below move up (down) and blank rows come in at the other end — SU/SD, in the
            // form every terminal has, the Linux console included. Between frames the pen is
            // back to the default style, so the new rows have the default background.
            let (n, op) = (amount.unsigned_abs(), if amount > 0 { 'M' } else { 'L' });
            let top = region.top() + 1;
            write!(
                backend,
                "\x1b[{top};{}r\x1b[{top};1H\x1b[{n}{op}\x1b[r",
                region.bottom()
            )?;
            self.pen.lost_cursor();
            scroll(&mut self.shown, region, amount);
            updates = self.shown.diff(&self.next);
        }
        self.pen.draw(backend, &self.next, updates.into_iter())?;
        Backend::flush(backend)?;
        std::mem::swap(&mut self.shown, &mut self.next);
        // ratatui's own diff is not used; this only gives the next frame a clean buffer.
        self.term.swap_buffers();
        Ok(())
    }
}

/// How many rows the content of `region` moved up from `shown` to `next` (negative: down), when
/// letting the terminal move them saves rewriting at least two rows; else 0.
pub fn scroll_amount(shown: &Buffer, next: &Buffer, region: Rect) -> i32 {
    let area = next.area;
    if shown.area != area
        || region.x != area.x
        || region.width != area.width
        || region.height < 3
        || region.top() < area.top()
        || region.bottom() > area.bottom()
    {
        return 0;
    }
    let old = row_hashes(shown, region);
    let new = row_hashes(next, region);
    let blank = row_hash(std::iter::repeat_n(&Cell::EMPTY, area.width as usize));
    let h = new.len() as i32;
    // Rows of the new frame (not blank) found in the old one `k` rows lower.
    let score = |k: i32| {
        (0..h)
            .filter(|&y| {
                let from = y + k;
                (0..h).contains(&from)
                    && new[y as usize] != blank
                    && new[y as usize] == old[from as usize]
            })
            .count()
    };
    let stay = score(0);
    let mut best = (0, stay);
    for k in 1..h {
        for k in [k, -k] {
            let s = score(k);
            if s > best.1 {
                best = (k, s);
            }
        }
    }
    if best.1 >= stay + 2 { best.0 } else { 0 }
}

fn row(buf: &Buffer, y: u16) -> &[Cell] {
    let w = buf.area.width as usize;
    let start = (y - buf.area.y) as usize * w;
    &buf.content[start..start + w]
}

fn row_hashes(buf: &Buffer, region: Rect) -> Vec<u64> {
    (region.top()..region.bottom())
        .map(|y| row_hash(row(buf, y).iter()))
        .collect()
}

fn row_hash<'a>(cells: impl Iterator<Item = &'a Cell>) -> u64 {
    let mut h = FxHasher(0);
    for c in cells {
        c.hash(&mut h);
    }
    h.finish()
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
pub fn scroll(buf: &mut Buffer, region: Rect, amount: i32) {
    let w = buf.area.width as usize;
    let start = (region.top() - buf.area.y) as usize * w;
    let rows = &mut buf.content[start..start + region.height as usize * w];
    let n = (amount.unsigned_abs() as usize).min(region.height as usize) * w;
    if amount > 0 {
        rows.rotate_left(n);
        let len = rows.len();
        rows[len - n..].fill(Cell::EMPTY);
    } else {
        rows.rotate_right(n);
        rows[..n].fill(Cell::EMPTY);
    }
}
