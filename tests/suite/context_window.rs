//! The model's context window, end to end: config files loaded for real, the real client, and
//! the fixture server answering each server's own routes (llama.cpp `/props`, vLLM and
//! OpenRouter `/v1/models`, Ollama `/api/ps` and `/api/show`, LM Studio `/api/v0/models`).

use std::collections::HashMap;

use pretty_assertions::assert_eq;
use sayso::config::{Config, ConfigError, Overrides};
use sayso::provider::{Client, Confidence, ModelInfo, WindowSource};
use serde_json::{Value, json};

use crate::support::client;
use crate::support::fixture::{Fixture, Reply, Step};

/// `Config::load` with `user` as the user file and `project` (if any) as `.sayso/config.toml`
/// of the working directory; `provider` is `--provider`.
fn load(user: &str, project: Option<&str>, provider: Option<&str>) -> Result<Config, ConfigError> {
    let home = tempfile::tempdir().unwrap();
    let user_file = home.path().join("config.toml");
    std::fs::write(&user_file, user).unwrap();
    if let Some(project) = project {
        std::fs::create_dir_all(home.path().join(".sayso")).unwrap();
        std::fs::write(home.path().join(".sayso/config.toml"), project).unwrap();
    }
    let env: HashMap<String, String> = [(
        "XDG_DATA_HOME".to_owned(),
        home.path().join("data").display().to_string(),
    )]
    .into();
    let overrides = Overrides {
        config_file: Some(user_file),
        cwd: home.path().to_path_buf(),
        provider: provider.map(str::to_owned),
        ..Overrides::default()
    };
    Config::load(&overrides, &env)
}

/// A user config pointing `[provider]` at `fx`, plus `extra`.
fn user_config(fx: &Fixture, extra: &str) -> String {
    format!(
        "model = \"m\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 0\n{extra}",
        fx.base_url()
    )
}

fn config_client(config: Config) -> Client {
    Client::new(config.provider).expect("client")
}

fn json(text: &str) -> Reply {
    Reply::Json(serde_json::from_str::<Value>(text).expect("test JSON"))
}

/// llama-server `-c 8192 -np 2`, as `reference/context-windows.md` shows it.
const LLAMA_PROPS_NP2: &str = r#"{"default_generation_settings":{"n_ctx":4096,"params":{}},"total_slots":2,"model_alias":"tiny","model_path":"/m/tiny.gguf","is_sleeping":false}"#;

#[tokio::test]
async fn the_config_beats_the_server_and_nothing_is_asked() {
    let fx = Fixture::start().await;
    fx.route("GET", "/props", json(LLAMA_PROPS_NP2));
    let config = load(&user_config(&fx, "context_window = 32768\n"), None, None).unwrap();
    let w = config_client(config).context_window("m").await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (32768, WindowSource::Config, Confidence::Config)
    );
    assert!(fx.all_requests().is_empty(), "{:?}", fx.all_requests());
}

#[tokio::test]
async fn a_model_entry_beats_the_provider_entry() {
    let fx = Fixture::start().await;
    let extra = "context_window = 32768\n[context_windows]\n\"qwen2.5-coder\" = 65536\n";
    let client = config_client(load(&user_config(&fx, extra), None, None).unwrap());
    assert_eq!(client.context_window("qwen2.5-coder").await.tokens, 65536);
    assert_eq!(client.context_window("other").await.tokens, 32768);
    assert!(fx.all_requests().is_empty());
}

#[tokio::test]
async fn a_named_provider_has_its_own_window_and_does_not_inherit_one() {
    let fx = Fixture::start().await;
    let user = format!(
        "[provider]\ncontext_window = 1000\n[providers.a]\nbase_url = \"{url}\"\ncontext_window = 2000\n[providers.b]\nbase_url = \"{url}\"\n",
        url = fx.base_url()
    );
    let a = config_client(load(&user, None, Some("a")).unwrap());
    assert_eq!(a.context_window("m").await.tokens, 2000);
    let b = config_client(load(&user, None, Some("b")).unwrap());
    let w = b.context_window("m").await;
    assert_eq!(
        (w.tokens, w.source),
        (8192, WindowSource::Default),
        "[provider]'s number is for another server"
    );
}

