//! A resumed chat shows each turn as it really ended: a turn the user cancelled (Esc at the
//! approval), one stopped by `--max-turns`, one cut off by the token limit — never as a
//! stream that broke ("the stream stopped before the reply was complete"). Sessions written
//! by an older sayso (format 1, where those endings were saved as "failed" with their
//! message) resume the same way.

use std::path::Path;

use serde_json::json;

use crate::support::fixture::Fixture;
use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::tui::Tui;

const BROKEN_STREAM: &str = "the stream stopped before the reply was complete";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_and_a_max_turns_turn_resume_as_they_ended() {
    let fx = Fixture::start().await;
    // The first turn reads a file, and one round-trip is all `--max-turns 1` allows.
    fx.push(calls(&[(
        "c1",
        "read_file",
        json!({"filepath": "nope.txt"}),
    )]));
    // The second asks to run a command; the user presses Esc at the approval.
    fx.push(calls(&[(
        "c2",
        "run_command",
        json!({"cmd": "touch one.txt", "flag": null}),
    )]));
    let tui = Tui::start(&fx.base_url(), &["--max-turns", "1"]);
    tui.ready().await;
    tui.send("read it").await;
    tui.wait_for("stopped after 1 model round-trips without a final answer")
        .await;
    tui.send("make a file").await;
    tui.wait_for_modal("Approval needed").await;
    tui.keys(&["Escape"]);
    tui.wait_for("tool calls cancelled; your turn").await;
    tui.wait_for("Ctrl+D quit").await;

    let tui = tui.restart(&["--continue"]);
    let screen = tui.wait_for("tool calls cancelled; your turn").await;
    assert!(
        screen.contains("stopped after 1 model round-trips without a final answer"),
        "{screen}"
    );
    assert!(!screen.contains(BROKEN_STREAM), "{screen}");
    assert!(!screen.contains("send again to retry"), "{screen}");
}

/// A session as sayso wrote it before the endings were typed (format 1): each ending that was
/// not a completion or a stop was saved as `failed` with the message the user had read.
fn write_format_1_session(sessions: &Path, cwd: &Path) -> &'static str {
    std::fs::create_dir_all(sessions).unwrap();
    let id = "0fmt001-abc";
    let user = |text: &str| json!({"t": "user", "text": text, "sent": text});
    let reply = |content: &str, finish: &str| {
        json!({"t": "reply", "message": {
            "content": content, "reasoning": "", "tool_calls": [], "finish_reason": finish, "usage": null
        }})
    };
    let lines = [
        json!({"t": "session", "v": 1, "id": id, "cwd": cwd, "model": "m", "provider": "custom",
               "started": "2026-12-01T08:30:00Z", "mode": "balanced"}),
        user("write a poem"),
        json!({"t": "text", "s": "Roses are"}),
        json!({"t": "retry", "error": "the server answered 503: Service Unavailable"}),
        json!({"t": "text", "s": "Roses are red, violets"}),
        reply("Roses are red, violets", "length"),
        json!({"t": "turn_end", "end": "failed", "message": "the reply was cut off: the model reached its output token limit (finish_reason: length)"}),
        user("loop"),
        json!({"t": "reply", "message": {
            "content": "", "reasoning": "", "finish_reason": "tool_calls", "usage": null,
            "tool_calls": [{"id": "c1", "name": "read_file", "arguments": "{\"filepath\":\"a\"}"}]
        }}),
        json!({"t": "tool_started", "call_id": "c1", "name": "read_file", "cmd_string": "read_file a"}),
        json!({"t": "tool_output", "call_id": "c1", "name": "read_file", "content": "no such file", "display": null}),
        json!({"t": "tool_end", "call_id": "c1", "name": "read_file", "end": "error"}),
        json!({"t": "turn_end", "end": "failed", "message": "stopped after 2 model round-trips (--max-turns) without a final answer"}),
        user("and then?"),
        json!({"t": "interrupted", "partial": "Well"}),
        json!({"t": "turn_end", "end": "interrupted", "message": "interrupted"}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(sessions.join(format!("{id}.jsonl")), text).unwrap();
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_format_1_session_resumes_with_its_real_endings() {
    let fx = Fixture::start().await;
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    let id = write_format_1_session(&tui.root_path().join("data/sayso/sessions"), &tui.work());
    let tui = tui.restart(&["--resume", id]);
    let screen = tui
        .wait_for("stopped after 2 model round-trips without a final answer")
        .await;
    assert!(
        screen.contains("the reply was cut off: the model reached its output token limit"),
        "{screen}"
    );
    assert!(screen.contains("Roses are red, violets"), "{screen}");
    assert!(!screen.contains(BROKEN_STREAM), "{screen}");
    assert!(!screen.contains("send again to retry"), "{screen}");
}
