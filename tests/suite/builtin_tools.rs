//! Built-in tools that reach outside the project — git, the web, the memories directory, the
//! user — and `@{name}` mentions, through the real engine and binary.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use sayso::config::opts::Opts;
use sayso::events::CallEnd;
use sayso::tools::builtin;
use sayso::tools::context::ToolContext;
use sayso::tools::lifecycle::orchestrator::{Engine, EngineSetup};
use sayso::tools::policy::approval::{Interaction, Mode};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::engine_support::{call, contents, run};
use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{run as run_bin, sayso};

/// An engine with the built-in registry, everything active; fetch_webpage may reach the
/// loopback servers these tests run (`allow_private_addresses`).
fn engine(cwd: &std::path::Path, ctx: ToolContext) -> Engine {
    let mut registry = builtin::registry();
    registry.set_config_opts(
        "fetch_webpage",
        Opts {
            allow_private_addresses: Some(true),
            ..Opts::default()
        },
    );
    let active = registry.entries().map(|(n, _)| n.to_owned()).collect();
    Engine::new(EngineSetup {
        registry: Arc::new(registry),
        active,
        allowed: ["fetch_webpage".to_owned(), "memory".to_owned()].into(),
        mode: Mode::Balanced.into(),
        interaction: Interaction::Interactive,
        judge: None,
        cwd: cwd.to_path_buf(),
        approver: None,
        rules: Default::default(),
        ctx: Arc::new(ctx),
    })
}

