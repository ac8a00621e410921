//! Helpers for the TUI's unit and snapshot tests: an app at a fixed size, events, keys, and
//! approval requests whose replies the test can read.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use tokio::sync::oneshot;

use super::app::{App, AppEvent, Status};
use super::theme::Theme;
use crate::events::{CallEnd, Event, Mode};
use crate::provider::{AssistantMessage, StreamDelta, ToolCall};
use crate::tools::lifecycle::requests::{ApprovalRequest, Ask, Remember, UserChoice};
use crate::tools::tool::Preview;

pub fn app() -> App {
    app_in(Mode::Balanced)
}

pub fn app_in(mode: Mode) -> App {
    let status = Status {
        model: "qwen2.5-coder".into(),
        provider: "local".into(),
        cwd: "~/src/proj".into(),
        mode,
        usage: Default::default(),
        context: None,
        sandbox: None,
    };
    let mut a = App::new(Theme::dark(), status, true, Vec::new());
    a.update(AppEvent::Resize(80, 24));
    a
}

/// Sends a message as the agent would take it (the app is then busy with a turn).
pub fn send(app: &mut App, text: &str) {
    typed(app, text);
    app.update(key(KeyCode::Enter));
    if !text.starts_with('/') {
        agent(
            app,
            Event::UserMessage {
                text: text.into(),
                sent: text.into(),
            },
        );
    }
}

pub fn key(code: KeyCode) -> AppEvent {
    AppEvent::Key(KeyEvent {
        code,
        modifiers: KeyModifiers::NONE,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

pub fn ctrl(c: char) -> AppEvent {
    AppEvent::Key(KeyEvent {
        code: KeyCode::Char(c),
        modifiers: KeyModifiers::CONTROL,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

/// `ev` one second after the last key, with a frame drawn a second before it: what a user who
/// read the approval modal before answering does (its key gate lets the key through).
pub fn deliberate(app: &mut App, ev: AppEvent) -> Vec<super::app::Effect> {
    let second = std::time::Duration::from_secs(1);
    let before = app
        .last_key()
        .map_or_else(std::time::Instant::now, |t| t + second);
    app.frame_drawn(before);
    app.update_at(ev, before + second)
}

pub fn typed(app: &mut App, s: &str) {
    for c in s.chars() {
        app.update(key(KeyCode::Char(c)));
    }
}

pub fn agent(app: &mut App, e: Event) {
    app.update(AppEvent::Agent(e));
}

/// An approval request and the receiver of the user's decision.
pub fn request(
    position: usize,
    total: usize,
    preview: Option<Preview>,
    judge: Option<&str>,
) -> (ApprovalRequest, oneshot::Receiver<UserChoice>) {
    let (reply, answer) = oneshot::channel();
    let ask = Ask {
        call_id: format!("call_{position}"),
        tool: "run_command".into(),
        cmd_string: "cargo test --workspace".into(),
        prompt: "Run the command `cargo test --workspace`?".into(),
        args: json!({"cmd": "cargo test --workspace"}),
        preview,
        judge_reason: judge.map(str::to_owned),
        caution: None,
        position,
        total,
        remember: Remember::Command("cargo test --workspace".into()),
        rerun: None,
    };
    (ApprovalRequest { ask, reply }, answer)
}

/// A finished tool call whose display text has `lines` lines.
pub fn finished_tool(app: &mut App, id: &str, lines: usize) {
    agent(
        app,
        Event::Delta(StreamDelta::ToolCallStarted {
            index: 0,
            id: id.into(),
            name: "run_command".into(),
        }),
    );
    agent(
        app,
        Event::ReplyDone(AssistantMessage {
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "run_command".into(),
                arguments: "{}".into(),
            }],
            ..AssistantMessage::default()
        }),
    );
    agent(
        app,
        Event::ToolStarted {
            call_id: id.into(),
            name: "run_command".into(),
            cmd_string: "ls -1 src".into(),
            args: json!({}),
            unasked: None,
        },
    );
    let display: Vec<String> = (1..=lines).map(|i| format!("file_{i}.rs")).collect();
    agent(
        app,
        Event::ToolOutput {
            call_id: id.into(),
            name: "run_command".into(),
            content: format!("`ls -1 src`\n````\n{}\n````", display.join("\n")),
            display: Some(display.join("\n")),
        },
    );
    agent(
        app,
        Event::ToolFinished {
            call_id: id.into(),
            name: "run_command".into(),
            end: CallEnd::Success,
        },
    );
}

/// The frame as text plus a style table (insta snapshots include colours this way).
pub fn render(app: &App, now: std::time::Instant) -> String {
    let mut term =
        Terminal::new(TestBackend::new(app.size().0, app.size().1)).expect("test backend");
    term.draw(|f| {
        super::ui::draw(&mut super::screen::Canvas::new(f.buffer_mut()), app, now);
    })
    .expect("draw");
    format!("{:?}", term.backend().buffer())
}

/// A terminal's output kept for the test to read (clones share it).
#[derive(Clone, Default)]
pub struct Shared(pub std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
