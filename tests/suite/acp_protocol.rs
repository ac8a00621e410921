//! `sayso acp` from a test process over real pipes, in raw JSON-RPC lines (the TypeScript SDK
//! tests are tests/acp-client): initialize → session/new → session/prompt with the streamed
//! chunks; a `run_command` that asks becomes a `session/request_permission`, whose answer
//! decides the call (the tool message in the next request says so); a closed connection during
//! a permission request runs nothing; unknown methods get -32601; `session/load` replays a
//! saved session; stdout carries only JSON-RPC.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, sayso, shell, tool_messages};

/// A running `sayso acp` and everything it printed.
struct Acp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    /// Every line read, parsed.
    seen: Vec<Value>,
    next_id: u64,
}

/// What to do with a request sayso sends (a permission request): the result to answer, or
/// `None` to close stdin instead.
type Answer<'a> = &'a mut dyn FnMut(&Value) -> Option<Value>;

impl Acp {
    fn start(home: &Path, args: &[&str]) -> Acp {
        let mut cmd = sayso(home);
        cmd.arg("acp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("sayso acp starts");
        let stdin = child.stdin.take();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Acp {
            child,
            stdin,
            lines,
            seen: Vec::new(),
            next_id: 1,
        }
    }

    async fn write(&mut self, v: &Value) {
        let s = self.stdin.as_mut().expect("stdin open");
        s.write_all(format!("{v}\n").as_bytes()).await.unwrap();
        s.flush().await.unwrap();
    }

    /// The next line of stdout, which must be a JSON-RPC 2.0 message (`None`: stdout closed).
    async fn read(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(Duration::from_secs(60), self.lines.next_line())
            .await
            .expect("sayso answers within a minute")
            .unwrap()?;
        let v: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout not JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "not JSON-RPC: {line}");
        self.seen.push(v.clone());
        Some(v)
    }

    /// Sends a request and reads until its response, answering sayso's requests with
    /// `answer`; `None` when stdout closed first.
    async fn call(&mut self, method: &str, params: Value, answer: Answer<'_>) -> Option<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let v = self.read().await?;
            if v.get("method").is_some() && v.get("id").is_some() {
                match answer(&v) {
                    Some(result) => {
                        let reply = json!({"jsonrpc": "2.0", "id": v["id"], "result": result});
                        self.write(&reply).await;
                    }
                    None => self.stdin = None,
                }
            } else if v["id"] == json!(id) {
                return Some(v);
            }
        }
    }

    async fn initialize(&mut self) -> Value {
        let caps = json!({"protocolVersion": 1, "clientCapabilities": {}});
        self.call("initialize", caps, &mut |_| None).await.unwrap()
    }

    async fn new_session(&mut self, cwd: &Path) -> String {
        let r = self
            .call(
                "session/new",
                json!({"cwd": cwd, "mcpServers": []}),
                &mut |_| None,
            )
            .await
            .unwrap();
        r["result"]["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned()
    }

    /// The `session/update`s seen so far of `kind`.
    fn updates(&self, kind: &str) -> Vec<Value> {
        self.seen
            .iter()
            .filter(|v| v["method"] == "session/update")
            .map(|v| v["params"]["update"].clone())
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }

    fn text_of(&self, kind: &str) -> String {
        self.updates(kind)
            .iter()
            .filter_map(|u| u["content"]["text"].as_str().map(str::to_owned))
            .collect()
    }

    /// Closes stdin and waits for the exit code.
    async fn finish(mut self) -> i32 {
        self.stdin = None;
        while self.read().await.is_some() {}
        let status = tokio::time::timeout(Duration::from_secs(20), self.child.wait())
            .await
            .expect("sayso acp exits once stdin closes")
            .unwrap();
        status.code().unwrap_or(-1)
    }
}

fn prompt(session: &str, text: &str) -> Value {
    json!({"sessionId": session, "prompt": [{"type": "text", "text": text}]})
}

#[tokio::test]
async fn a_prompt_streams_its_chunks_and_ends_its_turn() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Hello", ", editor"])));
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    let init = acp.initialize().await;
    assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    let caps = &init["result"]["agentCapabilities"];
    assert_eq!(caps["loadSession"], true, "{init}");
    assert_eq!(
        caps["promptCapabilities"]["embeddedContext"], true,
        "{init}"
    );
    let session = acp.new_session(h.path()).await;
    let r = acp
        .call("session/prompt", prompt(&session, "hi"), &mut |_| None)
        .await
        .unwrap();
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    assert_eq!(acp.text_of("agent_message_chunk"), "Hello, editor");
    assert_eq!(acp.finish().await, 0);
    let sent = &fx.requests()[0].body["messages"];
    assert_eq!(sent.as_array().unwrap().last().unwrap()["content"], "hi");
}

