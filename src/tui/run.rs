//! The event loop: one stream of [`AppEvent`]s in, `update`, effects out, and at most one draw
//! per ~16 ms after input, per ~40 ms when only the agent's output changed — only when
//! something changed. No timer runs while idle; a tick comes only when the app says a clock
//! on screen changes ([`App::next_tick`]: each second of a running turn, a retry's
//! countdown), one wake-up comes when a hint on the flash line expires, and one a frame's time
//! after a frame of the agent's output (its next output is looked at then, not as it
//! arrives); whichever is due first is one kernel timer ([`alarm`]), so each is one wake-up.
//! The loop runs on a thread of its own, `sayso-ui`; the agent on the runtime's
//! worker. Each frame is one write inside synchronized-update markers ([`Screen::draw`]).
//! Focus changes are tracked (they draw nothing); a long turn that ends unfocused is announced
//! by the [`Notifier`].

use std::io::stdout;
use std::time::{Duration, Instant};

use crossterm::event::Event;
use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::app::{App, AppEvent, Effect, Returned, Status};
use super::keys::Keys;
use super::notify::Notifier;
use super::screen::Screen;
use super::terminal::{self, Guard};
use super::theme::Theme;
use super::{shell_escape, ui};
use crate::agent::Agent;
use crate::agent::saving::Saving;
use crate::agent::task::{self, Command};
use crate::events::EventSink;
use crate::exit;
use crate::signals::Signals;
use crate::tools::context::QuestionRequest;
use crate::tools::lifecycle::requests::ApprovalRequest;

mod alarm;
mod effects;

use alarm::Alarm;

use effects::{Out, edit_suspended, perform};

/// The shortest time between frames after a key, a paste, the mouse or a resize.
const FRAME: Duration = Duration::from_millis(16);
/// ... when only the agent's output changed: streamed text reads as smoothly at 25 frames a
/// second, and each frame costs CPU and bytes to the terminal (a reply arrives in many deltas).
const STREAM_FRAME: Duration = Duration::from_millis(40);

pub struct TuiOptions {
    pub theme: Theme,
    pub mouse: bool,
    pub bell: bool,
    /// How a long turn that ended unfocused is announced.
    pub notify: Notifier,
    /// From how long a turn counts as long.
    pub notify_after: Duration,
    /// Reasoning shown at the start (`[ui] show_reasoning`; Ctrl+T toggles).
    pub show_reasoning: bool,
    /// What Enter during a turn asks for (`[ui] steer`).
    pub steer: crate::agent::steer::Delivery,
    /// Sent as the first message.
    pub prompt: Option<String>,
    pub cwd_label: String,
    /// Where sessions are saved (sayso's data directory); `None` with `--no-session`.
    pub sessions: Option<std::path::PathBuf>,
    /// Continue a saved session first (`Some(None)`: the latest of this directory).
    pub resume: Option<Option<String>>,
    /// Where the input history is kept across runs (sayso's state directory); `None`: this
    /// run only.
    pub history: Option<std::path::PathBuf>,
    /// The commands from files (`crate::commands`), for `/NAME`, kept current.
    pub commands: crate::commands::live::Live,
}

/// The user's and the project's commands from files for a chat in `cwd` (the built-ins win),
/// read now and again whenever their files change.
pub fn file_commands(
    config: &crate::config::Config,
    cwd: &std::path::Path,
) -> crate::commands::live::Live {
    let builtins: Vec<String> = super::app::COMMANDS
        .iter()
        .map(|c| c.name)
        .chain(["/exit"])
        .map(str::to_owned)
        .collect();
    crate::commands::live::Live::new(config.dirs.config.clone(), cwd.to_path_buf(), builtins)
}

/// Passes requests from the engine (approvals, questions) into the app's event stream.
async fn forward<T>(
    mut from: mpsc::UnboundedReceiver<T>,
    to: mpsc::UnboundedSender<AppEvent>,
    wrap: fn(T) -> AppEvent,
) {
    while let Some(req) = from.recv().await {
        if to.send(wrap(req)).is_err() {
            break;
        }
    }
}

fn to_app_event(ev: Event) -> Option<AppEvent> {
    match ev {
        Event::Key(k) => Some(AppEvent::Key(k)),
        Event::Paste(p) => Some(AppEvent::Paste(p)),
        Event::Mouse(m) => Some(AppEvent::Mouse(m)),
        Event::Resize(w, h) => Some(AppEvent::Resize(w, h)),
        Event::FocusGained => Some(AppEvent::Focus(true)),
        Event::FocusLost => Some(AppEvent::Focus(false)),
    }
}

