//! `edit_file`: search/replace edits to an existing text file (SPEC §8.3), matched by the chain
//! of `edit_match.rs`, applied all or nothing.
//!
//! The file must exist, be valid UTF-8 and not have changed since the model last read it (the
//! chat's file ledger). Line endings (a CRLF file stays CRLF: edits are matched and applied to
//! LF text and converted back), a UTF-8 byte-order mark, the presence or absence of a final
//! newline, and the file's permissions are preserved. The new content is written to a
//! temporary file beside the original and renamed over it (in place for hard-linked files).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::edit_match::{self, Edit, Strategy};
use super::file_write;
use super::paths::{display, resolve};
use crate::config::opts::Opts;
use crate::events::{ChangeKind, FileChange};
use crate::provider::ToolSpec;
use crate::tools::tool::report;
use crate::tools::tool::{
    CmdResult, Command, Invocation, Kind, Output, Policy, Preview, Tool, ToolOutput,
};

mod text_edit;

pub use text_edit::{TextEdit, edit_text};

pub struct EditFile;

/// Files larger than this are refused.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

const DESCRIPTION: &str = "Edit an existing text file: each edit replaces oldText with newText, in order, all or nothing. \
oldText must match exactly one place (copy it from the file, with enough lines to be unique) unless replaceAll is true. \
Edits must not overlap. For new files use create_file.";

/// The decoded arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditArgs {
    pub filepath: String,
    pub edits: Vec<Edit>,
    pub explanation: Option<String>,
}

fn text_field(obj: &serde_json::Map<String, Value>, i: usize, key: &str) -> Result<String, String> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.replace("\r\n", "\n")),
        None | Some(Value::Null) if key == "oldText" => Err(format!(
            "edits[{i}] has no oldText: give the exact text to replace, copied from the file"
        )),
        None | Some(Value::Null) => Err(format!(
            "edits[{i}] has no newText: give the text to put in place of oldText (an empty string deletes it)"
        )),
        Some(other) => Err(format!("edits[{i}].{key} must be a string, got {other}")),
    }
}

/// Decodes and checks the arguments; `edits` may also arrive as a JSON string.
pub fn parse_args(args: &Value) -> Result<EditArgs, String> {
    let filepath = args
        .get("filepath")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if filepath.is_empty() {
        return Err("`filepath` is required".into());
    }
    const SHAPE: &str = "an array of {oldText, newText, replaceAll} objects";
    let list: Vec<Value> = match args.get("edits") {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(s)) => serde_json::from_str(s).map_err(|e| {
            format!("`edits` must be {SHAPE}; the string given is not a JSON array: {e}")
        })?,
        None | Some(Value::Null) => return Err(format!("`edits` is required: {SHAPE}")),
        Some(_) => return Err(format!("`edits` must be {SHAPE}")),
    };
    if list.is_empty() {
        return Err("`edits` is empty: give at least one {oldText, newText} edit".into());
    }
    let mut edits = Vec::with_capacity(list.len());
    for (i, e) in list.iter().enumerate() {
        let obj = e
            .as_object()
            .ok_or_else(|| format!("edits[{i}] must be an object with oldText and newText"))?;
        let replace_all = match obj.get("replaceAll") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) if s == "true" || s == "false" => s == "true",
            Some(other) => {
                return Err(format!(
                    "edits[{i}].replaceAll must be true, false or null, got {other}"
                ));
            }
        };
        edits.push(Edit {
            old_text: text_field(obj, i, "oldText")?,
            new_text: text_field(obj, i, "newText")?,
            replace_all,
        });
    }
    let explanation = args
        .get("explanation")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .filter(|s| !s.trim().is_empty());
    Ok(EditArgs {
        filepath: filepath.to_owned(),
        edits,
        explanation,
    })
}

/// An edit computed for a file, ready to write.
#[derive(Debug, Clone)]
pub struct Plan {
    pub path: PathBuf,
    /// The path for messages (relative when inside the working directory).
    pub shown: String,
    pub edit: TextEdit,
}

/// Reads the file and computes the edit, without writing.
pub fn plan(inv: &Invocation) -> Result<Plan, String> {
    let args = parse_args(&inv.args)?;
    let r = resolve(&inv.cwd, &args.filepath);
    let shown = display(&inv.cwd, &r.path);
    let meta = match std::fs::metadata(&r.path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "`{shown}` does not exist; use create_file to create a new file"
            ));
        }
        Err(e) => return Err(format!("Cannot read `{shown}`: {e}")),
    };
    if meta.is_dir() {
        return Err(format!("`{shown}` is a directory, not a file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "`{shown}` is too large to edit ({} bytes; the limit is {MAX_FILE_BYTES} bytes)",
            meta.len()
        ));
    }
    let bytes = std::fs::read(&r.path).map_err(|e| format!("Cannot read `{shown}`: {e}"))?;
    inv.ctx.ledger.check_fresh(&r.path, &bytes).map_err(|_| {
        format!(
            "`{shown}` changed since you last read it (someone else edited it): read it again with read_file, then retry your edit. No changes were made to the file."
        )
    })?;
    let content = String::from_utf8(bytes).map_err(|e| {
        format!(
            "`{shown}` is not valid UTF-8 text (invalid bytes at offset {}); edit_file only edits UTF-8 text files, so it left the file untouched",
            e.utf8_error().valid_up_to()
        )
    })?;
    let edit = edit_text(content, &args.edits)
        .map_err(|e| format!("Could not edit `{shown}`: {e}\nNo changes were made to the file."))?;
    Ok(Plan {
        path: r.path,
        shown,
        edit,
    })
}

