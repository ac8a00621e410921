//! The agent's answers to a front-end's commands, as data: what `/models`, `/approvals`,
//! `/tools`, `/context`, `/mcp`, `/sandbox` and a saved rule report. How each reads is the front-end's
//! (the TUI's `tui::answers`); nothing here is worded.
//!
//! Two answers carry a report another layer writes for the command line as well (the tools
//! table of `sayso tools`, the servers of `sayso mcp`): one text, shown the same way by both.

use std::path::PathBuf;

/// The answer to one command.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// `/models`: the endpoint's models, or why they could not be listed.
    Models(Result<Vec<ModelRow>, String>),
    /// `/model NAME` when the endpoint lists its models and NAME is not among them.
    UnlistedModel {
        model: String,
        listed: Vec<String>,
    },
    /// `/approvals`: the policy in force (as `tools::policy::rules::describe_policy` writes it), then
    /// what "Always accept" remembered in this chat.
    Approvals {
        policy: String,
        tools: Vec<String>,
        /// (tool, command).
        commands: Vec<(String, String)>,
    },
    /// `/approvals clear` forgot them.
    ApprovalsCleared,
    /// `/tools`: the table `sayso tools` prints, for the chat's registry.
    Tools {
        table: String,
    },
    /// `/context`.
    Context(ContextReport),
    /// `/mcp`: the servers, their status and tools (`None`: no server is configured).
    Mcp {
        servers: Option<String>,
    },
    /// `/always` or the rule form saved a rule to the user's config.
    RuleSaved {
        rule: String,
        source: String,
    },
    RuleNotSaved {
        error: String,
    },
    /// `/resume` could not open the session.
    ResumeFailed {
        error: String,
    },
    /// `/sandbox`: the sandbox in force and what it cannot enforce.
    Sandbox(super::SandboxReport),
    /// `/undo`, `/redo` or a rewind's code half: what it would do, for the user to confirm.
    UndoPreview(UndoPreview),
    /// `/undo` or `/redo` found nothing to take back (or re-apply).
    NothingToUndo {
        redo: bool,
    },
    /// An undo or redo was applied.
    Undone(UndoDone),
    UndoFailed {
        error: String,
    },
    /// `/rewind` forked the conversation before user message `index` (from 0), which read
    /// `text`: the chat goes on as session `id`; `parent` stays as it was. `code`: what was
    /// restored of the files first, when that was asked for too.
    Rewound {
        index: usize,
        text: String,
        id: String,
        parent: String,
        code: Option<UndoDone>,
    },
    RewindFailed {
        error: String,
    },
}

/// What `/rewind` restores for the chosen message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore {
    /// The files as they were before it, and the conversation.
    Both,
    /// The conversation only: the files stay as they are.
    Conversation,
    /// The files only: the conversation goes on as it is.
    Code,
}

impl Restore {
    pub fn conversation(self) -> bool {
        matches!(self, Restore::Both | Restore::Conversation)
    }

    pub fn code(self) -> bool {
        matches!(self, Restore::Both | Restore::Code)
    }
}

/// The message a rewind goes back to (from 0 among the chat's user messages, and its text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindTo {
    pub index: usize,
    pub text: String,
    pub restore: Restore,
}

/// What an undo (or redo) would do: each file it writes, the diff, and what it must not or
/// cannot write. Sent back unchanged with the user's yes, so the agent can tell whether the
/// files changed in the meantime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoPreview {
    pub redo: bool,
    /// The turns (user messages, from 1) it takes back or re-applies.
    pub turns: Vec<u32>,
    /// The paths it writes (relative to the project).
    pub restores: Vec<String>,
    /// The unified diff from what is there now to what it writes.
    pub diff: String,
    /// Paths changed since sayso's change: left alone (with why).
    pub conflicts: Vec<(String, String)>,
    /// Paths whose content was kept by hash only, or is gone from the store.
    pub unrecoverable: Vec<String>,
    /// The rewind this undo is the code half of.
    pub rewind: Option<RewindTo>,
    /// The files changed between the last preview and the yes: look again.
    pub changed: bool,
}

/// What an applied undo (or redo) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoDone {
    pub redo: bool,
    pub turns: Vec<u32>,
    pub restored: Vec<String>,
    /// Left alone: something else changed them.
    pub conflicts: Vec<String>,
    pub unrecoverable: Vec<String>,
    /// Could not be written, with why.
    pub failed: Vec<(String, String)>,
}

/// One model of `/models`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRow {
    pub id: String,
    /// Its window in tokens, when the list (or, for the one in use, sayso) knows it.
    pub window: Option<u64>,
    /// The one in use.
    pub current: bool,
}

/// Who counted the tokens in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    /// The server, in the last reply's `usage`.
    Server { prompt: u64, completion: u64 },
    /// sayso, from characters: before any request, or the server reported no usage.
    Estimated,
    /// sayso, from characters, because the server's `prompt_tokens` cannot be true of the
    /// `chars` characters sent.
    Ignored { prompt: u64, chars: usize },
}

/// What fills the context window (`/context`), in tokens unless named otherwise.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextReport {
    pub window: u64,
    /// Where the window's size came from.
    pub source: String,
    /// The tokens in use, as the gauge shows them, and who counted them.
    pub in_use: u64,
    pub counted: Counted,
    /// The system message, and within it the environment block and the instructions.
    pub system: u64,
    pub environment: u64,
    /// `None`: no AGENTS.md was found.
    pub instructions: Option<u64>,
    pub files: Vec<InstructionFile>,
    /// What the user should know about the instruction files.
    pub notes: Vec<String>,
    /// The skills listed in the system message (none while the `skill` tool is not offered).
    pub skills: Vec<String>,
    pub tools: usize,
    pub tools_tokens: u64,
    pub history_messages: usize,
    pub history: u64,
    pub last_reply: Option<u64>,
    /// What is kept free and where pruning and compaction start.
    pub reserve: u64,
    pub margin: u64,
    pub prune_at: u64,
    pub compact_at: u64,
    /// Tool outputs sent as stand-ins in the last request, and compactions so far.
    pub pruned: usize,
    pub compactions: usize,
    /// Characters a token, and whether that was calibrated on the server's usage.
    pub ratio: f64,
    pub calibrated: bool,
}

/// An instruction file in the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstructionFile {
    pub path: PathBuf,
    pub bytes: usize,
    /// Bytes that went in (fewer when the file was cut).
    pub used: usize,
}
