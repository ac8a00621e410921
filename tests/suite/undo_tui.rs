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
