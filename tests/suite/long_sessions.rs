//! Long sessions against a server that enforces a context window (the fixture's
//! [`ContextLimit`]): pruning, compaction and overflow recovery through the real binary. What
//! is checked is what a server sees: no request over the window (after the first error, when
//! the window was unknown), every tool call answered in every request, exactly one request per
//! compaction, and the events a script reads.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::context_limit::{Overflow, is_streamed, prompt_tokens};
use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Recorded, Reply, Step, sse};
use crate::support::json_lines;
use crate::support::tui::Tui;
use crate::support::{home_with, run, sayso};

/// A 5,000-character file: 100 numbered lines.
fn big_file(i: usize) -> String {
    (0..100)
        .map(|l| format!("file {i:02} line {l:03}: {}\n", "x".repeat(28)))
        .collect()
}

fn read_call(i: usize) -> Reply {
    call_reply(&[(
        format!("r{i}").as_str(),
        "read_file",
        json!({"filepath": format!("f{i:02}.txt"), "start_line": null, "end_line": null}),
    )])
}

/// A reply that thinks aloud (1,200 characters) before it calls `read_file`: the history grows
/// by more than pruning can take away.
fn talkative_read_call(i: usize) -> Reply {
    let Reply::Stream(mut steps) = read_call(i) else {
        unreachable!()
    };
    let thought = format!(
        "Now file {i}. {}",
        "I keep notes on what I found. ".repeat(40)
    );
    steps.insert(1, Step::Bytes(sse::text(&thought)));
    Reply::Stream(steps)
}

const SUMMARY: &str =
    "SUMMARY: the user wants every file read; the early ones hold numbered x lines.";

fn summary_reply() -> Reply {
    Reply::Json(json!({
        "id": "c", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": SUMMARY}, "finish_reason": "stop"}],
    }))
}

/// Every call in `body` has exactly one tool message, and every tool message a call.
fn every_call_answered(body: &Value) -> Result<(), String> {
    let messages = body["messages"].as_array().ok_or("no messages")?;
    let calls: Vec<&str> = messages
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .filter_map(|c| c["id"].as_str())
        .collect();
    let results: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    if calls == results {
        Ok(())
    } else {
        Err(format!("calls {calls:?}, results {results:?}"))
    }
}

fn chat_requests(fx: &Fixture) -> Vec<Recorded> {
    fx.requests()
        .into_iter()
        .filter(|r| is_streamed(&r.body))
        .collect()
}

fn types(events: &[Value]) -> Vec<&str> {
    events.iter().filter_map(|e| e["type"].as_str()).collect()
}

#[tokio::test]
async fn a_long_turn_of_big_tool_outputs_runs_to_the_end_inside_a_llamacpp_window() {
    let fx = Fixture::start().await;
    fx.context_limit(7000, Overflow::LlamaCpp);
    fx.route_not_streamed(summary_reply());
    const FILES: usize = 12;
    for i in 0..FILES {
        fx.push(talkative_read_call(i));
    }
    fx.push(Reply::Stream(sse::text_reply(&["All ", "read."])));
    let home = home_with(&fx.base_url(), "");
    for i in 0..FILES {
        std::fs::write(home.path().join(format!("f{i:02}.txt")), big_file(i)).unwrap();
    }
    let prompt = "Read every file, f00.txt to f11.txt, one at a time.";
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", prompt]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let events = json_lines(&out.stdout);
    let last = events.last().unwrap();
    assert_eq!(
        (last["status"].as_str(), last["text"].as_str()),
        (Some("completed"), Some("All read."))
    );

    // The window came from /props, and 4 characters a token is what the fixture counts.
    let chats = chat_requests(&fx);
    assert_eq!(
        chats.len(),
        FILES + 1,
        "each scripted reply was asked for once"
    );
    for (n, r) in chats.iter().enumerate() {
        let tokens = prompt_tokens(&r.body);
        assert!(tokens < 7000, "request {n} has {tokens} tokens");
        every_call_answered(&r.body).unwrap_or_else(|e| panic!("request {n}: {e}"));
    }
    // The window was reported: the default tools and system message fit a quarter of 7,000
    // tokens (6,000 before `todo` joined them), so all of them are offered (running a command
    // included), and nothing narrowed.
    let offered: Vec<&str> = chats[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&"run_command"), "{offered:?}");
    assert!(offered.contains(&"read_file"), "{offered:?}");
    assert!(
        !events.iter().any(|e| e["type"] == "notice"
            && e["message"]
                .as_str()
                .is_some_and(|m| m.contains("7,000 tokens: offering"))),
        "{}",
        out.stdout
    );

    // Pruning, then compaction: each compaction is exactly one request, not streamed.
    let kinds = types(&events);
    assert!(kinds.contains(&"context_pruned"), "{kinds:?}");
    let compactions = kinds.iter().filter(|k| **k == "compacted").count();
    let summaries = fx
        .requests()
        .iter()
        .filter(|r| !is_streamed(&r.body))
        .count();
    assert!(compactions >= 1, "{kinds:?}");
    assert_eq!(summaries, compactions);

    // The last request: the summary with the request verbatim, stand-ins for old outputs, the
    // last round's output whole.
    let last = &chats.last().unwrap().body;
    let messages = last["messages"].as_array().unwrap();
    let summary = messages[1]["content"].as_str().unwrap();
    assert!(
        summary.starts_with("Summary of our conversation so far"),
        "{summary}"
    );
    assert!(summary.contains(SUMMARY), "{summary}");
    assert!(
        summary.ends_with(&format!("The request in progress, verbatim:\n{prompt}")),
        "{summary}"
    );
    let outputs: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert!(
        outputs.last().unwrap().contains("file 11 line 099"),
        "{outputs:?}"
    );
    // Every turn reported the gauge.
    let gauges: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "turn_completed")
        .map(|e| &e["context"])
        .collect();
    assert_eq!(gauges.len(), FILES + 1);
    assert!(gauges.iter().all(|g| g["window"] == 7000), "{gauges:?}");
}

