//! How the agent's notices read in the chat: each [`Notice`] worded as the notice the
//! transcript shows (an error with `✗`), and the transcript's own notices for what the events
//! say without words — a turn's end, a model or mode change, pruned outputs.
//!
//! Data in, one string out. Not here: the answers to commands (`answers`), the flash line
//! under the input (`widgets::notices`), how a headless run words the same notices
//! (`headless::notices`).

use crate::events::notice_words::Reader;
use crate::events::{Mode, Notice, TurnEnd};

/// The notice `n` leaves in the transcript.
pub fn text(n: &Notice) -> String {
    let words = match n {
        Notice::ReplayedMode(mode) => return mode_notice(*mode),
        Notice::ReplayedModel(model) => return model_notice(model),
        n => n.words(Reader::Chat).unwrap_or_default(),
    };
    if n.is_error() {
        format!("✗ {words}")
    } else {
        words
    }
}

/// The notice a model change leaves in the transcript (live or replayed).
pub fn model_notice(model: &str) -> String {
    format!("model: {model} (from the next request)")
}

/// The notice a mode change leaves in the transcript (live or replayed).
pub fn mode_notice(mode: Mode) -> String {
    format!("{} mode: {}", mode.as_str().to_uppercase(), mode.describe())
}

/// The notice older tool outputs sent as stand-ins leave.
pub fn pruned(outputs: usize, chars: usize) -> String {
    format!(
        "⧉ {outputs} older tool output(s) ({chars} characters) are now sent as short stand-ins to fit the model's window; they stay here"
    )
}