/// Runs the TUI until the user quits; returns the exit code, and the id of the session the
/// chat was saved as (`None`: nothing was saved).
pub async fn run(
    agent: Agent,
    approvals: mpsc::UnboundedReceiver<ApprovalRequest>,
    questions: mpsc::UnboundedReceiver<QuestionRequest>,
    opts: TuiOptions,
) -> (u8, Option<String>) {
    let status = Status {
        model: agent.model(),
        provider: agent.provider().to_owned(),
        cwd: opts.cwd_label,
        mode: agent.mode().get(),
        usage: Default::default(),
        context: None,
        sandbox: Some(crate::events::SandboxReport::of(agent.engine().sandbox())),
    };
    let mut app = App::new(opts.theme, status, opts.bell, agent.mention_names());
    app.set_notify_after(opts.notify.enabled().then_some(opts.notify_after));
    app.set_show_reasoning(opts.show_reasoning);
    app.set_steer(agent.steer(), opts.steer);
    let command_names: Vec<String> = opts
        .commands
        .catalog
        .commands
        .iter()
        .map(|c| format!("/{}", c.name))
        .collect();
    app.set_live_commands(opts.commands);
    app.input_mut().set_file_root(agent.cwd());
    let notifier = opts.notify;
    if let Some(dir) = &opts.history {
        let (history, error) = super::input::history::History::load(dir);
        app.set_history(history);
        if let Some(e) = error {
            app.set_flash(&e);
        }
    }
    let runner = shell_escape::Runner {
        sandbox: agent.engine().sandbox_shared(),
        cwd: agent.cwd().to_path_buf(),
        env: agent.engine().child_env(),
    };
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let mut welcome =
        super::welcome::Welcome::new(&agent.instruction_files(), agent.cwd(), home.as_deref());
    welcome.skills = agent.skill_names();
    welcome.commands = command_names;
    app.set_welcome(welcome, opts.resume.is_none());
    let term = match open_terminal(opts.mouse) {
        Ok(t) => t,
        Err(e) => {
            terminal::restore();
            eprintln!("sayso: error: cannot set up the terminal: {e}");
            return (exit::FAILED, None);
        }
    };
    let _guard = Guard;
    let mut pending: Vec<AppEvent> = Vec::new();
    if agent.plan().get() {
        pending.push(AppEvent::Agent(crate::events::Event::PlanMode { on: true }));
    }
    if let Ok(size) = term.size() {
        pending.push(AppEvent::Resize(size.width, size.height));
    }
    let (app_tx, app_rx) = mpsc::unbounded_channel::<AppEvent>();
    // The syntax highlighter (~27 MiB of tables) loads on the first code block, off the UI
    // thread; that block is shown plain until then.
    let ready = app_tx.clone();
    super::highlight::load_in_background(move || {
        let _ = ready.send(AppEvent::HighlighterReady);
    });
    let (sink, events) = EventSink::channel();
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel::<Command>();
    let saving = Saving::new(opts.sessions, &agent);
    if let Some(id) = opts.resume {
        let _ = cmd_tx.send(Command::Resume(id));
    }
    let agent_task = tokio::spawn(task::run(agent, cmd_rx, sink, saving));
    tokio::spawn(forward(approvals, app_tx.clone(), AppEvent::Approval));
    tokio::spawn(forward(questions, app_tx.clone(), AppEvent::Questions));
    if let Some(p) = opts.prompt.filter(|p| !p.trim().is_empty()) {
        pending.push(AppEvent::Paste(p));
        pending.push(AppEvent::Key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::Enter,
        )));
    }
    let out = Out {
        commands: cmd_tx.clone(),
        notifier,
        app_tx,
        runner,
        mouse: opts.mouse,
        agent_runtime: tokio::runtime::Handle::current(),
    };
    let inputs = Inputs {
        app: app_rx,
        agent: events,
    };
    let (exit_code, current) = on_ui_thread(app, term, inputs, pending, out).await;
    if let Some(c) = &current {
        c.cancel();
    }
    terminal::restore();
    // The agent ends its turn (stopped above), then flushes and syncs the session file.
    drop(cmd_tx);
    let saved = match tokio::time::timeout(Duration::from_secs(5), agent_task).await {
        Ok(Ok(saved)) => saved,
        _ => None,
    };
    (exit_code, saved)
}

