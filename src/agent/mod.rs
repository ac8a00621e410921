//! The conversation loop: user message → stream the reply → hand tool calls to the engine →
//! send the results back → repeat until the model answers without tool calls, the user stops,
//! a Cancel ends the batch, or `max_turns` round-trips are used.
//!
//! Everything that happens is reported as [`AgentEvent`]s on one channel; the TUI, the headless
//! printer and the transcript all consume them. The loop keeps the provider history
//! (`messages`): every assistant tool-call message is followed by exactly one tool message per
//! call id, in call order, before the next request.

pub mod mentions;
pub mod transcript;

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::provider::{
    AssistantMessage, ChatMessage, ChatRequest, Client, ProviderError, StreamDelta, StreamEvent,
    ToolSpec,
};
use crate::tools::events::{EngineEvent, EventSender};
use crate::tools::orchestrator::{BatchOutcome, Engine};

/// Loop settings.
#[derive(Debug, Clone)]
pub struct AgentSettings {
    pub model: String,
    pub system_prompt: String,
    /// Model round-trips allowed per user message.
    pub max_turns: u32,
    pub auto_submit_success: bool,
    pub auto_submit_errors: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A piece of the reply being streamed.
    Delta(StreamDelta),
    /// The current attempt failed and will be retried: discard what it streamed.
    Retrying {
        retry: u32,
        max_retries: u32,
        delay: std::time::Duration,
        error: ProviderError,
    },
    /// One round-trip's reply is complete.
    ReplyDone(AssistantMessage),
    /// The user stopped while the reply streamed: what had arrived is kept.
    ReplyInterrupted {
        partial: String,
    },
    Engine(EngineEvent),
}

/// How a user message's turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// The model answered without tool calls (or auto-submit is off).
    Completed,
    /// The user chose Cancel for a tool call: control returns to them.
    Cancelled,
    /// The user stopped (Esc / Ctrl+C / SIGINT).
    Stopped,
    /// `max_turns` round-trips without a final answer.
    MaxTurns(u32),
    /// The reply was cut off by the token limit.
    LengthLimit,
    /// The endpoint failed after retries.
    Failed(ProviderError),
}

/// An agent for a new chat, configured from `config`.
pub fn build(
    config: &crate::config::Config,
    client: Client,
    setup: crate::tools::setup::ToolSetup,
    cwd: std::path::PathBuf,
    interaction: crate::tools::approval::Interaction,
    approver: Option<crate::tools::events::ApprovalSender>,
    questions: Option<crate::tools::context::QuestionSender>,
) -> Agent {
    let judge = config.judge.enabled.then(|| {
        let model = config
            .judge
            .model
            .clone()
            .unwrap_or_else(|| config.model.clone());
        std::sync::Arc::new(crate::tools::judge::Judge::new(
            client.clone(),
            model,
            config.judge.timeout,
        ))
    });
    let groups = setup.groups;
    let engine = Engine {
        registry: std::sync::Arc::new(setup.registry),
        active: setup.active,
        approvals: Default::default(),
        flags: Default::default(),
        mode: crate::tools::approval::SharedMode::new(if config.tools.auto {
            crate::tools::approval::Mode::Auto
        } else {
            crate::tools::approval::Mode::Normal
        }),
        interaction,
        allowed_tools: setup.allowed,
        judge,
        cwd,
        approver,
        ctx: std::sync::Arc::new(crate::tools::context::ToolContext {
            ledger: Default::default(),
            questions,
            memory_dir: config.dirs.data.join("memories"),
            own_paths: config.own_paths(),
            secret_env: config.secret_env.clone(),
        }),
    };
    let mut agent = Agent::new(
        client,
        engine,
        AgentSettings {
            model: config.model.clone(),
            system_prompt: config.system_prompt.clone(),
            max_turns: config.tools.max_turns,
            auto_submit_success: config.tools.auto_submit_success,
            auto_submit_errors: config.tools.auto_submit_errors,
        },
    );
    agent.groups = groups;
    agent
}

pub struct Agent {
    pub client: Client,
    pub engine: Engine,
    pub settings: AgentSettings,
    /// Tool groups, for `@{group}` mentions.
    pub groups: std::collections::BTreeMap<String, crate::tools::setup::Group>,
    /// The provider history.
    pub messages: Vec<ChatMessage>,
}

impl Agent {
    pub fn new(client: Client, engine: Engine, settings: AgentSettings) -> Self {
        let mut agent = Self {
            client,
            engine,
            settings,
            groups: Default::default(),
            messages: Vec::new(),
        };
        let system = agent.system_message();
        if !system.is_empty() {
            agent.messages.push(ChatMessage::System { content: system });
        }
        agent
    }

    /// Starts a new chat: empty history (but the system prompt) and no remembered approvals.
    pub fn reset(&mut self) {
        self.messages.clear();
        self.engine.approvals.clear();
        let system = self.system_message();
        if !system.is_empty() {
            self.messages.push(ChatMessage::System { content: system });
        }
    }

