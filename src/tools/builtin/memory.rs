//! `memory`: the model's notes, kept as files under a memories directory and addressed as
//! `/memories/...`. Commands: view, create, str_replace, insert, delete, rename.
//!
//! Unlike the reference tool it follows: `view_range` with end `-1` reads to the end;
//! `insert_line` N inserts after line N (0 = at the start), as the schema says; `str_replace`
//! needs exactly one match. A file is read only when it resolves to a regular file inside the
//! memories directory (`secrets::own_files`).

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use crate::provider::ToolSpec;
use crate::secrets::own_files::{self, Refused};
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Tool, ToolOutput};

pub struct Memory;

pub const ROOT: &str = "/memories";

/// The real path of a `/memories/...` path, rejecting anything that leaves the directory.
pub fn resolve(root: &Path, path: &str) -> Result<PathBuf, String> {
    let path = path.trim();
    if path.is_empty() {
        return Err("`path` is required".into());
    }
    if path.contains('\0') {
        return Err("Path contains invalid characters".into());
    }
    let rest = match path.strip_prefix(ROOT) {
        Some(r) if r.is_empty() || r.starts_with('/') => r.trim_start_matches('/'),
        _ => return Err(format!("Path must start with {ROOT}, e.g. {ROOT}/notes.md")),
    };
    let mut out = root.to_path_buf();
    for c in Path::new(rest).components() {
        match c {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => {
                return Err(format!(
                    "Invalid path: it must stay within the {ROOT} directory"
                ));
            }
        }
    }
    Ok(out)
}

/// A memory file's text, read only when it resolves to a regular file inside `root` (never
/// through a symlink to `/proc/self/environ` or out of the directory); `missing` says what to
/// answer when it does not exist or is not text.
fn read_text(
    root: &Path,
    p: &Path,
    path_arg: &str,
    missing: impl Fn() -> String,
) -> Result<String, String> {
    match own_files::read(p, &[root]) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| missing()),
        Err(Refused::Missing) => Err(missing()),
        Err(Refused::Refused(why)) => Err(format!("{path_arg} was not read: {why}")),
    }
}

fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

fn need<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    arg(args, key).ok_or_else(|| format!("`{key}` is required for this command"))
}

/// Runs one command; returns (content for the model, display).
pub fn run(root: &Path, args: &Value) -> Result<(String, String), String> {
    let command = need(args, "command")?;
    let path_arg = arg(args, "path").unwrap_or(ROOT);
    std::fs::create_dir_all(root)
        .map_err(|e| format!("cannot create the memories directory: {e}"))?;
    match command {
        "view" => view(root, args, path_arg),
        "create" => create(root, args, path_arg),
        "str_replace" => str_replace(root, args, path_arg),
        "insert" => insert(root, args, path_arg),
        "delete" => delete(root, path_arg),
        "rename" => rename(root, args),
        other => Err(format!(
            "unknown command `{other}`; use view, create, str_replace, insert, delete or rename"
        )),
    }
}

/// `view`: a directory's entries, or a file's lines (all, or `view_range`) numbered.
fn view(root: &Path, args: &Value, path_arg: &str) -> Result<(String, String), String> {
    let p = resolve(root, path_arg)?;
    if p.is_dir() {
        return view_dir(&p, path_arg);
    }
    let text = read_text(root, &p, path_arg, || {
        format!("Path does not exist: {path_arg}")
    })?;
    let lines: Vec<&str> = text.lines().collect();
    let (start, end) = match args.get("view_range") {
        Some(Value::Array(r)) if r.len() == 2 => {
            let s = r[0].as_i64().unwrap_or(1);
            let e = r[1].as_i64().unwrap_or(-1);
            let e = if e == -1 { lines.len() as i64 } else { e };
            if s < 1 || e < s {
                return Err(format!(
                    "Invalid view_range [{s}, {e}]: lines start at 1, and -1 as the end means the last line"
                ));
            }
            (s as usize, (e as usize).min(lines.len()))
        }
        Some(Value::Null) | None => (1, lines.len()),
        Some(other) => {
            return Err(format!("`view_range` must be [start, end], not {other}"));
        }
    };
    let shown: Vec<String> = lines
        .iter()
        .enumerate()
        .skip(start - 1)
        .take(end.saturating_sub(start - 1))
        .map(|(i, l)| format!("{:>6}\t{l}", i + 1))
        .collect();
    Ok((
        format!("{path_arg}:\n{}", shown.join("\n")),
        format!("Viewed {path_arg}"),
    ))
}