/// Runs the event loop on a thread of its own, with a runtime of its own: its frame clock and
/// its wake-ups are its own. (On the agent's runtime, each frame's timer, set from this thread,
/// woke the worker thread to re-arm its timeout: a wake-up of each thread per frame for
/// nothing.) The agent stays on the worker thread, so a slow step there never stalls a frame.
/// Returns the exit code and the turn to stop, if one runs.
async fn on_ui_thread(
    mut app: App,
    mut term: Screen<std::io::Stdout>,
    inputs: Inputs,
    pending: Vec<AppEvent>,
    out: Out,
) -> (u8, Option<CancellationToken>) {
    let (done, result) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("sayso-ui".into())
        .spawn(move || {
            let mut current = None;
            let code = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt.block_on(event_loop(
                    &mut app,
                    &mut term,
                    inputs,
                    pending,
                    &out,
                    &mut current,
                )),
                Err(e) => {
                    tracing::error!("cannot start the UI's runtime: {e}");
                    exit::FAILED
                }
            };
            let _ = done.send((code, current));
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the UI thread: {e}");
        return (exit::FAILED, None);
    }
    result.await.unwrap_or((exit::FAILED, None))
}

fn open_terminal(mouse: bool) -> std::io::Result<Screen<std::io::Stdout>> {
    terminal::enter(mouse)?;
    Screen::new(stdout())
}

/// What the event loop reads besides the terminal: the agent's events, straight from its sink
/// (a task moving them into `app` would be one more wake-up per delta, and on the one worker
/// thread it could fall behind a fast stream, which then queued up there), and everything else
/// (approvals, questions, the highlighter, `!` commands).
struct Inputs {
    app: mpsc::UnboundedReceiver<AppEvent>,
    agent: mpsc::UnboundedReceiver<crate::events::Event>,
}

/// Events in, `update`, effects out, a frame when something changed; until the user quits
/// (exit code 0), a signal arrives (130) or the terminal goes away (1).
async fn event_loop(
    app: &mut App,
    term: &mut Screen<std::io::Stdout>,
    mut inputs: Inputs,
    mut pending: Vec<AppEvent>,
    out: &Out,
    current: &mut Option<CancellationToken>,
) -> u8 {
    // The key reader (and the keyboard enhancement, which asks the terminal and waits for its
    // answer) starts once the first frame is out: the frame does not wait for either.
    let mut keys: Option<Keys> = None;
    let mut signals = Signals::new();
    let mut alarm = Alarm::new();
    let mut last_draw: Option<Instant> = None;
    let mut dirty = true;
    // Whether the change waiting to be drawn came from the user (drawn sooner).
    let mut input = true;
    // Whether the last frame showed the agent's output (not a key's effect).
    let mut streamed = false;
    // Ctrl+G asked for the editor (run once the events at hand are handled).
    let mut editing: Option<String> = None;
    loop {
        // Draw when something changed and the last frame is old enough; otherwise wait.
        let now = Instant::now();
        let gap = if input { FRAME } else { STREAM_FRAME };
        if dirty && last_draw.is_none_or(|t| now.duration_since(t) >= gap) {
            let _ = term.draw(|f| {
                ui::draw(f, app, Instant::now());
            });
            let drawn = Instant::now();
            app.frame_drawn(drawn);
            last_draw = Some(drawn);
            streamed = !input;
            dirty = false;
            input = false;
        }
        let next_frame = last_draw.map_or(now, |t| t + gap);
        // After a frame of the agent's output, its next output waits in its channel until a
        // frame could be drawn again (it is taken whenever the loop wakes anyway): while a reply
        // streams the loop wakes once a frame, when the frame is due, not also at the first
        // delta after each frame.
        let agent_at = last_draw
            .filter(|_| streamed)
            .map(|t| t + STREAM_FRAME)
            .filter(|&t| t > now);
        let next_tick = app.next_tick(now);
        if pending.is_empty() {
            // A hint on screen expires: one wake-up at that moment, none while nothing is due.
            let expiry = app.next_expiry();
            let keys = keys.get_or_insert_with(|| {
                terminal::enhance_keyboard();
                Keys::default()
            });
            // One timer for whatever is due first (the frame, the agent's next look, a clock on
            // screen, a hint's expiry): one wake-up at that moment.
            let agent_due = agent_at.filter(|_| !dirty);
            let wake_at = [agent_due, next_tick, expiry, dirty.then_some(next_frame)]
                .into_iter()
                .flatten()
                .min();
            let event = tokio::select! {
                ev = keys.next() => match ev {
                    Some(Ok(e)) => to_app_event(e),
                    Some(Err(_)) | None => return exit::FAILED,
                },
                // While a frame is due anyway, what the agent sends waits in the channel and
                // is taken all at once below: one wake-up per frame, not one per delta.
                Some(ev) = inputs.app.recv(), if !dirty => Some(ev),
                Some(ev) = inputs.agent.recv(), if !dirty && agent_at.is_none() => {
                    Some(AppEvent::Agent(ev))
                }
                () = alarm.at(wake_at.unwrap_or(now)), if wake_at.is_some() => {
                    // A clock on screen or a hint is due: a tick; a frame or the agent's
                    // output: what the loop does next anyway.
                    let now = Instant::now();
                    let due = |t: Option<Instant>| t.is_some_and(|t| t <= now);
                    (due(next_tick) || due(expiry)).then_some(AppEvent::Tick)
                }
                () = signals.recv() => return exit::INTERRUPTED,
            };
            pending.extend(event);
            // Take everything else already waiting before drawing again.
            while let Ok(ev) = inputs.app.try_recv() {
                push_merged(&mut pending, ev);
            }
            while let Ok(ev) = inputs.agent.try_recv() {
                push_merged(&mut pending, AppEvent::Agent(ev));
            }
        }
        for ev in pending.drain(..) {
            // A focus change shows nothing: no frame for it.
            dirty |= !matches!(ev, AppEvent::Focus(_));
            if let AppEvent::Resize(w, h) = ev {
                term.resized(w, h);
            }
            input |= matches!(
                ev,
                AppEvent::Key(_) | AppEvent::Paste(_) | AppEvent::Mouse(_) | AppEvent::Resize(..)
            );
            for effect in app.update_at(ev, Instant::now()) {
                match effect {
                    Effect::Editor(text) => editing = Some(text),
                    effect => perform(effect, out, current, app),
                }
            }
        }
        if let Some(text) = editing.take() {
            // The key reader stops first (its thread holds the terminal's reader while it
            // waits): the editor gets every key. A new one starts after.
            keys = None;
            let outcome = edit_suspended(&text, term, out.mouse).await;
            pending.push(AppEvent::Returned(Returned::Editor(outcome)));
            (dirty, input) = (true, true);
        }
        if app.quit() {
            return exit::OK;
        }
        // A fast stream can queue thousands of events between two frames: do not keep room
        // for them all session long.
        if pending.capacity() > 256 {
            pending.shrink_to(16);
        }
    }
}

