//! The agent's side of the context window: what it knows about the window (its size, where
//! that came from, the characters-a-token ratio, what the last request sent), finding it out
//! before a turn, and `/compact` between turns.
//!
//! Checked before every request, tool-result follow-ups included; an unknown window is a
//! conservative default, never "no limit". Every change is reported: `Event::Context` for the
//! gauge (the tokens in use: `in_use.rs`), `Event::Pruned` and `Event::Compacted` for the
//! transcript and the session. What to do is decided by pure parts ([`Learning`]'s methods;
//! `compact_request` and `compact_end` for `/compact`); the agent's methods do the IO.
//!
//! Not here: what each request of a turn sends (pruned, compacted, or refused: the pure
//! [`super::fit`], decided by the turn's state machine, [`super::turn`]); the summary itself
//! ([`super::compaction`]).

#[cfg(test)]
mod tests;

use tokio_util::sync::CancellationToken;

use super::context::{
    Budget, DEFAULT_RATIO, StandIns, prepare, request_chars, tokens, tools_chars,
};
use super::in_use::{Counted, InUse};
use super::{Agent, Event, EventSink, TurnEnd, compaction};
use crate::events::Notice;
use crate::provider::window::{Confidence, ContextWindow, DEFAULT_WINDOW};
use crate::provider::{ChatMessage, ChatRequest, ProviderError, ToolSpec};

/// What the agent knows about the window and the requests it sent: what a turn works with
/// (it moves into the turn's state machine and back).
#[derive(Debug, Clone)]
pub struct WindowState {
    pub tokens: u64,
    /// Where the size came from.
    pub source: String,
    /// Characters per token, calibrated on the server's plausible usage.
    pub ratio: f64,
    /// The last plausible usage the ratio was calibrated on: (prompt tokens, characters sent).
    pub calibrated_on: Option<(u64, usize)>,
    /// The ratio before the last calibration on `usage`: what it goes back to when that usage
    /// turns out to be no count (stuck while the chat grew).
    pub ratio_before: f64,
    /// The server's `usage` was caught reporting what cannot be a count: it calibrates nothing
    /// from now on (an overflow error's own count still does).
    pub usage_distrusted: bool,
    /// The tokens in use as last reported: what the gauge and `/context` show.
    pub in_use: Option<InUse>,
    /// Characters of the last request sent, to calibrate with its usage.
    pub last_sent_chars: usize,
    /// Tool outputs the last request sent as stand-ins.
    pub pruned: usize,
    pub compactions: usize,
    /// The user was told the window is nearly full (once until the next compaction).
    pub warned: bool,
    /// Old outputs' stand-ins, worked out once.
    pub stand_ins: StandIns,
}

impl Default for WindowState {
    fn default() -> Self {
        Self {
            tokens: DEFAULT_WINDOW,
            source: "assumed: nothing reported it (set context_window in the config)".into(),
            ratio: DEFAULT_RATIO,
            calibrated_on: None,
            ratio_before: DEFAULT_RATIO,
            usage_distrusted: false,
            in_use: None,
            last_sent_chars: 0,
            pruned: 0,
            compactions: 0,
            warned: false,
            stand_ins: StandIns::default(),
        }
    }
}

/// What finding out the window has done already (the agent's, never the turn's).
#[derive(Debug, Clone, Default)]
pub struct Learning {
    /// The model and base URL the window was found out for (`None`: not yet, or the server
    /// may still change it once it loads the model). A corrected base URL asks again.
    pub learned_for: Option<(String, String)>,
    /// The instruction notes (a file cut at the cap…) were shown.
    pub notes_shown: bool,
    /// The default tools were fitted to a reported window (once per chat).
    pub tools_fitted: bool,
}

/// What to do with a window the client gave ([`Learning::learned`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Learned {
    /// The window to budget with, and where it came from.
    pub tokens: u64,
    pub source: String,
    /// Fit the default tools to it (`fit_tools_to_window`): the first window that says
    /// something about the model, unless the user chose the tools.
    pub fit_tools: bool,
}

impl Learning {
    /// Whether the instruction notes are to be shown now: the first time only.
    pub fn notes_due(&mut self) -> bool {
        !std::mem::replace(&mut self.notes_shown, true)
    }

    /// Whether the window of `key` (model, base URL) is to be asked for: not when it was
    /// learned for that key already.
    pub fn must_ask(&self, key: &(String, String)) -> bool {
        self.learned_for.as_ref() != Some(key)
    }