/// `view` of a directory: its entries sorted, subdirectories marked with a `/`.
fn view_dir(p: &Path, path_arg: &str) -> Result<(String, String), String> {
    let mut names: Vec<String> = std::fs::read_dir(p)
        .map_err(|e| format!("cannot read {path_arg}: {e}"))?
        .filter_map(Result::ok)
        .map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                format!("{n}/")
            } else {
                n
            }
        })
        .collect();
    names.sort();
    let list = if names.is_empty() {
        "(empty)".to_owned()
    } else {
        names
            .iter()
            .map(|n| format!("- {n}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    Ok((
        format!("Directory: {path_arg}\n{list}"),
        format!("Viewed {path_arg}"),
    ))
}

/// `create`: writes `file_text` to a file, creating its directories.
fn create(root: &Path, args: &Value, path_arg: &str) -> Result<(String, String), String> {
    let p = resolve(root, path_arg)?;
    if p == root {
        return Err("give a file path under /memories".into());
    }
    let text = arg(args, "file_text").unwrap_or_default();
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {path_arg}: {e}"))?;
    }
    std::fs::write(&p, text).map_err(|e| format!("cannot write {path_arg}: {e}"))?;
    Ok((format!("Created {path_arg}"), format!("Created {path_arg}")))
}

/// `str_replace`: replaces `old_str`, which must occur exactly once.
fn str_replace(root: &Path, args: &Value, path_arg: &str) -> Result<(String, String), String> {
    let p = resolve(root, path_arg)?;
    let old = need(args, "old_str")?;
    let new = arg(args, "new_str").unwrap_or_default();
    if old.is_empty() {
        return Err("`old_str` must not be empty".into());
    }
    let text = read_text(root, &p, path_arg, || {
        format!("Path does not exist or is not a text file: {path_arg}")
    })?;
    match text.matches(old).count() {
        0 => Err(format!("String not found in {path_arg}: {old}")),
        1 => {
            std::fs::write(&p, text.replacen(old, new, 1))
                .map_err(|e| format!("cannot write {path_arg}: {e}"))?;
            Ok((
                format!("Replaced the text in {path_arg}"),
                format!("Edited {path_arg}"),
            ))
        }
        n => Err(format!(
            "`old_str` occurs {n} times in {path_arg}; include more surrounding text so it matches exactly once"
        )),
    }
}

/// `insert`: puts `insert_text` after line `insert_line` (0 = at the start), keeping the
/// file's final newline.
fn insert(root: &Path, args: &Value, path_arg: &str) -> Result<(String, String), String> {
    let p = resolve(root, path_arg)?;
    let text = read_text(root, &p, path_arg, || {
        format!("Path does not exist or is not a text file: {path_arg}")
    })?;
    let insert = need(args, "insert_text")?;
    let line = args
        .get("insert_line")
        .and_then(Value::as_i64)
        .ok_or("`insert_line` is required for insert")?;
    let mut lines: Vec<&str> = text.lines().collect();
    if line < 0 || line as usize > lines.len() {
        return Err(format!(
            "Invalid insert_line {line}: the file has {} lines; use 0 to insert at the start, or N to insert after line N",
            lines.len()
        ));
    }
    let new_lines: Vec<&str> = insert.lines().collect();
    let at = line as usize;
    lines.splice(at..at, new_lines);
    let mut out = lines.join("\n");
    if text.ends_with('\n') || text.is_empty() {
        out.push('\n');
    }
    std::fs::write(&p, out).map_err(|e| format!("cannot write {path_arg}: {e}"))?;
    Ok((
        format!("Inserted the text after line {line} of {path_arg}"),
        format!("Edited {path_arg}"),
    ))
}

