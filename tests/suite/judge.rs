//! The LLM judge against the fixture server: what it sends, and that it fails closed.

use std::time::Duration;

use pretty_assertions::assert_eq;
use sayso::tools::policy::approval::Verdict;
use sayso::tools::policy::judge::{FAILED, Judge, UNREADABLE};
use serde_json::{Value, json};

use crate::support::client;
use crate::support::fixture::{Fixture, Reply, Step};

fn answer(content: &str) -> Reply {
    Reply::Json(
        json!({"choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}),
    )
}

fn judge(fx: &Fixture, timeout_ms: u64) -> Judge {
    Judge::new(
        client(&fx.base_url()),
        sayso::provider::SharedModel::new("judge-model"),
        Duration::from_millis(timeout_ms),
    )
}

#[tokio::test]
async fn judge_sees_only_the_tool_and_its_context_and_asks_for_a_schema() {
    let fx = Fixture::start().await;
    fx.push(answer(r#"{"safe": true, "reason": "only builds"}"#));
    let v = judge(&fx, 5000).verdict("run_command", "make build").await;
    assert_eq!(
        v,
        Verdict {
            safe: true,
            reason: "only builds".into()
        }
    );
    let body = &fx.requests()[0].body;
    assert_eq!(body["model"], "judge-model");
    assert_eq!(body.get("stream"), None);
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert_eq!(messages[0]["role"], "system");
    assert!(
        messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("security reviewer")
    );
    assert_eq!(
        messages[1],
        json!({"role": "user", "content": "The `run_command` tool wants to perform this action:\n\nmake build"})
    );
    assert_eq!(body["response_format"]["type"], "json_schema");
    assert_eq!(body["response_format"]["json_schema"]["name"], "safety");
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["required"],
        json!(["safe", "reason"])
    );
}

#[tokio::test]
async fn unsafe_verdict_carries_the_reason() {
    let fx = Fixture::start().await;
    fx.push(answer(
        r#"{"safe": false, "reason": "it deletes the repository"}"#,
    ));
    let v = judge(&fx, 5000).verdict("run_command", "rm -rf .git").await;
    assert_eq!(
        v,
        Verdict {
            safe: false,
            reason: "it deletes the repository".into()
        }
    );
}

#[tokio::test]
async fn falls_back_to_json_mode_then_to_no_format() {
    let fx = Fixture::start().await;
    let unsupported = || Reply::Status {
        status: 400,
        headers: vec![],
        body: r#"{"error":{"message":"response_format not supported"}}"#.into(),
    };
    fx.push(unsupported());
    fx.push(unsupported());
    fx.push(answer("Here you go: {\"safe\": true, \"reason\": \"ok\"}"));
    let v = judge(&fx, 5000).verdict("run_command", "ls").await;
    assert!(v.safe);
    let formats: Vec<Value> = fx
        .requests()
        .iter()
        .map(|r| {
            r.body
                .get("response_format")
                .cloned()
                .unwrap_or(Value::Null)
        })
        .collect();
    assert_eq!(formats[0]["type"], "json_schema");
    assert_eq!(formats[1], json!({"type": "json_object"}));
    assert_eq!(formats[2], Value::Null);
}

#[tokio::test]
async fn garbage_answer_is_unsafe() {
    let fx = Fixture::start().await;
    fx.push(answer("Looks fine to me!"));
    let v = judge(&fx, 5000).verdict("run_command", "ls").await;
    assert_eq!(
        v,
        Verdict {
            safe: false,
            reason: UNREADABLE.into()
        }
    );
}

#[tokio::test]
async fn http_failure_is_unsafe() {
    let fx = Fixture::start().await;
    fx.push(Reply::Status {
        status: 401,
        headers: vec![],
        body: "no".into(),
    });
    let v = judge(&fx, 5000).verdict("run_command", "ls").await;
    assert_eq!(
        v,
        Verdict {
            safe: false,
            reason: FAILED.into()
        }
    );
}

#[tokio::test]
async fn timeout_is_unsafe() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(vec![Step::Stall]));
    let v = judge(&fx, 300).verdict("run_command", "ls").await;
    assert_eq!(
        v,
        Verdict {
            safe: false,
            reason: FAILED.into()
        }
    );
}
