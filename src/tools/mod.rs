//! The tool engine (SPEC §4, §5): tools, the queue and orchestrator, the runner, approvals and
//! the judge. It does no terminal IO; it reports through [`crate::events`] and asks for
//! approvals with request/reply messages ([`lifecycle::requests`]).
//!
//! Grouped by what the parts are:
//! - **The tool.** [`tool`]: the `Tool` trait with SPEC §4.6 defaults, `Invocation`, commands,
//!   and beside it the typed outputs (`tool::output`), the shared output handlers
//!   (`tool::report`) and `SimpleTool` (`tool::simple_tool`). [`registry`]: the tools sayso
//!   knows. [`configured`]: the registry, groups and active tools a chat's config builds.
//!   [`offer`]: the system message and `tools` array a request offers, what they cost in the
//!   window, and the tools for a small one. [`mcp_selection`]: which MCP tools a tool list
//!   offers. [`context`]: what calls share (file ledger, questions, memory directory, rules).
//! - **Built-ins.** [`builtin`]: the built-in tools, and `builtin::cmd_tool` (command tools
//!   from config, and `run_command`).
//! - **Policy.** [`policy`]: whether a call may run — a tool's `Policy`, the pure approval
//!   decision, approval rules, the `is_safe` gate and command normaliser, the LLM judge.
//! - **Lifecycle.** [`lifecycle`]: one reply's calls as a pure state machine (inputs in,
//!   effects out); `lifecycle::orchestrator`: the `Engine` and the driver that performs those
//!   effects; `lifecycle::requests`: what the driver asks the user.
//! - **Execution.** [`exec`]: one command (shell or function) in its process group, with its
//!   timeout and watchdog, ANSI stripping and the head-and-tail output cap.
//! - **Git.** [`git_guard`]: git in a hostile working tree: settings neutralised, the
//!   repository each git of a command really uses found (`git_guard::targets`) and its config
//!   inspected.

pub mod builtin;
pub mod configured;
pub mod context;
pub mod exec;
pub mod git_guard;
pub mod lifecycle;
pub mod mcp_selection;
pub mod offer;
pub mod policy;
pub mod registry;
pub mod tool;
