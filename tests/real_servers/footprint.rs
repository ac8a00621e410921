//! sayso's own footprint counted by llama-server's tokenizer: the default system message and
//! tools array (`/tokenize`), and the whole first request as the server renders it with its
//! chat template (`usage.prompt_tokens`, or `n_prompt_tokens` when the slot is too small).
//!
//! The tiny model's vocabulary is bytes plus a few merges, so its counts are close to the byte
//! counts: an upper bound for real tokenizers, which take roughly 3.5–4 bytes a token.

use std::collections::HashMap;

use sayso::config::{Config, Overrides};
use sayso::provider::{ChatMessage, ChatRequest};
use sayso::tools::footprint;
use serde_json::{Value, json};

use crate::harness::{self, LLAMA_URL};

const MODEL: &str = "tiny";

async fn post(url: &str, body: &Value) -> (u16, Value) {
    let resp = reqwest::Client::new()
        .post(url)
        .json(body)
        .send()
        .await
        .expect("llama-server answers");
    let status = resp.status().as_u16();
    (status, resp.json().await.expect("a JSON body"))
}

async fn count_tokens(root: &str, text: &str) -> usize {
    let (status, body) = post(
        &format!("{root}/tokenize"),
        &json!({"content": text, "add_special": false, "parse_special": false}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["tokens"].as_array().expect("a token list").len()
}

#[tokio::test]
async fn llama_counts_the_default_footprint_in_tokens() {
    let url = require_url!(LLAMA_URL, "llama_counts_the_default_footprint_in_tokens");
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
    let setup = sayso::tools::setup::build(&config).expect("the default tools set up");
    let system = footprint::system_message(&setup, &config.system_prompt);
    let specs = footprint::specs(&setup);
    let tools = footprint::tools_json(&specs);

    let system_tokens = count_tokens(root, &system).await;
    let tools_tokens = count_tokens(root, &tools).await;

    let request = ChatRequest {
        tools: specs,
        ..ChatRequest::new(
            MODEL,
            vec![
                ChatMessage::System {
                    content: system.clone(),
                },
                ChatMessage::User {
                    content: "hi".into(),
                },
            ],
        )
    };
    let mut body = serde_json::to_value(request.body(false)).expect("a request body");
    body["max_tokens"] = json!(1);
    let (status, reply) = post(&format!("{url}/chat/completions"), &body).await;
    let prompt_tokens = match status {
        200 => reply["usage"]["prompt_tokens"].as_u64(),
        _ => reply["error"]["n_prompt_tokens"].as_u64(),
    }
    .unwrap_or_else(|| panic!("no prompt count in the {status} reply: {reply}"));
    let props: Value = reqwest::get(format!("{root}/props"))
        .await
        .expect("llama-server answers")
        .json()
        .await
        .expect("a JSON body");
    let window = props["default_generation_settings"]["n_ctx"].clone();

    harness::notice(&format!(
        "default footprint on llama-server (tiny byte-level vocabulary, {window}-token slot): \
         system message {} chars = {system_tokens} tokens; tools array {} chars = {tools_tokens} \
         tokens; first request (\"hi\") = {prompt_tokens} prompt tokens (HTTP {status})",
        system.chars().count(),
        tools.chars().count(),
    ));
    assert!(
        prompt_tokens as usize > system_tokens + tools_tokens,
        "the server's count is the whole rendered prompt, template included"
    );
}
