//! The conversation loop: user message → stream the reply → hand tool calls to the engine →
//! send the results back → repeat until the model answers without tool calls, the user stops,
//! a Cancel ends the batch, or `max_turns` round-trips are used.
//!
//! Everything that happens is reported as [`Event`]s into one [`EventSink`]; the TUI, the
//! headless printers and the session log all consume them; what the user reads of a notice
//! or an answer is worded by each front-end (`events::Notice`, `events::Answer`). The loop
//! keeps the provider history: every assistant tool-call message is followed by exactly one
//! tool message per call id, in call order, before the next request.
//!
//! One turn is the pure state machine [`turn::Turn`] (no IO: what each request sends, the
//! overflow retry, the tool messages, the loop guard, resubmitting, stops); its driver
//! ([`turn::driver`]) performs the effects, and [`Agent::send`] is its entry — the one way both
//! front-ends run a turn.
//!
//! [`Agent`] keeps its state private: front-ends drive it with [`task::Command`]s (or call
//! [`Agent::send`] directly, headless) and learn everything from events.
//!
//! - [`turn`]: one user message's turn as a state machine, and its driver.
//! - `build`: an agent for a new chat from the config ([`build()`]).
//! - [`call_ids`]: every call id unique for the whole chat (also across resume).
//! - [`resume_mode`]: the mode a resumed chat continues in (resuming never loosens).
//! - [`rewind`]: where `/rewind` cuts a session's records (pure; the fork is `saving`'s);
//!   [`undoing`]: `/undo`, `/redo`, `/rewind` driven (preview, yes, apply, the model told).
//! - [`task`]: the agent as a task — commands in, events out (the TUI's side of it).
//! - [`saving`]: the chat's session file: written while it happens, continued on resume.
//! - [`context`]: the window budget, estimates and pruning; [`compaction`]: the summary that
//!   replaces older history when pruning is not enough.
//! - [`window`]: the agent's side of the window: learning it, `/compact`; [`fit`]: what each
//!   request sends (pure); [`in_use`]: the tokens in use, from the usage or estimated;
//!   [`loop_guard`]: stops a model that repeats a failing call.
//! - [`instructions`]: the environment block and `AGENTS.md` files after the system prompt;
//!   [`live_files`]: they and the skills read again when they change during a chat.
//! - [`context_report`]: `/context`, what fills the window.
//! - [`mcp_sync`]: the MCP servers' tools offered as they start, change or fail.
//! - [`mentions`]: `@{name}` in a message adds tools or groups.
//! - [`output_cut`]: the last round's tool outputs cut to their heads: the last resort before
//!   a request is refused as too large.

pub mod build;
pub use build::{build, chat_sandbox};
pub mod call_ids;
pub mod compaction;
pub mod context;
pub mod context_report;
pub mod fit;
pub mod in_use;
pub mod instructions;
pub mod live_files;
pub mod loop_guard;
pub mod mcp_sync;
pub mod mentions;
pub mod output_cut;
pub mod resume_mode;
pub mod rewind;
pub mod saving;
pub mod steer;
pub mod task;
pub mod turn;
pub mod undoing;
pub mod window;

use std::collections::BTreeMap;

use crate::events::Notice;
pub use crate::events::{Event, EventSink, TurnEnd};
use crate::provider::{ChatMessage, Client, SharedModel, ToolSpec};
use crate::tools::configured::Group;
use crate::tools::context::QuestionSender;
use crate::tools::lifecycle::orchestrator::Engine;
use crate::tools::lifecycle::requests::ApprovalSender;
use crate::tools::policy::approval::{Interaction, SharedMode};

/// Loop settings.
#[derive(Debug, Clone)]
pub struct AgentSettings {
    pub system_prompt: String,
    /// The environment block and the project's instructions, after the system prompt.
    pub instructions: instructions::Instructions,
    /// Model round-trips allowed per user message.
    pub max_turns: u32,
    pub auto_submit_success: bool,
    pub auto_submit_errors: bool,
    /// The user chose the tools (`--tools`, `chat.default_tools`): a small window keeps them.
    pub default_tools_chosen: bool,
    /// `[provider] text_tool_calls`: read tool calls a model writes as text.
    pub text_tool_calls: bool,
    /// The user's config file, where a rule saved from the approval modal goes.
    pub user_config: std::path::PathBuf,
}

