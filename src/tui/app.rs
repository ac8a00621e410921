//! The app state and its one `update` function: every input — keys, pastes, mouse, the
//! agent's events, approval requests, questions, ticks — comes in as an [`AppEvent`]; state
//! changes happen only here, and what must happen outside (start a turn, stop it, send the agent
//! a command, copy, ring the bell, quit) goes out as [`Effect`]s for the event loop to perform.
//! Widgets draw from `&App` through its read-only accessors; its fields are private.
//!
//! - [`keys`]: keys, mouse, scrolling, the block selection and folding, sending.
//! - [`commands`]: the slash commands, each declared once.
//! - [`agent_events`]: what the agent's events do to the status, the
//!   overlays and the transcript.
//! - [`hints`]: hints on the flash line expire (on their time, or when untrue).
//! - [`plan`]: the pinned checklist, plan mode, the mode key and `/plan`.
//! - [`activity`]: what the status bar says is going on, the turn's clock,
//!   when to tick, and the notification of a long turn that ended unfocused.

mod activity;
mod agent_events;
mod commands;
mod escapes;
mod hints;
mod keys;
mod plan;
mod resume;
mod steering;
#[cfg(test)]
mod test_access;

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

use crossterm::event::{KeyEvent, KeyEventKind, MouseEvent};

pub use self::commands::{
    COMMANDS, SlashCommand, all as all_commands, code_blocks, help_text, names as commands_names,
};
pub use self::escapes::Returned;
use super::chat_view::{ChatView, ViewCtx};
use super::input::Composer;
use super::modal::ApprovalModal;
use super::picker::SessionPicker;
use super::questions::QuestionForm;
use super::strings;
use super::theme::Theme;
use super::welcome::Welcome;
use crate::agent::task::Command;
use crate::duration_text;
use crate::events::{Event, Mode};
use crate::provider::{StreamDelta, Usage};
use crate::tools::context::QuestionRequest;
use crate::tools::lifecycle::requests::ApprovalRequest;
use crate::tui::transcript::{Entry, Transcript};

/// Everything the app reacts to.
#[derive(Debug)]
pub enum AppEvent {
    Key(KeyEvent),
    Paste(String),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// What the agent reports.
    Agent(Event),
    Approval(ApprovalRequest),
    /// `ask_questions` wants answers.
    Questions(QuestionRequest),
    /// Time passed (only sent while something shows a clock).
    Tick,
    /// The terminal gained (`true`) or lost the focus.
    Focus(bool),
    /// The syntax highlighter finished loading: code shown plain until now can be coloured.
    HighlighterReady,
    /// Ctrl+G's editor or a `!` command ended.
    Returned(escapes::Returned),
}

/// Work for the event loop.
#[derive(Debug, PartialEq)]
pub enum Effect {
    /// Start a turn with this user message.
    Send(String),
    /// Stop the running turn.
    Stop,
    /// A command for the agent (model, mode, tools, approvals, new chat).
    Agent(Command),
    /// Summarise the older conversation now (stopped like a turn).
    Compact(Option<String>),
    Bell,
    /// A long turn ended while the terminal was unfocused: say so (bell, desktop notification).
    Notify(String),
    Copy(String),
    /// Ctrl+G: suspend the TUI and edit this text in the user's editor; `!`: run the user's
    /// command.
    Editor(String),
    Shell(super::shell_escape::Escape),
    Quit,
}

/// What the status bar says is happening.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Activity {
    Idle,
    /// The turn is busy before its request goes out (or no `RequestSent` came).
    Waiting,
    /// The request went out at `since`; no token of its reply has arrived (the prompt is
    /// being processed: on a CPU that can take minutes).
    FirstToken {
        since: Instant,
    },
    Thinking,
    Streaming,
    Tool(String),
    Approval,
    Judge,
    Compacting,
    Retrying {
        until: Instant,
        retry: u32,
        max: u32,
        error: String,
    },
}

/// What the status bar shows about the chat.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub model: String,
    pub provider: String,
    pub cwd: String,
    pub mode: Mode,
    pub usage: Usage,
    /// How full the context window is: tokens used, the window, whether estimated.
    pub context: Option<(u64, u64, bool)>,
    /// The chat's sandbox (`None`: not shown, as in tests of other parts).
    pub sandbox: Option<crate::events::SandboxReport>,
}

