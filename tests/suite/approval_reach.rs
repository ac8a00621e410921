//! Approvals that reach exactly as far as the user meant, through the real binary, the real
//! sandbox (bubblewrap and Landlock each forced: a backend missing here fails the test) and
//! the fixture model:
//!
//! - issue 36.2: a rule's `sandbox = false` or `network = true` lifts the sandbox of a
//!   command of several parts only when every part's rule says so — the README's own rules
//!   with a plain one beside them no longer write outside the project or reach the network;
//! - issue 37.5: balanced mode runs safe-list commands unasked, read-only, inside a sandbox,
//!   and asks for them (headless: rejects) without one;
//! - issue 36.9: a command tool from the config goes through the safe list and the judge in
//!   `--auto`, as `run_command` does.
//!
//! "Outside" is really outside: sayso gets a private `TMPDIR` inside the project, and the
//! target lies in neither.

use std::net::TcpListener;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{Output, home_with, json_lines, result_of, run, sayso, tool_messages};

const BACKENDS: [&str; 2] = ["bubblewrap", "landlock"];

/// An allow rule for `run_command` matching `pattern`, with `extra` (`sandbox = false`…).
fn allow(pattern: &str, extra: &str) -> String {
    format!(
        "[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"{pattern}\"\ndecision = \"allow\"\n{extra}\n"
    )
}

/// `sayso -p ARGS go` in a fresh home with `config` (and `[sandbox] backend`), after the model
/// calls `run_command` with `cmd`; a `Makefile` whose `install` prints `installed` is in the
/// project. Returns the fixture, the home and the run.
async fn one_command(
    backend: &str,
    config: &str,
    cmd: &str,
    args: &[&str],
) -> (Fixture, tempfile::TempDir, Output) {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[("c1", "run_command", &json!({ "cmd": cmd }))]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(
        &fx.base_url(),
        &format!("{config}\n[sandbox]\nbackend = \"{backend}\"\n"),
    );
    std::fs::write(h.path().join("Makefile"), "install:\n\t@echo installed\n").unwrap();
    let tmp = h.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut c = sayso(h.path());
    c.env("TMPDIR", &tmp).arg("-p").args(args).arg("go");
    let out = run(c).await;
    assert_eq!(out.code, 0, "{backend}: {}", out.stderr);
    (fx, h, out)
}

/// A directory outside the project and sayso's temp directory, and a file there.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("PW");
    (dir, target)
}

#[tokio::test]
async fn a_sandbox_false_rule_on_the_first_part_does_not_lift_the_sandbox_of_the_rest() {
    for backend in BACKENDS {
        let (_dir, target) = outside();
        let cmd = format!("make install; touch {}", target.display());
        let rules = allow("make install", "sandbox = false") + &allow("touch *", "");
        let (fx, _h, out) = one_command(backend, &rules, &cmd, &[]).await;
        let result = result_of(&fx, "c1");
        assert!(
            !target.exists(),
            "{backend}: `touch` wrote outside the project unasked: {result}\n{}",
            out.stderr
        );
        assert!(
            !result.starts_with("Approval required") && result.contains("touch"),
            "{backend}: the command ran unasked, confined: {result}"
        );
        assert!(
            out.stderr.contains("ran unasked: the rule `run_command match \"make install\" → allow, sandbox = false`")
                && out.stderr.contains("not every part's rule says `sandbox = false`, so it runs in the sandbox"),
            "{backend}: the run says which rules ran it and that the sandbox stayed:\n{}",
            out.stderr
        );

        // The control: when every part's rule lifts the sandbox, it is lifted.
        let (_dir, target) = outside();
        let cmd = format!("make install; touch {}", target.display());
        let rules = allow("make install", "sandbox = false") + &allow("touch *", "sandbox = false");
        let (fx, _h, _out) = one_command(backend, &rules, &cmd, &[]).await;
        assert!(
            target.exists(),
            "{backend}: every part lifted, it ran outside: {}",
            result_of(&fx, "c1")
        );
    }
}

/// Whether something connected to `listener` (non-blocking) since it was bound.
fn connected(listener: &TcpListener) -> bool {
    listener.accept().is_ok()
}

#[tokio::test]
async fn a_network_rule_on_one_part_does_not_give_the_other_parts_the_network() {
    for backend in BACKENDS {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let cmd = format!("echo x && curl -s -m 5 http://127.0.0.1:{port}/");
        let rules = allow("echo *", "network = true") + &allow("curl *", "");
        let (fx, _h, _out) = one_command(backend, &rules, &cmd, &[]).await;
        assert!(
            !connected(&listener),
            "{backend}: curl reached the network under a plain rule: {}",
            result_of(&fx, "c1")
        );

        // The control: every part's rule allows the network.
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let cmd = format!("echo x && curl -s -m 5 http://127.0.0.1:{port}/");
        let rules = allow("echo *", "network = true") + &allow("curl *", "network = true");
        let (fx, _h, _out) = one_command(backend, &rules, &cmd, &[]).await;
        assert!(
            connected(&listener),
            "{backend}: with every part's network = true it connects: {}",
            result_of(&fx, "c1")
        );
    }
}

