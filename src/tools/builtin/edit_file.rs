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

use memchr::memmem;
use serde_json::{Value, json};

use super::edit_match::{Applied, Edit, Strategy, apply_edits};
use super::paths::{display, resolve};
use crate::provider::ToolSpec;
use crate::tools::opts::Opts;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Preview, Tool, ToolOutput};

pub struct EditFile;

/// Files larger than this are refused.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

const DESCRIPTION: &str = "Edit an existing text file with search/replace edits. Each edit replaces `oldText` with `newText`; edits apply in order, all or nothing (if one fails, the file is left untouched and the error says why). \
`oldText` must match exactly one place: copy it from the file as it is, with enough surrounding lines to make it unique, or set `replaceAll: true` to change every occurrence. Small differences in whitespace or indentation are tolerated (`newText` is then re-indented to match the file), but exact text is best. \
Edits in one call must not overlap. Read the file before editing it; if it changed since you read it, read it again. Use create_file for new files; an empty `oldText` is only allowed to fill an empty file.";

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

/// A file's text edited as the tool edits it.
#[derive(Debug, Clone, PartialEq)]
pub struct TextEdit {
    /// Before and after, LF line endings and no BOM (what the diff shows).
    pub before: String,
    pub after: String,
    /// The content to write when it differs from `after` (the BOM or CRLF endings restored).
    restored: Option<String>,
    pub applied: Vec<Applied>,
}

impl TextEdit {
    /// The content to write: the file's line endings and BOM restored.
    pub fn output(&self) -> &str {
        self.restored.as_deref().unwrap_or(&self.after)
    }
}

/// Every line ends with CRLF (and there is at least one).
fn is_crlf(s: &str) -> bool {
    if memchr::memchr(b'\r', s.as_bytes()).is_none() {
        return false;
    }
    let crlf = memmem::find_iter(s.as_bytes(), b"\r\n").count();
    crlf > 0 && crlf == memchr::memchr_iter(b'\n', s.as_bytes()).count()
}

