//! What a frame is drawn on: a buffer, and — when a [`Screen`](super::Screen) draws — what lets
//! it keep the chat pane's rows that did not change.
//!
//! A frame declares its chat pane first ([`Canvas::start`]) and gives the pane's lines, already
//! wrapped ([`Canvas::draw_pane`]); everything else is drawn with widgets. The screen's buffer
//! still holds the last frame, so a pane row whose line is the one it showed last time (after
//! the pane scrolled, if it did) is left as it is: not drawn again, not compared with the
//! terminal. The rest is drawn on blank cells as before: rows outside the pane are blanked when
//! the frame starts, and a pane row a widget drew over (a modal, a marker) is drawn afresh in
//! the next frame. The scroll amount comes from the lines' hashes (the rows of the last frame
//! that reappear `k` rows higher or lower), and the screen has the terminal move those rows.
//!
//! Invariant: retained or not (tests draw on a fresh buffer), a frame leaves the same cells in
//! the buffer — `tui::retained_tests` checks it frame by frame against a fresh draw.

use std::hash::{Hash, Hasher};

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::FxHasher;

/// What a screen remembers of the last frame's chat pane. Invariant: the buffer's pane row `k`
/// shows `lines[k]`, or is blank past the end of `lines`.
#[derive(Default)]
pub struct Pane {
    area: Rect,
    lines: Vec<Line<'static>>,
    hashes: Vec<u64>,
    /// Rows (of the whole screen) a widget drew over in the last frame.
    covered: Vec<bool>,
}

impl Pane {
    /// Nothing of the last frame is known (a new size, a screen cleared behind our back).
    pub fn forget(&mut self) {
        *self = Self::default();
    }
}

/// What a frame drawn with retention did, for the screen to finish it.
#[derive(Default)]
pub struct Marks {
    /// Rows that may differ from the terminal (drawn this frame).
    pub dirty: Vec<bool>,
    /// The pane's area and how far its rows moved up (negative: down), when they moved.
    pub scroll: Option<(Rect, i32)>,
}

/// A frame being drawn.
pub struct Canvas<'a> {
    area: Rect,
    buf: &'a mut Buffer,
    /// The chat pane ([`Self::start`]).
    pane: Rect,
    started: bool,
    pane_drawn: bool,
    retain: Option<Retain<'a>>,
}

struct Retain<'a> {
    last: &'a mut Pane,
    marks: &'a mut Marks,
    /// Rows a widget drew over in this frame.
    covered: Vec<bool>,
}

impl<'a> Canvas<'a> {
    /// A frame drawn on `buf`, which is blank (a test's terminal, a fresh buffer).
    pub fn new(buf: &'a mut Buffer) -> Self {
        Self {
            area: buf.area,
            buf,
            pane: Rect::default(),
            started: false,
            pane_drawn: false,
            retain: None,
        }
    }

    /// A frame drawn on `buf`, which holds the last frame (whose pane `last` describes).
    pub(super) fn retained(buf: &'a mut Buffer, last: &'a mut Pane, marks: &'a mut Marks) -> Self {
        let rows = usize::from(buf.area.height);
        marks.dirty = vec![false; rows];
        marks.scroll = None;
        last.covered.resize(rows, false);
        Self {
            retain: Some(Retain {
                last,
                marks,
                covered: vec![false; rows],
            }),
            ..Self::new(buf)
        }
    }

    pub fn area(&self) -> Rect {
        self.area
    }

    /// The frame starts; `pane` is where [`Self::draw_pane`] will draw (empty: nowhere), whole
    /// rows of the screen. Every row outside it is blanked, to be drawn afresh. Called before
    /// anything is drawn; drawing without it starts a frame with no pane.
    pub fn start(&mut self, pane: Rect) {
        if self.started {
            return;
        }
        self.started = true;
        let area = self.area;
        let pane = pane.intersection(area);
        // A pane is whole rows (the terminal scrolls whole rows).
        let pane = if pane.is_empty() {
            Rect::default()
        } else {
            Rect::new(area.x, pane.y, area.width, pane.height)
        };
        self.pane = pane;
        let Some(r) = self.retain.as_mut() else {
            return;
        };
        for y in area.top()..area.bottom() {
            if y < pane.top() || y >= pane.bottom() {
                blank(self.buf, Rect::new(area.x, y, area.width, 1));
                r.marks.dirty[usize::from(y - area.y)] = true;
            }
        }
        if pane != r.last.area {
            // Another place or size: nothing of the last pane is reused.
            r.last.lines.clear();
            r.last.hashes.clear();
            r.last.area = pane;
            blank(self.buf, pane);
            for y in pane.top()..pane.bottom() {
                r.marks.dirty[usize::from(y - area.y)] = true;
            }
        }
    }

    /// The buffer, for a change that is the same in every frame (stripping colours): rows it
    /// changes are not marked as drawn.
    pub fn buffer_mut(&mut self) -> &mut Buffer {
        self.start(Rect::default());
        self.buf
    }

    /// Draws `widget` over `area`.
    pub fn render_widget(&mut self, widget: impl Widget, area: Rect) {
        self.start(Rect::default());
        let area = area.intersection(self.area);
        if let Some(r) = self.retain.as_mut() {
            for y in area.top()..area.bottom() {
                let row = usize::from(y - self.area.y);
                r.covered[row] = true;
                r.marks.dirty[row] = true;
            }
        }
        widget.render(area, self.buf);
    }