#[tokio::test]
async fn an_unknown_window_is_learned_from_the_first_openai_overflow_and_never_overflowed_again() {
    let fx = Fixture::start().await;
    fx.context_limit(4000, Overflow::OpenAi);
    fx.route_not_streamed(summary_reply());
    const FILES: usize = 8;
    for i in 0..FILES {
        fx.push(read_call(i));
    }
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let home = home_with(&fx.base_url(), "");
    for i in 0..FILES {
        std::fs::write(home.path().join(format!("f{i:02}.txt")), big_file(i)).unwrap();
    }
    let mut cmd = sayso(home.path());
    cmd.args([
        "-p",
        "--json",
        "--tools",
        "read_file",
        "Read f00.txt to f07.txt.",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let events = json_lines(&out.stdout);

    let chats = chat_requests(&fx);
    let over: Vec<usize> = chats
        .iter()
        .enumerate()
        .filter(|(_, r)| prompt_tokens(&r.body) >= 4000)
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        over.len(),
        1,
        "exactly one request over the window: {over:?}"
    );
    // The one over the window was retried once, made smaller; no other request was repeated.
    assert_eq!(chats.len(), FILES + 2);
    for (n, r) in chats.iter().enumerate() {
        every_call_answered(&r.body).unwrap_or_else(|e| panic!("request {n}: {e}"));
    }
    let notice = events
        .iter()
        .filter(|e| e["type"] == "notice")
        .filter_map(|e| e["message"].as_str())
        .find(|m| m.contains("did not fit"))
        .unwrap_or_else(|| panic!("no overflow notice: {}", out.stdout));
    assert!(notice.contains("4000 tokens"), "{notice}");
    let errors: Vec<&Value> = events.iter().filter(|e| e["type"] == "error").collect();
    assert!(errors.is_empty(), "{errors:?}");
    let last = events.iter().rev().find(|e| e["type"] == "turn_completed");
    assert_eq!(last.unwrap()["context"]["window"], 4000);
}

#[tokio::test]
async fn a_message_too_large_for_the_window_is_an_error_naming_both_sizes_and_nothing_is_sent() {
    let fx = Fixture::start().await;
    fx.context_limit(2048, Overflow::LlamaCpp);
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    let huge = "please summarise this: ".to_owned() + &"word ".repeat(20_000);
    cmd.args(["-p", "--tools", "read_file", &huge]);
    let out = run(cmd).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("tokens, more than the model's context window of 2048 tokens"),
        "{}",
        out.stderr
    );
    assert!(chat_requests(&fx).is_empty(), "nothing was sent");
}

