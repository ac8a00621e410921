//! Which approval mode a resumed chat continues in: resuming never loosens.
//!
//! - A mode given on the command line (`--approval-mode`, `--auto`) wins over the saved one,
//!   stricter or looser.
//! - Otherwise the saved mode comes back when it asks at least as much as the mode the user's
//!   config starts in ([`Mode::strictness`]); a looser one does not come back silently: the
//!   chat continues in the config's mode, and the notice says how to switch.
//!
//! Pure: the agent applies the answer and the front-ends word the notice
//! ([`Notice::ModeNotRestored`]).

use crate::events::{Mode, Notice};

/// The mode a chat starts in and whether the command line chose it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StartMode {
    pub mode: Mode,
    /// `--approval-mode` or `--auto` was given.
    pub explicit: bool,
}

/// The mode a resumed chat continues in, and what to tell the user when it is not the saved one.
pub fn resumed_mode(saved: Option<Mode>, start: StartMode) -> (Mode, Option<Notice>) {
    let Some(saved) = saved else {
        return (start.mode, None);
    };
    if start.explicit || saved.strictness() >= start.mode.strictness() {
        let mode = if start.explicit { start.mode } else { saved };
        return (mode, None);
    }
    (
        start.mode,
        Some(Notice::ModeNotRestored {
            saved,
            continues: start.mode,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use Mode::{Auto, Balanced, Strict, Suggest, Trust};

    fn start(mode: Mode, explicit: bool) -> StartMode {
        StartMode { mode, explicit }
    }

    #[test]
    fn the_command_line_wins_both_ways() {
        assert_eq!(
            resumed_mode(Some(Trust), start(Strict, true)),
            (Strict, None)
        );
        assert_eq!(
            resumed_mode(Some(Trust), start(Balanced, true)),
            (Balanced, None)
        );
        assert_eq!(resumed_mode(Some(Strict), start(Auto, true)), (Auto, None));
    }

    #[test]
    fn a_saved_mode_as_strict_or_stricter_comes_back() {
        assert_eq!(
            resumed_mode(Some(Strict), start(Balanced, false)),
            (Strict, None)
        );
        assert_eq!(
            resumed_mode(Some(Suggest), start(Suggest, false)),
            (Suggest, None)
        );
        assert_eq!(resumed_mode(None, start(Auto, false)), (Auto, None));
    }

    #[test]
    fn a_looser_saved_mode_does_not_come_back_and_the_notice_says_so() {
        for (saved, config) in [
            (Trust, Balanced),
            (Auto, Balanced),
            (Trust, Auto),
            (Balanced, Strict),
        ] {
            assert_eq!(
                resumed_mode(Some(saved), start(config, false)),
                (
                    config,
                    Some(Notice::ModeNotRestored {
                        saved,
                        continues: config
                    })
                )
            );
        }
    }

    #[test]
    fn strictness_follows_the_modes_from_trust_to_strict() {
        let order: Vec<usize> = Mode::ALL.iter().map(|m| m.strictness()).collect();
        assert_eq!(order, [0, 1, 2, 3, 4]);
        assert!(Trust.strictness() < Auto.strictness());
        assert!(Balanced.strictness() < Suggest.strictness());
    }
}
