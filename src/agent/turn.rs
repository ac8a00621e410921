//! One user message's turn as a pure state machine: [`Turn::step`] takes an [`Input`] and
//! returns the [`Effect`]s to perform. No IO, no async: what each request sends (the history,
//! pruned, or after a compaction), the usage and the gauge, the overflow retry, the call ids,
//! the tool messages, the loop guard, resubmitting, `max_turns`, the length limit and stops
//! are all decided here, so the whole loop is tested as a table of input sequences
//! (`turn/tests.rs`) and a property test over random event orders (`turn/props.rs`). The
//! driver ([`driver`], behind [`super::Agent::send`], which both front-ends call) performs the
//! effects: it streams a request, asks for a summary, runs a batch on the engine, emits.
//!
//! ```text
//! Waiting ─User→ round ─fit→ Streaming ─reply without calls→ Done
//!                 ↑ │ │      (or Compact → Compacting ─Summary→ Streaming)
//!                 │ │ └─ too large, or max_turns used → Done
//!                 │ └──── Streaming ─overflow error (≤ 3)→ smaller retry: pruned | Compacting
//!                 │                     ─Summary→ retry | fewer tools | too large → Done
//!                 └─ resubmit ─ Running ←reply with calls─ Streaming
//! Stop: Waiting, Streaming, Compacting → Done; Running → Done with the batch's results
//! ```
//!
//! Invariants (checked by the property test):
//! - every call id of a reply ends with exactly one tool message, in call order, before the
//!   next request (a call the batch left unanswered gets the no-output stand-in);
//! - no request is sent whose estimate is over the window's input budget;
//! - a retry after an overflow error is strictly smaller than the request refused, and there
//!   are at most [`MAX_OVERFLOW_RETRIES`] of them;
//! - a stop ends the turn at once — during a batch, as soon as its results are in (the batch
//!   stops itself) — and nothing is asked for after it;
//! - a queued user message ([`Input::Queued`]) is delivered exactly once: as a user message
//!   before the next request of this turn, or handed back with [`Finished`] when the turn
//!   ends first;
//! - exactly one [`Effect::Finish`], after `Event::TurnEnded`, and nothing after it.
//!
//! What the machine does not do: learn the window or sync the MCP servers (the driver does
//! both before the turn, also between turns), expand `@{…}` mentions (the driver hands over
//! the message expanded, with the added tools' system prompts), name the model (every request
//! it makes names none: the driver sends it to the model in use at that moment, so a `/model`
//! during a turn applies from the next request).
//!
//! The transitions live in three parts: `sending` (rounds, fitting, compaction), `replying`
//! (stream events, the reply, overflow) and `answering` (a batch's results, the loop guard,
//! resubmitting). A new way to recover from a failed request goes in `replying::failed` (the
//! overflow retry is `overflowed`); a new reading of a finished reply in `replying::replied`.

use super::call_ids::CallIds;
use super::compaction;
use super::loop_guard::LoopGuard;
use super::window::WindowState;
use crate::events::{CallEnd, Event, Notice, TurnEnd};
use crate::provider::{ChatMessage, ChatRequest, ProviderError, StreamEvent, ToolCall, ToolSpec};
use crate::tools::policy::approval::Interaction;

mod answering;
pub mod driver;
mod images;
mod replying;
mod sending;
mod text_calls;

#[cfg(test)]
mod props;
#[cfg(test)]
mod tests;

/// What a turn works on: moved out of the agent when it starts, given back when it ends.
#[derive(Debug, Clone, Default)]
pub struct Chat {
    /// The provider history (the system prompt first).
    pub messages: Vec<ChatMessage>,
    pub window: WindowState,
    pub call_ids: CallIds,
    /// The server refused the `tools` parameter: they are described in the system message
    /// and calls read from the replies' text (`text_calls`).
    pub tools_in_text: bool,
}

