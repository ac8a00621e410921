//! Issue 18, roots 4 "Approvals are exact" and 5 "Resume never loosens", through the real
//! binary: the fixture model over TCP, a real MCP server process (`tests/fixtures/mcp_notes.py`,
//! plain Python, so nothing can be missing), the control protocol over real pipes, real session
//! files. What ran is read from the disk; what the model was told from the request bodies.
//!
//! The attack list (numbered as in issue 18):
//!
//! 3. **One MCP approval covers other calls.** "Always accept" (or the judge's safe verdict in
//!    auto) remembered the display string `SERVER__TOOL {args}` cut at 200 characters, so a
//!    later call with the same first 200 characters and other arguments ran unasked and
//!    unjudged. Now the whole canonical arguments are remembered, and the judge reads them all:
//!    [`allow_remember_for_an_mcp_call_does_not_cover_one_that_differs_after_200_characters`],
//!    [`the_judges_safe_verdict_for_an_mcp_call_does_not_cover_one_that_differs_after_200_characters`].
//!    The call's text (what the modal shows and rules match) is the whole call too, so a deny
//!    rule sees a word hidden behind 200 characters of padding:
//!    [`a_deny_rule_on_an_mcp_call_sees_past_200_characters`].
//! 7. **Control protocol: a late answer approves a different call.** Request ids were `apr-` +
//!    the call id, and call ids repeated across replies (id-less calls were all `call_0`; some
//!    servers reuse ids), so an `allow` arriving after `--approval-timeout` approved the next
//!    reply's call. Now call ids are unique for the session (in the request bodies too), and an
//!    answer for a request that is over is refused with `sayso: control:`:
//!    [`a_late_allow_for_a_timed_out_call_does_not_approve_the_next_replys_call`],
//!    [`repeated_server_ids_are_made_unique_in_the_history_and_the_requests`].
//! 8. **`--resume` overrode an explicit `--approval-mode`.** A session saved in `trust`
//!    resumed in trust even with `--approval-mode strict` or `balanced`. Now the flag wins, and
//!    without one a looser saved mode is not restored (the chat says so):
//!    [`an_explicit_mode_wins_over_the_saved_trust`],
//!    [`a_saved_trust_is_not_restored_under_a_balanced_config_and_the_chat_says_so`],
//!    [`text_mode_says_on_stderr_that_a_saved_trust_was_not_restored`],
//!    [`a_session_resumed_in_strict_goes_on_in_strict`] (the file records the mode in force), and in
//!    the TUI (tmux)
//!    [`the_tui_continues_a_trust_session_in_the_configs_mode_and_says_how_to_switch`].

use std::collections::HashSet;
use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::controller::{self, Run, Script, response};
use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::json_lines;
use crate::support::tool_messages;
use crate::support::{home_with, run, sayso};

/// `sayso -p --json ARGS go` in `home`, feeding `script`'s answers on stdin.
async fn drive(home: &Path, args: &[&str], script: Script) -> Run {
    controller::drive(home, args, script, false).await
}

fn of_type<'a>(events: &'a [Value], t: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| e["type"] == t).collect()
}

/// The ids of the assistant messages' tool calls in a request body, in order.
fn call_ids(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["tool_calls"].as_array())
        .flatten()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect()
}

/// Every call id in `body` is unique, and the tool messages answer exactly those ids, in order.
fn assert_ids_unique_and_answered(body: &Value) {
    let ids = call_ids(body);
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len(), "repeated call ids: {ids:?}");
    let answered: Vec<String> = tool_messages(body).into_iter().map(|(id, _)| id).collect();
    assert_eq!(answered, ids, "each call answered once, under its own id");
}

/// A reply whose calls carry no id (as some servers send them).
fn idless_reply(calls: &[(&str, Value)]) -> Reply {
    let mut steps = vec![Step::Bytes(sse::data(&sse::chunk(
        json!({"role": "assistant", "content": null}),
        None,
    )))];
    for (i, (name, args)) in calls.iter().enumerate() {
        steps.push(Step::Bytes(sse::data(&sse::chunk(
            json!({"tool_calls": [{"index": i, "type": "function", "function": {"name": name, "arguments": args.to_string()}}]}),
            None,
        ))));
    }
    steps.push(Step::Bytes(sse::finish("tool_calls")));
    steps.push(Step::Bytes(sse::done()));
    Reply::Stream(steps)
}

