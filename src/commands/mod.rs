//! Commands from files: `NAME.md` in the user's `commands/` (in sayso's config directory) and
//! in the project's `.sayso/commands/` become `/NAME args`, which sends the file's body with
//! the arguments substituted ([`arguments`]). The optional front matter ([`front_matter`]) may
//! say `description` and `argument-hint`, shown in the `/` popup and `/help`.
//!
//! A command file is prompt text and nothing more. It cannot offer or remove tools, change
//! approvals, the model, the provider or the sandbox: any other front-matter key in a project's
//! file is refused with a `file:line` notice (the command still loads, as text), and in the
//! user's own file ignored with a notice. A name that a built-in command has loses to the
//! built-in; one the user and the project both define is the user's (a repository cannot put
//! its text behind a name the user chose). Both are said once, in the notices, as is a file
//! holding invisible characters (`crate::invisible`).
//!
//! Files are read through `secrets::own_files`: a regular file (not `/proc`, `/sys`, `/dev`),
//! inside its commands directory (a symlink out of it is refused with a note), at most
//! [`MAX_COMMAND_FILE`] bytes, valid UTF-8; a project's directory and files must also resolve
//! inside the project and outside sayso's config directory (`crate::project_files`), so a
//! `.sayso/commands` linked elsewhere is not read. This module reads and describes ([`live`]:
//! read again when a file changes); the TUI decides when a line is a command, and `@path` in
//! the text is the composer's to attach.

pub mod arguments;
pub mod front_matter;
pub mod live;
pub mod mentions;

use std::path::{Path, PathBuf};

use crate::secrets::own_files::{self, Refused};

/// The largest command file read, in bytes.
pub const MAX_COMMAND_FILE: u64 = 64 * 1024;

/// The front-matter keys a command file may set.
pub const HONOURED_KEYS: [&str; 2] = ["description", "argument-hint"];

/// Whose file it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    User,
    Project,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::User => "user",
            Source::Project => "project",
        }
    }
}

/// One command from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCommand {
    /// Without the `/`.
    pub name: String,
    pub description: String,
    pub argument_hint: String,
    pub body: String,
    pub source: Source,
    pub path: PathBuf,
}

impl FileCommand {
    /// The text `/NAME args` sends. A project command's `@path` mentions that lead out of
    /// the project are left as plain text ([`mentions::confine`]): only the user's own
    /// commands attach what they name wherever it is.
    pub fn expand(&self, args: &str) -> String {
        let text = arguments::substitute(&self.body, args);
        match (self.source, self.project_root()) {
            (Source::User, _) => text,
            (Source::Project, Some(root)) => mentions::confine(&text, root).0,
            (Source::Project, None) => mentions::confine(&text, Path::new("/nonexistent")).0,
        }
    }

    /// The project a project command belongs to: `PROJECT/.sayso/commands/NAME.md`.
    fn project_root(&self) -> Option<&Path> {
        self.path.parent()?.parent()?.parent()
    }

    /// One line for the popup and `/help`: the description and the source.
    pub fn help(&self) -> String {
        if self.description.is_empty() {
            format!("({} command)", self.source.as_str())
        } else {
            format!("{} ({})", self.description, self.source.as_str())
        }
    }
}

/// The commands found, and what the user should be told about the files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    /// Sorted by name; no name twice, none a built-in's.
    pub commands: Vec<FileCommand>,
    pub notices: Vec<String>,
}

impl Catalog {
    pub fn find(&self, name: &str) -> Option<&FileCommand> {
        self.commands.iter().find(|c| c.name == name)
    }
}

/// The user's commands directory in sayso's config directory `config_dir`.
pub fn user_dir(config_dir: &Path) -> PathBuf {
    config_dir.join("commands")
}

/// The project's commands directory for the working directory `cwd`.
pub fn project_dir(cwd: &Path) -> PathBuf {
    cwd.join(".sayso").join("commands")
}

/// Whether `name` can be a command's name: letters, digits, `-` and `_`.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
}

/// Loads the commands of `config_dir` and `cwd`; `builtins` are the built-in names (with `/`).
pub fn load(config_dir: &Path, cwd: &Path, builtins: &[&str]) -> Catalog {
    let mut found = Vec::new();
    let mut notices = Vec::new();
    let project = crate::project_files::root(cwd);
    for (source, dir) in [
        (Source::User, user_dir(config_dir)),
        (Source::Project, project_dir(cwd)),
    ] {
        let confined = (source == Source::Project).then_some((project.as_path(), config_dir));
        read_dir(&dir, source, confined, &mut found, &mut notices);
    }
    let (catalog_commands, mut more) = resolve(found, builtins);
    notices.append(&mut more);
    Catalog {
        commands: catalog_commands,
        notices,
    }
}