#[tokio::test]
async fn an_image_block_reaches_the_model_as_an_image_part_and_a_bad_one_is_named() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["a red dot"])));
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    let init = acp.initialize().await;
    assert_eq!(
        init["result"]["agentCapabilities"]["promptCapabilities"]["image"], true,
        "{init}"
    );
    let session = acp.new_session(h.path()).await;
    // "iVBORw0KGgo=" is the PNG signature: eight bytes of image data.
    let blocks = json!({"sessionId": session, "prompt": [
        {"type": "text", "text": "what is this?"},
        {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="},
        {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zy8+"},
        {"type": "image", "mimeType": "image/jpeg", "data": "not base64!"},
    ]});
    let r = acp
        .call("session/prompt", blocks, &mut |_| None)
        .await
        .unwrap();
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    assert_eq!(acp.finish().await, 0);
    let sent = &fx.requests()[0].body["messages"];
    let parts = sent.as_array().unwrap().last().unwrap()["content"].clone();
    let parts = parts.as_array().expect("text and image parts");
    let images: Vec<&Value> = parts.iter().filter(|p| p["type"] == "image_url").collect();
    assert_eq!(images.len(), 1, "{parts:?}");
    assert_eq!(
        images[0]["image_url"]["url"], "data:image/png;base64,iVBORw0KGgo=",
        "{parts:?}"
    );
    let text: String = parts.iter().filter_map(|p| p["text"].as_str()).collect();
    assert!(text.contains("what is this?"), "{text}");
    assert!(
        text.contains(
            "(an image was left out: its type `image/svg+xml` is not png, jpeg, gif or webp)"
        ),
        "{text}"
    );
    assert!(
        text.contains("(an image was left out: its data is not base64)"),
        "{text}"
    );
}

#[tokio::test]
async fn unknown_methods_are_method_not_found() {
    let fx = Fixture::start().await;
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    acp.initialize().await;
    let r = acp
        .call("session/no_such_method", json!({}), &mut |_| None)
        .await
        .unwrap();
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let r = acp
        .call("session/prompt", prompt("nope", "hi"), &mut |_| None)
        .await
        .unwrap();
    assert_eq!(r["error"]["code"], -32602, "an unknown session: {r}");
    assert_eq!(acp.finish().await, 0);
}

/// Runs a prompt whose model calls `run_command touch made`, answering the permission request
/// with `option` (`None`: stdin closes instead); what the acp run saw.
async fn shell_call(option: Option<&str>) -> (Fixture, tempfile::TempDir, Acp, Option<Value>) {
    let fx = Fixture::start().await;
    let (id, name, args) = shell("c1", "touch made");
    fx.push(call_reply(&[(id.as_str(), name, &args)]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    acp.initialize().await;
    let session = acp.new_session(h.path()).await;
    let option = option.map(str::to_owned);
    let mut answer = move |req: &Value| {
        assert_eq!(req["method"], "session/request_permission", "{req}");
        let o = option.clone()?;
        Some(json!({"outcome": {"outcome": "selected", "optionId": o}}))
    };
    let r = acp
        .call("session/prompt", prompt(&session, "go"), &mut answer)
        .await;
    (fx, h, acp, r)
}

#[tokio::test]
async fn allow_once_runs_the_command_and_the_model_reads_its_result() {
    let (fx, h, acp, r) = shell_call(Some("allow_once")).await;
    let r = r.unwrap();
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    assert!(h.path().join("made").exists(), "the command ran");
    let request = acp
        .seen
        .iter()
        .find(|v| v["method"] == "session/request_permission")
        .unwrap();
    let options: Vec<(&str, &str)> = request["params"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["optionId"].as_str().unwrap(), o["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        options,
        [
            ("allow_once", "allow_once"),
            ("allow_always", "allow_always"),
            ("reject_once", "reject_once")
        ]
    );
    assert_eq!(request["params"]["toolCall"]["toolCallId"], "c1");
    let calls = acp.updates("tool_call");
    assert_eq!(calls[0]["kind"], "execute", "{calls:?}");
    let statuses: Vec<Value> = acp
        .updates("tool_call_update")
        .iter()
        .filter_map(|u| u.get("status").cloned())
        .collect();
    assert_eq!(statuses, [json!("in_progress"), json!("completed")]);
    let tools = tool_messages(&fx.requests()[1].body);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].0, "c1");
    assert!(!tools[0].1.contains("reject"), "{tools:?}");
    drop(h);
    assert_eq!(acp.finish().await, 0);
}

#[tokio::test]
async fn reject_runs_nothing_and_the_model_is_told() {
    let (fx, h, acp, r) = shell_call(Some("reject_once")).await;
    let r = r.unwrap();
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    assert!(!h.path().join("made").exists(), "nothing ran");
    let tools = tool_messages(&fx.requests()[1].body);
    assert_eq!(tools[0].0, "c1");
    assert!(tools[0].1.to_lowercase().contains("reject"), "{tools:?}");
    assert_eq!(acp.finish().await, 0);
}

#[tokio::test]
async fn an_option_that_was_not_offered_rejects() {
    let (_fx, h, acp, r) = shell_call(Some("allow_everything")).await;
    assert_eq!(r.unwrap()["result"]["stopReason"], "end_turn");
    assert!(!h.path().join("made").exists(), "nothing ran");
    assert_eq!(acp.finish().await, 0);
}

#[tokio::test]
async fn a_disconnect_during_a_permission_request_runs_nothing_and_exits() {
    let (fx, h, acp, r) = shell_call(None).await;
    // The prompt's answer, if it is still written to the closed side, is `cancelled`.
    if let Some(r) = &r {
        assert_eq!(r["result"]["stopReason"], "cancelled", "{r}");
    }
    assert_eq!(acp.finish().await, 0);
    assert!(!h.path().join("made").exists(), "nothing ran");
    assert_eq!(fx.requests().len(), 1, "no resubmit after the disconnect");
}

#[tokio::test]
async fn a_saved_session_loads_with_its_history_replayed() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["first answer"])));
    fx.push(Reply::Stream(sse::text_reply(&["second answer"])));
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    acp.initialize().await;
    let session = acp.new_session(h.path()).await;
    acp.call(
        "session/prompt",
        prompt(&session, "remember this"),
        &mut |_| None,
    )
    .await
    .unwrap();
    assert_eq!(acp.finish().await, 0);
    // It is a sayso session like any other.
    let mut list = sayso(h.path());
    list.args(["sessions", "list"]);
    let listed = crate::support::run(list).await;
    assert!(listed.stdout.contains(&session), "{}", listed.stdout);

    let mut acp = Acp::start(h.path(), &[]);
    acp.initialize().await;
    let r = acp
        .call(
            "session/load",
            json!({"sessionId": session, "cwd": h.path(), "mcpServers": []}),
            &mut |_| None,
        )
        .await
        .unwrap();
    assert!(r.get("error").is_none(), "{r}");
    assert_eq!(acp.text_of("user_message_chunk"), "remember this");
    assert_eq!(acp.text_of("agent_message_chunk"), "first answer");
    let r = acp
        .call("session/prompt", prompt(&session, "and now?"), &mut |_| {
            None
        })
        .await
        .unwrap();
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    let sent = fx.requests()[1].body["messages"].to_string();
    assert!(
        sent.contains("remember this") && sent.contains("first answer"),
        "{sent}"
    );
    assert_eq!(acp.finish().await, 0);
}

