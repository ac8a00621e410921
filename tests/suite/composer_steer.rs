//! Type ahead and steer (issue 23, item 1), end to end: messages typed in tmux during a
//! streaming reply and during a tool batch reach the model once, in order, right after the
//! batch's tool results in the same request; one typed during a reply without calls starts
//! the next turn; Esc puts queued messages back into the input; a headless `user_message`
//! line on stdin (`--approvals stdio`) steers the run. Asserted on the fixture's request
//! bodies.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::support::controller::{self, Script, response};
use crate::support::fixture::sse::tool_call_reply;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::home_with;
use crate::support::tui::{Tui, has_line};

/// The (role, content) of each message of a request.
fn messages(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// How many times a user message `text` was sent across all requests, counting each once
/// per request it first appears in (a later request repeats the history).
fn user_at(body: &Value, text: &str) -> Vec<usize> {
    messages(body)
        .iter()
        .enumerate()
        .filter(|(_, (r, c))| r == "user" && c == text)
        .map(|(i, _)| i)
        .collect()
}

/// A reply that calls `run_command` with `cmd`, held at `gate` after its first chunk (the
/// reply is streaming there).
fn held_call(gate: &Arc<Notify>, cmd: &str) -> Reply {
    let Reply::Stream(mut steps) =
        tool_call_reply(&[("c1", "run_command", json!({"cmd": cmd, "flag": null}))])
    else {
        unreachable!("a tool call reply streams")
    };
    steps.insert(0, Step::Bytes(sse::text("Looking.")));
    steps.insert(1, Step::Gate(gate.clone()));
    Reply::Stream(steps)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_typed_during_a_reply_and_a_batch_follow_the_tool_results_once_in_order() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    // The command waits for a file the test writes once the second message is queued.
    fx.push(held_call(
        &gate,
        "until test -e go; do sleep 0.05; done; echo ran",
    ));
    fx.push(Reply::Stream(sse::text_reply(&["Noted both."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("work").await;
    tui.wait_for("Looking.").await;
    // During the streaming reply.
    tui.send("first steer").await;
    tui.wait_for("↳ first steer").await;
    gate.notify_one();
    tui.wait_for_modal("Approval needed").await;
    tui.keys(&["y"]);
    // During the batch.
    tui.wait_until("the command running", |s| !s.contains("Approval needed"))
        .await;
    tui.send("second steer").await;
    tui.wait_for("↳ second steer").await;
    assert_eq!(fx.requests().len(), 1, "nothing sent before the batch ends");
    std::fs::write(tui.work().join("go"), "").unwrap();
    tui.wait_for("Noted both.").await;
    let reqs = fx.requests();
    assert_eq!(
        reqs.len(),
        2,
        "no extra turn: both joined the second request"
    );
    assert!(user_at(&reqs[0].body, "first steer").is_empty());
    let m = messages(&reqs[1].body);
    let first = user_at(&reqs[1].body, "first steer");
    let second = user_at(&reqs[1].body, "second steer");
    assert_eq!((first.len(), second.len()), (1, 1), "once each: {m:?}");
    assert_eq!(
        m[first[0] - 1].0,
        "tool",
        "right after the tool result: {m:?}"
    );
    assert!(m[first[0] - 1].1.contains("ran"), "{m:?}");
    assert_eq!(second[0], first[0] + 1, "in order: {m:?}");
    assert_eq!(
        first[0] + 2,
        m.len(),
        "the last messages of the request: {m:?}"
    );
    let screen = tui
        .wait_until("the queue to empty", |s| !s.contains("↳ "))
        .await;
    assert!(
        screen.contains("second steer"),
        "in the transcript:\n{screen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_typed_during_a_reply_without_calls_is_the_next_turn_at_once() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    let mut held = vec![Step::Bytes(sse::text("Thinking."))];
    held.push(Step::Gate(gate.clone()));
    held.extend(sse::text_reply(&[" Done."]));
    fx.push(Reply::Stream(held));
    fx.push(Reply::Stream(sse::text_reply(&["Second turn."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("work").await;
    tui.wait_for("Thinking.").await;
    tui.send("and then this").await;
    tui.wait_for("↳ and then this").await;
    gate.notify_one();
    tui.wait_for("Second turn.").await;
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 2);
    let m = messages(&reqs[1].body);
    assert_eq!(
        m.last(),
        Some(&("user".into(), "and then this".into())),
        "{m:?}"
    );
    assert_eq!(user_at(&reqs[1].body, "and then this").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_puts_the_queued_messages_back_into_the_input() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    let mut held = vec![Step::Bytes(sse::text("Thinking."))];
    held.push(Step::Gate(gate.clone()));
    held.extend(sse::text_reply(&[" Done."]));
    fx.push(Reply::Stream(held));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("work").await;
    tui.wait_for("Thinking.").await;
    tui.send("queued one").await;
    tui.wait_for("↳ queued one").await;
    tui.send("queued two").await;
    tui.wait_for("↳ queued two").await;
    tui.keys(&["Escape"]);
    let screen = tui
        .wait_until("the queued messages back in the input", |s| {
            has_line(s, "queued one") && has_line(s, "queued two") && !s.contains("↳ ")
        })
        .await;
    assert!(screen.contains("interrupted"), "{screen}");
    assert_eq!(fx.requests().len(), 1, "neither was sent");
}

#[tokio::test]
async fn a_headless_user_message_line_steers_after_the_tool_results() {
    let fx = Fixture::start().await;
    fx.push(tool_call_reply(&[
        (
            "c1",
            "run_command",
            json!({"cmd": "echo ran", "flag": null}),
        ),
        (
            "c2",
            "run_command",
            json!({"cmd": "echo not", "flag": null}),
        ),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["steered"])));
    let h = home_with(&fx.base_url(), "");
    // While the first call waits for its approval: the steer, then the answer; the second
    // call's answer is a malformed user_message (an unreadable line: it rejects that call).
    let script: Script = Box::new(|v| match v["request_id"].as_str() {
        Some("apr-c1") => vec![
            json!({"type": "user_message", "text": "also check the README"}).to_string(),
            response("apr-c1", "allow", json!({})),
        ],
        Some("apr-c2") => vec![json!({"type": "user_message", "text": 7}).to_string()],
        _ => Vec::new(),
    });
    let run = controller::drive(h.path(), &["--approvals", "stdio"], script, false).await;
    let reqs = fx.requests();
    assert!(
        run.stderr.contains(
            "sayso: control: unreadable line: a user_message needs `text`, a non-empty string"
        ),
        "{}",
        run.stderr
    );
    // The steer reaches the model right after the batch's tool messages.
    let all: Vec<_> = reqs.iter().map(|r| messages(&r.body)).collect();
    assert_eq!(reqs.len(), 2, "{}\n{all:#?}", run.stderr);
    let m = messages(&reqs[1].body);
    let at = user_at(&reqs[1].body, "also check the README");
    assert_eq!(at.len(), 1, "{m:?}");
    assert_eq!(m[at[0] - 1].0, "tool", "{m:?}");
    assert!(m[at[0] - 2].1.contains("ran"), "{m:?}");
    assert!(m[at[0] - 1].1.contains("no usable answer"), "{m:?}");
    assert_eq!(at[0] + 1, m.len(), "{m:?}");

    // Saved in the session as the user message it became: a resumed chat sends it again,
    // once, where it was.
    let files = crate::support::sessions::session_files(h.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let id = crate::support::sessions::id_of(&files[0]);
    fx.push(Reply::Stream(sse::text_reply(&["resumed"])));
    let mut cmd = crate::support::sayso(h.path());
    cmd.args(["-p", "--resume", &id, "and now?"]);
    let out = cmd.output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reqs = fx.requests();
    let resumed = messages(&reqs.last().unwrap().body);
    let at = user_at(&reqs.last().unwrap().body, "also check the README");
    assert_eq!(at.len(), 1, "{resumed:?}");
    assert_eq!(resumed[at[0] - 1].0, "tool", "{resumed:?}");
}

#[tokio::test]
async fn an_unknown_steer_setting_names_its_file_line_and_the_choices() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("config/sayso/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(
        &cfg,
        "model = \"m\"\n[provider]\nbase_url = \"http://127.0.0.1:1/v1\"\n[ui]\nsteer = \"later\"\n",
    )
    .unwrap();
    let mut cmd = crate::support::sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = crate::support::run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("config.toml:5:")
            && out.stderr.contains("key `ui.steer`")
            && out
                .stderr
                .contains("`later` is not one of next-request, turn-end"),
        "{}",
        out.stderr
    );
}

/// A steered message's `@path` mentions attach like a sent message's: the file's text joins
/// the request after the tool results, and a refused one (sayso's own config) is not sent.
#[tokio::test]
async fn a_steered_message_attaches_its_files() {
    let fx = Fixture::start().await;
    fx.push(tool_call_reply(&[(
        "c1",
        "run_command",
        json!({"cmd": "echo ran", "flag": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["read it"])));
    let h = home_with(&fx.base_url(), "");
    std::fs::write(h.path().join("notes.txt"), "the word is marmalade\n").unwrap();
    let script: Script = Box::new(|v| {
        match v["request_id"].as_str() {
        Some("apr-c1") => vec![
            json!({"type": "user_message", "text": "also read @notes.txt and @config/sayso/config.toml"})
                .to_string(),
            response("apr-c1", "allow", json!({})),
        ],
        _ => Vec::new(),
    }
    });
    let run = controller::drive(h.path(), &["--approvals", "stdio"], script, false).await;
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 2, "{}", run.stderr);
    let m = messages(&reqs[1].body);
    let steered: Vec<&(String, String)> = m
        .iter()
        .filter(|(r, c)| r == "user" && c.starts_with("also read @notes.txt"))
        .collect();
    assert_eq!(steered.len(), 1, "{m:?}");
    assert!(steered[0].1.contains("the word is marmalade"), "{m:?}");
    assert!(
        !steered[0].1.contains("base_url"),
        "sayso's config was attached: {m:?}"
    );
    assert_eq!(m[m.len() - 2].0, "tool", "{m:?}");
}
