//! The reasoning round trip: where a server put a reply's reasoning, which assistant messages
//! get theirs sent back (`send_reasoning`), and the `reasoning_effort` asked for.
//!
//! A reply's reasoning is kept with its assistant message in the history, with the field the
//! server streamed it in ([`ReasoningField`]). DeepSeek's thinking mode answers 400 when an
//! assistant message with tool calls of the current turn (after the last user message) lacks its
//! `reasoning_content`; gpt-oss loses its chain between calls without it. Sending it back in the
//! field the server used keeps servers that never stream reasoning (OpenAI's Chat Completions,
//! Mistral) from seeing a key they may reject: a server gets back only what it sent.
//!
//! Pure: the request body as JSON in, the same body with the reasoning and the effort added out.
//! Not here: reading the reasoning out of a stream (`assembly.rs`, `think.rs`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::request::ChatMessage;

/// Where a server put a reply's reasoning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningField {
    /// `reasoning_content` (DeepSeek, llama.cpp, vLLM before 0.10, LiteLLM, SGLang).
    ReasoningContent,
    /// `reasoning` (Ollama, OpenRouter, LM Studio, newer vLLM).
    Reasoning,
    /// A leading `<think>…</think>` block in `content` (a server without a reasoning parser):
    /// sent back the same way, the block before the content.
    ThinkTags,
}

impl ReasoningField {
    /// The message key reasoning is sent back under; `None` for the `<think>` block.
    pub fn key(self) -> Option<&'static str> {
        match self {
            ReasoningField::ReasoningContent => Some("reasoning_content"),
            ReasoningField::Reasoning => Some("reasoning"),
            ReasoningField::ThinkTags => None,
        }
    }
}

/// An assistant message's reasoning as the history keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reasoning {
    pub text: String,
    pub field: ReasoningField,
}

/// Which assistant messages get their reasoning sent back (`[provider] send_reasoning`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SendReasoning {
    /// The current turn's messages with tool calls (after the last user message).
    #[default]
    Auto,
    /// Every assistant message that had reasoning.
    Always,
    Never,
}

impl SendReasoning {
    pub const NAMES: [&str; 3] = ["auto", "always", "never"];

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(Self::Auto),
            "always" => Some(Self::Always),
            "never" => Some(Self::Never),
            _ => None,
        }
    }
}

/// The provider's reasoning settings, applied to every request body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReasoningSettings {
    pub send: SendReasoning,
    /// `reasoning_effort`, sent as the top-level field of that name when set.
    pub effort: Option<String>,
}

/// Whether `effort` can be a `reasoning_effort` value: a lowercase word (`low`, `high`, …).
pub fn valid_effort(effort: &str) -> bool {
    !effort.is_empty()
        && effort.len() <= 32
        && effort
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'_' || b == b'-')
}

/// What an assistant message gets back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SentBack<'a> {
    Reasoning(&'a Reasoning),
    /// An empty string under this key: a current-turn tool call that came without reasoning,
    /// from a server that uses the key (DeepSeek refuses the message without it).
    Empty(&'static str),
}

/// The assistant messages of `messages` that get reasoning back under `send`, by index.
pub fn sent_back(messages: &[ChatMessage], send: SendReasoning) -> Vec<(usize, SentBack<'_>)> {
    if send == SendReasoning::Never {
        return Vec::new();
    }
    let current = messages
        .iter()
        .rposition(|m| matches!(m, ChatMessage::User { .. }))
        .map_or(0, |i| i + 1);
    // The key this server streams reasoning in, as its latest reply with reasoning shows.
    let key = messages.iter().rev().find_map(|m| match m {
        ChatMessage::Assistant {
            reasoning: Some(r), ..
        } if !r.text.is_empty() => r.field.key(),
        _ => None,
    });
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let ChatMessage::Assistant {
            reasoning,
            tool_calls,
            ..
        } = m
        else {
            continue;
        };
        let this_turns_call = i >= current && !tool_calls.is_empty();
        match reasoning.as_ref().filter(|r| !r.text.is_empty()) {
            Some(r) if this_turns_call || send == SendReasoning::Always => {
                out.push((i, SentBack::Reasoning(r)));
            }
            None if this_turns_call => {
                if let Some(key) = key {
                    out.push((i, SentBack::Empty(key)));
                }
            }
            _ => {}
        }
    }
    out
}

/// Adds the reasoning [`sent_back`] picks and the effort to `body` (the request's JSON, its
/// `messages` one for one with `messages`).
pub fn apply(body: &mut Value, messages: &[ChatMessage], settings: &ReasoningSettings) {
    if let Some(effort) = &settings.effort {
        body["reasoning_effort"] = Value::String(effort.clone());
    }
    let picked = sent_back(messages, settings.send);
    let Some(wire) = body.get_mut("messages").and_then(Value::as_array_mut) else {
        return;
    };
    for (i, sent) in picked {
        let Some(Value::Object(m)) = wire.get_mut(i) else {
            continue;
        };
        match sent {
            SentBack::Empty(key) => {
                m.insert(key.to_owned(), Value::String(String::new()));
            }
            SentBack::Reasoning(r) => match r.field.key() {
                Some(key) => {
                    m.insert(key.to_owned(), Value::String(r.text.clone()));
                }
                None => {
                    let content = m.get("content").and_then(Value::as_str).unwrap_or("");
                    let with_block = format!("<think>\n{}\n</think>\n\n{content}", r.text);
                    m.insert("content".to_owned(), Value::String(with_block));
                }
            },
        }
    }
}

#[cfg(test)]
mod tests;
