//! The agent's side of the context window: what it knows about the window, the request each
//! round sends (pruned or after a compaction when the history grew too big), the usage the
//! server reports, and recovery when the server still says the request does not fit.
//!
//! Checked before every request, tool-result follow-ups included; an unknown window is a
//! conservative default, never "no limit". Every change is reported: `Event::Context` for the
//! gauge (the tokens in use: `in_use.rs`), `Event::Pruned` and `Event::Compacted` for the
//! transcript and the session.

use tokio_util::sync::CancellationToken;

use super::compaction;
use super::context::{
    Budget, DEFAULT_RATIO, KEEP_ROUNDS, StandIns, prepare, prune, request_chars, round_start,
    tail_start, tokens, tools_chars,
};
use super::in_use::{Counted, InUse};
use super::{Agent, Event, EventSink, TurnEnd};
use crate::provider::{ChatMessage, ChatRequest, ProviderError, ToolSpec};

use crate::provider::window::{Confidence, DEFAULT_WINDOW};
use crate::tools::approval::Interaction;

/// What the agent knows about the window and the requests it sent.
#[derive(Debug, Clone)]
pub struct WindowState {
    pub tokens: u64,
    /// Where the size came from.
    pub source: String,
    /// Characters per token, calibrated on the server's plausible usage.
    pub ratio: f64,
    /// The last plausible usage the ratio was calibrated on: (prompt tokens, characters sent).
    pub calibrated_on: Option<(u64, usize)>,
    /// The tokens in use as last reported: what the gauge and `/context` show.
    pub in_use: Option<InUse>,
    /// Characters of the last request sent, to calibrate with its usage.
    pub last_sent_chars: usize,
    /// Tool outputs the last request sent as stand-ins.
    pub pruned: usize,
    pub compactions: usize,
    /// The user was told the window is nearly full (once until the next compaction).
    pub warned: bool,
    /// The model and base URL the window was found out for (`None`: not yet, or the server
    /// may still change it once it loads the model). A corrected base URL asks again.
    pub learned_for: Option<(String, String)>,
    /// The instruction notes (a file cut at the cap…) were shown.
    pub notes_shown: bool,
    /// The default tools were fitted to a reported window (once per chat).
    pub tools_fitted: bool,
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
            in_use: None,
            last_sent_chars: 0,
            pruned: 0,
            compactions: 0,
            warned: false,
            learned_for: None,
            notes_shown: false,
            tools_fitted: false,
            stand_ins: StandIns::default(),
        }
    }
}

/// The gauge's share from which the user is told the window is filling up.
pub const WARN_AT: u64 = 70;

impl Agent {
    /// The window to budget with from now on.
    pub fn set_window(&mut self, tokens: u64, source: impl Into<String>) {
        self.window.tokens = tokens.max(256);
        self.window.source = source.into();
    }

    pub fn window(&self) -> &WindowState {
        &self.window
    }

    /// Finds out the current model's window (config, else the server, else the default;
    /// cached by the client) unless it is known already, and reports it on the gauge. The
    /// first time, also shows the instruction notes (an `AGENTS.md` cut at the cap…), and a
    /// small window narrows the default tools (`fit_tools_to_window`).
    pub async fn learn_window(&mut self, sink: &EventSink) {
        if !self.window.notes_shown {
            self.window.notes_shown = true;
            for note in &self.settings.instructions.notes {
                sink.emit(Event::Info(Ok(note.clone())));
            }
        }
        let key = (self.model.get(), self.client.base_url());
        if self.window.learned_for.as_ref() == Some(&key) {
            return;
        }
        let w = self.client.context_window(&key.0).await;
        if !w.awaits_loading() {
            self.window.learned_for = Some(key);
        }
        self.set_window(w.tokens, w.origin());
        // An assumed window says nothing about the model: the tools stay.
        if w.confidence != Confidence::Assumed {
            self.fit_tools_to_window(w.tokens, sink);
        }
        self.report_estimate(sink);
    }

    /// Reports the estimate of what the next request sends as the tokens in use: when the
    /// window is learned, and when a new chat starts (so the gauge and `/context` go on
    /// showing one number).
    pub fn report_estimate(&mut self, sink: &EventSink) {
        let tools = self.tool_specs();
        let sendable = prepare(
            &self.messages,
            tools_chars(&tools),
            self.window.ratio,
            self.budget().compact_at(),
            &mut self.window.stand_ins,
        )
        .map(|(sent, _)| self.estimate(&sent, &tools));
        let in_use = InUse {
            tokens: sendable.unwrap_or_else(|| self.estimate(&self.messages, &tools)),
            counted: Counted::Estimated,
        };
        self.report_in_use(in_use, sink);
    }