/// The loop settings a turn follows.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// Model round-trips allowed.
    pub max_turns: u32,
    pub auto_submit_success: bool,
    pub auto_submit_errors: bool,
    /// Whether someone can answer (what the messages suggest doing).
    pub interaction: Interaction,
    /// `[provider] text_tool_calls = "auto"`: read tool calls written as text.
    pub text_tool_calls: bool,
}

/// Everything a turn starts with.
#[derive(Debug, Clone)]
pub struct Setup {
    pub chat: Chat,
    /// The schemas offered in every request of the turn.
    pub tools: Vec<ToolSpec>,
    /// The system message a compaction puts first.
    pub system: String,
    pub rules: Rules,
}

/// The user's message, as the driver prepared it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UserMessage {
    /// As typed.
    pub text: String,
    /// As sent to the model (mentions expanded).
    pub sent: String,
    /// The tools its `@{…}` mentions added (already offered by the engine)…
    pub tools_added: Vec<String>,
    /// …and their system prompts, which join the history before the message.
    pub prompts: Vec<String>,
    /// The images its `@` mentions attached (`crate::attach`; their text is in `sent`)…
    pub images: Vec<crate::provider::Image>,
    /// …and the notices saying what was attached, cut or refused, shown after the message.
    pub attached: Vec<Notice>,
}

/// How one call of a batch ended, and its tool message.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub call_id: String,
    pub end: CallEnd,
    pub content: String,
}

/// What a batch produced (the engine's `BatchResult`, as the turn needs it).
#[derive(Debug, Clone, PartialEq)]
pub struct Answers {
    pub results: Vec<Answer>,
    pub had_error: bool,
    /// Cancel in the modal, or a stop.
    pub ends_turn: Option<TurnEnd>,
}

/// What the turn is told.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// The user's message: the first input.
    User(UserMessage),
    /// An event of the request's stream.
    Stream(StreamEvent),
    /// The stream ended without `Finished`.
    StreamEnded,
    /// The summary the model wrote (its text), or why there is none.
    Summary(Result<String, ProviderError>),
    /// The batch's results.
    Batch(Answers),
    /// A user message written while the turn runs (the hook for queued messages): delivered
    /// once, at the next safe point.
    Queued(String),
    /// The user stopped the turn.
    Stop,
}

/// What the driver must do. At most one of `Request`, `Summarise`, `RunBatch` per step, after
/// the emits; the next inputs are its answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Emit(Event),
    /// Stream this request (to the model in use: its `model` is empty) and pass on its events.
    Request(ChatRequest),
    /// Ask for this summary (to the model in use), without streaming; answer with
    /// [`Input::Summary`].
    Summarise(ChatRequest),
    /// Run these calls on the engine; answer with [`Input::Batch`].
    RunBatch(Vec<ToolCall>),
    /// The server's overflow error gave the window (now in the turn's state): it is the one of
    /// the model in use, not to be asked again.
    WindowLearned,
    /// An overflow retry offers fewer tools: these are no longer offered, for the rest of the
    /// chat (the engine stops offering them).
    ToolsDropped(Vec<String>),
    /// The turn is over.
    Finish(Finished),
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub end: TurnEnd,
    /// Queued messages the turn ended before delivering, in order: the front end sends them
    /// next.
    pub queued: Vec<String>,
}

/// Overflow errors a turn answers with a smaller request; the next one ends it.
pub const MAX_OVERFLOW_RETRIES: u32 = 3;

/// After a summary: what comes next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Then {
    /// Send this round's request (pruned under the input budget).
    Send,
    /// The server's overflow error asked for room: the retry, smaller than what failed.
    Retry,
}

/// Where the turn is.
enum Phase {
    /// Before the user's message.
    Waiting,
    /// A summary is asked for.
    Compacting {
        plan: compaction::Plan,
        then: Then,
    },
    /// A request streams; the reply's text so far.
    Streaming {
        partial: String,
    },
    /// The reply's calls run.
    Running {
        calls: Vec<ToolCall>,
    },
    Done,
}

