//! Shared test support: the fixture server, a client for it, and the real binary in isolation.

pub mod context_limit;
pub mod controller;
pub mod fixture;
pub mod fixture_overflow;
pub mod fixture_reasoning;
pub mod fixture_timeouts;
pub mod sessions;
pub mod tui;

use std::path::Path;
use std::time::Duration;

use futures_util::StreamExt;
use sayso::provider::{
    AssistantMessage, ChatMessage, ChatRequest, Client, ProviderError, ProviderSettings,
    RetryPolicy, StreamEvent,
};

/// Client settings for `base_url` with short, test-friendly timings.
pub fn settings(base_url: &str) -> ProviderSettings {
    ProviderSettings {
        name: "test".into(),
        base_url: base_url.into(),
        base_url_from: Default::default(),
        api_key: Some("sk-test".into()),
        api_key_env: Some("SAYSO_TEST_KEY".into()),
        headers: vec![],
        request_timeout: Duration::from_secs(30),
        idle_timeout: Duration::from_secs(10),
        first_token_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(10),
        retry: RetryPolicy {
            max_retries: 3,
            initial_delay: Duration::from_millis(20),
            max_delay: Duration::from_millis(200),
        },
        context_window: None,
        model_windows: Default::default(),
        window_caps: Default::default(),
        reasoning: Default::default(),
    }
}

pub fn client(base_url: &str) -> Client {
    Client::new(settings(base_url)).expect("client")
}

pub fn user_request(text: &str) -> ChatRequest {
    ChatRequest::new(
        "test-model",
        vec![ChatMessage::User {
            content: text.into(),
            images: Vec::new(),
        }],
    )
}

/// Every event of one streamed completion, and its result.
pub async fn collect(
    client: &Client,
    req: &ChatRequest,
) -> (Vec<StreamEvent>, Result<AssistantMessage, ProviderError>) {
    let events: Vec<StreamEvent> = client.stream_chat(req).collect().await;
    let result = match events.last() {
        Some(StreamEvent::Finished(r)) => r.clone(),
        other => panic!("stream did not end with Finished: {other:?}"),
    };
    (events, result)
}

/// The real `sayso` binary with a private home: empty XDG dirs, no key or endpoint from the
/// developer's environment.
pub fn sayso(home: &Path) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_sayso"));
    cmd.env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("SAYSO_MODEL")
        .env_remove("SAYSO_CONFIG")
        // Servers running on this machine must not change what a test sees.
        .env("SAYSO_PROBE_PORTS", "none")
        .current_dir(home)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    cmd
}

/// A private home whose user config points at `base_url` without retries, plus `extra` TOML.
pub fn home_with(base_url: &str, extra: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!("model = \"m\"\n[provider]\nbase_url = \"{base_url}\"\nmax_retries = 0\n{extra}"),
    )
    .unwrap();
    home
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

pub async fn run(mut cmd: tokio::process::Command) -> Output {
    let out = cmd.output().await.expect("run sayso");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The tool messages (call id, content) of a request body, in order.
pub fn tool_messages(body: &serde_json::Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap().to_owned(),
                m["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// The tool message for call `id` in the last request the fixture received.
pub fn result_of(fx: &fixture::Fixture, id: &str) -> String {
    let reqs = fx.requests();
    tool_messages(&reqs.last().unwrap().body)
        .into_iter()
        .find(|(i, _)| i == id)
        .unwrap_or_else(|| panic!("no result for {id}"))
        .1
}

/// The npm MCP servers' directory (`SAYSO_TEST_MCP_DIR`, installed by `scripts/test`), or `None`
/// after saying why `test` skips. In CI (`CI` set) a missing directory fails the test instead.
pub fn mcp_dir(test: &str) -> Option<std::path::PathBuf> {
    match std::env::var_os("SAYSO_TEST_MCP_DIR").map(std::path::PathBuf::from) {
        Some(d) if d.join("node_modules/@modelcontextprotocol").is_dir() => Some(d),
        _ if std::env::var_os("CI").is_some() => {
            panic!("{test}: SAYSO_TEST_MCP_DIR must hold the MCP servers in CI")
        }
        _ => {
            eprintln!(
                "skipping {test}: SAYSO_TEST_MCP_DIR is not set (scripts/test installs the MCP servers)"
            );
            None
        }
    }
}

/// The JSON lines of a `--json` run (or of any JSON Lines text), each parsed.
pub fn json_lines(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The tool names a request offered.
pub fn offered(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Owned pairs, to compare with [`tool_messages`].
pub fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// A `run_command` call for a fixture reply: (id, tool, arguments).
pub fn shell(id: &str, cmd: &str) -> (String, &'static str, serde_json::Value) {
    (
        id.into(),
        "run_command",
        serde_json::json!({"cmd": cmd, "flag": null}),
    )
}

/// A port on 127.0.0.1 where nothing listens.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
