//! MCP servers through the real binary: real servers written by others
//! (`@modelcontextprotocol/server-everything` and `server-filesystem`, installed by
//! `scripts/test` into `$SAYSO_TEST_MCP_DIR`) and the fixture model calling their tools. Checked:
//! the tools offered in the request, what ran (files on disk), the tool messages the model gets,
//! approvals and gates, and that no server process outlives the run. Without the servers these
//! tests say so and skip; the ones that need no npm package always run.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, run, sayso};
use crate::support::{json_lines, offered};
use crate::support::{mcp_dir, tool_messages};

fn entry(dir: &std::path::Path, pkg: &str) -> String {
    dir.join(format!(
        "node_modules/@modelcontextprotocol/{pkg}/dist/index.js"
    ))
    .display()
    .to_string()
}

/// server-everything over stdio; `mark` (an extra argument it ignores) finds its process.
fn everything_marked(dir: &std::path::Path, extra: &str, mark: &str) -> String {
    format!(
        "\n[mcp_servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\", {mark:?}]\nstartup_timeout = 30\n{extra}\n",
        entry(dir, "server-everything")
    )
}

fn everything(dir: &std::path::Path, extra: &str) -> String {
    everything_marked(dir, extra, "unmarked")
}

fn filesystem(dir: &std::path::Path, root: &std::path::Path, extra: &str) -> String {
    format!(
        "\n[mcp_servers.fs]\ncommand = \"node\"\nargs = [{:?}, {:?}]\nstartup_timeout = 30\n{extra}\n",
        entry(dir, "server-filesystem"),
        root.display().to_string()
    )
}

/// No process of ours still runs `pattern` (a server left behind).
fn none_left(pattern: &str) -> bool {
    let out = std::process::Command::new("pgrep")
        .args(["-f", pattern])
        .output()
        .expect("pgrep");
    out.stdout.is_empty()
}

#[tokio::test]
async fn an_mcp_tool_is_offered_approved_called_and_its_result_sent_back() {
    let Some(dir) = mcp_dir("an_mcp_tool_is_offered_approved_called_and_its_result_sent_back")
    else {
        return;
    };
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "everything__echo",
        json!({"message": "hello from the model"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["It echoed."])));
    let mark = format!("mark-{}", std::process::id());
    let h = home_with(&fx.base_url(), &everything_marked(&dir, "", &mark));
    let mut cmd = sayso(h.path());
    cmd.args([
        "-p",
        "--json",
        "--allowed-tools",
        "everything__echo",
        "echo something",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let first = &fx.requests()[0].body;
    let tools = offered(first);
    assert!(tools.contains(&"everything__echo".to_owned()), "{tools:?}");
    let echo = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "everything__echo")
        .unwrap();
    assert_eq!(echo["function"]["parameters"]["type"], "object");
    assert!(echo["function"]["parameters"]["properties"]["message"].is_object());
    assert_eq!(
        tool_messages(&fx.requests()[1].body),
        [("c1".to_owned(), "Echo: hello from the model".to_owned())]
    );
    let events = json_lines(&out.stdout);
    let started = events.iter().find(|e| e["type"] == "tool_started").unwrap();
    assert_eq!(started["server"], "everything");
    assert!(none_left(&mark), "the server was ended with the run");
}

