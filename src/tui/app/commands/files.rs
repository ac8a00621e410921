//! The commands from files (`crate::commands`) in the TUI: at start they join the command
//! table (the `/` popup, `/help`, completion) as [`SlashCommand`]s whose help says whose they
//! are; a submitted `/NAME args` becomes the message its file's text makes ([`as_message`]),
//! sent like any typed message (so it waits, is refused or queued as a message is). What the
//! files may set at all is `crate::commands`' business; the notices it has go to the
//! transcript once, at start.

use std::path::PathBuf;

use super::{App, Effect, Line, SlashCommand};
use crate::commands::Catalog;

/// The project's directory and its commands from files.
#[derive(Debug, Default)]
pub struct Project {
    pub cwd: PathBuf,
    pub catalog: Catalog,
    /// `/init` was refused once because `AGENTS.md` exists: the next `/init` goes ahead.
    pub init_confirmed: bool,
}

/// A command from a file as the command table holds it. The table is `'static` (the built-ins
/// are), so the few made at start are leaked, once per run.
fn leak(c: &crate::commands::FileCommand) -> &'static SlashCommand {
    Box::leak(Box::new(SlashCommand {
        name: format!("/{}", c.name).leak(),
        args: c.argument_hint.clone().leak(),
        help: c.help().leak(),
        run: sent_as_message,
    }))
}

/// Only reached when a caller skipped [`as_message`]; it says so rather than send nothing.
fn sent_as_message(app: &mut App, _: &str) -> Vec<Effect> {
    app.flash = Some("a command from a file is sent as a message: press Enter on it".into());
    Vec::new()
}

impl App {
    /// The commands from files for the project in `cwd` (loaded by `crate::commands::load`);
    /// what their files got wrong is shown once.
    pub fn set_file_commands(&mut self, catalog: Catalog, cwd: PathBuf) {
        self.input.commands = catalog.commands.iter().map(leak).collect();
        if !catalog.notices.is_empty() {
            let mut text = String::from("commands from files:");
            for n in &catalog.notices {
                text.push_str("\n- ");
                text.push_str(n);
            }
            self.transcript.push_notice(text);
        }
        self.project = Project {
            cwd,
            catalog,
            init_confirmed: false,
        };
    }
}

/// `line`, with a command from a file made into the message it sends.
pub fn as_message<'a>(app: &App, line: Line<'a>) -> Line<'a> {
    match line {
        Line::Command { command, arg } => {
            match app
                .project
                .catalog
                .find(command.name.trim_start_matches('/'))
            {
                Some(file) if !super::COMMANDS.iter().any(|c| c.name == command.name) => {
                    Line::Message(file.expand(arg))
                }
                _ => Line::Command { command, arg },
            }
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use super::*;
    use crate::commands::{FileCommand, Source};
    use crate::tui::tests_support::*;

    fn with_commands() -> App {
        let mut a = app();
        let mk = |name: &str, source, hint: &str, body: &str| FileCommand {
            name: name.into(),
            description: format!("{name} it"),
            argument_hint: hint.into(),
            body: body.into(),
            source,
            path: format!("/{name}.md").into(),
        };
        a.set_file_commands(
            Catalog {
                commands: vec![
                    mk("review", Source::User, "FILE", "Review $1."),
                    mk("deploy", Source::Project, "", "Deploy."),
                ],
                notices: vec!["/help.md: /help is a built-in command, which wins".into()],
            },
            PathBuf::from("/p"),
        );
        a
    }

    #[test]
    fn a_command_from_a_file_sends_its_text_and_is_listed_with_its_source() {
        let mut a = with_commands();
        typed(&mut a, "/review src/a.rs");
        assert_eq!(
            a.update(key(KeyCode::Enter)),
            [Effect::Send("Review src/a.rs.".into())]
        );
        let mut a = with_commands();
        typed(&mut a, "/dep");
        let menu = a.input().menu().expect("the popup is open");
        let items: Vec<(&str, &str)> = menu.items.iter().map(|c| (c.name, c.help)).collect();
        assert_eq!(items, [("/deploy", "deploy it (project)")]);
        assert_eq!(
            a.update(key(KeyCode::Enter)),
            [Effect::Send("Deploy.".into())],
            "Enter in the popup sends a command that needs no argument"
        );
        let help = crate::tui::app::help_text(&a.input().commands);
        assert!(help.contains("/review FILE"), "{help}");
        assert!(help.contains("review it (user)"), "{help}");
        // A unique prefix runs a command from a file too.
        let mut a = with_commands();
        typed(&mut a, "/rev x");
        assert_eq!(
            a.update(key(KeyCode::Enter)),
            [Effect::Send("Review x.".into())]
        );
    }
}
