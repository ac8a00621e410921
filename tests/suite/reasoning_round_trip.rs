//! The reasoning round trip through the real binary: a DeepSeek-like server that answers 400
//! when the current turn's tool-call message comes back without its reasoning, the field the
//! server used echoed back, `send_reasoning`, a resumed chat, and `reasoning_effort`.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::fixture_reasoning::{deepseek, guard_for, thinking_answer, thinking_call};
use crate::support::home_with as home;
use crate::support::{run, sayso};

const THOUGHT: &str = "The user wants a greeting; echo will do.";

/// The assistant messages of a request body.
fn assistants(body: &Value) -> Vec<Value> {
    body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter(|m| m["role"] == "assistant")
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

fn has_reasoning_key(m: &Value) -> bool {
    m.get("reasoning_content").is_some() || m.get("reasoning").is_some()
}

/// A tool round: a call thought out in `field`, then the answer.
fn script_round(fx: &Fixture, field: &str) {
    fx.push(thinking_call(
        field,
        THOUGHT,
        "c1",
        "run_command",
        json!({"cmd": "echo hi", "flag": null}),
    ));
    fx.push(thinking_answer(field, "It printed hi.", "Done."));
}

async fn say_hi(h: &tempfile::TempDir, extra: &[&str]) -> crate::support::Output {
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--allowed-tools", "run_command"])
        .args(extra)
        .arg("say hi");
    run(cmd).await
}

#[tokio::test]
async fn a_deepseek_tool_round_completes_with_the_reasoning_sent_back_in_its_field() {
    for field in ["reasoning_content", "reasoning"] {
        let fx = Fixture::start().await;
        fx.guard(guard_for(field));
        script_round(&fx, field);
        let h = home(&fx.base_url(), "");
        let out = say_hi(&h, &[]).await;
        assert_eq!(out.code, 0, "{field}: {}", out.stderr);
        assert_eq!(out.stdout, "Done.\n", "{field}");
        let reqs = fx.requests();
        assert_eq!(reqs.len(), 2, "{field}");
        let sent = assistants(&reqs[1].body);
        assert_eq!(sent.len(), 1, "{field}: {sent:?}");
        assert_eq!(sent[0][field], json!(THOUGHT), "{field}: {}", sent[0]);
        let other = if field == "reasoning" {
            "reasoning_content"
        } else {
            "reasoning"
        };
        assert!(sent[0].get(other).is_none(), "{field}: {}", sent[0]);
        assert!(
            !reqs[0].body.to_string().contains("reasoning"),
            "nothing to send back in the first request: {}",
            reqs[0].body
        );
    }
}

/// A call that came without reasoning, in a turn whose other replies had it: DeepSeek still
/// gets a `reasoning_content` for it (empty), and the round completes.
#[tokio::test]
async fn a_call_made_without_reasoning_gets_an_empty_one_for_deepseek() {
    let fx = Fixture::start().await;
    fx.guard(deepseek);
    fx.push(thinking_call(
        "reasoning_content",
        THOUGHT,
        "c1",
        "run_command",
        json!({"cmd": "echo hi", "flag": null}),
    ));
    fx.push(sse::tool_call_reply(&[(
        "c2",
        "run_command",
        json!({"cmd": "echo again", "flag": null}),
    )]));
    fx.push(thinking_answer("reasoning_content", "Both ran.", "Done."));
    let h = home(&fx.base_url(), "");
    let out = say_hi(&h, &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Done.\n");
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 3);
    let sent = assistants(&reqs[2].body);
    let got: Vec<&Value> = sent.iter().map(|m| &m["reasoning_content"]).collect();
    assert_eq!(got, [&json!(THOUGHT), &json!("")], "{sent:?}");
}

#[tokio::test]
async fn send_reasoning_never_sends_none_and_deepseek_refuses_it() {
    let fx = Fixture::start().await;
    fx.guard(deepseek);
    script_round(&fx, "reasoning_content");
    let h = home(&fx.base_url(), "send_reasoning = \"never\"\n");
    let out = say_hi(&h, &[]).await;
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("Missing `reasoning_content` field"),
        "{}",
        out.stderr
    );
    let reqs = fx.requests();
    let sent = assistants(&reqs[1].body);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert!(!has_reasoning_key(&sent[0]), "{}", sent[0]);
}

