//! The event loop: one stream of [`AppEvent`]s in, `update`, effects out, and at most one draw
//! per ~16 ms — only when something changed. No timer runs while idle; a tick runs only while a
//! clock is on screen (a running tool, a retry countdown). Frames are written inside
//! synchronized-update markers.

use std::io::{Write, stdout};
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::agent_task::{self, AgentCommand};
use super::app::{App, AppEvent, Effect};
use super::terminal::{self, Guard};
use super::theme::Theme;
use super::ui;
use crate::agent::Agent;
use crate::exit;
use crate::tools::context::QuestionRequest;
use crate::tools::events::ApprovalRequest;

const FRAME: Duration = Duration::from_millis(16);

pub struct TuiOptions {
    pub theme: Theme,
    pub mouse: bool,
    pub bell: bool,
    /// Sent as the first message.
    pub prompt: Option<String>,
    pub cwd_label: String,
}

/// Copies text: the system clipboard, or OSC 52 (which works over SSH) when there is none.
fn copy(text: &str) -> bool {
    if let Ok(mut c) = arboard::Clipboard::new()
        && c.set_text(text.to_owned()).is_ok()
    {
        return true;
    }
    crossterm::execute!(
        stdout(),
        crossterm::clipboard::CopyToClipboard::to_clipboard_from(text)
    )
    .is_ok()
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
        Event::FocusGained | Event::FocusLost => None,
    }
}

/// Runs the TUI until the user quits; returns the exit code.
pub async fn run(
    agent: Agent,
    approvals: mpsc::UnboundedReceiver<ApprovalRequest>,
    questions: mpsc::UnboundedReceiver<QuestionRequest>,
    opts: TuiOptions,
) -> u8 {
    let mut app = App::new(
        opts.theme,
        agent.settings.model.clone(),
        agent.client.settings().name.clone(),
        opts.cwd_label,
        agent.engine.mode.clone(),
    );
    app.bell = opts.bell;
    app.input.mentions = agent
        .engine
        .registry
        .entries()
        .map(|(n, _)| n.to_owned())
        .chain(agent.groups.keys().cloned())
        .collect();
    if let Err(e) = terminal::enter(opts.mouse) {
        terminal::restore();
        eprintln!("sayso: error: cannot set up the terminal: {e}");
        return exit::FAILED;
    }
    let _guard = Guard;
    let mut term = match Terminal::new(CrosstermBackend::new(stdout())) {
        Ok(t) => t,
        Err(e) => {
            terminal::restore();
            eprintln!("sayso: error: cannot set up the terminal: {e}");
            return exit::FAILED;
        }
    };
    if let Ok(size) = term.size() {
        app.size = (size.width, size.height);
    }
    // Load the syntax highlighter off the UI thread so the first code block does not stall.
    std::thread::spawn(super::highlight::warm_up);

    let (app_tx, mut app_rx) = mpsc::unbounded_channel::<AppEvent>();
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel::<AgentCommand>();
    tokio::spawn(agent_task::run(agent, cmd_rx, app_tx.clone()));
    tokio::spawn(forward(approvals, app_tx.clone(), AppEvent::Approval));
    tokio::spawn(forward(questions, app_tx.clone(), AppEvent::Questions));
    let mut keys = EventStream::new();
    let mut signals = Signals::new();
    let mut current: Option<CancellationToken> = None;
    let mut exit_code = exit::OK;

    let mut pending: Vec<AppEvent> = Vec::new();
    if let Some(p) = opts.prompt.filter(|p| !p.trim().is_empty()) {
        app.input.set_text(&p);
        pending.push(AppEvent::Key(crossterm::event::KeyEvent::from(
            crossterm::event::KeyCode::Enter,
        )));
    }
    let mut last_draw: Option<Instant> = None;
    let mut dirty = true;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);

    loop {
        // Draw when something changed and the last frame is old enough; otherwise wait.
        let now = Instant::now();
        if dirty && last_draw.is_none_or(|t| now.duration_since(t) >= FRAME) {
            let _ = crossterm::execute!(stdout(), BeginSynchronizedUpdate);
            let _ = term.draw(|f| ui::draw(f, &app, Instant::now()));
            let _ = crossterm::execute!(stdout(), EndSynchronizedUpdate);
            last_draw = Some(Instant::now());
            dirty = false;
        }
        let next_frame = last_draw.map_or(now, |t| t + FRAME);
        if pending.is_empty() {
            let event = tokio::select! {
                ev = keys.next() => match ev {
                    Some(Ok(e)) => to_app_event(e),
                    Some(Err(_)) | None => { exit_code = exit::FAILED; break; }
                },
                Some(ev) = app_rx.recv() => Some(ev),
                _ = tick.tick(), if app.needs_ticks() => Some(AppEvent::Tick),
                () = tokio::time::sleep_until(next_frame.into()), if dirty => None,
                () = signals.recv() => { exit_code = exit::INTERRUPTED; break; }
            };
            pending.extend(event);
            // Take everything else already waiting before drawing again.
            while let Ok(ev) = app_rx.try_recv() {
                pending.push(ev);
            }
        }
        for ev in pending.drain(..) {
            dirty = true;
            for effect in app.update(ev) {
                match effect {
                    Effect::Send(text) => {
                        let cancel = CancellationToken::new();
                        current = Some(cancel.clone());
                        let _ = cmd_tx.send(AgentCommand::Send { text, cancel });
                    }
                    Effect::Stop => {
                        if let Some(c) = &current {
                            c.cancel();
                        }
                    }
                    Effect::Bell => {
                        let _ = stdout().write_all(b"\x07");
                        let _ = stdout().flush();
                    }
                    Effect::Copy(text) => {
                        if !copy(&text) {
                            app.flash =
                                Some("could not copy: no clipboard and OSC 52 failed".into());
                        }
                    }
                    Effect::ListModels => {
                        let _ = cmd_tx.send(AgentCommand::ListModels);
                    }
                    Effect::SetModel(m) => {
                        let _ = cmd_tx.send(AgentCommand::SetModel(m));
                    }
                    Effect::ListApprovals => {
                        let _ = cmd_tx.send(AgentCommand::ListApprovals);
                    }
                    Effect::ClearApprovals => {
                        let _ = cmd_tx.send(AgentCommand::ClearApprovals);
                    }
                    Effect::ListTools => {
                        let _ = cmd_tx.send(AgentCommand::ListTools);
                    }
                    Effect::NewChat => {
                        let _ = cmd_tx.send(AgentCommand::NewChat);
                    }
                    Effect::Quit => {}
                }
            }
        }
        if app.quit {
            break;
        }
    }
    if let Some(c) = &current {
        c.cancel();
    }
    drop(term);
    terminal::restore();
    exit_code
}

/// SIGTERM, SIGHUP and SIGINT (Ctrl+C arrives as a key in raw mode; a signal comes from outside).
struct Signals {
    #[cfg(unix)]
    streams: Vec<tokio::signal::unix::Signal>,
}

impl Signals {
    fn new() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = [
                SignalKind::terminate(),
                SignalKind::hangup(),
                SignalKind::interrupt(),
            ]
            .into_iter()
            .filter_map(|k| signal(k).ok())
            .collect();
            Self { streams }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    async fn recv(&mut self) {
        #[cfg(unix)]
        {
            if self.streams.is_empty() {
                return std::future::pending().await;
            }
            let futures = self.streams.iter_mut().map(|s| Box::pin(s.recv()));
            let _ = futures_util::future::select_all(futures).await;
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
