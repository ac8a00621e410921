//! A project's files only narrow (issue 36, item 6), through the real binary against the
//! fixture server: a project's `text_tool_calls = "auto"` over the user's `"off"` is ignored
//! with a warning naming file:line (a `<tool_call>` in the reply stays text, and a server that
//! refuses `tools` is not sent them described as text); a project's `.sayso/skills` linked out
//! of the project lists no skill and makes nothing outside "inside" (a strict-mode `read_file`
//! there asks); the other keys a project may only tighten (`auto_submit_*`, `max_turns`).

use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, run, sayso, tool_messages};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn a_project_cannot_turn_text_tool_calls_back_on() {
    let fx = Fixture::start().await;
    let call = json!({"name": "run_command", "arguments": {"cmd": "touch ran.txt"}});
    fx.push(Reply::Stream(sse::text_reply(&[&format!(
        "Sure.\n<tool_call>\n{call}\n</tool_call>"
    )])));
    let h = home_with(&fx.base_url(), "text_tool_calls = \"off\"\n");
    write(
        &h.path().join(".sayso/config.toml"),
        "model = \"m\"\n[provider]\ntext_tool_calls = \"auto\"\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--approval-mode", "trust", "make a file"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let project = h.path().join(".sayso/config.toml");
    assert!(
        out.stderr.contains(&format!(
            "{}:3: ignoring `provider.text_tool_calls = \"auto\"`: a project config may only turn reading tool calls from a reply's text off",
            project.display()
        )),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("<tool_call>"), "{}", out.stdout);
    assert!(!h.path().join("ran.txt").exists(), "the text call ran");
    assert_eq!(
        fx.requests().len(),
        1,
        "no second request with a tool result"
    );

    // A server that refuses `tools`: with text calls off, they are not described as text.
    let fx = Fixture::start().await;
    // llama-server without --jinja.
    fx.push(Reply::Status {
        status: 500,
        headers: Vec::new(),
        body: json!({"error": {"code": 500, "message": "tools param requires --jinja flag", "type": "server_error"}}).to_string(),
    });
    fx.push(Reply::Stream(sse::text_reply(&["described"])));
    let h = home_with(&fx.base_url(), "text_tool_calls = \"off\"\n");
    write(
        &h.path().join(".sayso/config.toml"),
        "[provider]\ntext_tool_calls = \"auto\"\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    let requests = fx.requests();
    assert_eq!(requests.len(), 1, "no retry with the tools as text");
    assert!(requests[0].body.get("tools").is_some());
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.stderr
            .contains("describing the tools in the system message"),
        "{}",
        out.stderr
    );

    // "off" from a project is taken.
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&[&format!(
        "<tool_call>\n{call}\n</tool_call>"
    )])));
    let h = home_with(&fx.base_url(), "");
    write(
        &h.path().join(".sayso/config.toml"),
        "[provider]\ntext_tool_calls = \"off\"\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--approval-mode", "trust", "make a file"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("ignoring"), "{}", out.stderr);
    assert!(!h.path().join("ran.txt").exists());
    assert_eq!(fx.requests().len(), 1);
}

/// A project's `.sayso/skills` linked to a folder outside the project: no skill from there is
/// listed, and a strict-mode `read_file` of a file there asks (headless: refused, unread).
#[tokio::test]
async fn a_project_skills_directory_linked_outside_makes_nothing_there_inside() {
    let fx = Fixture::start().await;
    let h = home_with(&fx.base_url(), "");
    let outside = tempfile::tempdir().unwrap();
    write(
        &outside.path().join("notes/SKILL.md"),
        "---\ndescription: private notes\n---\nRead notes.txt.\n",
    );
    write(&outside.path().join("notes/notes.txt"), "s3cret plans\n");
    std::fs::create_dir_all(h.path().join(".sayso")).unwrap();
    std::os::unix::fs::symlink(outside.path(), h.path().join(".sayso/skills")).unwrap();
    let secret = std::fs::canonicalize(outside.path().join("notes/notes.txt")).unwrap();
    fx.push(calls(&[(
        "c1",
        "read_file",
        json!({"filepath": secret.display().to_string(), "start_line": null, "end_line": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--approval-mode", "strict", "read my notes"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let requests = fx.requests();
    let system = requests[0].body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(!system.contains("private notes"), "{system}");
    assert!(
        out.stderr.contains(".sayso/skills was not read")
            && out.stderr.contains("outside the project"),
        "{}",
        out.stderr
    );
    let result = &tool_messages(&requests[1].body)[0].1;
    assert!(
        result.contains("a read outside the project"),
        "strict mode must ask: {result}"
    );
    assert!(!result.contains("s3cret"), "{result}");
}

/// `auto_submit_*` may only be turned off, `max_turns` only lowered, by a project.
#[tokio::test]
async fn a_project_may_only_lower_max_turns_and_turn_auto_submit_off() {
    let fx = Fixture::start().await;
    fx.push(calls(&[("c1", "run_command", json!({"cmd": "echo one"}))]));
    fx.push(calls(&[("c2", "run_command", json!({"cmd": "echo two"}))]));
    fx.push(Reply::Stream(sse::text_reply(&["never reached"])));
    let h = home_with(
        &fx.base_url(),
        "[chat]\nmax_turns = 2\nauto_submit_success = false\n",
    );
    write(
        &h.path().join(".sayso/config.toml"),
        "[chat]\nmax_turns = 100\nauto_submit_success = true\nauto_submit_errors = false\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--approval-mode", "trust", "go"]);
    let out = run(cmd).await;
    let project = h.path().join(".sayso/config.toml").display().to_string();
    for (line, key, value) in [(2, "max_turns", "100"), (3, "auto_submit_success", "true")] {
        assert!(
            out.stderr.contains(&format!(
                "{project}:{line}: ignoring `chat.{key} = {value}`"
            )),
            "{key}: {}",
            out.stderr
        );
    }
    assert!(
        out.stderr.contains("(yours is 2)"),
        "the user's value is named: {}",
        out.stderr
    );
    assert!(!out.stderr.contains("auto_submit_errors"), "{}", out.stderr);
    // The user's `auto_submit_success = false` holds: one request, the result not sent back.
    assert_eq!(fx.requests().len(), 1, "{}", out.stderr);
}

/// A project may choose the chat model, not who judges its commands in auto mode: with an
/// empty `[judge] model`, the judge asks the model your config names.
#[tokio::test]
async fn a_project_model_is_the_chats_but_the_judge_keeps_yours() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch judged.txt"}),
    )]));
    fx.push(Reply::Json(json!({"choices": [{"message": {"role": "assistant", "content": "{\"safe\": true, \"reason\": \"it creates one empty file in the project\"}"}, "finish_reason": "stop"}]})));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let h = home_with(&fx.base_url(), "");
    write(
        &h.path().join(".sayso/config.toml"),
        "model = \"tiny-0.5b\"\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--auto", "make a file"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let requests = fx.requests();
    assert_eq!(requests.len(), 3, "{}", out.stderr);
    assert_eq!(requests[0].body["model"], "tiny-0.5b", "the chat");
    assert_eq!(requests[1].body.get("stream"), None, "the judge's request");
    assert_eq!(requests[1].body["model"], "m", "the judge: your model");
}
