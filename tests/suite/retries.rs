//! Retries, backoff, timeouts and cancellation against the fixture server.

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use pretty_assertions::assert_eq;
use sayso::provider::{ProviderError, StreamDelta, StreamEvent};

use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::{client, collect, settings, user_request};

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

/// (retry, max, delay) of every Retrying event.
fn retries(events: &[StreamEvent]) -> Vec<(u32, u32, Duration)> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::Retrying(sayso::provider::Retry {
                retry,
                max_retries,
                delay,
                ..
            }) => Some((*retry, *max_retries, *delay)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn rate_limit_waits_as_long_as_the_server_asks() {
    let fx = Fixture::start().await;
    fx.push(status(
        429,
        &[("retry-after-ms", "150"), ("retry-after", "1")],
        r#"{"error":{"message":"Rate limit exceeded."}}"#,
    ));
    fx.push(Reply::Stream(sse::text_reply(&["fine"])));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "fine");
    assert_eq!(retries(&events), [(1, 3, Duration::from_millis(150))]);
    match &events[0] {
        StreamEvent::Retrying(sayso::provider::Retry { error, .. }) => {
            assert_eq!(
                error.to_string(),
                "the server answered 429: Too Many Requests: Rate limit exceeded."
            )
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fx.requests().len(), 2);
}

#[tokio::test]
async fn server_errors_back_off_exponentially_then_succeed() {
    let fx = Fixture::start().await;
    fx.push(status(503, &[], "overloaded"));
    fx.push(status(502, &[], ""));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "ok");
    assert_eq!(
        retries(&events),
        [
            (1, 3, Duration::from_millis(20)),
            (2, 3, Duration::from_millis(40))
        ]
    );
    assert_eq!(fx.requests().len(), 3);
}

#[tokio::test]
async fn retries_stop_at_the_limit_with_the_last_error() {
    let fx = Fixture::start().await;
    for _ in 0..4 {
        fx.push(status(
            500,
            &[],
            r#"{"error":{"message":"Internal server error."}}"#,
        ));
    }
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert_eq!(retries(&events).len(), 3);
    assert!(
        matches!(result, Err(ProviderError::Status { status: 500, .. })),
        "{result:?}"
    );
    assert_eq!(fx.requests().len(), 4);
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let fx = Fixture::start().await;
    fx.push(status(
        401,
        &[],
        r#"{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}"#,
    ));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert!(retries(&events).is_empty());
    assert_eq!(
        result.unwrap_err().to_string(),
        "the server answered 401: Unauthorized: Invalid API Key — the key came from $SAYSO_TEST_KEY: check it, or set api_key_env in [providers.test] to the variable that holds this server's key"
    );
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn a_dropped_stream_is_retried_and_its_partial_output_discarded() {
    let fx = Fixture::start().await;
    let mut first = sse::text_reply(&["Hello ", "wor"]);
    first.truncate(3);
    first.push(Step::Drop);
    fx.push(Reply::Stream(first));
    fx.push(Reply::Stream(sse::text_reply(&["Hello ", "world"])));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "Hello world");
    // The caller saw the partial attempt, then Retrying (its cue to discard), then the new one.
    let shape: Vec<String> = events
        .iter()
        .map(|e| match e {
            StreamEvent::Delta(StreamDelta::Text(t)) => format!("text:{t}"),
            StreamEvent::Delta(_) | StreamEvent::Notice(_) => "other".into(),
            StreamEvent::Retrying(sayso::provider::Retry { error, .. }) => {
                format!("retry:{}", matches!(error, ProviderError::Dropped(_)))
            }
            StreamEvent::Finished(_) => "finished".into(),
        })
        .filter(|s| s != "other")
        .collect();
    assert_eq!(
        shape,
        [
            "text:Hello ",
            "text:wor",
            "retry:true",
            "text:Hello ",
            "text:world",
            "finished"
        ]
    );
    // The message says what happened once, with the transport's reason.
    let dropped = events.iter().find_map(|e| match e {
        StreamEvent::Retrying(sayso::provider::Retry { error, .. }) => Some(error.to_string()),
        _ => None,
    });
    assert_eq!(
        dropped.as_deref(),
        Some(
            "the stream stopped before the reply was complete (unexpected EOF during chunk size line)"
        )
    );
}

#[tokio::test]
async fn a_stream_cut_off_without_finish_reason_or_done_is_retried() {
    let fx = Fixture::start().await;
    let mut truncated = sse::text_reply(&["par", "tial"]);
    truncated.truncate(3); // role + two text chunks, then a clean end of body
    fx.push(Reply::Stream(truncated));
    fx.push(Reply::Stream(sse::text_reply(&["complete"])));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert_eq!(result.unwrap().content, "complete");
    assert_eq!(retries(&events).len(), 1);
}

