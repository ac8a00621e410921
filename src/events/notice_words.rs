//! The words of the agent's notices, one table for both front-ends: where they read a notice
//! differently (a chat has slash commands and `@{…}` mentions, a headless run has flags), the
//! [`Reader`] says which. The front-ends decide how a notice is shown (`✗`, `error:`, a
//! `notice` event) and what a replayed change reads as (`tui::notices`, `headless::notices`).

use super::notice::Notice;

/// Who reads the notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// The terminal UI's chat.
    Chat,
    /// A headless run (`-p`: text on stderr or `--json`).
    Headless,
}

impl Notice {
    /// What `reader` reads of this notice; `None` for a replayed mode or model change, which
    /// each front-end words (or leaves out) itself.
    pub fn words(&self, reader: Reader) -> Option<String> {
        Some(match self {
            Notice::Stream(t)
            | Notice::Instructions(t)
            | Notice::ToolsNarrowed(t)
            | Notice::McpToolMissing(t)
            | Notice::Banner(t)
            | Notice::Attached(t)
            | Notice::AttachmentRefused(t) => t.clone(),
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
                "the context window is {percent}% full ({used} of {window} tokens): from {prune_at}% older tool outputs are sent as short stand-ins, from {compact_at}% the older conversation is summarised {}",
                match reader {
                    Reader::Chat => "(/compact [focus] does it now, /context shows what fills it)",
                    Reader::Headless =>
                        "(a run without --continue or --resume starts with an empty window)",
                }
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
                "to fit the window, fewer tools are offered from now on: {} left out ({})",
                dropped.join(", "),
                match reader {
                    Reader::Chat => "add them back with @{name}",
                    Reader::Headless => "--tools chooses what is offered",
                }
            ),
                Notice::UndoCapReached { cap } => format!(
                "this session's undo checkpoints reached their cap ({} MiB, [undo] session_cap): files changed from now on are kept by hash only, and undo cannot bring back their earlier content",
                cap >> 20
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
                Notice::SkippedLines(n) => format!(
                "{n} unreadable line(s) of the session file were skipped (a crash while it was written)"
            ),
                Notice::SandboxOff { configured, why } => format!(
                "the sandbox is off: `{}` was asked for, but {why}; commands run unconfined ({})",
                configured.as_str(),
                match reader {
                    Reader::Chat => "/sandbox shows the policy",
                    Reader::Headless => "`sayso config check` shows the policy",
                }
            ),
                Notice::SandboxLimits { mode, limits } => format!(
                "the sandbox ({}) cannot enforce: {}",
                mode.as_str(),
                limits.join("; ")
            ),
                Notice::ProjectFiles { changes, .. } => changes.join("; "),
            Notice::ReplayedMode(_) | Notice::ReplayedModel(_) => return None,
        })
    }
}