#[tokio::test]
async fn balanced_runs_a_safe_list_command_unasked_read_only_inside_a_sandbox() {
    for backend in BACKENDS {
        let fx = Fixture::start().await;
        fx.push(call_reply(&[
            ("c1", "run_command", &json!({"cmd": "wc -c notes.txt"})),
            ("c2", "run_command", &json!({"cmd": "touch made"})),
        ]));
        fx.push(Reply::Stream(sse::text_reply(&["done"])));
        let h = home_with(
            &fx.base_url(),
            &format!("[sandbox]\nbackend = \"{backend}\"\n"),
        );
        std::fs::write(h.path().join("notes.txt"), "12345\n").unwrap();
        let mut c = sayso(h.path());
        c.args(["-p", "--json", "go"]);
        let out = run(c).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
        let messages = tool_messages(&fx.requests()[1].body);
        assert!(
            messages[0].1.contains("6 notes.txt"),
            "{backend}: the safe-list command ran unasked: {messages:?}"
        );
        assert!(
            messages[1]
                .1
                .starts_with("Approval required for `run_command`"),
            "{backend}: a command off the safe list still asks: {messages:?}"
        );
        assert!(!h.path().join("made").exists());
        let started: Vec<Value> = json_lines(&out.stdout)
            .into_iter()
            .filter(|e| e["type"] == "tool_started")
            .collect();
        assert_eq!(
            started[0]["unasked"],
            json!({"why": "safe_list", "text": "the safe list (balanced mode), in a read-only sandbox"}),
            "{backend}"
        );
    }

    // Without a sandbox the same command asks (headless: is rejected), as before.
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        &json!({"cmd": "wc -c notes.txt"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), "");
    std::fs::write(h.path().join("notes.txt"), "12345\n").unwrap();
    let mut c = sayso(h.path());
    c.args(["-p", "--sandbox", "off", "go"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        result_of(&fx, "c1").starts_with("Approval required for `run_command`"),
        "{}",
        result_of(&fx, "c1")
    );
}

/// A command tool `name` whose template is `template` (one argument, `arg`).
fn command_tool(name: &str, template: &str) -> String {
    format!(
        "[tools.{name}]\nextends = \"cmd_tool\"\ndescription = \"a command\"\nbuild_cmd = \"{template}\"\n\
         schema = {{ properties = {{ arg = {{ type = \"string\" }} }}, required = [\"arg\"] }}\n"
    )
}

fn judge_says(safe: bool, reason: &str) -> Reply {
    let verdict = json!({"safe": safe, "reason": reason}).to_string();
    Reply::Json(json!({"choices": [{"message": {"content": verdict}}]}))
}

fn is_judge(body: &Value) -> bool {
    body["response_format"]["type"] == "json_schema"
}

#[tokio::test]
async fn a_command_tool_goes_through_the_judge_in_auto_and_the_safe_list_runs_it_read_only() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[
        ("c1", "mk", &json!({"arg": "made"})),
        ("c2", "lst", &json!({"arg": "notes.txt"})),
    ]));
    fx.push(judge_says(false, "it creates a file"));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let config = command_tool("mk", "touch {arg}") + &command_tool("lst", "wc -c {arg}");
    let h = home_with(
        &fx.base_url(),
        &format!("[chat]\ndefault_tools = [\"mk\", \"lst\"]\n{config}"),
    );
    std::fs::write(h.path().join("notes.txt"), "12345\n").unwrap();
    let mut c = sayso(h.path());
    c.args(["-p", "--auto", "--json", "go"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 3, "one request to the judge, for `mk` only");
    assert!(is_judge(&reqs[1].body), "{}", reqs[1].body);
    assert!(
        reqs[1].body.to_string().contains("touch made"),
        "the judge sees the rendered command: {}",
        reqs[1].body
    );
    assert!(
        !h.path().join("made").exists(),
        "the judge said no: not run"
    );
    let messages = tool_messages(&reqs[2].body);
    assert!(
        messages[0].1.starts_with("Approval required for `mk`"),
        "{messages:?}"
    );
    assert!(
        messages[1].1.contains("6 notes.txt"),
        "the safe list ran it: {messages:?}"
    );
    let started: Vec<Value> = json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["type"] == "tool_started")
        .collect();
    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!(started[0]["name"], "lst");
    assert_eq!(started[0]["unasked"]["why"], "safe_list");
}
