//! Issue 36 item 4 and issue 37 items 3–4, through the real binary and real sandboxes: a rerun
//! request's id is one no call id can produce, and only an answer to the printed request
//! decides it; the offer is made only for a failure sayso can attribute to its sandbox (a
//! command that merely prints "Read-only file system" gets a line saying the sandbox may have
//! caused it, and no offer); every outcome is one `tool_output`; headless, the result names the
//! rule to add; a dev server on the loopback address the sandbox cannot reach is recognised as
//! the sandbox's doing (both backends forced), with the way to keep it reachable.
//!
//! "Outside" is the cargo target's temp directory: neither the home (the project, under the
//! system temp directory) nor the temp directory sayso may write.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::controller::{self, Script, response};
use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::quote;
use crate::support::{home_with, json_lines, result_of, run, sayso, shell};

/// The two Linux backends, each forced in the user config.
const BACKENDS: [&str; 2] = ["bubblewrap", "landlock"];

/// A directory outside the project and the temp directory, and a file to create there.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    assert!(!dir.path().starts_with(std::env::temp_dir()));
    let target = dir.path().join("target.txt");
    (dir, target)
}

/// A fixture whose model makes `calls` in one reply, then says "done".
async fn model(list: &[(String, &'static str, Value)]) -> Fixture {
    let fx = Fixture::start().await;
    let refs: Vec<(&str, &str, &Value)> =
        list.iter().map(|(i, n, a)| (i.as_str(), *n, a)).collect();
    fx.push(calls(&refs));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    fx
}

fn requests(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "control_request")
        .collect()
}

/// Issue 36 item 4: calls `c1` (writes outside) and `c1.2` (`ls`). The program answers
/// `apr-c1.2 allow` early for the `ls` call, as the protocol allows, then allows `c1`. `c1`
/// fails in the sandbox; its rerun request used to be `apr-c1.2`, found that early answer and
/// ran unconfined. Now the rerun is a request of its own (`rerun-1-c1`), printed, naming its
/// call, and the program's deny keeps the file unwritten.
#[tokio::test]
async fn an_early_answer_for_another_call_never_reruns_a_command_outside() {
    let (_dir, target) = outside();
    let touch = format!("touch {}", quote(target.display()));
    let fx = model(&[shell("c1", &touch), shell("c1.2", "ls")]).await;
    let home = home_with(&fx.base_url(), "[judge]\nenabled = false\n");
    let script: Script = Box::new(|v| {
        if v["type"] != "control_request" {
            return Vec::new();
        }
        let id = v["request_id"].as_str().unwrap_or_default();
        match (id, v["request"]["rerun"].is_null()) {
            ("apr-c1", true) => vec![
                response("apr-c1.2", "allow", json!({})),
                response("apr-c1", "allow", json!({})),
            ],
            (_, false) => vec![response(id, "deny", json!({"message": "not outside"}))],
            _ => vec![response(id, "allow", json!({}))],
        }
    });
    let args = ["--approvals", "stdio", "--sandbox", "workspace-write"];
    let run = controller::drive(home.path(), &args, script, false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !target.exists(),
        "the command ran outside on an early answer"
    );
    let reruns: Vec<&Value> = requests(&run.events)
        .into_iter()
        .filter(|r| !r["request"]["rerun"].is_null())
        .collect();
    assert_eq!(reruns.len(), 1, "{:?}", run.events);
    let rerun = reruns[0];
    assert_eq!(rerun["request_id"], "rerun-1-c1");
    assert_eq!(rerun["request"]["call_id"], "c1");
    assert_eq!(rerun["request"]["rerun"]["kind"], "write");
    let path = rerun["request"]["rerun"]["path"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        PathBuf::from(path),
        target.canonicalize().unwrap_or_else(|_| target.clone())
    );
    let result = result_of(&fx, "c1");
    assert!(
        result.contains("the user declined to rerun the command outside the sandbox"),
        "{result}"
    );
}

/// A command that merely prints "Read-only file system" and fails is not offered a rerun
/// (trust mode with a program to ask: an offer would be a request); its result says the
/// sandbox may have caused it. Both backends.
#[tokio::test]
async fn printed_text_alone_gets_no_offer_and_a_line_saying_the_sandbox_may_be_why() {
    for backend in BACKENDS {
        let fx = model(&[shell("c1", "echo 'Read-only file system' >&2; exit 1")]).await;
        let home = home_with(
            &fx.base_url(),
            &format!("[judge]\nenabled = false\n[sandbox]\nbackend = \"{backend}\"\n"),
        );
        let script: Script = Box::new(|v| {
            let id = v["request_id"].as_str().unwrap_or_default();
            if v["type"] == "control_request" {
                vec![response(id, "allow", json!({}))]
            } else {
                Vec::new()
            }
        });
        let args = ["--approvals", "stdio", "--approval-mode", "trust"];
        let run = controller::drive(home.path(), &args, script, false).await;
        assert_eq!(run.code, 0, "{backend}: {}", run.stderr);
        assert!(
            requests(&run.events).is_empty(),
            "{backend}: a rerun was offered: {:?}",
            run.events
        );
        let result = result_of(&fx, "c1");
        assert!(
            result.contains("Read-only file system"),
            "{backend}: {result}"
        );
        assert!(
            result.contains("which may have caused this failure")
                && result.contains("no rerun outside the sandbox is offered"),
            "{backend}: {result}"
        );
    }
}

/// `--json`, headless with no one to ask: the denied call is one `tool_output`, holding the
/// failure, the line saying no one can approve a rerun, and the rule that would run it
/// outside without asking, as TOML. With that rule in the config, the same command runs
/// outside without asking (with a program there to ask: no request).
#[tokio::test]
async fn headless_one_tool_output_names_the_rule_and_the_rule_then_runs_it_unasked() {
    let (_dir, target) = outside();
    // A plain path (the cargo target's), so the rule's pattern is the command as written.
    let touch = format!("touch {}", target.display());
    let fx = model(&[shell("c1", &touch)]).await;
    let home = home_with(&fx.base_url(), "[judge]\nenabled = false\n");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "--approval-mode", "trust", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!target.exists());
    let events = json_lines(&out.stdout);
    let outputs: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_output" && e["call_id"] == "c1")
        .collect();
    assert_eq!(outputs.len(), 1, "{events:?}");
    let content = outputs[0]["content"].as_str().unwrap_or_default();
    assert!(content.contains("Read-only file system"), "{content}");
    assert!(
        content.contains("no one can approve a rerun outside the sandbox"),
        "{content}"
    );
    let rule = format!(
        "```toml\n[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"{touch}\"\ndecision = \"allow\"\nsandbox = false\n```"
    );
    assert!(content.contains(&rule), "{content}\nwant:\n{rule}");
    assert_eq!(
        result_of(&fx, "c1"),
        content,
        "the model reads what the event says"
    );

    // The rule added: the command runs outside, unasked, even with a program to ask.
    let fx = model(&[shell("c1", &touch)]).await;
    let toml_rule = rule.trim_start_matches("```toml\n").trim_end_matches("```");
    let home = home_with(
        &fx.base_url(),
        &format!("[judge]\nenabled = false\n{toml_rule}"),
    );
    let script: Script = Box::new(|v| {
        let id = v["request_id"].as_str().unwrap_or_default();
        if v["type"] == "control_request" {
            vec![response(id, "deny", json!({}))]
        } else {
            Vec::new()
        }
    });
    let run = controller::drive(home.path(), &["--approvals", "stdio"], script, false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(requests(&run.events).is_empty(), "{:?}", run.events);
    assert!(target.exists(), "the rule did not run it outside");
}

/// Through the control protocol, an accepted rerun is still one `tool_output`: the rerun's
/// result, with the line saying the first run was denied.
#[tokio::test]
async fn an_accepted_rerun_is_one_tool_output_saying_the_first_run_was_denied() {
    let (_dir, target) = outside();
    let cmd = format!("touch {} && echo wrote-outside", quote(target.display()));
    let fx = model(&[shell("c1", &cmd)]).await;
    let home = home_with(&fx.base_url(), "[judge]\nenabled = false\n");
    let script: Script = Box::new(|v| {
        let id = v["request_id"].as_str().unwrap_or_default();
        if v["type"] == "control_request" {
            vec![response(id, "allow", json!({}))]
        } else {
            Vec::new()
        }
    });
    let run = controller::drive(home.path(), &["--approvals", "stdio"], script, false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(target.exists());
    let outputs: Vec<&Value> = run
        .events
        .iter()
        .filter(|e| e["type"] == "tool_output")
        .collect();
    assert_eq!(outputs.len(), 1, "{:?}", run.events);
    let content = outputs[0]["content"].as_str().unwrap_or_default();
    assert!(content.contains("wrote-outside"), "{content}");
    assert!(
        content
            .contains("The first run, inside the sandbox, failed: the sandbox denied a write to"),
        "{content}"
    );
}

/// A dev server on this machine's loopback (a real one, started here).
struct DevServer {
    port: u16,
}

impl DevServer {
    /// Answers every connection with `server-up`, until the test process ends.
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for mut conn in listener.incoming().flatten() {
                let mut buf = [0u8; 1024];
                let _ = conn.read(&mut buf);
                let _ = conn.write_all(
                    b"HTTP/1.0 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\nserver-up\n",
                );
            }
        });
        Self { port }
    }
}