/// Who is at the other end of a chat, and how to reach them.
pub struct Frontend {
    pub interaction: Interaction,
    /// Where approval requests go (the TUI's modal); `None` headless.
    pub approver: Option<ApprovalSender>,
    /// Where `ask_questions` sends its questions; `None` headless.
    pub questions: Option<QuestionSender>,
}

pub struct Agent {
    client: Client,
    engine: Engine,
    settings: AgentSettings,
    model: SharedModel,
    /// Tool groups, for `@{group}` mentions.
    groups: BTreeMap<String, Group>,
    /// The provider history.
    messages: Vec<ChatMessage>,
    /// The context window and what was sent.
    window: window::WindowState,
    /// What finding out the window has done already.
    learning: window::Learning,
    /// The MCP servers, and what of them the engine and the user know.
    mcp: mcp_sync::McpState,
    /// Every call id of the chat so far: a new call never gets one of them.
    call_ids: call_ids::CallIds,
    /// The server refused the `tools` parameter: they go in the system message (kept for
    /// the chat, and past `/new`: it is the server's).
    tools_in_text: bool,
    /// The mode the chat started in and whether the command line chose it (for resume).
    start_mode: resume_mode::StartMode,
    /// Messages typed during a turn, shared with the front end.
    steer: steer::Steer,
    /// What the model is told with the next message (an undo it did not see: `undoing`).
    notes: Vec<String>,
    /// Images the front end sent with the next message itself, not as `@path` mentions (an
    /// editor's image blocks, `crate::acp`): they join that message's images.
    images: Vec<crate::provider::Image>,
    /// The project's files watched for changes (`None`: not watched).
    live: Option<live_files::Live>,
}

impl Agent {
    /// `images` go with the next message [`Agent::send`] sends, after its `@path` images.
    pub fn attach_images(&mut self, images: Vec<crate::provider::Image>) {
        self.images.extend(images);
    }

    pub fn new(
        client: Client,
        engine: Engine,
        model: SharedModel,
        settings: AgentSettings,
        groups: BTreeMap<String, Group>,
    ) -> Self {
        let start_mode = resume_mode::StartMode {
            mode: engine.mode().get(),
            explicit: false,
        };
        let mut agent = Self {
            start_mode,
            client,
            engine,
            settings,
            model,
            groups,
            messages: Vec::new(),
            window: Default::default(),
            learning: Default::default(),
            mcp: Default::default(),
            call_ids: Default::default(),
            tools_in_text: false,
            steer: Default::default(),
            notes: Vec::new(),
            images: Vec::new(),
            live: None,
        };
        agent.reset();
        agent
    }

    /// The queue of messages typed during a turn (a front end fills it).
    pub fn steer(&self) -> steer::Steer {
        self.steer.clone()
    }

    /// The model the next request goes to.
    pub fn model(&self) -> String {
        self.model.get()
    }

    /// The handle that changes it (also during a turn: from the next request on).
    pub fn model_handle(&self) -> SharedModel {
        self.model.clone()
    }

    /// The working directory tools run in.
    pub fn cwd(&self) -> &std::path::Path {
        self.engine.cwd()
    }

    /// The `AGENTS.md` files read into the system prompt, in the order they were read.
    pub fn instruction_files(&self) -> Vec<std::path::PathBuf> {
        let files = &self.settings.instructions.files;
        files.iter().map(|f| f.path.clone()).collect()
    }

    /// The provider's name, for status lines.
    pub fn provider(&self) -> &str {
        &self.client.settings().name
    }

    /// The mode handle, shared with whoever toggles it.
    pub fn mode(&self) -> SharedMode {
        self.engine.mode().clone()
    }

    /// The plan-mode handle, shared with whoever toggles it (`tools::policy::plan`).
    pub fn plan(&self) -> crate::tools::policy::plan::SharedPlan {
        self.engine.plan().clone()
    }

    /// Names `@{…}` may complete: every tool and group.
    pub fn mention_names(&self) -> Vec<String> {
        self.engine
            .registry()
            .entries()
            .map(|(n, _)| n.to_owned())
            .chain(self.groups.keys().cloned())
            .collect()
    }

