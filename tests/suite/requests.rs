//! The exact requests sayso sends.

use pretty_assertions::assert_eq;
use sayso::provider::request::{ResponseFormat, ResponseFormatJsonSchema};
use sayso::provider::{ChatMessage, ChatRequest, ToolCall, ToolSpec};
use serde_json::json;

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{client, collect, run, sayso};

#[tokio::test]
async fn streamed_request_carries_history_tools_and_usage_option() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let mut req = ChatRequest::new(
        "qwen",
        vec![
            ChatMessage::System {
                content: "be brief".into(),
            },
            ChatMessage::User {
                content: "list files".into(),
                images: Vec::new(),
            },
            ChatMessage::Assistant {
                content: "Looking.".into(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "ls".into(),
                    arguments: r#"{"dir":"."}"#.into(),
                }],
                reasoning: None,
            },
            ChatMessage::Tool {
                tool_call_id: "call_1".into(),
                content: "a.txt".into(),
            },
        ],
    );
    req.tools.push(ToolSpec {
        name: "ls".into(),
        description: "List a directory".into(),
        parameters: json!({"type": "object", "properties": {"dir": {"type": "string"}}, "required": ["dir"]}),
        strict: Some(true),
    });
    let (_, result) = collect(&client(&fx.base_url()), &req).await;
    assert_eq!(result.unwrap().content, "ok");

    let reqs = fx.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(reqs[0].method, "POST");
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(
        reqs[0].body,
        json!({
            "model": "qwen",
            "stream": true,
            "stream_options": {"include_usage": true},
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "list files"},
                {"role": "assistant", "content": "Looking.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{\"dir\":\".\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"}
            ],
            "tools": [{"type": "function", "function": {
                "name": "ls", "description": "List a directory", "strict": true,
                "parameters": {"type": "object", "properties": {"dir": {"type": "string"}}, "required": ["dir"]}
            }}]
        })
    );
}

#[tokio::test]
async fn non_streaming_request_sends_response_format_and_reads_the_message() {
    let fx = Fixture::start().await;
    fx.push(Reply::Json(json!({
        "choices": [{"message": {"role": "assistant", "content": "{\"safe\":true,\"reason\":\"read only\"}"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 11}
    })));
    let mut req = ChatRequest::new(
        "judge",
        vec![ChatMessage::User {
            content: "ls".into(),
            images: Vec::new(),
        }],
    );
    let schema = json!({"type": "object", "properties": {"safe": {"type": "boolean"}, "reason": {"type": "string"}}, "required": ["safe", "reason"], "additionalProperties": false});
    req.response_format = Some(ResponseFormat::JsonSchema {
        json_schema: ResponseFormatJsonSchema {
            description: None,
            name: "verdict".into(),
            schema: schema.clone(),
            strict: Some(true),
        },
    });
    let m = client(&fx.base_url()).complete(&req).await.unwrap();
    assert_eq!(m.content, r#"{"safe":true,"reason":"read only"}"#);
    assert_eq!(m.usage.unwrap().total_tokens, Some(11));
    let body = &fx.requests()[0].body;
    assert_eq!(body.get("stream"), None);
    assert_eq!(body.get("stream_options"), None);
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "verdict", "schema": schema, "strict": true}})
    );
}

#[tokio::test]
async fn models_are_listed_sorted() {
    let fx = Fixture::start().await;
    fx.route("GET", "/v1/models", Reply::Next);
    fx.push(Reply::Json(
        json!({"object": "list", "data": [{"id": "b"}, {"id": "a", "created": 1}]}),
    ));
    let models = client(&fx.base_url()).list_models().await.unwrap();
    assert_eq!(models, ["a", "b"]);
    let r = &fx.all_requests()[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/v1/models"));
}

#[tokio::test]
async fn binary_sends_key_from_env_headers_from_config_and_system_prompt() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["hi"])));
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!(
            "model = \"from-file\"\n[provider]\nbase_url = \"{}\"\napi_key_env = \"MY_KEY\"\nheaders = {{ \"X-Team\" = \"blue\" }}\n[chat]\nsystem_prompt = \"You are terse.\"\n",
            fx.base_url()
        ),
    )
    .unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hello there"])
        .env("MY_KEY", "sk-secret-123");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r = &fx.requests()[0];
    assert_eq!(r.header("authorization"), Some("Bearer sk-secret-123"));
    assert_eq!(r.header("x-team"), Some("blue"));
    // The system prompt, then where the model is: the working directory, OS, shell, date, git.
    let system = r.body["messages"][0]["content"].as_str().unwrap();
    let cwd = std::fs::canonicalize(home.path()).unwrap();
    assert!(
        system.starts_with(&format!(
            "You are terse.\n\nEnvironment:\n- working directory: {}\n- OS: ",
            cwd.display()
        )),
        "{system}"
    );
    for part in [", shell ", "- date: 20", "- git repository: no"] {
        assert!(system.contains(part), "{part}: {system}");
    }
    assert_eq!(r.body["messages"][0]["role"], "system");
    assert_eq!(
        r.body["messages"][1],
        json!({"role": "user", "content": "hello there"})
    );
    assert_eq!(r.body["model"], "from-file");
    // The key never reaches the log, though the settings that hold it are logged.
    let log_file = home.path().join("state/sayso/sayso.log");
    let log = std::fs::read_to_string(&log_file)
        .unwrap_or_else(|e| panic!("no log at {}: {e}", log_file.display()));
    assert!(
        log.contains("starting") && log.contains("api_key: Some(\"<redacted>\")"),
        "the log does not show the provider settings:\n{log}"
    );
    assert!(!log.contains("sk-secret-123"), "key leaked into the log");
}

#[tokio::test]
async fn cli_beats_env_beats_file_for_the_model() {
    let fx = Fixture::start().await;
    for _ in 0..3 {
        fx.push(Reply::Stream(sse::text_reply(&["x"])));
    }
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        "model = \"file-model\"\n",
    )
    .unwrap();
    let base = fx.base_url();
    let mut a = sayso(home.path());
    a.args(["-p", "q", "--base-url", &base]);
    let mut b = sayso(home.path());
    b.args(["-p", "q", "--base-url", &base])
        .env("SAYSO_MODEL", "env-model");
    let mut c = sayso(home.path());
    c.args(["-p", "q", "--base-url", &base, "-m", "cli-model"])
        .env("SAYSO_MODEL", "env-model");
    for cmd in [a, b, c] {
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let models: Vec<_> = fx
        .requests()
        .iter()
        .map(|r| r.body["model"].clone())
        .collect();
    assert_eq!(
        models,
        [json!("file-model"), json!("env-model"), json!("cli-model")]
    );
}
