//! The built-in tools (SPEC §8.3), one file each, and the built-in groups.
//!
//! So far: `run_command` (a cmd_tool, see `cmd_tool.rs`), `read_file`, `create_file`.

pub mod create_file;
pub mod paths;
pub mod read_file;

use std::sync::Arc;

use super::cmd_tool::run_command;
use super::registry::{Registry, Source};

/// A registry holding every built-in tool.
pub fn registry() -> Registry {
    let mut r = Registry::default();
    r.register(Arc::new(run_command()), Source::Builtin);
    r.register(Arc::new(read_file::ReadFile), Source::Builtin);
    r.register(Arc::new(create_file::CreateFile), Source::Builtin);
    r
}

/// Built-in groups: name, members, and the prompt that replaces an `@{group}` mention.
pub fn groups() -> Vec<(&'static str, Vec<&'static str>, &'static str)> {
    vec![
        (
            "files",
            vec!["read_file", "create_file"],
            "I'm giving you access to ${tools} to help you perform file operations",
        ),
        (
            "agent",
            vec!["run_command", "read_file", "create_file"],
            "I'm giving you access to ${tools} to help you work on this project",
        ),
    ]
}