/// One user message's turn.
pub struct Turn {
    chat: Chat,
    tools: Vec<ToolSpec>,
    system: String,
    rules: Rules,
    phase: Phase,
    /// Round-trips begun.
    round: u32,
    /// The server's overflow errors answered so far (at most [`MAX_OVERFLOW_RETRIES`]).
    overflow_retries: u32,
    /// Characters of the last request the server refused as too large: a retry is smaller.
    overflowed_chars: usize,
    /// The history was compacted since the last overflow error.
    compacted_for_retry: bool,
    guard: LoopGuard,
    /// Queued messages not delivered yet.
    queued: Vec<String>,
    /// A stop came while the batch ran: the turn ends with its results.
    stopped: bool,
}

impl Turn {
    pub fn new(setup: Setup) -> Self {
        Self {
            chat: setup.chat,
            tools: setup.tools,
            system: setup.system,
            rules: setup.rules,
            phase: Phase::Waiting,
            round: 0,
            overflow_retries: 0,
            overflowed_chars: usize::MAX,
            compacted_for_retry: false,
            guard: LoopGuard::default(),
            queued: Vec::new(),
            stopped: false,
        }
    }

    /// What the turn works on, as it stands.
    pub fn chat(&self) -> &Chat {
        &self.chat
    }

    /// The history, the window and the call ids, to give back to the agent.
    pub fn into_chat(self) -> Chat {
        self.chat
    }

    /// The queued messages not delivered yet, taken (for a driver that must end the turn
    /// itself: none is lost).
    pub fn take_queued(&mut self) -> Vec<String> {
        std::mem::take(&mut self.queued)
    }

    /// The turn has finished.
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done)
    }

    /// Takes one input; returns what to do.
    pub fn step(&mut self, input: Input) -> Vec<Effect> {
        let mut fx = Vec::new();
        match (std::mem::replace(&mut self.phase, Phase::Done), input) {
            (Phase::Done, _) => {}
            (phase, Input::Queued(text)) => {
                self.queued.push(text);
                self.phase = phase;
            }
            (Phase::Waiting, Input::User(m)) => self.user(m, &mut fx),
            (Phase::Streaming { partial }, Input::Stream(ev)) => {
                self.streamed(partial, ev, &mut fx)
            }
            (Phase::Streaming { .. }, Input::StreamEnded) => self.failed(
                ProviderError::Dropped("the stream ended unexpectedly".into()),
                &mut fx,
            ),
            (Phase::Compacting { plan, then }, Input::Summary(summary)) => {
                self.summarised(plan, then, summary, &mut fx)
            }
            (Phase::Running { calls }, Input::Batch(answers)) => {
                self.answered(&calls, answers, &mut fx)
            }
            // The batch stops on its own (it has the stop too); its results still come.
            (Phase::Running { calls }, Input::Stop) => {
                self.stopped = true;
                self.phase = Phase::Running { calls };
            }
            (phase, Input::Stop) => self.stop(phase, &mut fx),
            // An answer to something not asked: ignore it, keep waiting.
            (phase, _) => self.phase = phase,
        }
        fx
    }

    /// Stopped while nothing runs that must answer first.
    fn stop(&mut self, phase: Phase, fx: &mut Vec<Effect>) {
        if let Phase::Streaming { partial } = phase {
            fx.push(Effect::Emit(Event::ReplyInterrupted {
                partial: partial.clone(),
            }));
            // What arrived is kept in the history.
            if !partial.is_empty() {
                self.chat.messages.push(ChatMessage::Assistant {
                    content: partial,
                    tool_calls: Vec::new(),
                    reasoning: None,
                });
            }
        }
        self.finish(TurnEnd::Stopped, fx);
    }

    fn finish(&mut self, end: TurnEnd, fx: &mut Vec<Effect>) {
        self.phase = Phase::Done;
        fx.push(Effect::Emit(Event::TurnEnded(end.clone())));
        fx.push(Effect::Finish(Finished {
            end,
            queued: std::mem::take(&mut self.queued),
        }));
    }

    /// The events in `out`, as effects.
    fn emit(fx: &mut Vec<Effect>, out: Vec<Event>) {
        fx.extend(out.into_iter().map(Effect::Emit));
    }
}
