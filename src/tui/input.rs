//! The input box: a multi-line ratatui-textarea with sent-message history and `/` completion.
//!
//! Enter sends; Alt+Enter, Shift+Enter and Ctrl+J insert a newline; a bracketed paste is inserted
//! as text and never sends. Up/Down walk the history while the input is empty or still shows a
//! recalled message; any edit ends the walk. The text typed while a modal is open stays here.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui_textarea::TextArea;

use super::strings;

pub struct Composer {
    pub area: TextArea<'static>,
    /// Tool and group names `@{` completes.
    pub mentions: Vec<String>,
    history: Vec<String>,
    /// Index into `history` while walking it.
    walking: Option<usize>,
    /// What was recalled, to notice edits.
    recalled: Option<String>,
}

/// What a key did in the input box.
#[derive(Debug, PartialEq, Eq)]
pub enum InputOutcome {
    Submit(String),
    Edited,
    Ignored,
}

impl Default for Composer {
    fn default() -> Self {
        Self::new()
    }
}

impl Composer {
    pub fn new() -> Self {
        let mut area = TextArea::default();
        area.set_placeholder_text(strings::PLACEHOLDER);
        area.set_cursor_line_style(Style::default());
        Self {
            area,
            mentions: Vec::new(),
            history: Vec::new(),
            walking: None,
            recalled: None,
        }
    }

    pub fn text(&self) -> String {
        self.area.lines().join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.area.lines().iter().all(String::is_empty)
    }

    pub fn set_text(&mut self, text: &str) {
        self.area.clear();
        self.area.insert_str(text);
    }

    pub fn clear(&mut self) {
        self.area.clear();
        self.walking = None;
        self.recalled = None;
    }

    /// Lines the box needs (for layout), at least one.
    pub fn line_count(&self) -> usize {
        self.area.lines().len().max(1)
    }

    pub fn paste(&mut self, text: &str) {
        // Terminals send CR for newlines in pastes.
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.area.insert_str(&text);
        self.walking = None;
    }

    pub fn remember(&mut self, sent: &str) {
        if self.history.last().map(String::as_str) != Some(sent) {
            self.history.push(sent.to_owned());
        }
        self.walking = None;
        self.recalled = None;
    }

    fn walkable(&self) -> bool {
        self.is_empty()
            || (self.walking.is_some() && self.recalled.as_deref() == Some(self.text().as_str()))
    }

    fn recall(&mut self, index: Option<usize>) {
        self.walking = index;
        let text = index.map(|i| self.history[i].clone()).unwrap_or_default();
        self.set_text(&text);
        self.recalled = Some(text);
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> InputOutcome {
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Enter if alt || shift => {
                self.area.insert_newline();
                InputOutcome::Edited
            }
            KeyCode::Char('j') if ctrl => {
                self.area.insert_newline();
                InputOutcome::Edited
            }
            KeyCode::Enter => {
                let text = self.text();
                if text.trim().is_empty() {
                    return InputOutcome::Ignored;
                }
                InputOutcome::Submit(text)
            }
            KeyCode::Up if self.walkable() && !self.history.is_empty() => self.history_back(),
            KeyCode::Down if self.walking.is_some() && self.walkable() => self.history_forward(),
            KeyCode::Tab if self.open_mention().is_some() => self.complete_mention(),
            KeyCode::Tab if self.text().starts_with('/') && !self.text().contains(' ') => {
                self.complete_command()
            }
            _ => {
                let changed = self.area.input(key);
                if changed {
                    self.walking = None;
                    self.recalled = None;
                }
                if changed {
                    InputOutcome::Edited
                } else {
                    InputOutcome::Ignored
                }
            }
        }
    }

    /// Up: recalls the previous sent message (the last one when the walk starts).
    fn history_back(&mut self) -> InputOutcome {
        let next = match self.walking {
            None => self.history.len() - 1,
            Some(0) => 0,
            Some(i) => i - 1,
        };
        self.recall(Some(next));
        InputOutcome::Edited
    }

    /// Down: recalls the next sent message; past the newest, the input is empty again.
    fn history_forward(&mut self) -> InputOutcome {
        let next = self
            .walking
            .and_then(|i| (i + 1 < self.history.len()).then_some(i + 1));
        self.recall(next);
        if next.is_none() {
            self.walking = None;
        }
        InputOutcome::Edited
    }

