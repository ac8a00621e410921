//! The endpoint mistakes of a first hour, through the real binary and the fixture server:
//! nothing listening, a missing or refused key, a base URL without `/v1` or with
//! `/chat/completions` appended — and the context gauge, `/context` and `/model` against a
//! server whose usage numbers cannot be true.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::{Tui, number_after};
use crate::support::{Output, run, sayso};
use crate::support::{closed_port, json_lines};

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

#[tokio::test]
async fn a_refused_connection_on_this_machine_is_retried_once_and_asks_if_the_server_runs() {
    let port = closed_port();
    let base = format!("http://127.0.0.1:{port}/v1");
    let home = home(&base, "");
    let out = ask(&home, &["hi"], &[]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stderr.matches("retrying").count(),
        1,
        "nothing listens there: one quick retry for a server that is starting, no more\n{}",
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
fn notice(from: &str, what: &str, to: &str, place: &str) -> String {
    format!("sayso: base_url {from} {what}; using {to} — set {place} to it to silence this\n")
}

/// How messages name the `base_url` of `home`'s config file.
fn in_config(home: &tempfile::TempDir) -> String {
    format!(
        "base_url in [provider] of {}",
        home.path().join("config/sayso/config.toml").display()
    )
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
    let line = notice(
        &root,
        "has no /v1",
        &format!("{root}/v1"),
        &in_config(&home),
    );
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
            &fx.base_url(),
            &in_config(&home)
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
    let h = home(&fx.base_url(), "");
    let out = ask(&h, &["hi"], &[]).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(chat_paths(&fx).len(), 1);
    assert!(
        out.stderr.contains(&format!(
            "the server answered 404: Not Found — nothing at {}/chat/completions: check {} (usually",
            fx.base_url(),
            in_config(&h)
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

/// The `context` of the `turn_completed` event of a `--json` run.
fn gauge(out: &Output) -> Value {
    let lines = json_lines(&out.stdout);
    let done = lines
        .iter()
        .find(|l| l["type"] == "turn_completed")
        .unwrap_or_else(|| panic!("no turn_completed: {}\n{}", out.stdout, out.stderr));
    done["context"].clone()
}

/// Characters of a chat request's `messages` and `tools` as JSON (more than sayso counts).
fn request_chars(body: &Value) -> u64 {
    (body["messages"].to_string().len() + body["tools"].to_string().len()) as u64
}

#[tokio::test]
async fn usage_that_cannot_be_true_is_ignored_and_the_gauge_grows_with_the_chat() {
    // Every reply says the prompt was 10 tokens, as a scripted server (the demo) does.
    let fx = Fixture::start().await;
    let chat = home(&fx.base_url(), "");
    let mut used = Vec::new();
    for (i, question) in [
        "first question",
        "a second, longer question about the same thing",
        "and a third one",
    ]
    .iter()
    .enumerate()
    {
        let answer = format!("Answer {i}: {}", "words ".repeat(60));
        fx.push(Reply::Stream(sse::text_reply(&[&answer])));
        let args: Vec<&str> = match i {
            0 => vec!["--json", question],
            _ => vec!["--json", "--continue", question],
        };
        let out = ask(&chat, &args, &[]).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
        let g = gauge(&out);
        assert_eq!(
            g["estimated"], true,
            "10 tokens cannot be this request: {g}"
        );
        let sent = request_chars(&fx.requests().last().unwrap().body);
        let n = g["used"].as_u64().unwrap();
        assert!(n * 8 >= sent, "{n} tokens for {sent} characters: {g}");
        used.push(n);
    }
    assert!(
        used.windows(2).all(|w| w[0] < w[1]),
        "the chat grew, so does the gauge: {used:?}"
    );

    // A server whose counts can be true (4 characters a token) is believed.
    let fx = Fixture::start().await;
    fx.context_limit(100_000, crate::support::context_limit::Overflow::LlamaCpp);
    fx.push(Reply::Stream(sse::text_reply(&["fine"])));
    let out = ask(&home(&fx.base_url(), ""), &["--json", "hi"], &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let g = gauge(&out);
    let counted = crate::support::context_limit::prompt_tokens(&fx.requests()[0].body);
    assert_eq!(
        (g["estimated"].clone(), g["used"].clone()),
        (json!(false), json!(counted + 10)),
        "{g}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gauge_context_and_model_say_the_same_window_and_the_same_tokens_in_use() {
    let fx = Fixture::start().await;
    // llama.cpp runs the model with 128,000 tokens; its models list gives no window.
    fx.route(
        "GET",
        "/props",
        Reply::Json(json!({"default_generation_settings": {"n_ctx": 128_000}, "total_slots": 1})),
    );
    fx.route(
        "GET",
        "/v1/models",
        Reply::Json(json!({"object": "list", "data": [{"id": "m"}, {"id": "other"}]})),
    );
    // Usage that cannot be true: 10 prompt tokens, whatever is sent.
    fx.push(Reply::Stream(sse::text_reply(&["First answer."])));
    fx.push(Reply::Stream(sse::text_reply(&["Second answer."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("first question").await;
    tui.wait_for("First answer.").await;
    tui.send("second question").await;
    tui.wait_for("Second answer.").await;
    let screen = tui.wait_for("of 128k").await;
    let gauge = number_after(&screen, "ctx ~");
    assert!(
        gauge >= 1,
        "a system prompt and tools are not 10 tokens:\n{screen}"
    );

    tui.send("/context").await;
    let screen = tui.wait_for("total ").await;
    assert!(
        screen.contains("context window: 128,000 tokens — llama.cpp"),
        "{screen}"
    );
    let in_use = number_after(&screen, "in use: ~");
    let percent = number_after(&screen, &format!("in use: ~{} tokens (", thousands(in_use)));
    assert_eq!(percent, gauge, "the gauge and /context agree:\n{screen}");
    assert_eq!(percent, in_use * 100 / 128_000, "{screen}");
    assert!(
        screen.contains("the server's usage (10 prompt tokens for"),
        "{screen}"
    );
    let total = number_after(&screen, "total              ~");
    assert_eq!(
        in_use, total,
        "in use is what the breakdown adds up to:\n{screen}"
    );

    tui.send("/model").await;
    let screen = tui.wait_for("* m ").await;
    let line = screen
        .lines()
        .find(|l| l.contains("* m "))
        .unwrap_or_default();
    assert!(line.contains("128,000 tokens"), "{screen}");
    assert!(!line.contains("not listed"), "{screen}");
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());
}

/// `1234567` → `1,234,567`, as sayso prints token counts.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
