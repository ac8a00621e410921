//! Issue 23 item 5, a plan the user can see: the `todo` checklist pinned above the TUI's input
//! while a turn runs and kept by the session (a resumed chat shows it), the headless `todo`
//! event, and plan mode — a write refused (and a read run) until the user accepts the plan,
//! then the write runs. Assertions are on what the fixture model receives.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::tui::Tui;
use crate::support::{home_with, json_lines, run, sayso, tool_messages};

fn items() -> Value {
    json!({"items": [
        {"content": "read the code", "status": "done"},
        {"content": "edit the code", "status": "in_progress"},
        {"content": "run the tests", "status": "pending"},
    ]})
}

const PINNED: [&str; 3] = [
    "[x] read the code",
    "[>] edit the code",
    "[ ] run the tests",
];

/// The checklist rows pinned right above the input box (its top border is the second-last
/// all-`─` line of the screen), top to bottom.
fn pinned(screen: &str) -> Vec<String> {
    let lines: Vec<&str> = screen.lines().collect();
    let rules: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && l.trim().chars().all(|c| c == '─'))
        .map(|(i, _)| i)
        .collect();
    let Some(&top) = rules.iter().rev().nth(1) else {
        return Vec::new();
    };
    let mut out: Vec<String> = lines[..top]
        .iter()
        .rev()
        .take_while(|l| {
            let t = l.trim_start();
            l.starts_with("  ")
                && (t.starts_with("[x] ")
                    || t.starts_with("[>] ")
                    || t.starts_with("[ ] ")
                    || t.starts_with('+'))
        })
        .map(|l| l.trim().to_owned())
        .collect();
    out.reverse();
    out
}

/// The session files' lines (every session in the home).
fn session_records(tui: &Tui) -> Vec<Value> {
    let dir = tui.root_path().join("data/sayso/sessions");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.extend(json_lines(&text));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checklist_is_pinned_while_a_turn_runs_and_a_resumed_chat_shows_it() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[("t1", "todo", items())]));
    let gate = Arc::new(Notify::new());
    let mut held = vec![Step::Gate(gate.clone())];
    held.extend(sse::text_reply(&["On it."]));
    fx.push(Reply::Stream(held));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("fix the bug").await;
    // The model's reply is held: the turn runs, and the list is pinned above the input.
    let screen = tui
        .wait_until("the checklist pinned", |s| pinned(s) == PINNED)
        .await;
    assert!(screen.contains("edit the code"), "{screen}");
    gate.notify_one();
    tui.wait_for("On it.").await;
    // The model was told the list.
    let told = &tool_messages(&fx.requests()[1].body)[0];
    assert_eq!(told.0, "t1");
    assert!(
        told.1
            .starts_with("The checklist is now (1/3 done):\n[x] read the code"),
        "{told:?}"
    );
    // Idle, the unfinished list stays (dimmed).
    let screen = tui
        .wait_until("the turn over", |s| s.contains("Ask anything"))
        .await;
    assert_eq!(pinned(&screen), PINNED, "{screen}");
    // The session keeps it as a `todo` record.
    let saved: Vec<Value> = session_records(&tui)
        .into_iter()
        .filter(|r| r["t"] == "todo")
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(saved[0]["items"], items()["items"]);
    assert_eq!(saved[0]["call_id"], "t1");

    let tui = tui.restart(&["--continue"]);
    let screen = tui
        .wait_until("the resumed checklist pinned", |s| pinned(s) == PINNED)
        .await;
    assert!(screen.contains("On it."), "{screen}");
}

