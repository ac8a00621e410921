//! The whole agent loop against real servers: the model calls a tool, sayso's tool engine runs
//! (or refuses) it, the result goes back as a `role: tool` message, and the model answers.
//!
//! - llama-server + the tiny model (`SAYSO_TEST_LLAMA_URL`): real streamed, grammar-constrained
//!   `read_file` calls, through the real binary (`--json` events) and through the library
//!   (`sayso::agent::build` → `Agent::send`, checking the provider history it keeps);
//! - LLMock (`SAYSO_TEST_LLMOCK_URL`): a scripted `run_command` call, refused in headless mode
//!   without `--auto` / `--allowed-tools` and run with `--allowed-tools run_command`; LLMock's
//!   journal shows the exact tool message the binary sent back.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use pretty_assertions::assert_eq;
use sayso::agent::{Event, EventSink, Frontend, TurnEnd};
use sayso::config::{Config, Overrides};
use sayso::events::CallEnd;
use sayso::provider::{ChatMessage, Client, ToolCall};
use sayso::tools::policy::approval::Interaction;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

use crate::harness::{self, LLAMA_URL, LLMOCK_URL, Sayso};
use crate::llmock_control::Mock;

/// llama-server serves the tiny model under this alias (and ignores the name anyway).
const LLAMA_MODEL: &str = "tiny";
const LLMOCK_MODEL: &str = "gpt-4o";
const LLMOCK_CONFIG: &str = "[provider]\ncontext_window = 128000\n";

/// The tiny random model ends at once with an empty reply now and then (~3%): a scenario that
/// hit that is run again, at most this many times in all. Anything else must hold every time.
const TRIES: usize = 5;

const NOTES: &str = "first line of the notes\nsecond line\n";

/// The tool message the model gets when headless mode would have to ask (SPEC §5.4).
const HEADLESS_REJECTION: &str = "Approval required for `run_command` but sayso is running \
                                  non-interactively; rerun with --auto or --allowed-tools";

/// A working directory (`-C`) holding `notes.txt`.
fn workdir() -> TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::write(dir.path().join("notes.txt"), NOTES).expect("write notes.txt");
    dir
}

fn path_arg(dir: &TempDir) -> &str {
    dir.path().to_str().expect("the tempdir path is UTF-8")
}

fn kind(e: &Value) -> &str {
    e["type"]
        .as_str()
        .unwrap_or_else(|| panic!("event without a type: {e}"))
}

fn of_kind<'a>(events: &'a [Value], k: &str) -> Vec<&'a Value> {
    events.iter().filter(|e| kind(e) == k).collect()
}

fn position(events: &[Value], pred: impl Fn(&Value) -> bool, what: &str, out: &Sayso) -> usize {
    events
        .iter()
        .position(pred)
        .unwrap_or_else(|| panic!("no {what}: {out:?}"))
}

/// The JSON object a call's arguments spell, or a panic naming the call.
fn args_object(name: &str, arguments: &str, context: &dyn std::fmt::Debug) -> Value {
    let v: Value = serde_json::from_str(arguments)
        .unwrap_or_else(|e| panic!("`{name}` arguments are not JSON ({e}): {context:?}"));
    assert!(
        v.is_object(),
        "`{name}` arguments are not an object: {context:?}"
    );
    v
}

/// Whether a llama scenario ran to the end, or hit the tiny model's empty first reply.
enum Outcome {
    Checked,
    EmptyFirstReply,
    EmptyFinalReply,
}

// ---------------------------------------------------------------------------------------------
// llama-server: the binary