pub struct App {
    theme: Theme,
    transcript: Transcript,
    chat: ChatView,
    input: Composer,
    modal: Option<ApprovalModal>,
    /// Approval requests that arrived while a modal was open.
    queued_approvals: VecDeque<ApprovalRequest>,
    form: Option<QuestionForm>,
    /// The `/sessions` picker, while open.
    picker: Option<SessionPicker>,
    /// The `/rewind` picker or an undo's confirmation, while open.
    take_back: commands::TakeBack,
    status: Status,
    activity: Activity,
    /// The mode `/auto` returns to.
    mode_before_auto: Mode,
    busy: bool,
    expanded: HashSet<usize>,
    /// The foldable block Tab moved to (Enter folds or unfolds it).
    selected: Option<usize>,
    tool_started: HashMap<String, Instant>,
    /// A one-line message under the input (errors of slash commands, hints).
    flash: Option<String>,
    /// Since when the flash line shows its text (hints expire).
    flash_shown: Option<hints::Shown>,
    bell: bool,
    quit: bool,
    /// Terminal size.
    size: (u16, u16),
    last_ctrl_c: Option<Instant>,
    /// When the last key was pressed (or text pasted): the approval modal's gate wants the
    /// keyboard quiet before a key answers it.
    last_key: Option<Instant>,
    /// When the running turn started (`None` between turns).
    turn_started: Option<Instant>,
    /// Whether the terminal has the focus (as far as it reports focus changes).
    focused: bool,
    /// A turn at least this long that ends unfocused is notified (`None`: never).
    notify_after: Option<Duration>,
    /// Reasoning blocks drawn in full (`[ui] show_reasoning`; Ctrl+T toggles).
    show_reasoning: bool,
    /// Shown atop a new chat's pane until the first message.
    welcome: Option<Welcome>,
    /// What `/clear` shows again: a new chat opens with the welcome.
    new_chat_welcome: Option<Welcome>,
    /// The Ctrl+X Ctrl+E chord, and the `!!` output waiting for the next message.
    escapes: escapes::Escapes,
    queue: super::queue::Queue,
    /// The commands from files and the project's directory, for `/NAME` and `/init`.
    project: commands::Project,
    plan: plan::PlanState,
}

fn no_clock(_: &str) -> Option<Duration> {
    None
}

/// A view context for scrolling and folding, which do not depend on running clocks. Built from
/// fields (not `&self`) so the chat view can be borrowed mutably beside it.
fn still_ctx<'a>(
    theme: &'a Theme,
    width: u16,
    expanded: &'a HashSet<usize>,
    selected: Option<usize>,
    show_reasoning: bool,
) -> ViewCtx<'a> {
    ViewCtx {
        theme,
        width,
        expanded,
        selected,
        elapsed: &no_clock,
        show_reasoning,
    }
}

impl App {
    pub fn new(theme: Theme, status: Status, bell: bool, mentions: Vec<String>) -> Self {
        let mut input = Composer::new();
        input.mentions = mentions;
        Self {
            theme,
            transcript: Transcript::default(),
            chat: ChatView::default(),
            input,
            modal: None,
            queued_approvals: VecDeque::new(),
            form: None,
            picker: None,
            take_back: Default::default(),
            mode_before_auto: match status.mode {
                Mode::Auto => Mode::Balanced,
                m => m,
            },
            status,
            activity: Activity::Idle,
            busy: false,
            expanded: HashSet::new(),
            selected: None,
            tool_started: HashMap::new(),
            flash: None,
            flash_shown: None,
            bell,
            quit: false,
            size: (80, 24),
            last_ctrl_c: None,
            last_key: None,
            turn_started: None,
            focused: true,
            notify_after: None,
            show_reasoning: true,
            welcome: None,
            new_chat_welcome: None,
            escapes: Default::default(),
            queue: Default::default(),
            project: commands::Project::default(),
            plan: Default::default(),
        }
    }

    /// [`Self::update_at`] now.
    pub fn update(&mut self, event: AppEvent) -> Vec<Effect> {
        self.update_at(event, Instant::now())
    }

    /// Handles `event`, which happened at `now` (the approval modal's key gate and the hints'
    /// expiry read it).
    pub fn update_at(&mut self, event: AppEvent, now: Instant) -> Vec<Effect> {
        let ended = match &event {
            AppEvent::Agent(Event::TurnEnded(end)) => Some(end.clone()),
            _ => None,
        };
        let mut effects = self.handle(event, now);
        self.expire_hints(now);
        effects.extend(self.clock(now, ended.as_ref()));
        effects.extend(self.after_turn(ended.as_ref()));
        effects
    }

    fn handle(&mut self, event: AppEvent, now: Instant) -> Vec<Effect> {
        match event {
            AppEvent::Key(k) if k.kind == KeyEventKind::Press => {
                let previous = self.last_key.replace(now);
                self.on_key(k, now, previous)
            }
            AppEvent::Key(_) => Vec::new(),
            AppEvent::Paste(text) => {
                self.last_key = Some(now);
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
                if matches!(ev, Event::UserMessage { .. } | Event::Resumed { .. }) {
                    self.welcome = None;
                }
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
                self.bell_effect()
            }
            AppEvent::Questions(req) => {
                self.form = Some(QuestionForm::new(req));
                self.activity = Activity::Approval;
                self.bell_effect()
            }
            AppEvent::Tick => Vec::new(),
            AppEvent::Focus(focused) => {
                self.focused = focused;
                Vec::new()
            }
            AppEvent::HighlighterReady => {
                self.chat.forget_from(0);
                Vec::new()
            }
            AppEvent::Returned(r) => self.returned(r),
        }
    }

