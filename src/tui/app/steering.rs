//! The keys and the turn's end for messages typed during a turn (the queue is
//! `tui::queue`): Enter queues (Alt+Enter for the other delivery), Up on an empty input takes
//! the last queued message back to edit, Esc or Ctrl+U drops a taken-back one; when a turn
//! ends the next queued message is sent, and after a stop they all go back into the input.
//!
//! What it does not do: deliver messages into a running turn (the agent's driver takes them
//! from the shared queue at its safe points), or refuse slash commands (`commands` does).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Activity, App, Effect};
use crate::agent::steer::{Delivery, Steer};
use crate::events::TurnEnd;
use crate::tui::queue::Queue;

impl App {
    /// The queue the agent shares, and what Enter asks for during a turn (`[ui] steer`).
    pub fn set_steer(&mut self, steer: Steer, default: Delivery) {
        self.queue = Queue::new(steer, default);
    }

    /// The queued messages (for the widget).
    pub fn queue(&self) -> &Queue {
        &self.queue
    }

    /// Keys the queue takes before the app's; `None` passes the key on. Esc drops a
    /// taken-back message (clearing the input) instead of stopping the turn; the next Esc stops
    /// it.
    pub(super) fn steering_key(&mut self, key: &KeyEvent, ctrl: bool) -> Option<Vec<Effect>> {
        let menu = self.input.menu_open();
        match key.code {
            KeyCode::Esc | KeyCode::Char('u')
                if self.queue.editing() && !menu && (ctrl || key.code == KeyCode::Esc) =>
            {
                self.queue.stop_editing();
                self.input.clear();
            }
            KeyCode::Up if self.input.is_empty() && !menu && !self.queue.is_empty() => {
                if let Some(text) = self.queue.take_last() {
                    self.input.set_text(&text);
                }
            }
            KeyCode::Enter if self.busy && key.modifiers.contains(KeyModifiers::ALT) => {
                let text = self.input.text();
                if !text.trim().is_empty() {
                    return Some(self.queue_message(&text, true));
                }
            }
            _ => return None,
        }
        Some(Vec::new())
    }

    /// Enter during a turn: the message waits in the queue (`alt`: Alt+Enter, the other
    /// delivery than `[ui] steer`'s).
    pub(super) fn queue_message(&mut self, text: &str, alt: bool) -> Vec<Effect> {
        self.queue.push(text, alt);
        self.input.remember(text);
        self.input.clear();
        self.flash = None;
        Vec::new()
    }

    /// After `TurnEnded`: a stop puts the queued messages back into the input (before what
    /// is there); any other end sends the next one as a new turn.
    pub(super) fn after_turn(&mut self, end: Option<&TurnEnd>) -> Vec<Effect> {
        match end {
            None => Vec::new(),
            Some(TurnEnd::Stopped) => {
                if let Some(queued) = self.queue.take_all_joined() {
                    let typed = self.input.text();
                    let text = match typed.trim().is_empty() {
                        true => queued,
                        false => format!("{queued}\n{typed}"),
                    };
                    self.queue.stop_editing();
                    self.input.set_text(&text);
                }
                Vec::new()
            }
            Some(_) => match self.queue.next_turn() {
                Some(text) => {
                    self.chat.end();
                    self.busy = true;
                    self.activity = Activity::Waiting;
                    vec![Effect::Send(text)]
                }
                None => Vec::new(),
            },
        }
    }
}

#[cfg(test)]
mod tests;
