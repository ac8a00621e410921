//! Keys and the mouse: who gets a key (question form, approval modal, the app, the input box),
//! scrolling, the block selection, and sending a message.
//!
//! With an empty input, Tab moves a selection up through the foldable blocks on screen
//! (Shift+Tab down), Enter folds or unfolds the selected block, and Esc clears the selection.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};

use super::hints::QUIT_WINDOW;
use super::{Activity, App, Effect, commands, still_ctx};
use crate::agent::task::Command;
use crate::tui::entry_lines::foldable;
use crate::tui::input::InputOutcome;
use crate::tui::modal::ApprovalModal;
use crate::tui::picker::Picked;
use crate::tui::strings;
use crate::tui::transcript::Entry;

impl App {
    pub(super) fn on_mouse(&mut self, m: MouseEvent) {
        match m.kind {
            MouseEventKind::ScrollUp => self.scroll(true, 3),
            MouseEventKind::ScrollDown => self.scroll(false, 3),
            _ => {}
        }
    }

    /// Scrolls the chat pane by `n` lines (up: back in time). Rendering what comes into view
    /// caches it.
    pub fn scroll(&mut self, up: bool, n: usize) {
        let h = self.chat_height();
        let ctx = still_ctx(
            &self.theme,
            self.size.0,
            &self.expanded,
            self.selected,
            self.show_reasoning,
        );
        if up {
            self.chat.scroll_up(n, &self.transcript.entries, h, &ctx);
        } else {
            self.chat.scroll_down(n, &self.transcript.entries, h, &ctx);
        }
    }