/// Orders the commands (the user's before the project's, each by name) and drops the names
/// that clash, saying so.
pub fn resolve(mut found: Vec<FileCommand>, builtins: &[&str]) -> (Vec<FileCommand>, Vec<String>) {
    found.sort_by(|a, b| {
        (a.source == Source::Project, &a.name).cmp(&(b.source == Source::Project, &b.name))
    });
    let mut kept: Vec<FileCommand> = Vec::new();
    let mut notices = Vec::new();
    for c in found {
        let slash = format!("/{}", c.name);
        if builtins.contains(&slash.as_str()) {
            notices.push(format!(
                "{}: /{} is a built-in command, which wins; rename the file to use it",
                c.path.display(),
                c.name
            ));
        } else if let Some(first) = kept.iter().find(|k| k.name == c.name) {
            notices.push(format!(
                "{}: /{} is also your own command ({}), which wins",
                c.path.display(),
                c.name,
                first.path.display()
            ));
        } else {
            kept.push(c);
        }
    }
    kept.sort_by(|a, b| a.name.cmp(&b.name));
    (kept, notices)
}

/// The commands in `dir`; a project's (`confined`: its project and sayso's config directory)
/// only when `dir` and each file resolve inside the project and outside that directory.
fn read_dir(
    dir: &Path,
    source: Source,
    confined: Option<(&Path, &Path)>,
    found: &mut Vec<FileCommand>,
    notices: &mut Vec<String>,
) {
    if let Some((project, config)) = confined {
        match crate::project_files::confine(dir, project, config) {
            Ok(_) => {}
            Err(Refused::Missing) => return,
            Err(Refused::Refused(why)) => {
                notices.push(format!("{} was not read: {why}", dir.display()));
                return;
            }
        }
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    paths.sort();
    for path in paths {
        let Some(name) = path.file_stem().and_then(|s| s.to_str()).map(str::to_owned) else {
            continue;
        };
        if !valid_name(&name) {
            notices.push(format!(
                "{}: not a command: a name has letters, digits, - and _ only",
                path.display()
            ));
            continue;
        }
        match read_one(&path, dir, confined) {
            Ok(text) => found.push(from_text(name, &text, source, path, notices)),
            Err(Refused::Missing) => {}
            Err(Refused::Refused(why)) => {
                notices.push(format!("{} was not read: {why}", path.display()))
            }
        }
    }
}

/// The text of a command file, read through `own_files` inside `dir`; a project's file
/// (`confined`) only from inside the project, never from sayso's config directory.
fn read_one(path: &Path, dir: &Path, confined: Option<(&Path, &Path)>) -> Result<String, Refused> {
    if let Some((project, config)) = confined {
        crate::project_files::confine(path, project, config)?;
    }
    let bytes = own_files::read_at_most(path, &[dir], MAX_COMMAND_FILE)?;
    String::from_utf8(bytes).map_err(|_| Refused::Refused("it is not UTF-8 text".into()))
}

/// A command from its file's text; a key it may not set is reported (`file:line`).
pub fn from_text(
    name: String,
    text: &str,
    source: Source,
    path: PathBuf,
    notices: &mut Vec<String>,
) -> FileCommand {
    notices.extend(crate::invisible::file_notice(&path, text));
    let parsed = front_matter::parse(text);
    for key in &parsed.keys {
        if HONOURED_KEYS.contains(&key.key.as_str()) {
            continue;
        }
        let at = format!("{}:{}", path.display(), key.line);
        notices.push(match source {
            Source::Project => format!(
                "{at}: `{}` refused: a project's command is prompt text only; it cannot change tools, approvals, the model, the provider or the sandbox",
                key.key
            ),
            Source::User => format!(
                "{at}: `{}` ignored: a command sets only description and argument-hint",
                key.key
            ),
        });
    }
    for (line, _) in &parsed.unreadable {
        notices.push(format!(
            "{}:{line}: not a `key: value` line; ignored",
            path.display()
        ));
    }
    FileCommand {
        description: crate::secrets::scrub_owned(
            parsed.get("description").unwrap_or_default().to_owned(),
        ),
        argument_hint: parsed.get("argument-hint").unwrap_or_default().to_owned(),
        body: parsed.body.trim().to_owned(),
        name,
        source,
        path,
    }
}

#[cfg(test)]
mod tests;