#[tokio::test]
async fn with_the_editors_fs_a_created_file_is_written_through_it() {
    let fx = Fixture::start().await;
    let args = json!({"filepath": "new.txt", "content": "hi\n"});
    fx.push(call_reply(&[("f1", "create_file", &args)]));
    fx.push(Reply::Stream(sse::text_reply(&["made"])));
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    let caps = json!({"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}}});
    acp.call("initialize", caps, &mut |_| None).await.unwrap();
    let session = acp.new_session(h.path()).await;
    let mut writes = Vec::new();
    let mut answer = |req: &Value| match req["method"].as_str() {
        Some("session/request_permission") => {
            Some(json!({"outcome": {"outcome": "selected", "optionId": "allow_once"}}))
        }
        Some("fs/write_text_file") => {
            writes.push(req["params"].clone());
            Some(json!({}))
        }
        other => panic!("unexpected request {other:?}"),
    };
    let r = acp
        .call("session/prompt", prompt(&session, "make it"), &mut answer)
        .await
        .unwrap();
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    let dir = std::fs::canonicalize(h.path()).unwrap();
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0]["path"], json!(dir.join("new.txt")));
    assert_eq!(writes[0]["content"], "hi\n");
    assert_eq!(writes[0]["sessionId"], json!(session));
    assert!(
        !h.path().join("new.txt").exists(),
        "the editor writes it, not sayso"
    );
    let diff = acp
        .updates("tool_call_update")
        .iter()
        .flat_map(|u| u["content"].as_array().cloned().unwrap_or_default())
        .find(|c| c["type"] == "diff")
        .expect("a diff");
    assert_eq!(diff["newText"], "hi\n");
    assert_eq!(diff.get("oldText"), None, "a new file: {diff}");
    let tools = tool_messages(&fx.requests()[1].body);
    assert!(tools[0].1.contains("Created new.txt"), "{tools:?}");
    assert_eq!(acp.finish().await, 0);
}

