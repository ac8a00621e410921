//! Sessions through the real binary: saved as they happen (a `kill -9` loses nothing that was
//! shown), resumed with the whole history and every tool call answered, private files, no
//! secrets, the `sayso sessions` subcommands and the TUI's `/sessions` picker.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::json_lines;
use crate::support::sessions::{id_of, session_files, sessions_dir};
use crate::support::tui::Tui;
use crate::support::{home_with, run, sayso};

fn roles_and_contents(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap_or_default().to_owned();
            let content = match (&m["content"], &m["tool_calls"]) {
                (Value::String(s), _) if !s.is_empty() => s.clone(),
                (_, Value::Array(c)) => format!(
                    "calls: {}",
                    c.iter()
                        .map(|c| c["id"].as_str().unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                _ => String::new(),
            };
            (role, content)
        })
        .collect()
}

#[tokio::test]
async fn a_resumed_session_sends_the_whole_history_with_every_call_answered() {
    let fx = Fixture::start().await;
    fx.push(calls(&[("c1", "run_command", json!({"cmd": "echo hi"}))]));
    fx.push(Reply::Stream(sse::text_reply(&["It said hi."])));
    let h = home_with(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--allowed-tools", "run_command", "say hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(session_files(h.path()).len(), 1);

    fx.push(Reply::Stream(sse::text_reply(&["Again."])));
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--continue", "and again"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Again.\n", "only the new turn is printed");
    let body = &fx.requests()[2].body;
    let got = roles_and_contents(body);
    assert_eq!(got[0].0, "system");
    assert_eq!(
        got[1..],
        [
            ("user".into(), "say hi".into()),
            ("assistant".into(), "calls: c1".into()),
            ("tool".into(), "`echo hi`\n````\nhi\n````".into()),
            ("assistant".into(), "It said hi.".into()),
            ("user".into(), "and again".into()),
        ]
    );
    assert_eq!(
        session_files(h.path()).len(),
        1,
        "the resumed session goes on in the same file"
    );
    let text = std::fs::read_to_string(&session_files(h.path())[0]).unwrap();
    assert!(text.contains("\"and again\"") && text.contains("\"Again.\""));
}

/// A session killed in the middle of a batch, with a torn last line.
fn killed_mid_batch(dir: &Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    let id = "0abcdef-abc";
    let lines = [
        json!({"t": "session", "v": 1, "id": id, "cwd": "/nowhere", "model": "m", "provider": "default", "started": "2026-12-01T00:00:00Z", "mode": "normal"}),
        json!({"t": "user", "text": "run both", "sent": "run both"}),
        json!({"t": "reply", "message": {"content": "", "reasoning": "", "tool_calls": [
            {"id": "c1", "name": "run_command", "arguments": "{\"cmd\":\"echo one\"}"},
            {"id": "c2", "name": "run_command", "arguments": "{\"cmd\":\"sleep 100\"}"}
        ], "finish_reason": "tool_calls", "usage": null}}),
        json!({"t": "tool_output", "call_id": "c1", "name": "run_command", "content": "one", "display": null}),
        json!({"t": "tool_end", "call_id": "c1", "name": "run_command", "end": "success"}),
    ];
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str("{\"t\":\"tool_output\",\"call_id\":\"c2\",\"con");
    std::fs::write(dir.join(format!("{id}.jsonl")), text).unwrap();
    id.to_owned()
}

#[tokio::test]
async fn a_session_killed_mid_batch_resumes_with_the_unfinished_call_answered() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let h = home_with(&fx.base_url(), "");
    let id = killed_mid_batch(&sessions_dir(h.path()));
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--resume", "0abcd", "what happened?"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("1 unreadable line(s) of the session file were skipped"),
        "{}",
        out.stderr
    );
    let got = roles_and_contents(&fx.requests()[0].body);
    assert_eq!(
        got[1..],
        [
            ("user".into(), "run both".into()),
            ("assistant".into(), "calls: c1,c2".into()),
            ("tool".into(), "one".into()),
            (
                "tool".into(),
                "The `run_command` tool call was interrupted: sayso stopped before it finished, so it may or may not have run.".into()
            ),
            ("user".into(), "what happened?".into()),
        ]
    );
    let file = std::fs::read_to_string(sessions_dir(h.path()).join(format!("{id}.jsonl"))).unwrap();
    assert!(
        file.lines().last().is_some_and(|l| l.contains("turn_end")),
        "new records start on a line of their own: {file}"
    );
}

