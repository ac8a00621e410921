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
use ratatui::layout::{Alignment, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

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
        let area = self.drawing(area);
        widget.render(area, self.buf);
    }

    /// Draws `line` over `area` as `Paragraph::new(line)` does. A left-aligned line of
    /// [`simple`] characters (the status bar, the footer) goes a character a cell
    /// ([`set_line`]), without the paragraph's grapheme and width machinery: the same cells.
    pub fn render_line(&mut self, line: Line<'_>, area: Rect) {
        let plain = matches!(line.alignment, None | Some(Alignment::Left))
            && line.spans.iter().all(|s| s.content.chars().all(simple));
        if !plain {
            return self.render_widget(Paragraph::new(line), area);
        }
        let area = self.drawing(area);
        if !area.is_empty() {
            set_line(self.buf, area.x, area.y, &line, area.width);
        }
    }

    /// The part of `area` on the screen, its rows marked as drawn over (by a widget: drawn
    /// afresh next frame) in a retained frame.
    fn drawing(&mut self, area: Rect) -> Rect {
        self.start(Rect::default());
        let area = area.intersection(self.area);
        if let Some(r) = self.retain.as_mut() {
            for y in area.top()..area.bottom() {
                let row = usize::from(y - self.area.y);
                r.covered[row] = true;
                r.marks.dirty[row] = true;
            }
        }
        area
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
                set_line(self.buf, area.x, area.y + k as u16, line, area.width);
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
                set_line(self.buf, area.x, y, line, area.width);
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

/// [`Buffer::set_line`], the same cells, with the spans of [`simple`] characters written a
/// character a cell: each is one grapheme one column wide, which `set_line` finds only by
/// segmenting the text into graphemes and measuring each (most of what drawing a row cost).
pub fn set_line(buf: &mut Buffer, x: u16, y: u16, line: &Line<'_>, max_width: u16) -> (u16, u16) {
    let (mut x, mut room) = (x, max_width);
    for span in line {
        if room == 0 {
            break;
        }
        let style = line.style.patch(span.style);
        let text = span.content.as_ref();
        if !text.chars().all(simple) {
            let (to, _) = buf.set_stringn(x, y, text, usize::from(room), style);
            room = room.saturating_sub(to.saturating_sub(x));
            x = to;
            continue;
        }
        let n = buf.area.right().saturating_sub(x).min(room);
        if n == 0 {
            continue;
        }
        let at = buf.index_of(x, y);
        let mut written = 0;
        for (cell, c) in buf.content[at..at + usize::from(n)]
            .iter_mut()
            .zip(text.chars())
        {
            cell.set_char(c).set_style(style);
            written += 1;
        }
        x += written;
        room -= written;
    }
    (x, y)
}

/// A character that is a grapheme of its own whatever its neighbours are in a text of such
/// characters, one column wide: printable ASCII, and the Latin-1 letters and signs, general
/// punctuation (`…`, `·` is Latin-1), arrows, box drawing, blocks, geometric shapes and
/// Braille that a status bar, a border or a spinner is made of (none of them joins a
/// neighbour: no control, extending, prepended or spacing-mark character is among them).
pub fn simple(c: char) -> bool {
    match c {
        ' '..='~' => true,
        '\u{a1}'..='\u{ac}'
        | '\u{ae}'..='\u{ff}'
        | '\u{2010}'..='\u{2027}'
        | '\u{2030}'..='\u{205e}'
        | '\u{2190}'..='\u{21ff}'
        | '\u{2500}'..='\u{25ff}'
        | '\u{2800}'..='\u{28ff}' => unicode_width::UnicodeWidthChar::width(c) == Some(1),
        _ => false,
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
    use proptest::prelude::*;
    use ratatui::style::{Color, Modifier, Style};
    use ratatui::text::Span;

    /// Texts of every kind a line holds: printable ASCII (the fast path), and what is not —
    /// wide and combining characters, emoji, controls, a line end.
    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                6 => "[ -~]{0,12}",
                3 => "[ -~\u{a1}-\u{ff}\u{2010}-\u{205e}\u{2190}-\u{21ff}\u{2500}-\u{25ff}\u{2800}-\u{28ff}]{0,12}",
                1 => "[\u{a0}-\u{ff}\u{2000}-\u{2070}\u{2190}-\u{21ff}\u{2500}-\u{25ff}\u{2800}-\u{28ff}\u{300}\u{301}\u{200d}\u{fe0f}\u{1f600}]{0,8}",
                1 => Just("漢字".to_owned()),
                1 => Just("e\u{301}".to_owned()),
                1 => Just("🦀x".to_owned()),
                1 => Just("a\tb\x1b[31m".to_owned()),
                1 => Just("\r\n".to_owned()),
            ],
            0..3,
        )
        .prop_map(|parts| parts.concat())
    }

    fn style() -> impl Strategy<Value = Style> {
        (0u8..4, 0u8..3).prop_map(|(fg, m)| {
            let s = Style::default();
            let s = match fg {
                0 => s,
                1 => s.fg(Color::Red),
                2 => s.fg(Color::Indexed(33)).bg(Color::Blue),
                _ => s.bg(Color::Reset),
            };
            match m {
                0 => s,
                1 => s.add_modifier(Modifier::BOLD),
                _ => s.remove_modifier(Modifier::ITALIC),
            }
        })
    }

    fn line() -> impl Strategy<Value = Line<'static>> {
        let spans = prop::collection::vec((text(), style()), 0..5);
        (spans, style(), 0u8..4).prop_map(|(spans, s, align)| {
            let line = Line::from(
                spans
                    .into_iter()
                    .map(|(t, st)| Span::styled(t, st))
                    .collect::<Vec<_>>(),
            )
            .style(s);
            match align {
                0 => line,
                1 => line.left_aligned(),
                2 => line.centered(),
                _ => line.right_aligned(),
            }
        })
    }

    /// A buffer whose cells are not blank: what a write leaves alone shows.
    fn scribbled(area: Rect) -> Buffer {
        let mut buf = Buffer::empty(area);
        for (i, cell) in buf.content.iter_mut().enumerate() {
            cell.set_char(char::from(b'a' + (i % 26) as u8)).set_style(
                Style::default()
                    .fg(Color::Green)
                    .add_modifier(Modifier::ITALIC),
            );
        }
        buf
    }

    proptest! {
        /// The fast path writes the cells `Buffer::set_line` writes, for any line, width and
        /// start (the right edge included).
        #[test]
        fn set_line_is_buffers_set_line(line in line(), x in 0u16..12, width in 0u16..40) {
            let area = Rect::new(0, 0, 24, 2);
            let (mut ours, mut theirs) = (scribbled(area), scribbled(area));
            let end = set_line(&mut ours, x, 1, &line, width);
            prop_assert_eq!(end, theirs.set_line(x, 1, &line, width));
            prop_assert_eq!(ours, theirs);
        }

        /// `render_line` draws the cells `Paragraph::new(line)` draws.
        #[test]
        fn render_line_is_a_paragraph(line in line(), x in 0u16..8, width in 0u16..30) {
            let screen = Rect::new(0, 0, 24, 3);
            let area = Rect::new(x, 1, width, 1);
            let (mut ours, mut theirs) = (scribbled(screen), scribbled(screen));
            Canvas::new(&mut ours).render_line(line.clone(), area);
            Canvas::new(&mut theirs).render_widget(Paragraph::new(line), area);
            prop_assert_eq!(ours, theirs);
        }
    }

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