    /// Draws the pane declared by [`Self::start`]: `lines` from its top row (as many as fit;
    /// rows past them are blank). A row that shows the same line as in the last frame is kept;
    /// when the last frame's lines reappear higher or lower, the pane scrolls first. The lines
    /// are taken (a retained frame keeps them for the next one: no copy).
    pub fn draw_pane(&mut self, mut lines: Vec<Line<'static>>) {
        if self.pane_drawn {
            return;
        }
        self.pane_drawn = true;
        let area = self.pane;
        let h = usize::from(area.height);
        lines.truncate(h);
        let Some(r) = self.retain.as_mut() else {
            for (k, line) in lines.iter().enumerate() {
                self.buf
                    .set_line(area.x, area.y + k as u16, line, area.width);
            }
            return;
        };
        let top = self.area.y;
        let row = |y: u16| usize::from(y - top);
        let hashes: Vec<u64> = lines.iter().map(line_hash).collect();
        // A widget drew over the pane last frame: those rows are drawn again, and the pane does
        // not scroll (the terminal would move what the widget drew along with it).
        let covered = (area.top()..area.bottom()).any(|y| r.last.covered[row(y)]);
        let amount = if covered {
            0
        } else {
            scroll_amount(&r.last.hashes, &hashes, h)
        };
        if amount != 0 {
            super::scroll(self.buf, area, amount);
            shift(&mut r.last.lines, &mut r.last.hashes, amount, h);
            r.marks.scroll = Some((area, amount));
        }
        for (k, y) in (area.top()..area.bottom()).enumerate() {
            let new = lines.get(k);
            if !r.last.covered[row(y)] && r.last.lines.get(k) == new {
                continue;
            }
            blank(self.buf, Rect::new(area.x, y, area.width, 1));
            if let Some(line) = new {
                self.buf.set_line(area.x, y, line, area.width);
            }
            r.marks.dirty[row(y)] = true;
        }
        r.last.lines = lines;
        r.last.hashes = hashes;
    }

    /// Ends a retained frame: what was drawn over is remembered for the next one.
    pub(super) fn finish(mut self) {
        self.start(Rect::default());
        if !self.pane_drawn {
            self.draw_pane(Vec::new());
        }
        if let Some(r) = self.retain {
            r.last.covered = r.covered;
        }
    }
}

/// The rows of the last frame's pane as the terminal moves them: up `amount` rows (the top
/// ones gone, blank ones in at the bottom) or down (blank ones in at the top).
fn shift(lines: &mut Vec<Line<'static>>, hashes: &mut Vec<u64>, amount: i32, height: usize) {
    let n = (amount.unsigned_abs() as usize).min(height);
    if amount > 0 {
        let n = n.min(lines.len());
        lines.drain(..n);
        hashes.drain(..n);
    } else {
        lines.truncate(height - n);
        hashes.truncate(height - n);
        lines.splice(0..0, std::iter::repeat_n(Line::default(), n));
        hashes.splice(0..0, std::iter::repeat_n(line_hash(&Line::default()), n));
    }
}

fn line_hash(line: &Line<'_>) -> u64 {
    let mut h = FxHasher(0);
    line.hash(&mut h);
    h.finish()
}

fn blank(buf: &mut Buffer, area: Rect) {
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            buf[(x, y)] = Cell::EMPTY;
        }
    }
}

/// How many rows the pane's lines moved up from `old` to `new` (negative: down): the shift
/// under which the most rows of the new frame with a non-empty line are found in the old one,
/// when that beats not moving by at least two rows; else 0.
fn scroll_amount(old: &[u64], new: &[u64], height: usize) -> i32 {
    let empty = line_hash(&Line::default());
    let h = height as i32;
    let score = |k: i32| {
        (0..new.len())
            .filter(|&y| {
                let from = y as i32 + k;
                (0..h).contains(&from) && new[y] != empty && old.get(from as usize) == Some(&new[y])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scroll_is_the_shift_that_finds_most_rows_again() {
        let h = |s: &str| line_hash(&Line::from(s.to_owned()));
        let old: Vec<u64> = ["a", "b", "c", "d", "e"].map(h).to_vec();
        let up: Vec<u64> = ["c", "d", "e", "f", "g"].map(h).to_vec();
        let down: Vec<u64> = ["x", "a", "b", "c", "d"].map(h).to_vec();
        let same: Vec<u64> = ["a", "b", "c", "d", "f"].map(h).to_vec();
        assert_eq!(scroll_amount(&old, &up, 5), 2);
        assert_eq!(scroll_amount(&old, &down, 5), -1);
        assert_eq!(scroll_amount(&old, &same, 5), 0);
        // Blank lines do not count: a pane of blanks is not "the same" shifted.
        let blanks: Vec<u64> = ["", "", "", "", ""].map(h).to_vec();
        assert_eq!(scroll_amount(&blanks, &blanks, 5), 0);
    }

    #[test]
    fn shifting_the_last_lines_follows_what_the_terminal_does() {
        let l = |s: &str| Line::from(s.to_owned());
        let mut lines = vec![l("a"), l("b"), l("c")];
        let mut hashes: Vec<u64> = lines.iter().map(line_hash).collect();
        shift(&mut lines, &mut hashes, 1, 4);
        assert_eq!(lines, [l("b"), l("c")]);
        shift(&mut lines, &mut hashes, -2, 4);
        assert_eq!(lines, [Line::default(), Line::default(), l("b"), l("c")]);
        shift(&mut lines, &mut hashes, -1, 4);
        assert_eq!(
            lines,
            [Line::default(), Line::default(), Line::default(), l("b")]
        );
        assert_eq!(hashes, lines.iter().map(line_hash).collect::<Vec<_>>());
    }
}
