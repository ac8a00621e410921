//! Snapshots of whole frames (text and styles) for each widget state the issue lists.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;

use super::app::AppEvent;
use super::tests_support::*;
use crate::events::Event;
use crate::events::Mode;
use crate::provider::{ProviderError, StreamDelta};
use crate::tools::lifecycle::requests::Remember;
use crate::tools::tool::Preview;

const REPLY: &str = "## Plan\n\nRead **the config** first, then `cargo test`:\n\n| step | tool |\n|---|---|\n| 1 | read_file |\n| 2 | run_command |\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\nStill typing this li";

#[test]
fn streaming_reply_with_reasoning_table_and_code() {
    let mut a = app();
    send(&mut a, "how do I start?");
    agent(
        &mut a,
        Event::Delta(StreamDelta::Reasoning(
            "The user wants a plan. Keep it short.".into(),
        )),
    );
    agent(&mut a, Event::Delta(StreamDelta::Text(REPLY.into())));
    insta::assert_snapshot!(render(&a, Instant::now()));
}

#[test]
fn tool_blocks_folded_and_expanded() {
    let mut a = app();
    finished_tool(&mut a, "c1", 12);
    let now = Instant::now();
    insta::assert_snapshot!("tool_folded", render(&a, now));
    send(&mut a, "/expand");
    a.update(AppEvent::Resize(80, 40));
    insta::assert_snapshot!("tool_expanded", render(&a, now));
}

#[test]
fn endpoint_error_with_retry_countdown() {
    let mut a = app();
    send(&mut a, "hi");
    let now = Instant::now();
    agent(
        &mut a,
        Event::Retrying(crate::provider::Retry {
            retry: 2,
            max_retries: 4,
            delay: Duration::from_secs(2),
            error: ProviderError::Status {
                status: 503,
                message: "Service Unavailable: overloaded".into(),
                retry_after: None,
            },
        }),
    );
    // The countdown reads from `now`, taken a moment before the event: 2 s.
    insta::assert_snapshot!(render(&a, now));
}

fn diff() -> Preview {
    Preview::Diff {
        path: "src/lib.rs".into(),
        diff: "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn add(a: i32, b: i32) -> i32 {\n-    a - b\n+    a + b\n }\n".into(),
    }
}

#[test]
fn approval_modal_with_a_diff() {
    let mut a = app();
    let (req, _answer) = request(1, 1, Some(diff()), None);
    a.update(AppEvent::Approval(req));
    insta::assert_snapshot!(render(&a, Instant::now()));
}

/// Issue 18 case 17: a change that only turns four spaces into a tab shows in the diff.
#[test]
fn approval_modal_shows_a_tab_only_change() {
    let mut a = app();
    let preview = Preview::Diff {
        path: "Makefile".into(),
        diff: "--- a/Makefile\n+++ b/Makefile\n@@ -1,2 +1,2 @@\n build:\n-    cargo build\n+\tcargo build\n".into(),
    };
    let (req, _answer) = request(1, 1, Some(preview), None);
    a.update(AppEvent::Approval(req));
    let frame = render(&a, Instant::now());
    assert!(frame.contains("+→  cargo build"), "{frame}");
    insta::assert_snapshot!(frame);
}

/// A bidi override in a command ("Trojan Source") is shown as text, not applied: the modal
/// reads in the order the shell will run it; tag characters and a zero-width space are drawn
/// too, in the command and in the arguments, and the modal says how many there are.
#[test]
fn approval_modal_shows_bidi_controls_in_a_command() {
    let mut a = app();
    let (mut req, _answer) = request(1, 1, None, None);
    let cmd = "echo safe \u{202E}; rm -rf x #\u{202C} r\u{200B}m\u{E0041}";
    req.ask.cmd_string = cmd.into();
    req.ask.args = serde_json::json!({ "cmd": cmd });
    a.update(AppEvent::Approval(req));
    let frame = render(&a, Instant::now());
    let shown = "echo safe ⟨RLO⟩; rm -rf x #⟨PDF⟩ r⟨ZWSP⟩m⟨U+E0041⟩";
    assert_eq!(
        frame.matches(shown).count(),
        2,
        "command and arguments: {frame}"
    );
    assert!(frame.contains("This call holds 8 invisible"), "{frame}");
    for hidden in ['\u{202E}', '\u{200B}', '\u{E0041}'] {
        assert!(!frame.contains(hidden), "{frame}");
    }
}

#[test]
fn approval_modal_with_a_judge_reason_two_of_three() {
    let mut a = app_in(Mode::Auto);
    let (req, _answer) = request(2, 3, None, Some("it deletes files outside the project"));
    a.update(AppEvent::Approval(req));
    insta::assert_snapshot!(render(&a, Instant::now()));
}

