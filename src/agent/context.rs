//! Staying inside the model's context window, cheapest first (research:
//! `../shared/reference/context-windows.md` §5). Pure functions: no IO, no async.
//!
//! - **Budget.** Of the window, a reserve is kept for the reply (20 % of the window, between
//!   512 and 16,384 tokens) and a margin (3 %, at least 256): the rest is the input budget.
//! - **Estimate.** The server's `usage` is the truth when it can be true ([`plausible_prompt`]:
//!   no tokenizer packs more than [`MAX_CHARS_PER_TOKEN`] characters in a token, and a prompt
//!   that grew grows in tokens too — a scripted or broken server reports 42 whatever it is
//!   sent); before a request, and after one whose usage is missing or implausible, its size is
//!   estimated from its characters at a ratio calibrated on the last plausible usage
//!   (`prompt_tokens` against the characters sent), starting at 3 characters a token — on the
//!   safe side for code and for most tokenizers. Documented in the README as approximate (`~`).
//! - **Prune** at 60 % of the window: tool outputs older than the last [`KEEP_ROUNDS`] tool
//!   rounds are replaced, in the request only, by a stand-in that keeps the call id, the tool
//!   and what it was called with (`[output of run_command `cargo test` elided …]`). The
//!   transcript and the session keep everything.
//! - **Compact** at 80 % of the window (or when pruning is not enough): see
//!   [`super::compaction`]. On small windows both come earlier — at 75 % and 95 % of the input
//!   budget — so the reply keeps its reserve.
//!
//! Every call in a request keeps its tool result: pruning replaces contents, never removes a
//! message.

use crate::provider::{ChatMessage, ToolSpec};

/// Tool rounds (a reply's calls and their results) whose outputs are kept verbatim: the last
/// three, whichever turn they belong to — a long turn of its own prunes its early rounds.
pub const KEEP_ROUNDS: usize = 3;
/// The characters-per-token ratio before any `usage` was seen.
pub const DEFAULT_RATIO: f64 = 3.0;
/// More characters a token than any tokenizer manages (English prose is about 4, code 3):
/// a server counting fewer tokens than `chars / 8` is not counting this request.
pub const MAX_CHARS_PER_TOKEN: f64 = 8.0;
/// Fewer characters a token than any tokenizer gives a whole request (a byte-level vocabulary
/// with its chat template comes near 1): a ratio under it calibrates nothing.
pub const MIN_CHARS_PER_TOKEN: f64 = 0.5;
/// Characters a prompt may grow by with no more tokens counted (a chat template's slack).
const GROWTH_SLACK: usize = 256;
/// Pruning starts at this share of the window…
pub const PRUNE_AT: f64 = 0.60;
/// …and compaction at this one (both capped by the input budget, see [`Budget::prune_at`]).
pub const COMPACT_AT: f64 = 0.80;

/// The share of a window a request may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub window: u64,
}

impl Budget {
    /// Tokens kept free for the reply.
    pub fn reserve(&self) -> u64 {
        (self.window / 5).clamp(512, 16_384).min(self.window / 2)
    }

    /// Tokens kept free for estimation errors.
    pub fn margin(&self) -> u64 {
        (self.window * 3 / 100).max(256).min(self.window / 4)
    }

    /// Tokens the request itself may use.
    pub fn input(&self) -> u64 {
        self.window
            .saturating_sub(self.reserve())
            .saturating_sub(self.margin())
            .max(1)
    }

    /// The last resort when pruning and compaction leave a request over [`Self::input`]: the
    /// same margin, but only the smallest room for the reply (512 tokens, at most half the
    /// window). A turn whose own rounds grew past the input budget is sent with less room for
    /// the reply rather than refused.
    pub fn last_resort_input(&self) -> u64 {
        let reserve = 512.min(self.window / 2).min(self.reserve());
        self.window
            .saturating_sub(reserve)
            .saturating_sub(self.margin())
            .max(self.input())
    }

    pub fn prune_at(&self) -> u64 {
        let of_window = (self.window as f64 * PRUNE_AT) as u64;
        of_window.min((self.input() as f64 * 0.75) as u64)
    }

    pub fn compact_at(&self) -> u64 {
        let of_window = (self.window as f64 * COMPACT_AT) as u64;
        of_window.min((self.input() as f64 * 0.95) as u64)
    }
}

