//! Overflow recovery through the real binary, against servers that behave as measured in
//! issue 21: a `usage` that is no count (a constant `prompt_tokens`), a tokenizer that counts
//! more than sayso estimates, a window the server does not report. What is checked is what the
//! server sees: the retry after an overflow is strictly smaller than the request refused, it
//! fits by the server's own count, and the run completes — or, when not even the system
//! prompt fits, the error names both sizes and nothing more is sent.

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::support::context_limit::{ContextLimit, Overflow, is_streamed};
use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Recorded, Reply, sse};
use crate::support::fixture_overflow::{Quirks, Usage};
use crate::support::{home_with, run, sayso};

fn chat_requests(fx: &Fixture) -> Vec<Recorded> {
    fx.requests()
        .into_iter()
        .filter(|r| is_streamed(&r.body))
        .collect()
}

/// Characters of a request body's `messages` and `tools` (what the fixture counts).
fn size(r: &Recorded) -> usize {
    r.body["messages"].to_string().len() + r.body.get("tools").map_or(0, |t| t.to_string().len())
}

fn read_call(id: &str, file: &str) -> Reply {
    call_reply(&[(
        id,
        "read_file",
        json!({"filepath": file, "start_line": null, "end_line": null}),
    )])
}

/// A file of `lines` numbered lines, 50 characters each.
fn file(lines: usize) -> String {
    (0..lines)
        .map(|l| format!("line {l:05}: {}\n", "x".repeat(38)))
        .collect()
}

