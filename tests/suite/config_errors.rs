//! Configuration through the real binary: layers, project-file limits, and errors that name the
//! file, line and key (exit 2).

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{Output, run, sayso};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn with_user_config(text: &str, args: &[&str]) -> (tempfile::TempDir, Output) {
    let home = tempfile::tempdir().unwrap();
    write(&home.path().join("config/sayso/config.toml"), text);
    let mut cmd = sayso(home.path());
    cmd.args(args);
    let out = run(cmd).await;
    (home, out)
}

#[tokio::test]
async fn unknown_key_names_file_line_and_key() {
    let (home, out) = with_user_config(
        "model = \"m\"\n[provider]\nbsae_url = \"http://x\"\n",
        &["-p", "hi"],
    )
    .await;
    assert_eq!(out.code, 2);
    let file = home.path().join("config/sayso/config.toml");
    let expected = format!(
        "sayso: error: {}:3:1: key `provider.bsae_url`: unknown field `bsae_url`",
        file.display()
    );
    assert!(out.stderr.starts_with(&expected), "{}", out.stderr);
}

#[tokio::test]
async fn wrong_value_type_names_file_line_and_key() {
    let (_home, out) = with_user_config(
        "[provider]\nbase_url = \"http://127.0.0.1:1/v1\"\nmax_retries = \"lots\"\n",
        &["-p", "hi"],
    )
    .await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(
            "config.toml:3:15: key `provider.max_retries`: invalid type: string \"lots\""
        ),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn invalid_values_name_file_line_and_key() {
    let (_h, out) = with_user_config(
        "[provider]\nbase_url = \"ftp://example.com\"\n",
        &["-p", "hi"],
    )
    .await;
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("config.toml:2: key `provider.base_url`: `ftp://example.com` must start with http:// or https://"), "{}", out.stderr);

    let (_h, out) = with_user_config(
        "[provider]\nbase_url = \"http://127.0.0.1:1/v1\"\n\nstream_idle_timeout_s = 0\n",
        &["-p", "hi"],
    )
    .await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(
            "config.toml:4: key `provider.stream_idle_timeout_s`: must be greater than 0"
        ),
        "{}",
        out.stderr
    );

    let (_h, out) = with_user_config(
        "model = \"m\"\nlog_level = \"loud\"\n[provider]\nbase_url = \"http://127.0.0.1:1/v1\"\n",
        &["-p", "hi"],
    )
    .await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("config.toml:2: key `log_level`: `loud` is not one of"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn broken_toml_is_reported_with_its_line() {
    let (_h, out) = with_user_config("model = \"m\"\n[provider\n", &["-p", "hi"]).await;
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("config.toml:2:"), "{}", out.stderr);
}

#[tokio::test]
async fn project_file_cannot_redirect_requests_but_can_pick_the_model() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = tempfile::tempdir().unwrap();
    write(
        &home.path().join("config/sayso/config.toml"),
        &format!("[provider]\nbase_url = \"{}\"\n", fx.base_url()),
    );
    write(
        &home.path().join(".sayso/config.toml"),
        "model = \"project-model\"\n[provider]\nbase_url = \"http://evil.example/v1\"\napi_key_env = \"HOME\"\nheaders = { X = \"y\" }\n",
    );
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r = &fx.requests()[0];
    assert_eq!(r.body["model"], "project-model");
    assert_eq!(r.header("x"), None);
    for key in ["base_url", "api_key_env", "headers"] {
        assert!(
            out.stderr.contains(&format!(
                "ignoring `provider.{key}`: a project config may not change where requests"
            )),
            "{}",
            out.stderr
        );
    }
    assert!(
        out.stderr
            .contains(".sayso/config.toml:3: ignoring `provider.base_url`"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn named_provider_is_used_and_gets_no_key_it_did_not_ask_for() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = tempfile::tempdir().unwrap();
    write(
        &home.path().join("config/sayso/config.toml"),
        &format!(
            "[provider]\nmax_retries = 0\n[providers.local]\nbase_url = \"{}\"\nmodel = \"llama\"\n",
            fx.base_url()
        ),
    );
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi", "--provider", "local"])
        .env("OPENAI_API_KEY", "sk-openai");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r = &fx.requests()[0];
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.body["model"], json!("llama"));

    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi", "--provider", "nope"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("there is no [providers.nope]; known providers: local"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn no_endpoint_and_no_key_suggests_the_demo() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("no model endpoint is configured and $OPENAI_API_KEY is not set"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("sayso --demo"), "{}", out.stderr);
}

/// The NoEndpoint message, as a chat prints it.
const NO_ENDPOINT: &str = "sayso: error: no model endpoint is configured and $OPENAI_API_KEY is not set.\n\
Try `sayso --demo` for a built-in demo, or point sayso at a server:\n  \
sayso --base-url http://127.0.0.1:8080/v1 -m MODEL …   (llama.cpp, vLLM, Ollama, LM Studio…)\n  \
export OPENAI_API_KEY=…                                    (OpenAI)\n\
or write a config file: `sayso config init`\n";

