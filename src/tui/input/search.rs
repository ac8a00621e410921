//! Ctrl+R: the reverse incremental search of the input history, as a small state machine
//! over [`History`] (no IO, no drawing: the input box shows the match, the flash line
//! [`Search::line`]).
//!
//! Typing narrows the query (the newest entry containing it shows), Backspace widens it,
//! Ctrl+R again goes to an older match, Enter (or a key that moves the cursor) accepts the
//! match into the input without sending it, and Esc, Ctrl+G or Ctrl+C cancel, putting back what
//! the input held.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::history::History;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    query: String,
    /// The entry shown.
    at: Option<usize>,
    /// The input's text before the search.
    original: String,
    /// The last narrowing or Ctrl+R found nothing.
    failing: bool,
}

/// What a key did to the search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Still searching: the input shows this.
    Show(String),
    /// Done: the input holds this, and the key goes on to the input box (`pass`).
    Accept { text: String, pass: bool },
    /// Cancelled: the input holds what it held before.
    Cancel(String),
}

impl Search {
    pub fn new(original: String) -> Self {
        Self {
            query: String::new(),
            at: None,
            original,
            failing: false,
        }
    }

    /// The flash line's text.
    pub fn line(&self) -> String {
        let failing = if self.failing { "failing " } else { "" };
        format!(
            "{failing}reverse-i-search `{}` (Ctrl+R older, Enter accepts, Esc cancels)",
            self.query
        )
    }

    fn shown(&self, history: &History) -> String {
        self.at
            .and_then(|i| history.get(i))
            .map_or_else(|| self.original.clone(), str::to_owned)
    }

    /// Finds the newest match before `before`, keeping the current one when there is none.
    fn find(&mut self, history: &History, before: usize) {
        match history.search(&self.query, before) {
            Some(i) => {
                self.at = Some(i);
                self.failing = false;
            }
            None => self.failing = true,
        }
    }

    pub fn key(&mut self, key: &KeyEvent, history: &History) -> Step {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('r') if ctrl => {
                let before = self.at.unwrap_or(history.len());
                self.find(history, before);
            }
            KeyCode::Esc => return Step::Cancel(self.original.clone()),
            KeyCode::Char('g' | 'c') if ctrl => return Step::Cancel(self.original.clone()),
            KeyCode::Enter => {
                return Step::Accept {
                    text: self.shown(history),
                    pass: false,
                };
            }
            KeyCode::Backspace => {
                self.query.pop();
                self.find(history, history.len());
            }
            KeyCode::Char(c) if !ctrl && !key.modifiers.contains(KeyModifiers::ALT) => {
                self.query.push(c);
                // The current match still matching stays; otherwise an older one.
                let from = self.at.map_or(history.len(), |i| i + 1);
                self.find(history, from);
            }
            _ => {
                return Step::Accept {
                    text: self.shown(history),
                    pass: true,
                };
            }
        }
        Step::Show(self.shown(history))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history(entries: &[&str]) -> History {
        let mut h = History::default();
        for e in entries {
            h.push(e).unwrap();
        }
        h
    }

    fn press(c: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(c, m)
    }

    /// Each key in turn, and what the input shows after it.
    #[test]
    fn keys_walk_the_matches_newest_first() {
        let h = history(&["cargo build", "git status", "cargo test", "ls"]);
        let none = KeyModifiers::NONE;
        let ctrl = KeyModifiers::CONTROL;
        let mut s = Search::new("draft".into());
        let steps: Vec<(KeyEvent, Step)> = vec![
            (
                press(KeyCode::Char('c'), none),
                Step::Show("cargo test".into()),
            ),
            (
                press(KeyCode::Char('a'), none),
                Step::Show("cargo test".into()),
            ),
            (
                press(KeyCode::Char('r'), ctrl),
                Step::Show("cargo build".into()),
            ),
            // No older one: the match stays, the search is failing.
            (
                press(KeyCode::Char('r'), ctrl),
                Step::Show("cargo build".into()),
            ),
            (
                press(KeyCode::Backspace, none),
                Step::Show("cargo test".into()),
            ),
            (
                press(KeyCode::Enter, none),
                Step::Accept {
                    text: "cargo test".into(),
                    pass: false,
                },
            ),
        ];
        for (i, (key, want)) in steps.into_iter().enumerate() {
            assert_eq!(s.key(&key, &h), want, "step {i}");
        }
    }

    #[test]
    fn esc_puts_back_the_draft_and_a_miss_says_failing() {
        let h = history(&["one"]);
        let mut s = Search::new("draft".into());
        assert_eq!(
            s.key(&press(KeyCode::Char('z'), KeyModifiers::NONE), &h),
            Step::Show("draft".into())
        );
        assert!(s.line().starts_with("failing reverse-i-search `z`"));
        assert_eq!(
            s.key(&press(KeyCode::Esc, KeyModifiers::NONE), &h),
            Step::Cancel("draft".into())
        );
    }

    #[test]
    fn a_cursor_key_accepts_and_goes_on_to_the_input() {
        let h = history(&["one"]);
        let mut s = Search::new(String::new());
        s.key(&press(KeyCode::Char('o'), KeyModifiers::NONE), &h);
        assert_eq!(
            s.key(&press(KeyCode::Left, KeyModifiers::NONE), &h),
            Step::Accept {
                text: "one".into(),
                pass: true
            }
        );
    }
}
