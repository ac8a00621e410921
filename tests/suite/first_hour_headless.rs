//! The first hour with `sayso -p` (issue 19): a prompt with piped input, startup errors in
//! `--json`, the line that says how to resume a chat. The real binary, its stdout, stderr, exit
//! code and the request bodies the fixture server records.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use crate::support::controller::{Script, drive};
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, mcp_dir, run, sayso};
use crate::support::{json_lines, offered};

/// The user message of the first request the fixture received.
fn first_message(fx: &Fixture) -> String {
    let reqs = fx.requests();
    let messages = reqs[0].body["messages"].as_array().unwrap().clone();
    messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_prompt_and_a_log_on_stdin_are_both_sent() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["A type error."])));
    let home = home_with(&fx.base_url(), "");
    let log = home.path().join("build.log");
    std::fs::write(
        &log,
        "error[E0308]: mismatched types\n --> src/main.rs:2:5\n",
    )
    .unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "Explain this error", "--no-session"])
        .stdin(std::fs::File::open(&log).unwrap());
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "A type error.\n");
    assert_eq!(
        first_message(&fx),
        "Explain this error\n\n```\nerror[E0308]: mismatched types\n --> src/main.rs:2:5\n```"
    );
}

#[tokio::test]
async fn a_long_log_keeps_its_start_and_end_and_says_what_was_cut() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "");
    let log = home.path().join("build.log");
    let text: String = (1..=40_000).map(|i| format!("log line {i}\n")).collect();
    std::fs::write(&log, &text).unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "Explain this error", "--no-session"])
        .stdin(std::fs::File::open(&log).unwrap());
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let sent = first_message(&fx);
    assert!(
        sent.starts_with("Explain this error\n\n```\nlog line 1\nlog line 2\n"),
        "{}",
        &sent[..200]
    );
    assert!(
        sent.ends_with("log line 39999\nlog line 40000\n```"),
        "{}",
        &sent[sent.len() - 200..]
    );
    let note = sent
        .lines()
        .find(|l| l.starts_with("[… sayso cut "))
        .expect("a line says what was cut");
    // The note's count and what was sent add up to the whole log.
    let cut: usize = note.split_whitespace().nth(3).unwrap().parse().unwrap();
    let body = sent
        .strip_prefix("Explain this error\n\n```\n")
        .and_then(|s| s.strip_suffix("\n```"))
        .unwrap();
    assert_eq!(body.len() - note.len() - 1 + 1 + cut, text.len(), "{note}");
    // The fixture reports no window: 8192 tokens are assumed, and a third of what a request
    // may use of them is sent (at 3 bytes a token).
    assert!(body.len() - note.len() <= 6297, "{}", body.len());
    assert!(
        out.stderr
            .contains("sayso: the input on stdin is 575 KiB: only its first 1 KiB and its last 4 KiB are sent (the model's window is 8192 tokens)"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn an_open_pipe_that_sends_nothing_does_not_hold_the_run() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi", "--no-session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // The writing end stays open, as a CI runner's does, and never sends a byte.
    let _stdin = child.stdin.take().unwrap();
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .expect("sayso does not wait for a silent stdin")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(first_message(&fx), "hi");
    assert!(
        stderr.contains(
            "sayso: stdin sent nothing within 3 s: the prompt goes without it (--stdin waits for it"
        ),
        "{stderr}"
    );
}

#[tokio::test]
async fn the_stdin_flag_waits_for_input_that_starts_late() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "summarise", "--stdin", "--no-session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // A slow producer: its first byte comes after the wait that plain `-p PROMPT` allows.
    tokio::time::sleep(Duration::from_millis(3500)).await;
    stdin.write_all(b"late output\n").await.unwrap();
    drop(stdin);
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(first_message(&fx), "summarise\n\n```\nlate output\n```");
}

#[tokio::test]
async fn with_approvals_on_stdio_stdin_is_never_prompt_input() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "");
    // A line on stdin that is no control response: the controller's, not the prompt's.
    let script: Script = Box::new(|v: &Value| {
        if v["type"] == "session_started" {
            vec!["some log text".to_owned()]
        } else {
            vec![]
        }
    });
    let run_ = drive(home.path(), &["--approvals", "stdio"], script, false).await;
    assert_eq!(run_.code, 0, "{}", run_.stderr);
    assert_eq!(first_message(&fx), "go");

    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "--approvals", "stdio", "--stdin", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the argument '--approvals <HOW>' cannot be used with '--stdin'"),
        "{}",
        out.stderr
    );
}

