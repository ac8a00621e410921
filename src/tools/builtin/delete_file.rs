//! `delete_file`: delete one file (SPEC §8.3).
//!
//! The path's directory is resolved (`..` and symlinks), its last component is not: a symlink is
//! deleted itself and its target is never touched. Directories, missing paths and the working
//! directory (or anything containing it) are refused. Outside the working directory the call
//! must be confirmed by the user whatever the mode (`must_ask`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;

use super::applied::Applied;
use super::create_file::unified_diff;
use super::paths::{display, resolve};
use super::protected::write_caution;
use crate::config::opts::Opts;
use crate::events::{ChangeKind, FileChange, MAX_DIFF_BYTES};
use crate::provider::ToolSpec;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Preview, Tool, ToolOutput};

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
pub fn delete(inv: &Invocation) -> Result<Applied, String> {
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
    Ok(Applied::new(content, change))
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
            require_approval_before: Some(toml::Value::Boolean(true)),
            // "Always accept" remembers this exact path, not every future delete.
            require_cmd_approval: Some(true),
            protect: Some(true),
            ..Opts::default()
        }
    }

    fn must_ask(&self, inv: &Invocation) -> Option<String> {
        let t = target(&inv.cwd, inv.arg_str("filepath"));
        write_caution(&inv.cwd, &t.path, t.inside, &inv.ctx.own_paths)
    }

    fn judge_context(&self, inv: &Invocation) -> Option<String> {
        Some(format!(
            "Delete the file: {}",
            target(&inv.cwd, inv.arg_str("filepath")).shown
        ))
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("delete_file {}", inv.arg_str("filepath"))
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        let t = target(&inv.cwd, inv.arg_str("filepath"));
        Some(if t.inside {
            format!("Delete `{}`?", t.shown)
        } else {
            format!("Delete `{}`, OUTSIDE the working directory?", t.shown)
        })
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
                    Ok(a) => a.into_result(),
                    Err(e) => CmdResult::Error(e),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: Option<&[String]>) {
        Applied::report(data, out);
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
    use serde_json::Value;
    use std::fs;

    fn inv_in(cwd: &Path, ctx: &Arc<ToolContext>, filepath: &str) -> Invocation {
        let args = json!({ "filepath": filepath });
        Invocation {
            name: "delete_file".into(),
            function_call: ToolCall {
                id: "call_1".into(),
                name: "delete_file".into(),
                arguments: args.to_string(),
            },
            args,
            opts: DeleteFile.default_opts(),
            cwd: cwd.to_path_buf(),
            ctx: ctx.clone(),
        }
    }

    fn project() -> (tempfile::TempDir, Arc<ToolContext>) {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("src")).unwrap();
        fs::write(dir.path().join("src/old.rs"), "fn old() {}\n").unwrap();
        (dir, Arc::new(ToolContext::default()))
    }

    #[test]
    fn deletes_one_file_and_forgets_it_in_the_ledger() {
        let (dir, ctx) = project();
        let path = dir.path().join("src/old.rs");
        let canonical = resolve(dir.path(), "src/old.rs").path;
        ctx.ledger.record(&canonical, b"something else");
        let applied = delete(&inv_in(dir.path(), &ctx, "src/old.rs")).unwrap();
        assert_eq!(applied.content, "Deleted src/old.rs");
        let change = applied.change.unwrap();
        assert_eq!(
            change.diff,
            "--- a/src/old.rs\n+++ b/src/old.rs\n@@ -1 +0,0 @@\n-fn old() {}\n"
        );
        assert_eq!(
            (change.kind, change.removed, change.truncated),
            (ChangeKind::Deleted, 1, false)
        );
        assert!(!path.exists());
        assert!(dir.path().join("src").is_dir());
        // Forgotten: a new file at that path is not "changed since read".
        assert_eq!(ctx.ledger.check_fresh(&canonical, b"new"), Ok(()));
    }

    #[test]
    fn refuses_directories_missing_files_and_the_working_directory() {
        let (dir, ctx) = project();
        let del = |p: &str| delete(&inv_in(dir.path(), &ctx, p)).unwrap_err();
        assert_eq!(
            del("src"),
            "Cannot delete `src`: it is a directory; delete_file deletes single files only"
        );
        assert_eq!(
            del("src/"),
            "Cannot delete `src`: it is a directory; delete_file deletes single files only"
        );
        assert_eq!(
            del("src/missing.rs"),
            "Cannot delete `src/missing.rs`: it does not exist"
        );
        assert!(del(".").starts_with("Refusing to delete `"), "{}", del("."));
        assert!(del("src/..").ends_with("it is the working directory or contains it"));
        assert!(del("..").ends_with("it is the working directory or contains it"));
        assert_eq!(del(""), "`filepath` is required");
        assert!(dir.path().join("src/old.rs").exists());
    }

    #[test]
    fn outside_the_working_directory_must_ask_and_deletes_only_after_that() {
        let (dir, ctx) = project();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim.txt");
        fs::write(&victim, "x").unwrap();
        let rel = format!(
            "../{}/victim.txt",
            outside.path().file_name().unwrap().to_string_lossy()
        );
        let i = inv_in(dir.path(), &ctx, victim.to_str().unwrap());
        assert!(DeleteFile.must_ask(&i).is_some());
        assert!(
            DeleteFile
                .must_ask(&inv_in(dir.path(), &ctx, "src/old.rs"))
                .is_none()
        );
        assert!(
            DeleteFile
                .prompt(&i)
                .unwrap()
                .ends_with(", OUTSIDE the working directory?")
        );
        let t = target(dir.path(), &rel);
        assert!(!t.inside);
        // The engine asks first (must_ask); once the user accepted, the file goes.
        delete(&i).unwrap();
        assert!(!victim.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_pointing_outside_is_deleted_itself_never_its_target() {
        let (dir, ctx) = project();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.txt");
        fs::write(&secret, "keep me").unwrap();
        std::os::unix::fs::symlink(&secret, dir.path().join("link.txt")).unwrap();
        let i = inv_in(dir.path(), &ctx, "link.txt");
        // The link lives inside: deleting it touches nothing outside.
        assert!(DeleteFile.must_ask(&i).is_none());
        assert_eq!(
            DeleteFile.preview(&i),
            Some(Preview::Text(format!(
                "`link.txt` is a symlink to `{}`; only the link will be deleted",
                secret.display()
            )))
        );
        let applied = delete(&i).unwrap();
        assert_eq!(
            applied.content,
            "Deleted link.txt (a symlink; its target was not touched)"
        );
        assert_eq!(
            applied.change.unwrap().diff,
            "",
            "the target's text is not shown"
        );
        assert!(fs::symlink_metadata(dir.path().join("link.txt")).is_err());
        assert_eq!(fs::read_to_string(&secret).unwrap(), "keep me");
        // A path through a symlinked directory that leads outside is outside.
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let i = inv_in(dir.path(), &ctx, "out/secret.txt");
        assert!(DeleteFile.must_ask(&i).is_some());
        assert_eq!(
            target(dir.path(), "out/secret.txt").path,
            fs::canonicalize(&secret).unwrap()
        );
    }

    #[test]
    fn the_preview_shows_size_and_first_lines() {
        let (dir, ctx) = project();
        let body: String = (1..=14).map(|i| format!("line {i}\n")).collect();
        fs::write(dir.path().join("notes.txt"), &body).unwrap();
        let p = DeleteFile.preview(&inv_in(dir.path(), &ctx, "notes.txt"));
        let mut want = format!("`notes.txt` — {} bytes, 14 lines\n", body.len());
        for i in 1..=10 {
            want.push_str(&format!("\n{i:>4} | line {i}"));
        }
        want.push_str("\n     … 4 more lines");
        assert_eq!(p, Some(Preview::Text(want)));
        fs::write(dir.path().join("blob.bin"), [0xff, 0xfe, 0x00, 0x81]).unwrap();
        assert_eq!(
            DeleteFile.preview(&inv_in(dir.path(), &ctx, "blob.bin")),
            Some(Preview::Text("`blob.bin` — 4 bytes, binary file".into()))
        );
        assert_eq!(
            DeleteFile.preview(&inv_in(dir.path(), &ctx, "gone.txt")),
            Some(Preview::Text("`gone.txt` does not exist".into()))
        );
    }

    #[test]
    fn approval_settings_and_strings() {
        let (dir, ctx) = project();
        let o = DeleteFile.default_opts();
        assert!(o.protect());
        assert_eq!(
            o.approval_setting(),
            crate::config::opts::ApprovalSetting::Yes
        );
        let i = inv_in(dir.path(), &ctx, "src/old.rs");
        assert_eq!(
            DeleteFile.judge_context(&i).unwrap(),
            "Delete the file: src/old.rs"
        );
        assert_eq!(DeleteFile.cmd_string(&i), "delete_file src/old.rs");
        assert_eq!(DeleteFile.prompt(&i).unwrap(), "Delete `src/old.rs`?");
        assert_eq!(DeleteFile.kind(), Kind::FileEdit);
        let spec = DeleteFile.spec();
        assert_eq!(spec.parameters["required"], Value::from(vec!["filepath"]));
    }
}
