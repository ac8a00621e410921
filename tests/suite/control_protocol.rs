//! The control protocol (`-p --json --approvals stdio`) from a test process over real pipes:
//! the test reads sayso's stdout line by line and answers each `control_request` on its stdin,
//! as an editor plugin or a CI wrapper would. Checked: what ran (files), what the model was told
//! (tool messages), the stderr messages, and that sayso never hangs.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::controller::{self, Run, Script, response};
use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::shell;
use crate::support::tool_messages;
use crate::support::{home_with, sayso};

/// Runs `sayso -p --json --approvals stdio ARGS go` in `home`, feeding `script`'s answers.
async fn drive(home: &std::path::Path, args: &[&str], script: Script, close_stdin: bool) -> Run {
    let mut all = vec!["--approvals", "stdio"];
    all.extend_from_slice(args);
    controller::drive(home, &all, script, close_stdin).await
}

/// A fixture whose model makes `calls` in one reply, then says "done".
async fn model(calls: &[(String, &'static str, Value)]) -> Fixture {
    let fx = Fixture::start().await;
    let refs: Vec<(&str, &str, &Value)> =
        calls.iter().map(|(i, n, a)| (i.as_str(), *n, a)).collect();
    fx.push(call_reply(&refs));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    fx
}

/// Answers every request for `call` with `behavior`.
fn answering(behavior: &'static str, extra: Value) -> Script {
    Box::new(move |v| {
        if v["type"] == "control_request" {
            vec![response(
                v["request_id"].as_str().unwrap(),
                behavior,
                extra.clone(),
            )]
        } else {
            Vec::new()
        }
    })
}

#[tokio::test]
async fn allow_runs_the_call_and_the_request_says_what_it_is() {
    let fx = model(&[shell("c1", "touch made")]).await;
    let h = home_with(&fx.base_url(), "");
    let run = drive(h.path(), &[], answering("allow", json!({})), false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(h.path().join("made").exists());
    let request = run
        .events
        .iter()
        .find(|e| e["type"] == "control_request")
        .unwrap();
    assert_eq!(
        request,
        &json!({"type": "control_request", "request_id": "apr-c1", "request": {
            "subtype": "can_use_tool", "tool_name": "run_command",
            "tool_input": {"cmd": "touch made", "flag": null}, "call_id": "c1",
            "display": "touch made", "diff": null, "preview": null, "caution": null,
            "rerun": null, "judge_reason": null, "position": 1, "total": 1,
        }})
    );
    // The request comes after the call is announced and asked about, before it runs.
    let kinds: Vec<&str> = run
        .events
        .iter()
        .filter_map(|e| e["type"].as_str())
        .collect();
    let at = |k: &str| kinds.iter().position(|x| *x == k).unwrap();
    assert!(at("tool_use_end") < at("control_request"));
    assert!(at("approval_requested") < at("control_request"));
    assert!(at("control_request") < at("tool_started"));
}

#[tokio::test]
async fn deny_gives_the_model_the_reason_and_ask_says_no_one_is_there() {
    let fx = model(&[shell("c1", "touch denied"), shell("c2", "touch asked")]).await;
    let h = home_with(&fx.base_url(), "");
    let script: Script = Box::new(|v| match v["request_id"].as_str() {
        Some("apr-c1") => vec![response(
            "apr-c1",
            "deny",
            json!({"message": "use make clean instead"}),
        )],
        Some("apr-c2") => vec![response("apr-c2", "ask", json!({}))],
        _ => Vec::new(),
    });
    let run = drive(h.path(), &[], script, false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!h.path().join("denied").exists() && !h.path().join("asked").exists());
    let messages = tool_messages(&fx.requests()[1].body);
    assert!(
        messages[0].1.contains("use make clean instead"),
        "{messages:?}"
    );
    assert!(
        messages[1].1.contains("no one is there to ask"),
        "{messages:?}"
    );
}

#[tokio::test]
async fn two_calls_answered_out_of_order() {
    let fx = model(&[shell("c1", "touch first"), shell("c2", "touch second")]).await;
    let h = home_with(&fx.base_url(), "");
    // The second call is answered as soon as it is announced, before its request.
    let script: Script = Box::new(|v| match (v["type"].as_str(), v["call_id"].as_str()) {
        (Some("tool_use_end"), Some("c2")) => vec![response(
            "apr-c2",
            "deny",
            json!({"message": "not that one"}),
        )],
        (Some("control_request"), _) if v["request_id"] == "apr-c1" => {
            vec![response("apr-c1", "allow", json!({}))]
        }
        _ => Vec::new(),
    });
    let run = drive(h.path(), &[], script, false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(h.path().join("first").exists());
    assert!(!h.path().join("second").exists());
    let requests: Vec<&Value> = run
        .events
        .iter()
        .filter(|e| e["type"] == "control_request")
        .collect();
    assert_eq!(
        requests.len(),
        1,
        "the early answer needed no request: {requests:?}"
    );
    let messages = tool_messages(&fx.requests()[1].body);
    assert!(messages[1].1.contains("not that one"), "{messages:?}");
}

#[tokio::test]
async fn a_malformed_line_or_an_unknown_id_rejects_with_a_message() {
    let fx = model(&[shell("c1", "touch one"), shell("c2", "touch two")]).await;
    let h = home_with(&fx.base_url(), "");
    let script: Script = Box::new(|v| match v["request_id"].as_str() {
        Some("apr-c1") => vec!["this is not json".to_owned()],
        Some("apr-c2") => vec![response("apr-nope", "allow", json!({}))],
        _ => Vec::new(),
    });
    let run = drive(h.path(), &[], script, false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!h.path().join("one").exists() && !h.path().join("two").exists());
    assert!(
        run.stderr
            .contains("sayso: control: unreadable line: not JSON"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("sayso: control: no call is waiting for `apr-nope`"),
        "{}",
        run.stderr
    );
    let messages = tool_messages(&fx.requests()[1].body);
    assert!(
        messages[0]
            .1
            .contains("no usable answer (an unreadable answer)"),
        "{messages:?}"
    );
    assert!(
        messages[1].1.contains("an answer for an unknown request"),
        "{messages:?}"
    );
}

#[tokio::test]
async fn a_closed_stdin_rejects_every_call_and_the_run_ends() {
    let fx = model(&[shell("c1", "touch one"), shell("c2", "touch two")]).await;
    let h = home_with(&fx.base_url(), "");
    let run = drive(h.path(), &[], answering("allow", json!({})), true).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!h.path().join("one").exists() && !h.path().join("two").exists());
    assert!(run.stderr.contains("stdin is closed"), "{}", run.stderr);
    let messages = tool_messages(&fx.requests()[1].body);
    assert_eq!(messages.len(), 2);
    assert!(
        messages.iter().all(|(_, m)| m.contains("no usable answer")),
        "{messages:?}"
    );
}

#[tokio::test]
async fn no_answer_in_time_rejects_the_call() {
    let fx = model(&[shell("c1", "touch late")]).await;
    let h = home_with(&fx.base_url(), "");
    let run = drive(
        h.path(),
        &["--approval-timeout", "1"],
        Box::new(|_| Vec::new()),
        false,
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!h.path().join("late").exists());
    assert!(
        run.stderr.contains("no answer within 1 s"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn remember_is_always_accept_for_the_exact_command() {
    let fx = Fixture::start().await;
    let call = shell("c1", "touch again");
    let refs = [(call.0.as_str(), call.1, &call.2)];
    fx.push(call_reply(&refs));
    let second = shell("c2", "touch again");
    let refs2 = [(second.0.as_str(), second.1, &second.2)];
    fx.push(call_reply(&refs2));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), "");
    let run = drive(
        h.path(),
        &[],
        answering("allow", json!({"remember": true})),
        false,
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = run
        .events
        .iter()
        .filter(|e| e["type"] == "control_request")
        .count();
    assert_eq!(requests, 1, "the second identical command ran unasked");
}

#[tokio::test]
async fn the_prompt_must_be_an_argument() {
    let h = home_with("http://127.0.0.1:9/v1", "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--json", "--approvals", "stdio"]);
    let out = crate::support::run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("give the prompt as an argument"),
        "{}",
        out.stderr
    );
}
