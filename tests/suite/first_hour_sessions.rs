//! The first hour with sessions and the demo (issue 19, items 5, 6 and the demo half of 16),
//! through the real binary: demo chats continue from the demo's own directory; `sessions list`
//! marks a directory that is gone; ids are told apart by their first characters and an
//! ambiguous start lists its candidates; a resumed chat opens with a banner and warns when it
//! was started elsewhere; `/resume` without an id opens the picker; the demo answers later
//! messages with the tool they ask for.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::json_lines;
use crate::support::sessions::{id_of, session_files, sessions_dir};
use crate::support::tui::Tui;
use crate::support::{Output, run, sayso};

fn records(path: &Path) -> Vec<Value> {
    json_lines(&std::fs::read_to_string(path).unwrap())
}

fn user_texts(path: &Path) -> Vec<String> {
    records(path)
        .iter()
        .filter(|r| r["t"] == "user")
        .map(|r| r["text"].as_str().unwrap().to_owned())
        .collect()
}

/// `sayso ARGS` in `home`.
async fn sayso_in(home: &Path, args: &[&str]) -> Output {
    let mut cmd = sayso(home);
    cmd.args(args);
    run(cmd).await
}

/// A saved session written as sayso writes one: a header, then each (message, reply).
fn write_session(home: &Path, id: &str, cwd: &str, started: &str, turns: &[(&str, &str)]) {
    let dir = sessions_dir(home);
    std::fs::create_dir_all(&dir).unwrap();
    let mut lines = vec![json!({
        "t": "session", "v": 1, "id": id, "cwd": cwd, "model": "sayso-demo",
        "provider": "demo", "started": started, "mode": "balanced"
    })];
    for (message, reply) in turns {
        lines.push(json!({"t": "user", "text": message, "sent": message}));
        lines.push(json!({"t": "text", "s": reply}));
        lines.push(json!({"t": "reply", "message": {
            "content": reply, "reasoning": "", "tool_calls": [], "finish_reason": "stop", "usage": null
        }}));
        lines.push(json!({"t": "turn_end", "end": "completed", "message": null}));
    }
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
}

