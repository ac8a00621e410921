//! `sayso acp`: the Agent Client Protocol (ACP, protocol v1) on stdin/stdout, so that editors
//! (Zed, CodeCompanion, …) drive sayso: each ACP session is a sayso chat with its session file,
//! its prompts run through the same turn and engine as the TUI's, and every approval the TUI
//! would ask in its modal becomes a `session/request_permission` the editor answers.
//!
//! - [`server`]: the connection (the `agent-client-protocol` crate), one handler per method.
//! - [`session`]: opening a session (config, tools, MCP servers, the session file, resume).
//! - [`turn`]: a session's task: its prompts, their updates and permission requests.
//! - [`fs`]: the editor's `fs/read_text_file` / `fs/write_text_file` as the file tools' files.
//! - [`models`]: model selection as the session's `model` configuration option.
//! - [`updates`]: events as `session/update`s (pure).
//! - [`permissions`]: the modal's choices as permission options and back (pure).
//! - [`prompt`]: a prompt's content blocks as the message the agent takes (pure).
//!
//! A front-end beside `headless` and `tui`: it imports `agent`, `session`, `mcp`, `tools`,
//! never either of them. Stdout is the protocol's alone: logs go to the log file, startup
//! errors to stderr.

pub mod fs;
pub mod models;
pub mod permissions;
pub mod prompt;
pub mod server;
pub mod session;
pub mod turn;
pub mod updates;

pub use server::serve;
pub use session::Options;
