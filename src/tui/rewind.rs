//! `/rewind`: the picker of the chat's user messages, then what to restore for the chosen one
//! — code and conversation, the conversation only, or the code only. Keyboard only: Up/Down
//! (k/j), PgUp/PgDn, Home/End move, Enter chooses, Esc goes back (from the list: closes);
//! in the second step 1, 2, 3 choose at once.
//!
//! The messages are the transcript's user entries, in chat order (the last one selected); a
//! message is named to the agent by its place among them *and* its text, and the agent
//! refuses a rewind whose text is not the one at that place. What a rewind does is the
//! agent's (`agent::rewind`, `agent::saving`); this view only asks.

use crate::tui::screen::Canvas;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::agent::rewind::Restore;
use crate::tui::theme::Theme;

/// One user message of the chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// Its place among the chat's user messages (from 0).
    pub index: usize,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Pick,
    Choose { choice: usize },
}

/// The three choices, in the order they are listed (1, 2, 3).
pub const CHOICES: [(Restore, &str); 3] = [
    (Restore::Both, "Restore code and conversation"),
    (
        Restore::Conversation,
        "Restore conversation only (the files stay as they are)",
    ),
    (Restore::Code, "Restore code only (the conversation stays)"),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindView {
    pub points: Vec<Point>,
    pub selected: usize,
    step: Step,
}

/// What a key decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rewind {
    To { point: Point, restore: Restore },
    Close,
}

impl RewindView {
    /// The picker over `texts` (the chat's user messages in order); `None` when there are none.
    pub fn new(texts: Vec<String>) -> Option<Self> {
        if texts.is_empty() {
            return None;
        }
        let points: Vec<Point> = texts
            .into_iter()
            .enumerate()
            .map(|(index, text)| Point { index, text })
            .collect();
        Some(Self {
            selected: points.len() - 1,
            points,
            step: Step::Pick,
        })
    }

