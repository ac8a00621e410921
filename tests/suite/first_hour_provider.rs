//! The endpoint mistakes of a first hour, through the real binary and the fixture server:
//! nothing listening, a missing or refused key, a base URL without `/v1` or with
//! `/chat/completions` appended — and the context gauge, `/context` and `/model` against a
//! server whose usage numbers cannot be true.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::Tui;
use crate::support::{Output, run, sayso};

/// A private home whose config points at `base_url` with three quick retries (a failure that is
/// retried shows it at once), plus `extra` lines in `[provider]`.
fn home(base_url: &str, extra: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!(
            "model = \"m\"\n[provider]\nbase_url = \"{base_url}\"\nmax_retries = 3\nretry_initial_delay_ms = 1\nretry_max_delay_ms = 1\n{extra}"
        ),
    )
    .unwrap();
    home
}

async fn ask(home: &tempfile::TempDir, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = sayso(home.path());
    cmd.arg("-p").args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run(cmd).await
}

fn status(code: u16, body: &str) -> Reply {
    Reply::Status {
        status: code,
        headers: vec![],
        body: body.into(),
    }
}

/// The paths of the chat requests the fixture received.
fn chat_paths(fx: &Fixture) -> Vec<String> {
    fx.requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|p| p.ends_with("/chat/completions"))
        .collect()
}

/// A port on 127.0.0.1 where nothing listens.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn a_refused_connection_on_this_machine_fails_at_once_and_asks_if_the_server_runs() {
    let port = closed_port();
    let base = format!("http://127.0.0.1:{port}/v1");
    let home = home(&base, "");
    let out = ask(&home, &["hi"], &[]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        !out.stderr.contains("retrying"),
        "nothing listens there: no retry can help\n{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "could not connect to {base}/chat/completions: Connection refused"
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(&format!(
            "— is the server running at http://127.0.0.1:{port}?"
        )),
        "{}",
        out.stderr
    );
}

/// LiteLLM's proxy without a key: its auth error, here in a 500 as some of its versions send.
const LITELLM_NO_KEY: &str = r#"{"error":{"message":"Authentication Error, No api key passed in.","type":"auth_error","param":"None","code":"401"}}"#;

#[tokio::test]
async fn litellm_s_no_key_500_is_not_retried_and_says_which_variable_is_unset() {
    let fx = Fixture::start().await;
    for _ in 0..4 {
        fx.push(status(500, LITELLM_NO_KEY));
    }
    let home = home(&fx.base_url(), "");
    let out = ask(&home, &["hi"], &[]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(chat_paths(&fx).len(), 1, "{}", out.stderr);
    assert!(!out.stderr.contains("retrying"), "{}", out.stderr);
    assert!(
        out.stderr.contains("Authentication Error, No api key passed in. — no API key was sent: $OPENAI_API_KEY is not set"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn a_refused_key_names_the_variable_it_came_from_and_never_the_key() {
    let fx = Fixture::start().await;
    for _ in 0..4 {
        fx.push(status(
            401,
            r#"{"error":{"message":"Authentication Error, Invalid proxy server token passed.","type":"token_not_found_in_db","code":"401"}}"#,
        ));
    }
    let home = home(&fx.base_url(), "api_key_env = \"PROXY_KEY\"\n");
    let out = ask(&home, &["hi"], &[("PROXY_KEY", "sk-first-hour-1234")]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 1, "{}", out.stderr);
    assert_eq!(
        reqs[0].header("authorization"),
        Some("Bearer sk-first-hour-1234")
    );
    assert!(
        out.stderr.contains("the server answered 401: Unauthorized: Authentication Error, Invalid proxy server token passed. — the key came from $PROXY_KEY: check it"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("sk-first-hour"), "{}", out.stderr);
}

/// The notice for a corrected base URL, as the text printer shows it.
fn notice(from: &str, what: &str, to: &str) -> String {
    format!("sayso: base_url {from} {what}; using {to} — set it in the config to silence this\n")
}

#[tokio::test]
async fn a_base_url_without_v1_is_corrected_once_with_a_notice_and_kept() {
    let fx = Fixture::start().await;
    // The server serves /v1 only, like vLLM or LiteLLM.
    fx.route(
        "POST",
        "/chat/completions",
        status(404, r#"{"detail":"Not Found"}"#),
    );
    fx.route("GET", "/models", status(404, r#"{"detail":"Not Found"}"#));
    fx.push(sse::tool_call_reply(&[(
        "c1",
        "read_file",
        json!({"filepath": "notes.txt", "start_line": null, "end_line": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["The notes say hello."])));
    let root = format!("http://127.0.0.1:{}", fx.port());
    let home = home(&root, "");
    std::fs::write(home.path().join("notes.txt"), "hello\n").unwrap();
    let out = ask(&home, &["read notes.txt"], &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), "The notes say hello.");
    assert_eq!(
        chat_paths(&fx),
        [
            "/chat/completions",
            "/v1/chat/completions",
            "/v1/chat/completions"
        ],
        "one correction, then the corrected base for the rest of the chat"
    );
    let line = notice(&root, "has no /v1", &format!("{root}/v1"));
    assert_eq!(out.stderr.matches(&line).count(), 1, "{}", out.stderr);
}

#[tokio::test]
async fn a_base_url_ending_in_chat_completions_is_stripped_once_with_a_notice() {
    let fx = Fixture::start().await;
    fx.route(
        "POST",
        "/v1/chat/completions/chat/completions",
        status(404, "Not Found"),
    );
    fx.push(Reply::Stream(sse::text_reply(&["fine"])));
    let pasted = format!("{}/chat/completions", fx.base_url());
    let home = home(&pasted, "");
    let out = ask(&home, &["hi"], &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), "fine");
    assert_eq!(
        chat_paths(&fx),
        [
            "/v1/chat/completions/chat/completions",
            "/v1/chat/completions"
        ]
    );
    assert!(
        out.stderr.contains(&notice(
            &pasted,
            "ends in /chat/completions",
            &fx.base_url()
        )),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn a_404_names_the_url_asked_and_what_to_check() {
    // Nothing at /v1/chat/completions: there is no obvious correction, the URL is named.
    let fx = Fixture::start().await;
    fx.route("POST", "/v1/chat/completions", status(404, "Not Found"));
    let out = ask(&home(&fx.base_url(), ""), &["hi"], &[]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(chat_paths(&fx).len(), 1);
    assert!(
        out.stderr.contains(&format!(
            "the server answered 404: Not Found: Not Found — nothing at {}/chat/completions: check base_url in the config",
            fx.base_url()
        )),
        "{}",
        out.stderr
    );

    // Without /v1, and the correction 404s too: both URLs are named.
    let fx = Fixture::start().await;
    fx.route("POST", "/chat/completions", status(404, "Not Found"));
    fx.route("POST", "/v1/chat/completions", status(404, "Not Found"));
    let root = format!("http://127.0.0.1:{}", fx.port());
    let out = ask(&home(&root, ""), &["hi"], &[]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        chat_paths(&fx),
        ["/chat/completions", "/v1/chat/completions"]
    );
    assert!(
        out.stderr.contains(&format!(
            "— nothing at {root}/chat/completions, nor at {root}/v1/chat/completions: check base_url"
        )),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("using"), "{}", out.stderr);
}

/// The JSON lines of a `--json` run.
fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}
