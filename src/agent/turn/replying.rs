//! The reply: its stream's events passed on (the text so far kept for a stop; a retry
//! discards it), then the finished reply — call ids made unique, usage counted, into the
//! history, its calls to the engine — or the error that ended it: the server's overflow error
//! is answered once by learning its window and making room.

use super::{Effect, Phase, Then, Turn};
use crate::events::{Event, Notice, TurnEnd};
use crate::provider::{AssistantMessage, ChatMessage, ProviderError, StreamDelta, StreamEvent};

impl Turn {
    pub(super) fn streamed(&mut self, mut partial: String, ev: StreamEvent, fx: &mut Vec<Effect>) {
        match ev {
            StreamEvent::Delta(d) => {
                if let StreamDelta::Text(t) = &d {
                    partial.push_str(t);
                }
                fx.push(Effect::Emit(Event::Delta(d)));
            }
            StreamEvent::Retrying(r) => {
                partial.clear();
                fx.push(Effect::Emit(Event::Retrying(r)));
            }
            StreamEvent::Notice(n) => fx.push(Effect::Emit(Event::Notice(Notice::Stream(n)))),
            StreamEvent::Finished(Ok(reply)) => return self.replied(reply, fx),
            StreamEvent::Finished(Err(e)) => return self.failed(e, fx),
        }
        self.phase = Phase::Streaming { partial };
    }

    /// The reply is complete.
    fn replied(&mut self, mut reply: AssistantMessage, fx: &mut Vec<Effect>) {
        // Calls written as text are the reply's calls from here on (`text_calls`).
        self.read_text_calls(&mut reply);
        // Before anyone sees the calls: the ids they are known by from here on are unique.
        self.chat.call_ids.assign(&mut reply.tool_calls);
        let mut out = Vec::new();
        self.chat.window.usage(&reply, &mut out);
        Self::emit(fx, out);
        fx.push(Effect::Emit(Event::ReplyDone(reply.clone())));
        // The text moves into the history (a long reply is not held twice).
        self.chat.messages.push(ChatMessage::Assistant {
            content: std::mem::take(&mut reply.content),
            tool_calls: reply.tool_calls.clone(),
            reasoning: reply.kept_reasoning(),
        });
        if reply.tool_calls.is_empty() {
            let end = if reply.hit_length_limit() {
                TurnEnd::LengthLimit
            } else {
                TurnEnd::Completed
            };
            return self.finish(end, fx);
        }
        fx.push(Effect::RunBatch(reply.tool_calls.clone()));
        self.phase = Phase::Running {
            calls: reply.tool_calls,
        };
    }

    /// The request failed (after the client's retries).
    pub(super) fn failed(&mut self, e: ProviderError, fx: &mut Vec<Effect>) {
        match e {
            ProviderError::ContextOverflow { window, .. } if !self.overflow_retried => {
                self.overflowed(window, fx)
            }
            e if self.answers_tools_refusal(&e) => self.tools_refused(e, fx),
            e => self.finish(TurnEnd::Failed(e), fx),
        }
    }

    /// The server said the request does not fit: learn its window (when it says a smaller
    /// one), make room, and try once more (a new round).
    fn overflowed(&mut self, window: Option<u64>, fx: &mut Vec<Effect>) {
        self.overflow_retried = true;
        let w = &mut self.chat.window;
        if let Some(tokens) = window.filter(|t| *t < w.tokens) {
            w.set(tokens, "the server's overflow error");
            fx.push(Effect::WindowLearned);
        }
        fx.push(Effect::Emit(Event::Notice(Notice::Overflow {
            window: w.tokens,
        })));
        self.compact(Then::Retry, fx);
    }
}
