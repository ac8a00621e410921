//! The `ask_questions` form: one question at a time, with choices (Up/Down move, Space toggles
//! in a multi-select, Enter confirms) or a free-text answer (Enter submits; it edits with the
//! input box's keys, [`LineInput`], and Ctrl+Y brings back a kill from an earlier answer); Esc
//! skips the question. When the last question is answered, the answers go back to the tool.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tokio::sync::oneshot;

use super::input::LineInput;

use crate::tools::context::{Answer, Question, QuestionRequest};

pub struct QuestionForm {
    pub questions: Vec<Question>,
    pub answers: Vec<Answer>,
    /// The question on screen.
    pub current: usize,
    /// Highlighted option.
    pub cursor: usize,
    /// Ticked options of a multi-select.
    pub ticked: Vec<bool>,
    /// Free text (questions without options).
    pub text: LineInput,
    reply: Option<oneshot::Sender<Vec<Answer>>>,
}

impl QuestionForm {
    pub fn new(req: QuestionRequest) -> Self {
        let mut f = Self {
            questions: req.questions,
            answers: Vec::new(),
            current: 0,
            cursor: 0,
            ticked: Vec::new(),
            text: LineInput::new(),
            reply: Some(req.reply),
        };
        f.reset_for_current();
        f
    }

    fn reset_for_current(&mut self) {
        self.cursor = 0;
        self.text.clear();
        self.ticked = vec![
            false;
            self.questions
                .get(self.current)
                .map_or(0, |q| q.options.len())
        ];
    }

    pub fn question(&self) -> Option<&Question> {
        self.questions.get(self.current)
    }

    /// Records `answer` and moves on; true when the form is complete (answers sent).
    fn next(&mut self, answer: Answer) -> bool {
        self.answers.push(answer);
        self.current += 1;
        if self.current >= self.questions.len() {
            if let Some(reply) = self.reply.take() {
                let _ = reply.send(std::mem::take(&mut self.answers));
            }
            return true;
        }
        self.reset_for_current();
        false
    }

    /// Handles a key; true when the form is done.
    pub fn handle_key(&mut self, key: KeyEvent) -> bool {
        let Some(q) = self.question().cloned() else {
            return true;
        };
        if key.code == KeyCode::Esc {
            return self.next(Answer::Skipped);
        }
        // Ctrl+C leaves the form: every question not answered yet is skipped.
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            while !self.next(Answer::Skipped) {}
            return true;
        }
        if q.options.is_empty() {
            match key.code {
                KeyCode::Enter => {
                    let t = self.text.text().trim().to_owned();
                    return self.next(if t.is_empty() {
                        Answer::Skipped
                    } else {
                        Answer::Text(t)
                    });
                }
                _ => {
                    self.text.handle_key(&key);
                }
            }
            return false;
        }
        let n = q.options.len();
        match key.code {
            KeyCode::Up => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Down => self.cursor = (self.cursor + 1).min(n - 1),
            KeyCode::Char(' ') if q.multi_select => {
                self.ticked[self.cursor] = !self.ticked[self.cursor]
            }
            KeyCode::Char(c) if c.is_ascii_digit() && c != '0' => {
                let i = c as usize - '1' as usize;
                if i < n {
                    self.cursor = i;
                    if q.multi_select {
                        self.ticked[i] = !self.ticked[i];
                    } else {
                        return self.next(Answer::Selected(vec![q.options[i].label.clone()]));
                    }
                }
            }
            KeyCode::Enter => {
                let chosen: Vec<String> = if q.multi_select {
                    q.options
                        .iter()
                        .zip(&self.ticked)
                        .filter(|(_, t)| **t)
                        .map(|(o, _)| o.label.clone())
                        .collect()
                } else {
                    vec![q.options[self.cursor].label.clone()]
                };
                return self.next(if chosen.is_empty() {
                    Answer::Skipped
                } else {
                    Answer::Selected(chosen)
                });
            }
            _ => {}
        }
        false
    }

    pub fn paste(&mut self, text: &str) {
        if self.question().is_some_and(|q| q.options.is_empty()) {
            self.text.paste(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::context::QuestionOption;
    use crossterm::event::{KeyEventKind, KeyEventState};

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent {
            code,
            modifiers: KeyModifiers::NONE,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }

    fn q(options: &[&str], multi: bool) -> Question {
        Question {
            header: "H".into(),
            question: "Q?".into(),
            options: options
                .iter()
                .map(|o| QuestionOption {
                    label: (*o).into(),
                    description: String::new(),
                })
                .collect(),
            multi_select: multi,
        }
    }

    #[test]
    fn answers_free_text_single_and_multi_select_and_skips() {
        let (reply, mut rx) = oneshot::channel();
        let mut f = QuestionForm::new(QuestionRequest {
            call_id: "c".into(),
            questions: vec![
                q(&[], false),
                q(&["React", "Vue"], false),
                q(&["a", "b", "c"], true),
                q(&["x"], false),
            ],
            reply,
        });
        for c in "hello".chars() {
            f.handle_key(key(KeyCode::Char(c)));
        }
        f.handle_key(key(KeyCode::Enter));
        f.handle_key(key(KeyCode::Down));
        f.handle_key(key(KeyCode::Enter));
        f.handle_key(key(KeyCode::Char(' ')));
        f.handle_key(key(KeyCode::Down));
        f.handle_key(key(KeyCode::Down));
        f.handle_key(key(KeyCode::Char(' ')));
        f.handle_key(key(KeyCode::Enter));
        assert!(f.handle_key(key(KeyCode::Esc)));
        assert_eq!(
            rx.try_recv().unwrap(),
            [
                Answer::Text("hello".into()),
                Answer::Selected(vec!["Vue".into()]),
                Answer::Selected(vec!["a".into(), "c".into()]),
                Answer::Skipped
            ]
        );
    }

    #[test]
    fn ctrl_c_skips_every_question_left_and_keeps_the_answers_given() {
        let (reply, mut rx) = oneshot::channel();
        let mut f = QuestionForm::new(QuestionRequest {
            call_id: "c".into(),
            questions: vec![q(&["a", "b"], false), q(&[], false), q(&["x"], false)],
            reply,
        });
        assert!(!f.handle_key(key(KeyCode::Char('2'))));
        let ctrl_c = KeyEvent {
            modifiers: KeyModifiers::CONTROL,
            ..key(KeyCode::Char('c'))
        };
        assert!(f.handle_key(ctrl_c));
        assert_eq!(
            rx.try_recv().unwrap(),
            [
                Answer::Selected(vec!["b".into()]),
                Answer::Skipped,
                Answer::Skipped
            ]
        );
    }
}