/// Characters of a message as the server sees it (content, tool calls, ids).
pub fn message_chars(m: &ChatMessage) -> usize {
    match m {
        ChatMessage::System { content } => content.len() + 8,
        // An image costs the model about a thousand tokens, whatever its bytes.
        ChatMessage::User { content, images } => content.len() + 8 + images.len() * 4000,
        ChatMessage::Assistant {
            content,
            tool_calls,
            ..
        } => {
            content.len()
                + 8
                + tool_calls
                    .iter()
                    .map(|c| c.id.len() + c.name.len() + c.arguments.len() + 24)
                    .sum::<usize>()
        }
        ChatMessage::Tool {
            tool_call_id,
            content,
        } => content.len() + tool_call_id.len() + 12,
    }
}

/// Characters of the tool schemas sent with every request.
pub fn tools_chars(tools: &[ToolSpec]) -> usize {
    tools
        .iter()
        .map(|t| t.name.len() + t.description.len() + t.parameters.to_string().len() + 32)
        .sum()
}

/// Characters of a whole request's messages and tools.
pub fn request_chars(messages: &[ChatMessage], tools: &[ToolSpec]) -> usize {
    messages.iter().map(message_chars).sum::<usize>() + tools_chars(tools)
}

/// Whether a server's `prompt_tokens` can be the count of a request of `chars` characters:
/// at most [`MAX_CHARS_PER_TOKEN`] characters a token, and, against the last plausible count
/// `before` (prompt tokens, characters), a prompt that grew by N characters grew by at least
/// N / 8 tokens (a count stuck at one number while the chat grows is not a count).
pub fn plausible_prompt(prompt: u64, chars: usize, before: Option<(u64, usize)>) -> bool {
    if prompt == 0 || (prompt as f64) * MAX_CHARS_PER_TOKEN < chars as f64 {
        return false;
    }
    match before {
        Some((p0, c0)) if chars > c0 + GROWTH_SLACK => {
            let grown = (chars - c0 - GROWTH_SLACK) as f64;
            (prompt.saturating_sub(p0) as f64) * MAX_CHARS_PER_TOKEN >= grown
        }
        _ => true,
    }
}

/// Tokens for `chars` characters at `ratio` characters per token, rounded up.
pub fn tokens(chars: usize, ratio: f64) -> u64 {
    (chars as f64 / ratio.max(0.5)).ceil() as u64
}

/// What pruning did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Tool outputs replaced by stand-ins.
    pub outputs: usize,
    /// Characters they held.
    pub chars: usize,
}

/// The stand-in for a pruned tool output.
pub fn stand_in(name: &str, what: &str, content: &str) -> String {
    let lines = content.lines().count();
    let what = if what.is_empty() {
        String::new()
    } else {
        format!(" `{what}`")
    };
    format!(
        "[output of {name}{what} elided to save context: {lines} lines, {} characters; run it again if you need it]",
        content.len()
    )
}

/// What a call was asked to do, short: the `cmd`/`filepath`/`query` argument, or the first
/// 60 characters of the arguments.
fn call_summary(arguments: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(arguments).unwrap_or_default();
    for key in ["cmd", "filepath", "query", "path", "url"] {
        if let Some(s) = v.get(key).and_then(|x| x.as_str()) {
            return crate::text_cut::head_chars(s, 80).to_owned();
        }
    }
    crate::text_cut::head_chars(arguments, 60).to_owned()
}

/// Where the last `keep_rounds` tool rounds start: the index of the `keep_rounds`-th last
/// assistant message with tool calls (0 when there are fewer).
pub fn round_start(messages: &[ChatMessage], keep_rounds: usize) -> usize {
    if keep_rounds == 0 {
        return messages.len();
    }
    messages
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, m)| matches!(m, ChatMessage::Assistant { tool_calls, .. } if !tool_calls.is_empty()))
        .nth(keep_rounds - 1)
        .map_or(0, |(i, _)| i)
}

/// The stand-ins for old tool outputs, kept between requests: the history only grows between
/// compactions, so each output's stand-in is worked out once. Checked against the history it
/// is used with, and worked out again when that was replaced.
#[derive(Debug, Clone, Default)]
pub struct StandIns {
    /// Outputs before this index are covered.
    upto: usize,
    /// `(index, call id, stand-in)` for each output a stand-in would shorten, in order.
    list: Vec<(usize, String, String)>,
    /// The assistant messages' calls seen so far: call id → (tool, arguments).
    calls: std::collections::HashMap<String, (String, String)>,
}