/// Checks one `sayso -p --json --tools read_file` run against llama-server.
fn check_binary_read_file_run(out: &Sayso) -> Outcome {
    assert_eq!(out.status, Some(0), "{out:?}");
    let events = out.json_events();
    let kinds: Vec<&str> = events.iter().map(kind).collect();
    assert_eq!(kinds.first(), Some(&"session_started"), "{out:?}");
    assert_eq!(events[0]["auto"], false, "{out:?}");
    assert_eq!(kinds.last(), Some(&"session_finished"), "{out:?}");
    let last = events.last().unwrap();
    assert_eq!(last["status"], "completed", "{out:?}");
    assert!(!kinds.contains(&"error"), "{out:?}");
    // read_file needs no approval, in any mode.
    assert!(!kinds.contains(&"approval_requested"), "{out:?}");
    assert!(!kinds.contains(&"approval_decided"), "{out:?}");

    let turns = of_kind(&events, "turn_completed");
    if turns.len() == 1 && !kinds.contains(&"tool_use_end") {
        // The model sampled end-of-sequence first: a clean, empty, final reply.
        assert_eq!(turns[0]["finish_reason"], "stop", "{out:?}");
        assert_eq!(last["text"], "", "{out:?}");
        assert!(!kinds.contains(&"message_delta"), "{out:?}");
        assert!(!kinds.contains(&"tool_use_begin"), "{out:?}");
        return Outcome::EmptyFirstReply;
    }
    assert_eq!(
        turns.len(),
        2,
        "a tool round-trip, then the answer: {out:?}"
    );

    // Turn 1: one or more streamed read_file calls, their deltas adding up to the final calls.
    let first_turn = position(
        &events,
        |e| kind(e) == "turn_completed",
        "turn_completed",
        out,
    );
    assert_eq!(events[first_turn]["finish_reason"], "tool_calls", "{out:?}");
    let turn1 = &events[..first_turn];
    let ends = of_kind(turn1, "tool_use_end");
    assert!(!ends.is_empty(), "no tool_use_end in turn 1: {out:?}");
    assert_eq!(
        of_kind(&events, "tool_use_end").len(),
        ends.len(),
        "tool calls come only in turn 1: {out:?}"
    );
    let starts = of_kind(turn1, "tool_use_begin");
    assert_eq!(starts.len(), ends.len(), "{out:?}");
    let mut ids: Vec<&str> = Vec::new();
    for (i, (start, end)) in starts.iter().zip(&ends).enumerate() {
        assert_eq!(end["index"], i, "{out:?}");
        assert_eq!(start["index"], i, "{out:?}");
        assert_eq!(end["name"], "read_file", "{out:?}");
        assert_eq!(start["name"], "read_file", "{out:?}");
        let id = end["call_id"].as_str().expect("call_id");
        assert!(!id.is_empty(), "{out:?}");
        assert_eq!(start["call_id"], id, "{out:?}");
        ids.push(id);
        let arguments = end["arguments"].as_str().expect("arguments are a string");
        let streamed: String = turn1
            .iter()
            .filter(|e| kind(e) == "tool_use_delta" && e["index"] == i)
            .map(|e| e["arguments"].as_str().unwrap())
            .collect();
        assert_eq!(streamed, arguments, "streamed vs final arguments: {out:?}");
        args_object("read_file", arguments, out);
    }
    let distinct: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(distinct.len(), ids.len(), "call ids are distinct: {out:?}");

    // The engine: exactly one tool_finished per call, in call order, all before turn 2 ends.
    let second_turn = events.len() - 2;
    assert_eq!(kind(&events[second_turn]), "turn_completed", "{out:?}");
    let finished = of_kind(&events, "tool_finished");
    let finished_ids: Vec<&str> = finished
        .iter()
        .map(|e| e["call_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        finished_ids, ids,
        "one tool_finished per call, in order: {out:?}"
    );
    for (f, end) in finished.iter().zip(&ends) {
        assert_eq!(f["name"], "read_file", "{out:?}");
        let status = f["status"].as_str().unwrap();
        assert!(
            status == "success" || status == "error",
            "read_file ends in success or a clean error: {out:?}"
        );
        let id = f["call_id"].as_str().unwrap();
        let outputs: Vec<&str> = events
            .iter()
            .filter(|e| kind(e) == "tool_output" && e["call_id"] == id)
            .map(|e| e["content"].as_str().unwrap())
            .collect();
        assert!(!outputs.is_empty(), "no tool_output for {id}: {out:?}");
        let content = outputs.join("\n\n");
        let args = args_object("read_file", end["arguments"].as_str().unwrap(), out);
        check_read_file_result(&args, status, &content, out);
        // Started before it finished (the arguments always decode, so the tool always runs).
        let started = position(
            &events,
            |e| kind(e) == "tool_started" && e["call_id"] == id,
            "tool_started",
            out,
        );
        let done = position(
            &events,
            |e| kind(e) == "tool_finished" && e["call_id"] == id,
            "tool_finished",
            out,
        );
        assert!(
            first_turn < started && started < done && done < second_turn,
            "{out:?}"
        );
    }

    // Turn 2: the answer in text, which is the session's final text.
    assert_eq!(events[second_turn]["finish_reason"], "stop", "{out:?}");
    let last_finished = events
        .iter()
        .rposition(|e| kind(e) == "tool_finished")
        .unwrap();
    assert!(
        !events[..last_finished]
            .iter()
            .any(|e| kind(e) == "message_delta"),
        "no text before the tool result: {out:?}"
    );
    let answer: String = events[last_finished..]
        .iter()
        .filter(|e| kind(e) == "message_delta")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert_eq!(last["text"].as_str(), Some(answer.as_str()), "{out:?}");
    let usage = |e: &Value| e["usage"]["prompt_tokens"].as_u64().unwrap_or(0);
    assert!(
        usage(&events[second_turn]) > usage(&events[first_turn]),
        "the second request carried the history: {out:?}"
    );
    if answer.is_empty() {
        Outcome::EmptyFinalReply
    } else {
        Outcome::Checked
    }
}

/// What `read_file` must have answered for `args` (in the working directory holding only
/// `notes.txt`). The tiny model's `filepath` is random and usually `""`.
fn check_read_file_result(
    args: &Value,
    status: &str,
    content: &str,
    context: &dyn std::fmt::Debug,
) {
    assert!(!content.is_empty(), "{context:?}");
    let filepath = args["filepath"].as_str().unwrap_or("");
    if filepath.is_empty() {
        assert_eq!(status, "error", "{context:?}");
        assert_eq!(content, "`filepath` is required", "{context:?}");
    } else if status == "success" {
        assert!(content.starts_with("Read "), "{context:?}");
        assert!(content.contains("\n````\n"), "{context:?}");
    }
}

#[tokio::test]
async fn llama_agent_loop_binary_reads_a_file() {
    let url = require_url!(LLAMA_URL, "llama_agent_loop_binary_reads_a_file");
    let work = workdir();
    let mut skipped = Vec::new();
    for _ in 0..TRIES {
        let out = harness::run_sayso(
            &url,
            LLAMA_MODEL,
            &[
                "--json",
                "--tools",
                "read_file",
                "-C",
                path_arg(&work),
                "read the file notes.txt",
            ],
            None,
        )
        .await;
        // The working directory is only read.
        assert_eq!(
            std::fs::read_to_string(work.path().join("notes.txt")).unwrap(),
            NOTES
        );
        match check_binary_read_file_run(&out) {
            // An empty final answer is a complete run too: every check above held.
            Outcome::Checked | Outcome::EmptyFinalReply => return,
            Outcome::EmptyFirstReply => skipped.push(out),
        }
    }
    panic!("{TRIES} runs ended at once with an empty reply: {skipped:#?}");
}

// ---------------------------------------------------------------------------------------------
// llama-server: the library

/// `sayso::agent::build` exactly as the binary does it (headless, no approver), from a config
/// loaded in an isolated environment with `--tools read_file`.
fn library_agent(url: &str, work: &Path, home: &Path) -> sayso::agent::Agent {
    let env: HashMap<String, String> = ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"]
        .iter()
        .map(|v| (v.to_string(), home.join(v).to_string_lossy().into_owned()))
        .chain([("HOME".to_owned(), home.to_string_lossy().into_owned())])
        .collect();
    let overrides = Overrides {
        cwd: work.to_path_buf(),
        model: Some(LLAMA_MODEL.into()),
        base_url: Some(url.into()),
        tools: Some(vec!["read_file".into()]),
        ..Overrides::default()
    };
    let config = Config::load(&overrides, &env).expect("the config loads");
    let client = Client::new(config.provider.clone()).expect("a client for the config");
    let setup = sayso::tools::configured::build(&config).expect("the tools set up");
    assert_eq!(
        setup.active,
        BTreeSet::from(["read_file".to_owned()]),
        "--tools read_file offers only read_file"
    );
    assert!(setup.allowed.is_empty());
    let agent = sayso::agent::build(
        &config,
        client,
        setup,
        work.to_path_buf(),
        Frontend {
            interaction: Interaction::Headless,
            approver: None,
            questions: None,
        },
    );
    let offered: Vec<String> = agent.tool_specs().into_iter().map(|s| s.name).collect();
    assert_eq!(offered, ["read_file"]);
    agent
}

/// Runs one user message through a fresh agent and checks the history it keeps: a system
/// message, the user message, an assistant message with tool calls, exactly one tool message
/// per call id in call order, then the final assistant text.
async fn library_read_file_run(url: &str, work: &Path) -> Outcome {
    let home = tempfile::tempdir().expect("temporary directory");
    let mut agent = library_agent(url, work, home.path());
    let (tx, mut rx) = EventSink::channel();
    let cancel = CancellationToken::new();
    let end = tokio::time::timeout(
        harness::RUN_LIMIT,
        agent.send("read the file notes.txt", &tx, &cancel),
    )
    .await
    .unwrap_or_else(|_| panic!("the turn did not end within {:?}", harness::RUN_LIMIT));
    drop(tx);
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    let history = agent.messages();
    let context = format!("end: {end:?}\nhistory: {history:#?}\nevents: {events:#?}");
    assert_eq!(end, TurnEnd::Completed, "{context}");
    assert!(
        matches!(&history[0], ChatMessage::System { content } if !content.is_empty()),
        "{context}"
    );
    assert_eq!(
        history[1],
        ChatMessage::user("read the file notes.txt"),
        "{context}"
    );
    let replies: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::ReplyDone(m) => Some(m),
            _ => None,
        })
        .collect();
    assert!(
        !events.iter().any(|e| matches!(e, Event::Retrying(_))),
        "no retry expected: {context}"
    );

    let ChatMessage::Assistant {
        content,
        tool_calls: calls,
        ..
    } = &history[2]
    else {
        panic!("the third message is the assistant's reply: {context}");
    };
    if calls.is_empty() {
        // The model sampled end-of-sequence first.
        assert_eq!(history.len(), 3, "{context}");
        assert_eq!(content, "", "{context}");
        assert_eq!(replies.len(), 1, "{context}");
        assert_eq!(
            replies[0].finish_reason.as_deref(),
            Some("stop"),
            "{context}"
        );
        return Outcome::EmptyFirstReply;
    }
    let calls: &[ToolCall] = calls;
    assert_eq!(
        history.len(),
        3 + calls.len() + 1,
        "calls, one result each, the answer: {context}"
    );
    assert_eq!(replies.len(), 2, "{context}");
    assert_eq!(replies[0].tool_calls, calls, "{context}");
    assert_eq!(
        replies[0].finish_reason.as_deref(),
        Some("tool_calls"),
        "{context}"
    );

    // One tool message per call id, in call order, each what the engine reported for it.
    for (i, call) in calls.iter().enumerate() {
        assert_eq!(call.name, "read_file", "{context}");
        let args = args_object(&call.name, &call.arguments, &context);
        let ChatMessage::Tool {
            tool_call_id,
            content,
        } = &history[3 + i]
        else {
            panic!("message {} is the result of call {i}: {context}", 3 + i);
        };
        assert_eq!(tool_call_id, &call.id, "{context}");
        let reported: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolOutput {
                    call_id, content, ..
                } if call_id == &call.id => Some(content.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(&reported.join("\n\n"), content, "{context}");
        let statuses: Vec<CallEnd> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolFinished { call_id, end, .. } if call_id == &call.id => Some(*end),
                _ => None,
            })
            .collect();
        let [status] = statuses[..] else {
            panic!("one ToolFinished for {}: {context}", call.id);
        };
        let status = match status {
            CallEnd::Success => "success",
            CallEnd::Error => "error",
            other => panic!("read_file needs no approval, yet it ended {other:?}: {context}"),
        };
        check_read_file_result(&args, status, content, &context);
    }
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::ApprovalRequested { .. })),
        "{context}"
    );

    // The final answer: text, no calls, and what turn 2 streamed.
    let ChatMessage::Assistant {
        content: answer,
        tool_calls,
        ..
    } = history.last().unwrap()
    else {
        panic!("the history ends with the assistant's answer: {context}");
    };
    assert!(tool_calls.is_empty(), "{context}");
    assert_eq!(&replies[1].content, answer, "{context}");
    assert_eq!(
        replies[1].finish_reason.as_deref(),
        Some("stop"),
        "{context}"
    );
    if answer.is_empty() {
        Outcome::EmptyFinalReply
    } else {
        Outcome::Checked
    }
}