#[test]
fn approval_modal_for_a_protected_path_says_why() {
    let mut a = app();
    let (mut req, _answer) = request(1, 1, Some(diff()), None);
    req.ask.tool = "edit_file".into();
    req.ask.cmd_string = "edit_file .git/config".into();
    req.ask.prompt = "Apply 1 edit to `.git/config`?".into();
    req.ask.remember = Remember::Nothing;
    req.ask.caution = Some(
        "`.git/config` is git's own data (.git): its config and hooks name programs that git runs"
            .into(),
    );
    a.update(AppEvent::Approval(req));
    insta::assert_snapshot!(render(&a, Instant::now()));
}

#[test]
fn approval_modal_reason_input() {
    let mut a = app();
    let (req, _answer) = request(1, 1, None, None);
    a.update(AppEvent::Approval(req));
    deliberate(&mut a, key(KeyCode::Char('r')));
    typed(&mut a, "use make check");
    insta::assert_snapshot!(render(&a, Instant::now()));
}

#[test]
fn auto_mode_status_bar() {
    let mut a = app_in(Mode::Auto);
    a.update(AppEvent::Resize(80, 6));
    insta::assert_snapshot!(render(&a, Instant::now()));
}

#[test]
fn resize_reflows_the_transcript() {
    let mut a = app();
    a.transcript_mut()
        .push_user("a fairly long message that has to wrap when the terminal is narrow enough");
    a.refresh();
    let now = Instant::now();
    a.update(AppEvent::Resize(40, 10));
    let narrow = render(&a, now);
    assert!(
        narrow.contains("\"› a fairly long message that has to wrap\""),
        "{narrow}"
    );
    a.update(AppEvent::Resize(100, 10));
    let wide = render(&a, now);
    assert!(
        wide.contains(
            "› a fairly long message that has to wrap when the terminal is narrow enough"
        ),
        "{wide}"
    );
}

#[test]
fn a_reply_rendered_while_streaming_matches_it_rendered_whole() {
    let now = Instant::now();
    let text = format!("{REPLY}ne.\n\n- one\n- two\n\n```sh\nmake\n\nmake test\n```\n\nDone.");
    for chunk in [1, 3, 7, 20, 64] {
        let mut streamed = app();
        streamed.update(AppEvent::Resize(60, 60));
        let bytes: Vec<char> = text.chars().collect();
        for piece in bytes.chunks(chunk) {
            agent(
                &mut streamed,
                Event::Delta(StreamDelta::Text(piece.iter().collect())),
            );
            let _ = render(&streamed, now);
        }
        let mut whole = app();
        whole.update(AppEvent::Resize(60, 60));
        agent(&mut whole, Event::Delta(StreamDelta::Text(text.clone())));
        assert_eq!(
            render(&streamed, now),
            render(&whole, now),
            "chunk size {chunk}"
        );
    }
}

#[test]
fn a_retry_replaces_the_partial_reply_on_screen() {
    let now = Instant::now();
    let mut a = app();
    agent(
        &mut a,
        Event::Delta(StreamDelta::Text(
            "First attempt, cut off\n\nsecond para".into(),
        )),
    );
    let _ = render(&a, now);
    agent(
        &mut a,
        Event::Retrying(crate::provider::Retry {
            retry: 1,
            max_retries: 3,
            delay: Duration::ZERO,
            error: ProviderError::Dropped("x".into()),
        }),
    );
    agent(&mut a, Event::Delta(StreamDelta::Text("Second".into())));
    let frame = render(&a, now);
    assert!(!frame.contains("First attempt"), "{frame}");
    assert!(frame.contains("Second"), "{frame}");
}

#[test]
fn the_status_bar_shows_how_full_the_window_is() {
    let mut a = app();
    a.update(AppEvent::Resize(100, 4));
    let ctx = |used| Event::Context {
        used,
        window: 32_768,
        source: "config".into(),
        estimated: true,
        ratio: 3.0,
    };
    a.update(AppEvent::Agent(ctx(13_000)));
    let text = render(&a, Instant::now());
    assert!(text.contains("ctx ~39% of 33k"), "{text}");
    a.update(AppEvent::Agent(ctx(30_000)));
    insta::assert_snapshot!(render(&a, Instant::now()));
}

#[test]
fn approval_modal_offering_rules_to_save() {
    let mut a = app();
    let (req, _answer) = request(1, 1, None, None);
    a.update(AppEvent::Approval(req));
    deliberate(&mut a, key(KeyCode::Char('s')));
    deliberate(&mut a, key(KeyCode::Down));
    insta::assert_snapshot!(render(&a, Instant::now()));
}