#[tokio::test]
async fn a_rejected_mcp_call_sends_the_reason_and_a_server_never_gets_the_provider_key() {
    let Some(dir) = mcp_dir("a_rejected_mcp_call_sends_the_reason") else {
        return;
    };
    let fx = Fixture::start().await;
    fx.push(call_reply(&[
        ("c1", "everything__echo", json!({"message": "x"})),
        ("c2", "everything__get-env", json!({})),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let config = format!(
        "api_key_env = \"MY_KEY\"\n{}\n[[approvals.rules]]\ntool = \"everything__echo\"\ndecision = \"deny\"\n[[approvals.rules]]\ntool = \"everything__get-env\"\ndecision = \"allow\"\n",
        everything(&dir, "")
    );
    // api_key_env belongs to [provider]: put it there.
    let config = config.replacen("api_key_env = \"MY_KEY\"\n", "", 1);
    let h = home_with(&fx.base_url(), &config);
    let cfg = h.path().join("config/sayso/config.toml");
    let text = std::fs::read_to_string(&cfg).unwrap().replacen(
        "max_retries = 0\n",
        "max_retries = 0\napi_key_env = \"MY_KEY\"\n",
        1,
    );
    std::fs::write(&cfg, text).unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go"]).env("MY_KEY", "sk-very-secret-42");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let messages = tool_messages(&fx.requests()[1].body);
    assert!(
        messages[0].1.contains("denied by the approval rule"),
        "{messages:?}"
    );
    assert!(
        messages[1].1.contains("PATH"),
        "the env was listed: {messages:?}"
    );
    assert!(
        !messages[1].1.contains("sk-very-secret-42"),
        "the key leaked: {messages:?}"
    );
}

#[tokio::test]
async fn auto_mode_runs_read_only_tools_but_asks_for_destructive_and_protected_ones() {
    let Some(dir) = mcp_dir("auto_mode_runs_read_only_tools_but_asks_for_destructive_ones") else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join("notes.txt"), "a note\n").unwrap();
    let root_path = std::fs::canonicalize(root.path()).unwrap();
    let notes = root_path.join("notes.txt").display().to_string();
    let made = root_path.join("made.txt").display().to_string();
    let fx = Fixture::start().await;
    fx.push(call_reply(&[
        ("c1", "fs__read_text_file", json!({"path": notes})),
        (
            "c2",
            "fs__write_file",
            json!({"path": made, "content": "x"}),
        ),
        ("c3", "everything__echo", json!({"message": "protected"})),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let config = format!(
        "{}{}",
        filesystem(&dir, &root_path, ""),
        everything(&dir, "protect = true")
    );
    let h = home_with(&fx.base_url(), &config);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--auto", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let messages = tool_messages(&fx.requests()[1].body);
    assert!(
        messages[0].1.contains("a note"),
        "read-only ran: {messages:?}"
    );
    assert!(
        messages[1]
            .1
            .starts_with("Approval required for `fs__write_file`"),
        "destructive asks (headless: rejected): {messages:?}"
    );
    assert!(!root_path.join("made.txt").exists());
    assert!(
        messages[2]
            .1
            .starts_with("Approval required for `everything__echo`"),
        "protect asks in auto: {messages:?}"
    );
}

#[tokio::test]
async fn a_slow_call_times_out_and_the_server_stays_usable() {
    let Some(dir) = mcp_dir("a_slow_call_times_out_and_the_server_stays_usable") else {
        return;
    };
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "everything__trigger-long-running-operation",
        json!({"duration": 30, "steps": 3}),
    )]));
    fx.push(call_reply(&[(
        "c2",
        "everything__echo",
        json!({"message": "again"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(
        &fx.base_url(),
        &everything(&dir, "call_timeout = 2\nrequire_approval_before = false"),
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first = tool_messages(&fx.requests()[1].body);
    assert!(first[0].1.contains("did not answer within 2s"), "{first:?}");
    let second = tool_messages(&fx.requests()[2].body);
    assert_eq!(
        second[1],
        ("c2".to_owned(), "Echo: again".to_owned()),
        "still usable after a timeout"
    );
}

#[tokio::test]
async fn a_server_that_never_starts_is_reported_and_the_chat_goes_on() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["no tools, fine"])));
    let config =
        "\n[mcp_servers.stuck]\ncommand = \"sleep\"\nargs = [\"4242\"]\nstartup_timeout = 1\n";
    let h = home_with(&fx.base_url(), config);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "no tools, fine\n");
    assert!(out.stderr.contains("MCP server `stuck`"), "{}", out.stderr);
    assert!(
        !offered(&fx.requests()[0].body)
            .iter()
            .any(|t| t.starts_with("stuck__"))
    );
    assert!(none_left("sleep 4242"), "the stuck server was ended");
}

#[tokio::test]
async fn mcp_config_errors_and_a_project_file_cannot_add_servers() {
    let h = home_with(
        "http://127.0.0.1:9/v1",
        "\n[mcp_servers.both]\ncommand = \"x\"\nurl = \"http://127.0.0.1:1/mcp\"\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("not both"), "{}", out.stderr);

    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["hi"])));
    let h = home_with(&fx.base_url(), "");
    std::fs::create_dir_all(h.path().join(".sayso")).unwrap();
    std::fs::write(
        h.path().join(".sayso/config.toml"),
        "[mcp_servers.evil]\ncommand = \"touch\"\nargs = [\"pwned\"]\n",
    )
    .unwrap();
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("ignoring `mcp_servers.evil`"),
        "{}",
        out.stderr
    );
    assert!(
        !h.path().join("pwned").exists(),
        "the project's server never ran"
    );
}