#[tokio::test]
async fn a_constant_usage_and_a_count_over_the_estimate_end_in_a_smaller_retry_that_completes() {
    let fx = Fixture::start().await;
    let quirks = Quirks {
        usage: Usage::Constant(125),
        ..Quirks::default()
    };
    fx.limit_with(ContextLimit {
        n_ctx: 9000,
        style: Overflow::LlamaCpp,
        quirks,
    });
    fx.push(read_call("r1", "big.txt"));
    fx.push(Reply::Stream(sse::text_reply(&[
        "It is ",
        "a list of lines.",
    ])));
    // The whole file reaches the model (the default cap would cut it first).
    let home = home_with(
        &fx.base_url(),
        "[tools.read_file.opts]\noutput_limit = 60000\n",
    );
    // 37,500 characters: over 9,000 tokens by the server's count, under sayso's estimate at
    // the ratio the constant usage gave (about 8 characters a token).
    std::fs::write(home.path().join("big.txt"), file(750)).unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--tools", "read_file", "What is in big.txt?"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(out.stdout.trim(), "It is a list of lines.");

    let chats = chat_requests(&fx);
    assert_eq!(
        chats.len(),
        3,
        "the first, the refused one, its retry: {}",
        out.stderr
    );
    let counted: Vec<u64> = chats.iter().map(|r| quirks.tokens(&r.body)).collect();
    assert!(
        counted[1] >= 9000,
        "the second was over the window: {counted:?}"
    );
    assert!(
        size(&chats[2]) < size(&chats[1]),
        "the retry is strictly smaller: {} then {}",
        size(&chats[1]),
        size(&chats[2])
    );
    // By the server's count, with room for the reply.
    assert!(counted[2] < 9000 * 8 / 10, "{counted:?}");
    let tool = chats[2].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(tool.contains("line 00000:"), "the head is kept: {tool}");
    assert!(
        tool.ends_with("more characters cut: the output did not fit the model's context window; ask for a smaller part]"),
        "{tool}"
    );
    assert!(
        out.stderr.contains(&format!(
            "the request did not fit the model's context window (9000 tokens): the server counted {} tokens where sayso estimated ",
            counted[1]
        )) && out.stderr.contains("trying a smaller request (1 of 3)"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn a_tokenizer_denser_than_the_estimate_overflows_once_then_every_request_fits() {
    let fx = Fixture::start().await;
    // 2 characters a token, no usage to learn it from: only the overflow error tells.
    let quirks = Quirks {
        chars_per_token: 2,
        usage: Usage::Missing,
        ..Quirks::default()
    };
    fx.limit_with(ContextLimit {
        n_ctx: 9000,
        style: Overflow::LlamaCpp,
        quirks,
    });
    const FILES: usize = 8;
    for i in 0..FILES {
        fx.push(read_call(&format!("r{i}"), &format!("f{i}.txt")));
    }
    fx.push(Reply::Stream(sse::text_reply(&["All read."])));
    let home = home_with(&fx.base_url(), "");
    for i in 0..FILES {
        std::fs::write(home.path().join(format!("f{i}.txt")), file(100)).unwrap();
    }
    let mut cmd = sayso(home.path());
    cmd.args([
        "-p",
        "--tools",
        "read_file",
        "Read f0.txt to f7.txt, one at a time.",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(out.stdout.trim(), "All read.");

    let chats = chat_requests(&fx);
    let over: Vec<usize> = (0..chats.len())
        .filter(|i| quirks.tokens(&chats[*i].body) >= 9000)
        .collect();
    assert_eq!(
        over.len(),
        1,
        "one overflow, then the count is known: {over:?}"
    );
    let refused = over[0];
    assert!(size(&chats[refused + 1]) < size(&chats[refused]));
    assert_eq!(chats.len(), FILES + 2, "one retry, nothing else repeated");
    assert!(
        out.stderr.contains("trying a smaller request (1 of 3)"),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn when_not_even_the_system_prompt_fits_the_error_names_both_sizes_and_nothing_more_is_sent()
{
    let fx = Fixture::start().await;
    // LiteLLM in front of llama.cpp: the window is not reported (8,192 assumed), only the
    // overflow error tells it.
    fx.limit_with(ContextLimit {
        n_ctx: 300,
        style: Overflow::LlamaCpp,
        quirks: Quirks {
            props: false,
            ..Quirks::default()
        },
    });
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(chat_requests(&fx).len(), 1, "nothing is sent again");
    let error = out
        .stderr
        .lines()
        .find(|l| l.starts_with("sayso: error:"))
        .unwrap_or_else(|| panic!("no error line: {}", out.stderr));
    // The system prompt (about 100 tokens, a little more or less with the temporary
    // directory's path and $SHELL in the environment block) is well over the 75 tokens a
    // 300-token window leaves for the request, so even a retry with no tools cannot fit.
    assert!(
        error.starts_with("sayso: error: the request does not fit the model's context window: the system prompt alone is about ")
            && error.contains(" tokens, more than the model's context window of 300 tokens can take with room for a reply (at most 75 tokens for the request), even with no tools offered;")
            && error.contains("shorten the project's instructions (AGENTS.md)"),
        "{error}"
    );
    assert!(!error.contains("shorten the message"), "{error}");
}

#[tokio::test]
async fn a_4k_window_offers_the_tools_that_fit_a_quarter_of_it_running_commands_included() {
    let fx = Fixture::start().await;
    fx.context_limit(4096, Overflow::LlamaCpp);
    fx.push(Reply::Stream(sse::text_reply(&["Hello."])));
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    let chats = chat_requests(&fx);
    let offered: Vec<&str> = chats[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    for needed in ["read_file", "edit_file", "run_command"] {
        assert!(offered.contains(&needed), "{needed}: {offered:?}");
    }
    assert!(!offered.contains(&"ask_questions"), "{offered:?}");
    let notices: Vec<String> = crate::support::json_lines(&out.stdout)
        .iter()
        .filter(|e| e["type"] == "notice")
        .filter_map(|e| e["message"].as_str().map(str::to_owned))
        .filter(|m| m.contains("4,096 tokens: offering"))
        .collect();
    assert_eq!(notices.len(), 1, "said once: {notices:?}");
    assert!(
        notices[0].starts_with(
            "the model's window is 4,096 tokens: offering read_file, edit_file, run_command"
        ) && notices[0].ends_with(
            "(what fits in a quarter of it, about 1,024 tokens); add more with @{agent} or --tools"
        ),
        "{}",
        notices[0]
    );
}

#[tokio::test]
async fn behind_litellm_the_retry_after_learning_4096_fits_by_the_server_s_count() {
    let fx = Fixture::start().await;
    // No window reported (8,192 assumed, all the default tools offered), the real one 4,096,
    // and a byte-level tokenizer (llama-server's tiny model): the first request is about 5,000
    // tokens, as measured through LiteLLM.
    let quirks = Quirks {
        chars_per_token: 1,
        props: false,
        ..Quirks::default()
    };
    fx.limit_with(ContextLimit {
        n_ctx: 4096,
        style: Overflow::LlamaCpp,
        quirks,
    });
    fx.push(Reply::Stream(sse::text_reply(&["Read it."])));
    let home = home_with(&fx.base_url(), "");
    let message = "hi".to_owned();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", &message]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert_eq!(out.stdout.trim(), "Read it.");
    let chats = chat_requests(&fx);
    assert_eq!(chats.len(), 2, "{}", out.stderr);
    let counted: Vec<u64> = chats.iter().map(|r| quirks.tokens(&r.body)).collect();
    assert!(counted[0] >= 4096 && counted[1] < 4096, "{counted:?}");
    assert!(size(&chats[1]) < size(&chats[0]));
    // What made room is fewer tools (the most needed kept), and that was said.
    let offered: Vec<&str> = chats[1].body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert!(offered.contains(&"read_file"), "{offered:?}");
    assert!(!offered.contains(&"ask_questions"), "{offered:?}");
    assert!(
        out.stderr
            .contains("to fit the window, fewer tools are offered from now on: "),
        "{}",
        out.stderr
    );
}
