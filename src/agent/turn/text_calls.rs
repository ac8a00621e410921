//! Tool calls written as text, in the turn ([`crate::provider::text_calls`] reads them): a
//! finished reply with no structured calls, when tools were offered, is read for calls in its
//! text; those become the reply's own calls (ids made unique like any, run by the engine like
//! any), and the history keeps the standard form — the assistant message with `tool_calls`,
//! its text without them. A server that refuses the `tools` parameter gets them described in
//! the system message instead (Hermes format), said once and kept for the chat; the request
//! then writes earlier calls as text too, since such a server cannot read structured ones.
//!
//! Pure, like the rest of the turn. It does not decide what a call may do (the engine does)
//! nor show anything (the front-ends hide the call's text when the reply says so).

use serde_json::{Value, json};

use super::{Effect, Turn};
use crate::events::{Event, Notice};
use crate::provider::text_calls::{self, hermes_tools_prompt};
use crate::provider::{AssistantMessage, ChatMessage, ChatRequest, ProviderError, ToolCall};

impl Turn {
    /// When the reply wrote its calls as text: they become its calls, its text the rest.
    pub(super) fn read_text_calls(&self, reply: &mut AssistantMessage) {
        if !self.rules.text_tool_calls || self.tools.is_empty() || !reply.tool_calls.is_empty() {
            return;
        }
        let Some(found) = text_calls::recognise(&reply.content, &self.tools) else {
            return;
        };
        for why in found.calls.iter().filter_map(|c| c.broken.as_ref()) {
            tracing::info!(%why, "a tool call written as text could not be read");
        }
        reply.content = found.text;
        reply.tool_calls = found
            .calls
            .into_iter()
            .map(|c| ToolCall {
                id: String::new(),
                name: c.name,
                arguments: c.arguments,
            })
            .collect();
    }

    /// Whether `e` is a refusal of the `tools` parameter this turn answers by describing them.
    pub(super) fn answers_tools_refusal(&self, e: &ProviderError) -> bool {
        e.refuses_tools()
            && self.rules.text_tool_calls
            && !self.chat.tools_in_text
            && !self.tools.is_empty()
    }

    /// The server refused `tools`: say so, describe them from now on, send the round again
    /// (the refused request does not count as one).
    pub(super) fn tools_refused(&mut self, e: ProviderError, fx: &mut Vec<Effect>) {
        self.chat.tools_in_text = true;
        let why = match e {
            ProviderError::Status { message, .. } => message,
            e => e.to_string(),
        };
        fx.push(Effect::Emit(Event::Notice(Notice::ToolsInText { why })));
        self.round = self.round.saturating_sub(1);
        self.next_round(fx);
    }
}

/// The request as a server that refuses `tools` takes it: the tools described in the system
/// message, the earlier calls written as `<tool_call>` text.
pub(super) fn tools_in_text(request: &mut ChatRequest) {
    let tools = std::mem::take(&mut request.tools);
    if tools.is_empty() {
        return;
    }
    let prompt = hermes_tools_prompt(&tools);
    match request.messages.first_mut() {
        Some(ChatMessage::System { content }) if !content.is_empty() => {
            content.push_str("\n\n");
            content.push_str(&prompt);
        }
        Some(ChatMessage::System { content }) => *content = prompt,
        _ => request
            .messages
            .insert(0, ChatMessage::System { content: prompt }),
    }
    for m in &mut request.messages {
        if let ChatMessage::Assistant {
            content,
            tool_calls,
            ..
        } = m
        {
            for c in std::mem::take(tool_calls) {
                let args = serde_json::from_str::<Value>(&c.arguments)
                    .unwrap_or(Value::String(c.arguments));
                let call = json!({"name": c.name, "arguments": args});
                if !content.is_empty() {
                    content.push('\n');
                }
                content.push_str(&format!("<tool_call>\n{call}\n</tool_call>"));
            }
        }
    }
}

#[cfg(test)]
mod tests;
