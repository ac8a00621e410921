//! Why a tool call ran without anyone being asked (issue 36.7): the one dim line under a tool
//! block in the TUI, the note after `sayso: running …` in headless text, and `tool_started`'s
//! `unasked` in `--json`. Decided by the approval engine
//! ([`crate::tools::policy::approval::Grounds`]), worded here once for every front-end.

use serde::{Deserialize, Serialize};

use crate::config::mode::Mode;

/// Why a call ran unasked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum Unasked {
    /// The allow rule that covers the call — for a command of several parts, the rule of each
    /// part — with the file and line it was written at, and how far it lifts the sandbox.
    Rule { rule: String },
    /// `--allowed-tools` or `chat.allowed_tools` names the tool.
    AllowedTools,
    /// "Always accept" earlier in this chat, in this mode.
    Remembered { mode: Mode },
    /// The judge found this very call safe earlier in this chat (auto mode).
    JudgeRemembered,
    /// The judge found it safe now, for this reason.
    Judge { reason: String },
    /// The safe list let it run, in a read-only sandbox.
    SafeList { mode: Mode },
    /// The mode runs it: trust runs everything, auto runs this kind of call, and in the other
    /// modes the tool needs no approval (a read inside the project).
    Mode { mode: Mode },
}

impl Unasked {
    /// The `--json` name of the reason (`unasked.why`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Unasked::Rule { .. } => "rule",
            Unasked::AllowedTools => "allowed_tools",
            Unasked::Remembered { .. } => "remembered",
            Unasked::JudgeRemembered => "judge_remembered",
            Unasked::Judge { .. } => "judge",
            Unasked::SafeList { .. } => "safe_list",
            Unasked::Mode { .. } => "mode",
        }
    }

    /// In words, to follow "ran unasked: ".
    pub fn describe(&self) -> String {
        match self {
            Unasked::Rule { rule } => format!("the rule {rule}"),
            Unasked::AllowedTools => {
                "`--allowed-tools` / `chat.allowed_tools` names the tool".into()
            }
            Unasked::Remembered { mode } => format!(
                "remembered: you chose Always accept earlier in this chat ({} mode)",
                mode.as_str()
            ),
            Unasked::JudgeRemembered => {
                "remembered: the judge found this exact call safe earlier in this chat (auto mode)"
                    .into()
            }
            Unasked::Judge { reason } => format!("the judge found it safe — {reason}"),
            Unasked::SafeList { mode } => format!(
                "the safe list ({} mode), in a read-only sandbox",
                mode.as_str()
            ),
            Unasked::Mode { mode: Mode::Trust } => "trust mode runs every call".into(),
            Unasked::Mode { mode: Mode::Auto } => "auto mode runs this kind of call".into(),
            Unasked::Mode { mode } => {
                format!("the tool needs no approval in {} mode", mode.as_str())
            }
        }
    }

    /// The whole line: "ran unasked: …".
    pub fn line(&self) -> String {
        format!("ran unasked: {}", self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reason_reads_after_ran_unasked_and_round_trips() {
        let rows = [
            (
                Unasked::Rule {
                    rule: "`run_command match \"git diff *\" → allow` (cfg:3)".into(),
                },
                "rule",
                "ran unasked: the rule `run_command match \"git diff *\" → allow` (cfg:3)",
            ),
            (
                Unasked::SafeList {
                    mode: Mode::Balanced,
                },
                "safe_list",
                "ran unasked: the safe list (balanced mode), in a read-only sandbox",
            ),
            (
                Unasked::Mode { mode: Mode::Strict },
                "mode",
                "ran unasked: the tool needs no approval in strict mode",
            ),
            (
                Unasked::Judge {
                    reason: "prints text".into(),
                },
                "judge",
                "ran unasked: the judge found it safe — prints text",
            ),
        ];
        for (u, why, line) in rows {
            assert_eq!(u.as_str(), why);
            assert_eq!(u.line(), line);
            let json = serde_json::to_value(&u).unwrap();
            assert_eq!(json["why"], why);
            assert_eq!(serde_json::from_value::<Unasked>(json).unwrap(), u);
        }
    }
}