    /// The first time a window is reported for this chat (at its start, or before a resumed
    /// chat goes on): when it is small, the default tools become the `files` ones (tools the
    /// chat added stay), unless the user chose the tools. A later model switch changes no
    /// tools under the conversation.
    fn fit_tools_to_window(&mut self, tokens: u64, sink: &EventSink) {
        if self.window.tools_fitted || self.settings.default_tools_chosen {
            return;
        }
        self.window.tools_fitted = true;
        let defaults = self.engine.defaults().clone();
        let offer = crate::tools::footprint::offer_for(tokens, &defaults, &self.groups, false);
        let Some(notice) = offer.notice else {
            return;
        };
        self.engine.set_defaults(offer.tools.clone());
        for dropped in defaults.difference(&offer.tools) {
            self.engine.deactivate(dropped);
        }
        let system = self.system_message();
        match self.messages.first_mut() {
            Some(ChatMessage::System { content }) => *content = system,
            _ => self
                .messages
                .insert(0, ChatMessage::System { content: system }),
        }
        sink.emit(Event::Info(Ok(notice)));
    }

    /// A new chat: what was learned about the window stays, the counts start over.
    pub(super) fn reset_window_counts(&mut self) {
        let w = &mut self.window;
        (w.last_sent_chars, w.pruned, w.compactions) = (0, 0, 0);
        (w.in_use, w.warned) = (None, false);
        w.stand_ins = StandIns::default();
    }

    pub(super) fn budget(&self) -> Budget {
        Budget {
            window: self.window.tokens,
        }
    }

    fn estimate(&self, messages: &[ChatMessage], tools: &[ToolSpec]) -> u64 {
        tokens(request_chars(messages, tools), self.window.ratio)
    }

    /// The messages the next request sends: the history, pruned when it grew past 60 % of the
    /// window; compacted first when even that is past 80 % (see [`Budget`]). `Err` when what
    /// is left after that still does not fit.
    pub(super) async fn fit(
        &mut self,
        tools: &[ToolSpec],
        sink: &EventSink,
        cancel: &CancellationToken,
    ) -> Result<Vec<ChatMessage>, ProviderError> {
        let budget = self.budget();
        if self.estimate(&self.messages, tools) <= budget.prune_at() {
            let sent = self.messages.clone();
            self.window.last_sent_chars = request_chars(&sent, tools);
            return Ok(sent);
        }
        // The system prompt and the tools alone too big: nothing pruning or compaction can do.
        if self.fixed_tokens(&self.messages, tools) > budget.input() {
            let estimate = self.estimate(&self.messages, tools);
            return Err(self.too_large(&self.messages, tools, estimate, budget));
        }
        // Old outputs first: the fewest elided that bring it under the compaction threshold.
        // When even the last round's outputs alone leave it over, the rest of the history is
        // what is too long: compact it (and prune what follows the same way).
        let sent = match self.pruned_under(budget.compact_at(), tools, sink) {
            Some(sent) => sent,
            None => {
                sink.emit(Event::Info(Ok(
                    "the conversation nearly fills the context window: summarising its older part (one request)…".into(),
                )));
                self.compact(None, tools, sink, cancel).await?;
                self.pruned_under(budget.input(), tools, sink)
                    .unwrap_or_else(|| prune(&self.messages, 1).0)
            }
        };
        let estimate = self.estimate(&sent, tools);
        if estimate > budget.input() {
            return Err(self.too_large(&sent, tools, estimate, budget));
        }
        self.window.last_sent_chars = request_chars(&sent, tools);
        Ok(sent)
    }

    /// The history with the fewest old tool outputs elided (keeping the last
    /// [`KEEP_ROUNDS`], then 2, then 1 rounds' outputs) whose estimate is at most `limit`.
    /// The first time outputs are elided (since the chat began or was compacted) it says so.
    /// `None`: not even that fits.
    fn pruned_under(
        &mut self,
        limit: u64,
        tools: &[ToolSpec],
        sink: &EventSink,
    ) -> Option<Vec<ChatMessage>> {
        let (sent, stats) = prepare(
            &self.messages,
            tools_chars(tools),
            self.window.ratio,
            limit,
            &mut self.window.stand_ins,
        )?;
        if self.window.pruned == 0 && stats.outputs > 0 {
            sink.emit(Event::Pruned {
                outputs: stats.outputs,
                chars: stats.chars,
            });
        }
        self.window.pruned = stats.outputs;
        Some(sent)
    }

    /// Where a compaction splits the history, and the request in progress when the split is
    /// inside the last turn: before the last user message when there are earlier turns and
    /// that turn is not itself big (over half the compaction threshold, pruned); else before
    /// its last [`KEEP_ROUNDS`] rounds. `None`: nothing to summarise.
    fn split(&self, tools: &[ToolSpec]) -> Option<(usize, Option<String>)> {
        let m = &self.messages;
        let user_at = tail_start(m);
        let turn: Vec<ChatMessage> = m[..1.min(m.len())]
            .iter()
            .chain(&m[user_at..])
            .cloned()
            .collect();
        let turn_is_big =
            self.estimate(&prune(&turn, KEEP_ROUNDS).0, tools) > self.budget().compact_at() / 2;
        if user_at > 1 && user_at < m.len() && !turn_is_big {
            return Some((user_at, None));
        }
        let rounds = user_at + round_start(&m[user_at..], KEEP_ROUNDS);
        if rounds <= user_at || user_at >= m.len() {
            return (user_at > 1).then_some((user_at, None));
        }
        let request = match &m[user_at] {
            ChatMessage::User { content } => compaction::request_in(content).to_owned(),
            _ => String::new(),
        };
        Some((rounds, Some(request)))
    }

