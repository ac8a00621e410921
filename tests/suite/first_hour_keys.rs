//! The editing keys of the dialogs and the footer's hints in the first hour, end to end in tmux
//! (issue 19, items 11 and 13): the approval modal's reason and the question form's free-text
//! answer edit with the input box's readline keys, and what they send back to the model is the
//! edited text exactly; on a narrow terminal the footer keeps whole hints only, the most useful.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::result_of;
use crate::support::tui::{MODAL_READ, Tui, footer};

/// The reason input's line, trimmed of the modal's border (`> text█`).
fn input_line(screen: &str) -> Option<String> {
    screen.lines().find_map(|l| {
        let inner = l.trim().trim_matches('│').trim();
        inner.starts_with("> ").then(|| inner.to_owned())
    })
}

/// Waits until the dialog's one-line input reads exactly `text` (the cursor at its end).
async fn wait_input(tui: &Tui, text: &str) -> String {
    let want = format!("> {text}█");
    tui.wait_until(&format!("the input to read {want:?}"), |s| {
        input_line(s).as_deref() == Some(want.as_str())
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reject_reason_edits_with_ctrl_u_and_ctrl_w_and_the_model_gets_the_edited_reason() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch Cargo.lock", "flag": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Understood."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("refresh the lockfile").await;
    tui.wait_for_modal("Approval needed").await;
    tui.keys(&["r"]);
    tui.wait_for("Reason for rejecting").await;
    tui.type_text("oops wrong words");
    wait_input(&tui, "oops wrong words").await;
    // Ctrl+U kills back to the start of the line, not one character.
    tui.keys(&["C-u"]);
    wait_input(&tui, "").await;
    tui.type_text("do not touch the lockfile");
    wait_input(&tui, "do not touch the lockfile").await;
    // Ctrl+W kills the word before the cursor.
    tui.keys(&["C-w"]);
    wait_input(&tui, "do not touch the ").await;
    tui.type_text("manifest either");
    // Alt+B back a word, Alt+Backspace kills the one before it, Ctrl+Y puts it back, Ctrl+E
    // to the end and Alt+Backspace kills the last word.
    tui.keys(&["M-b", "M-BSpace"]);
    tui.wait_until("the reason without `manifest`", |s| {
        input_line(s).is_some_and(|l| l.starts_with("> do not touch the either"))
    })
    .await;
    tui.keys(&["C-y", "C-e", "M-BSpace"]);
    wait_input(&tui, "do not touch the manifest ").await;
    tui.keys(&["Enter"]);
    tui.wait_for("Understood.").await;
    assert_eq!(
        result_of(&fx, "c1"),
        "The user rejected the execution of the `touch Cargo.lock` command, with the reason: \
         \"do not touch the manifest\""
    );
    assert!(!tui.work().join("Cargo.lock").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_free_text_answer_edits_with_the_readline_keys_and_the_model_gets_the_edited_answer() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "q1",
        "ask_questions",
        json!({"questions": [{"header": "Name", "question": "What should the module be called?", "options": null, "multiSelect": null}]}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Naming it so."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("add a module").await;
    tui.wait_for("What should the module be called?").await;
    tui.type_text("nonsense");
    wait_input(&tui, "nonsense").await;
    tui.keys(&["C-u"]);
    wait_input(&tui, "").await;
    tui.type_text("the kyes module please");
    wait_input(&tui, "the kyes module please").await;
    tui.keys(&["C-w"]);
    wait_input(&tui, "the kyes module ").await;
    // Back over "module", kill "kyes " before it, retype.
    tui.keys(&["M-b", "M-BSpace"]);
    tui.wait_until("the answer without `kyes`", |s| {
        input_line(s).is_some_and(|l| l.starts_with("> the module"))
    })
    .await;
    tui.type_text("keys ");
    tui.keys(&["C-e"]);
    wait_input(&tui, "the keys module ").await;
    tui.keys(&["Enter"]);
    tui.wait_for("Naming it so.").await;
    assert_eq!(
        result_of(&fx, "q1"),
        "**Name**: What should the module be called?\nthe keys module"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_fifty_columns_the_footer_keeps_only_whole_hints_the_most_useful_ones() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch fifty.txt", "flag": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.resize(50);
    tui.ready().await;
    // (The footer drawn before the resize has "Ctrl+D quit" too: wait for the narrow one.)
    let idle = "Alt+Enter newline  /help help  Ctrl+D quit";
    let screen = tui
        .wait_until("the narrow idle footer", |s| footer(s) == idle)
        .await;
    assert_eq!(footer(&screen), idle, "{screen}");
    tui.send("make a file").await;
    let screen = tui.wait_for_modal("Approval needed").await;
    assert_eq!(
        footer(&screen),
        "y accept  r reject  c/Esc cancel  ↑/↓ scroll",
        "{screen}"
    );
    tui.keys(&["r"]);
    let screen = tui.wait_for("Reason for rejecting").await;
    assert_eq!(
        footer(&screen),
        "Enter reject with this reason  Esc back",
        "{screen}"
    );
    tui.keys(&["Escape"]);
    tui.wait_until("the choices again", |s| !s.contains("Reason for rejecting"))
        .await;
    tokio::time::sleep(MODAL_READ).await;
    tui.keys(&["y"]);
    tui.wait_for("Done.").await;
    assert!(tui.work().join("fifty.txt").exists());
}