#[tokio::test]
async fn a_project_file_can_lower_the_window_but_never_raise_it() {
    let fx = Fixture::start().await;
    fx.route("GET", "/props", json(LLAMA_PROPS_NP2));
    let user = user_config(&fx, "");

    let lower = load(&user, Some("[provider]\ncontext_window = 2048\n"), None).unwrap();
    assert!(lower.warnings.is_empty(), "{:?}", lower.warnings);
    let w = config_client(lower).context_window("m").await;
    assert_eq!((w.tokens, w.source), (2048, WindowSource::Config));

    let higher = load(&user, Some("[provider]\ncontext_window = 100000\n"), None).unwrap();
    let w = config_client(higher).context_window("m").await;
    assert_eq!(
        (w.tokens, w.source),
        (4096, WindowSource::LlamaCpp),
        "the server's window stands"
    );

    let per_model = load(&user, Some("[context_windows]\nm = 1000\n"), None).unwrap();
    assert_eq!(
        config_client(per_model).context_window("m").await.tokens,
        1000
    );

    // Nor can it raise what the user configured.
    let user = user_config(&fx, "context_window = 16384\n");
    let higher = load(&user, Some("[provider]\ncontext_window = 65536\n"), None).unwrap();
    assert_eq!(
        config_client(higher).context_window("m").await.tokens,
        16384
    );
}

#[tokio::test]
async fn a_zero_window_names_the_file_line_and_key() {
    let fx = Fixture::start().await;
    let err = load(&user_config(&fx, "context_window = 0\n"), None, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("config.toml:5: key `provider.context_window`: must be greater than 0"),
        "{err}"
    );
    let err = load(
        &user_config(&fx, ""),
        Some("model = \"p\"\n[context_windows]\n\"m.1\" = 0\n"),
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains(".sayso/config.toml:3: key `context_windows.m.1`: must be greater than 0"),
        "{err}"
    );
    // The user file's zero is reported in the user file, even when the project sets the key too.
    let err = load(
        &user_config(&fx, "context_window = 0\n"),
        Some("[provider]\ncontext_window = 10\n"),
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(!err.contains(".sayso"), "{err}");
}

/// The window a fixture answering `routes` gives for `model`, and the paths it was asked.
async fn probed(
    routes: &[(&str, &str, Reply)],
    model: &str,
) -> (sayso::provider::ContextWindow, Vec<String>) {
    let fx = Fixture::start().await;
    for (method, path, reply) in routes {
        fx.route(method, path, reply.clone());
    }
    let w = client(&fx.base_url()).context_window(model).await;
    let mut paths: Vec<String> = fx
        .all_requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect();
    paths.sort();
    (w, paths)
}

#[tokio::test]
async fn llama_cpp_props_gives_the_per_slot_n_ctx() {
    let (w, paths) = probed(&[("GET", "/props", json(LLAMA_PROPS_NP2))], "tiny").await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (4096, WindowSource::LlamaCpp, Confidence::Loaded),
        "-c 8192 -np 2: 4096 per slot, not divided again by total_slots"
    );
    // The models list first (under /v1; here it says nothing), then one probe at the root.
    assert_eq!(paths, vec!["GET /props?model=tiny", "GET /v1/models"]);
    // Without -np the slots share one unified cache and each reports the whole -c.
    let unified = r#"{"default_generation_settings":{"n_ctx":8192},"total_slots":4}"#;
    let (w, _) = probed(&[("GET", "/props", json(unified))], "tiny").await;
    assert_eq!(w.tokens, 8192);
}

#[tokio::test]
async fn llama_cpp_models_meta_is_used_when_props_is_missing() {
    let models = r#"{"object":"list","data":[{"id":"tiny","object":"model","owned_by":"llamacpp","meta":{"n_vocab":273,"n_ctx":4096,"n_ctx_train":8192}}]}"#;
    let (w, _) = probed(&[("GET", "/v1/models", json(models))], "whatever").await;
    assert_eq!((w.tokens, w.source), (4096, WindowSource::LlamaCpp));
}

#[tokio::test]
async fn vllm_max_model_len() {
    let models = r#"{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","owned_by":"vllm","root":"Qwen/Qwen3-8B","parent":null,"max_model_len":32768,"permission":[]}]}"#;
    let (w, _) = probed(&[("GET", "/v1/models", json(models))], "Qwen/Qwen3-8B").await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (32768, WindowSource::Vllm, Confidence::Loaded)
    );
}

/// Ollama's `/v1/models` (`openai/openai.go` `ToListCompletion`: `owned_by` is the
/// namespace, "library" for its library's models).
const OLLAMA_MODELS: &str = r#"{"object":"list","data":[{"id":"qwen3:8b","object":"model","created":1718000000,"owned_by":"library"},{"id":"llama3:latest","object":"model","created":1718000000,"owned_by":"library"}]}"#;
/// LM Studio's `/v1/models` (lmstudio-ai/lms#416).
const LM_STUDIO_MODELS: &str = r#"{"data":[{"id":"qwen2.5-7b-instruct","object":"model","owned_by":"organization_owner"}],"object":"list"}"#;