/// Queues `ev`, appending streamed text to the text just before it: a reply served faster than
/// frames are drawn becomes one event per frame, not one per delta (same result, less memory).
fn push_merged(pending: &mut Vec<AppEvent>, ev: AppEvent) {
    use crate::events::Event as AgentEvent;
    use crate::provider::StreamDelta::{Reasoning, Text};
    if let AppEvent::Agent(AgentEvent::Delta(next)) = &ev
        && let Some(AppEvent::Agent(AgentEvent::Delta(last))) = pending.last_mut()
    {
        match (last, next) {
            (Text(a), Text(b)) | (Reasoning(a), Reasoning(b)) => {
                a.push_str(b);
                return;
            }
            _ => {}
        }
    }
    pending.push(ev);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Event as AgentEvent;
    use crate::provider::StreamDelta::{Reasoning, Text};

    fn text(t: &str) -> AppEvent {
        AppEvent::Agent(AgentEvent::Delta(Text(t.into())))
    }

    #[test]
    fn adjacent_text_deltas_merge_and_nothing_else_does() {
        let mut q = Vec::new();
        for ev in [
            text("a"),
            text("b"),
            AppEvent::Agent(AgentEvent::Delta(Reasoning("r".into()))),
            AppEvent::Agent(AgentEvent::Delta(Reasoning("s".into()))),
            text("c"),
            AppEvent::Tick,
            text("d"),
        ] {
            push_merged(&mut q, ev);
        }
        let shown: Vec<String> = q
            .iter()
            .map(|e| match e {
                AppEvent::Agent(AgentEvent::Delta(Text(t))) => format!("text {t}"),
                AppEvent::Agent(AgentEvent::Delta(Reasoning(t))) => format!("reasoning {t}"),
                AppEvent::Tick => "tick".into(),
                _ => "other".into(),
            })
            .collect();
        assert_eq!(
            shown,
            ["text ab", "reasoning rs", "text c", "tick", "text d"]
        );
    }
}
