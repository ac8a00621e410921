//! The turn as a table of input sequences: no tokio, no client, no engine. Each row feeds
//! inputs to a [`Turn`] and compares what came out, summarised as words ("request 2",
//! "run c1,c2", "summarise", "done completed").

use super::*;
use crate::provider::{AssistantMessage, StreamDelta, Usage};

pub fn tool() -> ToolSpec {
    ToolSpec {
        name: "run_command".into(),
        description: "Runs a command.".into(),
        parameters: serde_json::json!({"type": "object"}),
        strict: None,
    }
}

pub fn rules() -> Rules {
    Rules {
        max_turns: 10,
        auto_submit_success: true,
        auto_submit_errors: true,
        interaction: Interaction::Interactive,
        text_tool_calls: true,
    }
}

/// A turn on `history` (the system prompt first) in a window of `window` tokens.
pub fn turn_on(history: Vec<ChatMessage>, window: u64, rules: Rules) -> Turn {
    let mut chat = Chat {
        messages: history,
        ..Chat::default()
    };
    chat.window.set(window, "test");
    Turn::new(Setup {
        chat,
        tools: vec![tool()],
        system: "sys".into(),
        rules,
    })
}

pub fn system(content: &str) -> ChatMessage {
    ChatMessage::System {
        content: content.into(),
    }
}

pub fn user(text: &str) -> Input {
    Input::User(UserMessage {
        text: text.into(),
        sent: text.into(),
        ..UserMessage::default()
    })
}

fn finished(reply: AssistantMessage) -> Input {
    Input::Stream(StreamEvent::Finished(Ok(reply)))
}

fn text(t: &str) -> Input {
    finished(AssistantMessage {
        content: t.into(),
        ..AssistantMessage::default()
    })
}

fn delta(t: &str) -> Input {
    Input::Stream(StreamEvent::Delta(StreamDelta::Text(t.into())))
}

pub fn call(id: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "run_command".into(),
        arguments: args.into(),
    }
}

fn calls(ids: &[&str]) -> Input {
    finished(AssistantMessage {
        tool_calls: ids.iter().map(|id| call(id, r#"{"cmd":"make"}"#)).collect(),
        ..AssistantMessage::default()
    })
}

fn answers(ids: &[&str], end: CallEnd) -> Input {
    Input::Batch(Answers {
        results: ids
            .iter()
            .map(|id| Answer {
                call_id: (*id).into(),
                end,
                content: format!("output of {id}"),
            })
            .collect(),
        had_error: end == CallEnd::Error,
        ends_turn: None,
    })
}

fn ok(ids: &[&str]) -> Input {
    answers(ids, CallEnd::Success)
}

fn overflow(window: Option<u64>) -> Input {
    counted_overflow(window, None)
}

/// The server's overflow error, with its window and its count when it says them.
pub fn counted_overflow(window: Option<u64>, prompt: Option<u64>) -> Input {
    Input::Stream(StreamEvent::Finished(Err(ProviderError::ContextOverflow {
        message: "too long".into(),
        window,
        prompt,
    })))
}

/// The request among `fx`.
fn request_of(fx: &[Effect]) -> Option<ChatRequest> {
    fx.iter().find_map(|e| match e {
        Effect::Request(r) => Some(r.clone()),
        _ => None,
    })
}

fn chars_of(r: &ChatRequest) -> usize {
    crate::agent::context::request_chars(&r.messages, &r.tools)
}

pub fn end_word(end: &TurnEnd) -> String {
    match end {
        TurnEnd::Completed => "completed".into(),
        TurnEnd::Cancelled => "cancelled".into(),
        TurnEnd::Stopped => "stopped".into(),
        TurnEnd::MaxTurns(n) => format!("max turns {n}"),
        TurnEnd::LengthLimit => "length limit".into(),
        TurnEnd::Failed(ProviderError::ContextOverflow { .. }) => "failed: does not fit".into(),
        TurnEnd::Failed(e) => format!("failed: {e}"),
        TurnEnd::Repeated { tool, times } => format!("repeated {tool} {times}"),
    }
}

/// The effects as words; deltas, the gauge and `TurnEnded` (always right before `done`) are
/// left out.
pub fn words(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Emit(Event::UserMessage { text, .. }) => Some(format!("user {text}")),
            Effect::Emit(Event::ToolsAdded { names }) => Some(format!("added {}", names.join(","))),
            Effect::Emit(Event::Pruned { outputs, .. }) => Some(format!("pruned {outputs}")),
            Effect::Emit(Event::Compacted { tail, .. }) => Some(format!("compacted, {tail} kept")),
            Effect::Emit(Event::ReplyInterrupted { partial }) => {
                Some(format!("interrupted '{partial}'"))
            }
            Effect::Emit(Event::Retrying(_)) => Some("retrying".into()),
            Effect::Emit(Event::Notice(n)) if n.is_error() => Some("error".into()),
            Effect::Emit(Event::Notice(_)) => Some("info".into()),
            Effect::Emit(_) => None,
            Effect::Request(r) => Some(format!("request {}", r.messages.len())),
            Effect::Summarise(_) => Some("summarise".into()),
            Effect::RunBatch(calls) => {
                let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
                Some(format!("run {}", ids.join(",")))
            }
            Effect::WindowLearned => Some("window learned".into()),
            Effect::ToolsDropped(names) => Some(format!("dropped {}", names.join(","))),
            Effect::Finish(f) if f.queued.is_empty() => Some(format!("done {}", end_word(&f.end))),
            Effect::Finish(f) => Some(format!(
                "done {}, queued {}",
                end_word(&f.end),
                f.queued.join("|")
            )),
        })
        .collect()
}

