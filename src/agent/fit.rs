//! What each request of a turn sends, decided before it is sent (pure: no IO, no async): the
//! history as it is while it is under 60 % of the window; pruned (old tool outputs as
//! stand-ins) while that brings it under the compaction threshold; else a compaction first
//! ([`Fit::Compact`], then [`after_compaction`]). A request whose estimate is still over the
//! input budget is never sent: the error says what takes the room — the system prompt and tool
//! schemas every request carries, or the conversation — and what to do about it.
//!
//! Not here: asking for the summary (the turn's driver), building it
//! ([`super::compaction`]), the budget's shares ([`super::context::Budget`]).

use super::context::{Budget, prepare, prune, request_chars, tools_chars};
use super::output_cut::cut_last_outputs;
use super::window::WindowState;
use crate::events::{Event, Notice};
use crate::provider::{ChatMessage, ProviderError, ToolSpec};
use crate::tools::policy::approval::Interaction;

/// What the next request does.
#[derive(Debug, Clone, PartialEq)]
pub enum Fit {
    /// Send these messages: the history, or the history pruned.
    Send(Vec<ChatMessage>),
    /// Pruning is not enough: compact the history, then [`after_compaction`].
    Compact,
    /// Nothing is sent: it does not fit.
    TooLarge(ProviderError),
}

/// The request for `messages` and `tools` in `w` (see the module doc). Reports into `out`:
/// the first pruning since the chat began or was compacted, and that a compaction is coming.
pub fn fit(
    w: &mut WindowState,
    messages: &[ChatMessage],
    tools: &[ToolSpec],
    interaction: Interaction,
    out: &mut Vec<Event>,
) -> Fit {
    let budget = w.budget();
    if w.estimate(messages, tools) <= budget.prune_at() {
        w.last_sent_chars = request_chars(messages, tools);
        return Fit::Send(messages.to_vec());
    }
    // The system prompt and the tools alone too big: nothing pruning or compaction can do.
    if fixed_tokens(w, messages, tools) > budget.input() {
        let estimate = w.estimate(messages, tools);
        return Fit::TooLarge(too_large(w, messages, tools, estimate, interaction));
    }
    // Old outputs first: the fewest elided that bring it under the compaction threshold.
    // When even the last round's outputs alone leave it over, the rest of the history is
    // what is too long: compact it (and prune what follows the same way).
    match pruned_under(w, budget.compact_at(), messages, tools, out) {
        Some(sent) => match checked(w, sent, tools, interaction) {
            Ok(sent) => Fit::Send(sent),
            Err(e) => Fit::TooLarge(e),
        },
        None => {
            out.push(Event::Notice(Notice::Summarising));
            Fit::Compact
        }
    }
}

/// After the compaction [`fit`] asked for (or found nothing to compact): the history pruned
/// under the input budget, else with only the last round's outputs kept — cut to their heads
/// when they alone are too large — if that fits.
pub fn after_compaction(
    w: &mut WindowState,
    messages: &[ChatMessage],
    tools: &[ToolSpec],
    interaction: Interaction,
    out: &mut Vec<Event>,
) -> Result<Vec<ChatMessage>, ProviderError> {
    let input = w.budget().input();
    let mut sent =
        pruned_under(w, input, messages, tools, out).unwrap_or_else(|| prune(messages, 1).0);
    // The last round's own outputs too large: their heads, with a note.
    if w.estimate(&sent, tools) > input {
        let room = ((input as f64) * w.ratio.max(0.5)).floor() as usize;
        if let Some(cut) = cut_last_outputs(&sent, room.saturating_sub(tools_chars(tools))) {
            sent = cut;
        }
    }
    checked(w, sent, tools, interaction)
}

/// What the retry after a server's overflow error sends ([`retry`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Retry {
    /// Send these messages with these tools (fewer than before when `tools` shrank).
    Send {
        messages: Vec<ChatMessage>,
        tools: Vec<ToolSpec>,
    },
    /// Pruning is not enough: compact the history, then [`retry`] again (`compacted`).
    Compact,
    /// Nothing smaller fits: the error says what takes the room.
    TooLarge(ProviderError),
}