    /// Tab after `@{partial`: the one matching name with its `}`, or the longest common prefix.
    fn complete_mention(&mut self) -> InputOutcome {
        let (start, partial) = self.open_mention().unwrap_or_default();
        let matches: Vec<&String> = self
            .mentions
            .iter()
            .filter(|m| m.starts_with(&partial))
            .collect();
        let text = self.text();
        let completed = match matches.as_slice() {
            [one] => format!("{}@{{{one}}}", &text[..start]),
            [first, rest @ ..] => {
                format!("{}@{{{}", &text[..start], common_prefix(first, rest))
            }
            [] => return InputOutcome::Ignored,
        };
        self.set_text(&completed);
        InputOutcome::Edited
    }

    /// Tab after `/partial`: the one matching command and a space, or the longest common prefix.
    fn complete_command(&mut self) -> InputOutcome {
        let typed = self.text();
        let matches: Vec<&str> = super::app::commands_names()
            .filter(|c| c.starts_with(&typed))
            .collect();
        match matches.as_slice() {
            [one] => {
                self.set_text(&format!("{one} "));
                InputOutcome::Edited
            }
            [first, rest @ ..] => {
                let common = common_prefix(first, rest);
                if common.len() > typed.len() {
                    self.set_text(&common);
                }
                InputOutcome::Edited
            }
            [] => InputOutcome::Ignored,
        }
    }

    /// An unfinished `@{name` at the end of the text: its start and the partial name.
    fn open_mention(&self) -> Option<(usize, String)> {
        let text = self.text();
        let i = text.rfind("@{")?;
        let partial = &text[i + 2..];
        (!partial.contains('}') && !partial.contains(char::is_whitespace))
            .then(|| (i, partial.to_owned()))
    }
}

/// The longest prefix `first` shares with every one of `rest`.
fn common_prefix(first: &str, rest: &[impl AsRef<str>]) -> String {
    rest.iter().fold(first.to_string(), |acc, c| {
        acc.chars()
            .zip(c.as_ref().chars())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyEventKind, KeyEventState};

    fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: mods,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    fn typed(c: &mut Composer, s: &str) {
        for ch in s.chars() {
            c.handle_key(key(KeyCode::Char(ch), KeyModifiers::NONE));
        }
    }

    #[test]
    fn enter_sends_and_modified_enters_insert_newlines() {
        let mut c = Composer::new();
        typed(&mut c, "a");
        assert_eq!(
            c.handle_key(key(KeyCode::Enter, KeyModifiers::ALT)),
            InputOutcome::Edited
        );
        typed(&mut c, "b");
        c.handle_key(key(KeyCode::Enter, KeyModifiers::SHIFT));
        typed(&mut c, "c");
        c.handle_key(key(KeyCode::Char('j'), KeyModifiers::CONTROL));
        typed(&mut c, "d");
        assert_eq!(
            c.handle_key(key(KeyCode::Enter, KeyModifiers::NONE)),
            InputOutcome::Submit("a\nb\nc\nd".into())
        );
    }

    #[test]
    fn paste_inserts_newlines_without_sending() {
        let mut c = Composer::new();
        c.paste("line one\r\nline two\rthree");
        assert_eq!(c.text(), "line one\nline two\nthree");
    }

    #[test]
    fn up_and_down_walk_the_history_only_from_an_empty_or_recalled_input() {
        let mut c = Composer::new();
        c.remember("first");
        c.remember("second");
        c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
        assert_eq!(c.text(), "second");
        c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
        assert_eq!(c.text(), "first");
        c.handle_key(key(KeyCode::Down, KeyModifiers::NONE));
        assert_eq!(c.text(), "second");
        c.handle_key(key(KeyCode::Down, KeyModifiers::NONE));
        assert_eq!(c.text(), "");
        typed(&mut c, "draft");
        c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
        assert_eq!(c.text(), "draft", "a draft is not replaced by history");
    }

    #[test]
    fn tab_completes_mentions() {
        let mut c = Composer::new();
        c.mentions = vec!["read_file".into(), "run_command".into(), "files".into()];
        typed(&mut c, "please @{ru");
        c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
        assert_eq!(c.text(), "please @{run_command}");
        let mut c = Composer::new();
        c.mentions = vec!["read_file".into(), "run_command".into()];
        typed(&mut c, "@{r");
        c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
        assert_eq!(c.text(), "@{r", "ambiguous, no longer common prefix");
    }

    #[test]
    fn tab_completes_slash_commands() {
        let mut c = Composer::new();
        typed(&mut c, "/res");
        c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
        assert_eq!(c.text(), "/resume ");
        let mut c = Composer::new();
        typed(&mut c, "/mo");
        c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
        assert_eq!(c.text(), "/mode", "the common prefix of /mode and /model");
        let mut c = Composer::new();
        typed(&mut c, "/c");
        c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
        assert_eq!(c.text(), "/c", "ambiguous: /clear, /copy, /collapse");
    }
}