    /// The client said `w` for `key`: it is learned unless the server may still change it
    /// once it loads the model; an assumed window says nothing about the model, so the tools
    /// stay; the tools are fitted once per chat, never when the user chose them.
    pub fn learned(&mut self, key: (String, String), w: &ContextWindow, chosen: bool) -> Learned {
        if !w.awaits_loading() {
            self.learned_for = Some(key);
        }
        let fit_tools = w.confidence != Confidence::Assumed && !self.tools_fitted && !chosen;
        self.tools_fitted |= fit_tools;
        Learned {
            tokens: w.tokens,
            source: w.origin(),
            fit_tools,
        }
    }
}

/// The gauge's share from which the user is told the window is filling up.
pub const WARN_AT: u64 = 70;

impl WindowState {
    /// The window to budget with from now on.
    pub fn set(&mut self, tokens: u64, source: impl Into<String>) {
        self.tokens = tokens.max(256);
        self.source = source.into();
    }

    pub fn budget(&self) -> Budget {
        Budget {
            window: self.tokens,
        }
    }

    /// The estimated tokens of a request sending `messages` and `tools`.
    pub fn estimate(&self, messages: &[ChatMessage], tools: &[ToolSpec]) -> u64 {
        tokens(request_chars(messages, tools), self.ratio)
    }

    /// A new chat: what was learned about the window stays, the counts start over.
    fn reset_counts(&mut self) {
        (self.last_sent_chars, self.pruned, self.compactions) = (0, 0, 0);
        (self.in_use, self.warned) = (None, false);
        self.stand_ins = StandIns::default();
    }
}

/// Passes `events` on to `sink`, in order.
pub(super) fn emit_all(sink: &EventSink, events: Vec<Event>) {
    events.into_iter().for_each(|e| sink.emit(e));
}

impl Agent {
    /// The window to budget with from now on.
    pub fn set_window(&mut self, tokens: u64, source: impl Into<String>) {
        self.window.set(tokens, source);
    }

    pub fn window(&self) -> &WindowState {
        &self.window
    }

    /// Finds out the current model's window (config, else the server, else the default;
    /// cached by the client) unless it is known already, and reports it on the gauge. The
    /// first time, also says what the sandbox cannot do here (`SandboxReport::start_notice`),
    /// shows the instruction notes (an `AGENTS.md` cut at the cap…), and a
    /// small window narrows the default tools (`fit_tools_to_window`).
    pub async fn learn_window(&mut self, sink: &EventSink) {
        if self.learning.notes_due() {
            let sandbox = crate::events::SandboxReport::of(self.engine.sandbox());
            if let Some(n) = sandbox.start_notice() {
                sink.emit(Event::Notice(n));
            }
            for note in &self.settings.instructions.notes {
                sink.emit(Event::Notice(Notice::Instructions(note.clone())));
            }
        }
        let key = (self.model.get(), self.client.base_url());
        if !self.learning.must_ask(&key) {
            return;
        }
        let w = self.client.context_window(&key.0).await;
        let learned = self
            .learning
            .learned(key, &w, self.settings.default_tools_chosen);
        self.set_window(learned.tokens, learned.source);
        if learned.fit_tools {
            self.fit_tools_to_window(learned.tokens, sink);
        }
        self.report_estimate(sink);
    }

    /// The window the server's overflow error gave is the one of the model in use: the next
    /// turn does not ask again, and the next run does not trust the cached window.
    pub(super) fn window_learned(&mut self) {
        let model = self.model.get();
        // What the probes found (also on disk) was wrong: the next run asks again.
        self.client.forget_window(&model);
        self.learning.learned_for = Some((model, self.client.base_url()));
    }

    /// Reports the estimate of what the next request sends as the tokens in use: when the
    /// window is learned, and when a new chat starts (so the gauge and `/context` go on
    /// showing one number).
    pub fn report_estimate(&mut self, sink: &EventSink) {
        let tools = self.tool_specs();
        let w = &mut self.window;
        let sendable = prepare(
            &self.messages,
            tools_chars(&tools),
            w.ratio,
            w.budget().compact_at(),
            &mut w.stand_ins,
        )
        .map(|(sent, _)| w.estimate(&sent, &tools));
        let in_use = InUse {
            tokens: sendable.unwrap_or_else(|| w.estimate(&self.messages, &tools)),
            counted: Counted::Estimated,
        };
        let mut out = Vec::new();
        w.report_in_use(in_use, &mut out);
        emit_all(sink, out);
    }

