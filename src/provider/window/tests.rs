//! The readers against the shapes each server really sends (`reference/context-windows.md`
//! §1), and the order in which their answers win.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use super::parse::{self, LmStudio, Probes};
use super::{
    Confidence, ContextWindow, DEFAULT_WINDOW, WindowCaps, WindowSource, capped, configured,
    server_root,
};
use crate::provider::{ProviderSettings, RetryPolicy};

fn v(text: &str) -> Value {
    serde_json::from_str(text).expect("test JSON")
}

/// llama.cpp `-c 8192 -np 2`: each slot has 4096.
const LLAMA_PROPS: &str = r#"{"default_generation_settings":{"n_ctx":4096,"params":{"seed":1}},"total_slots":2,"model_alias":"tiny","model_path":"/m/tiny.gguf","is_sleeping":false}"#;
const LLAMA_MODELS: &str = r#"{"object":"list","data":[{"id":"tiny","object":"model","owned_by":"llamacpp","meta":{"n_vocab":273,"n_ctx":4096,"n_ctx_train":8192,"n_params":108992,"size":435968}}]}"#;
const VLLM_MODELS: &str = r#"{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","owned_by":"vllm","root":"Qwen/Qwen3-8B","parent":null,"max_model_len":32768,"permission":[]}]}"#;
const OLLAMA_PS: &str = r#"{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":1,"size_vram":1,"expires_at":"2026-01-01T00:00:00Z","details":{},"context_length":32768}]}"#;
const OLLAMA_SHOW: &str = r#"{"parameters":"num_ctx 8192\nstop \"<|im_end|>\"","model_info":{"general.architecture":"llama","llama.context_length":131072},"capabilities":["completion"]}"#;
const LMSTUDIO_V1: &str = r#"{"models":[{"type":"llm","key":"gemma-3-270m-it-qat","loaded_instances":[{"id":"gemma-3-270m-it-qat","config":{"context_length":4096}}],"max_context_length":32768}]}"#;
const LMSTUDIO_V0: &str = r#"{"object":"list","data":[{"id":"meta-llama-3.1-8b-instruct","type":"llm","state":"not-loaded","max_context_length":131072}]}"#;
const OPENROUTER_MODELS: &str = r#"{"data":[{"id":"openai/gpt-4","context_length":8192,"top_provider":{"context_length":8192,"max_completion_tokens":4096,"is_moderated":true}}]}"#;

fn window(
    tokens: u64,
    source: WindowSource,
    confidence: Confidence,
) -> (u64, WindowSource, Confidence) {
    (tokens, source, confidence)
}

fn chosen(p: &Probes, model: &str) -> Option<(u64, WindowSource, Confidence)> {
    parse::choose(p, model).map(|w| (w.tokens, w.source, w.confidence))
}

#[test]
fn llama_props_gives_the_per_slot_n_ctx_not_divided_again() {
    assert_eq!(parse::llama_props(&v(LLAMA_PROPS)), Some(4096));
    assert_eq!(
        parse::llama_props(&json!({"default_generation_settings": {"n_ctx": 0}})),
        None
    );
    assert_eq!(parse::llama_props(&json!({"n_ctx": 4096})), None);
}

#[test]
fn llama_models_meta_is_read_whatever_model_was_asked_for() {
    let p = Probes {
        models: Some(v(LLAMA_MODELS)),
        ..Probes::default()
    };
    // llama-server answers to any model name: its only entry is the model.
    assert_eq!(
        chosen(&p, "anything"),
        Some(window(4096, WindowSource::LlamaCpp, Confidence::Loaded))
    );
    // An old build with only the trained length: a catalog number.
    let old = json!({"data": [{"id": "tiny", "meta": {"n_ctx_train": 8192}}]});
    let p = Probes {
        models: Some(old),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "tiny"),
        Some(window(8192, WindowSource::LlamaCpp, Confidence::Catalog))
    );
    // Still loading: `meta` is null, nothing to read.
    let loading = json!({"data": [{"id": "tiny", "meta": null}]});
    let p = Probes {
        models: Some(loading),
        ..Probes::default()
    };
    assert_eq!(chosen(&p, "tiny"), None);
}