#[tokio::test]
async fn a_headless_json_run_prints_the_checklist_as_a_todo_event() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[("t1", "todo", items())]));
    fx.push(call_reply(&[(
        "t2",
        "todo",
        json!({"items": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}]}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Planned."])));
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "plan it"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = json_lines(&out.stdout);
    let todo: Vec<&Value> = events.iter().filter(|e| e["type"] == "todo").collect();
    // The second list is refused (two in progress): no event for it, the reason to the model.
    assert_eq!(todo.len(), 1, "{events:?}");
    assert_eq!(todo[0]["call_id"], "t1");
    assert_eq!(todo[0]["items"], items()["items"]);
    let refused = &tool_messages(&fx.requests()[2].body)[1];
    assert_eq!(refused.0, "t2");
    assert!(refused.1.contains("2 items are in_progress"), "{refused:?}");
}

/// The tool messages of request `n`, by call id.
fn results(fx: &Fixture, n: usize) -> Vec<(String, String)> {
    tool_messages(&fx.requests()[n].body)
}

fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn edit(id: &str) -> (&str, &'static str, Value) {
    (
        id,
        "edit_file",
        json!({"filepath": "notes.txt", "edits": [{"oldText": "old\n", "newText": "new\n", "replaceAll": null}], "explanation": null}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plan_mode_refuses_writes_until_the_plan_is_accepted_then_they_run() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[
        (
            "r1",
            "read_file",
            json!({"filepath": "notes.txt", "start_line": null, "end_line": null}),
        ),
        edit("e1"),
        ("c1", "run_command", json!({"cmd": "touch made.txt"})),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&[
        "Plan: replace old with new in notes.txt.",
    ])));
    fx.push(call_reply(&[edit("e2")]));
    fx.push(Reply::Stream(sse::text_reply(&["Carried out."])));
    let tui = Tui::start(&fx.base_url(), &["--plan"]);
    std::fs::write(tui.work().join("notes.txt"), "keep\nold\n").unwrap();
    tui.ready().await;
    tui.wait_for("PLAN · BALANCED").await;
    tui.send("fix notes.txt").await;
    let screen = tui.wait_for("Plan ready").await;
    assert!(screen.contains("Plan: replace old with new"), "{screen}");
    // The model was told it is in plan mode; the read ran, the edit and the command did not.
    assert!(
        user_texts(&fx.requests()[0].body)[0].contains("[Plan mode is on"),
        "{:?}",
        fx.requests()[0].body
    );
    let got = results(&fx, 1);
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got[0].1.contains("keep\nold"), "{got:?}");
    for (id, content) in &got[1..] {
        assert!(
            content.starts_with("Plan mode is on") && content.contains("present your plan"),
            "{id}: {content}"
        );
    }
    let work = tui.work();
    assert_eq!(
        std::fs::read_to_string(work.join("notes.txt")).unwrap(),
        "keep\nold\n"
    );
    assert!(!work.join("made.txt").exists());
    // Accept, continuing in auto mode: the turn goes on with the acceptance, and the edit runs.
    tui.send("/plan accept auto").await;
    tui.wait_for("Carried out.").await;
    let screen = tui.wait_for(" AUTO ").await;
    assert!(!screen.contains("PLAN ·"), "{screen}");
    let users = user_texts(&fx.requests()[2].body);
    assert_eq!(
        users.last().map(String::as_str),
        Some("The plan is accepted: carry it out now."),
        "{users:?}"
    );
    let done = results(&fx, 3);
    let e2 = done.iter().find(|(id, _)| id == "e2").expect("e2's result");
    assert!(!e2.1.contains("Plan mode"), "{e2:?}");
    assert_eq!(
        std::fs::read_to_string(work.join("notes.txt")).unwrap(),
        "keep\nnew\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enter_accepts_a_plan_and_alt_m_cycles_into_plan_mode() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[edit("e1")]));
    fx.push(Reply::Stream(sse::text_reply(&["Plan: one edit."])));
    fx.push(call_reply(&[edit("e2")]));
    fx.push(Reply::Stream(sse::text_reply(&["Edited."])));
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    std::fs::write(tui.work().join("notes.txt"), "keep\nold\n").unwrap();
    tui.ready().await;
    tui.wait_for(" AUTO ").await;
    // home (balanced, the mode before auto) → auto → plan: from auto, one press.
    tui.keys(&["M-m"]);
    tui.wait_for("PLAN · BALANCED").await;
    tui.send("fix notes.txt").await;
    tui.wait_for("Plan ready").await;
    assert!(results(&fx, 1)[0].1.starts_with("Plan mode is on"));
    // Enter on the empty input accepts, in the approval mode underneath (balanced): the edit
    // asks, as balanced does, and runs once accepted.
    tui.keys(&["Enter"]);
    tui.wait_for_modal("edit_file").await;
    tui.keys(&["y"]);
    tui.wait_for("Edited.").await;
    assert_eq!(
        std::fs::read_to_string(tui.work().join("notes.txt")).unwrap(),
        "keep\nnew\n"
    );
    let screen = tui.wait_for(" BALANCED ").await;
    assert!(!screen.contains("PLAN ·"), "{screen}");
}

#[tokio::test]
async fn a_headless_plan_run_refuses_the_write_and_ends_with_the_plan() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[edit("e1")]));
    fx.push(Reply::Stream(sse::text_reply(&["Plan: one edit."])));
    let home = home_with(&fx.base_url(), "");
    std::fs::write(home.path().join("notes.txt"), "keep\nold\n").unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--plan", "--auto", "fix notes.txt"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), "Plan: one edit.");
    assert!(results(&fx, 1)[0].1.starts_with("Plan mode is on"));
    assert_eq!(
        std::fs::read_to_string(home.path().join("notes.txt")).unwrap(),
        "keep\nold\n"
    );
}
