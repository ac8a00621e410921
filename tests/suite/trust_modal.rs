//! Issue 18, root 7 "The modal answers only to deliberate keys", in tmux against the real
//! binary (the harness is `support/tui.rs`).
//!
//! The attack list (numbered as in issue 18):
//! 17. Keys typed ahead answered the approval modal: typing "thank you" as the modal appeared,
//!     `a` chose Always accept and `create_file` ran unseen; a `c` elsewhere cancelled a batch.
//!     Now a key answers only after the modal has been on screen 0.5 s and the keyboard has
//!     been quiet 0.3 s; earlier keys are swallowed (not sent to the input either) and the
//!     footer says "keys ignored: read first". Also: tab characters were dropped on screen, so
//!     a tab-only change was invisible in the approval diff; now a tab is drawn as a dim `→`
//!     padded to the next tab stop.

use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::{MODAL_READ, Tui};

/// 17: "thank you" typed the moment the modal for a `create_file` shows chooses nothing: the
/// file is not created, the input stays empty, the footer says why; after a pause Enter
/// accepts as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thank_you_typed_as_the_modal_appears_answers_nothing() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "c1",
        "create_file",
        json!({"filepath": "notes.txt", "content": "unseen\n"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Written."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("write the notes").await;
    tui.wait_for("Approval needed").await;
    tui.type_text("thank you");
    let screen = tui.wait_for("keys ignored: read first").await;
    assert!(screen.contains("Approval needed"), "{screen}");
    assert!(
        !screen.contains("thank you"),
        "the keys went to the input:\n{screen}"
    );
    // Give a key that got through the time to act: still nothing decided.
    tokio::time::sleep(MODAL_READ).await;
    let screen = tui.screen();
    assert!(screen.contains("Approval needed"), "{screen}");
    assert!(
        !tui.work().join("notes.txt").exists(),
        "create_file ran unseen"
    );
    assert_eq!(fx.requests().len(), 1, "answered:\n{screen}");

    tui.keys(&["Enter"]);
    let screen = tui.wait_for("Written.").await;
    assert!(!screen.contains("Approval needed"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(tui.work().join("notes.txt")).unwrap(),
        "unseen\n"
    );
    assert!(!screen.contains("thank you"), "{screen}");
}

/// 17: an edit that only turns four spaces into a tab shows the tab in the approval diff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_only_change_is_visible_in_the_approval_diff() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "e1",
        "edit_file",
        json!({
            "filepath": "Makefile",
            "edits": [{"oldText": "    cargo build", "newText": "\tcargo build", "replaceAll": null}],
            "explanation": null
        }),
    )]));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    std::fs::write(tui.work().join("Makefile"), "build:\n    cargo build\n").unwrap();
    tui.send("fix the makefile").await;
    let screen = tui.wait_for_modal("Approval needed").await;
    assert!(screen.contains("-    cargo build"), "{screen}");
    assert!(screen.contains("+→  cargo build"), "{screen}");
    tui.keys(&["Escape"]);
    tui.wait_for("tool calls cancelled; your turn").await;
    assert_eq!(
        std::fs::read_to_string(tui.work().join("Makefile")).unwrap(),
        "build:\n    cargo build\n"
    );
}
