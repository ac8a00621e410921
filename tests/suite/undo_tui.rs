//! `/undo`, `/redo` and `/rewind` end to end: the real binary in a tmux pane against the
//! fixture server, the files checked byte for byte, the next request's body read from what
//! the server recorded, the sessions read from their files and resumed by the binary.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::sessions::{id_of, session_files};
use crate::support::tui::Tui;
use crate::support::{run, sayso};

/// Waits until `text` is on screen and the turn is over (the idle footer is back).
async fn after_turn(tui: &Tui, text: &str) -> String {
    tui.wait_until(&format!("{text:?} and the idle footer"), |s| {
        s.contains(text) && s.contains("Enter send")
    })
    .await
}

fn records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// (role, content) of each message of a request body but the system prompt.
fn conversation(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn user_texts(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .filter(|r| r["t"] == "user")
        .map(|r| r["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

/// Two turns: "first question" → "answer one", "second question" → "answer two".
async fn two_turns(fx: &Fixture) -> Tui {
    fx.push(Reply::Stream(sse::text_reply(&["answer one"])));
    fx.push(Reply::Stream(sse::text_reply(&["answer two"])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("first question").await;
    after_turn(&tui, "answer one").await;
    tui.send("second question").await;
    after_turn(&tui, "answer two").await;
    tui
}

fn sessions(home: &Path) -> Vec<PathBuf> {
    session_files(home)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_conversation_only_forks_the_session_and_the_next_request_is_rewound() {
    let fx = Fixture::start().await;
    let tui = two_turns(&fx).await;
    let home = tui.root_path().to_path_buf();
    let old = sessions(&home);
    assert_eq!(old.len(), 1, "{old:?}");

    tui.type_text("/rewind");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Rewind to before which message?").await;
    assert!(screen.contains("1  first question"), "{screen}");
    assert!(screen.contains("2  second question"), "{screen}");
    // The last message is selected: Enter, then the conversation only.
    tui.keys(&["Enter"]);
    tui.wait_for("Restore conversation only").await;
    tui.keys(&["2"]);
    let screen = tui.wait_for("rewound to before message 2").await;
    assert!(!screen.contains("answer two"), "{screen}");
    assert!(screen.contains("answer one"), "{screen}");

    // The message is back in the input: edited, then sent.
    fx.push(Reply::Stream(sse::text_reply(&["answer three"])));
    tui.type_text(" (edited)");
    tui.wait_for("second question (edited)").await;
    tui.keys(&["Enter"]);
    after_turn(&tui, "answer three").await;
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        conversation(&reqs[2].body),
        pairs(&[
            ("user", "first question"),
            ("assistant", "answer one"),
            ("user", "second question (edited)"),
        ])
    );

    // Two sessions now: the old one as it was, the fork naming it.
    let files = sessions(&home);
    assert_eq!(files.len(), 2, "{files:?}");
    let old_id = id_of(&old[0]);
    let fork = files.iter().find(|f| **f != old[0]).unwrap();
    let fork_records = records(fork);
    assert_eq!(fork_records[0]["parent"], old_id.as_str());
    assert_eq!(
        user_texts(&records(&old[0])),
        ["first question", "second question"]
    );
    assert_eq!(
        user_texts(&fork_records),
        ["first question", "second question (edited)"]
    );

    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());

    // `sayso sessions list` shows both; the old one resumes with its whole history.
    let mut list = sayso(&home);
    list.args(["sessions", "list"]);
    let out = run(list).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    for f in &files {
        let id = id_of(f);
        assert!(out.stdout.contains(&id[..4]), "{id}: {}", out.stdout);
    }
    fx.push(Reply::Stream(sse::text_reply(&["back in the old one"])));
    let mut resume = sayso(&home);
    resume.args(["-p", "--resume", &old_id, "and then?"]);
    let out = run(resume).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("back in the old one"), "{}", out.stdout);
    let reqs = fx.requests();
    assert_eq!(
        conversation(&reqs[3].body),
        pairs(&[
            ("user", "first question"),
            ("assistant", "answer one"),
            ("user", "second question"),
            ("assistant", "answer two"),
            ("user", "and then?"),
        ])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_backs_out_of_the_rewind_picker_and_nothing_changes() {
    let fx = Fixture::start().await;
    let tui = two_turns(&fx).await;
    tui.type_text("/rewind");
    tui.keys(&["Enter"]);
    tui.wait_for("Rewind to before which message?").await;
    tui.keys(&["Enter"]);
    tui.wait_for("Restore code only").await;
    // Esc goes back to the list, a second Esc closes it: nothing changed.
    tui.keys(&["Escape"]);
    tui.wait_for("Rewind to before which message?").await;
    tui.keys(&["Escape"]);
    let screen = tui
        .wait_until("the picker closed", |s| {
            !s.contains("Rewind to before") && s.contains("Enter send")
        })
        .await;
    assert!(screen.contains("answer two"), "{screen}");
    assert_eq!(sessions(tui.root_path()).len(), 1);
}

/// Sends `text` and accepts every approval the turn asks for, until `done` is on screen and
/// the turn is over.
async fn turn_accepting(tui: &Tui, text: &str, done: &str) -> String {
    tui.send(text).await;
    loop {
        let screen = tui
            .wait_until(&format!("a modal or {done:?}"), |s| {
                s.contains("Approval needed") || (s.contains(done) && s.contains("Enter send"))
            })
            .await;
        if !screen.contains("Approval needed") {
            return screen;
        }
        let modal = tui.wait_for_modal("Approval needed").await;
        tui.keys(&["Enter"]);
        tui.wait_until("the modal answered", |s| s != modal).await;
    }
}

/// The judge's answer (auto mode asks it about a command that is not safe-listed).
fn judge_says_safe() -> Reply {
    Reply::Json(
        serde_json::json!({"choices": [{"message": {"role": "assistant",
        "content": "{\"safe\": true, \"reason\": \"edits files in the project\"}"},
        "finish_reason": "stop"}]}),
    )
}

/// Runs a slash command and waits for the undo view it opens.
async fn undo_view(tui: &Tui, command: &str) -> String {
    tui.type_text(command);
    tui.wait_for(command).await;
    tui.keys(&["Enter"]);
    let screen = tui
        .wait_until("the undo view", |s| {
            s.contains(" Undo — ") || s.contains(" Redo — ")
        })
        .await;
    // The view reads first (as the approval modal does), then a key answers it.
    tokio::time::sleep(crate::support::tui::MODAL_READ).await;
    screen
}

/// Each file's bytes and permission bits (`None`: missing).
/// A file's bytes and permission bits; `None`: missing.
type Image = Option<(Vec<u8>, u32)>;

fn image(dir: &Path, names: &[&str]) -> Vec<(String, Image)> {
    use std::os::unix::fs::PermissionsExt;
    names
        .iter()
        .map(|n| {
            let p = dir.join(n);
            let got = std::fs::symlink_metadata(&p)
                .ok()
                .map(|m| (std::fs::read(&p).unwrap(), m.permissions().mode() & 0o7777));
            ((*n).to_owned(), got)
        })
        .collect()
}

fn write_mode(path: &Path, text: &str, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn edit(path: &str, old: &str, new: &str) -> Value {
    serde_json::json!({
        "filepath": path,
        "edits": [{"oldText": old, "newText": new, "replaceAll": null}],
        "explanation": null
    })
}

fn last_user(body: &Value) -> String {
    conversation(body)
        .into_iter()
        .rev()
        .find(|(role, _)| role == "user")
        .map(|(_, c)| c)
        .unwrap_or_default()
}

const FILES: &[&str] = &["edit.txt", "new.txt", "del.txt", "gone.sh", "sed.txt"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_restores_every_file_byte_for_byte_and_redo_puts_the_changes_back() {
    use crate::support::fixture::sse::tool_call_reply as calls;
    let fx = Fixture::start().await;
    fx.push(calls(&[
        ("e1", "edit_file", edit("edit.txt", "line two", "line 2")),
        (
            "c1",
            "create_file",
            serde_json::json!({"filepath": "new.txt", "content": "brand new\n"}),
        ),
        (
            "d1",
            "delete_file",
            serde_json::json!({"filepath": "del.txt"}),
        ),
        (
            "r1",
            "run_command",
            serde_json::json!({"cmd": "rm gone.sh && sed -i s/hello/bye/ sed.txt", "flag": null}),
        ),
    ]));
    fx.push(judge_says_safe());

    fx.push(Reply::Stream(sse::text_reply(&["All four done."])));
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    tui.ready().await;
    let work = tui.work();
    write_mode(&work.join("edit.txt"), "line one\nline two\n", 0o644);
    write_mode(&work.join("del.txt"), "to delete\n", 0o600);
    write_mode(&work.join("gone.sh"), "#!/bin/sh\necho hi\n", 0o755);
    write_mode(&work.join("sed.txt"), "hello world\n", 0o640);
    let before = image(&work, FILES);
    turn_accepting(&tui, "change them all", "All four done.").await;
    let after = image(&work, FILES);
    assert_eq!(after[1].1.as_ref().unwrap().0, b"brand new\n");
    for (i, name) in FILES.iter().enumerate() {
        assert_ne!(before[i], after[i], "{name} did not change");
    }

    let screen = undo_view(&tui, "/undo").await;
    assert!(
        screen.contains("Undo the file changes of turn 1"),
        "{screen}"
    );
    for name in FILES {
        assert!(
            screen.contains(&format!("writes  {name}")),
            "{name}:\n{screen}"
        );
    }
    assert!(screen.contains("y apply · n cancel"), "{screen}");
    // Asked, not done yet.
    assert_eq!(image(&work, FILES), after);
    tui.keys(&["y"]);
    tui.wait_for("undid the file changes of turn 1").await;
    assert_eq!(image(&work, FILES), before);

    let screen = undo_view(&tui, "/redo").await;
    assert!(
        screen.contains("Redo the file changes of turn 1"),
        "{screen}"
    );
    tui.keys(&["y"]);
    tui.wait_for("re-applied the file changes of turn 1").await;
    assert_eq!(image(&work, FILES), after);

    // The model is told, with the next message, what happened to its edits.
    fx.push(Reply::Stream(sse::text_reply(&["Noted."])));
    tui.send("what now?").await;
    after_turn(&tui, "Noted.").await;
    let reqs = fx.requests();
    let sent = last_user(&reqs.last().unwrap().body);
    assert!(
        sent.starts_with("[sayso: the user undid the file changes of turn 1: "),
        "{sent}"
    );
    assert!(
        sent.contains("\n[sayso: the user re-applied the file changes of turn 1: "),
        "{sent}"
    );
    for name in FILES {
        assert!(sent.contains(name), "{name}: {sent}");
    }
    assert!(sent.ends_with("\n\nwhat now?"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undo_never_overwrites_a_file_changed_since_and_applies_the_rest_when_asked() {
    use crate::support::fixture::sse::tool_call_reply as calls;
    let fx = Fixture::start().await;
    fx.push(calls(&[
        ("e1", "edit_file", edit("a.txt", "a", "A by sayso")),
        ("e2", "edit_file", edit("b.txt", "b", "B by sayso")),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["Edited both."])));
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    tui.ready().await;
    let work = tui.work();
    std::fs::write(work.join("a.txt"), "a\n").unwrap();
    std::fs::write(work.join("b.txt"), "b\n").unwrap();
    turn_accepting(&tui, "edit both", "Edited both.").await;
    // The user changes b.txt after sayso did.
    std::fs::write(work.join("b.txt"), "the user's own\n").unwrap();

    let screen = undo_view(&tui, "/undo").await;
    assert!(screen.contains("writes  a.txt"), "{screen}");
    assert!(screen.contains("keeps   b.txt  (edited since)"), "{screen}");
    assert!(screen.contains("a apply the rest · s stop"), "{screen}");
    // Enter and y choose nothing here; s stops: nothing written.
    tui.keys(&["Enter"]);
    tui.keys(&["y"]);
    tui.keys(&["s"]);
    tui.wait_for("nothing was changed").await;
    assert_eq!(
        std::fs::read_to_string(work.join("a.txt")).unwrap(),
        "A by sayso\n"
    );
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "the user's own\n"
    );

    undo_view(&tui, "/undo").await;
    tui.keys(&["a"]);
    let screen = tui.wait_for("undid the file changes of turn 1").await;
    assert!(
        screen.contains("left as they are (changed since sayso's change): b.txt"),
        "{screen}"
    );
    assert_eq!(std::fs::read_to_string(work.join("a.txt")).unwrap(), "a\n");
    assert_eq!(
        std::fs::read_to_string(work.join("b.txt")).unwrap(),
        "the user's own\n"
    );
}

/// Two turns that each change files: "make one" creates one.txt; "make two" creates two.txt
/// and edits one.txt.
async fn two_editing_turns(fx: &Fixture) -> Tui {
    use crate::support::fixture::sse::tool_call_reply as calls;
    fx.push(calls(&[(
        "c1",
        "create_file",
        serde_json::json!({"filepath": "one.txt", "content": "one\n"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["made one"])));
    fx.push(calls(&[
        (
            "c2",
            "create_file",
            serde_json::json!({"filepath": "two.txt", "content": "two\n"}),
        ),
        ("e2", "edit_file", edit("one.txt", "one", "one, edited")),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["made two"])));
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    tui.ready().await;
    turn_accepting(&tui, "make one", "made one").await;
    turn_accepting(&tui, "make two", "made two").await;
    assert_eq!(
        std::fs::read_to_string(tui.work().join("one.txt")).unwrap(),
        "one, edited\n"
    );
    tui
}

/// Opens `/rewind`, picks the last message and the choice `key` (1, 2 or 3).
async fn rewind_last(tui: &Tui, key: &str) {
    tui.type_text("/rewind");
    tui.wait_for("/rewind").await;
    tui.keys(&["Enter"]);
    tui.wait_for("Rewind to before which message?").await;
    tui.keys(&["Enter"]);
    tui.wait_for("Restore code and conversation").await;
    tui.keys(&[key]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_code_and_conversation_restores_both_and_the_next_request_is_rewound() {
    let fx = Fixture::start().await;
    let tui = two_editing_turns(&fx).await;
    rewind_last(&tui, "1").await;
    let screen = tui.wait_for("(rewind to before message 2)").await;
    assert!(screen.contains("writes  two.txt"), "{screen}");
    assert!(screen.contains("writes  one.txt"), "{screen}");
    tokio::time::sleep(crate::support::tui::MODAL_READ).await;
    tui.keys(&["y"]);
    let screen = tui.wait_for("rewound to before message 2").await;
    assert!(!screen.contains("made two"), "{screen}");
    let work = tui.work();
    assert!(!work.join("two.txt").exists());
    assert_eq!(
        std::fs::read_to_string(work.join("one.txt")).unwrap(),
        "one\n"
    );
    // The message is back in the input; sent again, the request has the rewound history and
    // no note (the files and the conversation went back together).
    tui.wait_until("the message back in the input", |s| {
        s.lines().any(|l| l.trim() == "make two")
    })
    .await;
    fx.push(Reply::Stream(sse::text_reply(&["again"])));
    tui.keys(&["Enter"]);
    after_turn(&tui, "again").await;
    let reqs = fx.requests();
    let conv = conversation(&reqs.last().unwrap().body);
    assert_eq!(
        conv.last().unwrap(),
        &("user".to_owned(), "make two".to_owned())
    );
    assert!(
        !conv.iter().any(|(_, c)| c.contains("made two")),
        "{conv:?}"
    );
    assert!(!conv.iter().any(|(_, c)| c.contains("[sayso:")), "{conv:?}");
    assert_eq!(sessions(tui.root_path()).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rewind_code_only_keeps_the_conversation_and_tells_the_model() {
    let fx = Fixture::start().await;
    let tui = two_editing_turns(&fx).await;
    rewind_last(&tui, "3").await;
    tui.wait_for("(rewind to before message 2)").await;
    tokio::time::sleep(crate::support::tui::MODAL_READ).await;
    tui.keys(&["y"]);
    let screen = tui.wait_for("undid the file changes of turn 2").await;
    assert!(screen.contains("made two"), "{screen}");
    let work = tui.work();
    assert!(!work.join("two.txt").exists());
    assert_eq!(
        std::fs::read_to_string(work.join("one.txt")).unwrap(),
        "one\n"
    );
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    tui.send("and now?").await;
    after_turn(&tui, "ok").await;
    let reqs = fx.requests();
    let conv = conversation(&reqs.last().unwrap().body);
    assert!(conv.iter().any(|(_, c)| c == "made two"), "{conv:?}");
    let sent = last_user(&reqs.last().unwrap().body);
    assert!(
        sent.starts_with("[sayso: the user undid the file changes of turn 2: "),
        "{sent}"
    );
    assert_eq!(sessions(tui.root_path()).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_kill_9_mid_turn_the_resumed_chat_undoes_what_the_command_did() {
    use crate::support::fixture::sse::tool_call_reply as calls;
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "r1",
        "run_command",
        serde_json::json!({"cmd": "sed -i s/kept/changed/ f.txt && sleep 8", "flag": null}),
    )]));
    fx.push(judge_says_safe());
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    tui.ready().await;
    let work = tui.work();
    std::fs::write(work.join("f.txt"), "kept\n").unwrap();
    tui.send("change it slowly").await;
    // The command has changed the file and sleeps when sayso is killed.
    let start = std::time::Instant::now();
    while std::fs::read_to_string(work.join("f.txt")).unwrap() != "changed\n" {
        assert!(
            start.elapsed() < crate::support::tui::WAIT,
            "{}",
            tui.screen()
        );
        tokio::time::sleep(crate::support::tui::POLL).await;
    }
    assert!(!tui.screen().contains("· done"), "{}", tui.screen());
    assert_eq!(
        std::fs::read_to_string(work.join("f.txt")).unwrap(),
        "changed\n"
    );
    let pid = tui.sayso_pid();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    tui.wait_for("EXITED:").await;

    let tui = tui.restart(&["--auto", "--continue"]);
    tui.wait_for("resumed session").await;
    let screen = undo_view(&tui, "/undo").await;
    assert!(screen.contains("writes  f.txt"), "{screen}");
    tui.keys(&["y"]);
    tui.wait_for("undid the file changes of turn 1").await;
    assert_eq!(
        std::fs::read_to_string(tui.work().join("f.txt")).unwrap(),
        "kept\n"
    );
}
