//! The project's files live: `AGENTS.md` and the skills are read again when they change while
//! a chat runs — an `AGENTS.md` that `/init` had the model write, a skill added by hand or by a
//! command the model ran — so the next request's system message has them, and `/context` and
//! the TUI's welcome show what is in force. (Command files are the TUI's: `commands::live`.)
//!
//! When: before each user message is sent, when a turn ends (so a change a tool made is said at
//! once, not at the next message), before a new chat and before `/context`. Whether anything
//! changed is decided from the files' stamps (`crate::project_files::stamps`: every
//! `AGENTS.md` that may apply, present or not, the skills directories, their folders and each
//! `SKILL.md`): when nothing changed nothing is read and nothing is touched. When something
//! did, the instructions and skills are read again under the same rules as at the start, and
//! each change is said once (`Notice::ProjectFiles`: `AGENTS.md changed: re-read`, `skill
//! deploy added`), with what the files' notes newly say (a file refused, cut, or holding
//! invisible characters).
//!
//! The prompt cache: the system message (the first message of the history) is replaced only
//! when its text changed, so a server's cached prefix survives every refresh that changed
//! nothing; the environment block (date, branch) stays as the chat started. A skill appearing
//! in a chat that had none offers the `skill` tool from then on (unless the user chose the
//! tools); a skill's removal leaves the tool offered (it answers that there is none).

use std::path::{Path, PathBuf};

use super::{Agent, instructions};
use crate::events::{Event, EventSink, Notice};
use crate::project_files::stamps::{self, Stamps};
use crate::provider::ChatMessage;

/// What the agent watches, and how it stood when last read.
#[derive(Debug, Clone)]
pub struct Live {
    config_dir: PathBuf,
    stamps: Stamps,
    /// Read again since the system message was last made: it may have to change.
    stale: bool,
}

/// The stamps of every file whose change may change the instructions or the skills of a chat
/// in `cwd` (take them before reading, so a change during the read is seen next time).
pub fn watched(cwd: &Path, config_dir: &Path) -> Stamps {
    let mut paths = instructions::instruction_paths(cwd, config_dir);
    for dir in [
        crate::skills::user_dir(config_dir),
        crate::skills::project_dir(cwd),
    ] {
        for entry in stamps::tree(&dir) {
            paths.push(entry.join("SKILL.md"));
            paths.push(entry);
        }
    }
    Stamps::of(paths)
}

