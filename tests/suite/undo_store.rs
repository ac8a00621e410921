//! Undo's checkpoints through the real binary (`--auto` headless, the fixture server, temp
//! homes): what the file tools and shell commands changed is taken back by
//! `sayso sessions undo ID --yes` byte for byte (modes too) and redone; a file changed in
//! between is a conflict (listed, not overwritten); a `kill -9` mid-command still leaves
//! something to undo; a hostile repository's git config runs nothing; a 10,000-file tree
//! with one changed file costs the store one new content object.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, json_lines, run, sayso};

/// No extra config: the runs pass `--allowed-tools run_command,delete_file` (no judge here).
const RULES: &str = "";

/// Path → (bytes, mode) of every file under `dir`, sayso's own directories aside.
fn tree(dir: &Path) -> BTreeMap<String, (Vec<u8>, u32)> {
    let mut out = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
            if ["config", "data", "state", "cache"].contains(&rel.as_str()) {
                continue;
            }
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                todo.push(p);
            } else {
                out.insert(
                    rel,
                    (
                        std::fs::read(&p).unwrap_or_default(),
                        meta.permissions().mode() & 0o7777,
                    ),
                );
            }
        }
    }
    out
}

/// One `-p --json --auto` turn making `calls`; its session id and events.
async fn auto_turn(
    fx: &Fixture,
    home: &Path,
    calls: &[(&str, &str, Value)],
) -> (String, Vec<Value>) {
    fx.push(call_reply(calls));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let mut cmd = sayso(home);
    cmd.args([
        "-p",
        "--json",
        "--auto",
        "--allowed-tools",
        "run_command,delete_file",
        "change things",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let events = json_lines(&out.stdout);
    let id = events[0]["session_id"]
        .as_str()
        .expect("a saved session")
        .to_owned();
    (id, events)
}

async fn sessions(home: &Path, args: &[&str]) -> crate::support::Output {
    let mut cmd = sayso(home);
    cmd.arg("sessions").args(args);
    run(cmd).await
}

fn write_mode(p: &Path, bytes: &[u8], mode: u32) {
    std::fs::write(p, bytes).unwrap();
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test]
async fn undo_restores_file_tools_and_shell_changes_byte_for_byte_then_redo_reapplies() {
    let fx = Fixture::start().await;
    let home = home_with(&fx.base_url(), RULES);
    let h = home.path();
    write_mode(&h.join("notes.txt"), b"keep\nold\n", 0o640);
    write_mode(&h.join("del.txt"), b"to be deleted\n", 0o600);
    write_mode(&h.join("gone.bin"), &[0, 159, 146, 150, 255, 0, 10], 0o644);
    write_mode(&h.join("s.txt"), b"aaa\nbab\n", 0o644);
    write_mode(&h.join("run.sh"), b"#!/bin/sh\necho hi\n", 0o644);
    let before = tree(h);
    let (id, events) = auto_turn(
        &fx,
        h,
        &[
            ("c1", "create_file", json!({"filepath": "hello.md", "content": "# Hello\n"})),
            ("c2", "edit_file", json!({"filepath": "notes.txt", "edits": [{"oldText": "old\n", "newText": "new\n", "replaceAll": null}], "explanation": null})),
            ("c3", "delete_file", json!({"filepath": "del.txt"})),
            ("c4", "run_command", json!({"cmd": "rm gone.bin"})),
            ("c5", "run_command", json!({"cmd": "sed -i s/a/z/g s.txt"})),
            ("c6", "run_command", json!({"cmd": "chmod +x run.sh"})),
        ],
    )
    .await;
    let after = tree(h);
    assert!(
        after.contains_key("hello.md")
            && !after.contains_key("del.txt")
            && !after.contains_key("gone.bin")
    );
    assert_eq!(after["s.txt"].0, b"zzz\nbzb\n");
    assert_eq!(after["run.sh"].1 & 0o111, 0o111);
    // --json: each call's pending checkpoint, then its complete one with what it changed.
    let cps: Vec<(&str, bool, Vec<&str>)> = events
        .iter()
        .filter(|e| e["type"] == "checkpoint")
        .map(|e| {
            assert_eq!(e["turn"], 1);
            let paths = e["paths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap())
                .collect();
            (
                e["call_id"].as_str().unwrap(),
                e["pending"].as_bool().unwrap(),
                paths,
            )
        })
        .collect();
    assert_eq!(
        cps,
        [
            ("c1", true, vec![]),
            ("c1", false, vec!["hello.md"]),
            ("c2", true, vec![]),
            ("c2", false, vec!["notes.txt"]),
            ("c3", true, vec![]),
            ("c3", false, vec!["del.txt"]),
            ("c4", true, vec![]),
            ("c4", false, vec!["gone.bin"]),
            ("c5", true, vec![]),
            ("c5", false, vec!["s.txt"]),
            ("c6", true, vec![]),
            ("c6", false, vec!["run.sh"]),
        ]
    );

    // Without --yes: the diff and what it would do; nothing written.
    let dry = sessions(h, &["undo", &id]).await;
    assert_eq!(dry.code, 0, "{}", dry.stderr);
    assert!(dry.stdout.contains("-new\n+old\n"), "{}", dry.stdout);
    assert!(
        dry.stdout.contains("old mode 100755\nnew mode 100644"),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stderr.contains("delete: hello.md") && dry.stderr.contains("recreate: gone.bin"),
        "{}",
        dry.stderr
    );
    assert!(dry.stderr.contains("--yes"), "{}", dry.stderr);
    assert_eq!(tree(h), after, "a dry run writes nothing");

    let undo = sessions(h, &["undo", &id, "--yes"]).await;
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(tree(h), before, "every file and mode as before the turn");

    // Again: nothing further back.
    let again = sessions(h, &["undo", &id, "--yes"]).await;
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stderr.contains("nothing to undo"), "{}", again.stderr);

    let redo = sessions(h, &["redo", &id, "--yes"]).await;
    assert_eq!(redo.code, 0, "{}", redo.stderr);
    assert_eq!(tree(h), after, "redo re-applies the turn");

    // The session's diff: what the turn changed.
    let diff = sessions(h, &["diff", &id, "--turn", "1"]).await;
    assert_eq!(diff.code, 0, "{}", diff.stderr);
    assert!(
        diff.stdout.contains("+++ b/hello.md") && diff.stdout.contains("-old\n+new\n"),
        "{}",
        diff.stdout
    );
}

#[tokio::test]
async fn a_file_changed_since_is_a_conflict_listed_and_never_overwritten() {
    let fx = Fixture::start().await;
    let home = home_with(&fx.base_url(), RULES);
    let h = home.path();
    std::fs::write(h.join("notes.txt"), "keep\nold\n").unwrap();
    let (id, _) = auto_turn(
        &fx,
        h,
        &[
            ("c1", "create_file", json!({"filepath": "hello.md", "content": "# Hello\n"})),
            ("c2", "edit_file", json!({"filepath": "notes.txt", "edits": [{"oldText": "old\n", "newText": "new\n", "replaceAll": null}], "explanation": null})),
        ],
    )
    .await;
    std::fs::write(h.join("notes.txt"), "the user's own\n").unwrap();
    let stop = sessions(h, &["undo", &id, "--yes"]).await;
    assert_eq!(stop.code, 1, "{}", stop.stderr);
    assert!(
        stop.stderr.contains("conflict: notes.txt"),
        "{}",
        stop.stderr
    );
    assert!(
        h.join("hello.md").exists(),
        "with a conflict and no --apply-rest nothing is written"
    );
    let rest = sessions(h, &["undo", &id, "--yes", "--apply-rest"]).await;
    assert_eq!(rest.code, 0, "{}", rest.stderr);
    assert!(!h.join("hello.md").exists(), "the rest is applied");
    assert_eq!(
        std::fs::read_to_string(h.join("notes.txt")).unwrap(),
        "the user's own\n"
    );
}

#[tokio::test]
async fn killed_mid_command_the_pending_checkpoint_still_undoes_it() {
    let fx = Fixture::start().await;
    let home = home_with(&fx.base_url(), RULES);
    let h = home.path();
    std::fs::write(h.join("precious.txt"), "do not lose me\n").unwrap();
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        json!({"cmd": "rm precious.txt && sleep 60"}),
    )]));
    let mut cmd = sayso(h);
    cmd.args([
        "-p",
        "--json",
        "--auto",
        "--allowed-tools",
        "run_command",
        "go",
    ]);
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let mut waited = 0;
    while h.join("precious.txt").exists() {
        assert!(waited < 600, "the command never ran");
        tokio::time::sleep(Duration::from_millis(50)).await;
        waited += 1;
    }
    // SAFETY: a signal to the child we started.
    unsafe { libc::kill(child.id().unwrap() as i32, libc::SIGKILL) };
    let _ = child.wait().await;
    let list: Vec<PathBuf> = std::fs::read_dir(h.join("data/sayso/sessions"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(list.len(), 1);
    let id = list[0].file_stem().unwrap().to_str().unwrap().to_owned();
    let undo = sessions(h, &["undo", &id, "--yes"]).await;
    assert_eq!(undo.code, 0, "{}\n{}", undo.stdout, undo.stderr);
    assert_eq!(
        std::fs::read_to_string(h.join("precious.txt")).unwrap(),
        "do not lose me\n"
    );
}

#[tokio::test]
async fn a_hostile_repository_s_git_config_runs_nothing() {
    let fx = Fixture::start().await;
    let home = home_with(&fx.base_url(), RULES);
    let h = home.path();
    let canaries = tempfile::tempdir().unwrap();
    let c = |n: &str| canaries.path().join(n).display().to_string();
    std::fs::create_dir_all(h.join(".git/hooks")).unwrap();
    std::fs::write(h.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(
        h.join(".git/config"),
        format!(
            "[core]\n\tfsmonitor = touch {}\n\thooksPath = .git/hooks\n\tpager = touch {}\n\
             [filter \"evil\"]\n\tclean = touch {}\n\tsmudge = touch {}\n\tprocess = touch {}\n\
             [diff]\n\texternal = touch {}\n",
            c("fsmonitor"),
            c("pager"),
            c("clean"),
            c("smudge"),
            c("process"),
            c("diff")
        ),
    )
    .unwrap();
    std::fs::write(h.join(".gitattributes"), "* filter=evil diff=evil\n").unwrap();
    for hook in [
        "pre-commit",
        "post-checkout",
        "post-index-change",
        "reference-transaction",
    ] {
        write_mode(
            &h.join(".git/hooks").join(hook),
            format!("#!/bin/sh\ntouch {}\n", c(hook)).as_bytes(),
            0o755,
        );
    }
    std::fs::write(h.join("a.txt"), "one\n").unwrap();
    let (id, _) = auto_turn(
        &fx,
        h,
        &[(
            "c1",
            "run_command",
            json!({"cmd": "sed -i s/one/two/ a.txt"}),
        )],
    )
    .await;
    let undo = sessions(h, &["undo", &id, "--yes"]).await;
    assert_eq!(undo.code, 0, "{}", undo.stderr);
    assert_eq!(std::fs::read_to_string(h.join("a.txt")).unwrap(), "one\n");
    let ran: Vec<_> = std::fs::read_dir(canaries.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        ran.is_empty(),
        "the repository's git config or hooks ran: {ran:?}"
    );
}

/// The store's objects: id → size.
fn objects(h: &Path) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let root = h.join("data/sayso/checkpoints/objects");
    for fan in std::fs::read_dir(&root).unwrap().flatten() {
        for o in std::fs::read_dir(fan.path()).unwrap().flatten() {
            out.insert(
                format!(
                    "{}{}",
                    fan.file_name().to_string_lossy(),
                    o.file_name().to_string_lossy()
                ),
                o.metadata().unwrap().len(),
            );
        }
    }
    out
}

#[tokio::test]
async fn a_ten_thousand_file_tree_with_one_changed_file_stores_one_new_content_object() {
    let fx = Fixture::start().await;
    let home = home_with(&fx.base_url(), RULES);
    let h = home.path();
    for d in 0..100 {
        let dir = h.join(format!("src/d{d:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            std::fs::write(dir.join(format!("f{f:02}.txt")), format!("file {d} {f}\n")).unwrap();
        }
    }
    auto_turn(&fx, h, &[("c1", "run_command", json!({"cmd": "true"}))]).await;
    let first = objects(h);
    assert!(
        first.len() > 10_000,
        "the first snapshot keeps every file once: {}",
        first.len()
    );
    auto_turn(
        &fx,
        h,
        &[(
            "c1",
            "run_command",
            json!({"cmd": "sed -i s/file/FILE/ src/d42/f07.txt"}),
        )],
    )
    .await;
    let second = objects(h);
    let new: Vec<(&String, &u64)> = second
        .iter()
        .filter(|(k, _)| !first.contains_key(*k))
        .collect();
    let changed = {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(b"FILE 42 7\n");
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    assert!(
        new.iter().any(|(k, _)| **k == changed),
        "the new content is stored: {new:?}"
    );
    // The one file's content and the call's manifest; the unchanged tree costs nothing.
    assert_eq!(new.len(), 2, "{new:?}");
    let bytes: u64 = new.iter().map(|(_, s)| **s).sum();
    assert!(bytes < 4096, "{bytes} bytes added");
}