#[test]
fn vllm_max_model_len_by_id_and_lora_falls_back_to_its_root() {
    let p = Probes {
        models: Some(v(VLLM_MODELS)),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "Qwen/Qwen3-8B"),
        Some(window(32768, WindowSource::Vllm, Confidence::Loaded))
    );
    assert_eq!(
        chosen(&p, "another-model"),
        None,
        "vLLM serves only what it lists"
    );
    let lora = json!({"data": [
        {"id": "base", "root": "base", "max_model_len": 16384},
        {"id": "my-lora", "root": "base", "parent": "base"}
    ]});
    let p = Probes {
        models: Some(lora),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "my-lora"),
        Some(window(16384, WindowSource::Vllm, Confidence::Loaded))
    );
}

#[test]
fn ollama_loaded_context_beats_the_modelfile_which_beats_the_default() {
    assert_eq!(parse::ollama_ps(&v(OLLAMA_PS), "qwen3:8b"), Some(32768));
    assert_eq!(parse::ollama_ps(&v(OLLAMA_PS), "llama3"), None);
    let latest = json!({"models": [{"name": "llama3:latest", "model": "llama3:latest", "context_length": 4096}]});
    assert_eq!(parse::ollama_ps(&latest, "llama3"), Some(4096));

    let show = parse::ollama_show(&v(OLLAMA_SHOW)).expect("an Ollama answer");
    assert_eq!(
        (show.tokens, show.confidence),
        (8192, Confidence::Loaded),
        "the Modelfile's num_ctx"
    );
    let p = Probes {
        ollama_ps: Some(v(OLLAMA_PS)),
        ollama_show: Some(v(OLLAMA_SHOW)),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "qwen3:8b"),
        Some(window(32768, WindowSource::Ollama, Confidence::Loaded)),
        "the loaded runner's context wins"
    );
    let p = Probes {
        ollama_ps: Some(json!({"models": []})),
        ollama_show: Some(v(OLLAMA_SHOW)),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "qwen3:8b"),
        Some(window(8192, WindowSource::Ollama, Confidence::Loaded))
    );
}

#[test]
fn ollama_without_num_ctx_assumes_its_default_not_the_trained_length() {
    let show = json!({"parameters": "stop \"<|im_end|>\"", "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}});
    let w = parse::ollama_show(&show).expect("an Ollama answer");
    assert_eq!((w.tokens, w.confidence), (4096, Confidence::Assumed));
    // A model trained on less than the default gets its trained length.
    let small =
        json!({"model_info": {"general.architecture": "tiny", "tiny.context_length": 2048}});
    assert_eq!(parse::ollama_show(&small).map(|w| w.tokens), Some(2048));
    // A Modelfile num_ctx above the trained length is capped, as Ollama caps it.
    let over = json!({"parameters": "num_ctx 65536", "model_info": {"general.architecture": "llama", "llama.context_length": 8192}});
    assert_eq!(parse::ollama_show(&over).map(|w| w.tokens), Some(8192));
    assert_eq!(
        parse::ollama_show(&json!({"error": "model not found"})),
        None
    );
}

#[test]
fn lm_studio_loaded_context_beats_its_maximum() {
    assert_eq!(
        parse::lmstudio_v1(&v(LMSTUDIO_V1), "gemma-3-270m-it-qat"),
        Some(LmStudio {
            loaded: Some(4096),
            max: Some(32768)
        })
    );
    assert_eq!(
        parse::lmstudio_v0(&v(LMSTUDIO_V0), "meta-llama-3.1-8b-instruct"),
        Some(LmStudio {
            loaded: None,
            max: Some(131072)
        })
    );
    let p = Probes {
        lmstudio_v1: Some(v(LMSTUDIO_V1)),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "gemma-3-270m-it-qat"),
        Some(window(4096, WindowSource::LmStudio, Confidence::Loaded))
    );
    let loaded_v0 = json!({"data": [{"id": "m", "state": "loaded", "loaded_context_length": 8192, "max_context_length": 131072}]});
    let p = Probes {
        lmstudio_v0: Some(loaded_v0),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "m"),
        Some(window(8192, WindowSource::LmStudio, Confidence::Loaded))
    );
    let p = Probes {
        lmstudio_v0: Some(v(LMSTUDIO_V0)),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "meta-llama-3.1-8b-instruct"),
        Some(window(131072, WindowSource::LmStudio, Confidence::Catalog))
    );
}

