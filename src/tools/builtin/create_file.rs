//! `create_file`: create a new file (never overwrites); parent directories are created.

use std::sync::Arc;

use serde_json::json;

use super::file_write;
use super::paths::{display, resolve};
use crate::config::opts::Opts;
use crate::events::{ChangeKind, FileChange};
use crate::provider::ToolSpec;
use crate::tools::tool::report;
use crate::tools::tool::{
    CmdResult, Command, Invocation, Kind, Output, Policy, Preview, Tool, ToolOutput,
};

pub struct CreateFile;

/// A unified diff from `old` to `new` for `path`.
pub fn unified_diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// Creates the file: the message for the model, and the change (the new lines as a diff).
pub fn create(inv: &Invocation) -> Result<Output, String> {
    let filepath = inv.arg_str("filepath");
    if filepath.is_empty() {
        return Err("`filepath` is required".into());
    }
    let content = inv
        .args
        .get("content")
        .and_then(|c| c.as_str())
        .unwrap_or_default();
    let r = resolve(&inv.cwd, filepath);
    let shown = display(&inv.cwd, &r.path);
    if r.path.exists() {
        return Err(format!(
            "`{shown}` already exists; use edit_file to change it"
        ));
    }
    if let Some(parent) = r.path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("Cannot create the directories for `{shown}`: {e}"))?;
    }
    // create_new: fails instead of overwriting if the file appeared meanwhile.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&r.path)
        .map_err(|e| format!("Cannot create `{shown}`: {e}"))?;
    std::io::Write::write_all(&mut f, content.as_bytes())
        .map_err(|e| format!("Cannot write `{shown}`: {e}"))?;
    inv.ctx.ledger.record(&r.path, content.as_bytes());
    let change = FileChange::new(
        &shown,
        &r.path.to_string_lossy(),
        ChangeKind::Created,
        unified_diff(&shown, "", content),
    );
    Ok(Output::text(format!(
        "Created {shown} ({} lines)",
        content.lines().count()
    ))
    .with_change(change))
}

impl Tool for CreateFile {
    fn name(&self) -> &str {
        "create_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "create_file".into(),
            description:
                "Create a new file, and any missing parent directories. Fails if the file exists."
                    .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "filepath": {"type": "string"},
                    "content": {"type": "string"}
                },
                "required": ["filepath", "content"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    fn kind(&self) -> Kind {
        Kind::FileEdit
    }

    fn default_opts(&self) -> Opts {
        file_write::opts()
    }

    fn policy(&self, inv: &Invocation) -> Policy {
        let r = resolve(&inv.cwd, inv.arg_str("filepath"));
        file_write::policy(inv, &r.path, r.inside)
    }

    fn touches(&self, inv: &Invocation) -> Option<Vec<std::path::PathBuf>> {
        Some(vec![resolve(&inv.cwd, inv.arg_str("filepath")).path])
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("create_file {}", inv.arg_str("filepath"))
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        let r = resolve(&inv.cwd, inv.arg_str("filepath"));
        Some(file_write::question(
            "Create",
            &display(&inv.cwd, &r.path),
            r.inside,
        ))
    }

    fn preview(&self, inv: &Invocation) -> Option<Preview> {
        let path = inv.arg_str("filepath").to_owned();
        let content = inv
            .args
            .get("content")
            .and_then(|c| c.as_str())
            .unwrap_or_default();
        Some(Preview::Diff {
            diff: unified_diff(&path, "", content),
            path,
        })
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                Some(match create(&inv) {
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