impl StandIns {
    /// Covers the outputs before `before` (starting over if `messages` is not the history
    /// this was built on).
    fn cover(&mut self, messages: &[ChatMessage], before: usize) {
        let before = before.min(messages.len());
        let same = self.upto <= messages.len()
            && self.list.last().is_none_or(|(i, id, _)| {
                matches!(&messages[*i], ChatMessage::Tool { tool_call_id, .. } if tool_call_id == id)
            });
        if !same {
            *self = Self::default();
        }
        for (i, m) in messages.iter().enumerate().take(before).skip(self.upto) {
            match m {
                ChatMessage::Assistant { tool_calls, .. } => {
                    for c in tool_calls {
                        self.calls
                            .insert(c.id.clone(), (c.name.clone(), c.arguments.clone()));
                    }
                }
                ChatMessage::Tool {
                    tool_call_id,
                    content,
                } => {
                    let (name, args) = self
                        .calls
                        .get(tool_call_id)
                        .map_or(("a tool", ""), |(n, a)| (n.as_str(), a.as_str()));
                    let replacement = stand_in(name, &call_summary(args), content);
                    if replacement.len() < content.len() {
                        self.list.push((i, tool_call_id.clone(), replacement));
                    }
                }
                _ => {}
            }
        }
        self.upto = self.upto.max(before);
    }

    /// The stand-ins for outputs before `before`.
    fn before(&self, before: usize) -> impl Iterator<Item = (usize, &str)> {
        self.list
            .iter()
            .take_while(move |(i, _, _)| *i < before)
            .map(|(i, _, r)| (*i, r.as_str()))
    }
}

/// `messages` with the outputs at the indices of `stand_ins` (in order) replaced by them.
fn with_stand_ins<'a>(
    messages: &[ChatMessage],
    stand_ins: impl IntoIterator<Item = (usize, &'a str)>,
) -> (Vec<ChatMessage>, Pruned) {
    let mut out = Vec::with_capacity(messages.len());
    let mut stats = Pruned::default();
    let mut next = stand_ins.into_iter().peekable();
    for (i, m) in messages.iter().enumerate() {
        match (m, next.peek()) {
            (
                ChatMessage::Tool {
                    tool_call_id,
                    content,
                },
                Some((at, replacement)),
            ) if *at == i => {
                stats.outputs += 1;
                stats.chars += content.len();
                out.push(ChatMessage::Tool {
                    tool_call_id: tool_call_id.clone(),
                    content: (*replacement).to_owned(),
                });
                next.next();
            }
            _ => out.push(m.clone()),
        }
    }
    (out, stats)
}

/// `messages` with the tool outputs before the last `keep_rounds` tool rounds replaced by
/// stand-ins (outputs already shorter than their stand-in are kept).
pub fn prune(messages: &[ChatMessage], keep_rounds: usize) -> (Vec<ChatMessage>, Pruned) {
    let before = round_start(messages, keep_rounds);
    let mut stand_ins = StandIns::default();
    stand_ins.cover(messages, before);
    with_stand_ins(messages, stand_ins.before(before))
}

/// Where the stand-ins of the history a request sends end: the fewest old tool outputs
/// elided — keeping the last [`KEEP_ROUNDS`], then 2, then 1 rounds' outputs — for an
/// estimate (with `tools_chars` of schemas, at `ratio` characters a token) of at most `limit`
/// tokens; `None` when not even that fits. Works out sizes only: nothing is copied. `cache`
/// keeps the stand-ins for the next request.
pub fn plan(
    messages: &[ChatMessage],
    tools_chars: usize,
    ratio: f64,
    limit: u64,
    cache: &mut StandIns,
) -> Option<usize> {
    let whole = messages.iter().map(message_chars).sum::<usize>() + tools_chars;
    cache.cover(messages, round_start(messages, 1));
    let saved = |before: usize| -> usize {
        cache
            .before(before)
            .map(|(i, r)| match &messages[i] {
                ChatMessage::Tool { content, .. } => content.len() - r.len(),
                _ => 0,
            })
            .sum()
    };
    (1..=KEEP_ROUNDS)
        .rev()
        .map(|keep| round_start(messages, keep))
        .find(|before| tokens(whole - saved(*before), ratio) <= limit)
}

/// The history a request sends: [`plan`], then the copy with the stand-ins in place.
pub fn prepare(
    messages: &[ChatMessage],
    tools_chars: usize,
    ratio: f64,
    limit: u64,
    cache: &mut StandIns,
) -> Option<(Vec<ChatMessage>, Pruned)> {
    let before = plan(messages, tools_chars, ratio, limit, cache)?;
    Some(with_stand_ins(messages, cache.before(before)))
}