#[test]
fn openrouter_and_litellm_numbers_are_catalog_entries() {
    let p = Probes {
        models: Some(v(OPENROUTER_MODELS)),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "openai/gpt-4"),
        Some(window(8192, WindowSource::ModelsList, Confidence::Catalog))
    );
    let litellm = json!({"data": [{"id": "gpt4o-alias", "max_input_tokens": 128000, "max_output_tokens": 16384}]});
    let p = Probes {
        models: Some(litellm),
        ..Probes::default()
    };
    assert_eq!(
        chosen(&p, "gpt4o-alias"),
        Some(window(
            128000,
            WindowSource::ModelsList,
            Confidence::Catalog
        ))
    );
}

#[test]
fn a_loaded_number_beats_a_catalog_one_from_another_route() {
    // An LM Studio catalog entry and a llama.cpp /props on the same root (a proxy): /props wins.
    let p = Probes {
        props: Some(v(LLAMA_PROPS)),
        lmstudio_v0: Some(json!({"data": [{"id": "tiny", "max_context_length": 131072}]})),
        ..Probes::default()
    };
    let w = parse::choose(&p, "tiny").expect("a window");
    assert_eq!(
        (w.tokens, w.source, w.via),
        (
            4096,
            WindowSource::LlamaCpp,
            "/props default_generation_settings.n_ctx"
        )
    );
}

#[test]
fn nothing_answered_means_no_server_window() {
    assert_eq!(chosen(&Probes::default(), "m"), None);
    let p = Probes {
        models: Some(json!({"data": [{"id": "m", "object": "model", "owned_by": "library"}]})),
        props: Some(json!({"error": "not found"})),
        ..Probes::default()
    };
    assert_eq!(chosen(&p, "m"), None, "Ollama's /v1/models says nothing");
}