    /// The engine, to read (tools, remembered approvals); changes go through commands.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The provider history (the system prompt first).
    pub fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    /// Starts a new chat: the system prompt alone, the default tools (not those `@{…}` added),
    /// no remembered approvals.
    pub fn reset(&mut self) {
        self.engine.reset();
        self.reset_window_counts();
        self.messages.clear();
        self.call_ids.clear();
        self.notes.clear();
        self.images.clear();
        let system = self.system_message();
        if !system.is_empty() {
            self.messages.push(ChatMessage::System { content: system });
        }
    }

    /// Continues a saved chat: its history (with the system prompts of the tools it added, at
    /// the point they were added), its mode and model, and its remembered approvals when it
    /// goes on in the mode they were given in. The saved mode never loosens the one this run
    /// starts in ([`resume_mode`]); when it is not restored for that reason, the returned
    /// notice says so and how to switch.
    pub fn restore(&mut self, saved: &crate::session::resume::Resumed) -> Option<Notice> {
        use crate::session::resume::Step;
        self.reset();
        for step in &saved.history {
            match step {
                Step::ToolsAdded(names) => {
                    let prompts = self.add_tools(names);
                    let prompts = prompts
                        .into_iter()
                        .map(|content| ChatMessage::System { content });
                    self.messages.extend(prompts);
                }
                Step::Compacted(summary) => {
                    self.messages = vec![
                        ChatMessage::System {
                            content: self.system_message(),
                        },
                        ChatMessage::User {
                            content: compaction::summary_message(summary),
                            images: Vec::new(),
                        },
                    ];
                }
                Step::Message(m) => self.messages.push(m.clone()),
            }
        }
        // Also the ids a compaction took out of the history: the replay still has them.
        for m in &self.messages {
            if let ChatMessage::Assistant { tool_calls, .. } = m {
                tool_calls.iter().for_each(|c| self.call_ids.seen(&c.id));
            }
        }
        for e in &saved.events {
            if let Event::ReplyDone(m) = e {
                m.tool_calls.iter().for_each(|c| self.call_ids.seen(&c.id));
            }
        }
        if let Some(r) = self.engine.checkpoints() {
            let sent = saved.events.iter();
            r.set_turn(
                sent.filter(|e| matches!(e, Event::UserMessage { .. }))
                    .count() as u32,
            );
        }
        if let Some(ratio) = saved.ratio.filter(|r| r.is_finite()) {
            self.window.ratio =
                ratio.clamp(context::MIN_CHARS_PER_TOKEN, context::MAX_CHARS_PER_TOKEN);
        }
        let (mode, notice) = resume_mode::resumed_mode(saved.mode, self.start_mode);
        self.engine.mode().set(mode);
        // What was remembered comes back only in the mode it was given in.
        self.engine.restore_approvals(saved.remembered.clone());
        if let Some(model) = &saved.model {
            self.model.set(model.clone());
        }
        notice
    }

    /// The system prompt, the environment block, the project's instructions, and each active
    /// tool's own system prompt.
    fn system_message(&self) -> String {
        let i = &self.settings.instructions;
        crate::tools::offer::compose(
            &self.settings.system_prompt,
            &[&i.environment, &i.text, i.skills_for(self.engine.active())],
            self.engine.registry(),
            self.engine.active(),
        )
    }

    /// The schemas offered to the model.
    pub fn tool_specs(&self) -> Vec<ToolSpec> {
        self.engine
            .active()
            .iter()
            .filter_map(|n| self.engine.registry().get(n))
            .map(|e| e.tool.spec())
            .collect()
    }

    /// Offers `names` for the rest of the chat; the system prompts of those newly offered, to
    /// join the history.
    fn add_tools(&mut self, names: &[String]) -> Vec<String> {
        let mut prompts = Vec::new();
        for name in names {
            if !self.engine.activate(name) {
                continue;
            }
            if let Some(p) = self
                .engine
                .registry()
                .get(name)
                .and_then(|e| e.tool.system_prompt())
            {
                prompts.push(p);
            }
        }
        prompts
    }
}
