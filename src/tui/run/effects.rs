//! What the event loop does for the app, off the drawing: [`perform`] carries out an
//! [`Effect`] (a command to the agent, a bell, a notification, a copy, a `!` command on the
//! agent's runtime), and [`edit_suspended`] hands the terminal to the user's editor and takes it
//! back.

use std::io::{Write, stdout};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::agent::task::Command;
use crate::tui::app::{App, AppEvent, Effect, Returned};
use crate::tui::notify::Notifier;
use crate::tui::screen::Screen;
use crate::tui::terminal;
use crate::tui::{editor, shell_escape};

/// Where effects go: the agent's commands, how notifications are said, what `!` commands
/// run with and where they report back (on the agent's runtime, off the UI thread), and how the
/// terminal is set up again after the editor.
pub(super) struct Out {
    pub(super) commands: mpsc::UnboundedSender<Command>,
    pub(super) notifier: Notifier,
    pub(super) app_tx: mpsc::UnboundedSender<AppEvent>,
    pub(super) runner: shell_escape::Runner,
    pub(super) mouse: bool,
    pub(super) agent_runtime: tokio::runtime::Handle,
}

/// Does what the app asked for.
pub(super) fn perform(
    effect: Effect,
    out: &Out,
    current: &mut Option<CancellationToken>,
    app: &mut App,
) {
    let commands = &out.commands;
    match effect {
        Effect::Send(text) => {
            let cancel = CancellationToken::new();
            *current = Some(cancel.clone());
            let _ = commands.send(Command::Send { text, cancel });
        }
        Effect::Compact(focus) => {
            let cancel = CancellationToken::new();
            *current = Some(cancel.clone());
            let _ = commands.send(Command::Compact { focus, cancel });
        }
        Effect::Stop => {
            if let Some(c) = current {
                c.cancel();
            }
        }
        Effect::Agent(c) => {
            let _ = commands.send(c);
        }
        Effect::Bell => {
            let _ = stdout().write_all(b"\x07");
            let _ = stdout().flush();
        }
        Effect::Notify(text) => {
            let _ = stdout().write_all(&out.notifier.bytes(&text));
            let _ = stdout().flush();
        }
        Effect::Copy(text) => {
            if !copy(&text) {
                app.set_flash("could not copy: no clipboard and OSC 52 failed");
            }
        }
        Effect::Shell(escape) => {
            let (runner, tx) = (out.runner.clone(), out.app_tx.clone());
            out.agent_runtime.spawn(async move {
                let done = runner.run(escape, &CancellationToken::new()).await;
                let _ = tx.send(AppEvent::Returned(Returned::Shell(done)));
            });
        }
        // Handled by the event loop, which owns the terminal.
        Effect::Editor(_) => {}
        Effect::Quit => {}
    }
}

/// Runs the user's editor on `text` with the terminal handed over (the caller stopped reading
/// keys): raw mode and the alternate screen are left, and come back after, with the whole
/// screen drawn again.
pub(super) async fn edit_suspended(
    text: &str,
    term: &mut Screen<std::io::Stdout>,
    mouse: bool,
) -> editor::Outcome {
    let var = |k| std::env::var(k).ok();
    let argv = match editor::command(var("VISUAL").as_deref(), var("EDITOR").as_deref()) {
        Ok(argv) => argv,
        Err(e) => return editor::Outcome::Unchanged(e),
    };
    terminal::restore();
    let outcome = editor::edit(&argv, text).await;
    if let Err(e) = terminal::enter(mouse) {
        tracing::error!("cannot set up the terminal again after the editor: {e}");
    }
    let _ = crossterm::execute!(
        stdout(),
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    );
    if let Ok((w, h)) = crossterm::terminal::size() {
        term.resized(w, h);
    }
    term.forget_shown();
    outcome
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
