//! Issue 18, root 6 "Network edges": what sayso sends over the network goes only where the user
//! pointed it or approved, through the real binary against loopback servers.
//!
//! The attack list (numbered as in issue 18):
//! 14. Provider redirects leak: a 307/308 from the model server to another host:port received
//!     the custom provider headers and the whole conversation (only `Authorization` was
//!     stripped). Now a redirect to another origin is refused with an error naming both
//!     origins, not retried; a same-origin redirect is still followed.
//! 15. `fetch_webpage` followed redirects nobody approved, and had no loopback, link-local or
//!     private-address guard. Now a hop to the approved origin is followed (bounded), a hop to
//!     another origin is not (the tool message names the target for a new, approved call), and
//!     loopback, link-local, private and unspecified addresses are refused after DNS resolution
//!     unless the user's config sets `[tools.fetch_webpage.opts] allow_private_addresses`.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{Output, home_with, run, sayso};

/// A private home whose user config points at `base_url` with custom headers and `retries`.
fn home_with_headers(base_url: &str, retries: u32) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!(
            "model = \"m\"\n[provider]\nbase_url = \"{base_url}\"\nmax_retries = {retries}\nheaders = {{ \"X-Team-Token\" = \"team-secret\" }}\n"
        ),
    )
    .unwrap();
    home
}

fn redirect(status: u16, to: &str) -> Reply {
    Reply::Status {
        status,
        headers: vec![("Location".into(), to.into())],
        body: String::new(),
    }
}

/// 14: a 307 or 308 to another port is refused: the other server receives nothing, the error
/// names both origins, and the refused request is not retried; nor does a window probe follow
/// one. One to the same origin is followed.
#[tokio::test]
async fn a_provider_redirect_to_another_origin_is_refused_and_names_both() {
    for status in [307, 308] {
        let model = Fixture::start().await;
        let elsewhere = Fixture::start().await;
        let target = format!("{}/chat/completions", elsewhere.base_url());
        model.push(redirect(status, &target));
        // The context-window probes go through the same client: redirected too.
        let props = format!("http://127.0.0.1:{}/props", elsewhere.port());
        model.route("GET", "/props", redirect(status, &props));
        elsewhere.push(Reply::Stream(sse::text_reply(&["leaked"])));
        let h = home_with_headers(&model.base_url(), 2);
        let mut cmd = sayso(h.path());
        cmd.args(["-p", "the whole conversation"]);
        let out = run(cmd).await;
        assert_ne!(out.code, 0, "{status}: {}", out.stdout);
        assert!(
            elsewhere.all_requests().is_empty(),
            "{status}: the other origin received {:?}",
            elsewhere.all_requests()
        );
        assert_eq!(model.requests().len(), 1, "{status}: retried");
        assert!(
            model
                .all_requests()
                .iter()
                .any(|r| r.path.starts_with("/props")),
            "{status}: no window probe was made"
        );
        let from = format!("http://127.0.0.1:{}", model.port());
        assert!(
            out.stderr.contains(&format!(
                "the server at {from} redirected the request to {target}, another origin"
            )),
            "{status}: {}",
            out.stderr
        );
        assert!(!out.stdout.contains("leaked"), "{}", out.stdout);
    }
    same_origin_redirect_is_followed().await;
}

/// 14: a redirect to the same scheme, host and port is followed, headers and all.
async fn same_origin_redirect_is_followed() {
    let model = Fixture::start().await;
    let moved = format!("http://127.0.0.1:{}/v2/chat/completions", model.port());
    model.push(redirect(307, &moved));
    model.push(Reply::Stream(sse::text_reply(&["here"])));
    let h = home_with_headers(&model.base_url(), 0);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "here\n");
    let reqs = model.requests();
    assert_eq!(
        reqs.iter().map(|r| r.path.as_str()).collect::<Vec<_>>(),
        ["/v1/chat/completions", "/v2/chat/completions"]
    );
    assert_eq!(reqs[1].header("x-team-token"), Some("team-secret"));
    assert_eq!(reqs[1].body, reqs[0].body, "the same conversation");
    assert_eq!(
        reqs[1].body["messages"][1],
        json!({"role": "user", "content": "hi"})
    );
}

/// The user config's opt that lets fetch_webpage reach loopback (and other private) addresses.
const ALLOW_PRIVATE: &str = "[tools.fetch_webpage.opts]\nallow_private_addresses = true\n";