/// Lines of context around each change in a diff.
const CONTEXT: usize = 3;

/// Length of the common prefix of `a` and `b` (compared a block at a time).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 4096;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .position(|(x, y)| x != y)
        .unwrap_or(n - i)
}

/// Length of the common suffix of `a` and `b`, at most `max`.
fn common_suffix(a: &[u8], b: &[u8], max: usize) -> usize {
    const BLOCK: usize = 4096;
    let n = max.min(a.len()).min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[ea - i - BLOCK..ea - i] == b[eb - i - BLOCK..eb - i] {
        i += BLOCK;
    }
    while i < n && a[ea - i - 1] == b[eb - i - 1] {
        i += 1;
    }
    i
}

/// `@@ -a,b +c,d @@` with both starts moved down by `offset` lines.
fn shift_hunk_header(line: &str, offset: usize) -> String {
    let shift = |range: &str| -> String {
        let (start, len) = match range.split_once(',') {
            Some((s, l)) => (s, Some(l)),
            None => (range, None),
        };
        let start = start
            .parse::<usize>()
            .map_or(start.to_owned(), |n| (n + offset).to_string());
        match len {
            Some(l) => format!("{start},{l}"),
            None => start,
        }
    };
    let mut parts = line.splitn(4, ' ');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("@@"), Some(old), Some(new), Some(rest))
            if old.starts_with('-') && new.starts_with('+') =>
        {
            format!("@@ -{} +{} {rest}", shift(&old[1..]), shift(&new[1..]))
        }
        _ => line.to_owned(),
    }
}

/// The unified diff of a change, and the lines it adds and removes.
///
/// Only the changed window is diffed: the lines both texts share at the start and at the end
/// are skipped (but for [`CONTEXT`] lines) and the hunk headers shifted, so a small change to
/// a large file costs a few block compares, not a line diff of the whole file.
pub fn diff(shown: &str, before: &str, after: &str) -> (String, usize, usize) {
    let (b, a) = (before.as_bytes(), after.as_bytes());
    // Window start: a line start at or before the first difference, CONTEXT lines earlier.
    let pre = common_prefix(b, a);
    let mut start = memchr::memrchr(b'\n', &b[..pre]).map_or(0, |i| i + 1);
    for _ in 0..CONTEXT {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &b[..start - 1]).map_or(0, |i| i + 1);
    }
    // Window end: a line end after the last difference, CONTEXT lines later.
    let suf = common_suffix(b, a, b.len().min(a.len()) - pre);
    let mut end_b = b.len() - suf;
    match memchr::memchr(b'\n', &b[end_b..]) {
        Some(i) => end_b += i + 1,
        None => end_b = b.len(),
    }
    for _ in 0..CONTEXT {
        match memchr::memchr(b'\n', &b[end_b..]) {
            Some(i) => end_b += i + 1,
            None => {
                end_b = b.len();
                break;
            }
        }
    }
    let tail = b.len() - end_b;
    let (old_win, new_win) = (&before[start..end_b], &after[start..a.len() - tail]);
    let offset = memchr::memchr_iter(b'\n', &b[..start]).count();
    let d = similar::TextDiff::configure()
        .timeout(Duration::from_secs(2))
        .diff_lines(old_win, new_win);
    let (mut added, mut removed) = (0, 0);
    for op in d.ops() {
        let (tag, old, new) = op.as_tag_tuple();
        if tag != similar::DiffTag::Equal {
            removed += old.len();
            added += new.len();
        }
    }
    let text = d
        .unified_diff()
        .context_radius(CONTEXT)
        .header(&format!("a/{shown}"), &format!("b/{shown}"))
        .to_string();
    if offset == 0 {
        return (text, added, removed);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        if line.starts_with("@@ -") {
            let (body, nl) = match line.strip_suffix('\n') {
                Some(b) => (b, "\n"),
                None => (line, ""),
            };
            out.push_str(&shift_hunk_header(body, offset));
            out.push_str(nl);
        } else {
            out.push_str(line);
        }
    }
    (out, added, removed)
}