/// `delete`: removes a file or a whole directory, never the root.
fn delete(root: &Path, path_arg: &str) -> Result<(String, String), String> {
    let p = resolve(root, path_arg)?;
    if p == root {
        return Err(format!("Cannot delete the root directory {ROOT}"));
    }
    if p.is_dir() {
        std::fs::remove_dir_all(&p).map_err(|e| format!("cannot delete {path_arg}: {e}"))?;
    } else if p.exists() {
        std::fs::remove_file(&p).map_err(|e| format!("cannot delete {path_arg}: {e}"))?;
    } else {
        return Err(format!("Path does not exist: {path_arg}"));
    }
    Ok((format!("Deleted {path_arg}"), format!("Deleted {path_arg}")))
}

/// `rename`: moves `old_path` to `new_path`, which must not exist yet.
fn rename(root: &Path, args: &Value) -> Result<(String, String), String> {
    let old_arg = need(args, "old_path")?;
    let new_arg = need(args, "new_path")?;
    let from = resolve(root, old_arg)?;
    let to = resolve(root, new_arg)?;
    if from == root || to == root {
        return Err(format!("Cannot rename the root directory {ROOT}"));
    }
    if !from.exists() {
        return Err(format!("Path does not exist: {old_arg}"));
    }
    if to.exists() {
        return Err(format!("{new_arg} already exists"));
    }
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("cannot create {new_arg}: {e}"))?;
    }
    std::fs::rename(&from, &to).map_err(|e| format!("cannot rename {old_arg}: {e}"))?;
    Ok((
        format!("Renamed {old_arg} to {new_arg}"),
        format!("Renamed {old_arg} → {new_arg}"),
    ))
}

impl Tool for Memory {
    fn name(&self) -> &str {
        "memory"
    }

