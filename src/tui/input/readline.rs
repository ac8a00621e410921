//! The readline keys, for every text input of the TUI (the input box, the approval modal's
//! reason, the question form's free-text answers): which key is which edit ([`edit_for`]),
//! where each edit's range starts and ends on a line ([`span`]), and the state that applies
//! them to a text area ([`Readline`]: the kill buffer and the run of kills).
//!
//! Every edit acts on the cursor's line only: at its start Ctrl+U, Ctrl+W and Alt+Backspace do
//! nothing, at its end Ctrl+K and Alt+D do nothing (Backspace and Delete join lines). A kill
//! saves what it removed for Ctrl+Y; kills in a row add up (Ctrl+W three times, then Ctrl+Y,
//! brings back all three words), as in readline. Undo (Ctrl+Z, Ctrl+_) goes back one edit of
//! the text area's own history. Positions are in characters, as the text area counts them.
//!
//! Words: Alt+B/F/D and Alt+Backspace stop at anything that is not a letter or digit (readline's
//! `backward-word`, `kill-word`); Ctrl+W kills back to the previous whitespace
//! (`unix-word-rubout`), so it takes a whole path at once.
//!
//! What the other keys do (typing, newlines, Enter) is each input's own business.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{CursorMove, TextArea};

/// An edit the input box makes itself instead of passing the key to the text area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    /// Ctrl+A: to the start of the line.
    LineStart,
    /// Ctrl+E: to the end of the line.
    LineEnd,
    /// Alt+B.
    WordBack,
    /// Alt+F: to the end of the next word.
    WordForward,
    /// Ctrl+U.
    KillToStart,
    /// Ctrl+K.
    KillToEnd,
    /// Ctrl+W: back to whitespace.
    KillBlankWordBack,
    /// Alt+Backspace: back to the start of a word.
    KillWordBack,
    /// Alt+D.
    KillWordForward,
    /// Ctrl+Y: insert the last kill.
    Yank,
    /// Ctrl+Z, Ctrl+_.
    Undo,
}

impl Edit {
    /// Whether this edit removes text into the kill buffer.
    pub fn kills(self) -> bool {
        matches!(
            self,
            Edit::KillToStart
                | Edit::KillToEnd
                | Edit::KillBlankWordBack
                | Edit::KillWordBack
                | Edit::KillWordForward
        )
    }

    /// Whether the kill removes text before the cursor (a run of them prepends).
    pub fn backward(self) -> bool {
        matches!(
            self,
            Edit::KillToStart | Edit::KillBlankWordBack | Edit::KillWordBack
        )
    }
}

/// The edit a key asks for, if it is one of the readline keys.
///
/// Ctrl+_ reaches us in several forms: a legacy terminal sends 0x1F, which crossterm reports as
/// Ctrl+7; with the kitty protocol it is Ctrl+_ (or Ctrl+Shift+-); many terminals send the same
/// 0x1F for Ctrl+/, and report Ctrl+/ as such under the kitty protocol.
pub fn edit_for(key: &KeyEvent) -> Option<Edit> {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    let edit = match key.code {
        KeyCode::Char(c) if ctrl && !alt => match c.to_ascii_lowercase() {
            'a' => Edit::LineStart,
            'e' => Edit::LineEnd,
            'u' => Edit::KillToStart,
            'k' => Edit::KillToEnd,
            'w' => Edit::KillBlankWordBack,
            'y' => Edit::Yank,
            'z' | '7' | '_' | '/' => Edit::Undo,
            '-' if shift => Edit::Undo,
            _ => return None,
        },
        KeyCode::Char(c) if alt && !ctrl => match c.to_ascii_lowercase() {
            'b' => Edit::WordBack,
            'f' => Edit::WordForward,
            'd' => Edit::KillWordForward,
            _ => return None,
        },
        KeyCode::Backspace if alt && !ctrl => Edit::KillWordBack,
        _ => return None,
    };
    Some(edit)
}