/// Serves one canned HTTP response per connection on loopback.
async fn web(responses: Vec<(&'static str, Vec<u8>)>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        for (head, body) in responses {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            let mut buf = [0u8; 4096];
            let _ = sock.read(&mut buf).await;
            let resp = format!(
                "HTTP/1.1 {head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = sock.write_all(resp.as_bytes()).await;
            let _ = sock.write_all(&body).await;
        }
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn fetch_webpage_returns_readable_text_and_refuses_what_is_not_text() {
    let base = web(vec![
        ("200 OK\r\nContent-Type: text/html; charset=utf-8", b"<html><head><title>Docs</title><script>x()</script></head><body><h2>Install</h2><p>Run <code>cargo add sayso</code>.</p></body></html>".to_vec()),
        ("200 OK\r\nContent-Type: image/png", vec![0x89, b'P', b'N', b'G']),
        ("404 Not Found\r\nContent-Type: text/plain", b"nope".to_vec()),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(dir.path(), ToolContext::default());
    let page = format!("{base}/docs");
    let calls = [
        call("1", "fetch_webpage", &json!({"url": page}).to_string()),
        call(
            "2",
            "fetch_webpage",
            &json!({"url": format!("{base}/logo.png")}).to_string(),
        ),
        call(
            "3",
            "fetch_webpage",
            &json!({"url": format!("{base}/missing")}).to_string(),
        ),
        call("4", "fetch_webpage", r#"{"url": "file:///etc/passwd"}"#),
    ];
    let (r, _) = run(&mut e, &calls).await;
    let c = contents(&r);
    assert_eq!(
        c[0].1,
        format!(
            "<attachment url=\"{page}\">\n# Docs\n\n## Install\n\nRun cargo add sayso.\n</attachment>"
        )
    );
    assert_eq!(
        c[1].1,
        format!("`{base}/logo.png` is image/png, not a web page or text; sayso only fetches text")
    );
    assert_eq!(
        c[2].1,
        format!("Error fetching `{base}/missing`: the server answered 404 Not Found")
    );
    assert_eq!(
        c[3].1,
        "Invalid URL: `file:///etc/passwd` (only http and https are fetched)"
    );
    assert_eq!(
        r.results[0].output.display().as_deref(),
        Some(format!("Fetched {page} (0 KB)").as_str())
    );
}

/// Serves `/old` as a redirect to `/new` and `/new` as text, on a plain thread (no runtime), and
/// records each request's head.
fn redirecting_web(requests: usize) -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (heads, received) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for _ in 0..requests {
            let Ok((mut sock, _)) = listener.accept() else {
                return;
            };
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") && sock.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head).into_owned();
            let reply = if head.starts_with("GET /old ") {
                "HTTP/1.1 302 Found\r\nLocation: /new\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            } else {
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 10\r\nConnection: close\r\n\r\nmoved here"
            };
            let _ = sock.write_all(reply.as_bytes());
            let _ = heads.send(head);
        }
    });
    (base, received)
}

/// Every fetch goes through one client, also from a runtime started after the first one ended,
/// and it keeps the settings a fetch had: redirects followed, sayso's user agent.
#[test]
fn fetches_on_separate_runtimes_share_one_client_with_its_settings() {
    let (base, heads) = redirecting_web(4);
    for _ in 0..2 {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let (content, display) = runtime
            .block_on(builtin::fetch_webpage::fetch(
                &format!("{base}/old"),
                builtin::fetch_webpage::FetchPolicy {
                    allow_private_addresses: true,
                },
            ))
            .unwrap();
        assert_eq!(
            content,
            format!("<attachment url=\"{base}/old\">\nmoved here\n</attachment>")
        );
        assert_eq!(display, format!("Fetched {base}/old (0 KB)"));
    }
    let heads: Vec<String> = heads.iter().take(4).collect();
    let user_agent = format!("user-agent: sayso/{}\r\n", env!("CARGO_PKG_VERSION"));
    for (i, head) in heads.iter().enumerate() {
        let path = if i % 2 == 0 { "/old" } else { "/new" };
        assert!(head.starts_with(&format!("GET {path} ")), "{head}");
        assert!(head.to_ascii_lowercase().contains(&user_agent), "{head}");
    }
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let ok = std::process::Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?}");
}

#[tokio::test]
async fn get_changed_files_shows_staged_and_unstaged_diffs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut e = engine(d, ToolContext::default());
    let (r, _) = run(&mut e, &[call("0", "get_changed_files", "{}")]).await;
    assert_eq!(
        r.results[0].content(),
        "the working directory is not inside a git repository"
    );
    git(d, &["init", "-q"]);
    std::fs::write(d.join("a.txt"), "one\n").unwrap();
    std::fs::write(d.join("b.txt"), "bee\n").unwrap();
    git(d, &["add", "."]);
    git(d, &["commit", "-qm", "init"]);
    let (r, _) = run(
        &mut e,
        &[call(
            "1",
            "get_changed_files",
            r#"{"source_control_state": null}"#,
        )],
    )
    .await;
    assert_eq!(r.results[0].content(), "No changed files found.");
    std::fs::write(d.join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(d.join("b.txt"), "bee!\n").unwrap();
    git(d, &["add", "b.txt"]);
    let (r, _) = run(
        &mut e,
        &[call(
            "2",
            "get_changed_files",
            r#"{"source_control_state": ["staged"]}"#,
        )],
    )
    .await;
    let staged = r.results[0].content();
    assert!(
        staged
            .starts_with("<getChangedFiles type=\"staged\">\n```diff\ndiff --git a/b.txt b/b.txt"),
        "{staged}"
    );
    assert!(
        staged.contains("-bee\n+bee!") && !staged.contains("a.txt"),
        "{staged}"
    );
    let (r, _) = run(&mut e, &[call("3", "get_changed_files", "{}")]).await;
    let all = r.results[0].content();
    assert!(
        all.contains("type=\"unstaged\"")
            && all.contains("+two")
            && all.contains("type=\"staged\""),
        "{all}"
    );
    assert_eq!(
        r.results[0].output.display().as_deref(),
        Some("Changed files: 1 unstaged, 1 staged")
    );
}

#[tokio::test]
async fn memory_notes_live_under_the_memories_directory() {
    let dir = tempfile::tempdir().unwrap();
    let mem = dir.path().join("data/memories");
    let mut e = engine(
        dir.path(),
        ToolContext {
            memory_dir: mem.clone(),
            ..ToolContext::default()
        },
    );
    let calls = [
        call("1", "memory", &json!({"command": "create", "path": "/memories/project.md", "file_text": "uses tokio\n"}).to_string()),
        call("2", "memory", &json!({"command": "view", "path": "/memories/project.md", "view_range": [1, -1]}).to_string()),
        call("3", "memory", &json!({"command": "view", "path": "/memories/../../escape"}).to_string()),
    ];
    let (r, _) = run(&mut e, &calls).await;
    let c = contents(&r);
    assert_eq!(c[0].1, "Created /memories/project.md");
    assert_eq!(c[1].1, "/memories/project.md:\n     1\tuses tokio");
    assert_eq!(
        c[2].1,
        "Invalid path: it must stay within the /memories directory"
    );
    assert_eq!(r.results[2].end, CallEnd::Error);
    assert_eq!(
        std::fs::read_to_string(mem.join("project.md")).unwrap(),
        "uses tokio\n"
    );
}

#[tokio::test]
async fn headless_questions_get_no_answer() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "q1",
        "ask_questions",
        json!({"questions": [{"header": "Stack", "question": "Which database?", "options": [{"label": "Postgres", "description": ""}], "multiSelect": null}]}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let h = home(&fx.base_url());
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "set it up"]);
    let out = run_bin(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let msgs = &fx.requests()[1].body["messages"];
    let tool = msgs
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .unwrap();
    assert_eq!(
        tool["content"],
        "**Stack**: Which database?\nNo answer provided"
    );
}

#[tokio::test]
async fn a_mention_adds_a_tool_for_the_rest_of_the_chat() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let h = home(&fx.base_url());
    let mut cmd = sayso(h.path());
    cmd.args([
        "-p",
        "--tools",
        "read_file",
        "look it up with @{fetch_webpage} and @{files}",
    ]);
    let out = run_bin(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let body = &fx.requests()[0].body;
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap();
    assert!(
        user["content"].as_str().unwrap().starts_with("look it up with the fetch_webpage tool and I'm giving you access to read_file, create_file"),
        "{}",
        user["content"]
    );
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"fetch_webpage")
            && names.contains(&"create_file")
            && names.contains(&"read_file"),
        "{names:?}"
    );
}

fn home(base_url: &str) -> tempfile::TempDir {
    crate::support::home_with(base_url, "")
}
