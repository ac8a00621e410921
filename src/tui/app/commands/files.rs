//! The commands from files (`crate::commands`) in the TUI: they join the command table (the `/`
//! popup, `/help`, completion) as [`SlashCommand`]s whose help says whose they are; a submitted
//! `/NAME args` becomes the message its file's text makes ([`as_message`]), sent like any typed
//! message (so it waits, is refused or queued as a message is). What the files may set at all
//! is `crate::commands`' business; the notices it has go to the transcript once.
//!
//! The files are live (`crate::commands::live`): before a submitted line is read, when a turn
//! ends and at `/clear`, they are read again if they changed, the table follows, and what
//! changed is said once (`new command /foo`); the welcome names the commands in force.

use std::path::PathBuf;

use super::{App, Effect, Line, SlashCommand};
use crate::commands::Catalog;

/// The project's directory and its commands from files.
#[derive(Default)]
pub struct Project {
    pub cwd: PathBuf,
    pub catalog: Catalog,
    /// `/init` was refused once because `AGENTS.md` exists: the next `/init` goes ahead.
    pub init_confirmed: bool,
    /// The files the commands come from, watched (`None`: a fixed catalog, as in tests).
    live: Option<crate::commands::live::Live>,
    /// The table entries made so far ([`leak`]): one coming back the same is reused.
    made: Vec<&'static SlashCommand>,
}

/// A command from a file as the command table holds it. The table is `'static` (the built-ins
/// are), so an entry is leaked, once per name, hint and help seen in the run (`made`).
fn leak(
    c: &crate::commands::FileCommand,
    made: &mut Vec<&'static SlashCommand>,
) -> &'static SlashCommand {
    let (name, help) = (format!("/{}", c.name), c.help());
    if let Some(m) = made
        .iter()
        .find(|m| m.name == name && m.args == c.argument_hint && m.help == help)
    {
        return m;
    }
    let entry: &'static SlashCommand = Box::leak(Box::new(SlashCommand {
        name: name.leak(),
        args: c.argument_hint.clone().leak(),
        help: help.leak(),
        run: sent_as_message,
    }));
    made.push(entry);
    entry
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
        let mut made = std::mem::take(&mut self.project.made);
        self.input.commands = catalog
            .commands
            .iter()
            .map(|c| leak(c, &mut made))
            .collect();
        self.file_notices(&catalog.notices);
        self.welcome_in_force(|w| w.commands = command_names(&catalog));
        self.project = Project {
            cwd,
            catalog,
            init_confirmed: false,
            live: None,
            made,
        };
    }

    /// The commands from the files `live` watches, kept current from now on.
    pub fn set_live_commands(&mut self, mut live: crate::commands::live::Live) {
        let catalog = std::mem::take(&mut live.catalog);
        self.set_file_commands(catalog.clone(), live.cwd().to_path_buf());
        live.catalog = catalog;
        self.project.live = Some(live);
    }

    /// Reads the command files again when they changed since they were read: the table, the
    /// popup and the welcome follow, and what changed is said once.
    pub(in crate::tui::app) fn refresh_file_commands(&mut self) {
        let Some(live) = self.project.live.as_mut() else {
            return;
        };
        let Some(old) = live.reload_if_changed() else {
            return;
        };
        let catalog = live.catalog.clone();
        let (changes, notices) = crate::commands::live::changes(&old, &catalog);
        let mut made = std::mem::take(&mut self.project.made);
        self.input.commands = catalog
            .commands
            .iter()
            .map(|c| leak(c, &mut made))
            .collect();
        self.project.made = made;
        if !changes.is_empty() {
            self.transcript.push_notice(changes.join("; "));
        }
        self.file_notices(&notices);
        self.welcome_in_force(|w| w.commands = command_names(&catalog));
        self.project.catalog = catalog;
        self.after_transcript_change();
    }

    /// What the command files got wrong, in one notice.
    fn file_notices(&mut self, notices: &[String]) {
        if notices.is_empty() {
            return;
        }
        let mut text = String::from("commands from files:");
        for n in notices {
            text.push_str("\n- ");
            text.push_str(n);
        }
        self.transcript.push_notice(text);
    }
}

/// The commands' names as the welcome lists them.
fn command_names(catalog: &Catalog) -> Vec<String> {
    catalog
        .commands
        .iter()
        .map(|c| format!("/{}", c.name))
        .collect()
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
