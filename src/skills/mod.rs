//! Skills: folders holding a `SKILL.md` (front matter `name`, `description`) in the user's
//! `skills/` (in sayso's config directory) and the project's `.sayso/skills/`. At the start of a
//! chat only their names and descriptions are read, for one short list in the system message
//! ([`listing`], capped at [`MAX_LISTING`] bytes); the `skill` tool loads a skill's full text
//! and lists its other files when the model asks ([`load`]), so the window is spent only on
//! the skills used.
//!
//! A skill is text for the model: its front matter sets nothing but its name and description
//! (other keys are noted and ignored); a `SKILL.md` holding invisible characters is named in a
//! notice (`crate::invisible`). A name the user and the project both use is the user's.
//! `SKILL.md` is read through `secrets::own_files` (a regular file inside its folder, not
//! `/proc`, at most [`MAX_SKILL_FILE`] bytes); the listed files are read, if at all, by
//! `read_file` under its own rules — which treat a skill's folder as inside the project, so
//! where a folder is must be settled first: a skill's folder must resolve inside its skills
//! directory, and the project's `.sayso/skills` inside the project and outside sayso's config
//! directory (`crate::project_files`); a symlink that leads out is refused with a notice. The
//! folder is remembered as it resolved then ([`Skill::real`]). This module does not run
//! anything a skill mentions.

use std::path::{Path, PathBuf};

use crate::commands::{Source, front_matter, valid_name};
use crate::secrets::own_files::{self, Refused};

/// The largest `SKILL.md` read, in bytes.
pub const MAX_SKILL_FILE: u64 = 256 * 1024;
/// The skills list in the system message stays under this.
pub const MAX_LISTING: usize = 4 * 1024;
/// A description is cut to this many characters in the list.
pub const MAX_DESCRIPTION: usize = 240;
/// At most this many of a skill's files are listed.
pub const MAX_FILES: usize = 100;

/// One skill as found (its text is not kept: the tool reads it when asked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    pub source: Source,
    /// The folder that holds `SKILL.md`.
    pub dir: PathBuf,
    /// `dir` fully resolved when it was found: what `read_file` treats as inside, and where
    /// the folder must still lead when the skill is loaded.
    pub real: PathBuf,
}

/// The skills found, and what the user should be told about them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    /// Sorted by name, no name twice.
    pub skills: Vec<Skill>,
    pub notices: Vec<String>,
}

impl Catalog {
    pub fn find(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// Whether `path` (resolved) lies in one of the skills' folders, as they resolved when
    /// they were found (a folder pointed elsewhere since does not move what is inside).
    pub fn holds(&self, path: &Path) -> bool {
        self.skills.iter().any(|s| path.starts_with(&s.real))
    }
}

/// The user's skills directory in sayso's config directory.
pub fn user_dir(config_dir: &Path) -> PathBuf {
    config_dir.join("skills")
}

/// The project's skills directory for the working directory `cwd`.
pub fn project_dir(cwd: &Path) -> PathBuf {
    cwd.join(".sayso").join("skills")
}

/// The skills of the user (`config_dir`) and the project (`cwd`). The project's skills
/// directory must resolve inside the project and outside `config_dir`
/// (`crate::project_files::confine`): one that leads out is not read, with a notice saying why.
pub fn discover(config_dir: &Path, cwd: &Path) -> Catalog {
    let mut out = Catalog::default();
    let project = crate::project_files::root(cwd);
    for (source, dir) in [
        (Source::User, user_dir(config_dir)),
        (Source::Project, project_dir(cwd)),
    ] {
        let within = match source {
            Source::User => std::fs::canonicalize(&dir).map_err(|_| Refused::Missing),
            Source::Project => crate::project_files::confine(&dir, &project, config_dir),
        };
        let within = match within {
            Ok(w) => w,
            Err(Refused::Missing) => continue,
            Err(Refused::Refused(why)) => {
                out.notices
                    .push(format!("{} was not read: {why}", dir.display()));
                continue;
            }
        };
        let Ok(entries) = std::fs::read_dir(&within) else {
            continue;
        };
        let mut folders: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("SKILL.md").exists())
            .collect();
        folders.sort();
        for entry in folders {
            // Named under the directory as the user knows it, checked where it resolves.
            let folder = dir.join(entry.file_name().unwrap_or_default());
            match read_skill_md(&folder, &within) {
                Ok((text, real)) => {
                    if let Some(mut skill) = from_text(&folder, &text, source, &mut out.notices) {
                        skill.real = real;
                        if let Some(first) = out.find(&skill.name) {
                            out.notices.push(format!(
                                "{}: the skill `{}` is also in {}, which wins",
                                folder.display(),
                                skill.name,
                                first.dir.display()
                            ));
                        } else {
                            out.skills.push(skill);
                        }
                    }
                }
                Err(Refused::Missing) => {}
                Err(Refused::Refused(why)) => out.notices.push(format!(
                    "{} was not read: {why}",
                    folder.join("SKILL.md").display()
                )),
            }
        }
    }
    out.skills.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// `SKILL.md` of `folder`, read inside `folder`, which must resolve inside `within` (the skills
/// directory, resolved); the text and the folder resolved.
fn read_skill_md(folder: &Path, within: &Path) -> Result<(String, PathBuf), Refused> {
    // The folder itself may not lead out of the skills directory.
    let real = std::fs::canonicalize(folder)
        .ok()
        .filter(|f| f.starts_with(within))
        .ok_or_else(|| Refused::Refused(format!("its folder is outside {}", within.display())))?;
    let bytes = own_files::read_at_most(&real.join("SKILL.md"), &[&real], MAX_SKILL_FILE)?;
    let text =
        String::from_utf8(bytes).map_err(|_| Refused::Refused("it is not UTF-8 text".into()))?;
    Ok((text, real))
}

/// A skill from its `SKILL.md` text; `None` (with a notice) when it has no usable name.
pub fn from_text(
    folder: &Path,
    text: &str,
    source: Source,
    notices: &mut Vec<String>,
) -> Option<Skill> {
    let file = folder.join("SKILL.md");
    notices.extend(crate::invisible::file_notice(&file, text));
    let parsed = front_matter::parse(text);
    for key in &parsed.keys {
        if key.key != "name" && key.key != "description" {
            notices.push(format!(
                "{}:{}: `{}` ignored: a skill sets only its name and description",
                file.display(),
                key.line,
                key.key
            ));
        }
    }
    let folder_name = folder.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let name = parsed.get("name").unwrap_or(folder_name).trim().to_owned();
    if !valid_name(&name) {
        notices.push(format!(
            "{}: not a skill: a name has letters, digits, - and _ only",
            file.display()
        ));
        return None;
    }
    let description = parsed.get("description").unwrap_or_default().trim();
    if description.is_empty() {
        notices.push(format!(
            "{}: the skill `{name}` has no description, so the model cannot tell when to use it",
            file.display()
        ));
    }
    Some(Skill {
        name,
        description: crate::secrets::scrub_owned(
            crate::text_cut::head_chars(description, MAX_DESCRIPTION).to_owned(),
        ),
        source,
        dir: folder.to_path_buf(),
        real: folder.to_path_buf(),
    })
}

/// The list for the system message (empty when there are no skills), within [`MAX_LISTING`].
pub fn listing(catalog: &Catalog) -> String {
    if catalog.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "Skills (load one with the `skill` tool when the task matches its description):",
    );
    for (i, s) in catalog.skills.iter().enumerate() {
        let line = format!("\n- {}: {}", s.name, s.description);
        if out.len() + line.len() > MAX_LISTING {
            out.push_str(&format!(
                "\n- … and {} more (the list is capped)",
                catalog.skills.len() - i
            ));
            break;
        }
        out.push_str(&line);
    }
    out
}