/// Where a moving or killing edit lands on `line` with the cursor at character `col`: the range
/// `(from, to)` it covers (a kill removes it; a move goes to whichever end is not `col`).
/// `None` for edits that have no range (yank, undo).
pub fn span(edit: Edit, line: &str, col: usize) -> Option<(usize, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let col = col.min(chars.len());
    let range = match edit {
        Edit::LineStart | Edit::KillToStart => (0, col),
        Edit::LineEnd | Edit::KillToEnd => (col, chars.len()),
        Edit::WordBack | Edit::KillWordBack => (word_start_back(&chars, col), col),
        Edit::WordForward | Edit::KillWordForward => (col, word_end_forward(&chars, col)),
        Edit::KillBlankWordBack => (blank_word_start_back(&chars, col), col),
        Edit::Yank | Edit::Undo => return None,
    };
    Some(range)
}

/// The readline state of one text input: what the last kill removed (for Ctrl+Y) and whether
/// the key before was a kill (the next kill then adds to it).
#[derive(Debug, Default, Clone)]
pub struct Readline {
    kill: String,
    killing: bool,
}

impl Readline {
    /// Every key of the input comes here first: a readline key is applied to `area` and gives
    /// `Some(whether the text changed)`; any other key ends a run of kills and gives `None`,
    /// for the input to handle itself.
    pub fn handle(&mut self, area: &mut TextArea<'_>, key: &KeyEvent) -> Option<bool> {
        let Some(edit) = edit_for(key) else {
            self.killing = false;
            return None;
        };
        let changed = self.apply(area, edit);
        self.killing = edit.kills();
        Some(changed)
    }

    /// A readline edit on the cursor's line; whether the text changed.
    fn apply(&mut self, area: &mut TextArea<'_>, edit: Edit) -> bool {
        area.cancel_selection();
        match edit {
            Edit::Yank => return !self.kill.is_empty() && area.insert_str(self.kill.clone()),
            Edit::Undo => return area.undo(),
            _ => {}
        }
        let (row, col) = (area.cursor().0, area.cursor().1);
        let Some(line) = area.lines().get(row).cloned() else {
            return false;
        };
        let Some((from, to)) = span(edit, &line, col) else {
            return false;
        };
        if !edit.kills() {
            move_to_col(area, if from == col { to } else { from });
            return false;
        }
        if from == to {
            return false;
        }
        let removed: String = line.chars().skip(from).take(to - from).collect();
        self.kill = match (self.killing, edit.backward()) {
            (false, _) => removed,
            (true, true) => removed + &self.kill,
            (true, false) => std::mem::take(&mut self.kill) + &removed,
        };
        move_to_col(area, from);
        area.delete_str(to - from)
    }
}