#[test]
fn listing_reads_whatever_window_an_entry_advertises() {
    let first = |text: &str| {
        v(text)["data"]
            .as_array()
            .and_then(|l| l.first())
            .and_then(parse::listed_window)
    };
    assert_eq!(first(VLLM_MODELS), Some(32768));
    assert_eq!(first(LLAMA_MODELS), Some(4096));
    assert_eq!(first(OPENROUTER_MODELS), Some(8192));
    assert_eq!(first(LMSTUDIO_V0), Some(131072));
    assert_eq!(first(r#"{"data":[{"id":"m"}]}"#), None);
}

fn settings() -> ProviderSettings {
    ProviderSettings {
        name: "t".into(),
        base_url: "http://127.0.0.1:1/v1".into(),
        base_url_from: Default::default(),
        api_key: None,
        api_key_env: None,
        headers: vec![],
        request_timeout: std::time::Duration::from_secs(1),
        idle_timeout: std::time::Duration::from_secs(1),
        first_token_timeout: std::time::Duration::from_secs(1),
        connect_timeout: std::time::Duration::from_secs(1),
        retry: RetryPolicy::default(),
        context_window: None,
        model_windows: Default::default(),
        window_caps: WindowCaps::default(),
    }
}

#[test]
fn the_model_entry_beats_the_provider_entry() {
    let mut s = settings();
    assert_eq!(configured(&s, "m"), None);
    s.context_window = Some(16384);
    assert_eq!(configured(&s, "m").map(|w| w.tokens), Some(16384));
    s.model_windows.insert("m".into(), 32768);
    let w = configured(&s, "m").expect("configured");
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (32768, WindowSource::Config, Confidence::Config)
    );
    assert_eq!(configured(&s, "other").map(|w| w.tokens), Some(16384));
}

#[test]
fn a_project_cap_only_lowers() {
    let server = ContextWindow::new(32768, WindowSource::Vllm, Confidence::Loaded, "x");
    assert_eq!(capped(server, None), server);
    assert_eq!(capped(server, Some(65536)), server, "never raised");
    let w = capped(server, Some(8000));
    assert_eq!((w.tokens, w.source), (8000, WindowSource::Config));
    let caps = WindowCaps {
        provider: Some(10),
        models: [("m".to_owned(), 20)].into(),
    };
    assert_eq!(caps.for_model("m"), Some(20));
    assert_eq!(caps.for_model("n"), Some(10));
}

#[test]
fn server_root_drops_the_v1_suffix_only() {
    assert_eq!(server_root("http://h:8080/v1"), "http://h:8080");
    assert_eq!(server_root("http://h:8080/v1/"), "http://h:8080");
    assert_eq!(server_root("http://h:8080"), "http://h:8080");
    assert_eq!(
        server_root("https://openrouter.ai/api/v1"),
        "https://openrouter.ai/api"
    );
}

#[test]
fn descriptions_name_the_route_and_how_far_to_trust_it() {
    assert_eq!(
        WindowSource::LlamaCpp.describe(),
        "llama.cpp /props (n_ctx)"
    );
    let w = ContextWindow::new(
        DEFAULT_WINDOW,
        WindowSource::Default,
        Confidence::Assumed,
        "no server reported one",
    );
    assert_eq!(
        w.describe(),
        "8192 tokens — assumed: nothing reported it (set context_window in the config)"
    );
    let vllm = ContextWindow::new(
        2048,
        WindowSource::Vllm,
        Confidence::Loaded,
        "/v1/models max_model_len",
    );
    assert_eq!(
        vllm.describe(),
        "2048 tokens — vLLM: /v1/models max_model_len (what the server runs the model with)"
    );
}

#[test]
fn openai_models_get_their_published_window_and_others_none() {
    let w = |m| super::known_model(m).map(|w| w.tokens);
    assert_eq!(w("gpt-4.1-mini"), Some(1_047_576));
    assert_eq!(w("gpt-4o-mini"), Some(128_000));
    assert_eq!(w("openai/gpt-5-mini"), Some(400_000));
    assert_eq!(w("o1-mini"), Some(128_000));
    assert_eq!(w("o3"), Some(200_000));
    assert_eq!(w("gpt-4"), Some(8_192));
    assert_eq!(w("qwen2.5-coder"), None);
    assert_eq!(w("llama-gpt-4o"), None);
}

#[test]
fn a_model_not_in_use_gets_the_config_s_window_else_the_list_s_capped_by_the_project() {
    let mut s = settings();
    s.model_windows.insert("big".into(), 65_536);
    s.window_caps.models.insert("listed".into(), 4_096);
    let client = crate::provider::Client::new(s).unwrap();
    assert_eq!(
        client.window_without_asking("big", Some(8_192)),
        Some(65_536)
    );
    assert_eq!(
        client.window_without_asking("listed", Some(32_768)),
        Some(4_096)
    );
    assert_eq!(
        client.window_without_asking("other", Some(32_768)),
        Some(32_768)
    );
    assert_eq!(
        client.window_without_asking("gpt-4o-mini", None),
        Some(128_000)
    );
    assert_eq!(client.window_without_asking("other", None), None);
}
