//! `sayso -p` as a user runs it: the real binary, its stdout, stderr and exit code.

use std::process::Stdio;
use std::sync::Arc;

use pretty_assertions::assert_eq;
use serde_json::json;
use tokio::io::AsyncReadExt;

use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::json_lines;
use crate::support::{run, sayso};

/// A home whose user config points at `base_url` with fast retries.
fn home_for(base_url: &str, max_retries: u32) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!(
            "model = \"m\"\n[provider]\nbase_url = \"{base_url}\"\nmax_retries = {max_retries}\nretry_initial_delay_ms = 20\n"
        ),
    )
    .unwrap();
    home
}

#[tokio::test]
async fn prints_the_reply_on_stdout_and_reasoning_on_stderr() {
    let fx = Fixture::start().await;
    let mut steps = vec![Step::Bytes(sse::data(&sse::chunk(
        json!({"reasoning_content": "thinking"}),
        None,
    )))];
    steps.extend(sse::text_reply(&["Hello ", "world"]));
    fx.push(Reply::Stream(steps));
    let home = home_for(&fx.base_url(), 0);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--no-session", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "Hello world\n");
    assert_eq!(out.stderr, "thinking\n");
}

#[tokio::test]
async fn text_appears_on_stdout_before_the_reply_is_finished() {
    let fx = Fixture::start().await;
    let gate = Arc::new(tokio::sync::Notify::new());
    let mut steps = sse::text_reply(&["first ", "second"]);
    steps.insert(2, Step::Gate(gate.clone()));
    fx.push(Reply::Stream(steps));
    let home = home_for(&fx.base_url(), 0);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]).stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !seen.ends_with(b"first ") {
        let n = stdout.read(&mut buf).await.unwrap();
        assert!(n > 0, "stdout closed before the first piece arrived");
        seen.extend_from_slice(&buf[..n]);
    }
    // The server is still holding the rest back: what we read was streamed, not buffered.
    gate.notify_one();
    stdout.read_to_end(&mut seen).await.unwrap();
    assert_eq!(String::from_utf8(seen).unwrap(), "first second\n");
    assert_eq!(child.wait().await.unwrap().code(), Some(0));
}

#[tokio::test]
async fn json_mode_prints_one_event_per_line() {
    let fx = Fixture::start().await;
    let mut steps = vec![Step::Bytes(sse::data(&sse::chunk(
        json!({"reasoning_content": "r"}),
        None,
    )))];
    steps.extend(sse::text_reply(&["A", "B"]));
    fx.push(Reply::Stream(steps));
    let home = home_for(&fx.base_url(), 0);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut lines = json_lines(&out.stdout);
    // The session id names the file the run is saved in.
    let id = lines[0]["session_id"].as_str().unwrap().to_owned();
    assert!(
        home.path()
            .join(format!("data/sayso/sessions/{id}.jsonl"))
            .exists()
    );
    lines[0].as_object_mut().unwrap().remove("session_id");
    // The fixture's 10 prompt tokens cannot be this request: the gauge is sayso's estimate.
    let context = &mut lines[4]["context"];
    let (used, percent) = (context["used"].take(), context["percent"].take());
    assert!(
        used.as_u64().unwrap() > 12 && percent.as_f64().unwrap() > 0.0,
        "{used} {percent}"
    );
    assert_eq!(
        lines,
        [
            json!({"type": "session_started", "schema": 1, "model": "m", "provider": "default", "auto": false, "approval_mode": "balanced"}),
            json!({"type": "reasoning_delta", "text": "r"}),
            json!({"type": "message_delta", "text": "A"}),
            json!({"type": "message_delta", "text": "B"}),
            json!({"type": "turn_completed", "finish_reason": "stop",
                   "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
                   "context": {"used": null, "window": 8192, "estimated": true, "percent": null,
                               "source": "assumed: nothing reported it (set context_window in the config)"}}),
            json!({"type": "session_finished", "status": "completed", "text": "AB"}),
        ]
    );
}

#[tokio::test]
async fn retries_are_announced_and_a_final_failure_exits_1() {
    let fx = Fixture::start().await;
    for _ in 0..2 {
        fx.push(Reply::Status {
            status: 503,
            headers: vec![],
            body: r#"{"error":{"message":"overloaded"}}"#.into(),
        });
    }
    let home = home_for(&fx.base_url(), 1);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--no-session", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "sayso: the server answered 503: Service Unavailable: overloaded; retrying in 20 ms (1/1)\n\
         sayso: error: the server answered 503: Service Unavailable: overloaded\n"
    );
}

#[tokio::test]
async fn json_mode_reports_retries_and_failure() {
    let fx = Fixture::start().await;
    fx.push(Reply::Status {
        status: 500,
        headers: vec![],
        body: "boom".into(),
    });
    fx.push(Reply::Status {
        status: 400,
        headers: vec![],
        body: r#"{"error":{"message":"bad request"}}"#.into(),
    });
    let home = home_for(&fx.base_url(), 2);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 1);
    let events = json_lines(&out.stdout);
    assert_eq!(events[1]["type"], "error");
    assert_eq!(events[1]["will_retry"], true);
    assert_eq!(events[1]["delay_ms"], 20);
    assert_eq!(
        events[2],
        json!({"type": "error", "will_retry": false, "message": "the server answered 400: Bad Request: bad request"})
    );
    assert_eq!(
        events[3],
        json!({"type": "session_finished", "status": "failed", "text": ""})
    );
}

#[tokio::test]
async fn a_reply_cut_by_the_token_limit_exits_1_with_a_clear_message() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(vec![
        Step::Bytes(sse::text("The answer is")),
        Step::Bytes(sse::finish("length")),
        Step::Bytes(sse::done()),
    ]));
    let home = home_for(&fx.base_url(), 0);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "The answer is\n");
    assert!(
        out.stderr
            .contains("cut off: the model reached its output token limit (finish_reason: length)"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn the_prompt_can_come_from_stdin() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_for(&fx.base_url(), 0);
    let mut cmd = sayso(home.path());
    cmd.arg("-p").stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    tokio::io::AsyncWriteExt::write_all(&mut stdin, b"summarise this\nplease\n")
        .await
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        fx.requests()[0].body["messages"][1],
        json!({"role": "user", "content": "summarise this\nplease\n"})
    );
}

#[tokio::test]
async fn an_empty_prompt_is_a_usage_error() {
    let home = home_for("http://127.0.0.1:9/v1", 0);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "  "]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no prompt given"), "{}", out.stderr);
}

#[cfg(unix)]
#[tokio::test]
async fn sigint_stops_the_stream_and_exits_130() {
    let fx = Fixture::start().await;
    let gate = Arc::new(tokio::sync::Notify::new());
    let mut steps = sse::text_reply(&["partial"]);
    steps.insert(2, Step::Gate(gate));
    fx.push(Reply::Stream(steps));
    let home = home_for(&fx.base_url(), 0);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "hi"]).stdout(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("partial") {
        let n = stdout.read(&mut buf).await.unwrap();
        assert!(n > 0);
        seen.extend_from_slice(&buf[..n]);
    }
    let pid = child.id().unwrap().to_string();
    std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap();
    stdout.read_to_end(&mut seen).await.unwrap();
    assert_eq!(child.wait().await.unwrap().code(), Some(130));
    let events = json_lines(&String::from_utf8(seen).unwrap());
    assert_eq!(
        events.last().unwrap(),
        &json!({"type": "session_finished", "status": "interrupted", "text": "partial"})
    );
    tokio::time::timeout(std::time::Duration::from_secs(10), fx.client_hung_up())
        .await
        .expect("hung up");
}