/// Where the verbatim tail starts for a compaction: the last user message (the turn in
/// progress, with its calls and their results), or the end when there is none.
pub fn tail_start(messages: &[ChatMessage]) -> usize {
    messages
        .iter()
        .rposition(|m| matches!(m, ChatMessage::User { .. }))
        .unwrap_or(messages.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCall;

    fn turn(i: usize, output: &str) -> Vec<ChatMessage> {
        vec![
            ChatMessage::User {
                content: format!("question {i}"),
                images: Vec::new(),
            },
            ChatMessage::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: format!("c{i}"),
                    name: "run_command".into(),
                    arguments: format!("{{\"cmd\":\"cargo test {i}\"}}"),
                }],
                reasoning: None,
            },
            ChatMessage::Tool {
                tool_call_id: format!("c{i}"),
                content: output.into(),
            },
            ChatMessage::Assistant {
                content: format!("answer {i}"),
                tool_calls: vec![],
                reasoning: None,
            },
        ]
    }

    #[test]
    fn old_tool_outputs_become_stand_ins_and_every_call_keeps_a_result() {
        let big = "test a ... ok\n".repeat(200);
        let mut messages = vec![ChatMessage::System {
            content: "sys".into(),
        }];
        for i in 0..4 {
            messages.extend(turn(i, &big));
        }
        let (pruned, stats) = prune(&messages, 2);
        assert_eq!(stats.outputs, 2, "rounds 0 and 1; 2 and 3 are kept");
        assert_eq!(pruned.len(), messages.len());
        let tool = |i: usize| match &pruned[1 + i * 4 + 2] {
            ChatMessage::Tool {
                tool_call_id,
                content,
            } => (tool_call_id.clone(), content.clone()),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            tool(0),
            (
                "c0".into(),
                "[output of run_command `cargo test 0` elided to save context: 200 lines, 2800 characters; run it again if you need it]".into()
            )
        );
        assert_eq!(tool(3).1, big);
        assert!(request_chars(&pruned, &[]) < request_chars(&messages, &[]) * 2 / 3);
    }

    #[test]
    fn budgets_keep_room_for_the_reply() {
        let small = Budget { window: 4096 };
        assert_eq!(small.reserve(), 819);
        assert_eq!(small.margin(), 256);
        assert_eq!(small.input(), 3021);
        assert_eq!(small.last_resort_input(), 3328);
        assert!(small.prune_at() < small.compact_at() && small.compact_at() < small.input());
        let big = Budget { window: 200_000 };
        assert_eq!(big.reserve(), 16_384);
        assert_eq!(big.margin(), 6_000);
        // Large windows: exactly 60 % and 80 % of the window.
        assert_eq!((big.prune_at(), big.compact_at()), (120_000, 160_000));
        assert_eq!(tokens(300, DEFAULT_RATIO), 100);
    }

    #[test]
    fn a_long_turn_prunes_its_own_early_rounds() {
        let big = "line\n".repeat(500);
        let mut messages = vec![ChatMessage::User {
            content: "fix it".into(),
            images: Vec::new(),
        }];
        for i in 0..5 {
            let mut t = turn(i, &big);
            t.remove(0); // one user message, five rounds
            t.pop();
            messages.extend(t);
        }
        assert_eq!(round_start(&messages, 3), 5);
        assert_eq!(round_start(&messages, 9), 0);
        let (pruned, stats) = prune(&messages, KEEP_ROUNDS);
        assert_eq!(stats.outputs, 2);
        assert!(
            matches!(&pruned[2], ChatMessage::Tool { content, .. } if content.starts_with("[output of"))
        );
        assert!(matches!(&pruned[6], ChatMessage::Tool { content, .. } if *content == big));
    }

    #[test]
    fn usage_that_cannot_be_a_count_of_the_request_is_implausible() {
        // A real count: about 3.5 characters a token, growing with the chat.
        assert!(plausible_prompt(2_000, 7_000, None));
        assert!(plausible_prompt(3_000, 10_500, Some((2_000, 7_000))));
        // The demo's scripted 42, whatever it is sent.
        assert!(!plausible_prompt(42, 9_000, None));
        assert!(!plausible_prompt(0, 10, None));
        // A tiny request may count more tokens than characters (the chat template).
        assert!(plausible_prompt(12, 10, None));
        // Stuck at one number while the prompt grew by 10,000 characters.
        assert!(plausible_prompt(5_000, 20_000, None));
        assert!(!plausible_prompt(5_000, 30_000, Some((5_000, 20_000))));
        // Growth within the slack proves nothing either way; a shrunk prompt (pruned) neither.
        assert!(plausible_prompt(5_000, 20_200, Some((5_000, 20_000))));
        assert!(plausible_prompt(3_000, 12_000, Some((5_000, 20_000))));
    }

    #[test]
    fn the_tail_is_the_turn_in_progress() {
        let mut messages = turn(0, "x");
        messages.extend(turn(1, "y"));
        assert_eq!(tail_start(&messages), 4);
        assert_eq!(tail_start(&[]), 0);
    }
}
