//! sayso — a terminal chat agent for any OpenAI-compatible model.
//!
//! Module map, in layer order: a module imports only from the ones above it (`ARCHITECTURE.md`
//! draws the layers and the two main data paths).
//!
//! - Leaves, importing nothing of ours: [`text_cut`]: a string cut to a number of bytes or
//!   characters, never inside one; [`duration_text`]: a duration as people read it;
//!   [`process_group`]: children in their own process group, stopped as a group (the shell
//!   runner's and the MCP stdio client's); [`exit`]: exit codes; [`signals`]: SIGINT/TERM/HUP;
//!   [`logging`]: file logging (never to the terminal); [`invisible`]: the characters a
//!   screen does not show (tag characters, zero-width characters, variation selectors, bidi
//!   controls…), found and named so they can be drawn (`⟨ZWSP⟩`, `⟨U+E0041⟩`).
//! - [`provider`]: the OpenAI-compatible client: request, SSE framing, lenient chunk decoding,
//!   delta assembly, retries (and the per-server pause after a 429), the models list, each
//!   model's context window, and the model
//!   servers running on this machine (for a first run with nothing configured).
//! - [`secrets`]: the process's secret values (keys, header values, MCP tokens): taken out of
//!   the environment at start, scrubbed from whatever a tool or a file brings in; and the check
//!   on files sayso reads on its own account (no `/proc`, `/sys`, `/dev`).
//! - [`sandbox`]: the operating-system sandbox commands run in (bubblewrap or Landlock with a
//!   seccomp filter on Linux, Seatbelt on macOS): what a command may write, read of sayso's
//!   own, whether it reaches the network or only this machine's loopback; no terminal inside,
//!   and nothing a command starts outlives it.
//! - [`config`]: layered TOML configuration (defaults → user → project → env → CLI), with
//!   file:line errors and the project-file limits; tool opts are plain data here.
//! - [`checkpoint`]: checkpoints for undo — the content-addressed store in sayso's data
//!   directory, project snapshots without git, the pure undo planner, and applying it.
//! - [`project_files`]: where a working directory's project is, the rule a project's own
//!   files (`AGENTS.md`, commands, skills) are read under (inside the project, never sayso's
//!   config directory), and the stamps that say cheaply whether they changed.
//! - [`commands`] and [`skills`]: prompt files the user and the project keep (`/NAME` commands,
//!   `SKILL.md` folders), read through the `secrets` file check; text only, never settings.
//! - [`events`]: what leaves the agent: one typed event stream and its sink, how a call and a
//!   turn end, the answers to commands and the notices along the way as data (each front-end
//!   words them); the saved events' serde form is the session record.
//! - [`tools`]: the tool engine, grouped by what its parts are: the `Tool` trait and registry,
//!   `policy` (whether a call may run: approvals, rules, the `is_safe` gate, the judge),
//!   `lifecycle` (the call lifecycle as a pure state machine, and its driver), `exec` (running
//!   a command), `git_guard` (git hardening), and the built-in tools.
//! - [`attach`]: `@path` mentions in a message read as attachments (text, line ranges,
//!   listings, images) under the file tools' rules, and the `@` picker's file index.
//! - [`session`]: sessions saved as JSON Lines while they happen, and resumed.
//! - [`mcp`]: MCP servers as tool sources, held to the same approvals.
//! - [`agent`]: the turn (a pure state machine) and its driver, the agent as a task (commands
//!   in, events out), what the model is told about where it is (`AGENTS.md`), and staying inside
//!   the model's context window (pruning, compaction, overflow recovery, the loop guard);
//!   `/undo`, `/redo` and `/rewind` driven (`agent::undoing`; the rewind's cut, `agent::rewind`).
//! - [`headless`]: `sayso -p`, printing text or JSON Lines events.
//! - [`acp`]: `sayso acp`, the Agent Client Protocol on stdio: editors drive sessions, and
//!   answer the approvals as permission requests.
//! - [`tui`]: the terminal UI: app state and update, the width-independent transcript (built
//!   from events), widgets, the event loop.
//! - [`demo`]: the scripted in-process endpoint behind `--demo`.
//! - [`launch`]: what the binary does: a subcommand, or a chat (TUI or headless) with its
//!   config, tools and session.
//! - [`cli`]: the command line (clap), parsed by `main.rs`.

pub mod acp;
pub mod agent;
pub mod attach;
pub mod checkpoint;
pub mod cli;
pub mod commands;
pub mod config;
pub mod demo;
pub mod duration_text;
pub mod events;
pub mod exit;
pub mod headless;
pub mod invisible;
pub mod launch;
pub mod logging;
pub mod mcp;
pub mod process_group;
pub mod project_files;
pub mod provider;
pub mod sandbox;
pub mod secrets;
pub mod session;
pub mod signals;
pub mod skills;
pub mod text_cut;
pub mod tools;
pub mod tui;