    fn spec(&self) -> ToolSpec {
        let s = json!({"type": ["string", "null"]});
        ToolSpec {
            name: "memory".into(),
            description: "Keep notes that last across chats, as files under /memories. Commands: view (a file or directory), \
                          create (file_text), str_replace (old_str must occur exactly once), insert (insert_text after line \
                          insert_line; 0 = at the start), delete, rename (old_path to new_path)."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "enum": ["view", "create", "str_replace", "insert", "delete", "rename"]},
                    "path": s,
                    "view_range": {"type": ["array", "null"], "items": {"type": "integer"}, "description": "[start, end], 1-based; -1 = the last line"},
                    "file_text": s,
                    "old_str": s,
                    "new_str": s,
                    "insert_line": {"type": ["integer", "null"]},
                    "insert_text": s,
                    "old_path": s,
                    "new_path": s
                },
                "required": ["command", "path", "view_range", "file_text", "old_str", "new_str", "insert_line", "insert_text", "old_path", "new_path"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    /// Nothing in the project changes (undo's checkpoints skip it).
    fn touches(&self, _inv: &Invocation) -> Option<Vec<std::path::PathBuf>> {
        Some(Vec::new())
    }

    fn kind(&self) -> Kind {
        Kind::Other
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        let target = arg(&inv.args, "path")
            .or(arg(&inv.args, "old_path"))
            .unwrap_or(ROOT);
        format!(
            "memory {} {target}",
            arg(&inv.args, "command").unwrap_or("?")
        )
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                Some(match run(&inv.ctx.memory_dir, &inv.args) {
                    Ok((content, display)) => CmdResult::ok(Output::shown(content, display)),
                    Err(e) => CmdResult::err(e),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        report::last_output(data, out);
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        let shown: Vec<&str> = errors.iter().map(|e| e.content.as_str()).collect();
        out.add(
            report::joined(errors),
            Some(format!("Error: {}", shown.join("; "))),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_ok(root: &Path, args: Value) -> String {
        run(root, &args)
            .map(|(c, _)| c)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[cfg(unix)]
    #[test]
    fn a_memory_file_linking_to_process_data_or_out_of_the_directory_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memories");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(dir.path().join("outside.md"), "outside text").unwrap();
        std::os::unix::fs::symlink("/proc/self/environ", root.join("env.md")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside.md"), root.join("out.md")).unwrap();
        for (path, why) in [
            ("/memories/env.md", "under /proc"),
            ("/memories/out.md", "outside"),
        ] {
            for command in [
                json!({"command": "view", "path": path}),
                json!({"command": "str_replace", "path": path, "old_str": "PATH", "new_str": "x"}),
                json!({"command": "insert", "path": path, "insert_line": 0, "insert_text": "x"}),
            ] {
                let e = run(&root, &command).unwrap_err();
                assert!(e.contains("was not read") && e.contains(why), "{e}");
            }
        }
        assert_eq!(
            std::fs::read_to_string(dir.path().join("outside.md")).unwrap(),
            "outside text"
        );
    }

    #[test]
    fn every_command_and_its_errors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("memories");
        run_ok(
            &root,
            json!({"command": "create", "path": "/memories/notes/todo.md", "file_text": "one\ntwo\nthree\n"}),
        );
        assert_eq!(
            run_ok(&root, json!({"command": "view", "path": "/memories"})),
            "Directory: /memories\n- notes/"
        );
        assert_eq!(
            run_ok(
                &root,
                json!({"command": "view", "path": "/memories/notes/todo.md", "view_range": [2, -1]})
            ),
            "/memories/notes/todo.md:\n     2\ttwo\n     3\tthree"
        );
        run_ok(
            &root,
            json!({"command": "insert", "path": "/memories/notes/todo.md", "insert_line": 0, "insert_text": "zero"}),
        );
        run_ok(
            &root,
            json!({"command": "insert", "path": "/memories/notes/todo.md", "insert_line": 4, "insert_text": "four"}),
        );
        assert_eq!(
            std::fs::read_to_string(root.join("notes/todo.md")).unwrap(),
            "zero\none\ntwo\nthree\nfour\n"
        );
        let e = run(&root, &json!({"command": "insert", "path": "/memories/notes/todo.md", "insert_line": 9, "insert_text": "x"})).unwrap_err();
        assert!(e.contains("has 5 lines"), "{e}");
        run_ok(
            &root,
            json!({"command": "create", "path": "/memories/dup.md", "file_text": "a a"}),
        );
        let e = run(&root, &json!({"command": "str_replace", "path": "/memories/dup.md", "old_str": "a", "new_str": "b"})).unwrap_err();
        assert!(e.contains("occurs 2 times"), "{e}");
        run_ok(
            &root,
            json!({"command": "str_replace", "path": "/memories/dup.md", "old_str": "a a", "new_str": "b"}),
        );
        run_ok(
            &root,
            json!({"command": "rename", "old_path": "/memories/dup.md", "new_path": "/memories/old/dup.md"}),
        );
        assert_eq!(
            std::fs::read_to_string(root.join("old/dup.md")).unwrap(),
            "b"
        );
        run_ok(&root, json!({"command": "delete", "path": "/memories/old"}));
        assert!(!root.join("old").exists());
        assert!(
            run(&root, &json!({"command": "delete", "path": "/memories"}))
                .unwrap_err()
                .contains("root")
        );
        assert!(
            run(
                &root,
                &json!({"command": "view", "path": "/memories/../etc"})
            )
            .unwrap_err()
            .contains("stay within")
        );
        assert!(
            run(&root, &json!({"command": "view", "path": "/etc/passwd"}))
                .unwrap_err()
                .contains("must start with /memories")
        );
        assert!(
            run(&root, &json!({"command": "view", "path": "/memoriesx"}))
                .unwrap_err()
                .contains("must start with")
        );
        assert!(
            run(
                &root,
                &json!({"command": "view", "path": "/memories/a\u{0}b"})
            )
            .unwrap_err()
            .contains("invalid characters")
        );
    }
}