/// Applies `edits` to a file's `content`: BOM and CRLF line endings are set aside and restored,
/// and the final newline is kept as it was (added back if an edit removed it, dropped if an
/// edit added one to a file without). Takes the content by value so that a large file is not
/// copied.
pub fn edit_text(content: impl Into<String>, edits: &[Edit]) -> Result<TextEdit, String> {
    let mut content: String = content.into();
    let bom = content.starts_with('\u{feff}');
    if bom {
        content.drain(..'\u{feff}'.len_utf8());
    }
    let crlf = is_crlf(&content);
    let before = if crlf {
        content.replace("\r\n", "\n")
    } else {
        content
    };
    let edits: Vec<Edit> = edits
        .iter()
        .map(|e| Edit {
            old_text: e.old_text.replace("\r\n", "\n"),
            new_text: e.new_text.replace("\r\n", "\n"),
            replace_all: e.replace_all,
        })
        .collect();
    let outcome = apply_edits(&before, &edits).map_err(|e| e.to_string())?;
    let mut after = outcome.content;
    if before.ends_with('\n') && !after.is_empty() && !after.ends_with('\n') {
        after.push('\n');
    } else if !before.is_empty() && !before.ends_with('\n') && after.ends_with('\n') {
        after.pop();
    }
    if after == before {
        return Err(
            "The edits leave the file unchanged: each newText is identical to the text it replaces."
                .into(),
        );
    }
    let restored = (bom || crlf).then(|| {
        let body = if crlf {
            after.replace('\n', "\r\n")
        } else {
            after.clone()
        };
        if bom { format!("\u{feff}{body}") } else { body }
    });
    Ok(TextEdit {
        before,
        after,
        restored,
        applied: outcome.applied,
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

fn describe(a: &Applied) -> String {
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

/// Edits the file: (display, content for the model).
pub fn run(inv: &Invocation) -> Result<(String, String), String> {
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
    Ok((headline, content))
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
                    "filepath": {"type": "string", "description": "Path of the file to edit, relative to the working directory"},
                    "edits": {
                        "type": "array",
                        "description": "Search/replace edits, applied in order",
                        "items": {
                            "type": "object",
                            "properties": {
                                "oldText": {"type": "string", "description": "The text to replace, copied exactly from the file (whole lines, with enough context to be unique)"},
                                "newText": {"type": "string", "description": "The text to put in its place"},
                                "replaceAll": {"type": ["boolean", "null"], "description": "true to replace every occurrence of oldText; null or false when it must match exactly one place"}
                            },
                            "required": ["oldText", "newText", "replaceAll"],
                            "additionalProperties": false
                        }
                    },
                    "explanation": {"type": ["string", "null"], "description": "A short note on what the edit does, or null"}
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
        Opts {
            require_approval_before: Some(toml::Value::Boolean(true)),
            ..Opts::default()
        }
    }

    fn must_ask(&self, inv: &Invocation) -> bool {
        !resolve(&inv.cwd, inv.arg_str("filepath")).inside
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
        Some(if r.inside {
            format!("Apply {edits} to `{shown}`?")
        } else {
            format!("Apply {edits} to `{shown}`, OUTSIDE the working directory?")
        })
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
                    Ok(Ok((display, content))) => {
                        CmdResult::Success(format!("{display}\n{content}"))
                    }
                    Ok(Err(e)) => CmdResult::Error(e),
                    Err(e) => CmdResult::Error(format!("edit_file stopped: {e}")),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: Option<&[String]>) {
        let data = data.and_then(<[String]>::last).cloned().unwrap_or_default();
        let (display, content) = data.split_once('\n').unwrap_or((&data, &data));
        out.add(content.to_owned(), Some(display.to_owned()));
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[String]) {
        out.add(errors.join("\n"), None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCall;
    use crate::tools::context::ToolContext;
    use pretty_assertions::assert_eq;
    use std::fs;

    fn inv_in(cwd: &Path, ctx: &Arc<ToolContext>, args: Value) -> Invocation {
        Invocation {
            name: "edit_file".into(),
            function_call: ToolCall {
                id: "call_1".into(),
                name: "edit_file".into(),
                arguments: args.to_string(),
            },
            args,
            opts: EditFile.default_opts(),
            cwd: cwd.to_path_buf(),
            ctx: ctx.clone(),
        }
    }

    fn args(path: &str, edits: Value) -> Value {
        json!({"filepath": path, "edits": edits, "explanation": null})
    }

    fn one(old: &str, new: &str) -> Value {
        json!([{"oldText": old, "newText": new, "replaceAll": null}])
    }

    /// A temp project holding `f.txt` with `content`.
    fn project(content: &[u8]) -> (tempfile::TempDir, Arc<ToolContext>) {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f.txt"), content).unwrap();
        (dir, Arc::new(ToolContext::default()))
    }

    fn edit(content: &str, edits: &[Edit]) -> String {
        edit_text(content, edits)
            .unwrap_or_else(|e| panic!("{e}"))
            .output()
            .to_owned()
    }

    #[test]
    fn fixtures_in_many_languages_edit_to_the_exact_expected_file() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/edit");
        let mut cases: Vec<PathBuf> = fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        cases.sort();
        assert!(cases.len() >= 12, "{cases:?}");
        let mut seen = std::collections::BTreeSet::new();
        for case in cases {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let spec: Value =
                serde_json::from_str(&fs::read_to_string(case.join("edits.json")).unwrap())
                    .unwrap();
            let find = |stem: &str| {
                fs::read_dir(&case)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .find(|p| p.file_stem().is_some_and(|s| s == stem))
                    .unwrap_or_else(|| panic!("{name}: no {stem}.*"))
            };
            let (before, after) = (find("before"), find("after"));
            let file = format!("file.{}", before.extension().unwrap().to_string_lossy());
            let dir = tempfile::tempdir().unwrap();
            fs::copy(&before, dir.path().join(&file)).unwrap();
            let ctx = Arc::new(ToolContext::default());
            let a = args(&file, spec["edits"].clone());
            // The strategies each edit was matched with.
            let parsed = parse_args(&a).unwrap();
            let planned = edit_text(fs::read_to_string(&before).unwrap(), &parsed.edits)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let got: Vec<&str> = planned.applied.iter().map(|a| a.strategy.name()).collect();
            let want: Vec<&str> = spec["strategies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_str().unwrap())
                .collect();
            assert_eq!(got, want, "{name}: strategies");
            seen.extend(got.iter().map(|s| s.to_string()));
            // The tool writes exactly the expected bytes.
            run(&inv_in(dir.path(), &ctx, a)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(
                fs::read_to_string(dir.path().join(&file)).unwrap(),
                fs::read_to_string(&after).unwrap(),
                "{name}: resulting file"
            );
        }
        let all: std::collections::BTreeSet<String> = [
            "exact",
            "whitespace-normalised",
            "indentation-tolerant",
            "block anchor",
        ]
        .map(String::from)
        .into();
        assert_eq!(seen, all, "every strategy has a fixture");
    }

    #[test]
    fn a_final_newline_is_kept_when_an_edit_removes_it() {
        assert_eq!(edit("a\nb\n", &[Edit::new("b\n", "c")]), "a\nc\n");
    }

    #[test]
    fn a_final_newline_stays_when_the_last_line_is_edited() {
        assert_eq!(edit("a\nb\n", &[Edit::new("b", "c")]), "a\nc\n");
    }

    #[test]
    fn a_file_without_final_newline_does_not_gain_one() {
        assert_eq!(edit("a\nb", &[Edit::new("b", "c\n")]), "a\nc");
    }

    #[test]
    fn a_file_without_final_newline_stays_so_when_edited_elsewhere() {
        assert_eq!(edit("a\nb", &[Edit::new("a", "z\ny")]), "z\ny\nb");
    }

    #[test]
    fn crlf_files_stay_crlf_and_crlf_in_edits_is_accepted() {
        assert_eq!(
            edit("a\r\nb\r\n", &[Edit::new("b\r\n", "c\r\nd\n")]),
            "a\r\nc\r\nd\r\n"
        );
        let t = edit_text("x\r\ny\r\n", &[Edit::new("y", "z")]).unwrap();
        assert_eq!((t.before.as_str(), t.after.as_str()), ("x\ny\n", "x\nz\n"));
    }

    #[test]
    fn mixed_line_endings_are_left_as_they_are() {
        assert_eq!(
            edit("a\r\nb\nc\r\n", &[Edit::new("b", "B")]),
            "a\r\nB\nc\r\n"
        );
    }

    #[test]
    fn a_byte_order_mark_is_kept() {
        assert_eq!(
            edit("\u{feff}first\nsecond\n", &[Edit::new("first", "1st")]),
            "\u{feff}1st\nsecond\n"
        );
    }

    #[test]
    fn edits_that_change_nothing_are_an_error() {
        let e = edit_text("a\n", &[Edit::new("a", "a")]).unwrap_err();
        assert!(e.contains("unchanged"), "{e}");
    }

    #[test]
    fn the_tool_reports_a_summary_and_the_diff() {
        let (dir, ctx) = project(b"one\ntwo\nthree\n");
        let (display, content) = run(&inv_in(
            dir.path(),
            &ctx,
            args("f.txt", one("two", "2\n2b")),
        ))
        .unwrap();
        assert_eq!(display, "Edited f.txt (+2 −1)");
        assert_eq!(
            content,
            "Edited f.txt (+2 −1):\n- edits[0]: exact match at line 2\n````diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2b\n three\n````"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "one\n2\n2b\nthree\n"
        );
        let mut out = ToolOutput::default();
        EditFile.on_success(
            &inv_in(dir.path(), &ctx, json!({})),
            &mut out,
            Some(&[format!("{display}\n{content}")]),
        );
        assert_eq!(out.display().as_deref(), Some("Edited f.txt (+2 −1)"));
        assert_eq!(out.content(), content);
    }

    #[test]
    fn fuzzy_matches_are_described_to_the_model() {
        let (dir, ctx) = project(b"fn f() {\n    a();\n    b();\n}\n");
        let (_, content) = run(&inv_in(
            dir.path(),
            &ctx,
            args(
                "f.txt",
                json!([
                    {"oldText": "a();\nb();", "newText": "a();\nc();", "replaceAll": null},
                    {"oldText": "x", "newText": "y", "replaceAll": true}
                ]),
            ),
        ))
        .unwrap_err()
        .split_once('\n')
        .map(|(a, b)| (a.to_owned(), b.to_owned()))
        .unwrap();
        assert!(
            content.contains("No changes were made to the file."),
            "{content}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "fn f() {\n    a();\n    b();\n}\n"
        );
        let (_, content) = run(&inv_in(
            dir.path(),
            &ctx,
            args("f.txt", one("a();\nb();", "a();\nc();")),
        ))
        .unwrap();
        assert!(
            content.starts_with("Edited f.txt (+1 −1):\n- edits[0]: indentation-tolerant match at line 2; newText re-indented to the file's indentation\n"),
            "{content}"
        );
    }

    #[test]
    fn an_ambiguous_edit_is_refused_with_guidance_and_the_file_is_untouched() {
        let (dir, ctx) = project(b"x = 1\ny = 2\nx = 1\n");
        let e = run(&inv_in(
            dir.path(),
            &ctx,
            args("f.txt", one("x = 1", "x = 3")),
        ))
        .unwrap_err();
        assert_eq!(
            e,
            "Could not edit `f.txt`: edits[0] (oldText beginning `x = 1`) failed: oldText matches 2 places in the file (exact match):\n  - line 1: x = 1\n  - line 3: x = 1\nInclude more surrounding lines in oldText so that it matches exactly one place, or set replaceAll: true to change every occurrence.\nNo changes were made to the file."
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "x = 1\ny = 2\nx = 1\n"
        );
    }

    #[test]
    fn a_missing_file_points_to_create_file() {
        let (dir, ctx) = project(b"");
        let e = run(&inv_in(dir.path(), &ctx, args("nope.rs", one("a", "b")))).unwrap_err();
        assert_eq!(
            e,
            "`nope.rs` does not exist; use create_file to create a new file"
        );
        let e = run(&inv_in(dir.path(), &ctx, args(".", one("a", "b")))).unwrap_err();
        assert!(e.ends_with("is a directory, not a file"), "{e}");
    }

    #[test]
    fn an_empty_file_can_be_filled_with_an_empty_old_text() {
        let (dir, ctx) = project(b"");
        run(&inv_in(dir.path(), &ctx, args("f.txt", one("", "hello\n")))).unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "hello\n"
        );
    }

    #[test]
    fn invalid_utf8_is_refused_and_the_file_left_untouched() {
        let bytes = b"caf\xe9 au lait\n";
        let (dir, ctx) = project(bytes);
        let e = run(&inv_in(
            dir.path(),
            &ctx,
            args("f.txt", one("lait", "miel")),
        ))
        .unwrap_err();
        assert_eq!(
            e,
            "`f.txt` is not valid UTF-8 text (invalid bytes at offset 3); edit_file only edits UTF-8 text files, so it left the file untouched"
        );
        assert_eq!(fs::read(dir.path().join("f.txt")).unwrap(), bytes);
    }

    #[test]
    fn a_file_changed_since_the_model_read_it_is_refused_until_read_again() {
        let (dir, ctx) = project(b"alpha\nbeta\n");
        let path = dir.path().join("f.txt");
        // The model reads the file through read_file, which records it in the ledger.
        let read = inv_in(
            dir.path(),
            &ctx,
            json!({"filepath": "f.txt", "start_line": null, "end_line": null}),
        );
        super::super::read_file::read(&read).unwrap();
        fs::write(&path, "alpha\nbeta\ngamma\n").unwrap();
        let e = run(&inv_in(
            dir.path(),
            &ctx,
            args("f.txt", one("beta", "BETA")),
        ))
        .unwrap_err();
        assert!(e.contains("changed since you last read it"), "{e}");
        assert_eq!(
            e,
            "`f.txt` changed since you last read it (someone else edited it): read it again with read_file, then retry your edit. No changes were made to the file."
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "alpha\nbeta\ngamma\n");
        // The preview says the same.
        let p = EditFile.preview(&inv_in(
            dir.path(),
            &ctx,
            args("f.txt", one("beta", "BETA")),
        ));
        assert!(
            matches!(&p, Some(Preview::Text(t)) if t.contains("changed since")),
            "{p:?}"
        );
        super::super::read_file::read(&read).unwrap();
        run(&inv_in(
            dir.path(),
            &ctx,
            args("f.txt", one("beta", "BETA")),
        ))
        .unwrap();
        // The tool's own write is recorded: a second edit needs no new read.
        run(&inv_in(
            dir.path(),
            &ctx,
            args("f.txt", one("gamma", "GAMMA")),
        ))
        .unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "alpha\nBETA\nGAMMA\n");
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_preserved() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, ctx) = project(b"#!/bin/sh\necho hi\n");
        let path = dir.path().join("f.txt");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
        run(&inv_in(dir.path(), &ctx, args("f.txt", one("hi", "bye")))).unwrap();
        assert_eq!(
            fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o750
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "#!/bin/sh\necho bye\n");
        // No temporary file is left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_and_hard_links_keep_pointing_at_the_edited_content() {
        let (dir, ctx) = project(b"v1\n");
        let path = dir.path().join("f.txt");
        std::os::unix::fs::symlink(&path, dir.path().join("link.txt")).unwrap();
        fs::hard_link(&path, dir.path().join("hard.txt")).unwrap();
        run(&inv_in(dir.path(), &ctx, args("link.txt", one("v1", "v2")))).unwrap();
        assert!(
            fs::symlink_metadata(dir.path().join("link.txt"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "v2\n");
        assert_eq!(
            fs::read_to_string(dir.path().join("hard.txt")).unwrap(),
            "v2\n"
        );
    }

    /// The diff of the whole texts, as similar makes it.
    fn full_diff(before: &str, after: &str) -> String {
        similar::TextDiff::from_lines(before, after)
            .unified_diff()
            .context_radius(CONTEXT)
            .header("a/f", "b/f")
            .to_string()
    }

    /// `before` patched with the unified `diff`.
    fn patch(before: &str, diff: &str) -> String {
        let old: Vec<&str> = before.split_inclusive('\n').collect();
        let lines: Vec<&str> = diff.split_inclusive('\n').skip(2).collect();
        let mut out = String::new();
        let mut at = 0; // next line of `old` to copy
        let mut i = 0;
        while i < lines.len() {
            let h = lines[i].trim_end();
            assert!(h.starts_with("@@ -"), "{h:?} in {diff}");
            let range = h[4..].split(' ').next().unwrap();
            let (start, len) = range.split_once(',').unwrap_or((range, "1"));
            let (start, len): (usize, usize) = (start.parse().unwrap(), len.parse().unwrap());
            let first = if len == 0 { start } else { start - 1 };
            while at < first {
                out.push_str(old[at]);
                at += 1;
            }
            i += 1;
            while i < lines.len() && !lines[i].starts_with("@@") {
                let (tag, mut text) = lines[i].split_at(1);
                let no_nl = lines.get(i + 1).is_some_and(|l| l.starts_with('\\'));
                if no_nl {
                    text = text.strip_suffix('\n').unwrap();
                }
                match tag {
                    " " | "-" => {
                        assert_eq!(old[at], text, "context/removed line {at} in {diff}");
                        if tag == " " {
                            out.push_str(text);
                        }
                        at += 1;
                    }
                    "+" => out.push_str(text),
                    other => panic!("{other:?} in {diff}"),
                }
                i += if no_nl { 2 } else { 1 };
            }
        }
        for l in &old[at..] {
            out.push_str(l);
        }
        out
    }

    #[test]
    fn the_windowed_diff_equals_the_full_diff() {
        let base: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let mut cases: Vec<(String, String)> = vec![
            (base.clone(), base.replace("line 20\n", "line twenty\n")),
            (base.clone(), base.replace("line 1\n", "")),
            (base.clone(), format!("{base}appended\n")),
            (base.clone(), base.trim_end().to_owned()),
            (
                base.clone(),
                base.replace("line 3\n", "x\n").replace("line 38\n", "y\n"),
            ),
            (
                base.clone(),
                base.replace("line 10\n", "line 10\nline 10\n"),
            ),
            (
                base.clone(),
                base.replace("line 5\n", "line 5 \n")
                    .replace("line 13\n", ""),
            ),
            ("a\nb".into(), "a\nc".into()),
            ("".into(), "new\n".into()),
            ("x\n".into(), "".into()),
            ("same\nsame\nsame\n".into(), "same\nsame\n".into()),
        ];
        // Pseudo-random line edits of a text with repeated lines.
        let mut seed = 7u64;
        let mut rnd = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..300 {
            let mut lines: Vec<String> = (0..30).map(|i| format!("l{}", i % 7)).collect();
            let before = lines.join("\n") + "\n";
            for _ in 0..1 + rnd(3) {
                let at = rnd(lines.len());
                match rnd(3) {
                    0 => lines[at] = format!("changed {}", rnd(5)),
                    1 => {
                        lines.remove(at);
                    }
                    _ => lines.insert(at, format!("l{}", rnd(7))),
                }
            }
            let mut after = lines.join("\n");
            if rnd(4) > 0 {
                after.push('\n');
            }
            cases.push((before, after));
        }
        for (n, (before, after)) in cases.into_iter().enumerate() {
            let (got, added, removed) = diff("f", &before, &after);
            if n < 11 {
                // Distinct lines: one right diff.
                assert_eq!(got, full_diff(&before, &after), "{before:?} → {after:?}");
            } else {
                // Repeated lines: Myers may align an insertion differently in the window, but
                // the diff must apply and be as small.
                assert_eq!(patch(&before, &got), after, "{got}");
            }
            assert_eq!(patch(&before, &full_diff(&before, &after)), after);
            let full = similar::TextDiff::from_lines(before.as_str(), after.as_str());
            let count = |tag| full.iter_all_changes().filter(|c| c.tag() == tag).count();
            assert_eq!(
                (added, removed),
                (
                    count(similar::ChangeTag::Insert),
                    count(similar::ChangeTag::Delete)
                )
            );
        }
    }

    #[test]
    fn the_preview_is_the_diff_or_the_reason_it_would_fail() {
        let (dir, ctx) = project(b"a\nb\n");
        let p = EditFile.preview(&inv_in(dir.path(), &ctx, args("f.txt", one("b", "c"))));
        assert_eq!(
            p,
            Some(Preview::Diff {
                path: "f.txt".into(),
                diff: "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n".into()
            })
        );
        let p = EditFile.preview(&inv_in(dir.path(), &ctx, args("f.txt", one("zzz", "c"))));
        let Some(Preview::Text(t)) = p else {
            panic!("{p:?}")
        };
        assert!(t.starts_with("Could not edit `f.txt`: edits[0] (oldText beginning `zzz`) failed: oldText was not found"), "{t}");
        // Previewing writes nothing.
        assert_eq!(
            fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "a\nb\n"
        );
    }

    #[test]
    fn outside_the_working_directory_must_ask() {
        let (dir, ctx) = project(b"");
        let ask = |p: &str| EditFile.must_ask(&inv_in(dir.path(), &ctx, args(p, one("a", "b"))));
        assert!(!ask("f.txt"));
        assert!(!ask("sub/../f.txt"));
        assert!(ask("../elsewhere.txt"));
        assert!(ask("/etc/hosts"));
        let i = inv_in(dir.path(), &ctx, args("../x.txt", one("a", "b")));
        assert_eq!(
            EditFile.prompt(&i).unwrap(),
            format!(
                "Apply 1 edit to `{}`, OUTSIDE the working directory?",
                resolve(dir.path(), "../x.txt").path.display()
            )
        );
        assert_eq!(EditFile.cmd_string(&i), "edit_file ../x.txt");
        let i = inv_in(
            dir.path(),
            &ctx,
            args(
                "f.txt",
                json!([{"oldText": "a", "newText": "b"}, {"oldText": "c", "newText": "d"}]),
            ),
        );
        assert_eq!(EditFile.prompt(&i).unwrap(), "Apply 2 edits to `f.txt`?");
    }

    #[test]
    fn arguments_are_checked_with_helpful_messages() {
        let e = |v: Value| parse_args(&v).unwrap_err();
        assert_eq!(
            e(json!({"filepath": "f", "edits": [{"newText": "x"}]})),
            "edits[0] has no oldText: give the exact text to replace, copied from the file"
        );
        assert_eq!(
            e(json!({"filepath": "f", "edits": [{"oldText": "x", "newText": null}]})),
            "edits[0] has no newText: give the text to put in place of oldText (an empty string deletes it)"
        );
        assert_eq!(
            e(json!({"filepath": "f", "edits": []})),
            "`edits` is empty: give at least one {oldText, newText} edit"
        );
        assert_eq!(e(json!({"edits": []})), "`filepath` is required");
        assert!(e(json!({"filepath": "f", "edits": "not json"})).starts_with("`edits` must be an array of {oldText, newText, replaceAll} objects; the string given is not a JSON array"));
        assert_eq!(
            e(
                json!({"filepath": "f", "edits": [{"oldText": "a", "newText": "b", "replaceAll": 3}]})
            ),
            "edits[0].replaceAll must be true, false or null, got 3"
        );
        // Edits sent as a JSON string are accepted, as are string booleans.
        let a = parse_args(&json!({"filepath": "f", "edits": "[{\"oldText\":\"a\",\"newText\":\"b\",\"replaceAll\":\"true\"}]", "explanation": "why"})).unwrap();
        assert_eq!(a.edits, [Edit::all("a", "b")]);
        assert_eq!(a.explanation.as_deref(), Some("why"));
    }

    #[test]
    fn the_schema_is_strict() {
        let spec = EditFile.spec();
        assert_eq!(spec.strict, Some(true));
        let p = &spec.parameters;
        assert_eq!(p["required"], json!(["filepath", "edits", "explanation"]));
        assert_eq!(
            p["properties"]["explanation"]["type"],
            json!(["string", "null"])
        );
        let item = &p["properties"]["edits"]["items"];
        assert_eq!(
            item["required"],
            json!(["oldText", "newText", "replaceAll"])
        );
        assert_eq!(
            item["properties"]["replaceAll"]["type"],
            json!(["boolean", "null"])
        );
        assert_eq!(item["additionalProperties"], json!(false));
        assert_eq!(EditFile.kind(), Kind::FileEdit);
        assert_eq!(
            EditFile.default_opts().approval_setting(),
            crate::tools::opts::ApprovalSetting::Yes
        );
    }

    #[test]
    fn a_ten_megabyte_file_is_edited_quickly() {
        let mut content = String::with_capacity(10_500_000);
        let mut i = 0;
        while content.len() < 10_000_000 {
            content.push_str(&format!("    let value_{i} = compute({i}, &table);\n"));
            i += 1;
        }
        content.push_str("fn end() {\n    finish();\n}\n");
        let (dir, ctx) = project(content.as_bytes());
        let t = std::time::Instant::now();
        run(&inv_in(
            dir.path(),
            &ctx,
            args(
                "f.txt",
                one("    finish();", "    finish();\n    cleanup();"),
            ),
        ))
        .unwrap();
        let exact = t.elapsed();
        let t = std::time::Instant::now();
        run(&inv_in(
            dir.path(),
            &ctx,
            args(
                "f.txt",
                one("fn end() {\n  finish();\n  cleanup();\n}", "fn end() {}"),
            ),
        ))
        .unwrap();
        let fuzzy = t.elapsed();
        assert!(
            fs::read_to_string(dir.path().join("f.txt"))
                .unwrap()
                .ends_with("table);\nfn end() {}\n")
        );
        // Generous bounds for unoptimised test builds on a loaded machine.
        assert!(
            exact < Duration::from_secs(5) && fuzzy < Duration::from_secs(10),
            "{exact:?} {fuzzy:?}"
        );
    }
}
