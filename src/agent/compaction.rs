//! Compaction: when pruning is not enough (or on `/compact [focus]`), the model summarises the
//! conversation so far with a fixed prompt (`assets/compact_prompt.md`), and the summary
//! replaces the older history. Exactly one extra request.
//!
//! What is summarised is the history before the turn in progress — and, when that turn is long
//! on its own, its early rounds too — written out as text (tool outputs shortened, the oldest
//! parts left out when even that would not fit the window). The new history is the system
//! message, the summary as a user message with a fixed prefix (followed by the request in
//! progress, verbatim, when the turn was split), and the rest verbatim: whole tool rounds, so
//! every tool call in it keeps its result.

use super::context::{
    Budget, KEEP_ROUNDS, StandIns, message_chars, prune, round_start, tail_start, tokens,
};
use super::in_use::{Counted, InUse};
use super::window::WindowState;
use crate::events::Event;
use crate::provider::{ChatMessage, ChatRequest, ToolSpec};

const PROMPT: &str = include_str!("../../assets/compact_prompt.md");

/// Starts the summary message in the new history.
pub const SUMMARY_PREFIX: &str = "Summary of our conversation so far (older messages were compacted to fit the model's context window):";

/// Each tool output is shortened to this in the text to summarise.
const TOOL_OUTPUT_CHARS: usize = 2_000;

fn shorten(s: &str, max: usize) -> String {
    let head = crate::text_cut::head(s, max);
    if head.len() == s.len() {
        return s.to_owned();
    }
    format!("{head}\n[… {} more characters]", s.len() - head.len())
}

/// One message as a paragraph of the text to summarise.
fn render(m: &ChatMessage) -> Option<String> {
    Some(match m {
        ChatMessage::System { .. } => return None,
        ChatMessage::User { content, .. } => format!("USER:\n{content}"),
        ChatMessage::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let mut s = format!("ASSISTANT:\n{content}");
            for c in tool_calls {
                s.push_str(&format!("\n[called {} with {}]", c.name, c.arguments));
            }
            s
        }
        ChatMessage::Tool {
            tool_call_id,
            content,
        } => format!(
            "TOOL RESULT ({tool_call_id}):\n{}",
            shorten(content, TOOL_OUTPUT_CHARS)
        ),
    })
}

/// The request that asks for the summary of `older` (the history before the turn in
/// progress), fitted to `budget` at `ratio` characters per token.
pub fn request(
    model: &str,
    older: &[ChatMessage],
    focus: Option<&str>,
    budget: Budget,
    ratio: f64,
) -> ChatRequest {
    let reply = (budget.window * 15 / 100).clamp(256, 4096);
    let room = budget
        .input()
        .saturating_sub(reply)
        .saturating_sub(tokens(PROMPT.len() + 400, ratio));
    let mut parts: Vec<String> = older.iter().filter_map(render).collect();
    // Oldest first out until it fits.
    let mut dropped = 0;
    while parts.len() > 1 && tokens(parts.iter().map(String::len).sum(), ratio) > room {
        parts.remove(0);
        dropped += 1;
    }
    let mut text = String::new();
    if dropped > 0 {
        text.push_str(&format!(
            "[{dropped} of the oldest messages were left out: they did not fit]\n\n"
        ));
    }
    text.push_str(&parts.join("\n\n"));
    let mut ask = format!("The conversation so far:\n\n{text}\n\nWrite the handoff summary now.");
    if let Some(f) = focus.filter(|f| !f.trim().is_empty()) {
        ask.push_str(&format!(" Pay particular attention to: {}", f.trim()));
    }
    let mut req = ChatRequest::new(
        model,
        vec![
            ChatMessage::System {
                content: PROMPT.trim().to_owned(),
            },
            ChatMessage::user(ask),
        ],
    );
    req.max_tokens = Some(reply as u32);
    req
}

/// Introduces the request in progress when a compaction split the last turn.
pub const REQUEST_MARKER: &str = "The request in progress, verbatim:";

/// The model's summary, with the request in progress after it when the split was inside the
/// last turn (so the model still has the user's own words).
pub fn with_request(summary: &str, request: Option<&str>) -> String {
    match request.map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) => format!("{}\n\n{REQUEST_MARKER}\n{r}", summary.trim()),
        None => summary.trim().to_owned(),
    }
}

/// The user's request in a user message: all of it, or, in a summary message that carries
/// one, the request after [`REQUEST_MARKER`].
pub fn request_in(content: &str) -> &str {
    match content.strip_prefix(SUMMARY_PREFIX) {
        Some(rest) => rest
            .rsplit_once(REQUEST_MARKER)
            .map_or(rest, |(_, r)| r)
            .trim(),
        None => content,
    }
}

/// The history after compaction: `system`, the summary, then `tail` verbatim.
pub fn rebuild(system: ChatMessage, summary: &str, tail: &[ChatMessage]) -> Vec<ChatMessage> {
    let mut out = vec![
        system,
        ChatMessage::User {
            content: summary_message(summary),
            images: Vec::new(),
        },
    ];
    out.extend(tail.iter().cloned());
    out
}