struct Row {
    name: &'static str,
    history: Vec<ChatMessage>,
    window: u64,
    rules: Rules,
    /// Each input, and the words expected from it.
    steps: Vec<(Input, Vec<&'static str>)>,
}

fn row(name: &'static str, steps: Vec<(Input, Vec<&'static str>)>) -> Row {
    Row {
        name,
        history: vec![system("sys")],
        window: 32_768,
        rules: rules(),
        steps,
    }
}

/// Runs a row; the turn as it ended.
fn run_row(row: Row) -> Turn {
    let mut turn = turn_on(row.history, row.window, row.rules);
    for (i, (input, want)) in row.steps.into_iter().enumerate() {
        let fx = turn.step(input);
        assert_eq!(words(&fx), want, "{}: step {i}", row.name);
    }
    assert!(turn.is_done(), "{}: the turn did not finish", row.name);
    turn
}

/// A history whose older part is long: a big earlier turn, without tool outputs to prune.
fn long_history() -> Vec<ChatMessage> {
    vec![
        system("sys"),
        ChatMessage::User {
            content: "a".repeat(20_000),
            images: Vec::new(),
        },
        ChatMessage::Assistant {
            content: "ok".into(),
            tool_calls: Vec::new(),
            reasoning: None,
        },
    ]
}

