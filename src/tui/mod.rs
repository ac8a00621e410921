//! The terminal UI (SPEC §6).
//!
//! - [`app`]: state and `update` (events in, effects out), keys, slash commands; [`ui`] and
//!   [`widgets`] draw it from `&App`.
//! - [`run`]: the event loop (terminal, the agent task, redraw pacing); [`keys`]: the terminal's
//!   input events; [`terminal`]: setup/restore. The TUI talks to the agent only through `agent::task` commands and events.
//! - [`chat_view`], [`entry_lines`]: the chat pane (scrolling, render cache; `chat_view::replies`:
//!   a reply's lines block by block, code coloured once on screen); [`diff_view`]: file
//!   changes drawn as diffs, and `/diff`.
//! - [`chat_view`], [`entry_lines`]: the chat pane (scrolling, render cache); [`welcome`]: what
//!   a new chat's pane shows before the first message.
//! - [`markdown`], [`highlight`], [`wrap`]: Markdown to styled, wrapped lines ([`tabs`]: tab
//!   characters drawn visibly).
//! - [`input`], [`modal`], [`questions`], [`picker`]: the input box, the approval modal (and
//!   [`key_gate`], which keeps keys typed ahead from answering it), the question form, the
//!   `/sessions` picker; [`server_picker`]: the first-run choice of a server found on this
//!   machine, a screen of its own before the chat starts.
//! - [`rewind`]: the `/rewind` picker (a user message, then what to restore); [`undo_view`]:
//!   the confirmation of `/undo`, `/redo` and a rewind's code (the diff, the conflicts).
//! - [`transcript`]: what the chat shows, width-independent, built from events in one place;
//!   [`notices`]: its words for the agent's notices, turn ends, model and mode changes;
//!   [`answers`]: the agent's answers to commands (`/context`, `/models`…) worded as notices.
//! - [`theme`], [`strings`]: colours and words, each in one place; [`notify`]: the bell and
//!   desktop notification for a long turn that ended unfocused.
pub mod answers;
pub mod app;
pub mod chat_view;
pub mod diff_view;
pub mod editor;
pub mod entry_lines;
pub mod highlight;
pub mod input;
pub mod key_gate;
pub mod keys;
pub mod markdown;
pub mod modal;
pub mod notices;
pub mod notify;
pub mod picker;
pub mod questions;
pub mod queue;
pub mod rewind;
pub mod run;
pub mod screen;
pub mod server_picker;
pub mod shell_escape;
pub mod strings;
pub mod tabs;
pub mod terminal;
pub mod theme;
pub mod transcript;
pub mod ui;
pub mod undo_view;
pub mod welcome;
pub mod widgets;
pub mod wrap;

#[cfg(test)]
mod app_tests;
#[cfg(test)]
mod approval_words_tests;
#[cfg(test)]
mod modal_gate_tests;
#[cfg(test)]
mod retained_tests;
#[cfg(test)]
mod screen_tests;
#[cfg(test)]
mod snapshot_tests;
#[cfg(test)]
mod stream_render_tests;
#[cfg(test)]
mod tests_support;
