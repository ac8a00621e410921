//! Running what a call was allowed to run (SPEC §4.2): one command (shell or function), its
//! process group, timeout and watchdog, and what its output becomes.
//!
//! - [`runner`]: one command of a call, panics in output functions caught.
//! - [`shell`]: a shell command in its own process group, timeouts, the environment it gets.
//! - [`function`]: what function commands receive (`output_cb`, `register_job`).
//! - [`ansi`]: escape sequences stripped from captured output.
//! - [`output_cap`]: the head-and-tail cap on what a tool sends to the model.
//!
//! Nothing here decides whether a call may run: that is [`super::policy`].

pub mod ansi;
pub mod function;
pub mod output_cap;
pub mod runner;
pub mod shell;
