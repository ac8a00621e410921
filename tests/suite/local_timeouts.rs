//! Time limits that fit local hardware, against the fixture server: a first token slower than
//! the idle timeout but within `first_token_timeout_s` arrives, a reply that keeps streaming
//! past `request_timeout_s` completes in one request, and only what may improve is retried.
//! No wall-clock assertions: each test asserts the outcome and the requests the server got.

use std::time::Duration;

use pretty_assertions::assert_eq;
use sayso::provider::{Client, ProviderError, ProviderSettings, StreamEvent};

use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::fixture_timeouts::{SlowHeaders, slow_first_token, trickle};
use crate::support::{closed_port, collect, home_with, run, sayso, settings, user_request};

/// Small limits: idle 1 s, first token 3 s, a whole non-streamed request 1 s.
fn local(base_url: &str) -> ProviderSettings {
    let mut s = settings(base_url);
    s.idle_timeout = Duration::from_secs(1);
    s.first_token_timeout = Duration::from_secs(3);
    s.request_timeout = Duration::from_secs(1);
    s
}

fn client(s: ProviderSettings) -> Client {
    Client::new(s).expect("client")
}

/// The errors of every Retrying event.
fn retried(events: &[StreamEvent]) -> Vec<ProviderError> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying(r) => Some(r.error.clone()),
            _ => None,
        })
        .collect()
}

fn status(code: u16, headers: &[(&str, &str)], body: &str) -> Reply {
    Reply::Status {
        status: code,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.into(),
    }
}

#[tokio::test]
async fn a_first_token_slower_than_the_idle_timeout_arrives_within_first_token_timeout() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(slow_first_token(
        Duration::from_secs(2),
        &["prefilled ", "at last"],
    )));
    let (events, result) = collect(&client(local(&fx.base_url())), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "prefilled at last");
    assert_eq!(retried(&events), []);
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn response_headers_held_back_by_the_prompt_processing_are_waited_for() {
    let server = SlowHeaders::start(Duration::from_secs(2), &["late ", "headers"]).await;
    let (events, result) = collect(&client(local(&server.base_url())), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "late headers");
    assert_eq!(retried(&events), []);
    assert_eq!(server.requests(), 1);
}

#[tokio::test]
async fn a_reply_that_keeps_streaming_past_request_timeout_completes_in_one_request() {
    let fx = Fixture::start().await;
    let pieces = ["a ", "slow ", "model ", "writes ", "a ", "long ", "reply"];
    // Ten steps 0.3 s apart: about three times request_timeout_s.
    fx.push(Reply::Stream(trickle(&pieces, Duration::from_millis(300))));
    let (events, result) = collect(&client(local(&fx.base_url())), &user_request("q")).await;
    assert_eq!(result.unwrap().content, pieces.concat());
    assert_eq!(retried(&events), []);
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn no_first_token_within_the_limit_ends_the_request_without_a_retry() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(vec![Step::Stall]));
    fx.push(Reply::Stream(sse::text_reply(&["never asked for"])));
    let mut s = local(&fx.base_url());
    s.first_token_timeout = Duration::from_secs(1);
    let (events, result) = collect(&client(s), &user_request("q")).await;
    assert_eq!(retried(&events), []);
    let e = result.unwrap_err();
    assert_eq!(e, ProviderError::FirstTokenTimeout(Duration::from_secs(1)));
    assert!(e.to_string().contains("raise first_token_timeout_s"), "{e}");
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn a_silence_after_the_first_token_is_the_idle_timeout_and_is_retried() {
    let fx = Fixture::start().await;
    let mut stalled = sse::text_reply(&["a"]);
    stalled.truncate(2);
    stalled.push(Step::Stall);
    fx.push(Reply::Stream(stalled));
    fx.push(Reply::Stream(sse::text_reply(&["b"])));
    let (events, result) = collect(&client(local(&fx.base_url())), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "b");
    assert_eq!(
        retried(&events),
        [ProviderError::IdleTimeout(Duration::from_secs(1))]
    );
    assert_eq!(fx.requests().len(), 2);
}

