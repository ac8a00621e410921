//! The approval modal's guard against keys typed ahead (issue 18, case 17): someone typing
//! "thank you" as the modal appears must not choose `a` (Always accept) or `c` (Cancel) with
//! it. A key may answer the modal only once the modal has been on screen for [`ON_SCREEN`]
//! and the keyboard has been quiet for [`QUIET`] before it; earlier keys are swallowed (the
//! app sends them nowhere, not to the input either) and the footer says so.
//!
//! Pure: the times come in as [`Instant`]s (the first frame that showed the modal, the key
//! before this one, this key), so tests inject them and never sleep.

use std::time::{Duration, Instant};

/// How long the modal must have been on screen before a key answers it.
pub const ON_SCREEN: Duration = Duration::from_millis(500);
/// How long the keyboard must have been quiet before a key answers the modal.
pub const QUIET: Duration = Duration::from_millis(300);

/// One modal's gate.
#[derive(Debug, Clone, Default)]
pub struct KeyGate {
    /// When a frame first showed the modal; `None` until then.
    shown: Option<Instant>,
    /// The last key was swallowed (the footer says so until a key gets through).
    swallowed: bool,
}

impl KeyGate {
    /// A frame showing the modal was drawn at `now` (only the first one counts).
    pub fn drawn(&mut self, now: Instant) {
        self.shown.get_or_insert(now);
    }

    /// Whether a key pressed at `now` may act on the modal, `previous` being when the key
    /// before it (any key, also one typed before the modal opened) was pressed. A refused key
    /// is remembered for [`Self::swallowed`].
    pub fn admit(&mut self, now: Instant, previous: Option<Instant>) -> bool {
        let shown_long_enough = self
            .shown
            .is_some_and(|s| now.saturating_duration_since(s) >= ON_SCREEN);
        let quiet = previous.is_none_or(|p| now.saturating_duration_since(p) >= QUIET);
        let admitted = shown_long_enough && quiet;
        self.swallowed = !admitted;
        admitted
    }

    /// The last key was swallowed.
    pub fn swallowed(&self) -> bool {
        self.swallowed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn keys_before_the_modal_is_drawn_are_swallowed() {
        let t = Instant::now();
        let mut g = KeyGate::default();
        assert!(!g.admit(t + ms(5_000), None));
        assert!(g.swallowed());
    }

    #[test]
    fn a_key_answers_only_after_half_a_second_on_screen() {
        let t = Instant::now();
        let mut g = KeyGate::default();
        g.drawn(t);
        g.drawn(t + ms(400)); // later frames do not restart the clock
        assert!(!g.admit(t + ms(499), None));
        assert!(g.admit(t + ms(500), None));
        assert!(!g.swallowed());
    }

    #[test]
    fn a_key_answers_only_after_the_keyboard_was_quiet_for_300_ms() {
        let t = Instant::now();
        let mut g = KeyGate::default();
        g.drawn(t);
        // Typing that started before the modal and goes on: every key is swallowed.
        let typing: Vec<Instant> = (0..9).map(|i| t + ms(400 + 80 * i)).collect();
        let mut previous = Some(t - ms(50));
        for &k in &typing {
            assert!(!g.admit(k, previous), "{k:?}");
            previous = Some(k);
        }
        assert!(g.swallowed());
        let last = *typing.last().unwrap();
        assert!(!g.admit(last + ms(299), Some(last)));
        let now = last + ms(299);
        assert!(g.admit(now + ms(300), Some(now)));
        assert!(!g.swallowed());
    }
}