/// The server's pid, by the mark on its command line.
fn pid_of(mark: &str) -> Option<i32> {
    let out = std::process::Command::new("pgrep")
        .args(["-f", mark])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()?
        .trim()
        .parse()
        .ok()
}

/// A reply calling echo that waits for `gate` before it streams.
fn gated_echo(id: &str, gate: &std::sync::Arc<tokio::sync::Notify>) -> Reply {
    let Reply::Stream(mut steps) = call_reply(&[(id, "everything__echo", json!({"message": id}))])
    else {
        unreachable!()
    };
    steps.insert(0, crate::support::fixture::Step::Gate(gate.clone()));
    Reply::Stream(steps)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_mid_session_is_restarted_once() {
    let Some(dir) = mcp_dir("a_server_that_dies_mid_session_is_restarted_once") else {
        return;
    };
    let mark = format!("died-{}", std::process::id());
    let (g1, g2) = (
        std::sync::Arc::new(tokio::sync::Notify::new()),
        std::sync::Arc::new(tokio::sync::Notify::new()),
    );
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "everything__echo",
        json!({"message": "c1"}),
    )]));
    fx.push(gated_echo("c2", &g1));
    fx.push(gated_echo("c3", &g2));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(
        &fx.base_url(),
        &everything_marked(&dir, "require_approval_before = false", &mark),
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go"]);
    let run = tokio::spawn(run(cmd));
    // Each time the model is about to call echo again, the server is killed.
    for gate in [&g1, &g2] {
        let mut pid = None;
        for _ in 0..100 {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            if fx.requests().len() >= 2 {
                pid = pid_of(&mark);
                if pid.is_some() {
                    break;
                }
            }
        }
        let pid = pid.expect("the server runs");
        unsafe { libc::kill(pid, libc::SIGKILL) };
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        gate.notify_one();
        // Wait for the next request before killing again.
        let seen = fx.requests().len();
        for _ in 0..100 {
            if fx.requests().len() > seen {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
    let out = run.await.unwrap();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let last = tool_messages(&fx.requests()[3].body);
    assert_eq!(last[0].1, "Echo: c1");
    assert_eq!(last[1].1, "Echo: c2", "restarted after the first crash");
    assert!(
        last[2].1.contains("MCP server `everything`") && !last[2].1.starts_with("Echo"),
        "not restarted twice: {last:?}"
    );
    assert!(none_left(&mark));
}

#[tokio::test]
async fn sayso_mcp_list_and_sayso_tools_show_the_servers_tools() {
    let Some(dir) = mcp_dir("sayso_mcp_list_and_sayso_tools_show_the_servers_tools") else {
        return;
    };
    let config = format!(
        "{}\n[mcp_servers.everything.tools.echo]\nprotect = true\n",
        everything(&dir, "allowed_tools = [\"get-sum\"]")
    );
    let h = home_with("http://127.0.0.1:9/v1", &config);
    let mut cmd = sayso(h.path());
    cmd.args(["mcp", "list"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let line = |name: &str| {
        out.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name}: {}", out.stdout))
            .to_owned()
    };
    assert!(
        out.stdout.starts_with("everything (stdio: node "),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.lines().next().unwrap().ends_with("— ready"),
        "{}",
        out.stdout
    );
    assert!(line("everything__echo ").contains("read_only"));
    assert!(line("everything__echo ").contains("asks; protect"));
    assert!(line("everything__get-sum ").contains("never asks (allowed)"));

    let mut cmd = sayso(h.path());
    cmd.arg("tools");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let echo = out
        .stdout
        .lines()
        .find(|l| l.starts_with("everything__echo"))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert!(echo.contains("read_only") && echo.contains("mcp"), "{echo}");

    let h = home_with(
        "http://127.0.0.1:9/v1",
        "\n[mcp_servers.gone]\ncommand = \"/nonexistent/server\"\nstartup_timeout = 2\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["mcp", "list"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("gone (stdio: /nonexistent/server) — failed:"),
        "{}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tui_reports_the_servers_mcp_lists_their_tools_and_sigterm_ends_them() {
    let Some(dir) = mcp_dir("the_tui_reports_the_servers_and_mcp_lists_their_tools") else {
        return;
    };
    let fx = Fixture::start().await;
    let cfg_dir = tempfile::tempdir().unwrap();
    let cfg = cfg_dir.path().join("config.toml");
    let mark = format!("tui-{}", std::process::id());
    std::fs::write(
        &cfg,
        format!(
            "model = \"m\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 0\n{}",
            fx.base_url(),
            everything_marked(&dir, "", &mark)
        ),
    )
    .unwrap();
    let tui = crate::support::tui::Tui::start(&fx.base_url(), &["-c", cfg.to_str().unwrap()]);
    tui.ready().await;
    let screen = tui.wait_for("MCP server `everything`:").await;
    assert!(screen.contains("tool(s)"), "{screen}");
    tui.send("/mcp").await;
    let screen = tui.wait_for("everything__echo").await;
    assert!(screen.contains("— ready"), "{screen}");
    assert!(!none_left(&mark), "the server runs");
    // SIGTERM ends sayso, and its servers with it.
    unsafe { libc::kill(tui.sayso_pid() as i32, libc::SIGTERM) };
    assert_eq!(tui.exit_code().await, 130);
    for _ in 0..30 {
        if none_left(&mark) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(none_left(&mark), "the server ended with sayso");
}

#[tokio::test]
async fn a_streamable_http_server_is_reached_with_headers_from_the_environment() {
    use std::os::unix::process::CommandExt;
    let Some(dir) =
        mcp_dir("a_streamable_http_server_is_reached_with_headers_from_the_environment")
    else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let mut server = std::process::Command::new("node")
        .arg(entry(&dir, "server-everything"))
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let pgid = server.id() as i32;
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "remote__echo",
        json!({"message": "over http"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let config = format!(
        "\n[mcp_servers.remote]\nurl = \"http://127.0.0.1:{port}/mcp\"\nheaders_env = {{ X-Test-Auth = \"MY_MCP_TOKEN\" }}\nallowed_tools = [\"echo\"]\n"
    );
    let h = home_with(&fx.base_url(), &config);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "go"]).env("MY_MCP_TOKEN", "t0ken");
    let out = run(cmd).await;

    // Without the variable, the server is reported and the chat goes on without its tools.
    let fx2 = Fixture::start().await;
    fx2.push(Reply::Stream(sse::text_reply(&["fine"])));
    let h2 = home_with(&fx2.base_url(), &config);
    let mut cmd = sayso(h2.path());
    cmd.args(["-p", "go"]).env_remove("MY_MCP_TOKEN");
    let out2 = run(cmd).await;

    unsafe { libc::kill(-pgid, libc::SIGKILL) };
    let _ = server.wait();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        tool_messages(&fx.requests()[1].body),
        [("c1".to_owned(), "Echo: over http".to_owned())]
    );
    assert_eq!(out2.code, 0, "{}", out2.stderr);
    assert!(
        out2.stderr
            .contains("$MY_MCP_TOKEN is not set (it holds the `X-Test-Auth` header)"),
        "{}",
        out2.stderr
    );
}