fn judge_says(safe: bool, reason: &str) -> Reply {
    let verdict = json!({"safe": safe, "reason": reason}).to_string();
    Reply::Json(
        json!({"choices": [{"message": {"role": "assistant", "content": verdict}, "finish_reason": "stop"}]}),
    )
}

/// The MCP server `notes` (tests/fixtures/mcp_notes.py): its tool `notes__write` writes files
/// into `dir`.
fn notes_server(dir: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp_notes.py");
    format!(
        "\n[mcp_servers.notes]\ncommand = \"python3\"\nargs = [{:?}, {:?}]\nstartup_timeout = 30\n",
        script.display().to_string(),
        dir.display().to_string()
    )
}

/// Two `notes__write` calls whose arguments agree for the first 200 characters (and more) and
/// differ after: the display strings sayso used to remember are the same.
fn lookalike_writes() -> (Value, Value) {
    let content = "A".repeat(250);
    (
        json!({"content": content, "path": "first.txt"}),
        json!({"content": content, "path": "second.txt"}),
    )
}

#[tokio::test]
async fn allow_remember_for_an_mcp_call_does_not_cover_one_that_differs_after_200_characters() {
    let (first, second) = lookalike_writes();
    let fx = Fixture::start().await;
    fx.push(call_reply(&[("c1", "notes__write", &first)]));
    fx.push(call_reply(&[("c2", "notes__write", &second)]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let notes = tempfile::tempdir().unwrap();
    let h = home_with(&fx.base_url(), &notes_server(notes.path()));
    let script: Script = Box::new(|v| match v["request_id"].as_str() {
        Some("apr-c1") => vec![response("apr-c1", "allow", json!({"remember": true}))],
        Some("apr-c2") => vec![response(
            "apr-c2",
            "deny",
            json!({"message": "not this one"}),
        )],
        _ => Vec::new(),
    });
    let run = drive(h.path(), &["--approvals", "stdio"], script).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests = of_type(&run.events, "control_request");
    assert_eq!(
        requests.len(),
        2,
        "the second call must be asked about: {requests:?}"
    );
    // The attack's premise was that both calls looked the same where the display was cut:
    // now the display is the whole call, so the controller sees what differs.
    let display = |r: &Value| r["request"]["display"].as_str().unwrap().to_owned();
    assert!(
        display(requests[1]).contains("second.txt"),
        "{}",
        display(requests[1])
    );
    assert_eq!(requests[1]["request"]["tool_input"], second);
    assert!(notes.path().join("first.txt").exists());
    assert!(
        !notes.path().join("second.txt").exists(),
        "the second call ran on the first one's approval"
    );
    let messages = tool_messages(&fx.requests()[2].body);
    assert!(messages[1].1.contains("not this one"), "{messages:?}");
    // What was remembered is the whole call, not a cut display line.
    let remembered = run
        .events
        .iter()
        .find(|e| e["type"] == "approval_decided" && e["choice"] == "always_accept");
    assert!(remembered.is_some(), "{:?}", run.events);
}

#[tokio::test]
async fn the_judges_safe_verdict_for_an_mcp_call_does_not_cover_one_that_differs_after_200_characters()
 {
    let (first, second) = lookalike_writes();
    let fx = Fixture::start().await;
    fx.push(call_reply(&[("c1", "notes__write", &first)]));
    fx.push(judge_says(true, "writes a note"));
    fx.push(call_reply(&[("c2", "notes__write", &second)]));
    fx.push(judge_says(false, "not that file"));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let notes = tempfile::tempdir().unwrap();
    let h = home_with(&fx.base_url(), &notes_server(notes.path()));
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--auto", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(notes.path().join("first.txt").exists(), "{}", out.stderr);
    assert!(
        !notes.path().join("second.txt").exists(),
        "the second call ran on the first one's verdict"
    );
    let judged: Vec<Value> = fx
        .requests()
        .into_iter()
        .filter(|r| r.body.get("response_format").is_some())
        .map(|r| r.body)
        .collect();
    assert_eq!(judged.len(), 2, "each call gets its own verdict");
    // The judge read every argument, also what differs after 200 characters.
    let asked = judged[1]["messages"][1]["content"].as_str().unwrap();
    assert!(asked.contains("second.txt"), "{asked}");
    let last = fx.requests().pop().unwrap();
    let messages = tool_messages(&last.body);
    assert!(messages[1].1.contains("Approval required"), "{messages:?}");
}

#[tokio::test]
async fn a_late_allow_for_a_timed_out_call_does_not_approve_the_next_replys_call() {
    let fx = Fixture::start().await;
    // Two replies, each with a call that has no id.
    fx.push(idless_reply(&[(
        "run_command",
        json!({"cmd": "touch first"}),
    )]));
    fx.push(idless_reply(&[(
        "run_command",
        json!({"cmd": "touch second"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), "");
    let mut seen: Vec<String> = Vec::new();
    // The first request is left to time out; when the second comes, the answer for the first
    // arrives — late. The second gets no answer of its own.
    let script: Script = Box::new(move |v| {
        if v["type"] != "control_request" {
            return Vec::new();
        }
        seen.push(v["request_id"].as_str().unwrap().to_owned());
        match seen.len() {
            2 => vec![response(&seen[0], "allow", json!({}))],
            _ => Vec::new(),
        }
    });
    let run = drive(
        h.path(),
        &["--approvals", "stdio", "--approval-timeout", "1"],
        script,
    )
    .await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!h.path().join("first").exists());
    assert!(
        !h.path().join("second").exists(),
        "the late allow approved the next reply's call: {}",
        run.stderr
    );
    let ids: Vec<&str> = of_type(&run.events, "control_request")
        .iter()
        .map(|r| r["request_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{:?}", run.events);
    assert_ne!(ids[0], ids[1], "each request has its own id");
    assert!(
        run.stderr.contains(&format!(
            "sayso: control: request `{}` is over (rejected: no answer within 1 s)",
            ids[0]
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("no answer within 1 s: rejecting run_command"),
        "the second call waited for its own answer: {}",
        run.stderr
    );
    let last = fx.requests().pop().unwrap();
    assert_ids_unique_and_answered(&last.body);
    assert_eq!(call_ids(&last.body).len(), 2);
    // The ids the controller saw are the ones the model's history carries.
    let tool_use_ends: Vec<String> = of_type(&run.events, "tool_use_end")
        .iter()
        .map(|e| e["call_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(tool_use_ends, call_ids(&last.body));
}

#[tokio::test]
async fn repeated_server_ids_are_made_unique_in_the_history_and_the_requests() {
    let fx = Fixture::start().await;
    // A server that reuses one id, within a reply and across replies.
    fx.push(call_reply(&[
        ("dup", "run_command", json!({"cmd": "touch a"})),
        ("dup", "run_command", json!({"cmd": "touch b"})),
    ]));
    fx.push(call_reply(&[(
        "dup",
        "run_command",
        json!({"cmd": "touch c"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), "");
    let script: Script = Box::new(|v| match (v["type"].as_str(), v["request_id"].as_str()) {
        (Some("control_request"), Some(id)) => vec![response(id, "allow", json!({}))],
        _ => Vec::new(),
    });
    let run = drive(h.path(), &["--approvals", "stdio"], script).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    for f in ["a", "b", "c"] {
        assert!(h.path().join(f).exists(), "{f}: {}", run.stderr);
    }
    let ids: Vec<&str> = of_type(&run.events, "control_request")
        .iter()
        .map(|r| r["request_id"].as_str().unwrap())
        .collect();
    let unique: HashSet<&&str> = ids.iter().collect();
    assert_eq!((ids.len(), unique.len()), (3, 3), "{ids:?}");
    let requests = fx.requests();
    assert_ids_unique_and_answered(&requests[1].body);
    assert_ids_unique_and_answered(&requests[2].body);
    assert_eq!(call_ids(&requests[2].body).len(), 3);
    assert_eq!(
        call_ids(&requests[2].body)[0],
        "dup",
        "a new server id is kept"
    );
}

/// A session saved in trust (chosen on the command line), under a config that says balanced.
async fn session_saved_in_trust(fx: &Fixture) -> tempfile::TempDir {
    let h = home_with(&fx.base_url(), "[chat]\napproval_mode = \"balanced\"\n");
    fx.push(Reply::Stream(sse::text_reply(&["Hello."])));
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--approval-mode", "trust", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    h
}

/// The resumed turn's model runs `touch made`, then is done.
fn resumed_turn_runs_a_command(fx: &Fixture) {
    fx.push(call_reply(&[(
        "r1",
        "run_command",
        json!({"cmd": "touch made"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
}

#[tokio::test]
async fn an_explicit_mode_wins_over_the_saved_trust() {
    for mode in ["strict", "balanced"] {
        let fx = Fixture::start().await;
        let h = session_saved_in_trust(&fx).await;
        resumed_turn_runs_a_command(&fx);
        let mut cmd = sayso(h.path());
        cmd.args([
            "-p",
            "--json",
            "--continue",
            "--approval-mode",
            mode,
            "again",
        ]);
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{mode}: {}", out.stderr);
        assert!(
            !h.path().join("made").exists(),
            "{mode}: the command ran in the saved trust mode"
        );
        let started: Value = serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
        assert_eq!(started["approval_mode"], mode);
        let last = fx.requests().pop().unwrap();
        let messages = tool_messages(&last.body);
        assert!(
            messages[0]
                .1
                .contains("Approval required for `run_command`"),
            "{mode}: {messages:?}"
        );
    }
}

#[tokio::test]
async fn a_saved_trust_is_not_restored_under_a_balanced_config_and_the_chat_says_so() {
    let fx = Fixture::start().await;
    let h = session_saved_in_trust(&fx).await;
    resumed_turn_runs_a_command(&fx);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--json", "--continue", "again"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !h.path().join("made").exists(),
        "the command ran in the saved trust mode"
    );
    let events: Vec<Value> = json_lines(&out.stdout);
    assert_eq!(events[0]["type"], "session_started");
    assert_eq!(events[0]["approval_mode"], "balanced");
    // After the resume banner (`resumed session …`), the notice about the mode.
    assert_eq!(events[1]["type"], "notice", "{events:?}");
    let notice = events[2]["message"].as_str().unwrap_or_default();
    assert_eq!(events[2]["type"], "notice", "{events:?}");
    assert!(
        notice.contains("saved in trust mode")
            && notice.contains("continues in balanced")
            && notice.contains("--approval-mode trust"),
        "{notice}"
    );

    // The session file now says balanced: the next resume goes on in it, with nothing to say.
    resumed_turn_runs_a_command(&fx);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--continue", "and again"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!h.path().join("made").exists());
    assert!(
        !out.stderr.contains("saved in trust mode"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn text_mode_says_on_stderr_that_a_saved_trust_was_not_restored() {
    let fx = Fixture::start().await;
    let h = session_saved_in_trust(&fx).await;
    resumed_turn_runs_a_command(&fx);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--continue", "again"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!h.path().join("made").exists());
    assert!(
        out.stderr
            .contains("sayso: this session was saved in trust mode, which asks less than balanced"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn a_session_resumed_in_strict_goes_on_in_strict() {
    let fx = Fixture::start().await;
    let h = session_saved_in_trust(&fx).await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let mut cmd = sayso(h.path());
    cmd.args([
        "-p",
        "--continue",
        "--approval-mode",
        "strict",
        "be careful",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    // No flag now: the file says strict, which asks more than the config's balanced.
    resumed_turn_runs_a_command(&fx);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--json", "--continue", "again"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!h.path().join("made").exists());
    let started: Value = serde_json::from_str(out.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(started["approval_mode"], "strict");
}

#[tokio::test]
async fn the_tui_continues_a_trust_session_in_the_configs_mode_and_says_how_to_switch() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Hello from before."])));
    let tui = crate::support::tui::Tui::start(&fx.base_url(), &["--approval-mode", "trust"]);
    tui.ready().await;
    tui.send("hi").await;
    tui.wait_for("Hello from before.").await;
    assert!(tui.screen().contains(" TRUST "), "{}", tui.screen());
    // The config names no mode: it starts balanced.
    let tui = tui.restart(&["--continue"]);
    let screen = tui.wait_for("saved in trust mode").await;
    assert!(screen.contains("Hello from before."), "{screen}");
    assert!(screen.contains(" BALANCED "), "{screen}");
    assert!(screen.contains("/mode trust"), "{screen}");
}

/// A deny rule on an MCP tool reads the whole call: a denied word hidden after 200 characters
/// of padding (where the display used to be cut) is still denied.
#[tokio::test]
async fn a_deny_rule_on_an_mcp_call_sees_past_200_characters() {
    let fx = Fixture::start().await;
    let padded = json!({"content": format!("{} DROP", "A".repeat(250)), "path": "padded.txt"});
    fx.push(call_reply(&[("c1", "notes__write", &padded)]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let notes = tempfile::tempdir().unwrap();
    let extra = format!(
        "{}\n[[approvals.rules]]\ntool = \"notes__write\"\nmatch = \"* *DROP* *\"\ndecision = \"deny\"\n",
        notes_server(notes.path())
    );
    let h = home_with(&fx.base_url(), &extra);
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--approval-mode", "trust", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !notes.path().join("padded.txt").exists(),
        "the padded call ran past the deny rule"
    );
    let messages = tool_messages(&fx.requests().last().unwrap().body);
    assert!(messages[0].1.contains("denied"), "{messages:?}");
}
