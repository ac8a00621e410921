//! A server's life: killed mid-session (the next call is `Closed`), shut down or dropped (no
//! process of its group survives), and starts that fail (with the stderr that says why).

use super::*;

#[tokio::test]
async fn a_killed_server_makes_the_next_call_closed() {
    let script = require_mcp!(EVERYTHING, "a_killed_server_makes_the_next_call_closed");
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        echo(&conn, "alive").await.expect("echo");
        let pgid = conn.process_group().expect("a stdio server has a group");
        // SAFETY: kill has no memory-safety preconditions; pgid > 1 is the server's own group.
        assert_eq!(
            unsafe { libc::kill(-(pgid as libc::pid_t), libc::SIGKILL) },
            0
        );
        assert!(group_vanishes(pgid).await, "the group survived SIGKILL");
        match echo(&conn, "anyone?").await {
            Err(McpError::Closed { server, reason }) => {
                assert_eq!(server, "everything");
                assert!(reason.contains("exited"), "{reason}");
            }
            other => panic!("expected Closed, got {other:?}"),
        }
        assert!(conn.is_closed());
        assert!(matches!(
            conn.list_tools().await,
            Err(McpError::Closed { .. })
        ));
        conn.shutdown().await;
    })
    .await;
}

#[tokio::test]
async fn shutdown_leaves_no_process_in_the_group_and_is_idempotent() {
    let script = require_mcp!(
        EVERYTHING,
        "shutdown_leaves_no_process_in_the_group_and_is_idempotent"
    );
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        let pgid = conn.process_group().expect("a stdio server has a group");
        assert!(group_exists(pgid));
        let started = Instant::now();
        conn.shutdown().await;
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        assert!(group_vanishes(pgid).await, "group {pgid} outlived shutdown");
        conn.shutdown().await;
        assert!(conn.is_closed());
        match echo(&conn, "x").await {
            Err(McpError::Closed { reason, .. }) => assert_eq!(reason, "it was shut down"),
            other => panic!("expected Closed, got {other:?}"),
        }
    })
    .await;
}

#[tokio::test]
async fn dropping_the_connection_leaves_no_process_in_the_group() {
    let script = require_mcp!(
        EVERYTHING,
        "dropping_the_connection_leaves_no_process_in_the_group"
    );
    within(async {
        let conn = connect(&stdio_spec("everything", &script, &["stdio"])).await;
        let pgid = conn.process_group().expect("a stdio server has a group");
        echo(&conn, "x").await.expect("echo");
        drop(conn);
        assert!(group_vanishes(pgid).await, "group {pgid} outlived the drop");
    })
    .await;
}

#[tokio::test]
async fn a_server_that_dies_at_startup_reports_its_stderr() {
    // Needs no npm: `sh` plays a server that fails before initialize.
    let spec = ServerSpec {
        name: "broken".to_owned(),
        transport: Transport::Stdio {
            command: "sh".to_owned(),
            args: vec![
                "-c".to_owned(),
                "echo 'config file missing' >&2; exit 3".to_owned(),
            ],
            env: BTreeMap::new(),
            cwd: None,
        },
        startup_timeout: Duration::from_secs(10),
        secret_env: Vec::new(),
        sandbox: None,
    };
    match within(Connection::connect(&spec)).await {
        Err(McpError::Start { server, reason }) => {
            assert_eq!(server, "broken");
            assert!(reason.contains("config file missing"), "{reason}");
            assert!(reason.contains("exit status: 3"), "{reason}");
        }
        other => panic!("expected Start, got {other:?}"),
    }
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_at_startup_and_is_killed() {
    let spec = ServerSpec {
        name: "silent".to_owned(),
        transport: Transport::Stdio {
            command: "sh".to_owned(),
            args: vec!["-c".to_owned(), "echo waiting >&2; sleep 30".to_owned()],
            env: BTreeMap::new(),
            cwd: None,
        },
        startup_timeout: Duration::from_millis(500),
        secret_env: Vec::new(),
        sandbox: None,
    };
    let started = Instant::now();
    match within(Connection::connect(&spec)).await {
        Err(McpError::Start { reason, .. }) => {
            assert!(reason.contains("within 500ms"), "{reason}");
            assert!(reason.contains("waiting"), "{reason}");
        }
        other => panic!("expected Start, got {other:?}"),
    }
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_missing_command_fails_to_start() {
    let spec = ServerSpec {
        name: "ghost".to_owned(),
        transport: Transport::Stdio {
            command: "sayso-no-such-mcp-server".to_owned(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        },
        startup_timeout: Duration::from_secs(5),
        secret_env: Vec::new(),
        sandbox: None,
    };
    let err = within(Connection::connect(&spec))
        .await
        .expect_err("no such command");
    assert!(
        err.to_string().starts_with(
            "MCP server `ghost` could not start: cannot run `sayso-no-such-mcp-server`"
        ),
        "{err}"
    );
}
