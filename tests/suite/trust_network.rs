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

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{run, sayso};

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
/// names both origins, and the refused request is not retried. One to the same origin is
/// followed.
#[tokio::test]
async fn a_provider_redirect_to_another_origin_is_refused_and_names_both() {
    for status in [307, 308] {
        let model = Fixture::start().await;
        let elsewhere = Fixture::start().await;
        let target = format!("{}/chat/completions", elsewhere.base_url());
        model.push(redirect(status, &target));
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