#[tokio::test]
async fn llama_agent_loop_library_keeps_the_history() {
    let url = require_url!(LLAMA_URL, "llama_agent_loop_library_keeps_the_history");
    let work = workdir();
    let mut empty = Vec::new();
    for _ in 0..TRIES {
        match library_read_file_run(&url, work.path()).await {
            Outcome::Checked => return,
            Outcome::EmptyFirstReply => empty.push("an empty first reply"),
            Outcome::EmptyFinalReply => empty.push("an empty final answer"),
        }
    }
    panic!("{TRIES} runs without a final text answer: {empty:?}");
}

// ---------------------------------------------------------------------------------------------
// LLMock: run_command in headless mode

fn echo_hi_call() -> Value {
    json!([{"type": "reply", "tool_calls": [
        {"name": "run_command", "arguments": {"cmd": "echo hi", "flag": null}}
    ]}])
}

/// Runs the binary in `work` with the scripted `echo hi` call and checks the parts that do not
/// depend on approval: the call as streamed, the session's end, and that the second request
/// sent back the call and exactly one tool message for it. Returns the events, the call id and
/// that tool message's content.
async fn run_echo_hi(mock: &Mock, url: &str, args: &[&str]) -> (Sayso, Vec<Value>, String, String) {
    mock.script(echo_hi_call()).await;
    // The window given: no probe for it takes the mock's scripted answer.
    let out = harness::run_sayso(url, LLMOCK_MODEL, args, Some(LLMOCK_CONFIG)).await;
    assert_eq!(out.status, Some(0), "{out:?}");
    let events = out.json_events();
    let kinds: Vec<&str> = events.iter().map(kind).collect();
    assert!(!kinds.contains(&"error"), "{out:?}");
    let ends = of_kind(&events, "tool_use_end");
    assert_eq!(ends.len(), 1, "{out:?}");
    assert_eq!(ends[0]["name"], "run_command", "{out:?}");
    let call_args = args_object("run_command", ends[0]["arguments"].as_str().unwrap(), &out);
    assert_eq!(
        call_args,
        json!({"cmd": "echo hi", "flag": null}),
        "{out:?}"
    );
    let id = ends[0]["call_id"].as_str().unwrap().to_owned();
    let finished = of_kind(&events, "tool_finished");
    assert_eq!(finished.len(), 1, "{out:?}");
    assert_eq!(finished[0]["call_id"], id.as_str(), "{out:?}");
    let turns = of_kind(&events, "turn_completed");
    assert_eq!(turns.len(), 2, "{out:?}");
    assert_eq!(turns[0]["finish_reason"], "tool_calls", "{out:?}");
    assert_eq!(turns[1]["finish_reason"], "stop", "{out:?}");
    let last = events.last().unwrap();
    assert_eq!(kind(last), "session_finished", "{out:?}");
    assert_eq!(last["status"], "completed", "{out:?}");
    assert!(!last["text"].as_str().unwrap().is_empty(), "{out:?}");

    // What LLMock received: the tools offered first, then the call and its one result.
    let attempts = mock.attempts().await;
    assert_eq!(attempts.len(), 2, "{attempts:#?}");
    let offered: Vec<&str> = attempts[0]["body"]["tools"]
        .as_array()
        .expect("tools were offered")
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(offered.contains(&"run_command"), "{offered:?}");
    let sent = attempts[1]["body"]["messages"]
        .as_array()
        .expect("the second request has messages");
    let call_at = sent
        .iter()
        .position(|m| m["role"] == "assistant")
        .unwrap_or_else(|| panic!("no assistant message sent back: {sent:#?}"));
    assert_eq!(
        sent[call_at]["tool_calls"][0]["id"],
        id.as_str(),
        "{sent:#?}"
    );
    assert_eq!(
        sent[call_at]["tool_calls"][0]["function"]["name"], "run_command",
        "{sent:#?}"
    );
    assert_eq!(
        call_at + 2,
        sent.len(),
        "the call, then its result: {sent:#?}"
    );
    let tool_messages: Vec<&Value> = sent.iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(tool_messages.len(), 1, "{sent:#?}");
    let result = &sent[call_at + 1];
    assert_eq!(result["role"], "tool", "{sent:#?}");
    assert_eq!(result["tool_call_id"], id.as_str(), "{sent:#?}");
    let content = result["content"]
        .as_str()
        .unwrap_or_else(|| panic!("the tool message content is a string: {result}"))
        .to_owned();
    // The headless output reported exactly what was sent.
    let reported: Vec<&str> = of_kind(&events, "tool_output")
        .iter()
        .map(|e| e["content"].as_str().unwrap())
        .collect();
    assert_eq!(reported.join("\n\n"), content, "{out:?}");
    (out, events, id, content)
}