/// The user message that carries a summary.
pub fn summary_message(summary: &str) -> String {
    format!("{SUMMARY_PREFIX}\n\n{}", summary.trim())
}

/// A compaction about to happen: where the history splits, and what is kept of the request
/// in progress. Worked out before the summary is asked for and applied when it comes, on the
/// same history.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The first message kept verbatim.
    pub start: usize,
    /// The request in progress, carried after the summary when the split is inside the last
    /// turn.
    pub request: Option<String>,
    /// The estimated tokens of the history before.
    pub before: u64,
}

/// Where a compaction of `messages` splits them: before the last user message when there
/// are earlier turns and that turn is not itself big (over half the compaction threshold,
/// pruned); else before its last [`KEEP_ROUNDS`] rounds, keeping its request. `None`:
/// nothing older to summarise.
pub fn plan(messages: &[ChatMessage], tools: &[ToolSpec], window: &WindowState) -> Option<Plan> {
    let (start, request) = split(messages, tools, window)?;
    if messages[1.min(messages.len())..start].is_empty() {
        return None;
    }
    Some(Plan {
        start,
        request,
        before: window.estimate(messages, tools),
    })
}

fn split(
    m: &[ChatMessage],
    tools: &[ToolSpec],
    window: &WindowState,
) -> Option<(usize, Option<String>)> {
    let user_at = tail_start(m);
    let turn: Vec<ChatMessage> = m[..1.min(m.len())]
        .iter()
        .chain(&m[user_at..])
        .cloned()
        .collect();
    let turn_is_big =
        window.estimate(&prune(&turn, KEEP_ROUNDS).0, tools) > window.budget().compact_at() / 2;
    if user_at > 1 && user_at < m.len() && !turn_is_big {
        return Some((user_at, None));
    }
    let rounds = user_at + round_start(&m[user_at..], KEEP_ROUNDS);
    if rounds <= user_at || user_at >= m.len() {
        return (user_at > 1).then_some((user_at, None));
    }
    let request = match &m[user_at] {
        ChatMessage::User { content, .. } => request_in(content).to_owned(),
        _ => String::new(),
    };
    Some((rounds, Some(request)))
}

impl Plan {
    /// The request for the summary of what comes before the split, to `model`; `focus` says
    /// what to keep in particular (`/compact FOCUS`).
    pub fn request(
        &self,
        model: &str,
        messages: &[ChatMessage],
        focus: Option<&str>,
        window: &WindowState,
    ) -> ChatRequest {
        let older = &messages[1.min(messages.len())..self.start.min(messages.len())];
        request(model, older, focus, window.budget(), window.ratio)
    }

    /// Replaces what comes before the split with `system` and the summary the model wrote
    /// (`reply`); the window's counts start over. What to report: `Event::Compacted`, then the
    /// tokens now in use.
    pub fn apply(
        self,
        reply: &str,
        system: ChatMessage,
        messages: &mut Vec<ChatMessage>,
        window: &mut WindowState,
        tools: &[ToolSpec],
    ) -> Vec<Event> {
        let summary = with_request(reply, self.request.as_deref());
        let tail: Vec<ChatMessage> = messages[self.start.min(messages.len())..].to_vec();
        *messages = rebuild(system, &summary, &tail);
        window.stand_ins = StandIns::default();
        window.compactions += 1;
        window.pruned = 0;
        window.warned = false;
        let after = window.estimate(messages, tools);
        let mut out = vec![Event::Compacted {
            summary,
            before: self.before,
            after,
            tail: tail.len(),
        }];
        let in_use = InUse {
            tokens: after,
            counted: Counted::Estimated,
        };
        window.report_in_use(in_use, &mut out);
        out
    }
}

/// Characters of `messages`, for before/after notes.
pub fn chars(messages: &[ChatMessage]) -> usize {
    messages.iter().map(message_chars).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_fits_the_window_and_carries_the_focus() {
        let older: Vec<ChatMessage> = (0..200)
            .map(|i| ChatMessage::User {
                content: format!("message {i} {}", "x".repeat(200)),
                images: Vec::new(),
            })
            .collect();
        let budget = Budget { window: 4096 };
        let req = request("m", &older, Some("the failing test"), budget, 3.0);
        let ask = match &req.messages[1] {
            ChatMessage::User { content, .. } => content.clone(),
            other => panic!("{other:?}"),
        };
        assert!(ask.contains("of the oldest messages were left out"));
        assert!(ask.contains("message 199"), "the newest are kept");
        assert!(!ask.contains("message 0 "));
        assert!(ask.ends_with("Pay particular attention to: the failing test"));
        assert!(
            tokens(chars(&req.messages), 3.0) + u64::from(req.max_tokens.unwrap()) <= budget.window
        );
    }
}