/// Earlier turns with one big tool output each.
fn rounds_history(n: usize, output: usize) -> Vec<ChatMessage> {
    let mut h = vec![system("sys")];
    for i in 0..n {
        let id = format!("old{i}");
        h.push(ChatMessage::User {
            content: format!("question {i}"),
            images: Vec::new(),
        });
        h.push(ChatMessage::Assistant {
            content: String::new(),
            tool_calls: vec![call(&id, r#"{"cmd":"cat"}"#)],
            reasoning: None,
        });
        h.push(ChatMessage::Tool {
            tool_call_id: id,
            content: "x".repeat(output),
        });
    }
    h
}

#[test]
fn turn_table() {
    let with = |mut r: Row, f: &dyn Fn(&mut Rules)| {
        f(&mut r.rules);
        r
    };
    let rows = vec![
        row(
            "a reply without calls completes the turn",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (delta("hel"), vec![]),
                (text("hello"), vec!["done completed"]),
            ],
        ),
        row(
            "calls run, their results go back, the next reply ends it",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (calls(&["c1", "c2"]), vec!["run c1,c2"]),
                (ok(&["c1", "c2"]), vec!["request 5"]),
                (text("done"), vec!["done completed"]),
            ],
        ),
        with(
            row(
                "auto-submit off: the results end the turn",
                vec![
                    (user("hi"), vec!["user hi", "request 2"]),
                    (calls(&["c1"]), vec!["run c1"]),
                    (ok(&["c1"]), vec!["done completed"]),
                ],
            ),
            &|r| r.auto_submit_success = false,
        ),
        with(
            row(
                "an error resubmits only with auto_submit_errors",
                vec![
                    (user("hi"), vec!["user hi", "request 2"]),
                    (calls(&["c1"]), vec!["run c1"]),
                    (answers(&["c1"], CallEnd::Error), vec!["done completed"]),
                ],
            ),
            &|r| r.auto_submit_errors = false,
        ),
        with(
            row(
                "max_turns round-trips end the turn",
                vec![
                    (user("hi"), vec!["user hi", "request 2"]),
                    (calls(&["c1"]), vec!["run c1"]),
                    (ok(&["c1"]), vec!["done max turns 1"]),
                ],
            ),
            &|r| r.max_turns = 1,
        ),
        with(
            row(
                "no round-trips allowed: nothing is sent",
                vec![(user("hi"), vec!["user hi", "done max turns 0"])],
            ),
            &|r| r.max_turns = 0,
        ),
        row(
            "a reply cut at the token limit",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (
                    finished(AssistantMessage {
                        content: "cut".into(),
                        finish_reason: Some("length".into()),
                        ..AssistantMessage::default()
                    }),
                    vec!["done length limit"],
                ),
            ],
        ),
        row(
            "Cancel in the modal ends the turn",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (calls(&["c1"]), vec!["run c1"]),
                (
                    Input::Batch(Answers {
                        results: Vec::new(),
                        had_error: false,
                        ends_turn: Some(TurnEnd::Cancelled),
                    }),
                    vec!["done cancelled"],
                ),
            ],
        ),
        row(
            "a stop while streaming keeps what arrived",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (delta("hel"), vec![]),
                (Input::Stop, vec!["interrupted 'hel'", "done stopped"]),
            ],
        ),
        row(
            "a retry discards what the failed attempt streamed",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (delta("abc"), vec![]),
                (
                    Input::Stream(StreamEvent::Retrying(crate::provider::Retry {
                        retry: 1,
                        max_retries: 3,
                        delay: std::time::Duration::from_millis(10),
                        error: ProviderError::Dropped("reset".into()),
                    })),
                    vec!["retrying"],
                ),
                (
                    Input::Stream(StreamEvent::Notice("moved".into())),
                    vec!["info"],
                ),
                (delta("xy"), vec![]),
                (Input::Stop, vec!["interrupted 'xy'", "done stopped"]),
            ],
        ),
        row(
            "a stop during a batch ends the turn with its results",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (calls(&["c1"]), vec!["run c1"]),
                (Input::Stop, vec![]),
                (ok(&["c1"]), vec!["done stopped"]),
            ],
        ),
        row(
            "a stream that ends without its reply fails the turn",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (
                    Input::StreamEnded,
                    vec![
                        "done failed: the stream stopped before the reply was complete (the stream ended unexpectedly)",
                    ],
                ),
            ],
        ),
        row(
            "an overflow saying nothing: the retry is smaller (fewer tools); then nothing is",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (
                    overflow(None),
                    vec!["info", "info", "dropped run_command", "request 2"],
                ),
                (overflow(None), vec!["info", "done failed: does not fit"]),
            ],
        ),
        Row {
            history: rounds_history(4, 4_000),
            window: 200_000,
            ..row(
                "overflows are retried at most three times, each smaller",
                vec![
                    (user("hi"), vec!["user hi", "request 14"]),
                    (
                        overflow(Some(12_000)),
                        vec!["window learned", "info", "pruned 1", "request 14"],
                    ),
                    (
                        overflow(Some(10_000)),
                        vec!["window learned", "info", "request 14"],
                    ),
                    (
                        overflow(Some(9_000)),
                        vec!["window learned", "info", "request 14"],
                    ),
                    (overflow(Some(8_000)), vec!["done failed: does not fit"]),
                ],
            )
        },
        Row {
            history: long_history(),
            window: 200_000,
            ..row(
                "an overflow learns the server's smaller window, compacts and retries",
                vec![
                    (user("hi"), vec!["user hi", "request 4"]),
                    (
                        overflow(Some(8_192)),
                        vec!["window learned", "info", "summarise"],
                    ),
                    (
                        Input::Summary(Ok("the summary".into())),
                        vec!["compacted, 1 kept", "request 3"],
                    ),
                    (text("hello"), vec!["done completed"]),
                ],
            )
        },
        row(
            "the same failing call three times in a row stops the turn",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (calls(&["c1"]), vec!["run c1"]),
                (answers(&["c1"], CallEnd::Error), vec!["request 4"]),
                (calls(&["c2"]), vec!["run c2"]),
                (answers(&["c2"], CallEnd::Rejected), vec!["request 6"]),
                (calls(&["c3"]), vec!["run c3"]),
                (
                    answers(&["c3"], CallEnd::Error),
                    vec!["done repeated run_command 3"],
                ),
            ],
        ),
        Row {
            history: vec![system(&"s".repeat(2_000))],
            window: 1_024,
            ..row(
                "a system prompt too big for the window fails before anything is sent",
                vec![(user("hi"), vec!["user hi", "done failed: does not fit"])],
            )
        },
        Row {
            history: rounds_history(4, 4_000),
            window: 8_192,
            ..row(
                "old tool outputs are sent as stand-ins",
                vec![
                    (user("hi"), vec!["user hi", "pruned 1", "request 14"]),
                    (text("hello"), vec!["done completed"]),
                ],
            )
        },
        Row {
            history: long_history(),
            window: 8_192,
            ..row(
                "pruning is not enough: the older part is summarised first",
                vec![
                    (user("hi"), vec!["user hi", "info", "summarise"]),
                    (
                        Input::Summary(Ok("the summary".into())),
                        vec!["compacted, 1 kept", "request 3"],
                    ),
                    (text("hello"), vec!["done completed"]),
                ],
            )
        },
        Row {
            history: long_history(),
            window: 8_192,
            ..row(
                "a stop while summarising ends the turn",
                vec![
                    (user("hi"), vec!["user hi", "info", "summarise"]),
                    (Input::Stop, vec!["done stopped"]),
                ],
            )
        },
        Row {
            history: long_history(),
            window: 8_192,
            ..row(
                "a failed summary fails the turn",
                vec![
                    (user("hi"), vec!["user hi", "info", "summarise"]),
                    (
                        Input::Summary(Err(ProviderError::Dropped("gone".into()))),
                        vec![
                            "done failed: the stream stopped before the reply was complete (gone)",
                        ],
                    ),
                ],
            )
        },
        row(
            "a queued message joins the request after the batch's results",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (calls(&["c1"]), vec!["run c1"]),
                (Input::Queued("also this".into()), vec![]),
                (ok(&["c1"]), vec!["user also this", "request 5"]),
                (text("done"), vec!["done completed"]),
            ],
        ),
        row(
            "messages queued before the turn's message follow it in its first request, in order",
            vec![
                (Input::Queued("one".into()), vec![]),
                (Input::Queued("two".into()), vec![]),
                (
                    user("hi"),
                    vec!["user hi", "user one", "user two", "request 4"],
                ),
                (text("done"), vec!["done completed"]),
            ],
        ),
        row(
            "two queued messages join the request after the batch's results, in order",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (calls(&["c1"]), vec!["run c1"]),
                (Input::Queued("one".into()), vec![]),
                (Input::Queued("two".into()), vec![]),
                (ok(&["c1"]), vec!["user one", "user two", "request 6"]),
                (text("done"), vec!["done completed"]),
            ],
        ),
        row(
            "a queued message comes back when the turn ends first",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (Input::Queued("later".into()), vec![]),
                (text("done"), vec!["done completed, queued later"]),
            ],
        ),
        row(
            "a queued message comes back with a stop",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (calls(&["c1"]), vec!["run c1"]),
                (Input::Queued("later".into()), vec![]),
                (Input::Stop, vec![]),
                (ok(&["c1"]), vec!["done stopped, queued later"]),
            ],
        ),
        row(
            "mentioned tools are announced and their prompts go first",
            vec![
                (
                    Input::User(UserMessage {
                        text: "use @{memory}".into(),
                        sent: "use memory".into(),
                        tools_added: vec!["memory".into()],
                        prompts: vec!["memory's prompt".into()],
                        ..UserMessage::default()
                    }),
                    vec!["added memory", "user use @{memory}", "request 3"],
                ),
                (text("ok"), vec!["done completed"]),
            ],
        ),
        row(
            "a repeated call id is renamed before anyone sees it",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (calls(&["x", "x"]), vec!["run x,call_0"]),
                (ok(&["x", "call_0"]), vec!["request 5"]),
                (text("done"), vec!["done completed"]),
            ],
        ),
        row(
            "answers to nothing asked are ignored, and nothing follows the end",
            vec![
                (user("hi"), vec!["user hi", "request 2"]),
                (ok(&["c1"]), vec![]),
                (Input::Summary(Ok("x".into())), vec![]),
                (text("done"), vec!["done completed"]),
                (text("again"), vec![]),
                (Input::Stop, vec![]),
            ],
        ),
    ];
    for row in rows {
        run_row(row);
    }
}