/// Moves the cursor of `area` to character `col` of its line.
fn move_to_col(area: &mut TextArea<'_>, col: usize) {
    let (row, now) = (area.cursor().0, area.cursor().1);
    if let (Ok(r), Ok(c)) = (u16::try_from(row), u16::try_from(col)) {
        area.move_cursor(CursorMove::Jump(r, c));
        return;
    }
    // A line longer than the jump can address: step there.
    let step = if col < now {
        CursorMove::Back
    } else {
        CursorMove::Forward
    };
    for _ in 0..now.abs_diff(col) {
        area.move_cursor(step);
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric()
}

/// Back over what is not a word, then over the word.
fn word_start_back(chars: &[char], mut col: usize) -> usize {
    while col > 0 && !is_word(chars[col - 1]) {
        col -= 1;
    }
    while col > 0 && is_word(chars[col - 1]) {
        col -= 1;
    }
    col
}

/// Forward over what is not a word, then over the word.
fn word_end_forward(chars: &[char], mut col: usize) -> usize {
    while col < chars.len() && !is_word(chars[col]) {
        col += 1;
    }
    while col < chars.len() && is_word(chars[col]) {
        col += 1;
    }
    col
}

/// Back over whitespace, then over everything up to the whitespace before it.
fn blank_word_start_back(chars: &[char], mut col: usize) -> usize {
    while col > 0 && chars[col - 1].is_whitespace() {
        col -= 1;
    }
    while col > 0 && !chars[col - 1].is_whitespace() {
        col -= 1;
    }
    col
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn the_readline_keys_map_to_their_edits_and_other_keys_do_not() {
        let ctrl = KeyModifiers::CONTROL;
        let alt = KeyModifiers::ALT;
        let cases = [
            (k(KeyCode::Char('a'), ctrl), Some(Edit::LineStart)),
            (k(KeyCode::Char('e'), ctrl), Some(Edit::LineEnd)),
            (k(KeyCode::Char('u'), ctrl), Some(Edit::KillToStart)),
            (k(KeyCode::Char('k'), ctrl), Some(Edit::KillToEnd)),
            (k(KeyCode::Char('w'), ctrl), Some(Edit::KillBlankWordBack)),
            (k(KeyCode::Char('y'), ctrl), Some(Edit::Yank)),
            (k(KeyCode::Char('z'), ctrl), Some(Edit::Undo)),
            (k(KeyCode::Char('7'), ctrl), Some(Edit::Undo)),
            (k(KeyCode::Char('_'), ctrl), Some(Edit::Undo)),
            (k(KeyCode::Char('/'), ctrl), Some(Edit::Undo)),
            (
                k(KeyCode::Char('-'), ctrl | KeyModifiers::SHIFT),
                Some(Edit::Undo),
            ),
            (k(KeyCode::Char('b'), alt), Some(Edit::WordBack)),
            (k(KeyCode::Char('f'), alt), Some(Edit::WordForward)),
            (k(KeyCode::Char('d'), alt), Some(Edit::KillWordForward)),
            (k(KeyCode::Backspace, alt), Some(Edit::KillWordBack)),
            // Not ours: typing, Ctrl+C/D/J, plain Backspace, Ctrl+-.
            (k(KeyCode::Char('u'), KeyModifiers::NONE), None),
            (k(KeyCode::Char('c'), ctrl), None),
            (k(KeyCode::Char('d'), ctrl), None),
            (k(KeyCode::Char('j'), ctrl), None),
            (k(KeyCode::Char('-'), ctrl), None),
            (k(KeyCode::Backspace, KeyModifiers::NONE), None),
            (k(KeyCode::Char('u'), ctrl | alt), None),
        ];
        for (key, want) in cases {
            assert_eq!(edit_for(&key), want, "{key:?}");
        }
    }

    #[test]
    fn spans_stay_on_the_line_and_count_characters() {
        let line = "explain /tmp/proj/build.log now";
        // Cursor after "build".
        let col = line.find(".log").unwrap();
        assert_eq!(span(Edit::KillToStart, line, col), Some((0, col)));
        assert_eq!(
            span(Edit::KillToEnd, line, col),
            Some((col, line.chars().count()))
        );
        let (from, _) = span(Edit::KillBlankWordBack, line, col).unwrap();
        assert_eq!(&line[from..col], "/tmp/proj/build");
        let (from, _) = span(Edit::KillWordBack, line, col).unwrap();
        assert_eq!(&line[from..col], "build");
        let (_, to) = span(Edit::KillWordForward, line, col).unwrap();
        assert_eq!(&line[col..to], ".log");
        // Multi-byte characters count once.
        assert_eq!(span(Edit::WordBack, "héllo wörld", 11), Some((6, 11)));
        assert_eq!(span(Edit::WordForward, "héllo wörld", 0), Some((0, 5)));
        // At the edges the range is empty: nothing crosses into another line.
        assert_eq!(span(Edit::KillToStart, "abc", 0), Some((0, 0)));
        assert_eq!(span(Edit::KillToEnd, "abc", 3), Some((3, 3)));
        assert_eq!(span(Edit::KillBlankWordBack, "  ", 0), Some((0, 0)));
        assert_eq!(span(Edit::KillBlankWordBack, "ab  ", 4), Some((0, 4)));
        assert_eq!(span(Edit::Yank, "abc", 1), None);
    }
}