/// Issue 37 item 4: `curl http://127.0.0.1:PORT` to a running dev server fails inside the
/// sandbox (no network). Headless, the model is told the sandbox has no network and the
/// address is not reachable from inside (not that the server is down), how to keep loopback
/// reachable, and the rule with `network = true`; with a program to ask, the rerun is offered
/// for that address, and accepting it reaches the server. Both backends.
#[tokio::test]
async fn a_loopback_dev_server_the_sandbox_cannot_reach_is_recognised_and_offered() {
    let server = DevServer::start();
    let address = format!("127.0.0.1:{}", server.port);
    let curl = format!("curl -sS http://{address}/");
    for backend in BACKENDS {
        let config = format!("[judge]\nenabled = false\n[sandbox]\nbackend = \"{backend}\"\n");
        // Headless.
        let fx = model(&[shell("c1", &curl)]).await;
        let home = home_with(&fx.base_url(), &config);
        let mut cmd = sayso(home.path());
        cmd.args(["-p", "--approval-mode", "trust", "go"]);
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{backend}: {}", out.stderr);
        let result = result_of(&fx, "c1");
        assert!(!result.contains("server-up"), "{backend}: {result}");
        for want in [
            format!("the sandbox denied a connection to {address}").as_str(),
            format!("The sandbox has no network: {address} is not reachable from inside").as_str(),
            "set `[sandbox] allow_loopback = true` in your config",
            "network = true",
        ] {
            let found =
                result.contains(want) || result.to_lowercase().contains(&want.to_lowercase());
            assert!(found, "{backend}: {want:?} missing from:\n{result}");
        }

        // With a program to ask: the rerun is offered for the address, and reaches it.
        let fx = model(&[shell("c1", &curl)]).await;
        let home = home_with(&fx.base_url(), &config);
        let script: Script = Box::new(|v| {
            let id = v["request_id"].as_str().unwrap_or_default();
            if v["type"] == "control_request" {
                vec![response(id, "allow", json!({}))]
            } else {
                Vec::new()
            }
        });
        let run = controller::drive(home.path(), &["--approvals", "stdio"], script, false).await;
        assert_eq!(run.code, 0, "{backend}: {}", run.stderr);
        let reruns: Vec<&Value> = requests(&run.events)
            .into_iter()
            .filter(|r| !r["request"]["rerun"].is_null())
            .collect();
        assert_eq!(reruns.len(), 1, "{backend}: {:?}", run.events);
        let denied = &reruns[0]["request"]["rerun"];
        assert_eq!(denied["kind"], "network", "{backend}");
        assert_eq!(denied["address"], address.as_str(), "{backend}");
        let result = result_of(&fx, "c1");
        assert!(result.contains("server-up"), "{backend}: {result}");
    }
}
