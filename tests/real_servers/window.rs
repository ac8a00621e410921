//! The context window llama-server really reports, and finding it as a local server. Needs
//! `SAYSO_TEST_LLAMA_URL`; `../shared/servers/realservers.sh` starts it with `-c 8192 -np 2`.

use std::time::Duration;

use pretty_assertions::assert_eq;
use sayso::provider::discover::{ServerKind, probe_ports};
use sayso::provider::{Confidence, WindowSource};

use crate::harness::{self, LLAMA_URL};

/// `-c 8192 -np 2` (the start script's flags): each of the 2 slots gets 4096 tokens.
const SLOT_WINDOW: u64 = 4096;

#[tokio::test]
async fn llama_reports_the_window_the_server_was_started_with() {
    let url = require_url!(
        LLAMA_URL,
        "llama_reports_the_window_the_server_was_started_with"
    );
    let client = harness::client(&url);
    let w = client.context_window("tiny").await;
    assert_eq!(
        (w.tokens, w.source, w.confidence, w.via),
        (
            SLOT_WINDOW,
            WindowSource::LlamaCpp,
            Confidence::Loaded,
            // The models list carries the slot's window: /props is not asked.
            "/v1/models meta.n_ctx"
        ),
        "{}",
        w.describe()
    );
    // llama-server answers to any model name; its models list says the same.
    let listed = client.list_models_detailed().await.expect("models");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0].context_window, Some(SLOT_WINDOW), "{listed:?}");
}

#[tokio::test]
async fn llama_server_is_found_as_a_local_server() {
    let url = require_url!(LLAMA_URL, "llama_server_is_found_as_a_local_server");
    let Some(port) = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse::<u16>().ok())
    else {
        harness::notice(&format!(
            "skipping llama_server_is_found_as_a_local_server: {url} is not on 127.0.0.1"
        ));
        return;
    };
    // Guessed as vLLM from the port: the answer corrects it.
    let found = probe_ports(&[(ServerKind::Vllm, port)], Duration::from_secs(5)).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, ServerKind::LlamaCpp);
    assert_eq!(found[0].base_url, format!("http://127.0.0.1:{port}/v1"));
    assert_eq!(found[0].models, vec!["tiny".to_owned()]);
}
