//! The reply: its stream's events passed on (the text so far kept for a stop; a retry
//! discards it), then the finished reply — call ids made unique, usage counted, into the
//! history, its calls to the engine — or the error that ended it: the server's overflow error
//! is answered (at most [`MAX_OVERFLOW_RETRIES`] times) by learning its window and its count,
//! and retrying strictly smaller.

use super::{Effect, MAX_OVERFLOW_RETRIES, Phase, Turn};
use crate::agent::context::{MIN_CHARS_PER_TOKEN, tokens};
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
            ProviderError::ContextOverflow { window, prompt, .. }
                if self.overflow_retries < MAX_OVERFLOW_RETRIES =>
            {
                self.overflowed(window, prompt, fx)
            }
            e if self.answers_tools_refusal(&e) => self.tools_refused(e, fx),
            e if self.answers_image_refusal(&e) => self.images_refused(e, fx),
            e => self.finish(TurnEnd::Failed(e), fx),
        }
    }

    /// The server said the request does not fit: learn its window (when it says a smaller
    /// one) and its count of what was sent (the ratio from now on; without a count, the
    /// request was at least the window), then retry with a strictly smaller request that fits
    /// by that count (`sending::retry`): pruned, compacted, fewer tools — or say why none can.
    fn overflowed(&mut self, window: Option<u64>, prompt: Option<u64>, fx: &mut Vec<Effect>) {
        self.overflow_retries += 1;
        let w = &mut self.chat.window;
        let sent = w.last_sent_chars;
        let estimated = tokens(sent, w.ratio);
        if let Some(tokens) = window.filter(|t| *t < w.tokens) {
            w.set(tokens, "the server's overflow error");
            fx.push(Effect::WindowLearned);
        }
        let counted = prompt.filter(|p| w.calibrate_on_count(*p, sent));
        if counted.is_none() && sent > 0 {
            // No count: the server found it at least its window's size.
            w.ratio = w
                .ratio
                .min(sent as f64 / w.tokens.max(1) as f64)
                .max(MIN_CHARS_PER_TOKEN);
        }
        self.overflowed_chars = self.overflowed_chars.min(sent);
        self.compacted_for_retry = false;
        fx.push(Effect::Emit(Event::Notice(Notice::OverflowRetry {
            window: w.tokens,
            counted,
            estimated,
            attempt: self.overflow_retries,
            max: MAX_OVERFLOW_RETRIES,
        })));
        self.retry_round(fx);
    }
}
