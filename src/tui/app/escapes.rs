//! The app's side of the ways out of the input box: Ctrl+G and Ctrl+X Ctrl+E ask the event
//! loop to open the input in the user's editor ([`crate::tui::editor`]), `!cmd` and `!!cmd`
//! ask it to run the user's command ([`crate::tui::shell_escape`]); what comes back changes
//! the input, the transcript, and what the next message carries.
//!
//! It owns no IO (the event loop suspends the terminal and runs the programs) and never sends
//! a `!` command's output to the model unless the line began with `!!`.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{App, Effect};
use crate::tui::editor::Outcome;
use crate::tui::shell_escape::{self, Done};

/// What this module keeps between keys.
#[derive(Debug, Default)]
pub struct Escapes {
    /// Ctrl+X was the last key: Ctrl+E now opens the editor.
    ctrl_x: bool,
    /// `!!` commands' text for the model, sent at the head of the next message.
    shared: Vec<String>,
}

/// What the event loop brings back.
#[derive(Debug)]
pub enum Returned {
    Editor(Outcome),
    Shell(Done),
}

impl App {
    /// Ctrl+G, or Ctrl+X then Ctrl+E: the input in the editor. `None` passes the key on.
    pub(super) fn escape_key(&mut self, key: &KeyEvent) -> Option<Vec<Effect>> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let chord = std::mem::take(&mut self.escapes.ctrl_x);
        match key.code {
            KeyCode::Char('g') if ctrl => {}
            KeyCode::Char('e') if ctrl && chord => {}
            KeyCode::Char('x') if ctrl => {
                self.escapes.ctrl_x = true;
                return Some(Vec::new());
            }
            _ => return None,
        }
        Some(vec![Effect::Editor(self.input.text())])
    }

    /// Enter on a `!` line: the command to run (`None`: not a `!` line). A bare `!` is pointed
    /// out and the input kept.
    pub(super) fn shell_line(&mut self, text: &str) -> Option<Vec<Effect>> {
        let escape = match shell_escape::parse(text)? {
            Ok(e) => e,
            Err(why) => {
                self.flash = Some(why.to_owned());
                return Some(Vec::new());
            }
        };
        self.remember(text.trim());
        self.input.clear();
        self.flash = Some(format!("running `{}`…", escape.command));
        self.chat.end();
        Some(vec![Effect::Shell(escape)])
    }

    /// `message` with the `!!` output waiting before it (which is then gone).
    pub(super) fn with_shared(&mut self, message: String) -> String {
        let shared = std::mem::take(&mut self.escapes.shared);
        shell_escape::with_shared(&shared, &message)
    }

    pub(super) fn returned(&mut self, r: Returned) -> Vec<Effect> {
        match r {
            Returned::Editor(Outcome::Edited(text)) => {
                self.input.clear();
                self.input.set_text(&text);
                self.flash = None;
            }
            Returned::Editor(Outcome::Unchanged(why)) => self.flash = Some(why),
            Returned::Shell(done) => {
                self.transcript.push_notice(done.block());
                self.after_transcript_change();
                self.flash = match done.shared() {
                    Some(text) => {
                        self.escapes.shared.push(text);
                        Some(
                            "the command and its output go to the model with your next message"
                                .into(),
                        )
                    }
                    None => None,
                };
            }
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyEvent;

    use super::*;
    use crate::tui::app::AppEvent;
    use crate::tui::shell_escape::Escape;
    use crate::tui::tests_support::app;

    fn key(c: char, m: KeyModifiers) -> AppEvent {
        AppEvent::Key(KeyEvent::new(KeyCode::Char(c), m))
    }

    #[test]
    fn ctrl_g_and_the_ctrl_x_ctrl_e_chord_open_the_editor_with_the_input() {
        let ctrl = KeyModifiers::CONTROL;
        let mut a = app();
        a.input_mut().set_text("draft");
        assert_eq!(a.update(key('g', ctrl)), [Effect::Editor("draft".into())]);
        assert_eq!(a.update(key('x', ctrl)), []);
        assert_eq!(a.update(key('e', ctrl)), [Effect::Editor("draft".into())]);
        // Ctrl+E alone is still the end of the line.
        assert_eq!(a.update(key('e', ctrl)), []);
        a.update(AppEvent::Returned(Returned::Editor(Outcome::Edited(
            "new".into(),
        ))));
        assert_eq!(a.input().text(), "new");
        a.update(AppEvent::Returned(Returned::Editor(Outcome::Unchanged(
            "why".into(),
        ))));
        assert_eq!((a.input().text().as_str(), a.flash()), ("new", Some("why")));
    }

    fn done(share: bool) -> AppEvent {
        AppEvent::Returned(Returned::Shell(Done {
            escape: Escape {
                command: "echo hi".into(),
                share,
            },
            result: Ok(crate::tools::exec::shell::ShellOutcome {
                exit_code: Some(0),
                stdout: "hi\n".into(),
                ..Default::default()
            }),
        }))
    }

    fn enter(a: &mut crate::tui::app::App, text: &str) -> Vec<Effect> {
        a.input_mut().set_text(text);
        a.update(AppEvent::Key(KeyEvent::from(KeyCode::Enter)))
    }

    #[test]
    fn a_bang_runs_the_command_and_only_a_double_bang_goes_with_the_next_message() {
        let mut a = app();
        let shell = |share| {
            vec![Effect::Shell(Escape {
                command: "echo hi".into(),
                share,
            })]
        };
        assert_eq!(enter(&mut a, "!echo hi"), shell(false));
        assert_eq!(a.input().text(), "");
        a.update(done(false));
        assert!(a.entries().iter().any(|e| matches!(
            e,
            crate::tui::transcript::Entry::Notice { text } if text.contains("hi\n[exit 0]")
        )));
        assert_eq!(enter(&mut a, "hello"), [Effect::Send("hello".into())]);
        // During the turn too: it does not touch the turn.
        assert!(a.busy());
        assert_eq!(enter(&mut a, "!echo hi"), shell(false));
        a.update(AppEvent::Agent(crate::events::Event::TurnEnded(
            crate::events::TurnEnd::Completed,
        )));
        assert_eq!(enter(&mut a, "!!echo hi"), shell(true));
        a.update(done(true));
        let effects = enter(&mut a, "next");
        let [Effect::Send(sent)] = effects.as_slice() else {
            panic!("one send")
        };
        assert!(sent.starts_with("I ran a shell command"), "{sent}");
        assert!(sent.ends_with("(exit 0)\n\nnext"), "{sent}");
    }

    #[test]
    fn a_bare_bang_is_pointed_out_and_kept() {
        let mut a = app();
        assert_eq!(enter(&mut a, "!"), []);
        assert_eq!(a.input().text(), "!");
        assert!(a.flash().unwrap().contains("type a command after !"));
    }
}
