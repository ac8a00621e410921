//! The tool engine (SPEC §4, §5): tools, the queue and orchestrator, the runner, approvals and
//! the judge. It does no terminal IO; it reports through [`crate::events`] and asks for
//! approvals with request/reply messages ([`requests`]).
//!
//! - [`tool`]: the `Tool` trait with SPEC §4.6 defaults, `Invocation`, commands.
//! - [`output`]: the typed outputs (`Output {content, display}`, `CmdResult`, `ToolOutput`).
//! - [`policy`]: what a tool says about one call before the approval decision, and
//!   `ApprovalBefore`.
//! - [`report`]: the shared output handlers (the last output whole, errors, file writes).
//! - [`simple_tool`]: `SimpleTool`, a description, flat arguments and one async function.
//! - [`registry`]: the tools sayso knows.
//! - [`setup`]: the registry, groups and active tools built from the config.
//! - [`cmd_tool`]: command tools from config, and `run_command`.
//! - [`builtin`]: the built-in tools.
//! - [`footprint`]: what the tools and system prompt cost in the window; the tools for a small one.
//! - [`lifecycle`]: one reply's calls as a pure state machine: inputs in, effects out.
//! - [`orchestrator`]: the [`orchestrator::Engine`] and the driver that performs those effects.
//! - [`runner`]: one command (shell or function), watchdog, panics in output functions.
//! - [`shell`], [`ansi`]: process groups, timeouts, output decoding.
//! - [`function`]: what function commands receive (`output_cb`, `register_job`).
//! - [`approval`]: the approval decision as a pure function of settings, mode, memory and gates.
//! - [`command_safety`]: the deterministic `is_safe` gate for shell commands, and the
//!   normaliser that reads a command line into the programs it really runs (for rules).
//! - [`rules`]: `[[approvals.rules]]` matched against a call (deny/ask through wrappers, what
//!   allow never covers, path rules for every tool that reads).
//! - [`git_guard`]: git in a hostile working tree: settings neutralised, the repository each
//!   git of a command really uses found (`git_guard::targets`) and its config inspected.
//! - [`judge`]: the LLM judge that vets calls in auto mode.
//! - [`requests`]: approval requests (what the modal shows, with a reply channel).
//! - [`output_cap`]: the head-and-tail cap on what a tool sends to the model.
//! - [`context`]: what calls share (file ledger, questions, memory directory, the rules).

pub mod ansi;
pub mod approval;
pub mod builtin;
pub mod cmd_tool;
pub mod command_safety;
pub mod context;
pub mod footprint;
pub mod function;
pub mod git_guard;
pub mod judge;
pub mod lifecycle;
pub mod mcp_selection;
pub mod orchestrator;
pub mod output;
pub mod output_cap;
pub mod policy;
pub mod registry;
pub mod report;
pub mod requests;
pub mod rules;
pub mod runner;
pub mod setup;
pub mod shell;
pub mod simple_tool;
pub mod tool;