#[tokio::test]
async fn tools_are_listed_on_a_fresh_machine_without_endpoint_or_key() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.arg("tools");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    assert!(
        out.stdout.starts_with("TOOL ") && out.stdout.contains("\nrun_command "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("\ngroup agent: "), "{}", out.stdout);
}

#[tokio::test]
async fn config_check_right_after_init_says_no_endpoint_is_configured() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["config", "init"]);
    assert_eq!(run(cmd).await.code, 0);

    let mut cmd = sayso(home.path());
    cmd.args(["config", "check"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let user = home.path().join("config/sayso/config.toml");
    assert!(
        out.stdout
            .starts_with(&format!("config files: {}\n", user.display())),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("api key:      $OPENAI_API_KEY is not set (fine for local servers)\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("endpoint:     none configured: chats will not start until you set one\n"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("sayso --demo"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("sayso --base-url http://127.0.0.1:8080/v1"),
        "{}",
        out.stdout
    );
}

#[tokio::test]
async fn a_chat_without_endpoint_still_exits_2_with_the_demo_hint_after_init() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["config", "init"]);
    assert_eq!(run(cmd).await.code, 0);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert_eq!(out.stdout, "");
    // The file exists now: the last line points into it instead of suggesting `config init`.
    let file = home.path().join("config/sayso/config.toml");
    let want = NO_ENDPOINT.replace(
        "or write a config file: `sayso config init`",
        &format!("or set `base_url` (and `model`) in {}", file.display()),
    );
    assert_eq!(out.stderr, want);
}

#[tokio::test]
async fn explicit_config_file_must_exist() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi", "-c", "missing.toml"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("cannot read missing.toml"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn config_subcommands_honour_xdg_and_report_what_is_resolved() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["config", "init"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let user = home.path().join("config/sayso/config.toml");
    assert_eq!(out.stdout, format!("wrote {}\n", user.display()));
    // The example config is itself a valid config.
    let text = std::fs::read_to_string(&user).unwrap();
    assert!(text.contains("[provider]"));

    let mut cmd = sayso(home.path());
    cmd.args(["config", "path"]);
    let out = run(cmd).await;
    assert!(
        out.stdout
            .starts_with(&format!("user:    {} (exists)\n", user.display())),
        "{}",
        out.stdout
    );

    let mut cmd = sayso(home.path());
    cmd.args(["config", "check", "--base-url", "http://127.0.0.1:8080/v1"])
        .env("OPENAI_API_KEY", "sk-x");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("base_url:     http://127.0.0.1:8080/v1\n"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("api key:      from $OPENAI_API_KEY (set)\n"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("sk-x"));

    let mut cmd = sayso(home.path());
    cmd.args(["config", "init"]);
    assert_eq!(run(cmd).await.code, 2, "init refuses to overwrite");
}

#[tokio::test]
async fn usage_errors_exit_2_and_help_exits_0() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.arg("--help");
    let out = run(cmd).await;
    assert_eq!(out.code, 0);
    for opt in [
        "--print",
        "--json",
        "--demo",
        "--model",
        "--base-url",
        "--api-key-env",
        "--provider",
        "--config",
        "--cwd",
    ] {
        assert!(out.stdout.contains(opt), "--help lacks {opt}");
    }
    let mut cmd = sayso(home.path());
    cmd.args(["--json", "hi"]);
    assert_eq!(run(cmd).await.code, 2, "--json needs -p");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--no-such-flag"]);
    assert_eq!(run(cmd).await.code, 2);
}

/// After `sayso config init`, the no-endpoint message says to set `base_url` in that file, not
/// to write one (it was just written) — in a chat and in `config check` alike.
#[tokio::test]
async fn with_a_config_file_the_no_endpoint_hint_points_into_it() {
    let home = tempfile::tempdir().unwrap();
    let mut init = sayso(home.path());
    init.args(["config", "init"]);
    assert_eq!(run(init).await.code, 0);
    let file = home.path().join("config/sayso/config.toml");
    assert!(file.is_file());
    let want = format!("or set `base_url` (and `model`) in {}", file.display());
    let mut chat = sayso(home.path());
    chat.args(["-p", "hi"]);
    let out = run(chat).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains(&want), "{}", out.stderr);
    assert!(!out.stderr.contains("sayso config init"), "{}", out.stderr);
    let mut check = sayso(home.path());
    check.args(["config", "check"]);
    let out = run(check).await;
    let both = format!("{}{}", out.stdout, out.stderr);
    assert!(both.contains(&want), "{both}");
    assert!(!both.contains("sayso config init"), "{both}");
}
