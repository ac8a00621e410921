//! What the TUI says in the first hour, end to end in tmux (issue 19 walkthrough, B2, C4, C5,
//! C9, C10, P10): the status bar's mode badge follows the mode the chat really goes on in
//! (after `/resume` too), a command refused during a turn keeps the input, the question form
//! waits for an answer (not an approval), the save-rule prompt's footer shows its own keys,
//! the `/resume` picker lists the other sessions with their short ids in aligned columns, and
//! `/clear` opens a new chat with the welcome; `/model` warns of a name the endpoint does not
//! list (C8).

use std::path::Path;
use std::sync::Arc;

use serde_json::json;
use tokio::sync::Notify;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::tui::{MODAL_READ, Tui, footer, has_line};

/// The status bar: the screen's first line.
fn status_bar(screen: &str) -> &str {
    screen.lines().next().unwrap_or_default()
}

async fn wait_badge(tui: &Tui, badge: &str) -> String {
    tui.wait_until(&format!("the status bar to start with {badge:?}"), |s| {
        status_bar(s).starts_with(badge)
    })
    .await
}

/// A saved session written as sayso writes one: a header, then one message and its reply.
fn write_session(home: &Path, id: &str, cwd: &str, started: &str, message: &str) {
    let dir = home.join("data/sayso/sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let lines = [
        json!({
            "t": "session", "v": 1, "id": id, "cwd": cwd, "model": "m",
            "provider": "custom", "started": started, "mode": "balanced"
        }),
        json!({"t": "user", "text": message, "sent": message}),
        json!({"t": "text", "s": "an answer"}),
        json!({"t": "reply", "message": {
            "content": "an answer", "reasoning": "", "tool_calls": [], "finish_reason": "stop", "usage": null
        }}),
        json!({"t": "turn_end", "end": "completed", "message": null}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_resume_the_badge_shows_the_mode_the_chat_goes_on_in_and_follows_every_change() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["First answer."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("hello").await;
    tui.wait_for("First answer.").await;
    tui.type_text("/auto");
    tui.keys(&["Enter"]);
    wait_badge(&tui, " AUTO ").await;
    tui.wait_for("AUTO mode:").await;

    // A new sayso (the config's balanced mode) resumes the chat saved in auto mode: it goes
    // on in balanced, and so does the badge, although the replayed chat switched to auto.
    let tui = tui.restart(&[]);
    tui.ready().await;
    tui.type_text("/resume");
    tui.keys(&["Enter"]);
    tui.wait_for("Sessions (1)").await;
    tui.keys(&["Enter"]);
    let screen = tui
        .wait_until("the resumed chat, BALANCED on the status bar", |s| {
            s.contains("it continues in balanced") && status_bar(s).starts_with(" BALANCED ")
        })
        .await;
    assert!(
        screen.contains("AUTO mode:"),
        "the replayed switch:\n{screen}"
    );
    tui.type_text("/clear");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Welcome to sayso").await;
    assert!(status_bar(&screen).starts_with(" BALANCED "), "{screen}");
    tui.type_text("/auto");
    tui.keys(&["Enter"]);
    wait_badge(&tui, " AUTO ").await;
    tui.type_text("/auto");
    tui.keys(&["Enter"]);
    wait_badge(&tui, " BALANCED ").await;
    tui.type_text("/mode strict");
    tui.keys(&["Enter"]);
    wait_badge(&tui, " STRICT ").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_refused_during_a_turn_keeps_the_input() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    let mut steps = vec![Step::Gate(gate.clone())];
    steps.extend(sse::text_reply(&["Done at last."]));
    fx.push(Reply::Stream(steps));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("take your time").await;
    tui.wait_for("waiting for the first token").await;
    tui.type_text("/clear");
    tui.wait_until("the typed command", |s| has_line(s, "/clear"))
        .await;
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("wait until the current turn ends").await;
    assert!(
        has_line(&screen, "/clear"),
        "the input still holds it:\n{screen}"
    );
    // Once the turn is over, the same Enter runs it.
    gate.notify_one();
    tui.wait_for("Done at last.").await;
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Welcome to sayso").await;
    assert!(!screen.contains("Done at last."), "{screen}");
    assert!(!has_line(&screen, "/clear"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_the_question_form_is_open_the_status_bar_waits_for_an_answer() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "q1",
        "ask_questions",
        json!({"questions": [{"header": "Name", "question": "What should the module be called?", "options": null, "multiSelect": null}]}),
    )]));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("add a module").await;
    tui.wait_for("What should the module be called?").await;
    let screen = tui
        .wait_until("the status bar to wait for the answer", |s| {
            status_bar(s).contains("waiting for your answer")
        })
        .await;
    assert!(!status_bar(&screen).contains("approval"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_save_rule_prompt_has_its_own_footer_and_esc_brings_the_modals_back() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch saved.txt", "flag": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("make a file").await;
    tui.wait_for_modal("Approval needed").await;
    // (Waits for the whole frame: the footer is its last line.)
    let modal_footer = |s: &str| footer(s).starts_with("a always");
    tui.wait_until("the modal's footer", modal_footer).await;
    tui.keys(&["s"]);
    tui.wait_for_modal("Save a rule").await;
    let want = "Enter/number save and accept  ↑/↓ choose  Esc back";
    tui.wait_until(&format!("the footer {want:?}"), |s| {
        s.contains("Save a rule") && footer(s) == want
    })
    .await;
    tui.keys(&["Escape"]);
    tui.wait_until("the choices and their footer again", |s| {
        !s.contains("Save a rule") && modal_footer(s)
    })
    .await;
    tokio::time::sleep(MODAL_READ).await;
    tui.keys(&["y"]);
    tui.wait_for("Done.").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_resume_picker_lists_the_other_sessions_with_short_ids_in_aligned_columns() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Noted."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    let home = tui.root_path().to_path_buf();
    write_session(
        &home,
        "a1b2-0tpc1aa",
        "/p/old",
        "2026-11-30T08:30:00Z",
        "old one",
    );
    write_session(
        &home,
        "c3d4-0tpc1bb",
        "/p/a/longer/dir",
        "2026-11-30T09:45:00Z",
        "new one",
    );
    // This chat is saved too, as the newest one.
    tui.send("the chat on screen").await;
    tui.wait_for("Noted.").await;
    tui.type_text("/resume");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Sessions (2)").await;
    let row = |start: &str| {
        screen
            .lines()
            .find(|l| l.contains(start))
            .unwrap_or_else(|| panic!("no row {start:?}:\n{screen}"))
            .to_owned()
    };
    let newer = row("c3d4  2026-11-30 09:45  /p/a/longer/dir (directory gone)  2 msgs  new one");
    let older = row("a1b2  2026-11-30 08:30  /p/old (directory gone)");
    let column = |line: &str, text: &str| {
        line.find(text)
            .unwrap_or_else(|| panic!("no {text:?} in {line:?}:\n{screen}"))
    };
    assert_eq!(
        column(&newer, "2 msgs  new one"),
        column(&older, "2 msgs  old one"),
        "the columns line up:\n{screen}"
    );
    let picker: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains("2026-11-30"))
        .collect();
    assert_eq!(picker.len(), 2, "{screen}");
    assert!(
        screen.find(&newer) < screen.find(&older),
        "newest first:\n{screen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clear_opens_a_new_chat_with_the_welcome() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["An answer to clear."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.wait_for("Welcome to sayso").await;
    tui.send("hello").await;
    let screen = tui.wait_for("An answer to clear.").await;
    assert!(!screen.contains("Welcome to sayso"), "{screen}");
    tui.type_text("/clear");
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Welcome to sayso").await;
    assert!(!screen.contains("An answer to clear."), "{screen}");
    assert!(screen.contains("/help"), "the tips:\n{screen}");
}

/// `/model` with a name the endpoint does not list warns (a typo would otherwise show up only
/// as the next request's error); a listed name switches without a word more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_to_a_model_the_endpoint_does_not_list_warns() {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        Reply::Json(json!({"object": "list", "data": [{"id": "tiny"}, {"id": "qwen"}]})),
    );
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("/model qwne").await;
    let screen = tui
        .wait_for("does not list `qwne` among its models (qwen, tiny)")
        .await;
    assert!(
        screen.contains("model: qwne (from the next request)"),
        "{screen}"
    );
    tui.send("/model tiny").await;
    let screen = tui.wait_for("model: tiny (from the next request)").await;
    assert!(
        !screen.contains("does not list `tiny`"),
        "a listed model is not warned about:\n{screen}"
    );
}
