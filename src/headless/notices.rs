//! How the agent's notices read in a headless run: each [`Notice`] worded once, for the text
//! printer (stderr, `error:` before an error) and `--json` (`notice` events) alike.
//!
//! Data in, one line out; a headless run has no slash commands, so nothing here names one.
//! Not here: how the TUI words the same notices (`tui::notices`), which events are notices.

use crate::events::Notice;

/// What a headless run says of `n`; `None` for what it does not show (a resumed session's
/// history is not printed again, its mode and model changes neither).
pub fn message(n: &Notice) -> Option<String> {
    Some(match n {
        Notice::Stream(t)
        | Notice::Instructions(t)
        | Notice::ToolsNarrowed(t)
        | Notice::McpToolMissing(t)
        | Notice::Banner(t) => t.clone(),
        Notice::ModeNotRestored { saved, continues } => format!(
            "this session was saved in {s} mode, which asks less than {c}, the mode your config starts in: it continues in {c}. To continue in {s}: /mode {s} (or --approval-mode {s})",
            s = saved.as_str(),
            c = continues.as_str()
        ),
        Notice::WindowFull {
            percent,
            used,
            window,
            prune_at,
            compact_at,
        } => format!(
            "the context window is {percent}% full ({used} of {window} tokens): from {prune_at}% older tool outputs are sent as short stand-ins, from {compact_at}% the older conversation is summarised (a run without --continue or --resume starts with an empty window)"
        ),
        Notice::Summarising => "the conversation nearly fills the context window: summarising its older part (one request)…".into(),
        Notice::Overflow { window } => format!(
            "the request did not fit the model's context window ({window} tokens): making room and trying once more"
        ),
        Notice::ToolsInText { why } => format!(
            "the server refused the tools parameter ({why}): describing the tools in the system message and reading tool calls from the replies' text for this chat"
        ),
        Notice::OverflowRetry {
            window,
            counted,
            estimated,
            attempt,
            max,
        } => {
            let counted = counted.map_or(String::new(), |c| {
                format!(": the server counted {c} tokens where sayso estimated {estimated}")
            });
            format!(
                "the request did not fit the model's context window ({window} tokens){counted}; trying a smaller request ({attempt} of {max})"
            )
        }
        Notice::ToolsCut { dropped } => format!(
            "to fit the window, fewer tools are offered from now on: {} left out (--tools chooses what is offered)",
            dropped.join(", ")
        ),
        Notice::NothingToCompact => "nothing to compact yet: the conversation is too short".into(),
        Notice::CompactionStopped => "compaction stopped; the history is unchanged".into(),
        Notice::CompactionFailed(e) => format!("could not compact: {e} — the history is unchanged"),
        Notice::McpReady {
            server,
            tools,
            skipped,
        } => {
            let mut n = format!("MCP server `{server}`: {tools} tool(s)");
            if !skipped.is_empty() {
                n.push_str(&format!("; not offered: {}", skipped.join("; ")));
            }
            n
        }
        Notice::McpFailed { server, why } => format!("MCP server `{server}`: {why}"),
        Notice::SkippedLines(n) => skipped_lines(*n),
        Notice::ReplayedMode(_) | Notice::ReplayedModel(_) => return None,
    })
}

/// What the user reads when a saved session had unreadable lines (also the warning a resumed
/// headless run prints before it starts).
pub fn skipped_lines(n: usize) -> String {
    format!(
        "{n} unreadable line(s) of the session file were skipped (a crash while it was written)"
    )
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
        ];
        for (notice, want) in rows {
            assert_eq!(message(&notice).as_deref(), want, "{notice:?}");
        }
    }
}