/// The ids of the sessions saved under `home`.
fn saved_sessions(home: &std::path::Path) -> Vec<String> {
    let dir = home.join("data/sayso/sessions");
    let mut ids: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_str()
                        .and_then(|n| n.strip_suffix(".jsonl"))
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

fn resume_line(id: &str) -> String {
    format!("sayso: this chat is saved as {id}; continue it with: sayso --resume {id}")
}

#[tokio::test]
async fn text_mode_ends_with_the_line_that_resumes_the_chat_on_stderr() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["first answer"])));
    fx.push(Reply::Stream(sse::text_reply(&["second answer"])));
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "remember 42"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "first answer\n", "stdout is the reply alone");
    let ids = saved_sessions(home.path());
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(
        out.stderr.lines().last(),
        Some(resume_line(&ids[0]).as_str())
    );

    // The line says what works: the command continues that chat.
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--resume", &ids[0], "and now?"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let messages = fx.requests()[1].body["messages"].clone();
    assert_eq!(messages[1]["content"], "remember 42");
    assert_eq!(
        out.stderr.lines().last(),
        Some(resume_line(&ids[0]).as_str())
    );
}

/// `sh -c COMMAND` in `home`, with the environment `sayso(home)` sets and the binary's
/// directory first on `PATH`: a line run as the user would paste it.
async fn run_in_shell(home: &std::path::Path, command: &str) -> crate::support::Output {
    let base = sayso(home);
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c").arg(command);
    for (k, v) in base.as_std().get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_sayso"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path)
        .current_dir(home)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    run(cmd).await
}

#[tokio::test]
async fn the_resume_line_repeats_the_endpoint_flags_and_works_when_pasted() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["first answer"])));
    fx.push(Reply::Stream(sse::text_reply(&["second answer"])));
    // No config file: only the command line says where the model is.
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("my work")).unwrap();
    let base_url = fx.base_url();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "remember 42", "--base-url", &base_url]);
    cmd.args(["-m", "my model", "-C", "my work"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ids = saved_sessions(home.path());
    assert_eq!(ids.len(), 1, "{ids:?}");
    let last = out.stderr.lines().last().unwrap_or_default();
    let command = last
        .split_once("continue it with: ")
        .map(|(_, c)| c)
        .unwrap_or_else(|| panic!("no resume line: {}", out.stderr));
    assert!(
        command.ends_with(&format!("--resume {}", ids[0])),
        "{command}"
    );

    let out = run_in_shell(home.path(), &format!("{command} -p again")).await;
    assert_eq!(out.code, 0, "{command}: {}", out.stderr);
    assert_eq!(out.stdout, "second answer\n");
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].body["model"], "my model");
    let messages = reqs[1].body["messages"].clone();
    assert_eq!(messages[1]["content"], "remember 42", "{messages}");
    assert_eq!(saved_sessions(home.path()), ids, "the same session went on");
    // The session is this directory's: no warning that its tools work elsewhere.
    assert!(!out.stderr.contains("not here"), "{}", out.stderr);
}

#[tokio::test]
async fn usage_mistakes_are_reported_before_the_missing_endpoint() {
    // No config file, no key: no endpoint either.
    let home = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["--resume", "zzzz", "-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("zzzz"), "{}", out.stderr);
    assert!(!out.stderr.contains("endpoint"), "{}", out.stderr);

    let mut cmd = sayso(home.path());
    cmd.args(["--continue", "-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no saved session"), "{}", out.stderr);
    assert!(!out.stderr.contains("endpoint"), "{}", out.stderr);

    // stdin is /dev/null: nothing to send.
    let mut cmd = sayso(home.path());
    cmd.arg("-p");
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no prompt given"), "{}", out.stderr);
    assert!(!out.stderr.contains("endpoint"), "{}", out.stderr);

    // With the command line right, the endpoint is what is missing.
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no model endpoint"), "{}", out.stderr);
}

#[tokio::test]
async fn no_resume_line_without_a_saved_session_nor_in_json_mode() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi", "--no-session"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    assert!(saved_sessions(home.path()).is_empty());

    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    let events = json_lines(&out.stdout);
    let ids = saved_sessions(home.path());
    assert_eq!(events[0]["session_id"].as_str(), Some(ids[0].as_str()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tui_prints_the_resume_line_after_the_terminal_is_restored() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Hello there"])));
    let tui = crate::support::tui::Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("say hello").await;
    tui.wait_for("Hello there").await;
    tui.wait_for("Ctrl+D quit").await;
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());
    tui.assert_terminal_restored();
    let ids = saved_sessions(tui.root_path());
    assert_eq!(ids.len(), 1, "{ids:?}");
    let screen = tui.screen();
    // The line is on the shell's screen, just before the harness's own exit line.
    let lines: Vec<&str> = screen.lines().filter(|l| !l.trim().is_empty()).collect();
    let at = lines.iter().position(|l| l.starts_with("EXITED:")).unwrap();
    assert_eq!(lines[at - 1], resume_line(&ids[0]), "{screen}");

    // Nothing said, nothing saved: no line.
    let tui = tui.restart(&[]);
    tui.ready().await;
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());
    assert!(!tui.screen().contains("sayso --resume"), "{}", tui.screen());
}

