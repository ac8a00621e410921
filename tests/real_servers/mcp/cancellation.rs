//! Stopping a call early: at its timeout, on the user's cancel, and when its future is dropped.
//! Each sends `notifications/cancelled` (seen by a logging stand-in server), and the real server
//! stays usable.

use super::*;

#[tokio::test]
async fn a_call_past_its_timeout_is_cancelled_and_the_server_stays_usable() {
    let script = require_mcp!(
        EVERYTHING,
        "a_call_past_its_timeout_is_cancelled_and_the_server_stays_usable"
    );
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        let started = Instant::now();
        let result = conn
            .call_tool(
                "trigger-long-running-operation",
                args(json!({ "duration": 10, "steps": 10 })),
                Duration::from_millis(400),
                &CancellationToken::new(),
            )
            .await;
        assert_eq!(
            result,
            Err(McpError::Timeout {
                server: "everything".into(),
                after: Duration::from_millis(400)
            })
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert!(!conn.is_closed());
        assert_eq!(
            echo(&conn, "still here").await.expect("echo"),
            "Echo: still here"
        );
        conn.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn cancelling_a_running_call_returns_cancelled() {
    let script = require_mcp!(EVERYTHING, "cancelling_a_running_call_returns_cancelled");
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            trigger.cancel();
        });
        let started = Instant::now();
        let result = conn
            .call_tool(
                "trigger-long-running-operation",
                args(json!({ "duration": 10, "steps": 10 })),
                CALL_TIMEOUT,
                &cancel,
            )
            .await;
        assert_eq!(
            result,
            Err(McpError::Cancelled {
                server: "everything".into()
            })
        );
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        // An already-cancelled token sends nothing at all.
        let again = conn
            .call_tool("echo", args(json!({"message": "x"})), CALL_TIMEOUT, &cancel)
            .await;
        assert!(
            matches!(again, Err(McpError::Cancelled { .. })),
            "{again:?}"
        );
        assert_eq!(
            echo(&conn, "after cancel").await.expect("echo"),
            "Echo: after cancel"
        );
        conn.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn a_dropped_call_leaves_the_server_usable() {
    let script = require_mcp!(EVERYTHING, "a_dropped_call_leaves_the_server_usable");
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        let never = CancellationToken::new();
        let call = conn.call_tool(
            "trigger-long-running-operation",
            args(json!({ "duration": 10, "steps": 10 })),
            CALL_TIMEOUT,
            &never,
        );
        // Dropped midway: the guard sends the cancellation from a task.
        assert!(
            tokio::time::timeout(Duration::from_millis(300), call)
                .await
                .is_err()
        );
        assert_eq!(
            echo(&conn, "after drop").await.expect("echo"),
            "Echo: after drop"
        );
        conn.shutdown().await;
    })
    .await;
}

/// A minimal stdio MCP server in node that logs every line it receives to the file named by its
/// first argument, answers `initialize`, and never answers a `tools/call`.
const LOGGING_SERVER: &str = r#"
const fs = require("fs");
const log = process.argv[1];
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  fs.appendFileSync(log, line + "\n");
  const m = JSON.parse(line);
  if (m.method === "initialize") {
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: {
      protocolVersion: m.params.protocolVersion, capabilities: { tools: {} },
      serverInfo: { name: "logger", version: "1" } } }) + "\n");
  }
});
"#;

/// The ids of the `tools/call` requests and of the requests cancelled, as `log` shows them.
fn calls_and_cancels(log: &Path) -> (Vec<Value>, Vec<Value>) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let (mut calls, mut cancels) = (Vec::new(), Vec::new());
    for m in text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        match m["method"].as_str() {
            Some("tools/call") => calls.push(m["id"].clone()),
            Some("notifications/cancelled") => cancels.push(m["params"]["requestId"].clone()),
            _ => {}
        }
    }
    (calls, cancels)
}

/// Waits until `log` shows a cancellation for every call made; panics after 5 s.
async fn every_call_gets_cancelled(log: &Path, expected: usize) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (calls, cancels) = calls_and_cancels(log);
        if calls.len() == expected && calls == cancels {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "calls {calls:?} were not all cancelled: {cancels:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn timeout_cancel_and_drop_each_send_notifications_cancelled() {
    let node_works = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !node_works {
        harness::skip(
            "timeout_cancel_and_drop_each_send_notifications_cancelled",
            "no `node`",
        );
        return;
    }
    within(async {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("received.jsonl");
        let spec = ServerSpec {
            name: "logger".to_owned(),
            transport: Transport::Stdio {
                command: "node".to_owned(),
                args: vec![
                    "-e".to_owned(),
                    LOGGING_SERVER.to_owned(),
                    log.display().to_string(),
                ],
                env: BTreeMap::new(),
                cwd: None,
            },
            startup_timeout: Duration::from_secs(20),
            secret_env: Vec::new(),
            sandbox: None,
        };
        let conn = connect(&spec).await;
        let never = CancellationToken::new();

        let timed_out = conn
            .call_tool("slow", Map::new(), Duration::from_millis(200), &never)
            .await;
        assert!(
            matches!(timed_out, Err(McpError::Timeout { .. })),
            "{timed_out:?}"
        );
        every_call_gets_cancelled(&log, 1).await;

        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            trigger.cancel();
        });
        let cancelled = conn
            .call_tool("slow", Map::new(), CALL_TIMEOUT, &cancel)
            .await;
        assert!(
            matches!(cancelled, Err(McpError::Cancelled { .. })),
            "{cancelled:?}"
        );
        every_call_gets_cancelled(&log, 2).await;

        let dropped = conn.call_tool("slow", Map::new(), CALL_TIMEOUT, &never);
        assert!(
            tokio::time::timeout(Duration::from_millis(200), dropped)
                .await
                .is_err()
        );
        every_call_gets_cancelled(&log, 3).await;
        conn.shutdown().await;
    })
    .await;
}
