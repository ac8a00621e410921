//! The `/sessions` (and bare `/resume`) picker: the saved sessions, newest first — date,
//! directory (marked when gone), message count, first message. Up/Down (or k/j) move, Enter resumes the selected one, Esc closes.

use crossterm::event::{KeyCode, KeyEvent};

use crate::events::SessionInfo;

pub struct SessionPicker {
    pub sessions: Vec<SessionInfo>,
    pub selected: usize,
}

/// What a key in the picker decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Picked {
    Resume(String),
    Close,
}

impl SessionPicker {
    pub fn new(sessions: Vec<SessionInfo>) -> Self {
        Self {
            sessions,
            selected: 0,
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<Picked> {
        let last = self.sessions.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return Some(Picked::Close),
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(10),
            KeyCode::PageDown => self.selected = (self.selected + 10).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => {
                return self
                    .sessions
                    .get(self.selected)
                    .map(|s| Picked::Resume(s.id.clone()));
            }
            _ => {}
        }
        None
    }

    /// One line per session:
    /// `2026-12-01 08:30  ~/src/proj  12 msgs  first message…` (the directory marked when it
    /// is gone).
    pub fn row(s: &SessionInfo) -> String {
        let gone = if s.dir_gone {
            format!(" {}", crate::session::catalog::GONE)
        } else {
            String::new()
        };
        let messages = match s.messages {
            1 => "1 msg".to_owned(),
            n => format!("{n} msgs"),
        };
        format!(
            "{}  {}{gone}  {messages}  {}",
            s.started, s.cwd, s.first_message
        )
    }
}
