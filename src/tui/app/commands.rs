//! Slash commands (SPEC §6.3), each declared once: its name, its arguments, one line of help
//! and its handler. The help text and the input box's completion are made from [`COMMANDS`].
//! A command that needs the agent sends it an [`Effect::Agent`] command; adding one that only
//! changes the UI touches this file alone. Which lines are commands at all (a path or `//` is a
//! message; an unknown or ambiguous name is a one-line error, the input kept) is decided in
//! [`line`](mod@line). The commands from files (`crate::commands`) join the table at start
//! ([`files`]); `/init` is [`init`]'s.

mod files;
mod init;
mod line;
mod undo;

use super::{Activity, App, Effect};
use crate::agent::task::Command;
use crate::events::Mode;
use crate::tui::strings;
use crate::tui::transcript::{Entry, Transcript};

pub(super) use self::files::{Project, as_message};
pub(super) use self::line::{Line, mistake, parse};
pub use self::undo::TakeBack;

pub struct SlashCommand {
    pub name: &'static str,
    /// How its arguments read in the help, e.g. `[NAME]`.
    pub args: &'static str,
    pub help: &'static str,
    run: fn(&mut App, &str) -> Vec<Effect>,
}

pub const COMMANDS: &[SlashCommand] = &[
    SlashCommand {
        name: "/help",
        args: "",
        help: "keys and commands",
        run: help,
    },
    SlashCommand {
        name: "/clear",
        args: "",
        help: "a new chat (the default tools, nothing remembered)",
        run: clear,
    },
    SlashCommand {
        name: "/model",
        args: "[NAME]",
        help: "list the endpoint's models, or switch (during a turn: from the next request)",
        run: model,
    },
    SlashCommand {
        name: "/tools",
        args: "",
        help: "the tools and their approval settings",
        run: tools,
    },
    SlashCommand {
        name: "/auto",
        args: "",
        help: "toggle auto mode (back to the mode before)",
        run: auto,
    },
    SlashCommand {
        name: "/mode",
        args: "[NAME]",
        help: "the approval modes, or switch (trust, auto, balanced, suggest, strict)",
        run: mode,
    },
    SlashCommand {
        name: "/plan",
        args: "[on|off|accept [MODE]]",
        help: "plan mode (Alt+M cycles mode → auto → plan): read-only tools only, the model presents a plan",
        run: super::plan::command,
    },
    SlashCommand {
        name: "/approvals",
        args: "[clear]",
        help: "what \"Always accept\" remembered, or forget it",
        run: approvals,
    },
    SlashCommand {
        name: "/copy",
        args: "[N]",
        help: "copy the last reply, or its Nth code block",
        run: copy,
    },
    SlashCommand {
        name: "/diff",
        args: "",
        help: "the files sayso's file tools changed in this chat, as diffs (not shell commands')",
        run: diff,
    },
    SlashCommand {
        name: "/expand",
        args: "",
        help: "unfold every block (Tab selects one, Enter folds it)",
        run: expand,
    },
    SlashCommand {
        name: "/collapse",
        args: "",
        help: "fold every block",
        run: collapse,
    },
    SlashCommand {
        name: "/undo",
        args: "",
        help: "take back the file changes of the last turn (again: the turn before), after showing the diff",
        run: undo::undo,
    },
    SlashCommand {
        name: "/redo",
        args: "",
        help: "re-apply what the last /undo took back",
        run: undo::redo,
    },
    SlashCommand {
        name: "/rewind",
        args: "",
        help: "go back to before one of your messages: code and conversation, conversation only, or code only",
        run: undo::rewind,
    },
    SlashCommand {
        name: "/mcp",
        args: "",
        help: "the MCP servers: status and tools",
        run: mcp,
    },
    SlashCommand {
        name: "/sandbox",
        args: "",
        help: "the sandbox commands run in, and what it cannot enforce",
        run: sandbox,
    },
    SlashCommand {
        name: "/context",
        args: "",
        help: "what fills the model's context window",
        run: context,
    },
    SlashCommand {
        name: "/compact",
        args: "[FOCUS]",
        help: "summarise the older conversation now (Esc stops it)",
        run: compact,
    },
    SlashCommand {
        name: "/sessions",
        args: "",
        help: "pick a saved session to continue",
        run: sessions,
    },
    SlashCommand {
        name: "/resume",
        args: "[ID]",
        help: "continue a saved session (no ID: pick one)",
        run: super::resume::run,
    },
    SlashCommand {
        name: "/init",
        args: "",
        help: "have the model write a starting AGENTS.md for this project",
        run: init::run,
    },
    SlashCommand {
        name: "/quit",
        args: "",
        help: "leave sayso",
        run: quit,
    },
];