#[test]
fn the_history_keeps_every_call_answered_in_order_and_a_stopped_reply_s_text() {
    let mut turn = turn_on(vec![system("sys")], 32_768, rules());
    turn.step(user("hi"));
    turn.step(calls(&["c1", "c2"]));
    // The batch answers c2 only, and something no call asked for.
    turn.step(Input::Batch(Answers {
        results: vec![
            Answer {
                call_id: "zz".into(),
                end: CallEnd::Success,
                content: "stray".into(),
            },
            Answer {
                call_id: "c2".into(),
                end: CallEnd::Success,
                content: "two".into(),
            },
        ],
        had_error: false,
        ends_turn: None,
    }));
    turn.step(delta("par"));
    turn.step(delta("tial"));
    turn.step(Input::Stop);
    let tools: Vec<(&str, &str)> = turn
        .chat()
        .messages
        .iter()
        .filter_map(|m| match m {
            ChatMessage::Tool {
                tool_call_id,
                content,
            } => Some((tool_call_id.as_str(), content.as_str())),
            _ => None,
        })
        .collect();
    let stand_in = crate::tools::lifecycle::orchestrator::no_output_text("run_command");
    assert_eq!(tools, [("c1", stand_in.as_str()), ("c2", "two")]);
    assert!(matches!(
        turn.chat().messages.last(),
        Some(ChatMessage::Assistant { content, tool_calls, .. }) if content == "partial" && tool_calls.is_empty()
    ));
}

