//! A stdio MCP server with `sandbox = true` starts inside the chat's sandbox (issue 22, part 2),
//! against the real binary: a tiny MCP server written here (Python, newline-delimited JSON-RPC
//! over stdio) whose one tool writes the file it is given, the fixture model calling it, and
//! the disk checked afterwards. Inside the sandbox it may write the project and nothing
//! outside; with `sandbox = false` (the default) it writes where it likes.
//!
//! sayso runs with `TMPDIR` set to a private directory, so the system temp directory, which
//! the sandbox lets commands write, is not where the test puts its "outside" files. These
//! tests need a working sandbox backend (bubblewrap or Landlock): they fail, never skip,
//! without one.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{Output, home_with, result_of, run, sayso};

/// The server: `write {path, content}` writes `content` to `path` and answers `wrote PATH`,
/// or an error result with the reason (`Read-only file system`…) when it cannot; `connect
/// {port}` opens a TCP connection to that loopback port and answers `connected`, or why not.
const SERVER: &str = r#"import json, socket, sys

TOOLS = [{
    "name": "write",
    "description": "Write a file.",
    "inputSchema": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}, {
    "name": "connect",
    "description": "Open a TCP connection to 127.0.0.1:port.",
    "inputSchema": {
        "type": "object",
        "properties": {"port": {"type": "integer"}},
        "required": ["port"],
    },
}]

def connect(params):
    port = int((params.get("arguments") or {}).get("port", 0))
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except OSError as e:
        return {"content": [{"type": "text", "text": f"cannot connect: {e}"}], "isError": True}
    return {"content": [{"type": "text", "text": "connected"}], "isError": False}

def reply(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()

def call(params):
    if params.get("name") == "connect":
        return connect(params)
    args = params.get("arguments") or {}
    path = str(args.get("path", ""))
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(args.get("content", "")))
    except OSError as e:
        return {"content": [{"type": "text", "text": f"cannot write {path}: {e}"}], "isError": True}
    return {"content": [{"type": "text", "text": f"wrote {path}"}], "isError": False}

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    method, msg_id = msg.get("method"), msg.get("id")
    if msg_id is None:
        continue
    params = msg.get("params") or {}
    if method == "initialize":
        reply(msg_id, {
            "protocolVersion": params.get("protocolVersion", "2025-03-26"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "writer", "version": "1.0.0"},
        })
    elif method == "tools/list":
        reply(msg_id, {"tools": TOOLS})
    elif method == "tools/call":
        reply(msg_id, call(params))
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id,
            "error": {"code": -32601, "message": "no method"}}) + "\n")
        sys.stdout.flush()
"#;

/// The places of one run: the project sayso runs in, a directory outside it (and outside
/// sayso's temp directory), sayso's private temp directory, and the server script's.
struct Places {
    project: tempfile::TempDir,
    outside: tempfile::TempDir,
    tmp: tempfile::TempDir,
    script: PathBuf,
    _scripts: tempfile::TempDir,
}

fn places() -> Places {
    let scripts = tempfile::tempdir().unwrap();
    let script = scripts.path().join("writer.py");
    std::fs::write(&script, SERVER).unwrap();
    Places {
        project: tempfile::tempdir().unwrap(),
        outside: tempfile::tempdir().unwrap(),
        tmp: tempfile::tempdir().unwrap(),
        script,
        _scripts: scripts,
    }
}

/// The `[mcp_servers.writer]` table, with `sandbox` as given (`None`: not written).
fn server(script: &Path, sandbox: Option<bool>) -> String {
    let key = sandbox
        .map(|s| format!("sandbox = {s}\n"))
        .unwrap_or_default();
    format!(
        "\n[mcp_servers.writer]\ncommand = \"python3\"\nargs = [{:?}]\nstartup_timeout = 30\nrequire_approval_before = false\n{key}",
        script.display().to_string()
    )
}

/// sayso in `p.project`, the model writing each of `paths` through the server; `extra` is more
/// user config (a `[sandbox]` table).
async fn write_through_server(
    p: &Places,
    sandbox: Option<bool>,
    extra: &str,
    paths: &[&Path],
) -> (Fixture, Output) {
    let fx = Fixture::start().await;
    let calls: Vec<(String, serde_json::Value)> = paths
        .iter()
        .enumerate()
        .map(|(i, path)| {
            (
                format!("c{i}"),
                json!({"path": path.display().to_string(), "content": "from the server"}),
            )
        })
        .collect();
    let refs: Vec<(&str, &str, &serde_json::Value)> = calls
        .iter()
        .map(|(id, args)| (id.as_str(), "writer__write", args))
        .collect();
    fx.push(call_reply(&refs));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(
        &fx.base_url(),
        &format!("{extra}{}", server(&p.script, sandbox)),
    );
    let mut cmd = sayso(h.path());
    cmd.env("TMPDIR", p.tmp.path())
        .args(["-p", "go", "-C"])
        .arg(p.project.path());
    let out = run(cmd).await;
    (fx, out)
}

