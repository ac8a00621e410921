//! `/undo`, `/redo` and `/rewind` in the app: the commands (refused during a turn, with the
//! hint every between-turns command gives), the two views they open ([`RewindView`] over the
//! chat's user messages, [`UndoView`] over an undo's preview), their keys, and what the
//! agent's answers change (a preview opens the confirmation; a rewound conversation puts the
//! chosen message back into the input, to edit and send again).
//!
//! Nothing here touches a file or the session: the agent plans, applies and forks
//! (`agent::undoing`); this only asks and shows.

use crossterm::event::KeyEvent;

use super::super::{App, Effect};
use super::between_turns;
use crate::agent::task::Command;
use crate::events::Answer;
use crate::events::answer::RewindTo;
use crate::tui::rewind::{Rewind, RewindView};
use crate::tui::strings;
use crate::tui::transcript::Entry;
use crate::tui::undo_view::{Confirm, UndoView};

/// The views open, at most one at a time.
#[derive(Debug, Default)]
pub struct TakeBack {
    pub rewind: Option<RewindView>,
    pub undo: Option<UndoView>,
}

pub(super) fn undo(app: &mut App, _: &str) -> Vec<Effect> {
    between_turns(app, Command::Undo { redo: false })
}

pub(super) fn redo(app: &mut App, _: &str) -> Vec<Effect> {
    between_turns(app, Command::Undo { redo: true })
}

pub(super) fn rewind(app: &mut App, _: &str) -> Vec<Effect> {
    if app.busy {
        app.show_hint(strings::BUSY_FOR_COMMAND);
        return Vec::new();
    }
    let texts: Vec<String> = app
        .transcript
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::User { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    match RewindView::new(texts) {
        Some(v) => app.take_back.rewind = Some(v),
        None => app.flash = Some("there is no message to rewind to yet".into()),
    }
    Vec::new()
}

impl App {
    /// The open `/rewind` or undo view.
    pub fn take_back(&self) -> &TakeBack {
        &self.take_back
    }

    /// A key for an open view; `None` when none is open (the key goes on).
    pub(in crate::tui::app) fn take_back_key(&mut self, key: KeyEvent) -> Option<Vec<Effect>> {
        if let Some(view) = self.take_back.undo.as_mut() {
            let effects = match view.handle_key(key) {
                Some(Confirm::Apply { rest }) => {
                    let preview = view.preview.clone();
                    self.take_back.undo = None;
                    vec![Effect::Agent(Command::ApplyUndo { preview, rest })]
                }
                Some(Confirm::Cancel) => {
                    self.take_back.undo = None;
                    self.flash = Some("nothing was changed".into());
                    Vec::new()
                }
                None => Vec::new(),
            };
            return Some(effects);
        }
        let view = self.take_back.rewind.as_mut()?;
        let effects = match view.handle_key(key) {
            Some(Rewind::To { point, restore }) => {
                self.take_back.rewind = None;
                vec![Effect::Agent(Command::Rewind(RewindTo {
                    index: point.index,
                    text: point.text,
                    restore,
                }))]
            }
            Some(Rewind::Close) => {
                self.take_back.rewind = None;
                Vec::new()
            }
            None => Vec::new(),
        };
        Some(effects)
    }

    /// What an answer changes here; `true` when it is shown here rather than as a notice.
    pub(in crate::tui::app) fn take_back_answer(&mut self, a: &Answer) -> bool {
        match a {
            Answer::UndoPreview(p) => {
                self.take_back.undo = Some(UndoView::new(p.clone()));
                true
            }
            Answer::Rewound { text, .. } => {
                self.input.set_text(text);
                false
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use crate::agent::task::Command;
    use crate::events::answer::{Restore, RewindTo, UndoPreview};
    use crate::events::{Answer, Event};
    use crate::tui::app::Effect;
    use crate::tui::strings;
    use crate::tui::tests_support::*;

    fn run(a: &mut crate::tui::app::App, line: &str) -> Vec<Effect> {
        typed(a, line);
        a.update(key(KeyCode::Enter))
    }

    fn agent_commands(effects: Vec<Effect>) -> Vec<Command> {
        effects
            .into_iter()
            .filter_map(|e| match e {
                Effect::Agent(c) => Some(c),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn during_a_turn_undo_redo_and_rewind_are_refused_with_the_hint() {
        for line in ["/undo", "/redo", "/rewind"] {
            let mut a = app();
            send(&mut a, "working");
            assert!(a.busy());
            let effects = run(&mut a, line);
            assert!(agent_commands(effects).is_empty(), "{line}");
            assert_eq!(a.flash(), Some(strings::BUSY_FOR_COMMAND), "{line}");
            assert!(a.take_back().rewind.is_none(), "{line}");
        }
    }

    #[test]
    fn rewind_picks_a_message_and_a_preview_asks_before_anything_is_applied() {
        let mut a = app();
        send(&mut a, "one");
        agent(&mut a, Event::TurnEnded(crate::events::TurnEnd::Completed));
        send(&mut a, "two");
        agent(&mut a, Event::TurnEnded(crate::events::TurnEnd::Completed));
        assert!(run(&mut a, "/rewind").is_empty());
        assert!(a.take_back().rewind.is_some());
        a.update(key(KeyCode::Up));
        a.update(key(KeyCode::Enter));
        let effects = a.update(key(KeyCode::Char('3')));
        let to = RewindTo {
            index: 0,
            text: "one".into(),
            restore: Restore::Code,
        };
        assert_eq!(agent_commands(effects), [Command::Rewind(to.clone())]);
        assert!(a.take_back().rewind.is_none());

        let preview = UndoPreview {
            redo: false,
            turns: vec![1, 2],
            restores: vec!["a.txt".into()],
            diff: String::new(),
            conflicts: Vec::new(),
            unrecoverable: Vec::new(),
            rewind: Some(to),
            changed: false,
        };
        agent(&mut a, Event::Answer(Answer::UndoPreview(preview.clone())));
        assert!(a.take_back().undo.is_some());
        // Keys the input would take do nothing here; `y` answers with the preview shown.
        let effects = a.update(key(KeyCode::Char('x')));
        assert!(agent_commands(effects).is_empty());
        let effects = a.update(key(KeyCode::Char('y')));
        assert_eq!(
            agent_commands(effects),
            [Command::ApplyUndo {
                preview,
                rest: false
            }]
        );
        assert!(a.take_back().undo.is_none());
        assert!(a.input().is_empty());
    }

    #[test]
    fn a_rewound_conversation_puts_the_message_back_into_the_input() {
        let mut a = app();
        agent(
            &mut a,
            Event::Answer(Answer::Rewound {
                index: 1,
                text: "two".into(),
                id: "new".into(),
                parent: "old".into(),
                code: None,
            }),
        );
        assert_eq!(a.input().text(), "two");
    }
}