const OLLAMA_SHOW: &str = r#"{"parameters":"stop \"<|im_end|>\"","model_info":{"general.architecture":"llama","llama.context_length":131072},"capabilities":["completion"]}"#;

#[tokio::test]
async fn ollama_the_loaded_context_wins_over_show() {
    let ps = r#"{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":1,"size_vram":1,"expires_at":"2026-01-01T00:00:00Z","details":{},"context_length":32768}]}"#;
    // The first call asks the Modelfile; the next (the window awaited loading) the runner.
    let fx = Fixture::start().await;
    fx.route("GET", "/v1/models", json(OLLAMA_MODELS));
    fx.route("GET", "/api/ps", json(ps));
    fx.route("POST", "/api/show", json(OLLAMA_SHOW));
    let c = client(&fx.base_url());
    assert_eq!(c.context_window("qwen3:8b").await.tokens, 4096);
    let w = c.context_window("qwen3:8b").await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (32768, WindowSource::Ollama, Confidence::Loaded)
    );
    let paths: Vec<String> = fx.all_requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, ["/v1/models", "/api/show", "/api/ps"]);
    // /api/show is asked about the model by name.
    let fx = Fixture::start().await;
    fx.route("GET", "/v1/models", json(OLLAMA_MODELS));
    fx.route("POST", "/api/show", json(OLLAMA_SHOW));
    client(&fx.base_url()).context_window("qwen3:8b").await;
    let show = fx
        .all_requests()
        .into_iter()
        .find(|r| r.path == "/api/show")
        .expect("/api/show asked");
    assert_eq!(show.body, json!({"model": "qwen3:8b"}));
}

#[tokio::test]
async fn ollama_not_loaded_uses_the_modelfile_num_ctx_or_assumes_its_default() {
    let with_num_ctx = r#"{"parameters":"num_ctx 8192\nstop \"<|im_end|>\"","model_info":{"general.architecture":"llama","llama.context_length":131072}}"#;
    let (w, _) = probed(
        &[
            ("GET", "/v1/models", json(OLLAMA_MODELS)),
            ("GET", "/api/ps", json(r#"{"models":[]}"#)),
            ("POST", "/api/show", json(with_num_ctx)),
        ],
        "llama3",
    )
    .await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (8192, WindowSource::Ollama, Confidence::Loaded)
    );
    let (w, _) = probed(
        &[
            ("GET", "/v1/models", json(OLLAMA_MODELS)),
            ("POST", "/api/show", json(OLLAMA_SHOW)),
        ],
        "llama3",
    )
    .await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (4096, WindowSource::Ollama, Confidence::Assumed),
        "not the trained 131072: Ollama would silently cut at its num_ctx"
    );
}

#[tokio::test]
async fn an_assumed_ollama_window_is_asked_again_once_the_model_is_loaded() {
    let fx = Fixture::start().await;
    fx.route("GET", "/v1/models", json(OLLAMA_MODELS));
    fx.route("POST", "/api/show", json(OLLAMA_SHOW));
    let c = client(&fx.base_url());
    assert_eq!(c.context_window("llama3").await.tokens, 4096);
    let ps =
        r#"{"models":[{"name":"llama3:latest","model":"llama3:latest","context_length":16384}]}"#;
    fx.route("GET", "/api/ps", json(ps));
    let w = c.context_window("llama3").await;
    assert_eq!((w.tokens, w.confidence), (16384, Confidence::Loaded));
    let asked = fx.all_requests().len();
    assert_eq!(c.context_window("llama3").await.tokens, 16384);
    assert_eq!(
        fx.all_requests().len(),
        asked,
        "the loaded window is cached"
    );
}

#[tokio::test]
async fn lm_studio_loaded_context_length() {
    let v0 = r#"{"object":"list","data":[{"id":"qwen2.5-7b-instruct","type":"llm","state":"loaded","loaded_context_length":8192,"max_context_length":131072}]}"#;
    let (w, paths) = probed(
        &[
            ("GET", "/v1/models", json(LM_STUDIO_MODELS)),
            ("GET", "/api/v0/models", json(v0)),
        ],
        "qwen2.5-7b-instruct",
    )
    .await;
    assert_eq!(paths, ["GET /api/v0/models", "GET /v1/models"]);
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (8192, WindowSource::LmStudio, Confidence::Loaded)
    );
}

#[tokio::test]
async fn openrouter_context_length_in_the_models_list() {
    let models = r#"{"data":[{"id":"openai/gpt-4","context_length":8192,"top_provider":{"context_length":8192,"max_completion_tokens":4096,"is_moderated":true}},{"id":"x/y","context_length":200000}]}"#;
    let (w, _) = probed(&[("GET", "/v1/models", json(models))], "x/y").await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (200000, WindowSource::ModelsList, Confidence::Catalog)
    );
}

