//! `delete_file`: delete one file (SPEC §8.3).
//!
//! The path's directory is resolved (`..` and symlinks), its last component is not: a symlink is
//! deleted itself and its target is never touched. Directories, missing paths and the working
//! directory (or anything containing it) are refused. Outside the working directory the call
//! must be confirmed by the user whatever the mode (`Policy::must_ask`, `file_write.rs`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;

use super::create_file::unified_diff;
use super::file_write;
use super::paths::{display, resolve};
use crate::config::opts::Opts;
use crate::events::{ChangeKind, FileChange, MAX_DIFF_BYTES};
use crate::provider::ToolSpec;
use crate::tools::tool::report;
use crate::tools::tool::{
    CmdResult, Command, Invocation, Kind, Output, Policy, Preview, Tool, ToolOutput,
};

pub struct DeleteFile;

/// What a `filepath` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Its parent resolved, its own name kept.
    pub path: PathBuf,
    pub shown: String,
    pub inside: bool,
    /// The working directory, or a directory containing it.
    pub holds_cwd: bool,
}

pub fn target(cwd: &Path, filepath: &str) -> Target {
    let root = resolve(cwd, ".").path;
    let p = Path::new(filepath);
    let (path, inside) = match (p.file_name(), p.parent()) {
        (Some(name), parent) => {
            let parent = parent.and_then(Path::to_str).unwrap_or("");
            let r = resolve(cwd, parent);
            (r.path.join(name), r.inside)
        }
        _ => {
            let r = resolve(cwd, filepath);
            (r.path, r.inside)
        }
    };
    Target {
        shown: display(cwd, &path),
        holds_cwd: root.starts_with(&path),
        inside: inside && !root.starts_with(&path),
        path,
    }
}

fn human_size(n: u64) -> String {
    match n {
        0..1024 => format!("{n} bytes"),
        1024..1_048_576 => format!("{:.1} KiB", n as f64 / 1024.0),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}

/// What deleting `t` removes, as a diff: its lines, or as many as [`MAX_DIFF_BYTES`] holds (a
/// symlink or a binary file: no lines, marked truncated unless it was empty).
fn removal(t: &Target, meta: &std::fs::Metadata) -> FileChange {
    let file = t.path.to_string_lossy();
    let empty = |truncated| FileChange {
        truncated,
        ..FileChange::new(&t.shown, &file, ChangeKind::Deleted, String::new())
    };
    if meta.file_type().is_symlink() {
        return empty(false);
    }
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(&t.path) {
        let _ = f.take(MAX_DIFF_BYTES as u64 + 1).read_to_end(&mut head);
    }
    let whole = head.len() as u64 == meta.len() && head.len() <= MAX_DIFF_BYTES;
    let text = match std::str::from_utf8(&head) {
        Ok(s) => s,
        // Cut in the middle of a character at the end of what was read.
        Err(e) if e.error_len().is_none() && !whole => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or("")
        }
        Err(_) => return empty(true),
    };
    let mut change = FileChange::new(
        &t.shown,
        &file,
        ChangeKind::Deleted,
        unified_diff(&t.shown, text, ""),
    );
    change.truncated |= !whole;
    change
}

/// Deletes the file: the message for the model, and what it removed.
pub fn delete(inv: &Invocation) -> Result<Output, String> {
    let filepath = inv.arg_str("filepath");
    if filepath.is_empty() {
        return Err("`filepath` is required".into());
    }
    let t = target(&inv.cwd, filepath);
    if t.holds_cwd {
        return Err(format!(
            "Refusing to delete `{}`: it is the working directory or contains it",
            t.shown
        ));
    }
    let meta = match std::fs::symlink_metadata(&t.path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("Cannot delete `{}`: it does not exist", t.shown));
        }
        Err(e) => return Err(format!("Cannot delete `{}`: {e}", t.shown)),
    };
    let ft = meta.file_type();
    if ft.is_dir() {
        return Err(format!(
            "Cannot delete `{}`: it is a directory; delete_file deletes single files only",
            t.shown
        ));
    }
    if !ft.is_file() && !ft.is_symlink() {
        return Err(format!(
            "Cannot delete `{}`: it is not a regular file",
            t.shown
        ));
    }
    let change = removal(&t, &meta);
    std::fs::remove_file(&t.path).map_err(|e| format!("Cannot delete `{}`: {e}", t.shown))?;
    inv.ctx.ledger.forget(&t.path);
    let content = if ft.is_symlink() {
        format!(
            "Deleted {} (a symlink; its target was not touched)",
            t.shown
        )
    } else {
        format!("Deleted {}", t.shown)
    };
    Ok(Output::text(content).with_change(change))
}