#[tokio::test]
async fn a_sandboxed_mcp_server_writes_the_project_and_nothing_outside() {
    let p = places();
    let inside = p.project.path().join("inside.txt");
    let outside = p.outside.path().join("outside.txt");
    let (fx, out) = write_through_server(&p, Some(true), "", &[&inside, &outside]).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let wrote_inside = result_of(&fx, "c0");
    assert!(
        wrote_inside.contains("wrote"),
        "the sandboxed server runs and writes the project: {wrote_inside}\n{}",
        out.stderr
    );
    assert!(inside.exists());
    assert!(
        !outside.exists(),
        "the sandboxed server wrote outside the project"
    );
    let refused = result_of(&fx, "c1");
    assert!(
        refused.contains("cannot write")
            && (refused.contains("Read-only file system") || refused.contains("Permission denied")),
        "{refused}"
    );
}

#[tokio::test]
async fn an_mcp_server_without_sandbox_true_writes_outside_as_before() {
    for sandbox in [None, Some(false)] {
        let p = places();
        let outside = p.outside.path().join("outside.txt");
        let (fx, out) = write_through_server(&p, sandbox, "", &[&outside]).await;
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        let content = result_of(&fx, "c0");
        assert!(content.contains("wrote"), "{sandbox:?}: {content}");
        assert!(outside.exists(), "{sandbox:?}: the server did not write");
    }
}

#[tokio::test]
async fn a_sandboxed_mcp_server_gets_the_read_only_mode_too() {
    let p = places();
    let inside = p.project.path().join("inside.txt");
    let (fx, out) = write_through_server(
        &p,
        Some(true),
        "[sandbox]\nmode = \"read-only\"\n",
        &[&inside],
    )
    .await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let refused = result_of(&fx, "c0");
    assert!(
        refused.contains("cannot write") && !inside.exists(),
        "{refused}"
    );
}

#[tokio::test]
async fn a_project_file_may_sandbox_a_server_but_not_unsandbox_one() {
    // The user's server has no sandbox key; the project's `sandbox = true` tightens it.
    let p = places();
    std::fs::create_dir_all(p.project.path().join(".sayso")).unwrap();
    std::fs::write(
        p.project.path().join(".sayso/config.toml"),
        "[mcp_servers.writer]\nsandbox = true\n",
    )
    .unwrap();
    let outside = p.outside.path().join("outside.txt");
    let (fx, out) = write_through_server(&p, None, "", &[&outside]).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        !outside.exists(),
        "the project's sandbox = true was ignored"
    );
    assert!(result_of(&fx, "c0").contains("cannot write"));

    // The user's `sandbox = true` stands against the project's `sandbox = false`.
    let p = places();
    std::fs::create_dir_all(p.project.path().join(".sayso")).unwrap();
    std::fs::write(
        p.project.path().join(".sayso/config.toml"),
        "[mcp_servers.writer]\nsandbox = false\n",
    )
    .unwrap();
    let outside = p.outside.path().join("outside.txt");
    let (fx, out) = write_through_server(&p, Some(true), "", &[&outside]).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        !outside.exists(),
        "the project loosened the server's sandbox"
    );
    assert!(result_of(&fx, "c0").contains("cannot write"));
    assert!(
        out.stderr.contains("ignoring `mcp_servers.writer`"),
        "{}",
        out.stderr
    );
}

/// No process still runs `pattern` (a server left behind).
fn none_left(pattern: &str) -> bool {
    let out = std::process::Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .expect("pgrep");
    out.stdout.is_empty()
}

#[tokio::test]
async fn a_sandboxed_mcp_server_reaches_the_network_only_with_network_true() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    for (extra, reaches) in [("", false), ("[sandbox]\nnetwork = true\n", true)] {
        let p = places();
        let fx = Fixture::start().await;
        fx.push(call_reply(&[(
            "c0",
            "writer__connect",
            &json!({"port": port}),
        )]));
        fx.push(Reply::Stream(sse::text_reply(&["done"])));
        let h = home_with(
            &fx.base_url(),
            &format!("{extra}{}", server(&p.script, Some(true))),
        );
        let mut cmd = sayso(h.path());
        cmd.env("TMPDIR", p.tmp.path())
            .args(["-p", "go", "-C"])
            .arg(p.project.path());
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        let content = result_of(&fx, "c0");
        assert_eq!(
            content == "connected",
            reaches,
            "network = {reaches}: {content}"
        );
        assert!(
            none_left(&p.script.display().to_string()),
            "the sandboxed server outlived sayso"
        );
    }
}