    /// The choice step is showing (with the highlighted choice).
    pub fn choosing(&self) -> Option<usize> {
        match self.step {
            Step::Choose { choice } => Some(choice),
            Step::Pick => None,
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<Rewind> {
        match self.step {
            Step::Pick => self.pick_key(key),
            Step::Choose { choice } => self.choose_key(key, choice),
        }
    }

    fn pick_key(&mut self, key: KeyEvent) -> Option<Rewind> {
        let last = self.points.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return Some(Rewind::Close),
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(10),
            KeyCode::PageDown => self.selected = (self.selected + 10).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => self.step = Step::Choose { choice: 0 },
            _ => {}
        }
        None
    }

    fn choose_key(&mut self, key: KeyEvent, choice: usize) -> Option<Rewind> {
        let last = CHOICES.len() - 1;
        let chosen = match key.code {
            KeyCode::Esc => {
                self.step = Step::Pick;
                return None;
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.step = Step::Choose {
                    choice: choice.saturating_sub(1),
                };
                return None;
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.step = Step::Choose {
                    choice: (choice + 1).min(last),
                };
                return None;
            }
            KeyCode::Enter => choice,
            KeyCode::Char(c @ '1'..='3') => c as usize - '1' as usize,
            _ => return None,
        };
        let point = self.points.get(self.selected)?.clone();
        Some(Rewind::To {
            point,
            restore: CHOICES[chosen].0,
        })
    }
}

/// The first line of a message, for its row.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Draws the view in the modal's place.
pub fn draw(f: &mut Canvas, screen: Rect, view: &RewindView, t: &Theme) {
    let rect = crate::tui::widgets::modal::area(screen);
    f.render_widget(Clear, rect);
    let title = match view.step {
        Step::Pick => format!(
            " Rewind to before which message? ({}) — Enter choose · Esc close ",
            view.points.len()
        ),
        Step::Choose { .. } => " Rewind: restore what? — 1-3 or Enter · Esc back ".to_owned(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.modal_border)
        .title(Span::styled(title, t.modal_title));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    let w = inner.width as usize;
    let cut = |s: String| crate::text_cut::head_chars(&s, w).to_owned();
    let lines: Vec<Line<'static>> = match view.step {
        Step::Pick => {
            let rows = inner.height as usize;
            let first = view.selected.saturating_sub(rows.saturating_sub(1));
            view.points
                .iter()
                .enumerate()
                .skip(first)
                .take(rows)
                .map(|(i, p)| {
                    let style = if i == view.selected {
                        t.choice_selected
                    } else {
                        t.text
                    };
                    let row = format!("{:>3}  {}", p.index + 1, first_line(&p.text));
                    Line::from(Span::styled(cut(row), style))
                })
                .collect()
        }
        Step::Choose { choice } => {
            let text = view
                .points
                .get(view.selected)
                .map(|p| first_line(&p.text).to_owned())
                .unwrap_or_default();
            let mut lines = vec![
                Line::from(Span::styled(cut(format!("before: {text}")), t.text)),
                Line::default(),
            ];
            lines.extend(CHOICES.iter().enumerate().map(|(i, (_, label))| {
                let style = if i == choice {
                    t.choice_selected
                } else {
                    t.text
                };
                Line::from(Span::styled(cut(format!("{}. {label}", i + 1)), style))
            }));
            lines
        }
    };
    f.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn view() -> RewindView {
        RewindView::new(vec!["one".into(), "two\nmore".into(), "three".into()]).unwrap()
    }

    #[test]
    fn no_messages_no_picker() {
        assert_eq!(RewindView::new(Vec::new()), None);
    }

    /// (keys, what the last one decided)
    #[test]
    fn keys_pick_a_message_then_what_to_restore() {
        use KeyCode::*;
        let to = |index: usize, text: &str, restore| {
            Some(Rewind::To {
                point: Point {
                    index,
                    text: text.into(),
                },
                restore,
            })
        };
        let rows: Vec<(Vec<KeyCode>, Option<Rewind>)> = vec![
            (vec![Esc], Some(Rewind::Close)),
            (vec![Enter], None),
            (vec![Enter, Enter], to(2, "three", Restore::Both)),
            (
                vec![Up, Enter, Char('2')],
                to(1, "two\nmore", Restore::Conversation),
            ),
            (
                vec![Home, Enter, Down, Down, Enter],
                to(0, "one", Restore::Code),
            ),
            (
                vec![Home, Enter, Down, Down, Down, Enter],
                to(0, "one", Restore::Code),
            ),
            (
                vec![Char('k'), Char('k'), Char('k'), Enter, Char('3')],
                to(0, "one", Restore::Code),
            ),
            // Esc in the second step goes back to the list; a second Esc closes.
            (vec![Enter, Esc], None),
            (vec![Enter, Esc, Esc], Some(Rewind::Close)),
            (
                vec![Enter, Esc, Up, Enter, Char('1')],
                to(1, "two\nmore", Restore::Both),
            ),
            (vec![End, Down, Enter, Char('9')], None),
        ];
        for (keys, want) in rows {
            let mut v = view();
            let mut last = None;
            for k in &keys {
                last = v.handle_key(key(*k));
            }
            assert_eq!(last, want, "{keys:?}");
        }
    }

    #[test]
    fn the_rows_are_numbered_first_lines() {
        let v = view();
        let backend = ratatui::backend::TestBackend::new(60, 12);
        let mut term = ratatui::Terminal::new(backend).unwrap();
        let theme = Theme::default();
        term.draw(|f| {
            let area = f.area();
            draw(
                &mut crate::tui::screen::Canvas::new(f.buffer_mut()),
                area,
                &v,
                &theme,
            );
        })
        .unwrap();
        let screen: String = term
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        assert!(screen.contains("2  two"), "{screen}");
        assert!(!screen.contains("more"), "{screen}");
    }
}
