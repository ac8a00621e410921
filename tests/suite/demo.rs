//! `--demo`: the scripted endpoint inside the process, reached through the real client.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::support::json_lines;
use crate::support::{run, sayso};

#[tokio::test]
async fn demo_streams_the_markdown_tour_without_any_configuration() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["--demo", "-p", "hello"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("# Welcome to sayso\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("```rust\nfn main() {"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("| llama.cpp | yes |"), "{}", out.stdout);
    assert!(
        out.stderr.contains("Show every kind of output once"),
        "reasoning goes to stderr: {}",
        out.stderr
    );
}

#[tokio::test]
async fn demo_json_reports_usage_from_the_stream() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["--demo", "-p", "--json", "hello"])
        .env("OPENAI_API_KEY", "sk-should-not-matter");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events: Vec<Value> = json_lines(&out.stdout);
    assert_eq!(events[0]["model"], "sayso-demo");
    assert_eq!(events[0]["provider"], "demo");
    let done = events
        .iter()
        .find(|e| e["type"] == "turn_completed")
        .unwrap();
    assert_eq!(done["usage"]["prompt_tokens"], 42);
    let finished = events.last().unwrap();
    assert_eq!(finished["status"], "completed");
    assert!(
        finished["text"]
            .as_str()
            .unwrap()
            .starts_with("Here is what happened"),
        "the final text is the last reply"
    );
}

#[tokio::test]
async fn demo_tool_calls_run_in_auto_mode_with_the_judge_and_the_reply_reacts() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["--demo", "-p", "--auto", "--json", "hello"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events: Vec<Value> = json_lines(&out.stdout);
    let finished: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["type"] == "tool_finished")
        .map(|e| (e["name"].as_str().unwrap(), e["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        finished,
        [
            ("run_command", "success"),
            ("create_file", "success"),
            ("run_command", "success")
        ]
    );
    let judged: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "judge_finished")
        .collect();
    assert_eq!(
        judged.len(),
        1,
        "only `date` needs the judge; `ls -la` is on the safe list"
    );
    assert_eq!(judged[0]["safe"], true);
    let text = events.last().unwrap()["text"].as_str().unwrap();
    assert!(
        text.contains("`date` ran; its output is in its tool block."),
        "{text}"
    );
    assert!(text.contains("I created `hello.md`"), "{text}");
    // The demo never touches the directory it was started from.
    assert!(!home.path().join("hello.md").exists());
}

#[tokio::test]
async fn demo_without_auto_explains_that_nobody_could_approve() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["--demo", "-p", "hello"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    // `ls -la` is on the safe list: balanced runs it unasked, read-only, in the sandbox.
    assert_eq!(
        out.stdout
            .matches("needed your approval, and nobody was there to give it")
            .count(),
        2,
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("`ls -la` ran; its output is in its tool block."),
        "{}",
        out.stdout
    );
    assert_eq!(
        out.stderr.matches("Approval required for").count(),
        2,
        "{}",
        out.stderr
    );
}
