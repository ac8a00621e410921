//! The context window on a first hour, through the real binary and the fixture server: when
//! the "nearly full" notice comes, and what a request that cannot fit says.

use serde_json::Value;

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::number_after;
use crate::support::{Output, run, sayso};

/// A private home whose config points at `base_url` with no retries, `context_window` tokens,
/// and an `AGENTS.md` of `instructions` bytes (a system prompt that big).
fn home(base_url: &str, context_window: u64, instructions: usize) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!(
            "model = \"m\"\n[provider]\nbase_url = \"{base_url}\"\nmax_retries = 0\ncontext_window = {context_window}\n"
        ),
    )
    .unwrap();
    if instructions > 0 {
        let line = "Answer in plain words and keep every reply short.\n";
        std::fs::write(
            home.path().join("AGENTS.md"),
            line.repeat(instructions / line.len()),
        )
        .unwrap();
    }
    home
}

async fn ask(home: &tempfile::TempDir, args: &[&str]) -> Output {
    let mut cmd = sayso(home.path());
    cmd.arg("-p").args(args);
    run(cmd).await
}

fn chat_requests(fx: &Fixture) -> usize {
    fx.requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .count()
}

#[tokio::test]
async fn the_nearly_full_notice_comes_when_the_chat_first_reaches_70_percent() {
    // First, how many tokens this system prompt and these tools are, in a big window.
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let big = home(&fx.base_url(), 1_000_000, 15_000);
    let out = ask(&big, &["hi", "--json", "--tools", "read_file"]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let used = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "turn_completed")
        .and_then(|v| v["context"]["used"].as_u64())
        .unwrap_or_else(|| panic!("no context in {}", out.stdout));

    // Then a window they fill to about 71 %, and a server that fails the request: the chat is
    // past 70 % before any reply, and the notice says so then, with the share it is at.
    let fx = Fixture::start().await;
    fx.push(Reply::Status {
        status: 500,
        headers: vec![],
        body: "down".into(),
    });
    let window = used * 1000 / 715;
    let h = home(&fx.base_url(), window, 15_000);
    let out = ask(&h, &["hi", "--tools", "read_file"]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(chat_requests(&fx), 1, "{}", out.stderr);
    let notice = out
        .stderr
        .lines()
        .find(|l| l.contains("the context window is "))
        .unwrap_or_else(|| panic!("no notice:\n{}", out.stderr));
    assert!(
        notice.starts_with("sayso: the context window is 71% full (")
            && notice.contains(&format!(" of {window} tokens)")),
        "{notice}"
    );
    assert_eq!(out.stderr.matches("the context window is ").count(), 1);
}

#[tokio::test]
async fn a_system_prompt_and_tools_too_big_for_the_window_are_named_with_the_real_fixes() {
    let fx = Fixture::start().await;
    // "hi" is 2 bytes; the system prompt and the agent tools are what cannot fit in 1,024.
    // (Without a choice, a window this small gets the tools that fit a quarter of it: the
    // user's own `--tools` choice is kept, and then it cannot fit.)
    let h = home(&fx.base_url(), 1_024, 0);
    let out = ask(&h, &["hi", "--tools", "agent"]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(chat_requests(&fx), 0, "nothing that cannot fit is sent");
    assert!(
        out.stderr.contains(
            "error: the request does not fit the model's context window: the system prompt and the "
        ) && out.stderr.contains(" tool schemas alone are about "),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("give the model a larger window (llama.cpp `-c`, Ollama `num_ctx`) and tell sayso with `context_window` in the config, or offer fewer tools with `--tools`"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("/clear"), "{}", out.stderr);
    assert!(!out.stderr.contains("the message"), "{}", out.stderr);
    assert!(!out.stderr.contains("summarising"), "{}", out.stderr);
}

#[tokio::test]
async fn a_message_too_long_for_the_window_says_to_shorten_it_and_no_tui_command_headless() {
    let fx = Fixture::start().await;
    let h = home(&fx.base_url(), 8_192, 0);
    let long = "please read this. ".repeat(2_000);
    let out = ask(&h, &[&long, "--tools", "read_file"]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(chat_requests(&fx), 0);
    assert!(
        out.stderr
            .contains("of them the system prompt and tool schemas, the rest the conversation); shorten the message\n"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("/clear"), "{}", out.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_clear_the_gauge_and_context_show_one_number_and_its_parts_add_up() {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/props",
        Reply::Json(
            serde_json::json!({"default_generation_settings": {"n_ctx": 8192}, "total_slots": 1}),
        ),
    );
    fx.push(Reply::Stream(sse::text_reply(&["First answer."])));
    let tui = crate::support::tui::Tui::start(&fx.base_url(), &["--tools", "read_file"]);
    tui.ready().await;
    tui.send("first question").await;
    tui.wait_for("First answer.").await;
    tui.send("/clear").await;
    // The chat is gone and the gauge is back, with the new chat's estimate.
    let screen = tui
        .wait_until("a gauge after /clear", |s| {
            !s.contains("First answer.") && s.contains("ctx ~")
        })
        .await;
    let gauge = number_after(&screen, "ctx ~");
    assert!(gauge >= 1, "{screen}");

    tui.send("/context").await;
    let screen = tui.wait_for("total ").await;
    let in_use = number_after(&screen, "in use: ~");
    let percent = number_after(&screen, "tokens (");
    assert_eq!(percent, gauge, "the gauge and /context agree:\n{screen}");
    assert_eq!(percent, in_use * 100 / 8192, "{screen}");
    assert!(!screen.contains("no request yet"), "{screen}");
    let parts = number_after(&screen, "system message     ~")
        + number_after(&screen, "tools ( 1)         ~")
        + number_after(&screen, "msgs)  ~");
    let total = number_after(&screen, "total              ~");
    assert_eq!((parts, total), (in_use, in_use), "{screen}");
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());
}
