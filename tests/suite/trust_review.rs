//! Adversarial review of issue 18's secrets work, through the real binary and the fixture model
//! over loopback TCP.
//!
//! The attack list:
//!
//! 1. The scrubber replaces exact occurrences only, and a safe-list command reshapes text at
//!    will: in `--auto`, `grep -o . CONFIG` (one character a line), `head -c N CONFIG` and `tail
//!    -c N CONFIG` ran unasked on the user's own config file and gave the model the `[provider]
//!    headers` value, in pieces no exact match finds. A directory holding the config
//!    (`grep -r -o . CONFIG_DIR/..`) did the same. Sayso's own files (its config, data and
//!    state directories, the config files it read, and any directory holding one) are now not
//!    safe for the safe list: the command asks.
//! 2. The session file: the model server is sent the key and may echo it (in its reply, in a
//!    call's arguments); a model that pieced a secret together may write it out. Neither text
//!    was scrubbed, and a reply is written in pieces (every 100 ms or 4 KiB) that would cut a
//!    secret in two. Every record is now scrubbed, and a piece is cut before any ending that
//!    may begin a secret. The TUI's transcript scrubs the reply as it grows (a piece that
//!    ends part-way into a secret shows that part until the rest arrives). Not done: `--json`
//!    and text stdout print each delta as it comes.
//! 3. Off the safe list, `od -c CONFIG` or `od -c /proc/<shell pid>/environ` (the user's shell
//!    holds the key) went to the judge in `--auto`, which sees only the text and may well call
//!    a dump read-only, and ran unasked in trust: the dump reshapes the value past the
//!    scrubber. Any command naming sayso's own files or another process's data now asks.

use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tool_messages;
use crate::support::{home_with, run, sayso};

const HEADER_VALUE: &str = "hdr-team-secret-31415926";

/// Every character of `secret`, in order, with anything between them: the model can read it.
fn spread_out(text: &str, secret: &str) -> bool {
    let mut chars = text.chars();
    secret.chars().all(|c| chars.any(|t| t == c))
}

/// (1) In `--auto`, safe-list commands that reshape the user's config never run unasked.
#[tokio::test]
async fn safe_list_commands_never_reshape_sayso_own_config_unasked() {
    let fx = Fixture::start().await;
    let h = home_with(
        &fx.base_url(),
        &format!("[provider.headers]\nX-Team-Token = \"{HEADER_VALUE}\"\n"),
    );
    let config = h.path().join("config/sayso/config.toml");
    let config = config.display().to_string();
    let config_dir = h.path().join("config").display().to_string();
    let calls = [
        ("c1", format!("grep -o . {config}")),
        ("c2", format!("head -c 130 {config}")),
        ("c3", format!("tail -c 30 {config}")),
        ("c4", format!("grep -r -o . {config_dir}")),
    ];
    let calls: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, c)| (*id, "run_command", json!({ "cmd": c })))
        .collect();
    fx.push(call_reply(&calls));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let project = tempfile::tempdir().unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--json", "--auto", "go", "-C"])
        .arg(project.path());
    let out = run(cmd).await;
    let reqs = fx.requests();
    let last = &reqs.last().unwrap().body;
    let results = tool_messages(last);
    assert_eq!(results.len(), 4, "{last}");
    let mut pieces = String::new();
    for (id, content) in &results {
        assert!(
            !spread_out(content, HEADER_VALUE),
            "{id}: the header value reached the model: {content}"
        );
        pieces.push_str(content);
    }
    // Two halves together are the value too.
    let joined: String = pieces.split_whitespace().collect();
    assert!(
        !joined.contains(&HEADER_VALUE[..12]) || !joined.contains(&HEADER_VALUE[12..]),
        "the header value reached the model in pieces: {pieces}"
    );
    let _ = out;
}

/// (2) The model server has the key (it is sent to it) and echoes it, in its reply and in a
/// call's arguments: the session file holds no trace of it.
#[tokio::test]
async fn a_key_the_model_server_echoes_is_not_written_to_the_session_file() {
    let key = "sk-echo-key-0123456789";
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "read_file",
        json!({"filepath": format!("notes-{key}.txt"), "start_line": null, "end_line": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&[
        "your key is ",
        &key[..9],
        &key[9..],
    ])));
    let h = home_with(&fx.base_url(), "");
    let project = tempfile::tempdir().unwrap();
    let mut cmd = sayso(h.path());
    cmd.env("OPENAI_API_KEY", key)
        .args(["-p", "--json", "go", "-C"])
        .arg(project.path());
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let sessions: Vec<_> = std::fs::read_dir(h.path().join("data/sayso/sessions"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(sessions.len(), 1);
    let saved = std::fs::read_to_string(sessions[0].path()).unwrap();
    assert!(saved.contains("your key is"), "{saved}");
    for piece in [key, &key[..9], &key[9..]] {
        assert!(
            !saved.contains(piece),
            "{piece} in the session file: {saved}"
        );
    }
}

/// The judge's answer, queued after the model's calls: if sayso asked the judge, it would say
/// "safe" and the command would run.
fn judge_says_safe() -> Reply {
    Reply::Json(
        json!({"choices": [{"message": {"role": "assistant", "content": "{\"safe\": true, \"reason\": \"read-only\"}"}, "finish_reason": "stop"}]}),
    )
}

/// (3) Off the safe list, a command that reads sayso's own config or another process's data
/// (the parent shell's `/proc/<pid>/environ` holds the key) went to the judge in `--auto`, which
/// sees only the text and may call a hex dump read-only: `od -c` reshapes the value past the
/// scrubber. It asks the user instead (headless: rejected), whatever the judge would say.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn reads_of_sayso_own_files_or_process_data_are_never_left_to_the_judge() {
    let fx = Fixture::start().await;
    let h = home_with(
        &fx.base_url(),
        &format!("[provider.headers]\nX-Team-Token = \"{HEADER_VALUE}\"\n"),
    );
    // A process holding a key in its environment, as the user's shell would.
    let mut holder = std::process::Command::new("sleep")
        .arg("30")
        .env("HOLDER_KEY", HEADER_VALUE)
        .spawn()
        .unwrap();
    let config = h.path().join("config/sayso/config.toml");
    let calls = [
        ("c1", format!("od -c {}", config.display())),
        ("c2", format!("od -c /proc/{}/environ", holder.id())),
    ];
    let calls: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, c)| (*id, "run_command", json!({ "cmd": c })))
        .collect();
    fx.push(call_reply(&calls));
    fx.push(judge_says_safe());
    fx.push(judge_says_safe());
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let project = tempfile::tempdir().unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--json", "--auto", "go", "-C"])
        .arg(project.path());
    let out = run(cmd).await;
    let _ = holder.kill();
    let _ = holder.wait();
    // The judge's answers are left unused, so the last request gets one of them and fails.
    assert!(!out.stdout.contains(HEADER_VALUE), "{}", out.stdout);
    let reqs = fx.requests();
    let judged = reqs
        .iter()
        .filter(|r| r.body.get("response_format").is_some())
        .count();
    assert_eq!(judged, 0, "the judge was asked");
    let last = &reqs.last().unwrap().body;
    let results = tool_messages(last);
    assert_eq!(results.len(), 2, "{last}");
    for (id, content) in results {
        assert!(content.contains("Approval required"), "{id}: {content}");
        assert!(
            !spread_out(&content, HEADER_VALUE),
            "{id}: the secret reached the model: {content}"
        );
    }
}
