//! The app state and its one `update` function: every input — keys, pastes, mouse, agent and
//! engine events, approval requests, turn ends, ticks — comes in as an [`AppEvent`]; state
//! changes happen only here, and what must happen outside (start a turn, stop it, copy, ring
//! the bell, quit) goes out as [`Effect`]s for the event loop to perform. Widgets draw from
//! `&App`.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};

use super::chat_view::{ChatView, ViewCtx};
use super::entry_lines::foldable;
use super::input::{Composer, InputOutcome};
use super::modal::ApprovalModal;
use super::strings;
use super::theme::Theme;
use crate::agent::transcript::{Entry, Transcript};
use crate::agent::{AgentEvent, TurnEnd};
use crate::headless::format_delay;
use crate::provider::{StreamDelta, Usage};
use crate::tools::approval::{Mode, SharedMode};
use crate::tools::events::{ApprovalRequest, EngineEvent};

/// Everything the app reacts to.
#[derive(Debug)]
pub enum AppEvent {
    Key(KeyEvent),
    Paste(String),
    Mouse(MouseEvent),
    Resize(u16, u16),
    Agent(AgentEvent),
    Approval(ApprovalRequest),
    /// `ask_questions` wants answers.
    Questions(crate::tools::context::QuestionRequest),
    TurnEnded(TurnEnd),
    /// The answer to a command the agent task ran between turns.
    Info(Result<String, String>),
    /// Time passed (only sent while something shows a clock).
    Tick,
}

/// Work for the event loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Start a turn with this user message.
    Send(String),
    /// Stop the running turn.
    Stop,
    Bell,
    Copy(String),
    /// Agent-task commands that run between turns.
    ListModels,
    SetModel(String),
    ListApprovals,
    ClearApprovals,
    ListTools,
    NewChat,
    Quit,
}

fn no_clock(_: &str) -> Option<Duration> {
    None
}

/// A view context for scrolling and folding, which do not depend on running clocks. Built from
/// fields (not `&self`) so the chat view can be borrowed mutably beside it.
fn still_ctx<'a>(theme: &'a Theme, width: u16, expanded: &'a HashSet<usize>) -> ViewCtx<'a> {
    ViewCtx {
        theme,
        width,
        expanded,
        elapsed: &no_clock,
    }
}

/// What the status bar says is happening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    Idle,
    Thinking,
    Streaming,
    Tool(String),
    Approval,
    Judge,
    Retrying {
        until: Instant,
        retry: u32,
        max: u32,
        error: String,
    },
}

pub struct App {
    pub theme: Theme,
    pub transcript: Transcript,
    pub chat: ChatView,
    pub input: Composer,
    pub modal: Option<ApprovalModal>,
    pub form: Option<super::questions::QuestionForm>,
    pub model: String,
    pub provider: String,
    pub cwd: String,
    pub mode: SharedMode,
    pub usage: Usage,
    pub activity: Activity,
    pub busy: bool,
    pub expanded: HashSet<usize>,
    pub tool_started: HashMap<String, Instant>,
    /// A one-line message under the input (errors of slash commands, hints).
    pub flash: Option<String>,
    pub bell: bool,
    pub quit: bool,

    /// Terminal size.
    pub size: (u16, u16),
    last_ctrl_c: Option<Instant>,
    /// Approval requests that arrived while a modal was open.
    queued_approvals: std::collections::VecDeque<ApprovalRequest>,
}

impl App {
    pub fn new(
        theme: Theme,
        model: String,
        provider: String,
        cwd: String,
        mode: SharedMode,
    ) -> Self {
        Self {
            theme,
            transcript: Transcript::default(),
            chat: ChatView::default(),
            input: Composer::new(),
            modal: None,
            form: None,
            model,
            provider,
            cwd,
            mode,
            usage: Usage::default(),
            activity: Activity::Idle,
            busy: false,
            expanded: HashSet::new(),
            tool_started: HashMap::new(),
            flash: None,
            bell: true,
            quit: false,

            size: (80, 24),
            last_ctrl_c: None,
            queued_approvals: Default::default(),
        }
    }