    /// Replaces the older history with a summary the model writes (one request): the turns
    /// before the last one, or, when that turn is long, also its early rounds (the summary
    /// then carries its request verbatim). `focus` says what to keep in particular
    /// (`/compact FOCUS`). `Ok(false)`: there was nothing older to summarise.
    pub async fn compact(
        &mut self,
        focus: Option<&str>,
        tools: &[ToolSpec],
        sink: &EventSink,
        cancel: &CancellationToken,
    ) -> Result<bool, ProviderError> {
        let Some((start, request)) = self.split(tools) else {
            return Ok(false);
        };
        let older = &self.messages[1.min(self.messages.len())..start];
        if older.is_empty() {
            return Ok(false);
        }
        let before = self.estimate(&self.messages, tools);
        let req = compaction::request(
            &self.model.get(),
            older,
            focus,
            self.budget(),
            self.window.ratio,
        );
        let reply = tokio::select! {
            r = self.client.complete(&req) => r?,
            () = cancel.cancelled() => return Err(ProviderError::Dropped("stopped".into())),
        };
        let summary = compaction::with_request(&reply.content, request.as_deref());
        let tail: Vec<ChatMessage> = self.messages[start..].to_vec();
        let system = ChatMessage::System {
            content: self.system_message(),
        };
        self.messages = compaction::rebuild(system, &summary, &tail);
        self.window.stand_ins = StandIns::default();
        self.window.compactions += 1;
        self.window.pruned = 0;
        self.window.warned = false;
        let after = self.estimate(&self.messages, tools);
        sink.emit(Event::Compacted {
            summary,
            before,
            after,
            tail: tail.len(),
        });
        let in_use = InUse {
            tokens: after,
            counted: Counted::Estimated,
        };
        self.report_in_use(in_use, sink);
        Ok(true)
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
        let end = match self.compact(focus, &tools, sink, cancel).await {
            Ok(true) => TurnEnd::Completed,
            Ok(false) => {
                sink.emit(Event::Info(Ok(
                    "nothing to compact yet: the conversation is too short".into(),
                )));
                TurnEnd::Completed
            }
            Err(_) if cancel.is_cancelled() => {
                sink.emit(Event::Info(Ok(
                    "compaction stopped; the history is unchanged".into(),
                )));
                TurnEnd::Stopped
            }
            Err(e) => {
                sink.emit(Event::Info(Err(format!(
                    "could not compact: {e} — the history is unchanged"
                ))));
                TurnEnd::Completed
            }
        };
        sink.emit(Event::TurnEnded(end.clone()));
        end
    }

    /// The server said the request does not fit: learn its window and make room. `Ok` when
    /// the next attempt may fit.
    pub(super) async fn recover(
        &mut self,
        window: Option<u64>,
        tools: &[ToolSpec],
        sink: &EventSink,
        cancel: &CancellationToken,
    ) -> Result<(), ProviderError> {
        if let Some(w) = window.filter(|w| *w < self.window.tokens) {
            self.set_window(w, "the server's overflow error");
            self.window.learned_for = Some((self.model.get(), self.client.base_url()));
        }
        sink.emit(Event::Info(Ok(format!(
            "the request did not fit the model's context window ({} tokens): making room and trying once more",
            self.window.tokens
        ))));
        self.compact(None, tools, sink, cancel).await.map(|_| ())
    }
}

impl Agent {
    /// Tokens every request carries whatever the conversation: the system prompt and the
    /// tool schemas.
    fn fixed_tokens(&self, messages: &[ChatMessage], tools: &[ToolSpec]) -> u64 {
        let system = match messages.first() {
            Some(m @ ChatMessage::System { .. }) => std::slice::from_ref(m),
            _ => &[],
        };
        self.estimate(system, tools)
    }

    /// The error for a request that does not fit even pruned and compacted: what takes the
    /// room — the system prompt and tool schemas every request carries, or the turn's own
    /// messages — and what to do about it (no TUI command headless).
    fn too_large(
        &self,
        sent: &[ChatMessage],
        tools: &[ToolSpec],
        estimate: u64,
        budget: Budget,
    ) -> ProviderError {
        let window = budget.window;
        let fixed = self.fixed_tokens(sent, tools);
        let message = if fixed > budget.input() {
            format!(
                "the system prompt and the {} tool schemas alone are about {fixed} tokens, more than the model's context window of {window} tokens can take with room for a reply; give the model a larger window (llama.cpp `-c`, Ollama `num_ctx`) and tell sayso with `context_window` in the config, or offer fewer tools with `--tools` (e.g. `--tools read_file,run_command`)",
                tools.len()
            )
        } else {
            let new_chat = match self.engine.interaction() {
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
}

/// A request for `messages` and `tools` to `model`.
pub(super) fn request(
    model: String,
    messages: Vec<ChatMessage>,
    tools: Vec<ToolSpec>,
) -> ChatRequest {
    let mut r = ChatRequest::new(model, messages);
    r.tools = tools;
    r
}