/// `path` as the user reads it: relative to the working directory when inside it.
fn shown(path: &Path, cwd: &Path) -> String {
    match path.strip_prefix(cwd) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// What changed from `old` to `new`, one phrase each.
fn changes(
    old: (&instructions::Instructions, &crate::skills::Catalog),
    new: (&instructions::Instructions, &crate::skills::Catalog),
    cwd: &Path,
) -> Vec<String> {
    let mut out = Vec::new();
    let (old_files, new_files) = (&old.0.files, &new.0.files);
    for f in new_files {
        let name = shown(&f.path, cwd);
        match old_files.iter().find(|o| o.path == f.path) {
            None => out.push(format!("{name} added: read")),
            Some(o) if o.hash != f.hash || o.used != f.used => {
                out.push(format!("{name} changed: re-read"))
            }
            Some(_) => {}
        }
    }
    for o in old_files {
        if !new_files.iter().any(|f| f.path == o.path) {
            out.push(format!("{} removed: no longer read", shown(&o.path, cwd)));
        }
    }
    for s in &new.1.skills {
        match old.1.find(&s.name) {
            None => out.push(format!("skill {} added", s.name)),
            Some(o) if o != s => out.push(format!("skill {} changed", s.name)),
            Some(_) => {}
        }
    }
    for o in &old.1.skills {
        if new.1.find(&o.name).is_none() {
            out.push(format!("skill {} removed", o.name));
        }
    }
    out
}

impl Agent {
    /// Watches the project's files from now on: `stamps` as they stood when the chat's
    /// instructions and skills were read (`watched`), sayso's config directory `config_dir`.
    pub fn watch_project_files(&mut self, config_dir: PathBuf, stamps: Stamps) {
        self.live = Some(Live {
            config_dir,
            stamps,
            stale: false,
        });
    }

    /// The skills in force: their names, when the `skill` tool is offered.
    pub fn skill_names(&self) -> Vec<String> {
        if !self
            .engine
            .active()
            .contains(crate::tools::builtin::skill::NAME)
        {
            return Vec::new();
        }
        let skills = &self.engine.skills().skills;
        skills.iter().map(|s| s.name.clone()).collect()
    }

    /// Reads `AGENTS.md` and the skills again when a file of theirs changed since they were
    /// read, says what changed, and puts them in the system message; nothing when nothing
    /// changed (or nothing is watched).
    pub fn refresh_project_files(&mut self, sink: &EventSink) {
        self.reread_project_files(sink);
        self.sync_system_message();
    }

    /// The system message made again after the files were read again (the history is the
    /// agent's again: during a turn it is the turn's). The cached prefix is kept unless the
    /// text really changed.
    pub(super) fn sync_system_message(&mut self) {
        let Some(live) = self.live.as_mut().filter(|l| l.stale) else {
            return;
        };
        live.stale = false;
        let system = self.system_message();
        match self.messages.first_mut() {
            Some(ChatMessage::System { content }) if *content != system => *content = system,
            Some(ChatMessage::System { .. }) => {}
            _ if !system.is_empty() => self
                .messages
                .insert(0, ChatMessage::System { content: system }),
            _ => {}
        }
    }

    /// The reading half of [`Agent::refresh_project_files`]: the settings, the skills and the
    /// notices, not yet the history's system message.
    pub(super) fn reread_project_files(&mut self, sink: &EventSink) {
        let Some(live) = &self.live else { return };
        let cwd = self.engine.cwd().to_path_buf();
        let now = watched(&cwd, &live.config_dir);
        if now == live.stamps {
            return;
        }
        let config_dir = live.config_dir.clone();
        let skills = crate::skills::discover(&config_dir, &cwd);
        let mut fresh = instructions::load(&cwd, &config_dir, "");
        fresh.environment = self.settings.instructions.environment.clone();
        fresh.add_skills(&skills);
        let said = changes(
            (&self.settings.instructions, self.engine.skills()),
            (&fresh, &skills),
            &cwd,
        );
        let new_notes: Vec<String> = fresh
            .notes
            .iter()
            .filter(|n| !self.settings.instructions.notes.contains(n))
            .cloned()
            .collect();
        let skill_tool = crate::tools::builtin::skill::NAME;
        if !skills.is_empty()
            && !self.settings.default_tools_chosen
            && self.engine.registry().get(skill_tool).is_some()
        {
            self.engine.activate(skill_tool);
            let mut defaults = self.engine.defaults().clone();
            defaults.insert(skill_tool.to_owned());
            self.engine.set_defaults(defaults);
        }
        self.engine.set_skills(skills);
        self.settings.instructions = fresh;
        if let Some(live) = self.live.as_mut() {
            live.stamps = now;
            live.stale = true;
        }
        // Skills the chat does not offer (the user chose the tools) are not in force: said so.
        let offered = self.engine.active().contains(skill_tool);
        let said: Vec<String> = said
            .into_iter()
            .map(|c| {
                if c.starts_with("skill ") && !offered {
                    format!("{c} (not offered: the chat's tools were chosen without `skill`)")
                } else {
                    c
                }
            })
            .collect();
        if !said.is_empty() {
            sink.emit(Event::Notice(Notice::ProjectFiles {
                changes: said,
                instructions: self.instruction_files(),
                skills: self.skill_names(),
            }));
        }
        for note in new_notes {
            sink.emit(Event::Notice(Notice::Instructions(note)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(home: &Path) -> (Agent, PathBuf) {
        let c = crate::agent::build::tests::config(home);
        let agent = crate::agent::build::tests::agent(&c, home);
        (agent, c.dirs.config.clone())
    }

    fn system(a: &Agent) -> String {
        match a.messages().first() {
            Some(ChatMessage::System { content }) => content.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_agents_file_written_during_a_chat_is_read_once_and_said_once() {
        let home = tempfile::tempdir().unwrap();
        let (mut a, _) = chat(home.path());
        let (sink, mut events) = EventSink::channel();
        let before = system(&a);
        a.refresh_project_files(&sink);
        assert_eq!(system(&a), before, "nothing changed");
        assert!(events.try_recv().is_err());
        std::fs::write(home.path().join("AGENTS.md"), "Use tabs.").unwrap();
        a.refresh_project_files(&sink);
        let after = system(&a);
        assert!(after.contains("Use tabs."), "{after}");
        match events.try_recv() {
            Ok(Event::Notice(Notice::ProjectFiles {
                changes,
                instructions,
                ..
            })) => {
                assert_eq!(changes, ["AGENTS.md added: read"]);
                assert_eq!(instructions, [home.path().join("AGENTS.md")]);
            }
            other => panic!("{other:?}"),
        }
        a.refresh_project_files(&sink);
        assert!(events.try_recv().is_err(), "said once");
        // The same text written again: read (the stamps moved), nothing said, nothing changed.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(home.path().join("AGENTS.md"), "Use tabs.").unwrap();
        a.refresh_project_files(&sink);
        assert!(events.try_recv().is_err());
        assert_eq!(system(&a), after);
        std::fs::write(home.path().join("AGENTS.md"), "Use spaces.").unwrap();
        a.refresh_project_files(&sink);
        assert!(system(&a).contains("Use spaces."));
        assert!(matches!(
            events.try_recv(),
            Ok(Event::Notice(Notice::ProjectFiles { changes, .. })) if changes == ["AGENTS.md changed: re-read"]
        ));
        std::fs::remove_file(home.path().join("AGENTS.md")).unwrap();
        a.refresh_project_files(&sink);
        assert!(!system(&a).contains("Use spaces."));
        assert!(matches!(
            events.try_recv(),
            Ok(Event::Notice(Notice::ProjectFiles { changes, .. })) if changes == ["AGENTS.md removed: no longer read"]
        ));
    }

    #[test]
    fn a_skill_added_during_a_chat_is_listed_offered_and_loadable() {
        let home = tempfile::tempdir().unwrap();
        let (mut a, config) = chat(home.path());
        let (sink, mut events) = EventSink::channel();
        assert!(!a.engine().active().contains("skill"));
        let folder = crate::skills::user_dir(&config).join("deploy");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join("SKILL.md"),
            "---\ndescription: Ship it\n---\nRun make ship.",
        )
        .unwrap();
        a.refresh_project_files(&sink);
        assert!(system(&a).contains("- deploy: Ship it"), "{}", system(&a));
        assert!(a.engine().active().contains("skill"));
        assert!(
            a.engine().defaults().contains("skill"),
            "also in a new chat"
        );
        assert!(
            crate::skills::load(a.engine().skills(), "deploy")
                .unwrap()
                .contains("Run make ship.")
        );
        assert_eq!(a.skill_names(), ["deploy"]);
        assert!(matches!(
            events.try_recv(),
            Ok(Event::Notice(Notice::ProjectFiles { changes, skills, .. }))
                if changes == ["skill deploy added"] && skills == ["deploy"]
        ));
    }

    #[test]
    fn a_new_file_holding_invisible_characters_is_named_once() {
        let home = tempfile::tempdir().unwrap();
        let (mut a, _) = chat(home.path());
        let (sink, mut events) = EventSink::channel();
        std::fs::write(home.path().join("AGENTS.md"), "Be brief.\u{E0041}").unwrap();
        a.refresh_project_files(&sink);
        let mut notes = Vec::new();
        while let Ok(Event::Notice(n)) = events.try_recv() {
            notes.push(n);
        }
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            matches!(&notes[1], Notice::Instructions(t) if t.contains("holds an invisible character")),
            "{notes:?}"
        );
    }
}