#[tokio::test]
async fn a_server_that_says_nothing_gives_the_default() {
    let not_found = Reply::Status {
        status: 404,
        headers: vec![],
        body: "{}".into(),
    };
    let (w, paths) = probed(&[("GET", "/v1/models", not_found)], "m").await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (8192, WindowSource::Default, Confidence::Assumed)
    );
    assert_eq!(
        paths,
        ["GET /props?model=m", "GET /v1/models"],
        "the list, then the one guess"
    );
    // Nothing listening at all: the same, no error.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let w = client(&format!("http://127.0.0.1:{port}/v1"))
        .context_window("m")
        .await;
    assert_eq!(w.source, WindowSource::Default);
}

#[tokio::test]
async fn a_route_that_never_answers_is_given_up_on() {
    // An older llama.cpp whose list has only the trained length, and a /props that stalls:
    // the catalog number, once the probe's time is up.
    let old = r#"{"data":[{"id":"m","owned_by":"llamacpp","meta":{"n_ctx_train":2048}}]}"#;
    let (w, paths) = probed(
        &[
            ("GET", "/props", Reply::Stream(vec![Step::Stall])),
            ("GET", "/v1/models", json(old)),
        ],
        "m",
    )
    .await;
    assert_eq!(
        (w.tokens, w.source, w.confidence),
        (2048, WindowSource::LlamaCpp, Confidence::Catalog)
    );
    assert_eq!(paths, ["GET /props?model=m", "GET /v1/models"]);
}

#[tokio::test]
async fn the_second_call_asks_nothing_and_clones_share_the_cache() {
    let fx = Fixture::start().await;
    fx.route("GET", "/props", json(LLAMA_PROPS_NP2));
    let c = client(&fx.base_url());
    let first = c.context_window("tiny").await;
    let asked = fx.all_requests().len();
    assert!(asked > 0);
    assert_eq!(c.context_window("tiny").await, first);
    assert_eq!(c.clone().context_window("tiny").await, first);
    assert_eq!(fx.all_requests().len(), asked, "no request the second time");
    // Another model is another entry; a refresh asks again.
    c.context_window("other").await;
    let after_other = fx.all_requests().len();
    assert!(after_other > asked);
    assert_eq!(c.refresh_context_window("tiny").await, first);
    assert!(fx.all_requests().len() > after_other);
}

#[tokio::test]
async fn the_detailed_models_list_carries_each_window() {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        json(r#"{"object":"list","data":[{"id":"b","max_model_len":32768},{"id":"a","owned_by":"vllm"}]}"#),
    );
    let c = client(&fx.base_url());
    assert_eq!(
        c.list_models_detailed().await.unwrap(),
        vec![
            ModelInfo {
                id: "a".into(),
                context_window: None
            },
            ModelInfo {
                id: "b".into(),
                context_window: Some(32768)
            },
        ]
    );
    assert_eq!(c.list_models().await.unwrap(), vec!["a", "b"]);
}

#[tokio::test]
async fn lm_studio_windows_come_from_its_own_models_list() {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        json(r#"{"data":[{"id":"qwen2.5-7b-instruct","object":"model","owned_by":"organization_owner"},{"id":"gemma","object":"model","owned_by":"organization_owner"}]}"#),
    );
    fx.route(
        "GET",
        "/api/v0/models",
        json(r#"{"object":"list","data":[{"id":"qwen2.5-7b-instruct","state":"loaded","loaded_context_length":8192,"max_context_length":131072},{"id":"gemma","state":"not-loaded","max_context_length":32768}]}"#),
    );
    let list = client(&fx.base_url()).list_models_detailed().await.unwrap();
    let windows: Vec<(&str, Option<u64>)> = list
        .iter()
        .map(|m| (m.id.as_str(), m.context_window))
        .collect();
    assert_eq!(
        windows,
        vec![("gemma", Some(32768)), ("qwen2.5-7b-instruct", Some(8192))]
    );
}

#[tokio::test]
async fn config_check_says_where_the_window_will_come_from() {
    let check = |extra: &'static str| async move {
        let home = crate::support::home_with("http://127.0.0.1:9/v1", extra);
        let mut cmd = crate::support::sayso(home.path());
        cmd.args(["config", "check"]);
        crate::support::run(cmd).await
    };
    let out = check("").await;
    assert!(
        out.stdout.contains(
            "context:      asked of the server when a chat starts (8192 if it does not say)\n"
        ),
        "{}",
        out.stdout
    );
    let out = check("context_window = 32768\n[context_windows]\nm = 65536\n").await;
    assert!(
        out.stdout
            .contains("context:      65536 tokens ([context_windows])\n"),
        "{}",
        out.stdout
    );
}