/// Runs `sayso -p` whose model asks to fetch `url` (fetch_webpage allowed, so it runs
/// unasked), with `extra` in the user config and `project` as the project config; returns the
/// tool message the model got back and the run's output.
async fn fetch_through_sayso(url: &str, extra: &str, project: Option<&str>) -> (String, Output) {
    let model = Fixture::start().await;
    model.push(call_reply(&[("f1", "fetch_webpage", json!({"url": url}))]));
    model.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&model.base_url(), extra);
    if let Some(project) = project {
        std::fs::create_dir_all(h.path().join(".sayso")).unwrap();
        std::fs::write(h.path().join(".sayso/config.toml"), project).unwrap();
    }
    let mut cmd = sayso(h.path());
    cmd.args([
        "-p",
        "--tools",
        "fetch_webpage",
        "--allowed-tools",
        "fetch_webpage",
        "read it",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let reqs = model.requests();
    assert_eq!(reqs.len(), 2, "{}", out.stderr);
    let tool = reqs[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == "f1")
        .and_then(|m| m["content"].as_str())
        .expect("the tool message")
        .to_owned();
    (tool, out)
}

/// A loopback web server with one page: `/page` answers `{"page": "secret"}`.
async fn web_with_page() -> Fixture {
    let web = Fixture::start().await;
    web.route("GET", "/page", Reply::Json(json!({"page": "secret"})));
    web
}

fn root(fx: &Fixture) -> String {
    format!("http://127.0.0.1:{}", fx.port())
}

/// 15: loopback is refused by default, as an IP literal and as a name that resolves to it;
/// a project config cannot allow it; the user's config can.
#[tokio::test]
async fn fetch_webpage_refuses_loopback_unless_the_user_config_allows_it() {
    let web = web_with_page().await;
    let port = web.port();
    for url in [
        format!("http://127.0.0.1:{port}/page"),
        format!("http://localhost:{port}/page"),
        format!("http://[::ffff:127.0.0.1]:{port}/page"),
    ] {
        let (tool, out) = fetch_through_sayso(&url, "", Some(ALLOW_PRIVATE)).await;
        assert!(
            out.stderr.contains("ignoring `tools.fetch_webpage`"),
            "{}",
            out.stderr
        );
        assert!(
            tool.starts_with(&format!("Refused to fetch `{url}`: ")),
            "{tool}"
        );
        assert!(tool.contains("a loopback address"), "{tool}");
        assert!(tool.contains("allow_private_addresses = true"), "{tool}");
    }
    assert!(web.all_requests().is_empty(), "{:?}", web.all_requests());

    let url = format!("http://127.0.0.1:{port}/page");
    let (tool, _) = fetch_through_sayso(&url, ALLOW_PRIVATE, None).await;
    assert_eq!(
        tool,
        format!("<attachment url=\"{url}\">\n{{\"page\":\"secret\"}}\n</attachment>")
    );
    assert_eq!(web.all_requests().len(), 1);
}

/// 15: a redirect to the approved origin is followed; one to another origin (another loopback
/// port) is not: that server receives nothing, and the tool message names the target.
#[tokio::test]
async fn fetch_webpage_follows_redirects_only_within_the_approved_origin() {
    let web = web_with_page().await;
    let elsewhere = web_with_page().await;
    let moved = format!("{}/page", root(&web));
    web.route(
        "GET",
        "/old",
        Reply::Status {
            status: 301,
            headers: vec![("Location".into(), "/page".into())],
            body: String::new(),
        },
    );
    let away = format!("{}/page", root(&elsewhere));
    web.route(
        "GET",
        "/away",
        Reply::Status {
            status: 307,
            headers: vec![("Location".into(), away.clone())],
            body: String::new(),
        },
    );

    let old = format!("{}/old", root(&web));
    let (tool, _) = fetch_through_sayso(&old, ALLOW_PRIVATE, None).await;
    assert_eq!(
        tool,
        format!("<attachment url=\"{old}\">\n{{\"page\":\"secret\"}}\n</attachment>")
    );
    let paths: Vec<String> = web.all_requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/old", "/page"], "{moved}");

    let from = format!("{}/away", root(&web));
    let (tool, _) = fetch_through_sayso(&from, ALLOW_PRIVATE, None).await;
    assert_eq!(
        tool,
        format!(
            "`{from}` redirects to `{away}`, on another origin than the URL that was approved; it was not fetched. To read it, call fetch_webpage with that URL (the call needs approval again)."
        )
    );
    assert!(
        elsewhere.all_requests().is_empty(),
        "{:?}",
        elsewhere.all_requests()
    );
}

/// 14: the judge's request (in `--auto`) goes through the same client: its redirect to another
/// origin is refused too, and the call it was judging does not run.
#[tokio::test]
async fn the_judges_request_does_not_follow_a_redirect_to_another_origin() {
    let model = Fixture::start().await;
    let elsewhere = Fixture::start().await;
    model.push(call_reply(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch made", "flag": null}),
    )]));
    model.push(Reply::Stream(sse::text_reply(&["done"])));
    let target = format!("{}/chat/completions", elsewhere.base_url());
    model.route_not_streamed(redirect(307, &target));
    elsewhere.route_not_streamed(Reply::Json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"safe\": true, \"reason\": \"fine\"}"}, "finish_reason": "stop"}]
    })));
    let h = home_with_headers(&model.base_url(), 0);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--auto", "make a file"]);
    let out = run(cmd).await;
    assert!(
        elsewhere.all_requests().is_empty(),
        "the other origin received {:?}\n{}",
        elsewhere.all_requests(),
        out.stderr
    );
    assert!(!h.path().join("made").exists(), "{}", out.stderr);
    let from = format!("http://127.0.0.1:{}", model.port());
    assert!(
        out.stderr.contains(&format!(
            "the server at {from} redirected the request to {target}"
        )),
        "{}",
        out.stderr
    );
}