/// The file's size and first lines, for the approval modal.
fn describe(t: &Target) -> String {
    let meta = match std::fs::symlink_metadata(&t.path) {
        Ok(m) => m,
        Err(_) => return format!("`{}` does not exist", t.shown),
    };
    if meta.is_dir() {
        return format!("`{}` is a directory", t.shown);
    }
    if meta.file_type().is_symlink() {
        let to = std::fs::read_link(&t.path)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return format!(
            "`{}` is a symlink to `{to}`; only the link will be deleted",
            t.shown
        );
    }
    const HEAD: u64 = 64 * 1024;
    let mut head = Vec::new();
    if let Ok(f) = std::fs::File::open(&t.path) {
        let _ = f.take(HEAD).read_to_end(&mut head);
    }
    let text = match std::str::from_utf8(&head) {
        Ok(s) => s,
        // Cut in the middle of a character at the end of what was read.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or("")
        }
        Err(_) => {
            return format!("`{}` — {}, binary file", t.shown, human_size(meta.len()));
        }
    };
    let whole = meta.len() <= HEAD;
    let lines: Vec<&str> = text.lines().collect();
    let mut s = format!("`{}` — {}", t.shown, human_size(meta.len()));
    if whole {
        s.push_str(&format!(
            ", {} line{}",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" }
        ));
    }
    if !lines.is_empty() {
        s.push('\n');
    }
    for (i, l) in lines.iter().take(10).enumerate() {
        s.push_str(&format!("\n{:>4} | {l}", i + 1));
    }
    if lines.len() > 10 {
        if whole {
            s.push_str(&format!("\n     … {} more lines", lines.len() - 10));
        } else {
            s.push_str("\n     …");
        }
    }
    s
}

impl Tool for DeleteFile {
    fn name(&self) -> &str {
        "delete_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "delete_file".into(),
            description: "Delete one file (not a directory).".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "filepath": {"type": "string"}
                },
                "required": ["filepath"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    fn kind(&self) -> Kind {
        Kind::FileEdit
    }

    fn default_opts(&self) -> Opts {
        Opts {
            // "Always accept" remembers this exact path, not every future delete.
            require_cmd_approval: Some(true),
            protect: Some(true),
            ..file_write::opts()
        }
    }

    fn policy(&self, inv: &Invocation) -> Policy {
        let t = target(&inv.cwd, inv.arg_str("filepath"));
        Policy {
            judge_context: Some(format!("Delete the file: {}", t.shown)),
            ..file_write::policy(inv, &t.path, t.inside)
        }
    }

    fn touches(&self, inv: &Invocation) -> Option<Vec<std::path::PathBuf>> {
        Some(vec![target(&inv.cwd, inv.arg_str("filepath")).path])
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("delete_file {}", inv.arg_str("filepath"))
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        let t = target(&inv.cwd, inv.arg_str("filepath"));
        Some(file_write::question("Delete", &t.shown, t.inside))
    }

    fn preview(&self, inv: &Invocation) -> Option<Preview> {
        Some(Preview::Text(describe(&target(
            &inv.cwd,
            inv.arg_str("filepath"),
        ))))
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                Some(match delete(&inv) {
                    Ok(a) => CmdResult::ok(a),
                    Err(e) => CmdResult::err(e),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        report::last_output(data, out);
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        report::errors(errors, out);
    }
}

#[cfg(test)]
mod tests;