#[tokio::test]
async fn a_request_the_server_refuses_as_it_is_is_sent_once() {
    for code in [400, 404, 413, 422] {
        let fx = Fixture::start().await;
        fx.push(status(code, &[], r#"{"error":{"message":"no"}}"#));
        fx.push(Reply::Stream(sse::text_reply(&["never asked for"])));
        let (events, result) = collect(&client(local(&fx.base_url())), &user_request("q")).await;
        assert_eq!(retried(&events), [], "{code}");
        assert!(
            matches!(result, Err(ProviderError::Status { status, .. }) if status == code),
            "{code}: {result:?}"
        );
        assert_eq!(fx.requests().len(), 1, "{code}");
    }
}

#[tokio::test]
async fn a_conflict_and_too_early_may_pass_and_are_retried() {
    for code in [409, 425] {
        let fx = Fixture::start().await;
        fx.push(status(code, &[], "busy"));
        fx.push(Reply::Stream(sse::text_reply(&["ok"])));
        let (events, result) = collect(&client(local(&fx.base_url())), &user_request("q")).await;
        assert_eq!(result.unwrap().content, "ok", "{code}");
        assert_eq!(retried(&events).len(), 1, "{code}");
        assert_eq!(fx.requests().len(), 2, "{code}");
    }
}

#[tokio::test]
async fn a_429_is_retried_after_its_retry_after_in_seconds() {
    let fx = Fixture::start().await;
    fx.push(status(429, &[("retry-after", "1")], "slow down"));
    fx.push(Reply::Stream(sse::text_reply(&["fine"])));
    let (events, result) = collect(&client(local(&fx.base_url())), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "fine");
    let delays: Vec<Duration> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying(r) => Some(r.delay),
            _ => None,
        })
        .collect();
    assert_eq!(delays, [Duration::from_secs(1)]);
    assert_eq!(fx.requests().len(), 2);
}

#[tokio::test]
async fn a_refused_loopback_connection_is_retried_once_quickly_then_fails_clearly() {
    let port = closed_port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let mut s = local(&url);
    s.retry.initial_delay = Duration::from_secs(5);
    let (events, result) = collect(&client(s), &user_request("q")).await;
    let retries: Vec<(u32, u32, Duration)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying(r) => Some((r.retry, r.max_retries, r.delay)),
            _ => None,
        })
        .collect();
    // Not the policy's 5 s: a server that is starting listens a moment later, or not at all.
    assert_eq!(retries, [(1, 1, Duration::from_millis(250))]);
    let text = result.unwrap_err().to_string();
    assert!(
        text.starts_with(&format!("could not connect to {url}/chat/completions")),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(
            " — is the server running at http://127.0.0.1:{port}?"
        )),
        "{text}"
    );
}

/// The real binary with the limits in its config file: a first token after 2 s (idle 1 s,
/// first token 3 s), then a reply that streams past `request_timeout_s = 1`.
#[tokio::test]
async fn headless_a_slow_prefill_and_a_long_reply_complete_with_the_configured_limits() {
    let fx = Fixture::start().await;
    let mut steps = vec![Step::Sleep(Duration::from_secs(2))];
    steps.extend(trickle(
        &["one ", "two ", "three ", "four ", "five"],
        Duration::from_millis(300),
    ));
    fx.push(Reply::Stream(steps));
    let home = home_with(
        &fx.base_url(),
        "stream_idle_timeout_s = 1\nfirst_token_timeout_s = 3\nrequest_timeout_s = 1\n",
    );
    // Retries allowed: that there is only one request is sayso's choice.
    let cfg = home.path().join("config/sayso/config.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, text.replace("max_retries = 0", "max_retries = 3")).unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--no-session", "hi"]);
    let out = run(cmd).await;
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "one two three four five\n"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr, "");
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn a_zero_first_token_timeout_is_a_config_error_naming_its_line() {
    let home = home_with("http://127.0.0.1:1/v1", "first_token_timeout_s = 0\n");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--no-session", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "config.toml:5: key `provider.first_token_timeout_s`: must be greater than 0"
        ),
        "{}",
        out.stderr
    );
}
