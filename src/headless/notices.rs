//! How the agent's notices read in a headless run: each [`Notice`] worded once, for the text
//! printer (stderr, `error:` before an error) and `--json` (`notice` events) alike.
//!
//! Data in, one line out; a headless run has no slash commands, so nothing here names one.
//! Not here: how the TUI words the same notices (`tui::notices`), which events are notices.

use crate::events::Notice;
use crate::events::notice_words::Reader;

/// What a headless run says of `n`; `None` for what it does not show (a resumed session's
/// history is not printed again, its mode and model changes neither).
pub fn message(n: &Notice) -> Option<String> {
    n.words(Reader::Headless)
}

/// What the user reads when a saved session had unreadable lines (also the warning a resumed
/// headless run prints before it starts).
pub fn skipped_lines(n: usize) -> String {
    message(&Notice::SkippedLines(n)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Mode;
    use crate::provider::ProviderError;

    /// Every kind of notice, worded: the words `tests/suite` and `docs/json-events.md` expect.
    #[test]
    fn each_notice_is_worded_for_a_headless_run() {
        let dropped = ProviderError::Dropped("gone".into());
        let failed = format!("could not compact: {dropped} — the history is unchanged");
        let rows: Vec<(Notice, Option<&str>)> = vec![
            (
                Notice::Stream("the server says hi".into()),
                Some("the server says hi"),
            ),
            (
                Notice::Instructions("AGENTS.md was cut".into()),
                Some("AGENTS.md was cut"),
            ),
            (
                Notice::ToolsNarrowed("files only".into()),
                Some("files only"),
            ),
            (
                Notice::WindowFull {
                    percent: 71,
                    used: 2900,
                    window: 4096,
                    prune_at: 60,
                    compact_at: 80,
                },
                Some(
                    "the context window is 71% full (2900 of 4096 tokens): from 60% older tool outputs are sent as short stand-ins, from 80% the older conversation is summarised (a run without --continue or --resume starts with an empty window)",
                ),
            ),
            (
                Notice::Summarising,
                Some(
                    "the conversation nearly fills the context window: summarising its older part (one request)…",
                ),
            ),
            (
                Notice::Overflow { window: 8192 },
                Some(
                    "the request did not fit the model's context window (8192 tokens): making room and trying once more",
                ),
            ),
            (
                Notice::ToolsInText {
                    why: "tools param requires --jinja flag".into(),
                },
                Some(
                    "the server refused the tools parameter (tools param requires --jinja flag): describing the tools in the system message and reading tool calls from the replies' text for this chat",
                ),
            ),
            (
                Notice::OverflowRetry {
                    window: 9000,
                    counted: Some(10751),
                    estimated: 5376,
                    attempt: 1,
                    max: 3,
                },
                Some(
                    "the request did not fit the model's context window (9000 tokens): the server counted 10751 tokens where sayso estimated 5376; trying a smaller request (1 of 3)",
                ),
            ),
            (
                Notice::ToolsCut {
                    dropped: vec!["ask_questions".into(), "file_search".into()],
                },
                Some(
                    "to fit the window, fewer tools are offered from now on: ask_questions, file_search left out (--tools chooses what is offered)",
                ),
            ),
            (
                Notice::NothingToCompact,
                Some("nothing to compact yet: the conversation is too short"),
            ),
            (
                Notice::CompactionStopped,
                Some("compaction stopped; the history is unchanged"),
            ),
            (
                Notice::CompactionFailed(dropped.clone()),
                Some(failed.as_str()),
            ),
            (
                Notice::McpReady {
                    server: "fs".into(),
                    tools: 3,
                    skipped: vec![],
                },
                Some("MCP server `fs`: 3 tool(s)"),
            ),
            (
                Notice::McpReady {
                    server: "fs".into(),
                    tools: 1,
                    skipped: vec!["a: bad".into(), "b: bad".into()],
                },
                Some("MCP server `fs`: 1 tool(s); not offered: a: bad; b: bad"),
            ),
            (
                Notice::McpFailed {
                    server: "fs".into(),
                    why: "exited".into(),
                },
                Some("MCP server `fs`: exited"),
            ),
            (
                Notice::McpToolMissing("--tools names `x__y`".into()),
                Some("--tools names `x__y`"),
            ),
            (Notice::Banner("resumed k3x9".into()), Some("resumed k3x9")),
            (
                Notice::SkippedLines(2),
                Some(
                    "2 unreadable line(s) of the session file were skipped (a crash while it was written)",
                ),
            ),
            (
                Notice::ModeNotRestored {
                    saved: Mode::Trust,
                    continues: Mode::Balanced,
                },
                Some(
                    "this session was saved in trust mode, which asks less than balanced, the mode your config starts in: it continues in balanced. To continue in trust: /mode trust (or --approval-mode trust)",
                ),
            ),
            (Notice::ReplayedMode(Mode::Auto), None),
            (Notice::ReplayedModel("m".into()), None),
            (
                Notice::SandboxOff {
                    configured: crate::sandbox::Mode::ReadOnly,
                    why: "no backend works here".into(),
                },
                Some(
                    "the sandbox is off: `read-only` was asked for, but no backend works here; commands run unconfined (`sayso config check` shows the policy)",
                ),
            ),
            (
                Notice::SandboxLimits {
                    mode: crate::sandbox::Mode::WorkspaceWrite,
                    limits: vec!["protected paths inside the project".into()],
                },
                Some(
                    "the sandbox (workspace-write) cannot enforce: protected paths inside the project",
                ),
            ),
            (
                Notice::ProjectFiles {
                    changes: vec![
                        "AGENTS.md changed: re-read".into(),
                        "skill deploy added".into(),
                    ],
                    instructions: vec!["/p/AGENTS.md".into()],
                    skills: vec!["deploy".into()],
                },
                Some("AGENTS.md changed: re-read; skill deploy added"),
            ),
        ];
        for (notice, want) in rows {
            assert_eq!(message(&notice).as_deref(), want, "{notice:?}");
        }
    }
}
