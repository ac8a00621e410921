//! The turn's promises over random event orders: random histories (earlier rounds with big
//! outputs, a long earlier message), windows, loop settings, stream events (deltas, retries,
//! replies with calls — ids repeated or missing —, overflow errors, a stream cut short),
//! summaries that come or fail, batches that answer (sometimes leaving a call out or adding a
//! stray answer, sometimes cancelled), queued messages and stops at any point.
//!
//! - Every request sent, and the history at the end, answers every call id of a reply with
//!   exactly one tool message, right after it, in call order; no call id is given out twice.
//! - No request is sent whose estimate (at the window and ratio of that moment) is over the
//!   input budget, and no more requests than `max_turns`.
//! - A retry after an overflow error (with or without the server's window and count) is
//!   strictly smaller than the request refused — so consecutive retries strictly shrink —
//!   and there are at most [`MAX_OVERFLOW_RETRIES`] of them.
//! - After a stop nothing is asked for; the turn ends at once, or with the running batch's
//!   results.
//! - Each queued message is delivered exactly once and in order: typed into the steer queue
//!   at any point (for the next request or for the turn's end), taken as the driver takes
//!   them (when a batch's results come), it is a user message in the history, or back in the
//!   queue when the turn ends (a stop loses none); the delivered ones, then what is left in
//!   the queue, are exactly what was typed, in the order typed.
//! - The turn ends exactly once, `TurnEnded` right before `Finish`, and answers nothing after.

use std::collections::HashSet;

use proptest::prelude::*;

use super::tests::{call, rules, system, turn_on, user};
use super::*;
use crate::provider::{AssistantMessage, StreamDelta, Usage};

/// The choices the world makes, read in order (and again from the start when used up).
struct Choices<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Choices<'_> {
    fn below(&mut self, n: usize) -> usize {
        let b = self.bytes[self.at % self.bytes.len()];
        self.at += 1;
        usize::from(b) % n.max(1)
    }
}

#[derive(Debug, Clone)]
struct Case {
    window: u64,
    rounds: usize,
    output: usize,
    long_message: usize,
    max_turns: u32,
    auto_success: bool,
    auto_errors: bool,
    headless: bool,
    choices: Vec<u8>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::sample::select(vec![2_048u64, 4_096, 8_192, 16_384, 131_072]),
        0..5usize,
        0..8_000usize,
        prop::sample::select(vec![0usize, 3_000, 30_000]),
        0..6u32,
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.8),
        any::<bool>(),
        prop::collection::vec(any::<u8>(), 1..300),
    )
        .prop_map(
            |(window, rounds, output, long_message, max_turns, s, e, headless, choices)| Case {
                window,
                rounds,
                output,
                long_message,
                max_turns,
                auto_success: s,
                auto_errors: e,
                headless,
                choices,
            },
        )
}

fn history(c: &Case) -> Vec<ChatMessage> {
    let mut h = vec![system("sys")];
    if c.long_message > 0 {
        h.push(ChatMessage::User {
            content: "m".repeat(c.long_message),
            images: Vec::new(),
        });
        h.push(ChatMessage::Assistant {
            content: "ok".into(),
            tool_calls: Vec::new(),
            reasoning: None,
        });
    }
    for i in 0..c.rounds {
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
            content: "o".repeat(c.output),
        });
    }
    h
}

/// Every assistant message's calls are answered right after it, once each, in call order,
/// and every tool message belongs to such a call.
fn answered(messages: &[ChatMessage]) -> Result<(), String> {
    let mut i = 0;
    while i < messages.len() {
        match &messages[i] {
            ChatMessage::Assistant { tool_calls, .. } => {
                for (k, c) in tool_calls.iter().enumerate() {
                    match messages.get(i + 1 + k) {
                        Some(ChatMessage::Tool { tool_call_id, .. }) if *tool_call_id == c.id => {}
                        other => return Err(format!("call {} answered by {other:?}", c.id)),
                    }
                }
                i += 1 + tool_calls.len();
            }
            ChatMessage::Tool { tool_call_id, .. } => {
                return Err(format!("tool message {tool_call_id} answers no call"));
            }
            _ => i += 1,
        }
    }
    Ok(())
}

/// What the world is asked for.
#[derive(Debug, Clone, PartialEq)]
enum Asked {
    Stream,
    Summary,
    Batch(Vec<ToolCall>),
}

