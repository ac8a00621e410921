//! The commands of a chat kept current: a command file added, changed or removed while sayso
//! runs — by you, or by a command the model ran — is read again the next time the front end
//! asks ([`Live::reload_if_changed`], before a line is read as a command and when a turn
//! ends). Whether anything changed is decided from the files' stamps
//! (`crate::project_files::stamps`): nothing is read when nothing changed. [`changes`] says
//! what changed, in words, for the one notice the user gets.

use std::path::PathBuf;

use super::{Catalog, project_dir, user_dir};
use crate::project_files::stamps::{self, Stamps};

/// A chat's commands from files, and how their files stood when read.
#[derive(Debug)]
pub struct Live {
    config_dir: PathBuf,
    cwd: PathBuf,
    builtins: Vec<String>,
    stamps: Stamps,
    /// The commands as last read.
    pub catalog: Catalog,
}

/// The files whose change may change the commands: both directories and their entries.
fn watched(config_dir: &std::path::Path, cwd: &std::path::Path) -> Stamps {
    Stamps::of(
        stamps::tree(&user_dir(config_dir))
            .into_iter()
            .chain(stamps::tree(&project_dir(cwd))),
    )
}

impl Live {
    /// The commands of `config_dir` and `cwd` read now (`builtins`: the built-in names, with
    /// `/`, which win).
    pub fn new(config_dir: PathBuf, cwd: PathBuf, builtins: Vec<String>) -> Self {
        let stamps = watched(&config_dir, &cwd);
        let names: Vec<&str> = builtins.iter().map(String::as_str).collect();
        let catalog = super::load(&config_dir, &cwd, &names);
        Self {
            config_dir,
            cwd,
            builtins,
            stamps,
            catalog,
        }
    }

    /// The working directory the commands are for.
    pub fn cwd(&self) -> &std::path::Path {
        &self.cwd
    }

    /// The commands read again when a file of theirs changed since the last read (and the
    /// catalog they replace); `None` when nothing changed.
    pub fn reload_if_changed(&mut self) -> Option<Catalog> {
        let now = watched(&self.config_dir, &self.cwd);
        if now == self.stamps {
            return None;
        }
        self.stamps = now;
        let names: Vec<&str> = self.builtins.iter().map(String::as_str).collect();
        let fresh = super::load(&self.config_dir, &self.cwd, &names);
        Some(std::mem::replace(&mut self.catalog, fresh))
    }
}

/// What changed from `old` to `new`, one phrase per command: `new command /foo`, `command /foo
/// changed`, `command /foo removed`; and the notices about the files that are new.
pub fn changes(old: &Catalog, new: &Catalog) -> (Vec<String>, Vec<String>) {
    let mut out = Vec::new();
    for c in &new.commands {
        match old.find(&c.name) {
            None => out.push(format!("new command /{}", c.name)),
            Some(o) if o != c => out.push(format!("command /{} changed: re-read", c.name)),
            Some(_) => {}
        }
    }
    for o in &old.commands {
        if new.find(&o.name).is_none() {
            out.push(format!("command /{} removed", o.name));
        }
    }
    let notices = new
        .notices
        .iter()
        .filter(|n| !old.notices.contains(n))
        .cloned()
        .collect();
    (out, notices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_file_added_changed_or_removed_is_read_again_and_said_once() {
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join("config");
        let cwd = home.path().join("proj");
        std::fs::create_dir_all(&cwd).unwrap();
        let mut live = Live::new(config.clone(), cwd.clone(), vec!["/help".into()]);
        assert!(live.catalog.commands.is_empty());
        assert!(live.reload_if_changed().is_none(), "nothing changed");
        let dir = project_dir(&cwd);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("deploy.md"), "Deploy it.").unwrap();
        let old = live.reload_if_changed().expect("a new file");
        assert_eq!(
            changes(&old, &live.catalog),
            (vec!["new command /deploy".to_owned()], vec![])
        );
        assert!(live.reload_if_changed().is_none(), "read once");
        std::fs::write(dir.join("deploy.md"), "Deploy it, carefully.").unwrap();
        std::fs::write(dir.join("help.md"), "Not mine.").unwrap();
        let old = live.reload_if_changed().expect("a changed file");
        let (said, notices) = changes(&old, &live.catalog);
        assert_eq!(said, ["command /deploy changed: re-read"]);
        assert_eq!(notices.len(), 1, "the built-in wins: {notices:?}");
        std::fs::remove_file(dir.join("deploy.md")).unwrap();
        let old = live.reload_if_changed().expect("a removed file");
        assert_eq!(changes(&old, &live.catalog).0, ["command /deploy removed"]);
        assert_eq!(live.catalog.find("deploy"), None);
    }
}