#[tokio::test]
async fn demo_chats_continue_from_the_demos_own_directory() {
    let h = tempfile::tempdir().unwrap();
    let home = h.path();
    let demo = home.join("cache/sayso/demo");

    let out = sayso_in(home, &["--demo", "--continue", "-p", "x"]).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("no demo chat to continue yet"),
        "{}",
        out.stderr
    );

    let out = sayso_in(home, &["--demo", "--auto", "-p", "hello"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(demo.join("hello.md").is_file(), "{}", out.stderr);
    std::fs::write(demo.join("left-over.txt"), "from the first chat").unwrap();

    // A new demo chat starts from the demo's starting files again.
    let out = sayso_in(home, &["--demo", "--auto", "-p", "second chat"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !demo.join("left-over.txt").exists(),
        "a new demo chat resets"
    );
    assert!(demo.join("notes.md").is_file());
    let files = session_files(home);
    assert_eq!(files.len(), 2, "{files:?}");
    let second = files
        .iter()
        .find(|f| user_texts(f) == ["second chat"])
        .unwrap()
        .clone();
    let demo_cwd = std::fs::canonicalize(&demo).unwrap();
    assert_eq!(records(&second)[0]["cwd"], demo_cwd.display().to_string());

    // --continue takes it up: same file, same directory (kept), the whole history sent.
    std::fs::write(demo.join("kept.txt"), "still here").unwrap();
    let out = sayso_in(home, &["--demo", "--continue", "-p", "and now?"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("resumed session {}", id_of(&second))),
        "{}",
        out.stderr
    );
    assert!(
        demo.join("kept.txt").is_file(),
        "--continue keeps the files"
    );
    assert_eq!(session_files(home).len(), 2, "no new session");
    assert_eq!(user_texts(&second), ["second chat", "and now?"]);
    // The demo saw an earlier message in the request: a later message gets the menu, where a
    // first one would get the tour.
    assert!(out.stdout.contains("“and now?”"), "{}", out.stdout);
    assert!(out.stdout.contains("**run a command**"), "{}", out.stdout);
    assert!(!out.stdout.contains("Welcome to sayso"), "{}", out.stdout);
}

#[tokio::test]
async fn sessions_list_marks_a_directory_that_is_gone_and_rm_gone_removes_them() {
    let h = tempfile::tempdir().unwrap();
    let home = h.path();
    let proj = home.join("proj");
    std::fs::create_dir(&proj).unwrap();
    let proj_arg = proj.display().to_string();
    let out = sayso_in(home, &["--demo", "-C", &proj_arg, "-p", "in the project"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let kept = home.join("kept");
    std::fs::create_dir(&kept).unwrap();
    let kept_arg = kept.display().to_string();
    let out = sayso_in(home, &["--demo", "-C", &kept_arg, "-p", "still here"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    std::fs::remove_dir_all(&proj).unwrap();

    let out = sayso_in(home, &["sessions", "list"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = |text: &str| {
        out.stdout
            .lines()
            .find(|l| l.contains(text))
            .unwrap_or_else(|| panic!("no line with {text}:\n{}", out.stdout))
            .to_owned()
    };
    assert!(
        line("in the project").contains(&format!("{proj_arg} (directory gone)")),
        "{}",
        out.stdout
    );
    assert!(
        !line("still here").contains("(directory gone)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("sayso sessions rm --gone"),
        "{}",
        out.stdout
    );

    let out = sayso_in(home, &["sessions", "rm", "--gone"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let left = session_files(home);
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(user_texts(&left[0]), ["still here"]);
}

#[tokio::test]
async fn an_ambiguous_id_lists_its_candidates_and_exits_2() {
    let h = tempfile::tempdir().unwrap();
    let home = h.path();
    // Two sessions of an older version: time-first ids that share their start.
    write_session(
        home,
        "0tpc1aa-abc",
        "/p/one",
        "2026-11-30T08:30:00Z",
        &[("the first question", "a")],
    );
    write_session(
        home,
        "0tpc1ab-xyz",
        "/p/two",
        "2026-11-30T09:45:00Z",
        &[("the second question", "b")],
    );
    for args in [
        &["--demo", "-p", "--resume", "0tpc", "more"][..],
        &["sessions", "show", "0tpc"][..],
    ] {
        let out = sayso_in(home, args).await;
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("`0tpc` matches 2 sessions; give more of the id:"),
            "{}",
            out.stderr
        );
        for candidate in [
            "0tpc1ab-xyz  2026-11-30 09:45  /p/two (directory gone)  the second question",
            "0tpc1aa-abc  2026-11-30 08:30  /p/one (directory gone)  the first question",
        ] {
            assert!(out.stderr.contains(candidate), "{}", out.stderr);
        }
        assert!(out.stdout.is_empty(), "{}", out.stdout);
    }
    // More of the id picks one; old ids stay resolvable.
    let out = sayso_in(home, &["sessions", "show", "0tpc1aa"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("the first question"), "{}", out.stdout);
}

#[tokio::test]
async fn new_ids_differ_in_the_characters_a_user_types() {
    let h = tempfile::tempdir().unwrap();
    let home = h.path();
    for text in ["one", "two"] {
        let out = sayso_in(home, &["--demo", "-p", text]).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let ids: Vec<String> = session_files(home).iter().map(|f| id_of(f)).collect();
    assert_eq!(ids.len(), 2);
    assert_ne!(
        ids[0][..4],
        ids[1][..4],
        "two sessions a moment apart share their start: {ids:?}"
    );
    // Four characters are enough to resume each.
    for id in &ids {
        let out = sayso_in(home, &["--demo", "-p", "--resume", &id[..4], "more"]).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stderr.contains(&format!("resumed session {id}")),
            "{}",
            out.stderr
        );
    }
}

#[tokio::test]
async fn resuming_prints_a_banner_and_warns_about_another_directory() {
    let h = tempfile::tempdir().unwrap();
    let home = h.path();
    let (a, b) = (home.join("a"), home.join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let a = std::fs::canonicalize(a).unwrap().display().to_string();
    let b = std::fs::canonicalize(b).unwrap().display().to_string();
    let out = sayso_in(home, &["--demo", "-C", &a, "-p", "hello"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let file = session_files(home).remove(0);
    let id = id_of(&file);
    let started = records(&file)[0]["started"].as_str().unwrap()[..16].replace('T', " ");

    // In its own directory: the banner, no warning. The tour was one message and two replies.
    let out = sayso_in(home, &["--demo", "-C", &a, "-p", "--continue", "more"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let banner = format!("sayso: resumed session {id} · started {started} UTC · {a} · 3 messages");
    assert!(out.stderr.contains(&banner), "{banner}\n{}", out.stderr);
    assert!(!out.stderr.contains("started in"), "{}", out.stderr);

    // Elsewhere: the warning says where it was started and where tools now work.
    let out = sayso_in(
        home,
        &["--demo", "-C", &b, "-p", "--json", "--resume", &id, "again"],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let notices: Vec<String> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "notice")
        .map(|e| e["message"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        notices[..2],
        [
            format!("resumed session {id} · started {started} UTC · {a} · 5 messages"),
            format!(
                "warning: this session was started in {a}, not here: its tools now work in {b}"
            ),
        ],
        "{}",
        out.stdout
    );
}

#[tokio::test]
async fn resume_without_an_id_opens_the_picker_and_the_chosen_one_opens_with_its_banner() {
    let tui = Tui::start("http://127.0.0.1:9/v1", &["--demo"]);
    tui.ready().await;
    let home = tui.root_path().to_path_buf();
    write_session(
        &home,
        "a1b2-0tpc1aa",
        "/p/older",
        "2026-11-30T08:30:00Z",
        &[("an older question", "old answer")],
    );
    write_session(
        &home,
        "c3d4-0tpc1bb",
        "/p/newer",
        "2026-11-30T09:45:00Z",
        &[
            ("the newer question", "new answer"),
            ("and a follow-up", "done"),
        ],
    );
    tui.type_text("/resume");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Sessions (2)").await;
    let newer = screen
        .find("c3d4  2026-11-30 09:45  /p/newer (directory gone)  4 msgs  the newer question")
        .unwrap_or_else(|| panic!("{screen}"));
    let older = screen
        .find("a1b2  2026-11-30 08:30  /p/older (directory gone)  2 msgs  an older question")
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(newer < older, "newest first:\n{screen}");
    tui.keys(&["Enter"]);
    let screen = tui
        .wait_for(
            "resumed session c3d4-0tpc1bb · started 2026-11-30 09:45 UTC · /p/newer · 4 messages",
        )
        .await;
    assert!(screen.contains("and a follow-up"), "{screen}");
    let work = std::fs::canonicalize(tui.work()).unwrap();
    // The warning may wrap; its start and the directory it names are on screen.
    assert!(
        screen.contains("warning: this session was started in /p/newer (which no longer"),
        "{screen}"
    );
    assert!(
        screen
            .replace('\n', "")
            .contains(&work.display().to_string()),
        "{screen}"
    );
}

/// Waits until `text` is on screen and the turn is over (the idle footer is back).
async fn after_turn(tui: &Tui, text: &str) -> String {
    tui.wait_until(&format!("{text:?} and the idle footer"), |s| {
        s.contains(text) && s.contains("Enter send")
    })
    .await
}

#[tokio::test]
async fn the_demo_answers_run_a_command_with_a_command_to_approve() {
    let tui = Tui::start("http://127.0.0.1:9/v1", &["--demo", "--auto"]);
    tui.ready().await;
    tui.send("hello").await;
    after_turn(&tui, "Try next").await;
    // In balanced mode the command asks, through the modal.
    tui.send("/mode balanced").await;
    tui.wait_for("BALANCED mode").await;
    tui.send("run a command").await;
    let screen = tui.wait_for_modal("ls -la && date").await;
    assert!(screen.contains("Approval needed"), "{screen}");
    tui.keys(&["Enter"]);
    after_turn(&tui, "ls -la && date ran").await;
    // Anything else gets the menu, with what to try.
    tui.send("what is the weather like?").await;
    let screen = after_turn(&tui, "Connect a real model to get real answers").await;
    assert!(
        screen.contains("ask me a question") && screen.contains("edit a file"),
        "{screen}"
    );
}