#[tokio::test]
async fn a_compacted_session_resumes_as_its_summary_and_kept_rounds() {
    let fx = Fixture::start().await;
    fx.context_limit(7000, Overflow::LlamaCpp);
    fx.route_not_streamed(summary_reply());
    for i in 0..8 {
        fx.push(talkative_read_call(i));
    }
    fx.push(Reply::Stream(sse::text_reply(&["All read."])));
    let home = home_with(&fx.base_url(), "");
    for i in 0..8 {
        std::fs::write(home.path().join(format!("f{i:02}.txt")), big_file(i)).unwrap();
    }
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "Read f00.txt to f07.txt."]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"compacted\""), "{}", out.stdout);
    let before = chat_requests(&fx);
    let last_sent = before.last().unwrap().body["messages"].clone();

    fx.push(Reply::Stream(sse::text_reply(&["Eight files."])));
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--continue", "How many files?"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let resumed = &chat_requests(&fx)[before.len()].body;
    let messages = resumed["messages"].as_array().unwrap();
    // The same history the last request of the first run had (pruning aside), then the reply
    // and the new message: the summary is not lost, the compacted rounds do not come back.
    assert_eq!(messages[1], last_sent[1], "the summary message");
    assert_eq!(
        resumed["tools"],
        before.last().unwrap().body["tools"],
        "the same tools"
    );
    assert_eq!(
        messages.len(),
        last_sent.as_array().unwrap().len() + 2,
        "{messages:#?}"
    );
    assert_eq!(
        messages.last().unwrap(),
        &json!({"role": "user", "content": "How many files?"})
    );
    every_call_answered(resumed).unwrap();
    assert!(prompt_tokens(resumed) < 7000);
}

#[tokio::test]
async fn a_model_repeating_the_same_failing_call_is_stopped_after_three() {
    let fx = Fixture::start().await;
    for _ in 0..5 {
        fx.push(call_reply(&[(
            "same",
            "read_file",
            json!({"filepath": "missing.txt", "start_line": null, "end_line": null}),
        )]));
    }
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--tools", "read_file", "read missing.txt"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(chat_requests(&fx).len(), 3, "no fourth request");
    assert!(
        out.stderr.contains("read_file") && out.stderr.contains("3 times"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_tui_the_gauge_context_and_compact_show_and_shrink_the_window() {
    let fx = Fixture::start().await;
    fx.context_limit(32_768, Overflow::LlamaCpp);
    fx.route_not_streamed(summary_reply());
    fx.push(Reply::Stream(sse::text_reply(&["First answer."])));
    fx.push(Reply::Stream(sse::text_reply(&["Second answer."])));
    fx.push(Reply::Stream(sse::text_reply(&["Third answer."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("first question").await;
    tui.wait_for("First answer.").await;
    // The gauge: the server's usage against the window /props gave.
    let screen = tui.wait_for("of 33k").await;
    assert!(screen.contains("ctx "), "{screen}");
    tui.send("second question").await;
    tui.wait_for("Second answer.").await;

    tui.send("/context").await;
    let screen = tui
        .wait_for("context window: 32,768 tokens — llama.cpp")
        .await;
    assert!(screen.contains("tools ("), "{screen}");
    assert!(screen.contains("history (4 msgs)"), "{screen}");

    tui.send("/compact keep the answers").await;
    let screen = tui.wait_for("⧉ compacted").await;
    assert!(!screen.contains("summarising the older"), "over: {screen}");
    let asks: Vec<Recorded> = fx
        .requests()
        .into_iter()
        .filter(|r| !is_streamed(&r.body))
        .collect();
    assert_eq!(asks.len(), 1, "one request for the summary");
    let ask = asks[0].body["messages"][1]["content"].as_str().unwrap();
    assert!(ask.contains("USER:\nfirst question"), "{ask}");
    assert!(ask.contains("First answer."), "{ask}");
    assert!(
        !ask.contains("second question"),
        "the last turn stays: {ask}"
    );
    assert!(
        ask.ends_with("Pay particular attention to: keep the answers"),
        "{ask}"
    );

    tui.send("third question").await;
    tui.wait_for("Third answer.").await;
    let last = chat_requests(&fx).pop().unwrap();
    let roles: Vec<(&str, &str)> = last.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|m| {
            (
                m["role"].as_str().unwrap(),
                m["content"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(roles[0].1.contains(SUMMARY), "{roles:?}");
    assert_eq!(
        roles[1..],
        [
            ("user", "second question"),
            ("assistant", "Second answer."),
            ("user", "third question"),
        ]
    );
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());
}