/// Writes `bytes` over `path`, keeping its permissions: through a temporary file renamed over
/// it, or in place when the file has other hard links or no temporary file can be made.
fn write_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let meta = std::fs::metadata(path)?;
    // A rename would bypass a read-only file: check that the file itself is writable.
    std::fs::OpenOptions::new().write(true).open(path)?;
    #[cfg(unix)]
    let linked = std::os::unix::fs::MetadataExt::nlink(&meta) > 1;
    #[cfg(not(unix))]
    let linked = false;
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = if linked {
        None
    } else {
        tempfile::Builder::new()
            .prefix(".sayso-edit-")
            .tempfile_in(dir)
            .ok()
    };
    let Some(mut tmp) = tmp else {
        return std::fs::write(path, bytes);
    };
    tmp.write_all(bytes)?;
    tmp.as_file().set_permissions(meta.permissions())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Keep the owner when we may (the file may belong to someone else).
        let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(meta.uid()), Some(meta.gid()));
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

fn describe(a: &edit_match::Applied) -> String {
    if a.strategy == Strategy::EmptyFile {
        return format!("edits[{}]: filled the empty file", a.index);
    }
    let mut s = if a.count > 1 {
        format!(
            "edits[{}]: {} places changed ({} match), the first at line {}",
            a.index,
            a.count,
            a.strategy.name(),
            a.line
        )
    } else {
        format!(
            "edits[{}]: {} match at line {}",
            a.index,
            a.strategy.name(),
            a.line
        )
    };
    if let Some(sim) = a.similarity {
        s.push_str(&format!(
            " (lines between the first and last {:.0}% similar)",
            sim * 100.0
        ));
    }
    if a.reindented {
        s.push_str("; newText re-indented to the file's indentation");
    }
    s
}

/// Edits the file: the summary for the user, the summary and diff for the model, the change.
pub fn run(inv: &Invocation) -> Result<Output, String> {
    let p = plan(inv)?;
    let bytes = p.edit.output().as_bytes();
    write_file(&p.path, bytes).map_err(|e| format!("Cannot write `{}`: {e}", p.shown))?;
    inv.ctx.ledger.record(&p.path, bytes);
    let (diff_text, added, removed) = diff(&p.shown, &p.edit.before, &p.edit.after);
    let headline = format!("Edited {} (+{added} −{removed})", p.shown);
    let mut content = format!("{headline}:");
    for a in &p.edit.applied {
        content.push_str("\n- ");
        content.push_str(&describe(a));
    }
    content.push_str(&format!("\n````diff\n{}````", diff_text));
    let change = FileChange::new(
        &p.shown,
        &p.path.to_string_lossy(),
        ChangeKind::Edited,
        diff_text,
    );
    Ok(Output {
        content,
        display: Some(headline),
        change: Some(change),
        todo: None,
    })
}

impl Tool for EditFile {
    fn name(&self) -> &str {
        "edit_file"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "edit_file".into(),
            description: DESCRIPTION.into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "filepath": {"type": "string"},
                    "edits": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "oldText": {"type": "string"},
                                "newText": {"type": "string"},
                                "replaceAll": {"type": ["boolean", "null"]}
                            },
                            "required": ["oldText", "newText", "replaceAll"],
                            "additionalProperties": false
                        }
                    },
                    "explanation": {"type": ["string", "null"]}
                },
                "required": ["filepath", "edits", "explanation"],
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
        format!("edit_file {}", inv.arg_str("filepath"))
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        let r = resolve(&inv.cwd, inv.arg_str("filepath"));
        let shown = display(&inv.cwd, &r.path);
        let edits = match parse_args(&inv.args) {
            Ok(a) if a.edits.len() == 1 => "1 edit".to_owned(),
            Ok(a) => format!("{} edits", a.edits.len()),
            Err(_) => "edits".to_owned(),
        };
        Some(file_write::question(
            &format!("Apply {edits} to"),
            &shown,
            r.inside,
        ))
    }

    /// The diff the call would make, or why it would fail.
    fn preview(&self, inv: &Invocation) -> Option<Preview> {
        Some(match plan(inv) {
            Ok(p) => {
                // The user approves this diff: if the file changes before the edit runs, the
                // edit must refuse rather than apply something else.
                if let Ok(raw) = std::fs::read(&p.path) {
                    inv.ctx.ledger.record(&p.path, &raw);
                }
                Preview::Diff {
                    diff: diff(&p.shown, &p.edit.before, &p.edit.after).0,
                    path: p.shown,
                }
            }
            Err(e) => Preview::Text(e),
        })
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                let done = tokio::task::spawn_blocking(move || run(&inv)).await;
                Some(match done {
                    Ok(Ok(applied)) => CmdResult::ok(applied),
                    Ok(Err(e)) => CmdResult::err(e),
                    Err(e) => CmdResult::err(format!("edit_file stopped: {e}")),
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
