//! Writes changed cells to the terminal in as few bytes as it can: a cursor move only where the
//! cursor is not already, one SGR sequence with only the attributes that change (short codes for
//! the 16 basic colours), and nothing left styled at the end of a frame.
//!
//! This replaces crossterm's backend `draw`, which moves the cursor after every wide character,
//! writes `38;5;N` for the basic colours and resets four attributes after every frame — about
//! 40 bytes of overhead for a frame that adds one word.

use std::io::{self, Write};

use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use unicode_width::UnicodeWidthStr;

/// The longest run of unchanged cells written again instead of a cursor move (which takes 6–8
/// bytes on a 120x40 screen).
const MAX_GAP: u16 = 4;

/// The terminal's state as far as this writer knows it.
#[derive(Default)]
pub struct Pen {
    /// Where the cursor is, when known.
    at: Option<(u16, u16)>,
    fg: Color,
    bg: Color,
    modifier: Modifier,
}

impl Pen {
    /// The cursor moved in a way this writer did not follow (a scroll region was set).
    pub fn lost_cursor(&mut self) {
        self.at = None;
    }

    /// Writes `cells` (from a buffer diff) at their positions; ends with the default style.
    pub fn draw<'a>(
        &mut self,
        out: &mut impl Write,
        frame: &Buffer,
        cells: impl Iterator<Item = (u16, u16, &'a Cell)>,
    ) -> io::Result<()> {
        let width = frame.area.width;
        for (x, y, cell) in cells {
            if self.at != Some((x, y)) && !self.fill_gap(out, frame, x, y)? {
                write!(out, "\x1b[{};{}H", y + 1, x + 1)?;
            }
            self.style(out, cell.fg, cell.bg, cell.modifier)?;
            let symbol = cell.symbol();
            out.write_all(symbol.as_bytes())?;
            self.at = (symbol.width() == 1 && x + 1 < width).then_some((x + 1, y));
        }
        self.style(out, Color::Reset, Color::Reset, Modifier::empty())
    }

    /// The cursor is a few cells left of `(x, y)` on the same row, and the cells between are
    /// unchanged one-column ASCII in the pen's style (the blank between two words of a line being
    /// streamed): writing them again moves the cursor in fewer bytes than a cursor move.
    fn fill_gap(
        &mut self,
        out: &mut impl Write,
        frame: &Buffer,
        x: u16,
        y: u16,
    ) -> io::Result<bool> {
        let Some((at_x, at_y)) = self.at else {
            return Ok(false);
        };
        if at_y != y || at_x >= x || x - at_x > MAX_GAP {
            return Ok(false);
        }
        let mut gap = [0u8; MAX_GAP as usize];
        for (k, gx) in (at_x..x).enumerate() {
            let Some(c) = frame.cell((gx, y)) else {
                return Ok(false);
            };
            let b = c.symbol().as_bytes();
            if b.len() != 1
                || !(b' '..=b'~').contains(&b[0])
                || (c.fg, c.bg, c.modifier) != (self.fg, self.bg, self.modifier)
            {
                return Ok(false);
            }
            gap[k] = b[0];
        }
        out.write_all(&gap[..usize::from(x - at_x)])?;
        self.at = Some((x, y));
        Ok(true)
    }

    fn style(&mut self, out: &mut impl Write, fg: Color, bg: Color, m: Modifier) -> io::Result<()> {
        if (fg, bg, m) == (self.fg, self.bg, self.modifier) {
            return Ok(());
        }
        let mut codes: Vec<String> = Vec::new();
        if m != self.modifier {
            let removed = self.modifier - m;
            if m.is_empty() || removed.intersects(Modifier::BOLD | Modifier::DIM) {
                // `22` turns off bold and dim together; a full reset is simpler and as short.
                codes.push("0".into());
                self.fg = Color::Reset;
                self.bg = Color::Reset;
                self.modifier = Modifier::empty();
            } else {
                for (flag, off) in [
                    (Modifier::ITALIC, "23"),
                    (Modifier::UNDERLINED, "24"),
                    (Modifier::SLOW_BLINK, "25"),
                    (Modifier::RAPID_BLINK, "25"),
                    (Modifier::REVERSED, "27"),
                    (Modifier::HIDDEN, "28"),
                    (Modifier::CROSSED_OUT, "29"),
                ] {
                    if removed.contains(flag) && !codes.iter().any(|c| c == off) {
                        codes.push(off.into());
                    }
                }
                self.modifier -= removed;
            }
            for (flag, on) in [
                (Modifier::BOLD, "1"),
                (Modifier::DIM, "2"),
                (Modifier::ITALIC, "3"),
                (Modifier::UNDERLINED, "4"),
                (Modifier::SLOW_BLINK, "5"),
                (Modifier::RAPID_BLINK, "6"),
                (Modifier::REVERSED, "7"),
                (Modifier::HIDDEN, "8"),
                (Modifier::CROSSED_OUT, "9"),
            ] {
                if m.contains(flag) && !self.modifier.contains(flag) {
                    codes.push(on.into());
                }
            }
            self.modifier = m;
        }
        if fg != self.fg {
            codes.push(colour(fg, 30));
            self.fg = fg;
        }
        if bg != self.bg {
            codes.push(colour(bg, 40));
            self.bg = bg;
        }
        if codes.is_empty() {
            return Ok(());
        }
        write!(out, "\x1b[{}m", codes.join(";"))
    }
}

/// The SGR parameter of colour `c`: `base` is 30 for the foreground, 40 for the background.
fn colour(c: Color, base: u8) -> String {
    let basic = |n: u8| (base + n).to_string();
    let bright = |n: u8| (base + 60 + n).to_string();
    match c {
        Color::Reset => basic(9),
        Color::Black => basic(0),
        Color::Red => basic(1),
        Color::Green => basic(2),
        Color::Yellow => basic(3),
        Color::Blue => basic(4),
        Color::Magenta => basic(5),
        Color::Cyan => basic(6),
        Color::Gray => basic(7),
        Color::DarkGray => bright(0),
        Color::LightRed => bright(1),
        Color::LightGreen => bright(2),
        Color::LightYellow => bright(3),
        Color::LightBlue => bright(4),
        Color::LightMagenta => bright(5),
        Color::LightCyan => bright(6),
        Color::White => bright(7),
        Color::Indexed(i) => format!("{};5;{i}", base + 8),
        Color::Rgb(r, g, b) => format!("{};2;{r};{g};{b}", base + 8),
    }
}
