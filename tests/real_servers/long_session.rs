//! A session that would overflow llama-server's window runs to the end: each run continues the
//! saved session (`--continue`) with a long message, until the history is far past the
//! 4,096-token slot, and every run completes — pruned, compacted or recovered from the server's
//! own `exceed_context_size_error` — with the gauge inside the window. Needs
//! `SAYSO_TEST_LLAMA_URL` (`-c 8192 -np 2`: 4,096 tokens a slot; the tiny model's byte-level
//! vocabulary makes a token about a character).

use serde_json::Value;

use crate::harness::{self, LLAMA_URL, Sayso};

const SLOT_WINDOW: u64 = 4096;
const RUNS: usize = 6;

/// A 1,500-character message: the history outgrows the window in three runs.
fn long_message(run: usize) -> String {
    format!(
        "Message {run}. {}",
        "Please keep this paragraph in mind for later. ".repeat(32)
    )
}

fn of_kind<'a>(events: &'a [Value], kind: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == kind).collect()
}

#[tokio::test]
async fn llama_a_session_past_the_window_completes_every_run() {
    let url = require_url!(
        LLAMA_URL,
        "llama_a_session_past_the_window_completes_every_run"
    );
    let home = tempfile::tempdir().expect("temporary directory");
    let mut compactions = 0;
    let mut runs: Vec<Sayso> = Vec::new();
    for run in 0..RUNS {
        let message = long_message(run);
        let mut args = vec!["--json", "--tools", "read_file"];
        if run > 0 {
            args.push("--continue");
        }
        args.push(&message);
        let out = harness::run_sayso_in(home.path(), &url, "tiny", &args, None).await;
        assert_eq!(out.status, Some(0), "run {run}: {out:?}");
        let events = out.json_events();
        let finished = of_kind(&events, "session_finished");
        assert_eq!(finished.len(), 1, "run {run}: {out:?}");
        assert_eq!(finished[0]["status"], "completed", "run {run}: {out:?}");
        compactions += of_kind(&events, "compacted").len();
        // The gauge: the server's own count, inside its window.
        for done in of_kind(&events, "turn_completed") {
            let ctx = &done["context"];
            assert_eq!(ctx["window"], SLOT_WINDOW, "run {run}: {done}");
            let used = ctx["used"].as_u64().unwrap_or(u64::MAX);
            assert!(used <= SLOT_WINDOW, "run {run}: {done}");
        }
        runs.push(out);
    }
    // Six 1,500-character messages cannot all be there: the history was compacted.
    assert!(compactions >= 1, "no compaction in {RUNS} runs: {runs:#?}");
}