    /// The first time a window is reported for this chat (at its start, or before a resumed
    /// chat goes on): the default tools become the largest set whose system message and
    /// schemas fit in a quarter of it (`offer::offer_sized`, estimated at the calibrated ratio;
    /// tools the chat added stay), unless the user chose the tools. A later model switch
    /// changes no tools under the conversation.
    fn fit_tools_to_window(&mut self, tokens: u64, sink: &EventSink) {
        let defaults = self.engine.defaults().clone();
        let cost = |tools: &std::collections::BTreeSet<String>| {
            let i = &self.settings.instructions;
            let system = crate::tools::offer::compose(
                &self.settings.system_prompt,
                &[&i.environment, &i.text, i.skills_for(tools)],
                self.engine.registry(),
                tools,
            );
            let specs: Vec<ToolSpec> = tools
                .iter()
                .filter_map(|n| self.engine.registry().get(n))
                .map(|e| e.tool.spec())
                .collect();
            request_chars(&[ChatMessage::System { content: system }], &specs)
        };
        let offer =
            crate::tools::offer::offer_sized(tokens, self.window.ratio, &defaults, cost, false);
        let Some(notice) = offer.notice else {
            return;
        };
        self.engine.set_defaults(offer.tools.clone());
        for dropped in defaults.difference(&offer.tools) {
            self.engine.deactivate(dropped);
        }
        self.refresh_system_message();
        sink.emit(Event::Notice(Notice::ToolsNarrowed(notice)));
    }

    /// The history's system message as the tools offered now make it.
    fn refresh_system_message(&mut self) {
        let system = self.system_message();
        match self.messages.first_mut() {
            Some(ChatMessage::System { content }) => *content = system,
            _ => self
                .messages
                .insert(0, ChatMessage::System { content: system }),
        }
    }

    /// An overflow retry offered fewer tools: the chat goes on without `dropped`.
    pub(super) fn tools_dropped(&mut self, dropped: &[String]) {
        for name in dropped {
            self.engine.deactivate(name);
        }
    }

    /// A new chat: what was learned about the window stays, the counts start over.
    pub(super) fn reset_window_counts(&mut self) {
        self.window.reset_counts();
    }

    /// `/compact [focus]`: compacts now, between turns, and ends like a turn (`TurnEnded`) so
    /// the front end knows it is over. The history is unchanged unless it succeeds.
    pub async fn compact_now(
        &mut self,
        focus: Option<&str>,
        sink: &EventSink,
        cancel: &CancellationToken,
    ) -> TurnEnd {
        let tools = self.tool_specs();
        let asked = match compact_request(
            &self.messages,
            &tools,
            &self.window,
            &self.model.get(),
            focus,
        ) {
            None => None,
            Some((plan, req)) => {
                let reply = tokio::select! {
                    r = self.client.complete(&req) => r.map(|reply| reply.content),
                    () = cancel.cancelled() => {
                        Err(crate::provider::ProviderError::Dropped("stopped".into()))
                    }
                };
                Some((plan, reply))
            }
        };
        let system = ChatMessage::System {
            content: self.system_message(),
        };
        let chat = Compacting {
            system,
            messages: &mut self.messages,
            window: &mut self.window,
            tools: &tools,
        };
        let (events, end) = compact_end(asked, cancel.is_cancelled(), chat);
        emit_all(sink, events);
        end
    }
}

/// `/compact`'s request for the summary of the older history (see [`compaction::plan`]), to
/// `model`, with the `focus` to keep; `None`: there is nothing older to summarise.
fn compact_request(
    messages: &[ChatMessage],
    tools: &[ToolSpec],
    window: &WindowState,
    model: &str,
    focus: Option<&str>,
) -> Option<(compaction::Plan, ChatRequest)> {
    let plan = compaction::plan(messages, tools, window)?;
    let req = plan.request(model, messages, focus, window);
    Some((plan, req))
}

/// The chat a `/compact` ends in: the history and window it changes when it succeeds.
struct Compacting<'a> {
    /// The system message the compacted history starts with.
    system: ChatMessage,
    messages: &'a mut Vec<ChatMessage>,
    window: &'a mut WindowState,
    tools: &'a [ToolSpec],
}

/// How `/compact` ends, given its summary's plan and reply (`asked`; `None`: nothing was
/// older) and whether the user stopped it: the history compacted when the summary came, else
/// unchanged and a note says why; the last event is `TurnEnded`.
fn compact_end(
    asked: Option<(compaction::Plan, Result<String, ProviderError>)>,
    cancelled: bool,
    chat: Compacting<'_>,
) -> (Vec<Event>, TurnEnd) {
    let mut out = Vec::new();
    let end = match asked {
        Some((plan, Ok(reply))) => {
            out = plan.apply(&reply, chat.system, chat.messages, chat.window, chat.tools);
            TurnEnd::Completed
        }
        None => {
            out.push(Event::Notice(Notice::NothingToCompact));
            TurnEnd::Completed
        }
        Some((_, Err(_))) if cancelled => {
            out.push(Event::Notice(Notice::CompactionStopped));
            TurnEnd::Stopped
        }
        Some((_, Err(e))) => {
            out.push(Event::Notice(Notice::CompactionFailed(e)));
            TurnEnd::Completed
        }
    };
    out.push(Event::TurnEnded(end.clone()));
    (out, end)
}