#[test]
fn usage_is_counted_and_the_request_names_no_model() {
    let mut turn = turn_on(vec![system("sys")], 32_768, rules());
    let fx = turn.step(user("hi"));
    let request = fx
        .iter()
        .find_map(|e| match e {
            Effect::Request(r) => Some(r.clone()),
            _ => None,
        })
        .expect("a request");
    assert_eq!(request.model, "");
    assert_eq!(request.tools, [tool()]);
    let sent = turn.chat().window.last_sent_chars;
    assert!(sent > 0);
    let fx = turn.step(finished(AssistantMessage {
        content: "hello".into(),
        usage: Some(Usage {
            prompt_tokens: Some(sent as u64 / 4),
            completion_tokens: Some(3),
            total_tokens: None,
        }),
        ..AssistantMessage::default()
    }));
    let context = fx.iter().find_map(|e| match e {
        Effect::Emit(Event::Context {
            used, estimated, ..
        }) => Some((*used, *estimated)),
        _ => None,
    });
    assert_eq!(context, Some((sent as u64 / 4 + 3, false)));
    assert_eq!(turn.chat().window.ratio, 4.0);
    // The gauge, then the reply, then the end.
    let kinds: Vec<&str> = fx
        .iter()
        .map(|e| match e {
            Effect::Emit(Event::Context { .. }) => "context",
            Effect::Emit(Event::ReplyDone(_)) => "reply",
            Effect::Emit(Event::TurnEnded(_)) => "ended",
            Effect::Finish(_) => "finish",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["context", "reply", "ended", "finish"]);
}

#[test]
fn what_does_not_fit_says_what_to_do_and_offers_clear_only_interactively() {
    let error = |interaction| {
        let mut rules = rules();
        rules.interaction = interaction;
        let mut turn = turn_on(vec![system("sys")], 2_048, rules);
        let fx = turn.step(user(&"m".repeat(9_000)));
        fx.iter()
            .find_map(|e| match e {
                Effect::Finish(Finished {
                    end: TurnEnd::Failed(e),
                    ..
                }) => Some(e.to_string()),
                _ => None,
            })
            .unwrap_or_default()
    };
    let interactive = error(Interaction::Interactive);
    assert!(
        interactive.contains("shorten the message or start a new chat (/clear)"),
        "{interactive}"
    );
    let headless = error(Interaction::Headless);
    assert!(headless.contains("shorten the message"), "{headless}");
    assert!(!headless.contains("/clear"), "{headless}");
}

#[test]
fn a_window_nearly_full_is_told_once() {
    let warnings = |fx: &[Effect]| {
        fx.iter()
            .filter(|e| {
                matches!(
                    e,
                    Effect::Emit(Event::Notice(crate::events::Notice::WindowFull { .. }))
                )
            })
            .count()
    };
    let mut turn = turn_on(vec![system("sys")], 32_768, rules());
    turn.step(user("hi"));
    let sent = turn.chat().window.last_sent_chars as u64;
    let reply = |prompt: u64| {
        finished(AssistantMessage {
            tool_calls: vec![call("c", r#"{"cmd":"make"}"#)],
            usage: Some(Usage {
                prompt_tokens: Some(prompt),
                completion_tokens: Some(0),
                total_tokens: None,
            }),
            ..AssistantMessage::default()
        })
    };
    // A plausible count of 80 % of the window.
    assert_eq!(warnings(&turn.step(reply(sent.max(26_000)))), 1);
    turn.step(ok(&["c"]));
    assert_eq!(warnings(&turn.step(reply(sent.max(27_000)))), 0);
}

#[test]
fn a_server_count_over_the_estimate_recalibrates_and_the_retry_fits_under_it() {
    // A ratio calibrated too high (8 characters a token, as on a constant usage): the
    // history goes out whole, and the server counts it at 1.5 characters a token.
    let mut turn = turn_on(rounds_history(4, 4_000), 9_000, rules());
    let mut chat = turn.chat().clone();
    chat.window.ratio = 8.0;
    turn = Turn::new(Setup {
        chat,
        tools: vec![tool()],
        system: "sys".into(),
        rules: rules(),
    });
    let first = request_of(&turn.step(user("hi"))).expect("a request");
    let failed = chars_of(&first);
    let counted = (failed as f64 / 1.5) as u64;
    assert!(counted > 9_000, "over the window by the server's count");
    let fx = turn.step(counted_overflow(Some(9_000), Some(counted)));
    assert!(
        fx.iter().any(|e| matches!(
            e,
            Effect::Emit(Event::Notice(crate::events::Notice::OverflowRetry {
                counted: Some(c),
                window: 9_000,
                attempt: 1,
                ..
            })) if *c == counted
        )),
        "{fx:?}"
    );
    let retry = request_of(&fx).expect("a retry");
    let w = &turn.chat().window;
    assert!(
        (w.ratio - failed as f64 / counted as f64).abs() < 1e-9,
        "{}",
        w.ratio
    );
    assert!(chars_of(&retry) < failed, "strictly smaller");
    // By the server's own count (its ratio), with the reply's reserve and the margin.
    let by_server = (chars_of(&retry) as f64 * counted as f64 / failed as f64).ceil() as u64;
    assert!(by_server <= w.budget().input(), "{by_server}");
    assert!(by_server + w.budget().margin() < 9_000);
    assert_eq!(words(&turn.step(text("done"))), ["done completed"]);
}

#[test]
fn a_constant_usage_is_distrusted_and_its_calibration_undone() {
    let mut turn = turn_on(vec![system(&"s".repeat(5_000))], 32_768, rules());
    turn.step(user("hi"));
    let sent = turn.chat().window.last_sent_chars as u64;
    // The same prompt count whatever is sent: first it looks like 7.9 characters a token.
    let constant = sent * 10 / 79;
    let reply = |id: &str| {
        finished(AssistantMessage {
            tool_calls: vec![call(id, r#"{"cmd":"make"}"#)],
            usage: Some(Usage {
                prompt_tokens: Some(constant),
                completion_tokens: Some(1),
                total_tokens: None,
            }),
            ..AssistantMessage::default()
        })
    };
    turn.step(reply("c1"));
    assert!(turn.chat().window.ratio > 7.0);
    let big = Input::Batch(Answers {
        results: vec![Answer {
            call_id: "c1".into(),
            end: CallEnd::Success,
            content: "o".repeat(20_000),
        }],
        had_error: false,
        ends_turn: None,
    });
    turn.step(big);
    let fx = turn.step(reply("c2"));
    let w = &turn.chat().window;
    assert_eq!(
        w.ratio,
        crate::agent::context::DEFAULT_RATIO,
        "back to before it"
    );
    assert!(w.usage_distrusted);
    assert!(fx.iter().any(|e| matches!(
        e,
        Effect::Emit(Event::Context {
            estimated: true,
            ..
        })
    )));
    // Never calibrated again by it, even on a request it could be a count of.
    turn.step(ok(&["c2"]));
    assert_eq!(
        turn.chat().window.ratio,
        crate::agent::context::DEFAULT_RATIO
    );
}

#[test]
fn when_even_the_system_prompt_cannot_fit_the_end_names_both_sizes() {
    let mut turn = turn_on(vec![system(&"s".repeat(2_000))], 32_768, rules());
    let first = request_of(&turn.step(user("hi"))).expect("a request");
    let counted = chars_of(&first) as u64 / 2;
    let fx = turn.step(counted_overflow(Some(512), Some(counted)));
    assert_eq!(
        words(&fx),
        ["window learned", "info", "done failed: does not fit"]
    );
    let message = fx
        .iter()
        .find_map(|e| match e {
            Effect::Finish(Finished {
                end: TurnEnd::Failed(e),
                ..
            }) => Some(e.to_string()),
            _ => None,
        })
        .unwrap_or_default();
    assert!(
        message.contains("the system prompt alone is about 1004 tokens, more than the model's context window of 512 tokens can take with room for a reply (at most 128 tokens for the request)"),
        "{message}"
    );
    assert!(!message.contains("shorten the message"), "{message}");
}

#[test]
fn a_last_output_too_large_for_the_window_is_sent_cut_not_refused() {
    let mut turn = turn_on(vec![system("sys")], 9_000, rules());
    turn.step(user("hi"));
    turn.step(calls(&["c1"]));
    let fx = turn.step(Input::Batch(Answers {
        results: vec![Answer {
            call_id: "c1".into(),
            end: CallEnd::Success,
            content: "o".repeat(40_000),
        }],
        had_error: false,
        ends_turn: None,
    }));
    assert_eq!(words(&fx), ["info", "request 4"]);
    let sent = request_of(&fx).expect("a request");
    let w = &turn.chat().window;
    assert!(w.estimate(&sent.messages, &sent.tools) <= w.budget().input());
    assert!(matches!(
        &sent.messages[3],
        ChatMessage::Tool { content, .. } if content.starts_with("ooo") && content.ends_with("ask for a smaller part]")
    ));
    // The history keeps the whole output.
    assert!(matches!(
        &turn.chat().messages[3],
        ChatMessage::Tool { content, .. } if content.len() == 40_000
    ));
}