    /// A key pressed at `now`; `previous` is when the key before it was.
    pub(super) fn on_key(
        &mut self,
        key: KeyEvent,
        now: Instant,
        previous: Option<Instant>,
    ) -> Vec<Effect> {
        if let Some(form) = self.form.as_mut() {
            if form.handle_key(key) {
                self.form = None;
                self.activity = Activity::Thinking;
            }
            return Vec::new();
        }
        if let Some(picker) = self.picker.as_mut() {
            return match picker.handle_key(key) {
                Some(Picked::Resume(id)) => {
                    self.picker = None;
                    vec![Effect::Agent(Command::Resume(Some(id)))]
                }
                Some(Picked::Close) => {
                    self.picker = None;
                    Vec::new()
                }
                None => Vec::new(),
            };
        }
        if let Some(effects) = self.take_back_key(key) {
            return effects;
        }
        if let Some(modal) = self.modal.as_mut() {
            let mut saved = Vec::new();
            if let Some(choice) = modal.handle_key_at(key, now, previous) {
                saved = modal.take_saved();
                modal.answer(choice);
                self.modal = self
                    .queued_approvals
                    .pop_front()
                    .map(|r| ApprovalModal::new(r, &self.theme));
                self.activity = if self.modal.is_some() {
                    Activity::Approval
                } else {
                    Activity::Thinking
                };
            }
            return saved
                .into_iter()
                .map(|spec| Effect::Agent(Command::SaveRule(spec)))
                .collect();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code != KeyCode::Char('c') || !ctrl {
            self.last_ctrl_c = None;
        }
        // Ctrl+R's search takes every key until it ends.
        let searching = self.input.searching();
        if !searching && let Some(effects) = self.escape_key(&key) {
            return effects;
        }
        if !searching && let Some(effects) = self.steering_key(&key, ctrl) {
            return effects;
        }
        if !searching && let Some(effects) = self.app_key(key, ctrl, now) {
            return effects;
        }
        match self.input.handle_key(key) {
            InputOutcome::Submit(text) => self.submit(text),
            InputOutcome::Edited => {
                self.flash = self.input.search_line();
                self.select(None);
                Vec::new()
            }
            InputOutcome::Ignored => Vec::new(),
        }
    }

    /// Keys the app takes before the input box; `None` passes the key on.
    fn app_key(&mut self, key: KeyEvent, ctrl: bool, now: Instant) -> Option<Vec<Effect>> {
        let page = self.chat_height().saturating_sub(2).max(1);
        let empty = self.input.is_empty();
        match key.code {
            KeyCode::Esc if self.input.menu_open() => self.input.close_menu(),
            KeyCode::Esc if self.busy => return Some(vec![Effect::Stop]),
            KeyCode::Esc if self.selected.is_some() => self.select(None),
            KeyCode::Char('c') if ctrl => return Some(self.ctrl_c(now)),
            KeyCode::Char('t') if ctrl => {
                self.set_show_reasoning(!self.show_reasoning);
                self.show_hint(if self.show_reasoning {
                    strings::REASONING_SHOWN
                } else {
                    strings::REASONING_HIDDEN
                });
            }
            KeyCode::Char('d') if ctrl && empty => {
                self.quit = true;
                return Some(vec![Effect::Quit]);
            }
            KeyCode::PageUp => self.scroll(true, page),
            KeyCode::PageDown => self.scroll(false, page),
            KeyCode::Home if ctrl || empty => self.chat.home(),
            KeyCode::End if ctrl || empty => self.chat.end(),
            KeyCode::Tab if empty => self.move_selection(true),
            KeyCode::BackTab if empty => self.move_selection(false),
            KeyCode::Enter if empty && self.selected.is_some() => self.toggle_selected(),
            KeyCode::Enter if empty && self.plan_awaiting() => return Some(self.accept_plan(None)),
            KeyCode::Char('m') if key.modifiers.contains(KeyModifiers::ALT) => {
                return Some(self.cycle_mode());
            }
            _ => return None,
        }
        Some(Vec::new())
    }

    fn ctrl_c(&mut self, now: Instant) -> Vec<Effect> {
        if self.busy {
            return vec![Effect::Stop];
        }
        if self
            .last_ctrl_c
            .is_some_and(|t| now.duration_since(t) < QUIT_WINDOW)
        {
            self.quit = true;
            return vec![Effect::Quit];
        }
        self.last_ctrl_c = Some(now);
        self.input.clear();
        self.show_hint(strings::PRESS_AGAIN_TO_QUIT);
        Vec::new()
    }

    /// Shows entry `index` at the top of the chat pane (stops following new output).
    pub fn scroll_to_entry(&mut self, index: usize) {
        self.chat.anchor_at(index);
    }

    /// Follows new output again (End).
    pub fn follow(&mut self) {
        self.chat.end();
    }

    /// Changes the selected block, redrawing the old and the new one.
    fn select(&mut self, to: Option<usize>) {
        for i in [self.selected, to].into_iter().flatten() {
            self.chat.invalidate(i);
        }
        self.selected = to;
    }

    /// Tab: the foldable block above the selection on screen (or the last one); Shift+Tab: the
    /// one below. Wraps around.
    fn move_selection(&mut self, up: bool) {
        let h = self.chat_height();
        let ctx = still_ctx(
            &self.theme,
            self.size.0,
            &self.expanded,
            self.selected,
            self.show_reasoning,
        );
        let Some((first, last)) = self.chat.visible_entries(&self.transcript.entries, h, &ctx)
        else {
            return;
        };
        // A hidden reasoning block has nothing to unfold.
        let shown = |e: &Entry| self.show_reasoning || !matches!(e, Entry::Reasoning { .. });
        let blocks: Vec<usize> = (first..=last)
            .filter(|&i| {
                foldable(&self.transcript.entries[i]) && shown(&self.transcript.entries[i])
            })
            .collect();
        if blocks.is_empty() {
            self.show_hint(strings::NO_BLOCKS);
            return;
        }
        let at = self
            .selected
            .and_then(|s| blocks.iter().position(|&b| b == s));
        let next = match (at, up) {
            (None, _) => blocks.len() - 1,
            (Some(0), true) => blocks.len() - 1,
            (Some(i), true) => i - 1,
            (Some(i), false) => (i + 1) % blocks.len(),
        };
        self.select(Some(blocks[next]));
        self.show_hint(strings::SELECTED_BLOCK);
    }

    fn toggle_selected(&mut self) {
        if let Some(i) = self.selected {
            if !self.expanded.remove(&i) {
                self.expanded.insert(i);
            }
            self.chat.invalidate(i);
        }
    }

    /// Enter: a command runs, a message is sent (queued during a turn: `steering`); a mistake (an unknown or ambiguous command
    /// name) is pointed out and the input kept for fixing (rules in `commands::line`), and so
    /// is a command refused until the turn ends.
    fn submit(&mut self, text: String) -> Vec<Effect> {
        if let Some(effects) = self.shell_line(&text) {
            return effects;
        }
        // A command file added or changed since the last look counts now.
        self.refresh_file_commands();
        let line = commands::parse(&text, &self.input.commands, |p| {
            std::path::Path::new(p).exists()
        });
        let line = commands::as_message(self, line);
        if let Some(error) = commands::mistake(&line) {
            self.flash = Some(error);
            return Vec::new();
        }
        let message = match line {
            commands::Line::Command { command, arg } => {
                let arg = arg.to_owned();
                self.flash = None;
                let effects = commands::run(self, command, &arg);
                // Refused during a turn: kept, to send again once it ends (as a mistake is).
                if self.flash.as_deref() != Some(strings::BUSY_FOR_COMMAND) {
                    self.remember(text.trim());
                    self.input.clear();
                }
                self.after_transcript_change();
                return effects;
            }
            commands::Line::Message(m) => m,
            commands::Line::Ambiguous { .. } | commands::Line::Unknown(_) => return Vec::new(),
        };
        if self.busy {
            return self.queue_message(&text, false);
        }
        self.queue.stop_editing();
        self.remember(&text);
        self.input.clear();
        self.flash = None;
        self.select(None);
        // The message joins the transcript when the agent takes it (Event::UserMessage).
        self.chat.end();
        self.busy = true;
        self.activity = Activity::Waiting;
        vec![Effect::Send(self.with_shared(message))]
    }

    /// The input history saved across runs, used from now on.
    pub fn set_history(&mut self, history: crate::tui::input::history::History) {
        self.input.set_history(history);
    }

    /// Adds `text` to the input history; a history file that could not be saved is a notice.
    pub(super) fn remember(&mut self, text: &str) {
        if let Some(e) = self.input.remember(text) {
            self.transcript.push_notice(e);
        }
    }
}

#[cfg(test)]
mod tests;
