//! `read_file`: read a file, or a 1-based inclusive line range of it. A file in a skill's
//! folder (`crate::skills`) is read as one inside the project (strict mode does not ask).

use std::sync::Arc;

use serde_json::{Value, json};

use super::paths::{display, resolve};
use super::protected::read_refusal;
use crate::provider::ToolSpec;
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Policy, Tool, ToolOutput};

pub struct ReadFile;

/// Larger files are refused (the whole file is read to record what the model saw).
pub const MAX_READ_BYTES: u64 = 64 * 1024 * 1024;

fn line_arg(args: &Value, key: &str) -> Result<Option<i64>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a whole number, got {v}")),
    }
}

/// The text of `filepath` (lines `start..=end`, 1-based, clamped to the file) and a summary.
pub fn read(inv: &Invocation) -> Result<(String, String), String> {
    let filepath = inv.arg_str("filepath");
    if filepath.is_empty() {
        return Err("`filepath` is required".into());
    }
    let r = resolve(&inv.cwd, filepath);
    let shown = display(&inv.cwd, &r.path);
    if let Some(why) = read_refusal(&r.path) {
        return Err(why);
    }
    let meta = std::fs::metadata(&r.path).map_err(|e| format!("Error reading `{shown}`: {e}"))?;
    if meta.is_dir() {
        return Err(format!("`{shown}` is a directory, not a file"));
    }
    if !meta.is_file() {
        return Err(format!(
            "`{shown}` is not a regular file (a device, pipe or socket); read_file reads files only"
        ));
    }
    if meta.len() > MAX_READ_BYTES {
        return Err(format!(
            "`{shown}` is too large to read ({} bytes; the limit is {MAX_READ_BYTES}); search it with grep_search, or show parts of it with a command such as `sed -n '100,200p'`",
            meta.len()
        ));
    }
    let bytes = super::file_access::read(&inv.ctx, &r.path)
        .map_err(|e| format!("Error reading `{shown}`: {e}"))?;
    inv.ctx.ledger.record(&r.path, &bytes);
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let start = line_arg(&inv.args, "start_line")?;
    let end = line_arg(&inv.args, "end_line")?;
    if start.is_none() && end.is_none() {
        return Ok((text.into_owned(), format!("Read {shown} ({total} lines)")));
    }
    let start = start.unwrap_or(1);
    if start < 1 {
        return Err(format!(
            "`start_line` is 1-based and must be at least 1, got {start}"
        ));
    }
    let end = end.unwrap_or(total as i64);
    if end < start {
        return Err(format!(
            "`end_line` ({end}) is before `start_line` ({start})"
        ));
    }
    if start as usize > total.max(1) {
        return Err(format!(
            "`{shown}` has {total} lines; `start_line` {start} is past the end"
        ));
    }
    let end = (end as usize).min(total);
    let selected = lines[start as usize - 1..end].join("\n");
    Ok((
        selected,
        format!("Read {shown} (lines {start}–{end} of {total})"),
    ))
}

impl Tool for ReadFile {
    fn name(&self) -> &str {
        "read_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read_file".into(),
            description: "Read a text file, whole or lines start_line to end_line (1-based, inclusive; either may be null).".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "filepath": {"type": "string"},
                    "start_line": {"type": ["integer", "null"]},
                    "end_line": {"type": ["integer", "null"]}
                },
                "required": ["filepath", "start_line", "end_line"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    fn kind(&self) -> Kind {
        Kind::ReadOnly
    }

    fn policy(&self, inv: &Invocation) -> Policy {
        let r = resolve(&inv.cwd, inv.arg_str("filepath"));
        // A skill's files are listed to be read (`skill`): inside a skill's folder counts as
        // inside, and only there (not the rest of sayso's config directory).
        let outside = !r.inside && !inv.ctx.skills.holds(&r.path);
        Policy {
            reads_outside: outside.then(|| r.path.display().to_string()),
            ..Policy::default()
        }
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("read_file {}", inv.arg_str("filepath"))
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                // Blocking: an editor's read waits for its answer.
                let done = tokio::task::spawn_blocking(move || read(&inv)).await;
                Some(match done {
                    Ok(Ok((text, summary))) => CmdResult::ok(Output::shown(
                        format!("{summary}:\n````\n{text}\n````"),
                        summary,
                    )),
                    Ok(Err(e)) => CmdResult::err(e),
                    Err(e) => CmdResult::err(format!("read_file stopped: {e}")),
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