const IDS: [&str; 4] = ["a", "b", "call_0", ""];
const ARGS: [&str; 2] = [r#"{"cmd":"make"}"#, r#"{"cmd":"ls"}"#];

fn reply(ch: &mut Choices) -> AssistantMessage {
    let n = ch.below(4);
    AssistantMessage {
        content: "x".repeat(ch.below(3) * 50),
        tool_calls: (0..n)
            .map(|_| call(IDS[ch.below(IDS.len())], ARGS[ch.below(ARGS.len())]))
            .collect(),
        finish_reason: (ch.below(6) == 0).then(|| "length".into()),
        usage: (ch.below(2) == 0).then(|| Usage {
            prompt_tokens: Some(ch.below(4_000) as u64),
            completion_tokens: Some(7),
            total_tokens: None,
        }),
        ..AssistantMessage::default()
    }
}

fn stream_input(ch: &mut Choices, window: u64, last_chars: usize) -> Input {
    match ch.below(20) {
        0..=4 => Input::Stream(StreamEvent::Delta(StreamDelta::Text("tok".into()))),
        5 => Input::Stream(StreamEvent::Retrying(crate::provider::Retry {
            retry: 1,
            max_retries: 3,
            delay: std::time::Duration::ZERO,
            error: ProviderError::Dropped("reset".into()),
        })),
        6 => Input::Stream(StreamEvent::Notice("note".into())),
        7 => Input::StreamEnded,
        8 | 9 => Input::Stream(StreamEvent::Finished(Err(ProviderError::ContextOverflow {
            message: "too long".into(),
            window: [None, Some(window / 2), Some(window * 2)][ch.below(3)],
            // The server's count: none, or denser than any estimate so far.
            prompt: [
                None,
                Some(last_chars as u64 / 2 + 1),
                Some(last_chars as u64 / 4 + 1),
            ][ch.below(3)],
        }))),
        10 => Input::Stream(StreamEvent::Finished(Err(ProviderError::Dropped(
            "gone".into(),
        )))),
        _ => Input::Stream(StreamEvent::Finished(Ok(reply(ch)))),
    }
}

fn batch_input(ch: &mut Choices, calls: &[ToolCall]) -> Input {
    let ends = [CallEnd::Success, CallEnd::Error, CallEnd::Rejected];
    let mut results: Vec<Answer> = calls
        .iter()
        .map(|c| Answer {
            call_id: c.id.clone(),
            end: ends[ch.below(ends.len())],
            content: format!("result of {}", c.id),
        })
        .collect();
    match ch.below(8) {
        0 if !results.is_empty() => {
            let i = ch.below(results.len());
            results.remove(i);
        }
        1 => results.push(Answer {
            call_id: "stray".into(),
            end: CallEnd::Success,
            content: "stray".into(),
        }),
        _ => {}
    }
    let had_error = results.iter().any(|r| r.end == CallEnd::Error);
    Input::Batch(Answers {
        results,
        had_error,
        ends_turn: (ch.below(8) == 0).then_some(TurnEnd::Cancelled),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn every_call_answered_nothing_over_the_window_stops_end_queued_delivered_once(c in case()) {
        let mut turn = turn_on(history(&c), c.window, Rules {
            max_turns: c.max_turns,
            auto_submit_success: c.auto_success,
            auto_submit_errors: c.auto_errors,
            interaction: if c.headless { Interaction::Headless } else { rules().interaction },
            text_tool_calls: true,
        });
        let mut ch = Choices { bytes: &c.choices, at: 0 };
        let mut ids: HashSet<String> = HashSet::new();
        let steer = crate::agent::steer::Steer::default();
        let mut typed: Vec<String> = Vec::new();
        let mut delivered: Vec<String> = Vec::new();
        let mut stopped = false;
        let mut requests = 0u32;
        let mut asked: Option<Asked> = None;
        // A batch was asked for and its answers not given yet.
        let mut batch_pending = false;
        let mut finished: Option<Finished> = None;
        let mut input = user("hi");
        // The characters of the last request, the one the server refused (until its retry),
        // and the retries so far.
        let mut last_chars = 0usize;
        let mut refused: Option<usize> = None;
        let mut retries = 0u32;
        for step in 0..400 {
            let was_stop = input == Input::Stop;
            if matches!(
                input,
                Input::Stream(StreamEvent::Finished(Err(ProviderError::ContextOverflow { .. })))
            ) {
                refused = Some(last_chars);
            }
            if matches!(input, Input::Batch(_)) {
                batch_pending = false;
                // The driver's safe point: what waits for the next request joins the turn.
                for q in steer.for_request() {
                    prop_assert!(turn.step(Input::Queued(q)).is_empty());
                }
            }
            let fx = turn.step(input);
            let mut asks = 0;
            for (i, e) in fx.iter().enumerate() {
                match e {
                    Effect::Emit(Event::UserMessage { text, .. }) if text != "hi" => {
                        delivered.push(text.clone());
                    }
                    Effect::Request(r) => {
                        let w = &turn.chat().window;
                        let estimate = w.estimate(&r.messages, &r.tools);
                        prop_assert!(estimate <= w.budget().last_resort_input(),
                            "sent ~{estimate} tokens in a window of {}", w.tokens);
                        prop_assert_eq!(answered(&r.messages), Ok(()));
                        let chars = crate::agent::context::request_chars(&r.messages, &r.tools);
                        if let Some(refused) = refused.take() {
                            retries += 1;
                            prop_assert!(chars < refused,
                                "a retry of {chars} characters after {refused} were refused");
                            prop_assert!(retries <= MAX_OVERFLOW_RETRIES, "{retries} retries");
                        }
                        last_chars = chars;
                        requests += 1;
                        asked = Some(Asked::Stream);
                        asks += 1;
                    }
                    Effect::Summarise(_) => {
                        asked = Some(Asked::Summary);
                        asks += 1;
                    }
                    Effect::RunBatch(calls) => {
                        for call in calls {
                            prop_assert!(!call.id.is_empty());
                            prop_assert!(ids.insert(call.id.clone()), "{} given out twice", call.id);
                            prop_assert!(!call.id.starts_with("old"));
                        }
                        asked = Some(Asked::Batch(calls.clone()));
                        batch_pending = true;
                        asks += 1;
                    }
                    Effect::Finish(f) => {
                        prop_assert!(finished.is_none(), "finished twice");
                        prop_assert_eq!(i, fx.len() - 1, "effects after Finish");
                        prop_assert_eq!(&fx[i - 1], &Effect::Emit(Event::TurnEnded(f.end.clone())));
                        finished = Some(f.clone());
                        steer.give_back(f.queued.clone());
                    }
                    Effect::Emit(Event::TurnEnded(_)) => {
                        prop_assert!(matches!(fx.get(i + 1), Some(Effect::Finish(_))));
                    }
                    Effect::Emit(_) | Effect::WindowLearned | Effect::ToolsDropped(_) => {}
                }
            }
            prop_assert!(asks <= 1, "more than one question in a step: {fx:?}");
            if stopped || was_stop {
                prop_assert_eq!(asks, 0, "asked for something after a stop");
                prop_assert!(turn.is_done() || batch_pending, "a stop did not end the turn");
            }
            stopped |= was_stop;
            if let Some(f) = &finished {
                prop_assert!(turn.is_done());
                if stopped {
                    prop_assert!(matches!(f.end, TurnEnd::Stopped | TurnEnd::Cancelled), "{:?}", f.end);
                }
                break;
            }
            // The world's next move: a queued message or a stop at any point, else the answer
            // to what was asked; after a while, only answers that end a stream.
            if step > 200 {
                input = match &asked {
                    Some(Asked::Batch(calls)) => batch_input(&mut ch, calls),
                    Some(Asked::Summary) => Input::Summary(Ok("the summary".into())),
                    _ => Input::Stream(StreamEvent::Finished(Ok(AssistantMessage::default()))),
                };
                continue;
            }
            // A message typed meanwhile (Enter, or Alt+Enter: for the turn's end).
            if ch.below(4) == 0 {
                let q = format!("q{}", typed.len());
                let when = match ch.below(3) {
                    0 => crate::agent::steer::Delivery::TurnEnd,
                    _ => crate::agent::steer::Delivery::NextRequest,
                };
                steer.push(&q, when);
                typed.push(q);
            }
            input = match ch.below(24) {
                1 if !stopped => Input::Stop,
                _ => match &asked {
                    _ if stopped => match &asked {
                        Some(Asked::Batch(calls)) => batch_input(&mut ch, calls),
                        _ => Input::Stop,
                    },
                    Some(Asked::Stream) => {
                        stream_input(&mut ch, turn.chat().window.tokens, last_chars)
                    }
                    Some(Asked::Summary) => match ch.below(5) {
                        0 => Input::Summary(Err(ProviderError::Dropped("no".into()))),
                        _ => Input::Summary(Ok("the summary".into())),
                    },
                    Some(Asked::Batch(calls)) => batch_input(&mut ch, calls),
                    None => Input::Stop,
                },
            };
        }
        let Some(f) = finished else {
            return Err(TestCaseError::fail("the turn did not finish"));
        };
        prop_assert!(requests <= c.max_turns, "{requests} requests, max_turns {}", c.max_turns);
        prop_assert_eq!(answered(&turn.chat().messages), Ok(()));
        let mut all = delivered.clone();
        all.extend(steer.take_all());
        prop_assert_eq!(&all, &typed, "delivered {:?}, handed back {:?}", delivered, f.queued);
        for q in &delivered {
            let in_history = turn.chat().messages.iter()
                .filter(|m| matches!(m, ChatMessage::User { content, .. } if content == q))
                .count();
            // A compaction may have summarised it away, never doubled it.
            prop_assert!(in_history <= 1);
        }
        prop_assert!(turn.step(Input::Stop).is_empty());
        prop_assert!(turn.step(Input::Queued("late".into())).is_empty());
    }
}
