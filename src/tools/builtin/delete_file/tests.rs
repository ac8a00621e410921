//! Tests of the parent module.

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
    assert!(DeleteFile.policy(&i).must_ask.is_some());
    assert!(
        DeleteFile
            .policy(&inv_in(dir.path(), &ctx, "src/old.rs"))
            .must_ask
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
    // The engine asks first (`Policy::must_ask`); once the user accepted, the file goes.
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
    assert!(DeleteFile.policy(&i).must_ask.is_none());
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
    assert!(DeleteFile.policy(&i).must_ask.is_some());
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
        o.approval_before(),
        crate::config::opts::ApprovalBefore::Always
    );
    let i = inv_in(dir.path(), &ctx, "src/old.rs");
    assert_eq!(
        DeleteFile.policy(&i).judge_context.unwrap(),
        "Delete the file: src/old.rs"
    );
    assert_eq!(DeleteFile.cmd_string(&i), "delete_file src/old.rs");
    assert_eq!(DeleteFile.prompt(&i).unwrap(), "Delete `src/old.rs`?");
    assert_eq!(DeleteFile.kind(), Kind::FileEdit);
    let spec = DeleteFile.spec();
    assert_eq!(spec.parameters["required"], Value::from(vec!["filepath"]));
}

#[test]
fn a_large_or_binary_file_shows_what_fits_and_says_it_was_cut() {
    let (dir, ctx) = project();
    let line = "x".repeat(99) + "\n";
    let big = line.repeat(MAX_DIFF_BYTES / 100 + 50);
    fs::write(dir.path().join("big.txt"), &big).unwrap();
    let change = delete(&inv_in(dir.path(), &ctx, "big.txt"))
        .unwrap()
        .change
        .unwrap();
    assert!(change.truncated);
    assert!(change.diff.len() <= MAX_DIFF_BYTES, "{}", change.diff.len());
    assert!(change.diff.ends_with(&format!("-{line}")));
    fs::write(dir.path().join("blob.bin"), [0xff, 0xfe, 0x00, 0x81]).unwrap();
    let change = delete(&inv_in(dir.path(), &ctx, "blob.bin"))
        .unwrap()
        .change
        .unwrap();
    assert_eq!((change.diff.as_str(), change.truncated), ("", true));
    assert!(!dir.path().join("blob.bin").exists());
}
