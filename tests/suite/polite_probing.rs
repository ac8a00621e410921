//! Probing politely, end to end with the real binary: before its first chat request a
//! `sayso -p` run sends at most two requests (the models list, then one targeted probe); a
//! second run finds the answer in its cache and sends none; a route that answered 404 is not
//! asked again; a 429 with `Retry-After` on a probe holds the next request to that server.

use pretty_assertions::assert_eq;
use serde_json::Value;

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, run, sayso};

/// llama-server 0.6.0-dev's `/v1/models` (`-c 8192 -np 2`): `meta.n_ctx` is the slot's window.
const LLAMA_MODELS: &str = r#"{"object":"list","data":[{"id":"tiny","object":"model","owned_by":"llamacpp","meta":{"n_vocab":273,"n_ctx":4096,"n_ctx_train":8192}}]}"#;
/// An older llama.cpp: only the trained length in the list, the slot's window in `/props`.
const LLAMA_OLD_MODELS: &str = r#"{"object":"list","data":[{"id":"tiny","object":"model","owned_by":"llamacpp","meta":{"n_ctx_train":8192}}]}"#;
const LLAMA_PROPS: &str = r#"{"default_generation_settings":{"n_ctx":4096},"total_slots":2}"#;

fn json(text: &str) -> Reply {
    Reply::Json(serde_json::from_str::<Value>(text).expect("test JSON"))
}

/// Every request path the fixture saw, in order (the query left out).
fn paths(fx: &Fixture) -> Vec<String> {
    fx.all_requests()
        .iter()
        .map(|r| r.path.split('?').next().unwrap_or_default().to_owned())
        .collect()
}

/// One `sayso -p` run in `home`, answered with a short text.
async fn one_run(fx: &Fixture, home: &std::path::Path) -> crate::support::Output {
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let mut cmd = sayso(home);
    cmd.args(["-p", "hello", "--no-session"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    out
}

#[tokio::test]
async fn a_first_run_sends_at_most_two_probes_and_a_second_none() {
    let fx = Fixture::start().await;
    fx.route("GET", "/v1/models", json(LLAMA_OLD_MODELS));
    fx.route("GET", "/props", json(LLAMA_PROPS));
    let home = home_with(&fx.base_url(), "");
    one_run(&fx, home.path()).await;
    assert_eq!(
        paths(&fx),
        ["/v1/models", "/props", "/v1/chat/completions"],
        "the list, the one probe it points to, then the chat"
    );
    // The second run: the window is in the cache, no probe at all.
    one_run(&fx, home.path()).await;
    assert_eq!(
        paths(&fx)[3..],
        ["/v1/chat/completions"],
        "{:?}",
        paths(&fx)
    );
    // The cache holds the endpoint without secrets, in a private file.
    let dir = home.path().join("cache/sayso/windows");
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(files[0].path()).unwrap();
    assert!(text.contains(&fx.base_url()), "{text}");
    assert!(text.contains("4096"), "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = files[0].metadata().unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}

#[tokio::test]
async fn a_list_that_says_the_window_needs_no_other_probe() {
    let fx = Fixture::start().await;
    fx.route("GET", "/v1/models", json(LLAMA_MODELS));
    let home = home_with(&fx.base_url(), "");
    one_run(&fx, home.path()).await;
    assert_eq!(paths(&fx), ["/v1/models", "/v1/chat/completions"]);
}

#[tokio::test]
async fn a_404_is_remembered_and_never_asked_again() {
    // A server that is none we know (LLMock's list): the one guess, /props, answers 404.
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        json(r#"{"object":"list","data":[{"id":"m","object":"model","owned_by":"llmock"}]}"#),
    );
    let home = home_with(&fx.base_url(), "");
    one_run(&fx, home.path()).await;
    assert_eq!(paths(&fx), ["/v1/models", "/props", "/v1/chat/completions"]);
    // Even with the day's answer gone, /props is not asked again.
    let dir = home.path().join("cache/sayso/windows");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["missing"], serde_json::json!(["/props"]), "{v}");
    v["models"] = serde_json::json!({});
    std::fs::write(&file, v.to_string()).unwrap();
    one_run(&fx, home.path()).await;
    assert_eq!(
        paths(&fx)[3..],
        ["/v1/models", "/v1/chat/completions"],
        "{:?}",
        paths(&fx)
    );
}

#[tokio::test]
async fn a_429_on_the_models_probe_holds_the_next_request_for_its_retry_after() {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        Reply::Status {
            status: 429,
            headers: vec![("Retry-After".into(), "1".into())],
            body: r#"{"error":{"message":"Rate limit exceeded."}}"#.into(),
        },
    );
    let home = home_with(&fx.base_url(), "");
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!(
            "model = \"m\"\nlog_level = \"info\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 0\n",
            fx.base_url()
        ),
    )
    .unwrap();
    one_run(&fx, home.path()).await;
    // No targeted probe after a 429, and the chat request came after sayso waited at the gate.
    assert_eq!(paths(&fx), ["/v1/models", "/v1/chat/completions"]);
    let log = std::fs::read_to_string(home.path().join("state/sayso/sayso.log")).unwrap();
    let waited = log
        .lines()
        .find(|l| l.contains("waiting before the next request"))
        .unwrap_or_else(|| panic!("no wait in the log:\n{log}"));
    assert!(
        waited.contains(&format!("127.0.0.1:{}", fx.port())),
        "{waited}"
    );
    // A rate-limited answer is not kept: the next run asks again.
    one_run(&fx, home.path()).await;
    assert_eq!(paths(&fx)[2], "/v1/models");
}

#[tokio::test]
async fn the_models_list_asks_lm_studio_s_own_route_only_of_lm_studio() {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        json(r#"{"object":"list","data":[{"id":"m","object":"model","owned_by":"llmock"}]}"#),
    );
    let list = crate::support::client(&fx.base_url())
        .list_models_detailed()
        .await
        .unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(
        paths(&fx),
        ["/v1/models"],
        "no /api/v0/models of a server that is not LM Studio"
    );
}

#[tokio::test]
async fn a_forgotten_window_leaves_the_disk_and_is_asked_again() {
    let fx = Fixture::start().await;
    fx.route("GET", "/v1/models", json(LLAMA_MODELS));
    let dir = tempfile::tempdir().unwrap();
    let client =
        || crate::support::client(&fx.base_url()).with_window_cache(dir.path().to_path_buf());
    assert_eq!(client().context_window("tiny").await.tokens, 4096);
    // Another client (another run) reads the disk: no request.
    assert_eq!(client().context_window("tiny").await.tokens, 4096);
    assert_eq!(paths(&fx), ["/v1/models"]);
    client().forget_window("tiny");
    assert_eq!(client().context_window("tiny").await.tokens, 4096);
    assert_eq!(paths(&fx), ["/v1/models", "/v1/models"]);
}
