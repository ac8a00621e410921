//! Zero-config local models: with no endpoint configured, sayso looks for servers on this
//! machine and offers them — the probe against loopback imitations of each server, `-p` naming
//! the exact command, and the TUI picker in a real terminal.

use std::time::Duration;

use pretty_assertions::assert_eq;
use sayso::provider::discover::{LocalServer, ServerKind, probe_ports};
use serde_json::json;

use crate::support::closed_port;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::tui::Tui;
use crate::support::{run, sayso};

/// A generous budget: these servers are in-process, and what is tested is what they say.
const BUDGET: Duration = Duration::from_secs(5);

async fn llama_cpp() -> Fixture {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        Reply::Json(json!({"object": "list", "data": [{"id": "qwen2.5-0.5b", "object": "model", "owned_by": "llamacpp", "meta": {"n_ctx": 4096}}]})),
    );
    fx
}

async fn ollama() -> Fixture {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/api/tags",
        Reply::Json(json!({"models": [{"name": "qwen3:8b", "model": "qwen3:8b"}, {"name": "llama3.2:latest", "model": "llama3.2:latest"}]})),
    );
    fx
}

async fn lm_studio() -> Fixture {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        Reply::Json(json!({"data": [{"id": "gemma-3-270m-it", "object": "model", "owned_by": "organization_owner"}]})),
    );
    fx
}

async fn vllm() -> Fixture {
    let fx = Fixture::start().await;
    fx.route(
        "GET",
        "/v1/models",
        Reply::Json(json!({"object": "list", "data": [{"id": "Qwen/Qwen3-8B", "object": "model", "owned_by": "vllm", "max_model_len": 32768}]})),
    );
    fx
}

fn found(kind: ServerKind, port: u16, models: &[&str]) -> LocalServer {
    LocalServer {
        kind,
        base_url: format!("http://127.0.0.1:{port}/v1"),
        models: models.iter().map(|m| (*m).to_owned()).collect(),
    }
}

#[tokio::test]
async fn each_kind_of_server_is_found_with_its_models() {
    let (l, o, s, v) = (
        llama_cpp().await,
        ollama().await,
        lm_studio().await,
        vllm().await,
    );
    let web_page = Fixture::start().await;
    web_page.route(
        "GET",
        "/v1/models",
        Reply::Status {
            status: 404,
            headers: vec![],
            body: "<html>not here</html>".into(),
        },
    );
    let ports = [
        (ServerKind::LlamaCpp, l.port()),
        (ServerKind::Ollama, o.port()),
        (ServerKind::LmStudio, closed_port()),
        (ServerKind::LmStudio, s.port()),
        (ServerKind::Vllm, web_page.port()),
        (ServerKind::Vllm, v.port()),
    ];
    assert_eq!(
        probe_ports(&ports, BUDGET).await,
        vec![
            found(ServerKind::LlamaCpp, l.port(), &["qwen2.5-0.5b"]),
            found(
                ServerKind::Ollama,
                o.port(),
                &["qwen3:8b", "llama3.2:latest"]
            ),
            found(ServerKind::LmStudio, s.port(), &["gemma-3-270m-it"]),
            found(ServerKind::Vllm, v.port(), &["Qwen/Qwen3-8B"]),
        ]
    );
    // Only lists were asked for: no prompt went anywhere.
    for fx in [&l, &o, &s, &v] {
        assert!(
            fx.all_requests().iter().all(|r| r.method == "GET"),
            "{:?}",
            fx.all_requests()
        );
    }
}

#[tokio::test]
async fn the_answer_beats_the_ports_guess() {
    let v = vllm().await;
    assert_eq!(
        probe_ports(&[(ServerKind::LlamaCpp, v.port())], BUDGET).await,
        vec![found(ServerKind::Vllm, v.port(), &["Qwen/Qwen3-8B"])]
    );
}

#[tokio::test]
async fn a_server_that_never_answers_is_not_waited_for() {
    let stalled = Fixture::start().await;
    stalled.route("GET", "/v1/models", Reply::Stream(vec![Step::Stall]));
    let l = llama_cpp().await;
    let ports = [
        (ServerKind::Vllm, stalled.port()),
        (ServerKind::LlamaCpp, l.port()),
    ];
    assert_eq!(
        probe_ports(&ports, Duration::from_millis(300)).await,
        vec![found(ServerKind::LlamaCpp, l.port(), &["qwen2.5-0.5b"])]
    );
}

