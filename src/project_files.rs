//! A project's own files — `AGENTS.md`, `.sayso/commands/*.md`, `.sayso/skills/*/SKILL.md`:
//! where the project is, and the one rule each of them is read under.
//!
//! The project is the nearest directory at or above the working directory that holds `.git` (a
//! directory or a `gitdir:` file), else the working directory itself — the directory the
//! sandbox makes writable. A project's file, or a folder it is read from, counts only when its
//! fully resolved path lies inside the project: a symlink that leads out — of the file, of a
//! skill's folder, of `.sayso/skills`, of `.sayso` itself — is refused with the reason, and
//! nothing of it is read. A repository could otherwise turn a folder anywhere on the machine
//! into "the project's" (a skill's folder is where `read_file` reads unasked). Inside the
//! project, sayso's config directory is still refused (a chat in `$HOME` holds it): its config
//! file holds header values and MCP tokens.
//!
//! [`stamps`] says cheaply whether any of these files changed since they were read.
//!
//! Not here: reading a file (`secrets::own_files`, under this check) and what it means
//! (`agent::instructions`, `commands`, `skills`).

pub mod stamps;

use std::path::{Path, PathBuf};

use crate::secrets::own_files::Refused;

/// The directory that holds `.git` (a directory or a `gitdir:` file), at or above `cwd`.
pub fn git_root(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The project of the working directory `cwd`: its git root, else `cwd`.
pub fn root(cwd: &Path) -> PathBuf {
    git_root(cwd).unwrap_or_else(|| cwd.to_path_buf())
}

/// `path` fully resolved, when a project's file (or folder) may be read from there: inside
/// `project` and outside sayso's config directory `config_dir`. [`Refused::Missing`] when it
/// does not exist.
pub fn confine(path: &Path, project: &Path, config_dir: &Path) -> Result<PathBuf, Refused> {
    let resolved = match std::fs::canonicalize(path) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Refused::Missing),
        Err(e) => return Err(Refused::Refused(format!("it cannot be resolved: {e}"))),
    };
    let project = std::fs::canonicalize(project).unwrap_or_else(|_| project.to_path_buf());
    if !resolved.starts_with(&project) {
        return Err(Refused::Refused(format!(
            "it resolves to {}, outside the project {}: a project's files are the project's own",
            resolved.display(),
            project.display()
        )));
    }
    if std::fs::canonicalize(config_dir).is_ok_and(|c| resolved.starts_with(c)) {
        return Err(Refused::Refused(format!(
            "it resolves to {}, in sayso's config directory: a project's files are the project's own",
            resolved.display()
        )));
    }
    Ok(resolved)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn the_project_is_the_git_root_else_the_working_directory() {
        let home = tempfile::tempdir().unwrap();
        let repo = home.path().join("repo");
        std::fs::create_dir_all(repo.join("a/b")).unwrap();
        assert_eq!(root(&repo.join("a/b")), repo.join("a/b"));
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        assert_eq!(root(&repo.join("a/b")), repo);
        assert_eq!(git_root(&repo.join("a")), Some(repo.clone()));
    }

    /// A row per place: whether a project's file there is read, and what the refusal says.
    #[test]
    fn only_what_resolves_inside_the_project_and_outside_the_config_directory_counts() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let project = h.join("proj");
        let config = h.join("proj/.config/sayso");
        std::fs::create_dir_all(project.join(".sayso/skills/ok")).unwrap();
        std::fs::create_dir_all(h.join("elsewhere/skill")).unwrap();
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("config.toml"), "").unwrap();
        symlink(h.join("elsewhere"), project.join(".sayso/skills/out")).unwrap();
        symlink(&config, project.join(".sayso/skills/conf")).unwrap();
        symlink("ok", project.join(".sayso/skills/in")).unwrap();
        let rows: [(&str, Option<&str>); 6] = [
            (".sayso/skills/ok", None),
            (".sayso/skills/in", None),
            (".sayso/skills/out", Some("outside the project")),
            (".sayso/skills/out/skill", Some("outside the project")),
            (".sayso/skills/conf", Some("in sayso's config directory")),
            (".sayso/skills/missing", Some("missing")),
        ];
        for (rel, want) in rows {
            let got = confine(&project.join(rel), &project, &config);
            match (want, got) {
                (None, Ok(p)) => assert!(p.starts_with(std::fs::canonicalize(&project).unwrap())),
                (Some("missing"), Err(Refused::Missing)) => {}
                (Some(w), Err(Refused::Refused(why))) => assert!(why.contains(w), "{rel}: {why}"),
                (want, got) => panic!("{rel}: want {want:?}, got {got:?}"),
            }
        }
    }
}
