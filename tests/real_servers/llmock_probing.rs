//! Probing politely against servers written by others: LLMock's verdict over three `sayso -p`
//! runs that probe for the window (a 429 on the models list, then a 404 on `/props`), and
//! llama-server's second run sending no probe. Needs `SAYSO_TEST_LLMOCK_URL`,
//! `SAYSO_TEST_LLAMA_URL`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::harness::{self, LLAMA_URL, LLMOCK_URL};
use crate::llmock_control::Mock;

const MODEL: &str = "gpt-4o";
const TEXT: &str = "Probing politely.";
/// No window in the config: the runs probe for it.
const CONFIG: &str = "log_level = \"debug\"\n[provider]\nretry_initial_delay_ms = 50\n";

/// Every path LLMock saw since the reset, in order.
async fn journal_paths(url: &str) -> Vec<String> {
    let mut admin = reqwest::Url::parse(url).unwrap();
    admin.set_path("/_llmock/requests");
    let v: Value = reqwest::get(admin).await.unwrap().json().await.unwrap();
    v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn llmock_probing_is_polite_across_runs() {
    let url = require_url!(LLMOCK_URL, "llmock_probing_is_polite_across_runs");
    let mock = Mock::take(&url).await;
    mock.script(json!([
        {"type": "fail", "status": 429, "retry_after": 1, "match": {"path": "/v1/models"}},
        {"type": "reply", "text": TEXT, "times": 3, "match": {"path": "/v1/chat/completions"}},
    ]))
    .await;
    let home = tempfile::tempdir().unwrap();
    for n in 1..=3 {
        let out = harness::run_sayso_in(
            home.path(),
            &url,
            MODEL,
            &[&format!("run {n}")],
            Some(CONFIG),
        )
        .await;
        assert_eq!(out.status, Some(0), "run {n}: {out:?}");
        assert_eq!(out.stdout, format!("{TEXT}\n"), "run {n}: {out:?}");
    }
    assert_eq!(
        journal_paths(&url).await,
        [
            // Run 1: the list is rate-limited; no other probe, the chat waits for Retry-After.
            "/v1/models",
            "/v1/chat/completions",
            // Run 2: the list says nothing of a window; the one guess answers 404.
            "/v1/models",
            "/props",
            "/v1/chat/completions",
            // Run 3: everything is in the cache.
            "/v1/chat/completions",
        ]
    );
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llama_second_run_sends_no_probe() {
    let url = require_url!(LLAMA_URL, "llama_second_run_sends_no_probe");
    let home = tempfile::tempdir().unwrap();
    let probes = |home: &std::path::Path| {
        let log = std::fs::read_to_string(home.join("state/sayso/sayso.log")).unwrap_or_default();
        log.matches("window probe").count()
    };
    // No tools: the tiny model then writes text and the run ends cleanly.
    let config = format!("{CONFIG}[chat]\ndefault_tools = []\n");
    let args = ["say hi"];
    let out = harness::run_sayso_in(home.path(), &url, "tiny", &args, Some(&config)).await;
    assert_eq!(out.status, Some(0), "{out:?}");
    assert_eq!(probes(home.path()), 1, "the first run probes once");
    let out = harness::run_sayso_in(home.path(), &url, "tiny", &args, Some(&config)).await;
    assert_eq!(out.status, Some(0), "{out:?}");
    assert_eq!(
        probes(home.path()),
        1,
        "the second run finds the window cached"
    );
    let cached = std::fs::read_dir(home.path().join("cache/sayso/windows"))
        .unwrap()
        .flatten()
        .map(|f| std::fs::read_to_string(f.path()).unwrap())
        .collect::<String>();
    assert!(cached.contains("\"tokens\": 4096"), "{cached}");
}
