//! server-everything over streamable HTTP on a free loopback port, and an HTTP start that fails.

use super::*;

/// A server-everything started in streamable HTTP mode on a free loopback port; its process
/// group is killed on drop.
struct HttpServer {
    child: std::process::Child,
    port: u16,
}

impl HttpServer {
    fn start(script: &Path) -> HttpServer {
        use std::os::unix::process::CommandExt;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let child = std::process::Command::new("node")
            .arg(script)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start node");
        HttpServer { child, port }
    }

    /// Waits until it accepts connections.
    async fn ready(&mut self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the HTTP server exited: {status}");
            }
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the HTTP server did not listen on {} in 20 s", self.port);
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: the child leads its own group (process_group(0)); pid > 1.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn everything_over_streamable_http_lists_and_echoes() {
    let script = require_mcp!(
        EVERYTHING,
        "everything_over_streamable_http_lists_and_echoes"
    );
    within(async {
        let mut server = HttpServer::start(&script);
        server.ready().await;
        let spec = ServerSpec {
            name: "everything-http".to_owned(),
            transport: Transport::Http {
                url: format!("http://127.0.0.1:{}/mcp", server.port),
                headers: vec![("X-Sayso-Test".to_owned(), "1".to_owned())],
            },
            startup_timeout: Duration::from_secs(20),
            secret_env: Vec::new(),
            sandbox: None,
        };
        let conn = connect(&spec).await;
        assert_eq!(conn.process_group(), None);
        let tools = conn.list_tools().await.expect("tools/list");
        assert!(
            tools.iter().any(|t| t.name == "echo"),
            "{:?}",
            names(&tools)
        );
        assert_eq!(
            echo(&conn, "over http").await.expect("echo"),
            "Echo: over http"
        );
        // Cancellation works over HTTP too.
        let result = conn
            .call_tool(
                "trigger-long-running-operation",
                args(json!({ "duration": 10, "steps": 10 })),
                Duration::from_millis(300),
                &CancellationToken::new(),
            )
            .await;
        assert!(
            matches!(result, Err(McpError::Timeout { .. })),
            "{result:?}"
        );
        assert_eq!(echo(&conn, "again").await.expect("echo"), "Echo: again");
        conn.shutdown().await;
        assert!(conn.is_closed());
    })
    .await;
}

#[tokio::test]
async fn http_to_a_closed_port_fails_to_start() {
    // Needs no server: a port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let spec = ServerSpec {
        name: "nobody".to_owned(),
        transport: Transport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: Vec::new(),
        },
        startup_timeout: Duration::from_secs(10),
        secret_env: Vec::new(),
        sandbox: None,
    };
    match within(Connection::connect(&spec)).await {
        Err(McpError::Start { server, reason }) => {
            assert_eq!(server, "nobody");
            assert!(reason.to_lowercase().contains("refused"), "{reason}");
        }
        other => panic!("expected Start, got {other:?}"),
    }
}