/// How the turn ended, when the user should read about it.
pub fn turn_end(end: &TurnEnd) -> Option<String> {
    Some(match end {
        TurnEnd::Completed | TurnEnd::Stopped => return None,
        TurnEnd::Cancelled => "⏹ tool calls cancelled; your turn".to_owned(),
        TurnEnd::MaxTurns(n) => {
            format!("✗ stopped after {n} model round-trips without a final answer")
        }
        TurnEnd::LengthLimit => {
            "✗ the reply was cut off: the model reached its output token limit".to_owned()
        }
        TurnEnd::Failed(e) => format!("✗ {e} — nothing was lost; send again to retry"),
        TurnEnd::Repeated { .. } => format!("✗ {}", end.message().unwrap_or_default()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ProviderError;

    /// Every kind of notice, worded as the chat shows it (the words `tests/suite` expects).
    #[test]
    fn each_notice_is_worded_for_the_chat() {
        let dropped = ProviderError::Dropped("gone".into());
        let failed = format!("✗ could not compact: {dropped} — the history is unchanged");
        let rows: Vec<(Notice, &str)> = vec![
            (
                Notice::Stream("the server says hi".into()),
                "the server says hi",
            ),
            (
                Notice::Instructions("AGENTS.md was cut".into()),
                "AGENTS.md was cut",
            ),
            (Notice::ToolsNarrowed("files only".into()), "files only"),
            (
                Notice::WindowFull {
                    percent: 71,
                    used: 2900,
                    window: 4096,
                    prune_at: 60,
                    compact_at: 80,
                },
                "the context window is 71% full (2900 of 4096 tokens): from 60% older tool outputs are sent as short stand-ins, from 80% the older conversation is summarised (/compact [focus] does it now, /context shows what fills it)",
            ),
            (
                Notice::Summarising,
                "the conversation nearly fills the context window: summarising its older part (one request)…",
            ),
            (
                Notice::Overflow { window: 8192 },
                "the request did not fit the model's context window (8192 tokens): making room and trying once more",
            ),
            (
                Notice::ToolsInText {
                    why: "tools param requires --jinja flag".into(),
                },
                "the server refused the tools parameter (tools param requires --jinja flag): describing the tools in the system message and reading tool calls from the replies' text for this chat",
            ),
            (
                Notice::OverflowRetry {
                    window: 4096,
                    counted: None,
                    estimated: 3000,
                    attempt: 2,
                    max: 3,
                },
                "the request did not fit the model's context window (4096 tokens); trying a smaller request (2 of 3)",
            ),
            (
                Notice::ToolsCut {
                    dropped: vec!["ask_questions".into()],
                },
                "to fit the window, fewer tools are offered from now on: ask_questions left out (add them back with @{name})",
            ),
            (
                Notice::NothingToCompact,
                "nothing to compact yet: the conversation is too short",
            ),
            (
                Notice::CompactionStopped,
                "compaction stopped; the history is unchanged",
            ),
            (Notice::CompactionFailed(dropped.clone()), failed.as_str()),
            (
                Notice::McpReady {
                    server: "fs".into(),
                    tools: 3,
                    skipped: vec![],
                },
                "MCP server `fs`: 3 tool(s)",
            ),
            (
                Notice::McpReady {
                    server: "fs".into(),
                    tools: 1,
                    skipped: vec!["a: bad".into(), "b: bad".into()],
                },
                "MCP server `fs`: 1 tool(s); not offered: a: bad; b: bad",
            ),
            (
                Notice::McpFailed {
                    server: "fs".into(),
                    why: "exited".into(),
                },
                "✗ MCP server `fs`: exited",
            ),
            (
                Notice::McpToolMissing("--tools names `x__y`".into()),
                "✗ --tools names `x__y`",
            ),
            (Notice::Banner("resumed k3x9".into()), "resumed k3x9"),
            (
                Notice::SkippedLines(2),
                "✗ 2 unreadable line(s) of the session file were skipped (a crash while it was written)",
            ),
            (
                Notice::ModeNotRestored {
                    saved: Mode::Trust,
                    continues: Mode::Balanced,
                },
                "this session was saved in trust mode, which asks less than balanced, the mode your config starts in: it continues in balanced. To continue in trust: /mode trust (or --approval-mode trust)",
            ),
            (
                Notice::ReplayedModel("qwen".into()),
                "model: qwen (from the next request)",
            ),
            (
                Notice::SandboxOff {
                    configured: crate::sandbox::Mode::WorkspaceWrite,
                    why: "bwrap is not installed".into(),
                },
                "the sandbox is off: `workspace-write` was asked for, but bwrap is not installed; commands run unconfined (/sandbox shows the policy)",
            ),
            (
                Notice::SandboxLimits {
                    mode: crate::sandbox::Mode::ReadOnly,
                    limits: vec!["a".into(), "b".into()],
                },
                "the sandbox (read-only) cannot enforce: a; b",
            ),
        ];
        for (notice, want) in rows {
            assert_eq!(text(&notice), want, "{notice:?}");
        }
    }

    /// A replayed mode change reads as the live one does.
    #[test]
    fn a_replayed_mode_reads_as_a_mode_change() {
        for mode in [Mode::Trust, Mode::Auto, Mode::Balanced, Mode::Strict] {
            let t = text(&Notice::ReplayedMode(mode));
            assert_eq!(t, mode_notice(mode));
            assert!(
                t.starts_with(&format!("{} mode: ", mode.as_str().to_uppercase())),
                "{t}"
            );
        }
    }

    #[test]
    fn turn_ends_are_worded_unless_plain() {
        let rows = [
            (TurnEnd::Completed, None),
            (TurnEnd::Stopped, None),
            (
                TurnEnd::Cancelled,
                Some("⏹ tool calls cancelled; your turn"),
            ),
            (
                TurnEnd::MaxTurns(3),
                Some("✗ stopped after 3 model round-trips without a final answer"),
            ),
            (
                TurnEnd::LengthLimit,
                Some("✗ the reply was cut off: the model reached its output token limit"),
            ),
        ];
        for (end, want) in rows {
            assert_eq!(turn_end(&end).as_deref(), want, "{end:?}");
        }
        let e = ProviderError::Dropped("gone".into());
        assert_eq!(
            turn_end(&TurnEnd::Failed(e.clone())),
            Some(format!("✗ {e} — nothing was lost; send again to retry"))
        );
        assert_eq!(
            pruned(2, 900),
            "⧉ 2 older tool output(s) (900 characters) are now sent as short stand-ins to fit the model's window; they stay here"
        );
    }
}
