//! sayso's MCP client (`sayso::mcp::client`) against real MCP servers written by others: the
//! reference servers `@modelcontextprotocol/server-everything` (over stdio and over streamable
//! HTTP) and `@modelcontextprotocol/server-filesystem` (stdio), installed by `scripts/test` with
//! npm into `target/mcp-servers` and named by `SAYSO_TEST_MCP_DIR`. Without it (or without
//! `node`) these tests print why they skip and pass.
//!
//! ```sh
//! npm install --no-audit --no-fund --prefix target/mcp-servers \
//!     @modelcontextprotocol/server-everything@2026.8.31 @modelcontextprotocol/server-filesystem@2026.8.31
//! SAYSO_TEST_MCP_DIR=$PWD/target/mcp-servers cargo test --test real_servers mcp
//! ```
//!
//! Only loopback: the HTTP server is started here on a free port of 127.0.0.1.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sayso::mcp::client::{Connection, McpError, ServerSpec, Transport};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::harness;

/// Environment variable naming the npm prefix the servers are installed in.
const MCP_DIR: &str = "SAYSO_TEST_MCP_DIR";
const EVERYTHING: &str = "node_modules/@modelcontextprotocol/server-everything/dist/index.js";
const FILESYSTEM: &str = "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js";
/// No test may hang longer than this.
const LIMIT: Duration = Duration::from_secs(60);
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// The entry script `rel` under `SAYSO_TEST_MCP_DIR`, or `None` after saying why `test` skips.
fn server_script(rel: &str, test: &str) -> Option<PathBuf> {
    let Some(dir) = std::env::var_os(MCP_DIR).filter(|d| !d.is_empty()) else {
        harness::skip(
            test,
            &format!("{MCP_DIR} is not set (scripts/test installs the MCP servers with npm)"),
        );
        return None;
    };
    let script = PathBuf::from(dir).join(rel);
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !script.is_file() || !node {
        harness::skip(test, &format!("{} or `node` is missing", script.display()));
        return None;
    }
    Some(script)
}

/// `let script = require_mcp!(EVERYTHING, "test_name");` — returns from the test when missing.
macro_rules! require_mcp {
    ($rel:expr, $test:expr) => {
        match server_script($rel, $test) {
            Some(script) => script,
            None => return,
        }
    };
}

fn stdio_spec(name: &str, script: &Path, args: &[&str]) -> ServerSpec {
    let mut all = vec![script.display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_owned()));
    ServerSpec {
        name: name.to_owned(),
        transport: Transport::Stdio {
            command: "node".to_owned(),
            args: all,
            env: BTreeMap::new(),
            cwd: None,
        },
        startup_timeout: Duration::from_secs(30),
        secret_env: Vec::new(),
        sandbox: None,
    }
}

async fn connect(spec: &ServerSpec) -> Connection {
    match Connection::connect(spec).await {
        Ok(c) => c,
        Err(e) => panic!("connect failed: {e}"),
    }
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("arguments must be an object, not {other}"),
    }
}

async fn echo(conn: &Connection, message: &str) -> Result<String, McpError> {
    let never = CancellationToken::new();
    let out = conn
        .call_tool(
            "echo",
            args(json!({ "message": message })),
            CALL_TIMEOUT,
            &never,
        )
        .await?;
    assert!(!out.is_error, "{out:?}");
    Ok(out.content)
}

/// Whether any process is left in group `pgid` (zombies count until reaped).
fn group_exists(pgid: u32) -> bool {
    let pgid = libc::pid_t::try_from(pgid).expect("pgid fits");
    assert!(pgid > 1, "not a real group: {pgid}");
    // SAFETY: signal 0 only checks existence.
    let rc = unsafe { libc::kill(-pgid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// Waits (yielding, so our reaper can run) until group `pgid` is gone; false after 5 s.
async fn group_vanishes(pgid: u32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if !group_exists(pgid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .unwrap_or_else(|_| panic!("the test did not finish within {LIMIT:?}"))
}

fn names(tools: &[sayso::mcp::client::ToolInfo]) -> Vec<&str> {
    tools.iter().map(|t| t.name.as_str()).collect()
}

mod cancellation;
mod everything;
mod filesystem;
mod http;
mod lifecycle;