/// The retry after the server refused a request of `failed` characters as too large for its
/// window, with `w` already told what the error said (its window, the ratio on its count).
/// Strictly smaller than `failed` and under the input budget by the estimate, the cheapest
/// way first: old tool outputs as stand-ins; then (unless `compacted` already) a compaction;
/// then fewer tools, the least needed dropped first ([`crate::tools::offer::keep_rank`]),
/// with only the last round's outputs kept, when that is enough; then the last round's
/// outputs cut to fit (with as many tools as still fit); else the error naming both sizes.
/// Never the same request again.
pub fn retry(
    w: &mut WindowState,
    messages: &[ChatMessage],
    tools: &[ToolSpec],
    failed: usize,
    compacted: bool,
    interaction: Interaction,
    out: &mut Vec<Event>,
) -> Retry {
    let input = w.budget().input();
    let fits = |w: &WindowState, sent: &[ChatMessage], tools: &[ToolSpec]| {
        w.estimate(sent, tools) <= input && request_chars(sent, tools) < failed
    };
    if let Some(sent) = pruned_under(w, input, messages, tools, out)
        && fits(w, &sent, tools)
    {
        w.last_sent_chars = request_chars(&sent, tools);
        return Retry::Send {
            messages: sent,
            tools: tools.to_vec(),
        };
    }
    if !compacted {
        return Retry::Compact;
    }
    let sent = prune(messages, 1).0;
    let mut ranked = tools.to_vec();
    ranked.sort_by_key(|t| crate::tools::offer::keep_rank(&t.name));
    // Fewer tools, as long as that is enough; else the last round's outputs cut too.
    let send = |w: &mut WindowState, sent: Vec<ChatMessage>, kept: &[ToolSpec]| {
        w.last_sent_chars = request_chars(&sent, kept);
        Retry::Send {
            messages: sent,
            // In the order they were offered.
            tools: tools
                .iter()
                .filter(|t| kept.iter().any(|k| k.name == t.name))
                .cloned()
                .collect(),
        }
    };
    for keep in (0..tools.len()).rev() {
        if fits(w, &sent, &ranked[..keep]) {
            return send(w, sent, &ranked[..keep]);
        }
    }
    for keep in (0..=tools.len()).rev() {
        let kept = &ranked[..keep];
        let room = ((input as f64) * w.ratio.max(0.5)).floor() as usize;
        let limit = room
            .min(failed.saturating_sub(1))
            .saturating_sub(tools_chars(kept));
        if let Some(cut) = cut_last_outputs(&sent, limit)
            && fits(w, &cut, kept)
        {
            return send(w, cut, kept);
        }
    }
    // What is named: the system prompt alone when even no tools leave room, else the tools.
    let tools = if fixed_tokens(w, &sent, &[]) > input {
        &[]
    } else {
        tools
    };
    let estimate = w.estimate(&sent, tools);
    Retry::TooLarge(too_large(w, &sent, tools, estimate, interaction))
}

/// `sent`, unless its estimate is over the input budget — the last-resort one: after pruning
/// (and a compaction) a request the turn's own rounds grew past the usual budget is sent with
/// only the smallest room for the reply ([`super::context::Budget::last_resort_input`]).
fn checked(
    w: &mut WindowState,
    sent: Vec<ChatMessage>,
    tools: &[ToolSpec],
    interaction: Interaction,
) -> Result<Vec<ChatMessage>, ProviderError> {
    let estimate = w.estimate(&sent, tools);
    if estimate > w.budget().last_resort_input() {
        return Err(too_large(w, &sent, tools, estimate, interaction));
    }
    w.last_sent_chars = request_chars(&sent, tools);
    Ok(sent)
}

