//! llama-server started with `--no-jinja` (`SAYSO_TEST_LLAMA_NOJINJA_URL`): it answers any
//! request carrying `tools` with a 500 `tools param requires --jinja flag`. sayso falls back,
//! once and saying so, to describing the tools in the system message (Hermes format) and
//! reading calls from the text; the run ends cleanly whatever the tiny model writes (it starts
//! `<tool_call>` and, without llama.cpp's grammar, writes no valid JSON: an error result to the
//! model, not a crash or a hang).
//!
//! Start one: `llama-server -m tiny.gguf --alias tiny --host 127.0.0.1 --port PORT --no-jinja
//! -c 4096 -np 1 -t 1 --no-webui`.

use serde_json::Value;

use crate::harness;

/// Environment variable with the `--no-jinja` llama-server's base URL.
pub const NOJINJA_URL: &str = "SAYSO_TEST_LLAMA_NOJINJA_URL";

#[tokio::test]
async fn a_server_refusing_tools_gets_them_described_and_the_run_ends_cleanly() {
    let url = require_url!(
        NOJINJA_URL,
        "a_server_refusing_tools_gets_them_described_and_the_run_ends_cleanly"
    );
    let out = harness::run_sayso(
        &url,
        "tiny",
        &["--json", "--max-turns", "1", "list the files here"],
        Some("[provider]\nmax_retries = 1\n"),
    )
    .await;
    assert!(matches!(out.status, Some(0 | 1)), "{out:?}");
    let events = out.json_events();
    let said: Vec<&Value> = events
        .iter()
        .filter(|e| {
            e["type"] == "notice"
                && e["message"]
                    .as_str()
                    .is_some_and(|m| m.contains("the server refused the tools parameter"))
        })
        .collect();
    assert_eq!(said.len(), 1, "the fallback is said once: {out:?}");
    let refusal_ended_it = events.iter().any(|e| {
        e["type"] == "error"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.contains("requires --jinja"))
    });
    assert!(
        !refusal_ended_it,
        "the refusal does not end the run: {out:?}"
    );
    assert_eq!(
        events.last().map(|e| e["type"].clone()),
        Some(Value::from("session_finished")),
        "{out:?}"
    );
    // Every call the model wrote got exactly one result.
    let started = events
        .iter()
        .filter(|e| e["type"] == "tool_use_end")
        .count();
    let finished = events
        .iter()
        .filter(|e| e["type"] == "tool_finished")
        .count();
    assert_eq!(started, finished, "{out:?}");
}
