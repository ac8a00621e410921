//! Tool calls written as text, through the real binary: a Hermes `<tool_call>` in the reply's
//! text runs like a structured call and goes back structured; a server that refuses the
//! `tools` parameter (llama-server without `--jinja`) is asked once more without it, the tools
//! described in the system message, and said so once; a broken call is an error to the model.

use serde_json::{Value, json};

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::home_with as home;
use crate::support::tool_messages;
use crate::support::{run, sayso};

/// A Hermes call as Qwen2.5's template has the model write it, streamed in pieces.
fn hermes_reply(args: Value) -> Reply {
    let call = json!({"name": "run_command", "arguments": args}).to_string();
    let text = format!("I'll run it.\n<tool_call>\n{call}\n</tool_call>");
    let (a, b) = text.split_at(text.len() / 2);
    Reply::Stream(sse::text_reply(&[a, b]))
}

fn assistant_calls(body: &Value) -> Vec<&Value> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant" && m.get("tool_calls").is_some())
        .collect()
}

#[tokio::test]
async fn a_call_written_as_text_runs_and_is_sent_back_structured() {
    let fx = Fixture::start().await;
    fx.push(hermes_reply(json!({"cmd": "echo hi"})));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let h = home(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--allowed-tools", "run_command", "say hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.ends_with("Done.\n"), "{}", out.stdout);
    let requests = fx.requests();
    assert_eq!(requests.len(), 2);
    let second = &requests[1].body;
    let calls = assistant_calls(second);
    assert_eq!(calls.len(), 1, "{second}");
    assert_eq!(calls[0]["content"], "I'll run it.");
    let call = &calls[0]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "run_command");
    assert_eq!(
        serde_json::from_str::<Value>(call["function"]["arguments"].as_str().unwrap()).unwrap(),
        json!({"cmd": "echo hi"})
    );
    let id = call["id"].as_str().unwrap().to_owned();
    assert!(!id.is_empty());
    assert_eq!(
        tool_messages(second),
        [(id, "`echo hi`\n````\nhi\n````".to_string())]
    );
}

#[tokio::test]
async fn text_tool_calls_off_leaves_the_text() {
    let fx = Fixture::start().await;
    fx.push(hermes_reply(json!({"cmd": "echo hi"})));
    let h = home(&fx.base_url(), "text_tool_calls = \"off\"\n");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--allowed-tools", "run_command", "say hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("<tool_call>"), "{}", out.stdout);
    assert_eq!(fx.requests().len(), 1);
}

#[tokio::test]
async fn a_refused_tools_parameter_is_retried_once_with_the_tools_described() {
    let fx = Fixture::start().await;
    // llama-server without --jinja (tools/server/utils.hpp), exactly.
    let refusal = Reply::Status {
        status: 500,
        headers: Vec::new(),
        body: json!({"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}}).to_string(),
    };
    fx.push(refusal);
    // Without llama.cpp's grammar a tiny model's call is not valid JSON…
    fx.push(Reply::Stream(sse::text_reply(&[
        "<tool_call>\n{\"name\": \"run_command\", \"arguments\": {cmd: echo hi",
    ])));
    // …then a good one, then the answer.
    fx.push(hermes_reply(json!({"cmd": "echo hi"})));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let h = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(h.path().join("config/sayso")).unwrap();
    std::fs::write(
        h.path().join("config/sayso/config.toml"),
        format!(
            "model = \"m\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 3\nretry_initial_delay_ms = 1\nretry_max_delay_ms = 1\n",
            fx.base_url()
        ),
    )
    .unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--allowed-tools", "run_command", "say hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let requests = fx.requests();
    assert_eq!(requests.len(), 4, "the refusal is not retried as it was");
    assert!(requests[0].body["tools"].is_array());
    for r in &requests[1..] {
        assert!(r.body.get("tools").is_none(), "{}", r.body);
        let system = r.body["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("<tools>\n{"), "{system}");
        assert!(system.contains("\"name\":\"run_command\""), "{system}");
        assert!(system.contains("<tool_call></tool_call>"), "{system}");
    }
    // The broken call got an error naming the tool and the JSON problem.
    let errors = tool_messages(&requests[2].body);
    assert_eq!(errors.len(), 1, "{}", requests[2].body);
    assert!(
        errors[0]
            .1
            .starts_with("You made an error in calling the run_command tool"),
        "{}",
        errors[0].1
    );
    // The good call ran; calls go back as text to a server that cannot read them.
    let ran = tool_messages(&requests[3].body);
    assert_eq!(ran.last().unwrap().1, "`echo hi`\n````\nhi\n````");
    assert!(assistant_calls(&requests[3].body).is_empty());
    let notice = "the server refused the tools parameter";
    assert_eq!(out.stderr.matches(notice).count(), 1, "{}", out.stderr);
    assert!(out.stdout.ends_with("Done.\n"), "{}", out.stdout);
}

#[tokio::test]
async fn a_wrong_text_tool_calls_value_names_file_line_and_key() {
    let fx = Fixture::start().await;
    let h = home(&fx.base_url(), "text_tool_calls = \"maybe\"\n");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains(
            "config.toml:5: key `provider.text_tool_calls`: `maybe` is not one of `auto`, `off`"
        ),
        "{}",
        out.stderr
    );
    assert!(fx.requests().is_empty());
}
