//! Hints on the flash line (the line under the input) expire: each at the end of its time, and
//! at once when what it says stops being true. Other flash messages (a command's answer or
//! error) stay until the next edit replaces them.
//!
//! | hint | gone when |
//! |---|---|
//! | "Press Ctrl+C again to quit" | the 1 s quit window closes, or another key is pressed |
//! | "wait until the current turn ends" | the turn ends, or after [`HINT_TIME`] |
//! | the selected block's keys | the selection is let go (Esc, an edit), or after [`HINT_TIME`] |
//! | "no … block on screen to select" | after [`HINT_TIME`] |
//!
//! A hint is known by its text (`strings`), so code that shows one by setting the flash gets its
//! expiry too; its time counts from the first event after which it was on the flash line
//! ([`App::show_hint`] restarts it for a hint shown again). The event loop sleeps until
//! [`App::next_expiry`] and no longer: no timer runs while nothing is due.

use std::time::{Duration, Instant};

use super::App;
use crate::tui::strings;

/// How long a second Ctrl+C quits.
pub const QUIT_WINDOW: Duration = Duration::from_secs(1);
/// How long a hint stays while it is still true.
pub const HINT_TIME: Duration = Duration::from_secs(5);

/// What the flash line shows and since when.
pub(super) struct Shown {
    text: String,
    since: Instant,
}

impl App {
    /// Shows hint `text`, its time starting now (also when it was showing already).
    pub(super) fn show_hint(&mut self, text: &str) {
        self.flash = Some(text.to_owned());
        self.flash_shown = None;
    }

    /// After each event, at `now`: notes when the flash line began to show its text, and drops
    /// a hint whose time is up or which is no longer true.
    pub(super) fn expire_hints(&mut self, now: Instant) {
        let Some(text) = self.flash.as_deref() else {
            self.flash_shown = None;
            return;
        };
        if self.flash_shown.as_ref().is_none_or(|s| s.text != text) {
            self.flash_shown = Some(Shown {
                text: text.to_owned(),
                since: now,
            });
        }
        if self.next_expiry().is_some_and(|t| t <= now) || !self.hint_still_true(text) {
            self.flash = None;
            self.flash_shown = None;
        }
    }

    /// When the hint on the flash line expires, if it is one.
    pub fn next_expiry(&self) -> Option<Instant> {
        let text = self.flash.as_deref()?;
        let since = self.flash_shown.as_ref().filter(|s| s.text == text)?.since;
        match text {
            strings::PRESS_AGAIN_TO_QUIT => Some(self.last_ctrl_c.unwrap_or(since) + QUIT_WINDOW),
            strings::BUSY_FOR_COMMAND | strings::SELECTED_BLOCK | strings::NO_BLOCKS => {
                Some(since + HINT_TIME)
            }
            _ => None,
        }
    }

    fn hint_still_true(&self, text: &str) -> bool {
        match text {
            strings::PRESS_AGAIN_TO_QUIT => self.last_ctrl_c.is_some(),
            strings::BUSY_FOR_COMMAND => self.busy,
            strings::SELECTED_BLOCK => self.selected.is_some(),
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use super::*;
    use crate::agent::{Event, TurnEnd};
    use crate::tui::app::AppEvent;
    use crate::tui::tests_support::*;

    #[test]
    fn the_quit_hint_goes_when_its_window_closes_or_another_key_is_pressed() {
        let mut a = app();
        let t0 = Instant::now();
        a.update_at(ctrl('c'), t0);
        assert_eq!(a.flash(), Some(strings::PRESS_AGAIN_TO_QUIT));
        assert_eq!(
            a.next_expiry(),
            Some(t0 + QUIT_WINDOW),
            "one wake, at the end"
        );
        a.update_at(AppEvent::Tick, t0 + QUIT_WINDOW / 2);
        assert_eq!(a.flash(), Some(strings::PRESS_AGAIN_TO_QUIT));
        a.update_at(AppEvent::Tick, t0 + QUIT_WINDOW);
        assert_eq!(a.flash(), None, "the window closed");
        assert_eq!(a.next_expiry(), None, "nothing left to wake for");

        a.update_at(ctrl('c'), t0 + QUIT_WINDOW * 2);
        assert_eq!(a.flash(), Some(strings::PRESS_AGAIN_TO_QUIT), "shown again");
        a.update_at(key(KeyCode::Left), t0 + QUIT_WINDOW * 2);
        assert_eq!(a.flash(), None, "another key closed the window");
    }

    #[test]
    fn the_busy_hint_goes_when_the_turn_ends() {
        let mut a = app();
        send(&mut a, "work");
        assert!(a.busy());
        typed(&mut a, "/clear");
        a.update(key(KeyCode::Enter));
        assert_eq!(a.flash(), Some(strings::BUSY_FOR_COMMAND));
        agent(&mut a, Event::TurnEnded(TurnEnd::Completed));
        assert!(!a.busy());
        assert_eq!(a.flash(), None);
    }

    #[test]
    fn the_block_hint_goes_with_the_selection_or_its_time_and_an_answer_stays() {
        let mut a = app();
        finished_tool(&mut a, "c1", 3);
        let t0 = Instant::now();
        a.update_at(key(KeyCode::Tab), t0);
        assert_eq!(a.flash(), Some(strings::SELECTED_BLOCK));
        a.update_at(key(KeyCode::Esc), t0);
        assert_eq!(
            a.flash(),
            None,
            "Esc let go of the block: its keys are no hint now"
        );
        a.update_at(key(KeyCode::Tab), t0);
        assert_eq!(a.next_expiry(), Some(t0 + HINT_TIME));
        a.update_at(AppEvent::Tick, t0 + HINT_TIME);
        assert_eq!(a.flash(), None);
        assert!(a.has_selection(), "the hint went, the selection stays");

        typed(&mut a, "/frobnicate");
        a.update_at(key(KeyCode::Enter), t0);
        assert!(a.flash().is_some_and(|f| f.starts_with("unknown command")));
        assert_eq!(a.next_expiry(), None, "an error is not a hint: it stays");
    }
}