#[tokio::test]
async fn cancel_mid_stream_answers_cancelled_and_sends_nothing_more() {
    use crate::support::fixture::Step;
    let fx = Fixture::start().await;
    let mut steps = sse::text_reply(&["partial"]);
    steps.truncate(2);
    steps.push(Step::Stall);
    fx.push(Reply::Stream(steps));
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    acp.initialize().await;
    let session = acp.new_session(h.path()).await;
    acp.write(&json!({"jsonrpc": "2.0", "id": 99, "method": "session/prompt", "params": prompt(&session, "go")}))
        .await;
    // The first chunk arrives, then the editor cancels.
    loop {
        let v = acp.read().await.unwrap();
        if v["params"]["update"]["sessionUpdate"] == "agent_message_chunk" {
            break;
        }
    }
    acp.write(
        &json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}),
    )
    .await;
    let r = loop {
        let v = acp.read().await.unwrap();
        if v["id"] == 99 {
            break v;
        }
    };
    assert_eq!(r["result"]["stopReason"], "cancelled", "{r}");
    assert_eq!(acp.text_of("agent_message_chunk"), "partial");
    assert_eq!(fx.requests().len(), 1, "no resubmit");
    assert_eq!(acp.finish().await, 0);
}

#[tokio::test]
async fn modes_and_the_model_are_chosen_by_the_editor() {
    let fx = Fixture::start().await;
    let (id, name, args) = shell("c1", "touch made");
    fx.push(call_reply(&[(id.as_str(), name, &args)]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    acp.initialize().await;
    let r = acp
        .call(
            "session/new",
            json!({"cwd": h.path(), "mcpServers": []}),
            &mut |_| None,
        )
        .await
        .unwrap();
    let result = &r["result"];
    let session = result["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(result["modes"]["currentModeId"], "balanced", "{r}");
    let ids: Vec<&str> = result["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["trust", "auto", "balanced", "suggest", "strict"]);
    let model = &result["configOptions"][0];
    assert_eq!(
        (&model["id"], &model["currentValue"]),
        (&json!("model"), &json!("m")),
        "{r}"
    );
    let bad = acp
        .call(
            "session/set_config_option",
            json!({"sessionId": session, "configId": "model", "value": "no-such-model"}),
            &mut |_| None,
        )
        .await
        .unwrap();
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let bad = acp
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "yolo"}),
            &mut |_| None,
        )
        .await
        .unwrap();
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let ok = acp
        .call(
            "session/set_mode",
            json!({"sessionId": session, "modeId": "trust"}),
            &mut |_| None,
        )
        .await
        .unwrap();
    assert!(ok.get("error").is_none(), "{ok}");
    // In trust mode the command runs without a permission request.
    let r = acp
        .call("session/prompt", prompt(&session, "go"), &mut |req| {
            panic!("no request in trust mode: {req}")
        })
        .await
        .unwrap();
    assert_eq!(r["result"]["stopReason"], "end_turn", "{r}");
    assert!(h.path().join("made").exists());
    assert_eq!(acp.finish().await, 0);
}

#[tokio::test]
async fn a_cancelled_permission_outcome_runs_nothing_and_ends_the_turn_cancelled() {
    let fx = Fixture::start().await;
    let (id, name, args) = shell("c1", "touch made");
    fx.push(call_reply(&[(id.as_str(), name, &args)]));
    fx.push(Reply::Stream(sse::text_reply(&["never asked for"])));
    let h = home_with(&fx.base_url(), "");
    let mut acp = Acp::start(h.path(), &[]);
    acp.initialize().await;
    let session = acp.new_session(h.path()).await;
    let r = acp
        .call("session/prompt", prompt(&session, "go"), &mut |_| {
            Some(json!({"outcome": {"outcome": "cancelled"}}))
        })
        .await
        .unwrap();
    assert_eq!(r["result"]["stopReason"], "cancelled", "{r}");
    assert!(!h.path().join("made").exists(), "nothing ran");
    assert_eq!(fx.requests().len(), 1, "no resubmit after a cancel");
    let last = acp.updates("tool_call_update");
    assert_eq!(last.last().unwrap()["status"], "failed", "{last:?}");
    assert_eq!(acp.finish().await, 0);
}

#[tokio::test]
async fn without_an_endpoint_it_says_why_on_stderr_and_nothing_on_stdout() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.arg("acp");
    let out = crate::support::run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(out.stdout, "", "stdout is the protocol's alone");
    assert!(out.stderr.contains("sayso: error:"), "{}", out.stderr);
}
