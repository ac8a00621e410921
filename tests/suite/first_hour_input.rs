//! The input box in the first hour, end to end in tmux (issue 19, items 3, 4, 10, 11): a message
//! that starts with a path reaches the model, `//` sends a literal `/`, an unknown command
//! keeps the input, `/` opens the command popup and Tab completes from it, Ctrl+U kills to the
//! line start (and Ctrl+Y yanks it back), and a hint that stopped being true leaves the screen.

use std::sync::Arc;

use tokio::sync::Notify;

use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::tui::{Tui, has_line};

/// The content of the last message of the only request the model got.
fn sent_message(fx: &Fixture) -> String {
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 1, "one request");
    let messages = reqs[0].body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_that_starts_with_an_absolute_path_is_sent_to_the_model() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["It failed to link."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("/tmp/proj/build.log explain this").await;
    let screen = tui.wait_for("It failed to link.").await;
    assert!(!screen.contains("unknown command"), "{screen}");
    assert_eq!(sent_message(&fx), "/tmp/proj/build.log explain this");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_slash_sends_a_literal_slash() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["That is a slash."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("//x").await;
    tui.wait_for("That is a slash.").await;
    assert_eq!(sent_message(&fx), "/x");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_command_is_an_error_that_keeps_the_input() {
    let fx = Fixture::start().await;
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("/frobnicate").await;
    let screen = tui.wait_for("unknown command /frobnicate").await;
    assert!(
        has_line(&screen, "/frobnicate"),
        "the input still holds it:\n{screen}"
    );
    assert!(
        screen.contains("//frobnicate sends it as a message"),
        "{screen}"
    );
    // Fixing it is one key away: the draft is there to edit.
    tui.keys(&["BSpace"]);
    tui.wait_until("the edited draft", |s| has_line(s, "/frobnicat"))
        .await;
    assert!(fx.requests().is_empty(), "nothing was sent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_opens_a_popup_of_commands_with_their_help_and_tab_completes() {
    let fx = Fixture::start().await;
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.type_text("/");
    let screen = tui.wait_for("Commands").await;
    assert!(screen.contains("/help"), "{screen}");
    assert!(screen.contains("keys and commands"), "its help:\n{screen}");
    tui.type_text("mo");
    let screen = tui
        // (The welcome's tips name /help too: look for its help text, which only the popup has.)
        .wait_until("only the /mo commands", |s| {
            !s.contains("keys and commands")
        })
        .await;
    assert!(screen.contains("/model [NAME]"), "{screen}");
    assert!(
        screen.contains("list the endpoint's models, or switch"),
        "{screen}"
    );
    assert!(screen.contains("/mode [NAME]"), "{screen}");
    assert!(screen.contains("Tab complete"), "the footer:\n{screen}");
    tui.keys(&["Down", "Tab"]);
    let screen = tui
        .wait_until("the completed command", |s| has_line(s, "/mode"))
        .await;
    assert!(
        !screen.contains("Commands"),
        "closed once the argument is due:\n{screen}"
    );
    tui.type_text("strict");
    tui.wait_for("/mode strict").await;
    tui.keys(&["Enter"]);
    tui.wait_for(" STRICT ").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_u_kills_to_the_line_start_and_ctrl_y_yanks_it_back() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Got it."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.type_text("hello world");
    tui.wait_for("hello world").await;
    tui.keys(&["Left", "Left", "Left", "Left", "Left", "C-u"]);
    tui.wait_until("the line killed up to the cursor", |s| has_line(s, "world"))
        .await;
    tui.keys(&["End", "C-y"]);
    tui.wait_for("worldhello").await;
    tui.keys(&["Enter"]);
    tui.wait_for("Got it.").await;
    assert_eq!(sent_message(&fx), "worldhello ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_quit_hint_leaves_the_screen_when_its_window_closes() {
    let fx = Fixture::start().await;
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.keys(&["C-c"]);
    tui.wait_for("Press Ctrl+C again to quit").await;
    // No key: the window closes, and the hint with it.
    let screen = tui
        .wait_until("the quit hint to go", |s| {
            !s.contains("Press Ctrl+C again to quit")
        })
        .await;
    assert!(screen.contains("Ask anything"), "{screen}");
    assert!(!screen.contains("EXITED:"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_busy_hint_leaves_the_screen_when_the_turn_ends() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    let mut held = vec![Step::Gate(gate.clone())];
    held.extend(sse::text_reply(&["All done."]));
    fx.push(Reply::Stream(held));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("work").await;
    tui.wait_for("Esc stop").await;
    // (A message is queued during a turn now, issue 23: a command that cannot run is refused.)
    tui.send("/clear").await;
    tui.wait_for("wait until the current turn ends").await;
    gate.notify_one();
    tui.wait_for("All done.").await;
    let screen = tui
        .wait_until("the busy hint to go", |s| {
            !s.contains("wait until the current turn ends")
        })
        .await;
    assert!(
        has_line(&screen, "/clear"),
        "the draft waits in the input:\n{screen}"
    );
}
