//! Tools in headless mode through the real binary: approvals without a user, `--auto`,
//! `--allowed-tools`, `--tools`, command tools from config, and the JSON tool events.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::home_with as home;
use crate::support::json_lines;
use crate::support::tool_messages;
use crate::support::{run, sayso};

#[tokio::test]
async fn without_a_user_a_call_needing_approval_is_rejected_and_the_run_goes_on() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch made", "flag": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["I could not run it."])));
    let h = home(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "make a file"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "I could not run it.\n");
    let text = "Approval required for `run_command` but sayso is running non-interactively; rerun with --auto or --allowed-tools";
    assert_eq!(
        tool_messages(&fx.requests()[1].body),
        [("c1".to_string(), text.to_string())]
    );
    assert!(
        out.stderr.contains(&format!("sayso: run_command: {text}")),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("sayso: rejected: touch made"),
        "{}",
        out.stderr
    );
    assert!(!h.path().join("made").exists());
}

#[tokio::test]
async fn allowed_tools_run_and_json_reports_every_step() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        json!({"cmd": "echo hi", "flag": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let h = home(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--json", "--allowed-tools", "run_command", "say hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events: Vec<Value> = json_lines(&out.stdout);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "session_started",
            "tool_use_begin",
            "tool_use_delta",
            "tool_use_end",
            "turn_completed",
            "tool_started",
            // Undo's checkpoints of the command (pending, then complete).
            "checkpoint",
            "checkpoint",
            "tool_output",
            "tool_finished",
            "message_delta",
            "turn_completed",
            "session_finished",
        ]
    );
    assert_eq!(
        events[3],
        json!({"type": "tool_use_end", "index": 0, "call_id": "c1", "name": "run_command", "arguments": "{\"cmd\":\"echo hi\",\"flag\":null}"})
    );
    assert_eq!(
        events[5],
        json!({"type": "tool_started", "call_id": "c1", "name": "run_command", "cmd_string": "echo hi", "args": {"cmd": "echo hi", "flag": null},
               "unasked": {"why": "allowed_tools", "text": "`--allowed-tools` / `chat.allowed_tools` names the tool"}})
    );
    assert_eq!(
        events[8],
        json!({"type": "tool_output", "call_id": "c1", "name": "run_command", "content": "`echo hi`\n````\nhi\n````", "display": "hi"})
    );
    assert_eq!(
        events[9],
        json!({"type": "tool_finished", "call_id": "c1", "name": "run_command", "status": "success"})
    );
    assert_eq!(
        events[12],
        json!({"type": "session_finished", "status": "completed", "text": "Done."})
    );
    assert_eq!(
        tool_messages(&fx.requests()[1].body),
        [("c1".to_string(), "`echo hi`\n````\nhi\n````".to_string())]
    );
}

#[tokio::test]
async fn auto_mode_runs_safe_commands_asks_the_judge_about_others_and_rejects_protected_ones() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[
        ("c1", "run_command", json!({"cmd": "ls", "flag": null})),
        (
            "c2",
            "run_command",
            json!({"cmd": "touch judged", "flag": null}),
        ),
        (
            "c3",
            "create_file",
            json!({"filepath": "new.txt", "content": "hello\n"}),
        ),
    ]));
    fx.push(Reply::Json(json!({"choices": [{"message": {"content": "{\"safe\": false, \"reason\": \"writes a file\"}"}}]})));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let h = home(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--auto", "--json", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 3);
    assert_eq!(
        reqs[1].body["response_format"]["type"], "json_schema",
        "the second request is the judge's"
    );
    let msgs = tool_messages(&reqs[2].body);
    assert!(msgs[0].1.starts_with("`ls`"), "{:?}", msgs[0]);
    assert_eq!(
        msgs[1].1,
        "Approval required for `run_command` but sayso is running non-interactively; rerun with --auto or --allowed-tools"
    );
    assert_eq!(
        msgs[2].1, "Created new.txt (1 lines)",
        "create_file needs no approval in auto mode"
    );
    assert!(!h.path().join("judged").exists());
    assert_eq!(
        std::fs::read_to_string(h.path().join("new.txt")).unwrap(),
        "hello\n"
    );
    let judge: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "judge_finished")
        .collect();
    assert_eq!(
        judge,
        [
            json!({"type": "judge_finished", "call_id": "c2", "name": "run_command", "safe": false, "reason": "writes a file"})
        ]
    );
}

