//! Widgets: each draws from `&App` and changes nothing.

pub mod command_menu;
pub mod file_menu;
pub mod footer;
pub mod modal;
pub mod notices;
pub mod picker;
pub mod popup;
pub mod questions;
pub mod status_bar;
pub mod todo;
