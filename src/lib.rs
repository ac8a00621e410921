//! sayso — a terminal chat agent for any OpenAI-compatible model.
//!
//! Module map (data flows top to bottom):
//! - [`agent`]: the conversation loop and the transcript.
//! - [`cli`]: the command line (clap).
//! - [`config`]: layered TOML configuration (defaults → user → project → env → CLI).
//! - [`provider`]: the OpenAI-compatible streaming client.
//! - [`tools`]: the tool engine (queue, orchestrator, runner, approvals, judge) and built-ins.
//! - [`headless`]: `sayso -p`, printing text or JSON Lines events.
//! - [`demo`]: the scripted in-process endpoint behind `--demo`.
//! - [`logging`]: file logging (never to the terminal).

pub mod agent;
pub mod cli;
pub mod config;
pub mod demo;
pub mod events;
pub mod exit;
pub mod headless;
pub mod logging;
pub mod provider;
pub mod signals;
pub mod tools;
pub mod tui;