#[tokio::test]
async fn session_files_are_private_and_hold_no_secret() {
    let fx = Fixture::start().await;
    fx.push(Reply::Status {
        status: 503,
        headers: vec![],
        body: "{\"error\":{\"message\":\"busy\"}}".into(),
    });
    fx.push(calls(&[("c1", "run_command", json!({"cmd": "echo ran"}))]));
    fx.push(Reply::Status {
        status: 400,
        headers: vec![],
        body: "{\"error\":{\"message\":\"bad request\"}}".into(),
    });
    let h = home_with(
        &fx.base_url(),
        "retry_initial_delay_ms = 1\n[provider.headers]\nX-Team-Token = \"hdr-secret-4567\"\n",
    );
    // home_with sets max_retries = 0; one retry is needed here.
    let config = h.path().join("config/sayso/config.toml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("max_retries = 0", "max_retries = 1");
    std::fs::write(&config, text).unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--allowed-tools", "run_command", "go"])
        .env("OPENAI_API_KEY", "sk-live-secret-123");
    let out = run(cmd).await;
    assert_eq!(out.code, 1, "the final 400 fails the run: {}", out.stderr);
    assert_eq!(
        fx.requests()[1].header("x-team-token"),
        Some("hdr-secret-4567")
    );
    let files = session_files(h.path());
    assert_eq!(files.len(), 1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&sessions_dir(h.path())), 0o700);
        assert_eq!(mode(&files[0]), 0o600);
    }
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.contains("\"ran"), "the tool output was saved: {text}");
    assert!(text.contains("\"retry\""), "{text}");
    for dir in ["data", "state"] {
        for entry in walk(&h.path().join(dir)) {
            let bytes = std::fs::read(&entry).unwrap();
            let content = String::from_utf8_lossy(&bytes);
            for secret in ["sk-live-secret-123", "hdr-secret-4567"] {
                assert!(!content.contains(secret), "{secret} in {}", entry.display());
            }
        }
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[tokio::test]
async fn the_sessions_subcommands_list_show_and_remove() {
    let h = tempfile::tempdir().unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["sessions"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("no saved sessions yet"),
        "{}",
        out.stdout
    );

    let id = killed_mid_batch(&sessions_dir(h.path()));
    let mut cmd = sayso(h.path());
    cmd.args(["sessions", "list"]);
    let out = run(cmd).await;
    assert!(
        out.stdout.contains(&id) && out.stdout.contains("run both"),
        "{}",
        out.stdout
    );
    let mut cmd = sayso(h.path());
    cmd.args(["sessions", "show", &id]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("> run both") && out.stdout.contains("one"),
        "{}",
        out.stdout
    );
    let mut cmd = sayso(h.path());
    cmd.args(["sessions", "show", "--json", &id]);
    let out = run(cmd).await;
    let lines: Vec<Value> = json_lines(&out.stdout);
    assert_eq!(lines.len(), 5, "every readable record");
    let mut cmd = sayso(h.path());
    cmd.args(["sessions", "rm", &id]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(session_files(h.path()).is_empty());
    let mut cmd = sayso(h.path());
    cmd.args(["sessions", "show", "nope"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no session `nope`"), "{}", out.stderr);
}

#[tokio::test]
async fn no_session_saves_nothing_and_keep_prunes_at_start() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["one"])));
    fx.push(Reply::Stream(sse::text_reply(&["two"])));
    let h = home_with(&fx.base_url(), "[sessions]\nkeep = 1\n");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--no-session", "hi"]);
    assert_eq!(run(cmd).await.code, 0);
    assert!(session_files(h.path()).is_empty());
    killed_mid_batch(&sessions_dir(h.path()));
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    assert_eq!(run(cmd).await.code, 0);
    let files = session_files(h.path());
    assert_eq!(files.len(), 1, "the old one was pruned: {files:?}");
    assert_ne!(id_of(&files[0]), "0abcdef-abc");
}

#[tokio::test]
async fn a_kill_9_mid_stream_loses_nothing_that_was_shown_and_the_picker_resumes_it() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    let mut steps = vec![
        Step::Bytes(sse::data(&sse::chunk(
            json!({"role": "assistant", "content": "The first half of the answer is here."}),
            None,
        ))),
        Step::Gate(gate.clone()),
    ];
    steps.extend(sse::text_reply(&[" The rest."]));
    fx.push(Reply::Stream(steps));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("tell me everything").await;
    tui.wait_for("The first half of the answer is here.").await;
    // What the pane shows reaches the session file within 100 ms, with no further event.
    let home = tui.root_path().to_path_buf();
    let start = std::time::Instant::now();
    loop {
        let files = session_files(&home);
        if let Some(f) = files.first()
            && std::fs::read_to_string(f).is_ok_and(|t| t.contains("first half of the answer"))
        {
            break;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(20),
            "the shown text never reached the session file"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let pid = tui.sayso_pid();
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert_eq!(tui.exit_code().await, 137);
    gate.notify_one();

    // A new sayso in the same home: /sessions lists it, Enter resumes it.
    let tui = tui.restart(&[]);
    tui.ready().await;
    tui.type_text("/sessions");
    tui.keys(&["Enter"]);
    tui.wait_for("tell me everything").await;
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("interrupted").await;
    assert!(
        screen.contains("The first half of the answer is here."),
        "{screen}"
    );
}
