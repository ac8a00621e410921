//! The input box: a multi-line ratatui-textarea with sent-message history, the readline keys,
//! the `/` command popup and `@{` completion.
//!
//! Enter sends; Alt+Enter, Shift+Enter and Ctrl+J insert a newline; a bracketed paste is inserted
//! as text and never sends. Up/Down walk the history while the input is empty or still shows a
//! recalled message; any edit ends the walk. The text typed while a modal is open stays here.
//! The readline keys ([`readline`]) act on the cursor's line; other keys go to the text area.
//! While the popup ([`command_menu`]) is open, Up/Down move its highlight, Tab completes the
//! highlighted command and Enter runs it (or completes it when it needs an argument).
//! The history persists across runs ([`history`]); Ctrl+R searches it ([`search`]).

mod command_menu;
mod file_menu;
pub mod history;
mod line;
mod readline;
pub mod search;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::Style;
use ratatui_textarea::TextArea;

use self::readline::Readline;
use super::strings;

pub use self::command_menu::MenuView;
pub use self::file_menu::FileMenuView;
pub use self::line::LineInput;

pub struct Composer {
    pub area: TextArea<'static>,
    /// Tool and group names `@{` completes.
    pub mentions: Vec<String>,
    /// The commands from files, after the built-ins in the popup and completion.
    pub commands: Vec<&'static crate::tui::app::SlashCommand>,
    history: history::History,
    /// Ctrl+R's search, while it runs.
    search: Option<search::Search>,
    /// Index into `history` while walking it.
    walking: Option<usize>,
    /// What was recalled, to notice edits.
    recalled: Option<String>,
    menu: command_menu::CommandMenu,
    /// The `@` file picker.
    files: file_menu::FileMenu,
    /// The readline keys' kill buffer.
    readline: Readline,
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
            commands: Vec::new(),
            history: history::History::default(),
            search: None,
            walking: None,
            recalled: None,
            menu: Default::default(),
            files: Default::default(),
            readline: Readline::default(),
        }
    }

    /// The project directory the `@` picker offers paths of (not walked until it opens).
    pub fn set_file_root(&mut self, root: &std::path::Path) {
        self.files.set_root(root);
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
        self.menu.edited();
    }

    /// The `/` popup, while it is open (never while walking the history).
    pub fn menu(&self) -> Option<MenuView> {
        match self.area.lines() {
            [line] if self.walking.is_none() => self.menu.view(line, &self.commands),
            _ => None,
        }
    }

    pub fn menu_open(&self) -> bool {
        self.menu().is_some() || self.file_menu().is_some()
    }

    /// Esc: closes the popup (or the `@` picker) until the next edit.
    pub fn close_menu(&mut self) {
        self.menu.dismiss();
        self.files.dismiss();
    }

    /// The `@` picker is waiting for its index's walk.
    pub fn file_index_walking(&self) -> bool {
        self.files.walking()
    }

    /// The `@` picker, while it is open (never while walking the history).
    pub fn file_menu(&self) -> Option<FileMenuView> {
        match self.area.lines() {
            [line] if self.walking.is_none() => self.files.peek(line),
            _ => {
                self.files.hidden();
                None
            }
        }
    }

    /// Lines the box needs (for layout), at least one.
    pub fn line_count(&self) -> usize {
        self.area.lines().len().max(1)
    }

    pub fn paste(&mut self, text: &str) {
        // Terminals send CR for newlines in pastes.
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.area.insert_str(&text);
        self.edited();
    }

    /// The text changed by typing: the history walk ends, the popup follows the new text.
    fn edited(&mut self) {
        self.walking = None;
        self.recalled = None;
        self.menu.edited();
        self.files.edited();
        if let [line] = self.area.lines() {
            let line = line.clone();
            self.files.view(&line);
        }
    }

    /// Adds `sent` to the history (and its file); the error says why the file was not saved.
    pub fn remember(&mut self, sent: &str) -> Option<String> {
        self.walking = None;
        self.recalled = None;
        self.history.push(sent).err()
    }

    /// Uses `history` (the one saved in the state directory) from now on.
    pub fn set_history(&mut self, history: history::History) {
        self.history = history;
        self.walking = None;
        self.recalled = None;
    }

    /// What the flash line shows while Ctrl+R searches.
    pub fn search_line(&self) -> Option<String> {
        self.search.as_ref().map(search::Search::line)
    }

    pub fn searching(&self) -> bool {
        self.search.is_some()
    }

    /// A key while Ctrl+R searches (`None`: the search is done and the key goes on).
    fn search_key(&mut self, key: &KeyEvent) -> Option<InputOutcome> {
        let s = self.search.as_mut()?;
        let step = s.key(key, &self.history);
        let (text, pass) = match step {
            search::Step::Show(text) => {
                self.set_text(&text);
                return Some(InputOutcome::Edited);
            }
            search::Step::Accept { text, pass } => (text, pass),
            search::Step::Cancel(text) => (text, false),
        };
        self.search = None;
        self.set_text(&text);
        self.edited();
        (!pass).then_some(InputOutcome::Edited)
    }

    fn walkable(&self) -> bool {
        self.is_empty()
            || (self.walking.is_some() && self.recalled.as_deref() == Some(self.text().as_str()))
    }

    fn recall(&mut self, index: Option<usize>) {
        self.walking = index;
        let text = index
            .and_then(|i| self.history.get(i))
            .unwrap_or_default()
            .to_owned();
        self.set_text(&text);
        self.recalled = Some(text);
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> InputOutcome {
        if let Some(outcome) = self.search_key(&key) {
            return outcome;
        }
        if key.code == KeyCode::Char('r') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.search = Some(search::Search::new(self.text()));
            return InputOutcome::Edited;
        }
        // The readline keys are none of the keys below (newlines, the popup's, Enter, history,
        // Tab), so they go first.
        if let Some(changed) = self.readline.handle(&mut self.area, &key) {
            return self.changed(changed);
        }
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let newline = match key.code {
            KeyCode::Enter => alt || shift,
            KeyCode::Char('j') => ctrl,
            _ => false,
        };
        if newline {
            self.area.insert_newline();
            self.edited();
            return InputOutcome::Edited;
        }
        if let Some(menu) = self.menu() {
            match key.code {
                KeyCode::Up | KeyCode::Down => {
                    self.menu.step(key.code == KeyCode::Up, menu.items.len());
                    return InputOutcome::Ignored;
                }
                KeyCode::Tab => return self.complete_from_menu(&menu, false),
                KeyCode::Enter => return self.complete_from_menu(&menu, true),
                _ => {}
            }
        }
        if let Some(files) = self.file_menu() {
            match key.code {
                KeyCode::Up | KeyCode::Down => {
                    self.files.step(key.code == KeyCode::Up, files.items.len());
                    return InputOutcome::Ignored;
                }
                KeyCode::Tab | KeyCode::Enter => {
                    let path = &files.items[files.selected];
                    self.set_text(&file_menu::complete(&self.text(), files.at, path));
                    self.edited();
                    return InputOutcome::Edited;
                }
                _ => {}
            }
        }
        match key.code {
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
                self.changed(changed)
            }
        }
    }

    fn changed(&mut self, changed: bool) -> InputOutcome {
        if changed {
            self.edited();
            InputOutcome::Edited
        } else {
            InputOutcome::Ignored
        }
    }

    /// Tab (or Enter, `run`) in the popup: the highlighted command. Enter runs one that needs
    /// no argument; otherwise the input becomes its name (and a space, when it takes arguments).
    fn complete_from_menu(&mut self, menu: &MenuView, run: bool) -> InputOutcome {
        let c = menu.items[menu.selected];
        if run && command_menu::runs_bare(c) {
            return InputOutcome::Submit(c.name.to_owned());
        }
        let completed = if c.args.is_empty() {
            c.name.to_owned()
        } else {
            format!("{} ", c.name)
        };
        self.set_text(&completed);
        self.edited();
        InputOutcome::Edited
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
        let matches: Vec<&str> = super::app::commands_names(&self.commands)
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
mod tests;