/// The NoEndpoint message's hint, as every chat prints it.
const HINT: &str = "Try `sayso --demo` for a built-in demo, or point sayso at a server:\n  \
sayso --base-url http://127.0.0.1:8080/v1 -m MODEL …   (llama.cpp, vLLM, Ollama, LM Studio…)\n  \
export OPENAI_API_KEY=…                                    (OpenAI)\n\
or write a config file: `sayso config init`\n";

#[tokio::test]
async fn headless_without_config_names_the_exact_command_for_each_server_and_exits_2() {
    let (l, o) = (llama_cpp().await, ollama().await);
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.env(
        "SAYSO_PROBE_PORTS",
        format!(
            "llamacpp:{},ollama:{},vllm:{}",
            l.port(),
            o.port(),
            closed_port()
        ),
    )
    .args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    let (lp, op) = (l.port(), o.port());
    assert_eq!(
        out.stderr,
        format!(
            "sayso: error: no model endpoint is configured and $OPENAI_API_KEY is not set.\n\
             found llama.cpp at http://127.0.0.1:{lp}/v1 (model qwen2.5-0.5b): sayso --base-url http://127.0.0.1:{lp}/v1 -m qwen2.5-0.5b -p …\n\
             found Ollama at http://127.0.0.1:{op}/v1 (models qwen3:8b, llama3.2:latest): sayso --base-url http://127.0.0.1:{op}/v1 -m qwen3:8b -p …\n\
             {HINT}"
        )
    );
    assert!(
        l.requests().iter().all(|r| r.path == "/v1/models"),
        "only the models list was asked for: {:?}",
        l.all_requests()
    );
}

#[tokio::test]
async fn headless_with_nothing_found_prints_the_usual_message() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.env("SAYSO_PROBE_PORTS", format!("llamacpp:{}", closed_port()))
        .args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr,
        format!(
            "sayso: error: no model endpoint is configured and $OPENAI_API_KEY is not set.\n{HINT}"
        )
    );
}

#[tokio::test]
async fn a_bad_probe_spec_only_warns() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.env("SAYSO_PROBE_PORTS", "example.com:80")
        .args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .starts_with("sayso: warning: SAYSO_PROBE_PORTS: `example.com:80` is not KIND:PORT")
            || out
                .stderr
                .starts_with("sayso: warning: SAYSO_PROBE_PORTS: `example.com` is not one of"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(HINT), "{}", out.stderr);
}

#[tokio::test]
async fn the_tui_offers_what_it_found_and_chats_with_the_choice() {
    let l = llama_cpp().await;
    l.push(Reply::Stream(sse::text_reply(&[
        "Hello from ",
        "the local model",
    ])));
    let tui = Tui::start_unconfigured(
        &[("SAYSO_PROBE_PORTS", &format!("llamacpp:{}", l.port()))],
        &[],
    );
    let url = format!("http://127.0.0.1:{}/v1", l.port());
    let screen = tui.wait_for("qwen2.5-0.5b").await;
    assert!(screen.contains("found on this machine"), "{screen}");
    assert!(
        screen.contains(&format!("▸ llama.cpp  {url}  qwen2.5-0.5b")),
        "{screen}"
    );
    assert!(
        l.requests().iter().all(|r| r.path == "/v1/models"),
        "nothing is sent before the choice: {:?}",
        l.all_requests()
    );
    tui.keys(&["Enter"]);
    tui.ready().await;
    tui.send("hi").await;
    tui.wait_for("the local model").await;
    let chat = l
        .all_requests()
        .into_iter()
        .find(|r| r.path == "/v1/chat/completions")
        .expect("the chat went to the chosen server");
    assert_eq!(chat.body["model"], "qwen2.5-0.5b");
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0);
    let screen = tui.wait_for("base_url = ").await;
    assert!(
        screen.contains(&format!(
            "this chat used llama.cpp at {url} with model qwen2.5-0.5b"
        )),
        "{screen}"
    );
    assert!(screen.contains("model = \"qwen2.5-0.5b\""), "{screen}");
    tui.assert_terminal_restored();
}

#[tokio::test]
async fn esc_in_the_picker_exits_2_with_the_usual_hint() {
    let l = llama_cpp().await;
    let tui = Tui::start_unconfigured(
        &[("SAYSO_PROBE_PORTS", &format!("llamacpp:{}", l.port()))],
        &[],
    );
    tui.wait_for("qwen2.5-0.5b").await;
    tui.keys(&["Escape"]);
    assert_eq!(tui.exit_code().await, 2);
    let screen = tui.wait_for("sayso --demo").await;
    assert!(
        screen.contains("no model endpoint is configured"),
        "{screen}"
    );
    tui.assert_terminal_restored();
    assert!(l.requests().iter().all(|r| r.path == "/v1/models"));
}