#[tokio::test]
async fn json_mode_reports_a_config_error_on_stdout_and_exits_2() {
    let home = home_with(
        "http://127.0.0.1:9/v1",
        "[chat]\napproval_mode = \"sometimes\"\n",
    );
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    let events = json_lines(&out.stdout);
    assert_eq!(events.len(), 1, "{}", out.stdout);
    let message = events[0]["message"].as_str().unwrap().to_owned();
    assert!(message.contains("approval_mode"), "{message}");
    assert_eq!(
        events[0],
        json!({"type": "error", "message": message, "will_retry": false, "startup": true})
    );
    // The message is on stderr as well, as without --json.
    assert!(
        out.stderr.contains(&format!("sayso: error: {message}")),
        "{}",
        out.stderr
    );

    // No endpoint at all, and a mistake on the command line: the same.
    let bare = tempfile::tempdir().unwrap();
    for args in [
        &["-p", "--json", "hi"][..],
        &["-p", "--json", "--no-such-flag", "hi"],
    ] {
        let mut cmd = sayso(bare.path());
        cmd.args(args);
        let out = run(cmd).await;
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        let events = json_lines(&out.stdout);
        assert_eq!(events.len(), 1, "{args:?}: {}", out.stdout);
        assert_eq!(events[0]["type"], "error");
        assert_eq!(events[0]["startup"], true);
        assert!(!out.stderr.is_empty());
    }
}

#[tokio::test]
async fn session_started_carries_the_schema_version() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "--no-session", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = json_lines(&out.stdout);
    assert_eq!(events[0]["type"], "session_started");
    assert_eq!(events[0]["schema"], 1);
}

const GONE: &str = "\n[mcp_servers.gone]\ncommand = \"/nonexistent/server\"\nstartup_timeout = 2\n";

