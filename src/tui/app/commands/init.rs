//! `/init`: the model writes a starting `AGENTS.md` for the project, asked by the prompt in
//! `assets/init_prompt.md` to inspect the project with its file tools first. When `AGENTS.md`
//! already exists, the first `/init` only says so; `/init` again goes ahead, and the prompt
//! then tells the model to read the file and improve it rather than start over. The write
//! itself is a file tool's, under the approvals in force.

use super::{App, Effect, between_turns_busy};

const PROMPT: &str = include_str!("../../../../assets/init_prompt.md");

const CREATE: &str = "There is no AGENTS.md yet: create it.";
const IMPROVE: &str = "An AGENTS.md exists already, and the user agreed to have it revised: \
read it first, keep what is still right, correct what is not, add what is missing, and edit it \
in place.";

/// The prompt `/init` sends for the file at `path`, which `exists` or not.
pub fn prompt(path: &str, exists: bool) -> String {
    PROMPT
        .replace("{path}", path)
        .replace("{state}", if exists { IMPROVE } else { CREATE })
        .trim()
        .to_owned()
}

pub(super) fn run(app: &mut App, _: &str) -> Vec<Effect> {
    if between_turns_busy(app) {
        return Vec::new();
    }
    let path = app.project.cwd.join("AGENTS.md");
    let exists = path.exists();
    if exists && !app.project.init_confirmed {
        app.project.init_confirmed = true;
        app.transcript.push_notice(format!(
            "{} exists already. Type /init again to have the model read it and improve it (it edits the file under the approvals in force).",
            path.display()
        ));
        return Vec::new();
    }
    app.project.init_confirmed = false;
    app.busy = true;
    app.activity = super::Activity::Waiting;
    app.chat.end();
    vec![Effect::Send(prompt(&path.display().to_string(), exists))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_says_whether_to_create_or_improve() {
        let new = prompt("/p/AGENTS.md", false);
        assert!(new.contains("(/p/AGENTS.md)"), "{new}");
        assert!(new.contains(CREATE) && !new.contains(IMPROVE), "{new}");
        let old = prompt("/p/AGENTS.md", true);
        assert!(old.contains(IMPROVE) && !old.contains(CREATE), "{old}");
        assert!(!old.contains('{'), "every placeholder is filled: {old}");
    }
}