    /// A frame was drawn at `now`: an approval modal on it starts its time on screen.
    pub fn frame_drawn(&mut self, now: Instant) {
        if let Some(m) = self.modal.as_mut() {
            m.drawn(now);
        }
    }

    fn bell_effect(&self) -> Vec<Effect> {
        self.bell.then_some(Effect::Bell).into_iter().collect()
    }

    fn after_transcript_change(&mut self) {
        if let Some(from) = self.transcript.take_changed() {
            self.chat.invalidate_from(from);
            if !self.chat.following() {
                self.chat.new_output = true;
            }
        }
    }

    /// A one-line message under the input (what the event loop could not do).
    pub fn set_flash(&mut self, message: &str) {
        self.flash = Some(message.to_owned());
    }

    /// Shows `welcome` atop the empty chat until the first message (`now`: this chat is a new
    /// one; else only a new chat after `/clear` shows it).
    pub fn set_welcome(&mut self, welcome: Welcome, now: bool) {
        self.welcome = now.then(|| welcome.clone());
        self.new_chat_welcome = Some(welcome);
    }

    /// A new chat begins (`/clear`): the welcome again.
    pub(super) fn welcome_again(&mut self) {
        self.welcome = self.new_chat_welcome.clone();
    }

    /// What is in force changed (the project's files were read again): the welcome shown now
    /// and the one a new chat shows follow.
    pub(super) fn welcome_in_force(&mut self, change: impl Fn(&mut Welcome)) {
        for w in [self.welcome.as_mut(), self.new_chat_welcome.as_mut()]
            .into_iter()
            .flatten()
        {
            change(w);
        }
    }

    // ---- read-only views for widgets ----

    pub fn welcome(&self) -> Option<&Welcome> {
        self.welcome.as_ref()
    }

    pub fn theme(&self) -> &Theme {
        &self.theme
    }

    pub fn chat(&self) -> &ChatView {
        &self.chat
    }

    pub fn input(&self) -> &Composer {
        &self.input
    }

    pub fn modal(&self) -> Option<&ApprovalModal> {
        self.modal.as_ref()
    }

    pub fn form(&self) -> Option<&QuestionForm> {
        self.form.as_ref()
    }

    pub fn picker(&self) -> Option<&SessionPicker> {
        self.picker.as_ref()
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    pub fn flash(&self) -> Option<&str> {
        self.flash.as_deref()
    }

    pub fn activity(&self) -> &Activity {
        &self.activity
    }

    pub fn busy(&self) -> bool {
        self.busy
    }

    pub fn quit(&self) -> bool {
        self.quit
    }

    pub fn size(&self) -> (u16, u16) {
        self.size
    }

    /// The entries, for widgets.
    pub fn entries(&self) -> &[Entry] {
        &self.transcript.entries
    }

    pub fn tool_started(&self, call_id: &str) -> Option<Instant> {
        self.tool_started.get(call_id).copied()
    }

    /// Rows the chat pane gets (status bar, input box with border, footer, flash line).
    pub fn chat_height(&self) -> usize {
        let input = self.input.line_count().min(6) as u16 + 2 + self.queue.rows();
        let flash = super::widgets::notices::flash_rows(self.flash(), self.size.0);
        let todo = super::widgets::todo::height(self);
        self.size.1.saturating_sub(1 + input + 1 + flash + todo) as usize
    }

    pub fn view_ctx<'a>(&'a self, elapsed: &'a dyn Fn(&str) -> Option<Duration>) -> ViewCtx<'a> {
        ViewCtx {
            theme: &self.theme,
            width: self.size.0,
            expanded: &self.expanded,
            selected: self.selected,
            elapsed,
            show_reasoning: self.show_reasoning,
        }
    }

    /// Whether reasoning blocks are drawn in full.
    pub fn show_reasoning(&self) -> bool {
        self.show_reasoning
    }

    /// Shows or hides the reasoning blocks, redrawing them.
    pub fn set_show_reasoning(&mut self, show: bool) {
        if self.show_reasoning == show {
            return;
        }
        self.show_reasoning = show;
        for (i, e) in self.transcript.entries.iter().enumerate() {
            if matches!(e, Entry::Reasoning { .. }) {
                self.chat.invalidate(i);
            }
        }
    }

    /// A block is selected (Enter folds or unfolds it).
    pub fn has_selection(&self) -> bool {
        self.selected.is_some()
    }

    fn set_mode(&mut self, mode: Mode) {
        self.status.mode = mode;
        if mode != Mode::Auto {
            self.mode_before_auto = mode;
        }
    }

    /// The input box: to set the `@` picker's root, and for tests that type or read a draft.
    pub fn input_mut(&mut self) -> &mut Composer {
        &mut self.input
    }
}
