//! `--demo`: the scripted endpoint inside the process, reached through the real client.

use pretty_assertions::assert_eq;
use serde_json::Value;

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
    let events: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
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
            .starts_with("# Welcome to sayso")
    );
}
