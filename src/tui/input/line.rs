//! A one-line text input for the answers typed inside a dialog: the approval modal's reason
//! for rejecting and the question form's free-text answers.
//!
//! It edits with the same keys as the input box: the readline keys of [`super::readline`]
//! (one implementation for both), typing, Backspace/Delete, Left/Right, Home/End and the
//! text area's Ctrl+B/F/H/D. It never holds a newline: a pasted one becomes a space, and the
//! keys that would insert one (Enter, Ctrl+J, Ctrl+M), Tab, Esc and Up/Down are the dialog's
//! to handle (it gets `false` back, the text unchanged). Rendering is the widgets' business:
//! they read [`LineInput::text`] and [`LineInput::cursor`].

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::TextArea;

use super::readline::Readline;

#[derive(Debug, Clone, Default)]
pub struct LineInput {
    area: TextArea<'static>,
    readline: Readline,
}

impl LineInput {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn text(&self) -> String {
        self.area.lines().concat()
    }

    pub fn is_empty(&self) -> bool {
        self.area.is_empty()
    }

    /// Where the cursor is, in characters from the start.
    pub fn cursor(&self) -> usize {
        self.area.cursor().1
    }

    /// Empties the input and its undo history; the last kill stays for Ctrl+Y.
    pub fn clear(&mut self) {
        self.area = TextArea::default();
    }

    /// Inserts `text` at the cursor, its line breaks as spaces.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", " ").replace(['\r', '\n'], " ");
        self.area.insert_str(text);
    }

    /// An editing key: whether the text changed. Keys that are not for editing one line do
    /// nothing here.
    pub fn handle_key(&mut self, key: &KeyEvent) -> bool {
        if let Some(changed) = self.readline.handle(&mut self.area, key) {
            return changed;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let edits_one_line = match key.code {
            KeyCode::Char('\n' | '\r') => false,
            KeyCode::Char(_) if !ctrl && !alt => true,
            KeyCode::Char('b' | 'f' | 'h' | 'd') => ctrl && !alt,
            KeyCode::Backspace | KeyCode::Delete => !ctrl,
            // Without Shift: a selection would be invisible here.
            KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End => !shift && !alt,
            _ => false,
        };
        edits_one_line && self.area.input(*key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    fn typed(input: &mut LineInput, s: &str) {
        for c in s.chars() {
            input.handle_key(&k(KeyCode::Char(c), KeyModifiers::NONE));
        }
    }

    const CTRL: KeyModifiers = KeyModifiers::CONTROL;
    const ALT: KeyModifiers = KeyModifiers::ALT;

    #[test]
    fn the_readline_keys_edit_the_line() {
        let mut i = LineInput::new();
        typed(&mut i, "do not touch the lockfile");
        assert!(i.handle_key(&k(KeyCode::Char('w'), CTRL)));
        assert_eq!(i.text(), "do not touch the ");
        typed(&mut i, "manifest");
        i.handle_key(&k(KeyCode::Char('b'), ALT));
        i.handle_key(&k(KeyCode::Char('b'), ALT));
        assert_eq!(i.cursor(), "do not touch ".len());
        i.handle_key(&k(KeyCode::Char('u'), CTRL));
        assert_eq!(i.text(), "the manifest");
        assert_eq!(i.cursor(), 0);
        i.handle_key(&k(KeyCode::Char('e'), CTRL));
        typed(&mut i, ": ");
        i.handle_key(&k(KeyCode::Char('y'), CTRL));
        assert_eq!(i.text(), "the manifest: do not touch ");
        i.handle_key(&k(KeyCode::Backspace, ALT));
        assert_eq!(i.text(), "the manifest: do not ");
        i.handle_key(&k(KeyCode::Char('a'), CTRL));
        i.handle_key(&k(KeyCode::Char('d'), ALT));
        assert_eq!(i.text(), " manifest: do not ");
        i.handle_key(&k(KeyCode::Char('k'), CTRL));
        assert_eq!(i.text(), "");
        // Undo goes back one edit at a time.
        assert!(i.handle_key(&k(KeyCode::Char('z'), CTRL)));
        assert_eq!(i.text(), " manifest: do not ");
        i.handle_key(&k(KeyCode::Char('_'), CTRL));
        assert_eq!(i.text(), "the manifest: do not ");
    }

    #[test]
    fn no_key_and_no_paste_makes_a_second_line() {
        let mut i = LineInput::new();
        typed(&mut i, "one");
        for key in [
            k(KeyCode::Enter, KeyModifiers::NONE),
            k(KeyCode::Enter, ALT),
            k(KeyCode::Enter, KeyModifiers::SHIFT),
            k(KeyCode::Char('j'), CTRL),
            k(KeyCode::Char('m'), CTRL),
            k(KeyCode::Tab, KeyModifiers::NONE),
            k(KeyCode::Esc, KeyModifiers::NONE),
            k(KeyCode::Up, KeyModifiers::NONE),
            k(KeyCode::Char('x'), CTRL | ALT),
        ] {
            assert!(!i.handle_key(&key), "{key:?}");
        }
        i.paste(" two\r\nthree\nfour");
        assert_eq!(i.text(), "one two three four");
        i.handle_key(&k(KeyCode::Home, KeyModifiers::NONE));
        i.handle_key(&k(KeyCode::Delete, KeyModifiers::NONE));
        i.handle_key(&k(KeyCode::End, KeyModifiers::NONE));
        i.handle_key(&k(KeyCode::Backspace, KeyModifiers::NONE));
        assert_eq!(i.text(), "ne two three fou");
    }

    #[test]
    fn clearing_keeps_the_last_kill_but_not_the_undo_history() {
        let mut i = LineInput::new();
        typed(&mut i, "first answer");
        i.handle_key(&k(KeyCode::Char('u'), CTRL));
        i.clear();
        assert!(i.is_empty());
        assert!(
            !i.handle_key(&k(KeyCode::Char('z'), CTRL)),
            "nothing to undo"
        );
        i.handle_key(&k(KeyCode::Char('y'), CTRL));
        assert_eq!(i.text(), "first answer");
    }
}