/// The history with the fewest old tool outputs elided (keeping the last
/// [`super::context::KEEP_ROUNDS`], then 2, then 1 rounds' outputs) whose estimate is at most
/// `limit`. The first time outputs are elided (since the chat began or was compacted) it says
/// so. `None`: not even that fits.
fn pruned_under(
    w: &mut WindowState,
    limit: u64,
    messages: &[ChatMessage],
    tools: &[ToolSpec],
    out: &mut Vec<Event>,
) -> Option<Vec<ChatMessage>> {
    let (sent, stats) = prepare(
        messages,
        tools_chars(tools),
        w.ratio,
        limit,
        &mut w.stand_ins,
    )?;
    if w.pruned == 0 && stats.outputs > 0 {
        out.push(Event::Pruned {
            outputs: stats.outputs,
            chars: stats.chars,
        });
    }
    w.pruned = stats.outputs;
    Some(sent)
}

/// Tokens every request carries whatever the conversation: the system prompt and the tool
/// schemas.
fn fixed_tokens(w: &WindowState, messages: &[ChatMessage], tools: &[ToolSpec]) -> u64 {
    let system = match messages.first() {
        Some(m @ ChatMessage::System { .. }) => std::slice::from_ref(m),
        _ => &[],
    };
    w.estimate(system, tools)
}

/// The error for a request that does not fit even pruned and compacted: what takes the
/// room and what to do about it (no TUI command headless).
fn too_large(
    w: &WindowState,
    sent: &[ChatMessage],
    tools: &[ToolSpec],
    estimate: u64,
    interaction: Interaction,
) -> ProviderError {
    let budget: Budget = w.budget();
    let window = budget.window;
    let fixed = fixed_tokens(w, sent, tools);
    let message = if fixed > budget.input() && tools.is_empty() {
        format!(
            "the system prompt alone is about {fixed} tokens, more than the model's context window of {window} tokens can take with room for a reply (at most {} tokens for the request), even with no tools offered; give the model a larger window (llama.cpp `-c`, Ollama `num_ctx`) and tell sayso with `context_window` in the config, or shorten the project's instructions (AGENTS.md)",
            budget.input(),
        )
    } else if fixed > budget.input() {
        let system = fixed_tokens(w, sent, &[]);
        format!(
            "the system prompt and the {} tool schemas alone are about {fixed} tokens (the system prompt {system}, the schemas {}), more than the model's context window of {window} tokens can take with room for a reply (at most {} tokens for the request); give the model a larger window (llama.cpp `-c`, Ollama `num_ctx`) and tell sayso with `context_window` in the config, or offer fewer tools with `--tools` (e.g. `--tools read_file,run_command`)",
            tools.len(),
            fixed.saturating_sub(system),
            budget.input(),
        )
    } else {
        let new_chat = match interaction {
            Interaction::Interactive => " or start a new chat (/clear)",
            Interaction::Headless => "",
        };
        format!(
            "the request is about {estimate} tokens, more than the model's context window of {window} tokens can take with room for a reply ({fixed} of them the system prompt and tool schemas, the rest the conversation); shorten the message{new_chat}"
        )
    };
    ProviderError::ContextOverflow {
        message,
        window: Some(window),
        prompt: Some(estimate),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(tokens: u64) -> WindowState {
        WindowState {
            tokens,
            ratio: 1.0,
            ..WindowState::default()
        }
    }

    /// A chat of one user message of `chars` characters (at one character a token).
    fn chat(chars: usize) -> Vec<ChatMessage> {
        vec![ChatMessage::User {
            content: "x".repeat(chars),
            images: Vec::new(),
        }]
    }

    #[test]
    fn a_request_past_the_budget_but_inside_the_last_resort_goes_with_less_room_for_the_reply() {
        let mut w = window(4096);
        let (input, last) = (w.budget().input(), w.budget().last_resort_input());
        assert!(input < last, "{input} {last}");
        // Between the two: sent (nothing older to prune or compact could make it smaller).
        let between = chat(usize::try_from(input + 100).unwrap());
        let sent = checked(&mut w, between.clone(), &[], Interaction::Headless);
        assert_eq!(sent.ok(), Some(between));
        // Past the last resort: refused, naming its size.
        let over = chat(usize::try_from(last + 100).unwrap());
        let refused = checked(&mut w, over, &[], Interaction::Headless);
        assert!(refused.is_err());
    }
}
