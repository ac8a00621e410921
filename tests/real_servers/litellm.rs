//! llama-server's 4,096-token slot behind a LiteLLM proxy (`SAYSO_TEST_LITELLM_URL`, started by
//! `scripts/test` in front of the llama-server). LiteLLM reports no window, so sayso assumes
//! 8,192; the first request (the default tools and the system prompt) overflows the real slot,
//! and the proxy passes on llama.cpp's error with its count. sayso learns the window and the
//! count from it, retries smaller (fewer tools), and the run — a tool round included — ends
//! completed, every request inside the slot by the server's own count.

use serde_json::Value;

use crate::harness;

/// Environment variable with the LiteLLM proxy's base URL, e.g. `http://127.0.0.1:4000/v1`.
pub const LITELLM_URL: &str = "SAYSO_TEST_LITELLM_URL";
/// The model name the proxy serves (`litellm --model openai/tiny`).
const MODEL: &str = "openai/tiny";
const SLOT_WINDOW: u64 = 4096;

#[tokio::test]
async fn behind_litellm_a_4k_slot_overflows_once_then_a_tool_round_completes() {
    let url = require_url!(
        LITELLM_URL,
        "behind_litellm_a_4k_slot_overflows_once_then_a_tool_round_completes"
    );
    let out = harness::run_sayso(
        &url,
        MODEL,
        &[
            "--json",
            "--auto",
            "--max-turns",
            "3",
            "Please read notes.txt and tell me what it says.",
        ],
        None,
    )
    .await;
    assert_eq!(out.status, Some(0), "{out:?}");
    let events = out.json_events();
    let of = |kind: &str| -> Vec<&Value> { events.iter().filter(|e| e["type"] == kind).collect() };
    let finished = of("session_finished");
    assert_eq!(finished.len(), 1, "{out:?}");
    assert_eq!(finished[0]["status"], "completed", "{out:?}");
    // The overflow was met and recovered from, not resent as it was.
    let retried = events.iter().any(|e| {
        e["type"] == "notice"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.contains("trying a smaller request"))
    });
    assert!(
        retried,
        "the assumed 8k window overflows the 4k slot: {out:?}"
    );
    // A tool round: the model's call got its result and the turn went on.
    assert!(!of("tool_finished").is_empty(), "{out:?}");
    for done in of("turn_completed") {
        let ctx = &done["context"];
        assert_eq!(ctx["window"], SLOT_WINDOW, "{done}");
        assert!(
            ctx["used"].as_u64().is_some_and(|u| u <= SLOT_WINDOW),
            "{done}"
        );
    }
}