/// The `skill` tool's answer for `name`: the full `SKILL.md` and the skill's other files.
pub fn load(catalog: &Catalog, name: &str) -> Result<String, String> {
    let Some(skill) = catalog.find(name.trim()) else {
        let names: Vec<&str> = catalog.skills.iter().map(|s| s.name.as_str()).collect();
        return Err(if names.is_empty() {
            format!("no skill `{name}`: there are no skills")
        } else {
            format!("no skill `{name}`; the skills are: {}", names.join(", "))
        });
    };
    // The folder must still lead where it did when it was found.
    let cannot = |why: String| format!("the skill `{name}` cannot be read now: {why}");
    match std::fs::canonicalize(&skill.dir) {
        Ok(now) if now == skill.real => {}
        Ok(now) => {
            return Err(cannot(format!(
                "its folder now leads to {}, not {}",
                now.display(),
                skill.real.display()
            )));
        }
        Err(e) => return Err(cannot(e.to_string())),
    }
    let (text, _) =
        read_skill_md(&skill.dir, &skill.real).map_err(|why| cannot(why.to_string()))?;
    let parsed = front_matter::parse(&text);
    let text = crate::secrets::scrub_owned(parsed.body.trim().to_owned());
    let mut out = format!(
        "Skill `{}` ({}, {}):\n\n{text}",
        skill.name,
        skill.source.as_str(),
        skill.dir.display()
    );
    let (files, more) = files(&skill.real);
    if !files.is_empty() {
        out.push_str(
            "\n\nThis skill's other files (read one with read_file when the skill says to):",
        );
        for f in &files {
            out.push_str(&format!("\n- {}", f.display()));
        }
        if more {
            out.push_str(&format!("\n- … (only the first {MAX_FILES} are listed)"));
        }
    }
    Ok(out)
}

/// The regular files under `dir` but `SKILL.md`, sorted, at most [`MAX_FILES`] (and whether
/// there were more). Symlinks are not followed; hidden names are left out.
pub fn files(dir: &Path) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    let mut more = false;
    while let Some((d, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue;
            }
            let Ok(kind) = e.file_type() else { continue };
            let path = e.path();
            if kind.is_dir() && depth < 4 {
                stack.push((path, depth + 1));
            } else if kind.is_file() && !(depth == 0 && name == "SKILL.md") {
                if out.len() == MAX_FILES {
                    more = true;
                } else {
                    out.push(path);
                }
            }
        }
    }
    out.sort();
    (out, more)
}

#[cfg(test)]
mod tests;
