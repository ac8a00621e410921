//! The approval mode (`[chat] approval_mode`, `--approval-mode`, `--auto`, `/mode`): how much
//! runs without asking, by tool kind. Plain data here; the table is `tools::policy::approval::by_mode`.

use serde::{Deserialize, Serialize};

/// The approval mode: how much runs without asking, by tool kind (README "Approval policy").
/// `balanced` is SPEC §5.2's normal mode and `auto` its §5.4 auto mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Everything runs unasked (writes outside the project and protected paths still ask).
    Trust,
    /// Reads and edits run; shell and network calls pass the safe list or the judge, else ask.
    Auto,
    /// Each tool's own setting: reads run, edits, shell and network ask — but a safe-list
    /// command runs, read-only, inside a sandbox.
    #[default]
    #[serde(alias = "normal")]
    Balanced,
    /// Like balanced, but every edit asks, shown as a diff, and is accepted one at a time.
    Suggest,
    /// Everything but reads inside the project (and `--allowed-tools`) asks, every time: no
    /// allow rule, memory or judge runs anything.
    Strict,
}

impl Mode {
    pub const ALL: [Mode; 5] = [
        Mode::Trust,
        Mode::Auto,
        Mode::Balanced,
        Mode::Suggest,
        Mode::Strict,
    ];

    /// How much the mode asks, in the order of [`Mode::ALL`]: `trust` 0 (least) … `strict` 4
    /// (most). Each mode asks at least whenever the one before it does.
    pub fn strictness(self) -> usize {
        Mode::ALL.iter().position(|m| *m == self).unwrap_or(2)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Trust => "trust",
            Mode::Auto => "auto",
            Mode::Balanced => "balanced",
            Mode::Suggest => "suggest",
            Mode::Strict => "strict",
        }
    }

    /// The mode named `name` (`normal` is `balanced`).
    pub fn parse(name: &str) -> Option<Mode> {
        match name.trim().to_ascii_lowercase().as_str() {
            "normal" => Some(Mode::Balanced),
            n => Mode::ALL.into_iter().find(|m| m.as_str() == n),
        }
    }

    /// One line on what the mode does, for notices and `/mode`.
    pub fn describe(self) -> &'static str {
        match self {
            Mode::Trust => {
                "tools run without asking (writes outside the project and protected paths still ask)"
            }
            Mode::Auto => {
                "reads and edits run; commands (command tools too) and network calls run when safe-listed (read-only) or the judge agrees, else ask"
            }
            Mode::Balanced => {
                "reads run; safe-listed commands run read-only in the sandbox (without one they ask); edits, other commands and network calls ask first"
            }
            Mode::Suggest => {
                "like balanced, but every edit asks with its diff and is accepted one at a time"
            }
            Mode::Strict => {
                "everything but reads inside the project and --allowed-tools asks, every time; allow rules, Always accept and the judge do not apply (deny and ask rules do)"
            }
        }
    }
}