#[tokio::test]
async fn a_silent_stream_hits_the_idle_timeout_and_is_retried() {
    let fx = Fixture::start().await;
    let mut stalled = sse::text_reply(&["a"]);
    stalled.truncate(2);
    stalled.push(Step::Stall);
    fx.push(Reply::Stream(stalled));
    fx.push(Reply::Stream(sse::text_reply(&["b"])));
    let mut s = settings(&fx.base_url());
    s.idle_timeout = Duration::from_millis(300);
    let c = sayso::provider::Client::new(s).unwrap();
    let (events, result) = collect(&c, &user_request("q")).await;
    assert_eq!(result.unwrap().content, "b");
    match events
        .iter()
        .find(|e| matches!(e, StreamEvent::Retrying(_)))
    {
        Some(StreamEvent::Retrying(sayso::provider::Retry { error, .. })) => assert_eq!(
            *error,
            ProviderError::IdleTimeout(Duration::from_millis(300))
        ),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn connection_refused_on_this_machine_is_retried_once_quickly_then_reported() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let url = format!("http://{addr}/v1");
    drop(listener);
    let (events, result) = collect(&client(&url), &user_request("q")).await;
    assert_eq!(
        retries(&events),
        [(1, 1, Duration::from_millis(20))],
        "nothing listens: one quick retry for a server that is starting, no more"
    );
    let e = result.unwrap_err();
    assert!(matches!(e, ProviderError::Connect { .. }), "{e:?}");
    let text = e.to_string();
    assert!(
        text.starts_with(&format!("could not connect to {url}/chat/completions")),
        "{text}"
    );
    assert!(
        text.ends_with(&format!(" — is the server running at http://{addr}?")),
        "{text}"
    );
}

#[tokio::test]
async fn retry_after_beyond_the_limit_gives_up_at_once() {
    let fx = Fixture::start().await;
    fx.push(status(429, &[("retry-after", "86400")], "quota"));
    let (events, result) = collect(&client(&fx.base_url()), &user_request("q")).await;
    assert!(retries(&events).is_empty());
    assert!(
        matches!(result, Err(ProviderError::RetryAfterTooLong(_))),
        "{result:?}"
    );
}

#[tokio::test]
async fn dropping_the_stream_hangs_up_on_the_server() {
    let fx = Fixture::start().await;
    let gate = Arc::new(tokio::sync::Notify::new());
    let mut steps = sse::text_reply(&["first"]);
    steps.truncate(2);
    steps.push(Step::Gate(gate.clone()));
    fx.push(Reply::Stream(steps));
    let c = client(&fx.base_url());
    let mut stream = Box::pin(c.stream_chat(&user_request("q")));
    loop {
        match stream.next().await {
            Some(StreamEvent::Delta(StreamDelta::Text(t))) => {
                assert_eq!(t, "first");
                break;
            }
            Some(StreamEvent::Delta(_)) => {}
            other => panic!("{other:?}"),
        }
    }
    drop(stream);
    tokio::time::timeout(Duration::from_secs(10), fx.client_hung_up())
        .await
        .expect("the server should see the connection close");
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn plain_requests_go_through_the_same_retries_silently() {
    let fx = Fixture::start().await;
    fx.route("GET", "/v1/models", Reply::Next);
    fx.push(status(503, &[], "overloaded"));
    fx.push(Reply::Json(serde_json::json!({
        "choices": [{"message": {"role": "assistant", "content": "judged"}, "finish_reason": "stop"}]
    })));
    fx.push(status(429, &[("retry-after-ms", "30")], "slow down"));
    fx.push(Reply::Json(serde_json::json!({"data": [{"id": "m"}]})));
    fx.push(status(400, &[], r#"{"error":{"message":"bad request"}}"#));
    fx.push(Reply::Json(serde_json::json!({"data": [{"id": "never"}]})));
    let c = client(&fx.base_url());
    assert_eq!(
        c.complete(&user_request("q")).await.unwrap().content,
        "judged"
    );
    assert_eq!(c.list_models().await.unwrap(), ["m"]);
    assert_eq!(
        c.list_models().await.unwrap_err().to_string(),
        "the server answered 400: Bad Request: bad request"
    );
    let paths: Vec<String> = fx.all_requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(
        paths,
        [
            "/v1/chat/completions",
            "/v1/chat/completions",
            "/v1/models",
            "/v1/models",
            "/v1/models"
        ]
    );
}