#[tokio::test]
async fn llmock_headless_run_command_without_approval_is_rejected() {
    let url = require_url!(
        LLMOCK_URL,
        "llmock_headless_run_command_without_approval_is_rejected"
    );
    let mock = Mock::take(&url).await;
    let work = tempfile::tempdir().expect("temporary directory");
    let (out, events, id, content) = run_echo_hi(
        &mock,
        &url,
        &[
            "--json",
            "-C",
            path_arg(&work),
            "agent loop: run_command without approval",
        ],
    )
    .await;
    assert_eq!(content, HEADLESS_REJECTION);
    assert_eq!(events[0]["auto"], false, "{out:?}");
    let requested = of_kind(&events, "approval_requested");
    assert_eq!(requested.len(), 1, "{out:?}");
    assert_eq!(requested[0]["call_id"], id.as_str(), "{out:?}");
    assert_eq!(requested[0]["cmd_string"], "echo hi", "{out:?}");
    let decided = of_kind(&events, "approval_decided");
    assert_eq!(decided.len(), 1, "{out:?}");
    assert_eq!(decided[0]["choice"], "reject", "{out:?}");
    assert_eq!(decided[0]["reason"], HEADLESS_REJECTION, "{out:?}");
    assert!(
        of_kind(&events, "tool_started").is_empty(),
        "it never ran: {out:?}"
    );
    assert_eq!(
        of_kind(&events, "tool_finished")[0]["status"],
        "rejected",
        "{out:?}"
    );
    mock.assert_verdict(&[]).await;
}

#[tokio::test]
async fn llmock_headless_allowed_run_command_runs() {
    let url = require_url!(LLMOCK_URL, "llmock_headless_allowed_run_command_runs");
    let mock = Mock::take(&url).await;
    let work = tempfile::tempdir().expect("temporary directory");
    let (out, events, id, content) = run_echo_hi(
        &mock,
        &url,
        &[
            "--json",
            "--allowed-tools",
            "run_command",
            "-C",
            path_arg(&work),
            "agent loop: run_command allowed",
        ],
    )
    .await;
    assert_eq!(content, "`echo hi`\n````\nhi\n````");
    assert!(of_kind(&events, "approval_requested").is_empty(), "{out:?}");
    assert!(of_kind(&events, "approval_decided").is_empty(), "{out:?}");
    let started = of_kind(&events, "tool_started");
    assert_eq!(started.len(), 1, "{out:?}");
    assert_eq!(started[0]["call_id"], id.as_str(), "{out:?}");
    assert_eq!(started[0]["cmd_string"], "echo hi", "{out:?}");
    assert_eq!(
        of_kind(&events, "tool_finished")[0]["status"],
        "success",
        "{out:?}"
    );
    mock.assert_verdict(&[]).await;
}