#[tokio::test]
async fn tools_may_name_an_mcp_tool_of_a_configured_server_and_no_other() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), GONE);
    // The server's tools are known only once it runs: a name with its prefix is accepted.
    let mut cmd = sayso(home.path());
    cmd.args([
        "-p",
        "--no-session",
        "--tools",
        "read_file,gone__echo",
        "hi",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(offered(&fx.requests()[0].body), ["read_file"]);
    assert!(out.stderr.contains("MCP server `gone`"), "{}", out.stderr);

    // A prefix that is no configured server's is an unknown tool, as before.
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--tools", "read_file,nosuch__echo", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("unknown tool or group `nosuch__echo`")
            && out.stderr.contains("an MCP tool is SERVER__TOOL"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn tools_filters_the_mcp_tools_offered_and_warns_of_a_named_tool_that_never_appears() {
    let Some(dir) =
        mcp_dir("tools_filters_the_mcp_tools_offered_and_warns_of_a_named_tool_that_never_appears")
    else {
        return;
    };
    let everything = format!(
        "\n[mcp_servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\nstartup_timeout = 30\n",
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
            .display()
            .to_string()
    );
    let fx = Fixture::start().await;
    for _ in 0..3 {
        fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    }
    let home = home_with(&fx.base_url(), &everything);
    let mut cmd = sayso(home.path());
    cmd.args([
        "-p",
        "--json",
        "--no-session",
        "--tools",
        "read_file,everything__echo,everything__nope",
        "hi",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut tools = offered(&fx.requests()[0].body);
    tools.sort();
    assert_eq!(tools, ["everything__echo", "read_file"]);
    let events = json_lines(&out.stdout);
    let warning = events
        .iter()
        .find(|e| e["type"] == "notice" && e["error"] == true)
        .unwrap_or_else(|| panic!("no warning: {}", out.stdout));
    let text = warning["message"].as_str().unwrap();
    assert!(
        text.starts_with(
            "--tools names `everything__nope`, which the MCP server `everything` does not offer (it offers "
        ) && text.contains("everything__echo"),
        "{text}"
    );

    // `SERVER__*` offers all of a server's tools; a list without MCP names leaves them all.
    for list in ["read_file,everything__*", "read_file"] {
        let mut cmd = sayso(home.path());
        cmd.args(["-p", "--no-session", "--tools", list, "hi"]);
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{list}: {}", out.stderr);
        let reqs = fx.requests();
        let tools = offered(&reqs.last().unwrap().body);
        assert!(tools.contains(&"read_file".to_owned()), "{list}: {tools:?}");
        assert!(
            tools.contains(&"everything__get-sum".to_owned()),
            "{list}: {tools:?}"
        );
        assert!(
            !tools.contains(&"run_command".to_owned()),
            "{list}: {tools:?}"
        );
    }
}

/// `sayso tools ARGS` in `home`: each tool's line, by name.
async fn tools_table(home: &std::path::Path, args: &[&str]) -> BTreeMap<String, String> {
    let mut cmd = sayso(home);
    cmd.arg("tools").args(args);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
        .lines()
        .skip(1)
        .filter_map(|l| {
            let name = l.split_whitespace().next()?;
            let calls = l.get(47..)?;
            Some((name.to_owned(), calls.to_owned()))
        })
        .collect()
}

#[tokio::test]
async fn sayso_tools_shows_what_each_tool_does_in_the_mode_and_under_the_rules() {
    let home = home_with(
        "http://127.0.0.1:9/v1",
        "[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"git diff *\"\ndecision = \"allow\"\n\
         [[approvals.rules]]\ntool = \"edit_file\"\ndecision = \"deny\"\n",
    );
    let balanced = tools_table(home.path(), &[]).await;
    let strict = tools_table(home.path(), &["--approval-mode", "strict"]).await;
    let trust = tools_table(home.path(), &["--approval-mode", "trust"]).await;
    let auto = tools_table(home.path(), &["--auto"]).await;

    assert_eq!(
        balanced["delete_file"],
        "ask; Always accept remembers that exact call (the tool and all its arguments)"
    );
    assert_eq!(strict["delete_file"], "ask, every time");
    assert_eq!(trust["delete_file"], "run");
    assert!(
        auto["delete_file"].starts_with("ask (protected)"),
        "{}",
        auto["delete_file"]
    );
    assert_eq!(
        balanced["create_file"],
        "ask; Always accept remembers the tool: its later calls run"
    );
    assert_eq!(
        strict["read_file"],
        "run inside the project; outside: ask, every time"
    );
    assert!(
        auto["run_command"].starts_with(
            "safe-listed commands run in a read-only sandbox; others: go to the judge"
        ),
        "{}",
        auto["run_command"]
    );
    assert!(
        balanced["run_command"]
            .starts_with("safe-listed commands run in a read-only sandbox; others: ask"),
        "{}",
        balanced["run_command"]
    );
    assert!(
        strict["run_command"].starts_with("ask, every time"),
        "{}",
        strict["run_command"]
    );
    // The rules: a tool-wide deny decides in every mode; a pattern is listed.
    for table in [&balanced, &strict, &trust, &auto] {
        assert_eq!(
            table["edit_file"],
            "are refused (the rule `edit_file → deny`)"
        );
        assert!(
            table["run_command"].ends_with("; rules: `run_command match \"git diff *\" → allow`"),
            "{}",
            table["run_command"]
        );
    }
    assert!(!balanced.values().any(|l| l.contains("exact commands")));
}

/// Any `/word` in `text` that looks like a slash command (not a path such as `/v1`).
fn slash_commands(text: &str) -> Vec<String> {
    let commands = ["/compact", "/context", "/clear", "/mode", "/resume", "/new"];
    commands
        .iter()
        .filter(|c| text.contains(*c))
        .map(|c| c.to_string())
        .collect()
}

#[tokio::test]
async fn headless_context_messages_name_what_a_run_can_do_not_slash_commands() {
    // A window nearly full by the server's count: the warning.
    let fx = Fixture::start().await;
    let mut steps = sse::text_reply(&["ok"]);
    let at = steps.len() - 2;
    steps[at] = crate::support::fixture::Step::Bytes(sse::usage(90_000, 1));
    fx.push(Reply::Stream(steps));
    let home = home_with(&fx.base_url(), "context_window = 100000\n");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi", "--no-session"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("% full"), "{}", out.stderr);
    assert!(out.stderr.contains("--continue"), "{}", out.stderr);
    assert_eq!(
        slash_commands(&out.stderr),
        Vec::<String>::new(),
        "{}",
        out.stderr
    );

    // A message the window cannot take at all: the error.
    let fx = Fixture::start().await;
    let home = home_with(&fx.base_url(), "context_window = 4096\n");
    let big = "lorem ipsum dolor sit amet ".repeat(4000);
    let mut cmd = sayso(home.path());
    cmd.args(["-p", &big, "--no-session"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("shorten the message"), "{}", out.stderr);
    // (A new run would not help a first message: only shortening it does.)
    assert!(!out.stderr.contains("new run"), "{}", out.stderr);
    assert_eq!(
        slash_commands(&out.stderr),
        Vec::<String>::new(),
        "{}",
        out.stderr
    );
    assert!(fx.requests().is_empty(), "nothing was sent");
}