/// A resumed chat: the past turn's reasoning is not sent in `auto` (DeepSeek wants none), and
/// it is there again for `always` (it was kept in the session).
#[tokio::test]
async fn a_resumed_chat_sends_past_reasoning_only_when_always() {
    let fx = Fixture::start().await;
    fx.guard(deepseek);
    script_round(&fx, "reasoning_content");
    let h = home(&fx.base_url(), "");
    let out = say_hi(&h, &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);

    for (send, want) in [("auto", None), ("always", Some(THOUGHT))] {
        fx.push(thinking_answer("reasoning_content", "Again.", "Hi again."));
        let mut cmd = sayso(h.path());
        cmd.args(["-p", "--continue", "and again"]);
        let config = h.path().join("config/sayso/config.toml");
        let text = std::fs::read_to_string(&config).unwrap();
        let text = text.replace("send_reasoning = \"auto\"\n", "");
        std::fs::write(&config, format!("{text}send_reasoning = \"{send}\"\n")).unwrap();
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{send}: {}", out.stderr);
        let last = fx.requests().pop().unwrap();
        let sent = assistants(&last.body);
        let call = sent
            .iter()
            .find(|m| m["tool_calls"].is_array())
            .unwrap_or_else(|| panic!("{send}: the past call is in the history: {sent:?}"));
        assert_eq!(
            call.get("reasoning_content").and_then(Value::as_str),
            want,
            "{send}: {call}"
        );
        assert!(call.get("reasoning").is_none(), "{send}: {call}");
    }
}

#[tokio::test]
async fn reasoning_effort_comes_from_the_flag_beating_the_config() {
    let rows: [(&str, &[&str], Option<&str>); 3] = [
        ("", &[], None),
        ("reasoning_effort = \"low\"\n", &[], Some("low")),
        (
            "reasoning_effort = \"low\"\n",
            &["--reasoning-effort", "high"],
            Some("high"),
        ),
    ];
    for (config, flags, want) in rows {
        let fx = Fixture::start().await;
        fx.push(Reply::Stream(sse::text_reply(&["ok"])));
        let h = home(&fx.base_url(), config);
        let mut cmd = sayso(h.path());
        cmd.arg("-p").args(flags).arg("hi");
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{flags:?}: {}", out.stderr);
        let body = &fx.requests()[0].body;
        assert_eq!(
            body.get("reasoning_effort").and_then(Value::as_str),
            want,
            "{config} {flags:?}: {body}"
        );
    }
}

#[tokio::test]
async fn bad_reasoning_settings_name_the_key() {
    let rows: [(&str, &[&str], &str); 3] = [
        ("send_reasoning = \"sometimes\"\n", &[], "send_reasoning"),
        (
            "reasoning_effort = \"Very High\"\n",
            &[],
            "reasoning_effort",
        ),
        ("", &["--reasoning-effort", "HIGH"], "--reasoning-effort"),
    ];
    for (config, flags, names) in rows {
        let fx = Fixture::start().await;
        let h = home(&fx.base_url(), config);
        let mut cmd = sayso(h.path());
        cmd.arg("-p").args(flags).arg("hi");
        let out = run(cmd).await;
        assert_eq!(out.code, 2, "{config} {flags:?}: {}", out.stderr);
        assert!(out.stderr.contains(names), "{names}: {}", out.stderr);
        assert!(fx.requests().is_empty(), "{names}");
    }
}

/// In the terminal, Ctrl+T hides the reasoning (one line says so) and shows it again; the
/// answer stays either way.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_t_hides_and_shows_the_reasoning_in_the_terminal() {
    use crate::support::tui::Tui;

    let fx = Fixture::start().await;
    fx.push(thinking_answer(
        "reasoning_content",
        "Weigh the options first.\nThen pick the short one.",
        "Take the short one.",
    ));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("which one?").await;
    let screen = tui.wait_for("Take the short one.").await;
    assert!(screen.contains("Then pick the short one."), "{screen}");
    tui.keys(&["C-t"]);
    let screen = tui
        .wait_until("the reasoning hidden", |s| {
            s.contains("2 lines hidden (Ctrl+T shows)") && !s.contains("Then pick the short one.")
        })
        .await;
    assert!(screen.contains("Take the short one."), "{screen}");
    tui.keys(&["C-t"]);
    tui.wait_until("the reasoning shown again", |s| {
        s.contains("Then pick the short one.") && !s.contains("lines hidden")
    })
    .await;
}
