//! What the agent tells the user along the way, as data ([`Notice`], in `Event::Notice`): a
//! note on the window, on the endpoint, on a server, on a resumed session. Its words are
//! [`Notice::words`] (`notice_words`, one table for both front-ends, which show it:
//! `tui::notices`, `headless::notices`); an error is one whose [`Notice::is_error`]
//! says so (the TUI marks it `✗`, the text printer `error:`, `--json` `"error": true`).
//!
//! The few variants that carry a `String` carry words another layer already chose: the
//! provider's own stream note, the instruction files' notes (also in `/context`), the tool
//! offer's note, the resumed session's banner, what changed in the project's files. Nothing
//! here is saved in a session file.

use crate::config::mode::Mode;
use crate::provider::ProviderError;

#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// The provider's free-form note during a stream.
    Stream(String),
    /// A note on the instruction files (an `AGENTS.md` cut at the cap…), as they were read.
    Instructions(String),
    /// A small window narrowed the default tools: the tool offer's note.
    ToolsNarrowed(String),
    /// The tokens in use first reached the warning share of the window.
    WindowFull {
        /// Of the window, rounded down.
        percent: u64,
        used: u64,
        window: u64,
        /// From these shares of the window (percent), older tool outputs are sent as
        /// stand-ins, and the older conversation is summarised.
        prune_at: u64,
        compact_at: u64,
    },
    /// Pruning is not enough: the older conversation is being summarised (one request).
    Summarising,
    /// The server said the request did not fit its window (`window` tokens, as now known):
    /// room is made and the request tried once more.
    Overflow { window: u64 },
    /// The server refused the `tools` parameter (`why`, its words): from now on the chat's
    /// tools are described in the system message and calls read from the reply's text.
    ToolsInText { why: String },
    /// The server refused a request as too large for its window (`window` tokens, as now
    /// known): it counted `counted` tokens (when its error says) where sayso estimated
    /// `estimated`; a smaller request is tried (`attempt` of at most `max`).
    OverflowRetry {
        window: u64,
        counted: Option<u64>,
        estimated: u64,
        attempt: u32,
        max: u32,
    },
    /// To fit the window after an overflow, these tools are no longer offered.
    ToolsCut { dropped: Vec<String> },
    /// `/compact` found nothing older to summarise.
    NothingToCompact,
    /// `/compact` was stopped; the history is unchanged.
    CompactionStopped,
    /// `/compact` failed; the history is unchanged.
    CompactionFailed(ProviderError),
    /// An MCP server is ready with `tools` tools; `skipped` says which were not offered, and why.
    McpReady {
        server: String,
        tools: usize,
        skipped: Vec<String>,
    },
    /// An MCP server failed to start or answer.
    McpFailed { server: String, why: String },
    /// The tool list names a tool a ready MCP server does not offer (worded by the selection).
    McpToolMissing(String),
    /// What a message's `@` mentions attached, as chips: `attached [@src/main.rs:10-40]`, or
    /// that one was cut to fit the cap (`crate::attach`).
    Attached(String),
    /// A `@` mention that may not be attached, and why: nothing of it was sent.
    AttachmentRefused(String),
    /// One line of the banner a resumed chat opens with.
    Banner(String),
    /// Unreadable lines of a saved session file were skipped.
    SkippedLines(usize),
    /// The resumed chat goes on in the mode the config starts in (`continues`), not the
    /// looser one it was saved in: resuming never loosens.
    ModeNotRestored { saved: Mode, continues: Mode },
    /// A mode change of a resumed session's history (the chat's mode now is the one
    /// `Event::Resumed` gave).
    ReplayedMode(Mode),
    /// A model change of a resumed session's history.
    ReplayedModel(String),
    /// The session's checkpoints reached `[undo] session_cap` (`cap` bytes): from now on new
    /// content is kept by hash only, and undo cannot bring it back.
    UndoCapReached { cap: u64 },
    /// At the start: the config asks for the sandbox in `configured` mode, but no backend
    /// works here (`why`, the sandbox's words): commands run unconfined.
    SandboxOff {
        configured: crate::sandbox::Mode,
        why: String,
    },
    /// At the start: the sandbox (in `mode`) cannot enforce these parts of the settings
    /// (`Sandbox::limits`, its words).
    SandboxLimits {
        mode: crate::sandbox::Mode,
        limits: Vec<String>,
    },
    /// The project's instruction files or skills changed since they were read, and were read
    /// again (`agent::live_files`): each change in words (`AGENTS.md changed: re-read`, `skill
    /// deploy added`), and what is in force now — the `AGENTS.md` files read and the skills'
    /// names (the TUI's welcome shows them).
    ProjectFiles {
        changes: Vec<String>,
        instructions: Vec<std::path::PathBuf>,
        skills: Vec<String>,
    },
}

impl Notice {
    /// Something went wrong (rather than a note along the way).
    pub fn is_error(&self) -> bool {
        matches!(
            self,
            Notice::CompactionFailed(_)
                | Notice::McpFailed { .. }
                | Notice::McpToolMissing(_)
                | Notice::SkippedLines(_)
                | Notice::AttachmentRefused(_)
        )
    }
}