    /// The system prompt plus each active tool's own system prompt.
    fn system_message(&self) -> String {
        let mut parts = vec![self.settings.system_prompt.trim().to_owned()];
        for name in &self.engine.active {
            if let Some(p) = self
                .engine
                .registry
                .get(name)
                .and_then(|e| e.tool.system_prompt())
            {
                parts.push(p.trim().to_owned());
            }
        }
        parts.retain(|p| !p.is_empty());
        parts.join("\n\n")
    }

    /// The schemas offered to the model.
    pub fn tool_specs(&self) -> Vec<ToolSpec> {
        self.engine
            .active
            .iter()
            .filter_map(|n| self.engine.registry.get(n))
            .map(|e| e.tool.spec())
            .collect()
    }

    /// Runs one user message to the end of its turn.
    pub async fn send(
        &mut self,
        user: &str,
        events: &mpsc::UnboundedSender<AgentEvent>,
        cancel: &CancellationToken,
    ) -> TurnEnd {
        // @{name} mentions add tools for the rest of the chat; their system prompts go in first.
        let expanded = mentions::expand(
            user,
            &self.engine.registry,
            &self.groups,
            &self.engine.active,
        );
        for name in &expanded.added {
            self.engine.active.insert(name.clone());
            if let Some(p) = self
                .engine
                .registry
                .get(name)
                .and_then(|e| e.tool.system_prompt())
            {
                self.messages.push(ChatMessage::System { content: p });
            }
        }
        self.messages.push(ChatMessage::User {
            content: expanded.text,
        });
        let emit = |e: AgentEvent| {
            let _ = events.send(e);
        };
        for _round in 0..self.settings.max_turns {
            let mut request = ChatRequest::new(self.settings.model.clone(), self.messages.clone());
            request.tools = self.tool_specs();
            let reply = match self.stream(&request, &emit, cancel).await {
                Ok(m) => m,
                Err(end) => return end,
            };
            emit(AgentEvent::ReplyDone(reply.clone()));
            self.messages.push(ChatMessage::Assistant {
                content: reply.content.clone(),
                tool_calls: reply.tool_calls.clone(),
            });
            if reply.tool_calls.is_empty() {
                return if reply.hit_length_limit() {
                    TurnEnd::LengthLimit
                } else {
                    TurnEnd::Completed
                };
            }
            let tx = events.clone();
            let sink = EventSender::new(move |e| {
                let _ = tx.send(AgentEvent::Engine(e));
            });
            let batch = self
                .engine
                .run_batch(&reply.tool_calls, &sink, cancel)
                .await;
            for r in &batch.results {
                self.messages.push(ChatMessage::Tool {
                    tool_call_id: r.call_id.clone(),
                    content: r.content(),
                });
            }
            match batch.outcome {
                BatchOutcome::Cancelled => return TurnEnd::Cancelled,
                BatchOutcome::Stopped => return TurnEnd::Stopped,
                BatchOutcome::Completed { had_error } => {
                    let resubmit = if had_error {
                        self.settings.auto_submit_errors
                    } else {
                        self.settings.auto_submit_success
                    };
                    if !resubmit {
                        return TurnEnd::Completed;
                    }
                }
            }
        }
        TurnEnd::MaxTurns(self.settings.max_turns)
    }

    /// Streams one reply. On stop, keeps the partial text in the history.
    async fn stream(
        &mut self,
        request: &ChatRequest,
        emit: &impl Fn(AgentEvent),
        cancel: &CancellationToken,
    ) -> Result<AssistantMessage, TurnEnd> {
        let mut stream = std::pin::pin!(self.client.stream_chat(request));
        let mut partial = String::new();
        loop {
            let event = tokio::select! {
                ev = stream.next() => ev,
                () = cancel.cancelled() => {
                    emit(AgentEvent::ReplyInterrupted { partial: partial.clone() });
                    if !partial.is_empty() {
                        self.messages.push(ChatMessage::Assistant { content: partial, tool_calls: Vec::new() });
                    }
                    return Err(TurnEnd::Stopped);
                }
            };
            match event {
                Some(StreamEvent::Delta(d)) => {
                    if let StreamDelta::Text(t) = &d {
                        partial.push_str(t);
                    }
                    emit(AgentEvent::Delta(d));
                }
                Some(StreamEvent::Retrying {
                    retry,
                    max_retries,
                    delay,
                    error,
                }) => {
                    partial.clear();
                    emit(AgentEvent::Retrying {
                        retry,
                        max_retries,
                        delay,
                        error,
                    });
                }
                Some(StreamEvent::Finished(Ok(m))) => return Ok(m),
                Some(StreamEvent::Finished(Err(e))) => return Err(TurnEnd::Failed(e)),
                None => {
                    return Err(TurnEnd::Failed(ProviderError::Dropped(
                        "the stream ended unexpectedly".into(),
                    )));
                }
            }
        }
    }
}
