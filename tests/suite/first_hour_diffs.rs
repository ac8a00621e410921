//! Issue 19 item 2: an applied edit shows what it changed. Every `create_file`, `edit_file` and
//! `delete_file` that lands keeps its diff in its tool block (whatever the approval mode, and
//! after `--continue`), `/diff` sums up the chat's changes per file, and headless runs print
//! the diff (text: on stderr; `--json`: a `file_changed` event). Before, the block said only
//! "Edited FILE (+1 −1)" or "Created FILE (2 lines)".

use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::Tui;
use crate::support::{home_with, run, sayso};

const GREET: &str = "def greet():\n    return 'hello'\n";

fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({
        "filepath": path,
        "edits": [{"oldText": old, "newText": new, "replaceAll": null}],
        "explanation": null
    })
}

/// The model edits `greet.py` and creates `notes.md` in one reply, then says "Both done.".
fn script_edit_and_create(fx: &Fixture) {
    fx.push(calls(&[
        (
            "e1",
            "edit_file",
            edit("greet.py", "'hello'", "'hello, world'"),
        ),
        (
            "c1",
            "create_file",
            json!({"filepath": "notes.md", "content": "first line\nsecond line\n"}),
        ),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["Both done."])));
}

/// What the edit and the create of [`script_edit_and_create`] must show.
fn assert_both_diffs(screen: &str) {
    for line in [
        "-    return 'hello'",
        "+    return 'hello, world'",
        "+first line",
        "+second line",
    ] {
        assert!(screen.contains(line), "no `{line}` on screen:\n{screen}");
    }
}

/// `--auto`: the edits land unasked, and each block shows its diff (the create its lines).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_edits_show_their_diff_and_a_create_its_lines_in_the_block() {
    let fx = Fixture::start().await;
    script_edit_and_create(&fx);
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    tui.ready().await;
    std::fs::write(tui.work().join("greet.py"), GREET).unwrap();
    tui.send("greet the world and take notes").await;
    let screen = tui.wait_for("Both done.").await;
    assert_both_diffs(&screen);
    assert!(screen.contains("Edited greet.py (+1 −1)"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(tui.work().join("greet.py")).unwrap(),
        "def greet():\n    return 'hello, world'\n"
    );
}

/// In a mode that asks, the diff stays in the block after the modal that showed it is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approved_edit_keeps_its_diff_in_the_block_after_the_modal() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "e1",
        "edit_file",
        edit("greet.py", "'hello'", "'hi there'"),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Edited it."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    std::fs::write(tui.work().join("greet.py"), GREET).unwrap();
    tui.send("shorter greeting").await;
    tui.wait_for_modal("Approval needed").await;
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Edited it.").await;
    assert!(!screen.contains("Approval needed"), "{screen}");
    assert!(screen.contains("-    return 'hello'"), "{screen}");
    assert!(screen.contains("+    return 'hi there'"), "{screen}");
}

/// `/diff`: "no changes yet" before any, then each file once, its edits summed up into one
/// diff from before the chat's first edit; a deleted file shows the lines it lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_diff_sums_up_the_chats_changes_per_file() {
    let fx = Fixture::start().await;
    fx.push(calls(&[
        ("e1", "edit_file", edit("greet.py", "'hello'", "'hi'")),
        (
            "e2",
            "edit_file",
            edit("greet.py", "def greet", "def salute"),
        ),
        ("d1", "delete_file", json!({"filepath": "old.txt"})),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["Renamed and cleaned."])));
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    tui.ready().await;
    std::fs::write(tui.work().join("greet.py"), GREET).unwrap();
    std::fs::write(tui.work().join("old.txt"), "stale note\n").unwrap();
    tui.send("/diff").await;
    tui.wait_for("no changes yet").await;

    tui.send("rename it and clean up").await;
    // `delete_file` asks even in auto mode (`protect`).
    tui.wait_for_modal("Approval needed").await;
    tui.keys(&["Enter"]);
    tui.wait_for("Renamed and cleaned.").await;
    tui.send("/diff").await;
    let screen = tui.wait_for("changed by sayso's file tools").await;
    let shown = &screen[screen.find("changed by sayso's file tools").unwrap()..];
    assert!(
        shown.contains("greet.py — edited (+2 −2; 2 changes summed up)"),
        "{shown}"
    );
    // One hunk from the file before the chat to the file now.
    let combined = [
        "-def greet():",
        "-    return 'hello'",
        "+def salute():",
        "+    return 'hi'",
    ];
    let at: Vec<usize> = combined
        .iter()
        .map(|l| {
            shown
                .find(l)
                .unwrap_or_else(|| panic!("no `{l}` in /diff:\n{shown}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{shown}");
    assert!(shown.contains("old.txt — deleted (−1)"), "{shown}");
    assert!(shown.contains("-stale note"), "{shown}");
}

/// The diffs are in the session: `--continue` shows them again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_chat_still_shows_the_diffs() {
    let fx = Fixture::start().await;
    script_edit_and_create(&fx);
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    tui.ready().await;
    std::fs::write(tui.work().join("greet.py"), GREET).unwrap();
    tui.send("greet the world and take notes").await;
    assert_both_diffs(&tui.wait_for("Both done.").await);

    let tui = tui.restart(&["--continue"]);
    let screen = tui.wait_for("Both done.").await;
    assert_both_diffs(&screen);
}

/// Headless `--auto -p`: what landed is printed as a unified diff on stderr; stdout keeps only
/// the reply.
#[tokio::test]
async fn a_headless_auto_run_prints_the_diffs_on_stderr() {
    let fx = Fixture::start().await;
    script_edit_and_create(&fx);
    let h = home_with(&fx.base_url(), "");
    std::fs::write(h.path().join("greet.py"), GREET).unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["--auto", "-p", "greet the world and take notes"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Both done.\n");
    let err = &out.stderr;
    for block in [
        "sayso: Edited greet.py (+1 −1):\n--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,2 @@\n def greet():\n-    return 'hello'\n+    return 'hello, world'\n",
        "sayso: Created notes.md (+2):\n--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+first line\n+second line\n",
    ] {
        assert!(err.contains(block), "no\n{block}\nin:\n{err}");
    }
}

/// Headless `--json`: each applied change is a `file_changed` event with its diff.
#[tokio::test]
async fn a_json_run_reports_each_change_with_its_diff() {
    let fx = Fixture::start().await;
    script_edit_and_create(&fx);
    let h = home_with(&fx.base_url(), "");
    std::fs::write(h.path().join("greet.py"), GREET).unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["--auto", "--json", "-p", "greet the world and take notes"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let changes: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "file_changed")
        .collect();
    assert_eq!(
        changes,
        [
            json!({"type": "file_changed", "call_id": "e1", "name": "edit_file",
                   "path": "greet.py", "kind": "edited", "added": 1, "removed": 1,
                   "truncated": false,
                   "diff": "--- a/greet.py\n+++ b/greet.py\n@@ -1,2 +1,2 @@\n def greet():\n-    return 'hello'\n+    return 'hello, world'\n"}),
            json!({"type": "file_changed", "call_id": "c1", "name": "create_file",
                   "path": "notes.md", "kind": "created", "added": 2, "removed": 0,
                   "truncated": false,
                   "diff": "--- a/notes.md\n+++ b/notes.md\n@@ -0,0 +1,2 @@\n+first line\n+second line\n"}),
        ]
    );
}