    /// Rows the chat pane gets (status bar, input box with border, footer, flash line).
    pub fn chat_height(&self) -> usize {
        let input = self.input.line_count().min(6) as u16 + 2;
        let flash = u16::from(self.flash.is_some());
        self.size.1.saturating_sub(1 + input + 1 + flash) as usize
    }

    pub fn view_ctx<'a>(&'a self, elapsed: &'a dyn Fn(&str) -> Option<Duration>) -> ViewCtx<'a> {
        ViewCtx {
            theme: &self.theme,
            width: self.size.0,
            expanded: &self.expanded,
            elapsed,
        }
    }

    /// Something is shown that changes with time (a running tool's clock, a retry countdown).
    pub fn needs_ticks(&self) -> bool {
        matches!(self.activity, Activity::Tool(_) | Activity::Retrying { .. })
    }

    pub fn update(&mut self, event: AppEvent) -> Vec<Effect> {
        match event {
            AppEvent::Key(k) if k.kind == KeyEventKind::Press => self.on_key(k),
            AppEvent::Key(_) => Vec::new(),
            AppEvent::Paste(text) => {
                if let Some(f) = self.form.as_mut() {
                    f.paste(&text);
                } else if let Some(m) = self.modal.as_mut() {
                    m.paste(&text);
                } else {
                    self.input.paste(&text);
                }
                Vec::new()
            }
            AppEvent::Mouse(m) => {
                self.on_mouse(m);
                Vec::new()
            }
            AppEvent::Resize(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            AppEvent::Agent(ev) => {
                self.on_agent(&ev);
                Vec::new()
            }
            AppEvent::Approval(req) => {
                if self.modal.is_some() {
                    self.queued_approvals.push_back(req);
                    return Vec::new();
                }
                self.modal = Some(ApprovalModal::new(req, &self.theme));
                self.activity = Activity::Approval;
                if self.bell {
                    vec![Effect::Bell]
                } else {
                    Vec::new()
                }
            }
            AppEvent::Questions(req) => {
                self.form = Some(super::questions::QuestionForm::new(req));
                self.activity = Activity::Approval;
                if self.bell {
                    vec![Effect::Bell]
                } else {
                    Vec::new()
                }
            }
            AppEvent::TurnEnded(end) => {
                self.on_turn_end(end);
                Vec::new()
            }
            AppEvent::Info(r) => {
                match r {
                    Ok(text) => self.transcript.push_notice(text),
                    Err(e) => self.transcript.push_notice(format!("✗ {e}")),
                }
                self.after_transcript_change();
                Vec::new()
            }
            AppEvent::Tick => Vec::new(),
        }
    }

    /// After a slash command changed the transcript.
    pub fn after_command(&mut self) {
        self.after_transcript_change();
    }

    fn after_transcript_change(&mut self) {
        if let Some(from) = self.transcript.take_changed() {
            self.chat.invalidate_from(from);
            if !self.chat.following() {
                self.chat.new_output = true;
            }
        }
    }

    fn on_agent(&mut self, ev: &AgentEvent) {
        match ev {
            AgentEvent::Delta(StreamDelta::Text(_)) => self.activity = Activity::Streaming,
            AgentEvent::Delta(StreamDelta::Reasoning(_)) => self.activity = Activity::Thinking,
            AgentEvent::Delta(StreamDelta::Usage(_)) => {}
            AgentEvent::Delta(_) => self.activity = Activity::Streaming,
            AgentEvent::Retrying {
                retry,
                max_retries,
                delay,
                error,
            } => {
                self.activity = Activity::Retrying {
                    until: Instant::now() + *delay,
                    retry: *retry,
                    max: *max_retries,
                    error: error.to_string(),
                };
            }
            AgentEvent::ReplyDone(m) => {
                if let Some(u) = m.usage {
                    let add =
                        |a: Option<u64>, b: Option<u64>| Some(a.unwrap_or(0) + b.unwrap_or(0));
                    self.usage = Usage {
                        prompt_tokens: add(self.usage.prompt_tokens, u.prompt_tokens),
                        completion_tokens: add(self.usage.completion_tokens, u.completion_tokens),
                        total_tokens: add(self.usage.total_tokens, u.total_tokens),
                    };
                }
                self.activity = if m.tool_calls.is_empty() {
                    Activity::Idle
                } else {
                    Activity::Thinking
                };
            }
            AgentEvent::ReplyInterrupted { .. } => {}
            AgentEvent::Engine(e) => match e {
                EngineEvent::ToolStarted {
                    call_id,
                    cmd_string,
                    ..
                } => {
                    self.tool_started.insert(call_id.clone(), Instant::now());
                    self.activity = Activity::Tool(cmd_string.clone());
                }
                EngineEvent::ToolsJudgeStarted { .. } => self.activity = Activity::Judge,
                EngineEvent::ToolFinished { call_id, .. } => {
                    self.tool_started.remove(call_id);
                    self.activity = Activity::Thinking;
                }
                _ => {}
            },
        }
        if let (
            AgentEvent::Delta(_),
            Activity::Retrying {
                error, retry, max, ..
            },
        ) = (ev, &self.activity)
        {
            let note = format!("⚠ {error} — retried (attempt {retry}/{max})");
            self.transcript.push_notice(note);
            self.activity = Activity::Streaming;
        }
        if self.modal.is_some() {
            self.activity = Activity::Approval;
        }
        self.transcript.apply(ev);
        if matches!(ev, AgentEvent::Retrying { .. }) {
            // The failed attempt's entries are gone; whatever replaces them is new.
            if let Some(from) = self.transcript.take_changed() {
                self.chat.forget_from(from);
            }
        }
        self.after_transcript_change();
    }

    fn on_turn_end(&mut self, end: TurnEnd) {
        self.busy = false;
        self.activity = Activity::Idle;
        self.tool_started.clear();
        // A modal still open belongs to a turn that is over: its reply channel is gone.
        self.modal = None;
        self.form = None;
        self.queued_approvals.clear();
        match end {
            TurnEnd::Completed | TurnEnd::Stopped => {}
            TurnEnd::Cancelled => self
                .transcript
                .push_notice("⏹ tool calls cancelled; your turn"),
            TurnEnd::MaxTurns(n) => self.transcript.push_notice(format!(
                "✗ stopped after {n} model round-trips without a final answer"
            )),
            TurnEnd::LengthLimit => self
                .transcript
                .push_notice("✗ the reply was cut off: the model reached its output token limit"),
            TurnEnd::Failed(e) => self
                .transcript
                .push_notice(format!("✗ {e} — nothing was lost; send again to retry")),
        }
        self.after_transcript_change();
    }

    fn on_mouse(&mut self, m: MouseEvent) {
        let h = self.chat_height();
        let ctx = still_ctx(&self.theme, self.size.0, &self.expanded);
        match m.kind {
            MouseEventKind::ScrollUp => self.chat.scroll_up(3, &self.transcript.entries, h, &ctx),
            MouseEventKind::ScrollDown => {
                self.chat.scroll_down(3, &self.transcript.entries, h, &ctx)
            }
            _ => {}
        }
    }

    fn scroll(&mut self, up: bool, n: usize) {
        let h = self.chat_height();
        let ctx = still_ctx(&self.theme, self.size.0, &self.expanded);
        if up {
            self.chat.scroll_up(n, &self.transcript.entries, h, &ctx);
        } else {
            self.chat.scroll_down(n, &self.transcript.entries, h, &ctx);
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(form) = self.form.as_mut() {
            if form.handle_key(key) {
                self.form = None;
                self.activity = Activity::Thinking;
            }
            return Vec::new();
        }
        if let Some(modal) = self.modal.as_mut() {
            if let Some(choice) = modal.handle_key(key) {
                modal.answer(choice);
                self.modal = self
                    .queued_approvals
                    .pop_front()
                    .map(|r| ApprovalModal::new(r, &self.theme));
                self.activity = if self.modal.is_some() {
                    Activity::Approval
                } else {
                    Activity::Thinking
                };
            }
            return Vec::new();
        }
        if key.code != KeyCode::Char('c') || !ctrl {
            self.last_ctrl_c = None;
        }
        let page = self.chat_height().saturating_sub(2).max(1);
        match key.code {
            KeyCode::Esc if self.busy => return vec![Effect::Stop],
            KeyCode::Char('c') if ctrl => {
                if self.busy {
                    return vec![Effect::Stop];
                }
                let now = Instant::now();
                if self
                    .last_ctrl_c
                    .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
                {
                    self.quit = true;
                    return vec![Effect::Quit];
                }
                self.last_ctrl_c = Some(now);
                self.input.clear();
                self.flash = Some(strings::PRESS_AGAIN_TO_QUIT.into());
                return Vec::new();
            }
            KeyCode::Char('d') if ctrl && self.input.is_empty() => {
                self.quit = true;
                return vec![Effect::Quit];
            }
            KeyCode::PageUp => {
                self.scroll(true, page);
                return Vec::new();
            }
            KeyCode::PageDown => {
                self.scroll(false, page);
                return Vec::new();
            }
            KeyCode::Home if ctrl || self.input.is_empty() => {
                self.chat.home();
                return Vec::new();
            }
            KeyCode::End if ctrl || self.input.is_empty() => {
                self.chat.end();
                return Vec::new();
            }
            KeyCode::Tab if self.input.is_empty() => {
                self.toggle_last_foldable();
                return Vec::new();
            }
            _ => {}
        }
        match self.input.handle_key(key) {
            InputOutcome::Submit(text) => self.submit(text),
            InputOutcome::Edited => {
                self.flash = None;
                Vec::new()
            }
            InputOutcome::Ignored => Vec::new(),
        }
    }

    /// Tab: unfold (or fold) the last foldable block on screen.
    fn toggle_last_foldable(&mut self) {
        let h = self.chat_height();
        let ctx = still_ctx(&self.theme, self.size.0, &self.expanded);
        let Some((first, last)) = self.chat.visible_entries(&self.transcript.entries, h, &ctx)
        else {
            return;
        };
        if let Some(i) = (first..=last)
            .rev()
            .find(|&i| foldable(&self.transcript.entries[i]))
        {
            if !self.expanded.remove(&i) {
                self.expanded.insert(i);
            }
            self.chat.invalidate(i);
        }
    }

    fn submit(&mut self, text: String) -> Vec<Effect> {
        let trimmed = text.trim();
        if trimmed.starts_with('/') {
            return super::commands::run(self, trimmed);
        }
        if self.busy {
            self.flash = Some(strings::BUSY_FOR_COMMAND.into());
            return Vec::new();
        }
        self.input.remember(&text);
        self.input.clear();
        self.flash = None;
        self.transcript.push_user(&text);
        self.after_transcript_change();
        self.chat.end();
        self.busy = true;
        self.activity = Activity::Thinking;
        vec![Effect::Send(text)]
    }

    /// The status bar's description of what is going on.
    pub fn activity_text(&self, now: Instant) -> String {
        match &self.activity {
            Activity::Idle => String::new(),
            Activity::Thinking => "thinking…".into(),
            Activity::Streaming => "streaming…".into(),
            Activity::Tool(c) => format!("running {c}"),
            Activity::Approval => "waiting for your approval".into(),
            Activity::Judge => "the judge is reviewing a call…".into(),
            Activity::Retrying {
                until, retry, max, ..
            } => {
                format!(
                    "retrying in {} ({retry}/{max})",
                    format_delay(until.saturating_duration_since(now))
                )
            }
        }
    }

    pub fn mode_label(&self) -> &'static str {
        match self.mode.get() {
            Mode::Normal => " NORMAL ",
            Mode::Auto => " AUTO ",
        }
    }

    /// The entries, for widgets.
    pub fn entries(&self) -> &[Entry] {
        &self.transcript.entries
    }
}