/// The built-in commands, then `extra` (the commands from files).
pub fn all(extra: &[&'static SlashCommand]) -> impl Iterator<Item = &'static SlashCommand> {
    COMMANDS.iter().chain(extra.to_vec())
}

/// The names the input box completes.
pub fn names(extra: &[&'static SlashCommand]) -> impl Iterator<Item = &'static str> {
    all(extra).map(|c| c.name)
}

/// The `/help` text: the keys, then every command (a command from a file says whose it is).
pub fn help_text(extra: &[&'static SlashCommand]) -> String {
    let mut out = String::from(strings::HELP_KEYS);
    out.push_str("\nCommands:");
    for c in all(extra) {
        let head = if c.args.is_empty() {
            c.name.to_owned()
        } else {
            format!("{} {}", c.name, c.args)
        };
        out.push_str(&format!("\n  {head:<18} {}", c.help));
    }
    out
}

/// Runs `command` with its argument (`""` when none).
pub(super) fn run(app: &mut App, command: &SlashCommand, arg: &str) -> Vec<Effect> {
    (command.run)(app, arg)
}

/// Whether a command that must wait for the turn to end was refused (and the hint shown).
fn between_turns_busy(app: &mut App) -> bool {
    if app.busy {
        app.show_hint(strings::BUSY_FOR_COMMAND);
    }
    app.busy
}

/// A command the agent runs between turns.
pub(super) fn between_turns(app: &mut App, command: Command) -> Vec<Effect> {
    if app.busy {
        app.show_hint(strings::BUSY_FOR_COMMAND);
        Vec::new()
    } else {
        vec![Effect::Agent(command)]
    }
}

fn help(app: &mut App, _: &str) -> Vec<Effect> {
    app.transcript.push_notice(help_text(&app.input.commands));
    Vec::new()
}

fn quit(app: &mut App, _: &str) -> Vec<Effect> {
    app.quit = true;
    vec![Effect::Quit]
}

fn auto(app: &mut App, _: &str) -> Vec<Effect> {
    let next = match app.status.mode {
        Mode::Auto => app.mode_before_auto,
        other => {
            app.mode_before_auto = other;
            Mode::Auto
        }
    };
    app.status.mode = next;
    vec![Effect::Agent(Command::SetMode(next))]
}

fn mode(app: &mut App, arg: &str) -> Vec<Effect> {
    if arg.is_empty() {
        let mut text = String::from("approval modes (switch with /mode NAME; /auto toggles auto):");
        for m in Mode::ALL {
            let mark = if m == app.status.mode { '*' } else { ' ' };
            text.push_str(&format!("\n{mark} {:<9} {}", m.as_str(), m.describe()));
        }
        app.transcript.push_notice(text);
        return Vec::new();
    }
    match Mode::parse(arg) {
        Some(next) => {
            if next != Mode::Auto {
                app.mode_before_auto = next;
            }
            app.status.mode = next;
            vec![Effect::Agent(Command::SetMode(next))]
        }
        None => {
            app.flash = Some(format!(
                "no mode `{arg}`: trust, auto, balanced, suggest or strict"
            ));
            Vec::new()
        }
    }
}

fn clear(app: &mut App, _: &str) -> Vec<Effect> {
    if app.busy {
        app.show_hint(strings::BUSY_FOR_COMMAND);
        return Vec::new();
    }
    app.transcript = Transcript::default();
    app.chat.reset();
    app.expanded.clear();
    app.selected = None;
    app.status.usage = Default::default();
    app.status.context = None;
    app.refresh_file_commands();
    app.welcome_again();
    vec![Effect::Agent(Command::NewChat)]
}

fn mcp(app: &mut App, _: &str) -> Vec<Effect> {
    between_turns(app, Command::ListMcp)
}

fn sandbox(app: &mut App, _: &str) -> Vec<Effect> {
    between_turns(app, Command::ShowSandbox)
}

fn context(app: &mut App, _: &str) -> Vec<Effect> {
    between_turns(app, Command::Context)
}

fn compact(app: &mut App, arg: &str) -> Vec<Effect> {
    if app.busy {
        app.show_hint(strings::BUSY_FOR_COMMAND);
        return Vec::new();
    }
    // Like a turn: busy until `TurnEnded`, Esc stops it.
    app.busy = true;
    app.activity = Activity::Compacting;
    vec![Effect::Compact((!arg.is_empty()).then(|| arg.to_owned()))]
}

fn model(app: &mut App, arg: &str) -> Vec<Effect> {
    if arg.is_empty() {
        return between_turns(app, Command::ListModels);
    }
    // Also during a turn: the agent applies it from the next request and says so.
    vec![Effect::Agent(Command::SetModel(arg.to_owned()))]
}

fn sessions(app: &mut App, _: &str) -> Vec<Effect> {
    between_turns(app, Command::ListSessions)
}

fn tools(app: &mut App, _: &str) -> Vec<Effect> {
    between_turns(app, Command::ListTools)
}

fn approvals(app: &mut App, arg: &str) -> Vec<Effect> {
    match arg {
        "" => between_turns(app, Command::ListApprovals),
        "clear" => between_turns(app, Command::ClearApprovals),
        other => {
            app.flash = Some(format!(
                "/approvals takes no argument or `clear`, not `{other}`"
            ));
            Vec::new()
        }
    }
}

fn copy(app: &mut App, arg: &str) -> Vec<Effect> {
    let last = app.transcript.entries.iter().rev().find_map(|e| match e {
        Entry::Assistant { text, .. } => Some(text.clone()),
        _ => None,
    });
    let Some(text) = last else {
        app.flash = Some("there is no reply to copy yet".into());
        return Vec::new();
    };
    if arg.is_empty() {
        app.flash = Some("copied the last reply".into());
        return vec![Effect::Copy(text)];
    }
    let blocks = code_blocks(&text);
    match arg.parse::<usize>() {
        Ok(n) if n >= 1 && n <= blocks.len() => {
            app.flash = Some(format!("copied code block {n} of {}", blocks.len()));
            vec![Effect::Copy(blocks[n - 1].clone())]
        }
        _ => {
            app.flash = Some(format!(
                "the last reply has {} code block(s); /copy N picks one",
                blocks.len()
            ));
            Vec::new()
        }
    }
}

fn diff(app: &mut App, _: &str) -> Vec<Effect> {
    let files = crate::tui::diff_view::chat_changes(&app.transcript);
    if files.is_empty() {
        app.transcript.push_notice(strings::NO_CHANGES);
    } else {
        // Asked for: shown unfolded (Tab selects it, Enter folds it).
        let i = app.transcript.push_changes(files);
        app.expanded.insert(i);
    }
    Vec::new()
}

fn expand(app: &mut App, _: &str) -> Vec<Effect> {
    let foldable = app
        .transcript
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| crate::tui::entry_lines::foldable(e))
        .map(|(i, _)| i);
    app.expanded.extend(foldable);
    app.chat.invalidate_from(0);
    Vec::new()
}

fn collapse(app: &mut App, _: &str) -> Vec<Effect> {
    app.expanded.clear();
    app.chat.invalidate_from(0);
    Vec::new()
}

/// The code blocks of a Markdown text, in order: the ones the chat shows.
pub fn code_blocks(text: &str) -> Vec<String> {
    crate::tui::markdown::code_blocks(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_are_found_in_order() {
        let md = "text\n```rust\nfn a() {}\n```\nmore\n~~~\nplain\n~~~\n```sh\nunclosed\n";
        assert_eq!(code_blocks(md), ["fn a() {}\n", "plain\n", "unclosed\n"]);
    }

    #[test]
    fn every_command_has_help_and_completion() {
        let help = help_text(&[]);
        for c in COMMANDS {
            assert!(help.contains(c.name), "{}", c.name);
        }
        assert_eq!(names(&[]).count(), COMMANDS.len());
    }
}
