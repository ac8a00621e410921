//! The built-in tools (SPEC §8.3), one file each, and the built-in groups.
//!
//! `run_command` is a cmd_tool (see `cmd_tool.rs`); every other tool has its own file here.

pub mod ask_questions;
pub mod cmd_tool;
pub mod create_file;
pub mod delete_file;
pub mod edit_file;
pub mod edit_match;
pub mod fetch_webpage;
pub mod file_access;
pub mod file_search;
pub mod file_write;
pub mod get_changed_files;
pub mod grep_search;
pub mod html_text;
pub mod memory;
pub mod paths;
pub mod protected;
pub mod read_file;
pub mod skill;
pub mod todo;

use std::sync::Arc;

use crate::tools::builtin::cmd_tool::run_command;
use crate::tools::registry::{Registry, Source};

/// A registry holding every built-in tool.
pub fn registry() -> Registry {
    let mut r = Registry::default();
    r.register(Arc::new(run_command()), Source::Builtin);
    r.register(Arc::new(read_file::ReadFile), Source::Builtin);
    r.register(Arc::new(create_file::CreateFile), Source::Builtin);
    r.register(Arc::new(edit_file::EditFile), Source::Builtin);
    r.register(Arc::new(delete_file::DeleteFile), Source::Builtin);
    r.register(Arc::new(file_search::FileSearch), Source::Builtin);
    r.register(Arc::new(grep_search::GrepSearch), Source::Builtin);
    r.register(
        Arc::new(get_changed_files::GetChangedFiles),
        Source::Builtin,
    );
    r.register(Arc::new(fetch_webpage::FetchWebpage), Source::Builtin);
    r.register(Arc::new(memory::Memory), Source::Builtin);
    r.register(Arc::new(ask_questions::AskQuestions), Source::Builtin);
    r.register(Arc::new(skill::Skill), Source::Builtin);
    r.register(Arc::new(todo::Todo), Source::Builtin);
    r
}

/// Built-in groups: name, members, and the prompt that replaces an `@{group}` mention.
pub fn groups() -> Vec<(&'static str, Vec<&'static str>, &'static str)> {
    vec![
        (
            "files",
            vec![
                "read_file",
                "create_file",
                "edit_file",
                "delete_file",
                "file_search",
                "grep_search",
            ],
            "I'm giving you access to ${tools} to help you perform file operations",
        ),
        (
            "agent",
            vec![
                "run_command",
                "read_file",
                "create_file",
                "edit_file",
                "delete_file",
                "file_search",
                "grep_search",
                "get_changed_files",
                "ask_questions",
                "todo",
            ],
            "I'm giving you access to ${tools} to help you work on this project",
        ),
    ]
}
