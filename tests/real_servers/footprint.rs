//! sayso's own footprint counted by llama-server's tokenizer: the default system message and
//! tools array (`/tokenize`), and the whole first request as the server renders it with its
//! chat template (`usage.prompt_tokens`, or `n_prompt_tokens` when the slot is too small); then
//! the tools `offer_for_window` picks for the server's window (what fits a quarter of it by
//! sayso's first estimate), which must fit in it.
//!
//! The tiny model's vocabulary is bytes plus a few merges, so its counts are close to the byte
//! counts: an upper bound for real tokenizers, which take roughly 3.5–4 bytes a token.

use std::collections::HashMap;

use sayso::config::{Config, Overrides};
use sayso::provider::{ChatMessage, ChatRequest};
use sayso::tools::configured::ToolSetup;
use sayso::tools::offer;
use serde_json::{Value, json};

use crate::harness::{self, LLAMA_URL};

const MODEL: &str = "tiny";

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let resp = sayso::provider::http::client_builder()
        .build()
        .unwrap()
        .post(url)
        .json(body)
        .send()
        .await
        .expect("llama-server answers");
    let status = resp.status().as_u16();
    (status, resp.json().await.expect("a JSON body"))
}

async fn count_tokens(root: &str, text: &str) -> u64 {
    let (status, body) = post(
        &format!("{root}/tokenize"),
        &json!({"content": text, "add_special": false, "parse_special": false}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["tokens"].as_array().expect("a token list").len() as u64
}

/// The window of one slot (`/props`).
async fn window(root: &str) -> u32 {
    let props: Value = sayso::provider::http::client_builder()
        .build()
        .unwrap()
        .get(format!("{root}/props"))
        .send()
        .await
        .expect("llama-server answers")
        .json()
        .await
        .expect("a JSON body");
    props["default_generation_settings"]["n_ctx"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or_else(|| panic!("no n_ctx in /props: {props}"))
}

/// The prompt tokens of a first request ("hi") offering `setup.active`, as the server counts
/// them, and the HTTP status (400 when it does not fit the slot).
async fn first_request_tokens(url: &str, setup: &ToolSetup, system_prompt: &str) -> (u64, u16) {
    let request = ChatRequest {
        tools: offer::specs(setup),
        ..ChatRequest::new(
            MODEL,
            vec![
                ChatMessage::System {
                    content: offer::system_message(setup, system_prompt, &environment()),
                },
                ChatMessage::User {
                    content: "hi".into(),
                    images: Vec::new(),
                },
            ],
        )
    };
    let mut body = serde_json::to_value(request.body(false)).expect("a request body");
    body["max_tokens"] = json!(1);
    let (status, reply) = post(&format!("{url}/chat/completions"), &body).await;
    let tokens = match status {
        200 => reply["usage"]["prompt_tokens"].as_u64(),
        _ => reply["error"]["n_prompt_tokens"].as_u64(),
    }
    .unwrap_or_else(|| panic!("no prompt count in the {status} reply: {reply}"));
    (tokens, status)
}

#[tokio::test]
async fn llama_counts_the_default_footprint_and_the_small_window_offer_fits() {
    let url = require_url!(
        LLAMA_URL,
        "llama_counts_the_default_footprint_and_the_small_window_offer_fits"
    );
    let root = url.trim_end_matches("/v1");
    let home = tempfile::tempdir().expect("a temp dir");
    let env: HashMap<String, String> = ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"]
        .iter()
        .map(|v| (v.to_string(), home.path().join(v).display().to_string()))
        .collect();
    let overrides = Overrides {
        cwd: home.path().to_path_buf(),
        ..Overrides::default()
    };
    let config = Config::load(&overrides, &env).expect("the default config loads");
    let setup = sayso::tools::configured::build(&config).expect("the default tools set up");
    let prompt = &config.system_prompt;

    let system = offer::system_message(&setup, prompt, &environment());
    let tools = offer::tools_json(&offer::specs(&setup));
    let system_tokens = count_tokens(root, &system).await;
    let tools_tokens = count_tokens(root, &tools).await;
    let (request_tokens, status) = first_request_tokens(&url, &setup, prompt).await;
    let window = window(root).await;
    harness::notice(&format!(
        "default footprint on llama-server (tiny byte-level vocabulary, {window}-token slot): \
         system message {} chars = {system_tokens} tokens; tools array {} chars = {tools_tokens} \
         tokens; first request (\"hi\") = {request_tokens} prompt tokens (HTTP {status})",
        system.chars().count(),
        tools.chars().count(),
    ));
    assert!(
        request_tokens > system_tokens + tools_tokens,
        "the server's count is the whole rendered prompt, template included"
    );

    let offer = offer::offer_for_window(window, &setup, prompt, &environment(), false);
    let offered = ToolSetup {
        active: offer.tools.clone(),
        ..setup.clone()
    };
    let (offered_tokens, status) = first_request_tokens(&url, &offered, prompt).await;
    harness::notice(&format!(
        "offered for {window} tokens: {} ({:?}): first request = {offered_tokens} prompt tokens",
        offer.tools.iter().cloned().collect::<Vec<_>>().join(", "),
        offer.notice.as_deref().unwrap_or("no notice"),
    ));
    assert_eq!(
        status, 200,
        "what offer_for_window offers fits the window it was given"
    );
    assert!(offered_tokens < u64::from(window));
}

/// A typical environment block (a project directory, no git repository).
fn environment() -> String {
    sayso::agent::instructions::environment(
        std::path::Path::new("/home/user/src/project"),
        "2026-12-01",
    )
}
