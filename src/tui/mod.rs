//! The terminal UI (SPEC §6).
//!
//! - [`app`]: state and `update` (events in, effects out); [`ui`] and [`widgets`] draw it.
//! - [`run`]: the event loop (terminal, agent task, redraw pacing); [`terminal`]: setup/restore.
//! - [`agent_task`]: the task that owns the agent and runs turns.
//! - [`chat_view`], [`entry_lines`]: the chat pane (scrolling, render cache).
//! - [`markdown`], [`highlight`], [`wrap`]: Markdown to styled, wrapped lines.
//! - [`input`], [`modal`], [`commands`]: the input box, the approval modal, slash commands.
//! - [`theme`], [`strings`]: colours and words, each in one place.
pub mod agent_task;
pub mod app;
pub mod chat_view;
pub mod commands;
pub mod entry_lines;
pub mod highlight;
pub mod input;
pub mod markdown;
pub mod modal;
pub mod questions;
pub mod run;
pub mod strings;
pub mod terminal;
pub mod theme;
pub mod ui;
pub mod widgets;
pub mod wrap;

#[cfg(test)]
mod app_tests;
#[cfg(test)]
mod snapshot_tests;
#[cfg(test)]
mod tests_support;