#[tokio::test]
async fn a_write_outside_the_working_directory_is_rejected_even_in_auto_mode() {
    let fx = Fixture::start().await;
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("escape.txt");
    fx.push(call_reply(&[(
        "c1",
        "create_file",
        json!({"filepath": target.to_str().unwrap(), "content": "x"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let h = home(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--auto", "--allowed-tools", "create_file", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!target.exists());
    assert_eq!(
        tool_messages(&fx.requests()[1].body)[0].1,
        format!(
            "Approval required for `create_file` but sayso is running non-interactively: `{}` is OUTSIDE the working directory. Only a user can approve this call.",
            std::fs::canonicalize(outside.path())
                .unwrap()
                .join("escape.txt")
                .display()
        )
    );
}

#[tokio::test]
async fn tools_option_limits_what_the_model_is_offered() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let h = home(&fx.base_url(), "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--tools", "read_file", "hi"]);
    assert_eq!(run(cmd).await.code, 0);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--tools", "", "hi"]);
    assert_eq!(run(cmd).await.code, 0);
    let reqs = fx.requests();
    let names: Vec<&str> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["read_file"]);
    assert_eq!(reqs[1].body.get("tools"), None);

    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--tools", "read_file,warp_drive", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("unknown tool or group `warp_drive`"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn config_command_tools_quote_their_arguments() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "greet",
        json!({"name": "; touch pwned", "loud": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let extra = r#"
[chat]
default_tools = ["greet", "read_file"]
allowed_tools = ["greet"]
[tools.greet]
extends = "cmd_tool"
description = "Greet someone"
build_cmd = "echo hello {name} {loud?}"
schema = { properties = { name = { type = "string" }, loud = { type = "string" } }, required = ["name"] }
"#;
    let h = home(&fx.base_url(), extra);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "greet"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let reqs = fx.requests();
    let greet = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "greet")
        .unwrap()
        .clone();
    assert_eq!(
        greet["function"]["parameters"],
        json!({"type": "object", "properties": {"name": {"type": "string"}, "loud": {"type": ["string", "null"]}}, "required": ["loud", "name"], "additionalProperties": false})
    );
    assert_eq!(greet["function"]["strict"], true);
    assert_eq!(
        tool_messages(&reqs[1].body)[0].1,
        "`echo hello '; touch pwned'`\n````\nhello ; touch pwned\n````"
    );
    assert!(!h.path().join("pwned").exists());
}

#[tokio::test]
async fn tool_config_mistakes_name_file_line_and_key() {
    let h = home(
        "http://127.0.0.1:9/v1",
        "[tools.run_command.opts]\nrequire_aproval_before = true\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains(
            "config.toml:6:1: key `tools.run_command.opts.require_aproval_before`: unknown field"
        ),
        "{}",
        out.stderr
    );

    let h = home(
        "http://127.0.0.1:9/v1",
        "[chat]\nallowed_tools = [\"run_comand\"]\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("config.toml:6: key `allowed_tools`: unknown tool or group `run_comand`"),
        "{}",
        out.stderr
    );

    let h = home(
        "http://127.0.0.1:9/v1",
        "[tools.deploy]\nbuild_cmd = \"make deploy\"\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("there is no tool `deploy`; to define one, add `extends = \"cmd_tool\"`"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn a_project_config_cannot_define_tools_or_loosen_approvals() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch owned", "flag": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let h = home(&fx.base_url(), "");
    std::fs::create_dir_all(h.path().join(".sayso")).unwrap();
    std::fs::write(
        h.path().join(".sayso/config.toml"),
        "[chat]\nallowed_tools = [\"run_command\"]\nauto = true\n[tools.run_command.opts]\nrequire_approval_before = false\n",
    )
    .unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!h.path().join("owned").exists());
    assert!(
        out.stderr.contains("ignoring `chat.allowed_tools`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("ignoring `tools.run_command`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("ignoring `chat.auto`"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn sayso_tools_lists_tools_with_their_approval_settings() {
    let h = home(
        "http://127.0.0.1:9/v1",
        "[tools.delete_stuff]\nextends = \"cmd_tool\"\ndescription = \"d\"\nbuild_cmd = \"rm {f}\"\nschema = { properties = { f = { type = \"string\" } }, required = [\"f\"] }\nopts = { protect = true }\n",
    );
    let mut cmd = sayso(h.path());
    cmd.arg("tools");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = |name: &str| {
        out.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        line("run_command").ends_with("ask; Always accept remembers the exact command"),
        "{}",
        out.stdout
    );
    assert!(line("read_file").ends_with(" run"), "{}", out.stdout);
    assert!(
        line("delete_stuff").contains("config") && line("delete_stuff").contains(" ask"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("group agent: run_command, read_file, create_file"),
        "{}",
        out.stdout
    );
}
