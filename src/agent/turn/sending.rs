//! The turn's rounds: the user's message into the history, a new round (or `max_turns`
//! reached), queued messages delivered, the request fitted to the window ([`fit`]) and, when
//! pruning is not enough, the compaction asked for and applied; after an overflow error, the
//! smaller retry ([`fit::retry`]), with fewer tools when nothing else makes it fit.

use super::{Effect, Phase, Then, Turn, UserMessage};
use crate::agent::compaction;
use crate::agent::fit::{self, Fit, Retry};
use crate::events::{Event, Notice, TurnEnd};
use crate::provider::{ChatMessage, ChatRequest, ProviderError};

impl Turn {
    /// The user's message (after the system prompts of the tools it added) joins the history;
    /// the first round begins.
    pub(super) fn user(&mut self, m: UserMessage, fx: &mut Vec<Effect>) {
        let messages = &mut self.chat.messages;
        messages.extend(
            m.prompts
                .into_iter()
                .map(|content| ChatMessage::System { content }),
        );
        if !m.tools_added.is_empty() {
            fx.push(Effect::Emit(Event::ToolsAdded {
                names: m.tools_added,
            }));
        }
        fx.push(Effect::Emit(Event::UserMessage {
            text: m.text,
            sent: m.sent.clone(),
        }));
        fx.extend(
            m.attached
                .into_iter()
                .map(|n| Effect::Emit(Event::Notice(n))),
        );
        messages.push(ChatMessage::User {
            content: m.sent,
            images: m.images,
        });
        self.next_round(fx);
    }

    /// A new round, unless `max_turns` are used: the queued messages join the history, and the
    /// request is fitted.
    pub(super) fn next_round(&mut self, fx: &mut Vec<Effect>) {
        if self.round >= self.rules.max_turns {
            return self.finish(TurnEnd::MaxTurns(self.rules.max_turns), fx);
        }
        self.round += 1;
        for text in std::mem::take(&mut self.queued) {
            fx.push(Effect::Emit(Event::UserMessage {
                text: text.clone(),
                sent: text.clone(),
            }));
            self.chat.messages.push(ChatMessage::user(text));
        }
        let mut out = Vec::new();
        let fitted = fit::fit(
            &mut self.chat.window,
            &self.chat.messages,
            &self.tools,
            self.rules.interaction,
            &mut out,
        );
        Self::emit(fx, out);
        match fitted {
            Fit::Send(sent) => self.request(sent, fx),
            Fit::Compact => self.compact(Then::Send, fx),
            Fit::TooLarge(e) => self.finish(TurnEnd::Failed(e), fx),
        }
    }

    /// The retry after an overflow error: a new round (unless `max_turns` are used), sending
    /// what [`fit::retry`] makes of the history — smaller than what was refused.
    pub(super) fn retry_round(&mut self, fx: &mut Vec<Effect>) {
        if self.round >= self.rules.max_turns {
            return self.finish(TurnEnd::MaxTurns(self.rules.max_turns), fx);
        }
        self.round += 1;
        self.resend(fx);
    }

    /// The retry's request (after a compaction too), or the end when nothing smaller fits.
    fn resend(&mut self, fx: &mut Vec<Effect>) {
        let mut out = Vec::new();
        let retry = fit::retry(
            &mut self.chat.window,
            &self.chat.messages,
            &self.tools,
            self.overflowed_chars,
            self.compacted_for_retry,
            self.rules.interaction,
            &mut out,
        );
        Self::emit(fx, out);
        match retry {
            Retry::Send { messages, tools } => {
                let dropped: Vec<String> = self
                    .tools
                    .iter()
                    .filter(|t| !tools.iter().any(|k| k.name == t.name))
                    .map(|t| t.name.clone())
                    .collect();
                if !dropped.is_empty() {
                    fx.push(Effect::Emit(Event::Notice(Notice::ToolsCut {
                        dropped: dropped.clone(),
                    })));
                    fx.push(Effect::ToolsDropped(dropped));
                    self.tools = tools;
                }
                self.request(messages, fx);
            }
            Retry::Compact => {
                self.compacted_for_retry = true;
                self.compact(Then::Retry, fx);
            }
            Retry::TooLarge(e) => self.finish(TurnEnd::Failed(e), fx),
        }
    }

    /// Streams a request sending `messages`.
    fn request(&mut self, messages: Vec<ChatMessage>, fx: &mut Vec<Effect>) {
        let mut request = ChatRequest::new(String::new(), messages);
        request.tools = self.tools.clone();
        if self.chat.tools_in_text {
            super::text_calls::tools_in_text(&mut request);
        }
        fx.push(Effect::Request(request));
        self.phase = Phase::Streaming {
            partial: String::new(),
        };
    }

    /// Asks for a summary of the older history, then goes on as `then` says; with nothing
    /// older to summarise, goes on at once.
    pub(super) fn compact(&mut self, then: Then, fx: &mut Vec<Effect>) {
        let Some(plan) = compaction::plan(&self.chat.messages, &self.tools, &self.chat.window)
        else {
            return self.compacted(then, fx);
        };
        let request = plan.request("", &self.chat.messages, None, &self.chat.window);
        fx.push(Effect::Summarise(request));
        self.phase = Phase::Compacting { plan, then };
    }

    /// The summary came (or why not).
    pub(super) fn summarised(
        &mut self,
        plan: compaction::Plan,
        then: Then,
        summary: Result<String, ProviderError>,
        fx: &mut Vec<Effect>,
    ) {
        let summary = match summary {
            Ok(s) => s,
            Err(e) => return self.finish(TurnEnd::Failed(e), fx),
        };
        let out = plan.apply(
            &summary,
            ChatMessage::System {
                content: self.system.clone(),
            },
            &mut self.chat.messages,
            &mut self.chat.window,
            &self.tools,
        );
        Self::emit(fx, out);
        self.compacted(then, fx);
    }

    /// After a compaction (or none was possible).
    fn compacted(&mut self, then: Then, fx: &mut Vec<Effect>) {
        match then {
            Then::Retry => self.resend(fx),
            Then::Send => {
                let mut out = Vec::new();
                let sent = fit::after_compaction(
                    &mut self.chat.window,
                    &self.chat.messages,
                    &self.tools,
                    self.rules.interaction,
                    &mut out,
                );
                Self::emit(fx, out);
                match sent {
                    Ok(sent) => self.request(sent, fx),
                    // Pruned and compacted, and still too large: what a retry after an
                    // overflow would try next — fewer tools, the last outputs cut — before
                    // giving up (still smaller than anything the server refused this turn).
                    Err(_) => {
                        self.compacted_for_retry = true;
                        self.resend(fx);
                    }
                }
            }
        }
    }
}
