//! A wrong base URL's advice names where the URL was set — `--base-url`, `$OPENAI_BASE_URL` or
//! the config file's table — through the real binary and the fixture server.

use crate::support::fixture::{Fixture, Reply};
use crate::support::{run, sayso};

/// A private home whose config sets a model and no `base_url`.
fn home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        "model = \"m\"\n[provider]\nmax_retries = 0\n",
    )
    .unwrap();
    home
}

fn not_found() -> Reply {
    Reply::Status {
        status: 404,
        headers: vec![],
        body: "Not Found".into(),
    }
}

#[tokio::test]
async fn a_corrected_base_url_from_the_flag_says_to_change_the_flag() {
    let fx = Fixture::start().await;
    fx.route("POST", "/chat/completions", not_found());
    fx.route("GET", "/models", not_found());
    fx.push(Reply::Stream(crate::support::fixture::sse::text_reply(&[
        "fine",
    ])));
    let root = format!("http://127.0.0.1:{}", fx.port());
    let home = home();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi", "--base-url", &root]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "base_url {root} has no /v1; using {root}/v1 — set --base-url to it to silence this"
        )),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("config"), "{}", out.stderr);
}

#[tokio::test]
async fn a_404_at_a_base_url_from_the_environment_says_to_check_the_variable() {
    let fx = Fixture::start().await;
    fx.route("POST", "/api/chat/completions", not_found());
    let base = format!("http://127.0.0.1:{}/api", fx.port());
    let home = home();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]).env("OPENAI_BASE_URL", &base);
    let out = run(cmd).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "the server answered 404: Not Found — nothing at {base}/chat/completions: check $OPENAI_BASE_URL (usually"
        )),
        "{}",
        out.stderr
    );

    // The flag beats the variable, and the advice names the flag.
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi", "--base-url", &base])
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    let out = run(cmd).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("/chat/completions: check --base-url (usually"),
        "{}",
        out.stderr
    );
}
