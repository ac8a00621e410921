//! What a shell command needs, besides its text, before it may run without the user seeing it
//! (auto mode, SPEC §5.4 and §8.3). The text gate ([`crate::tools::command_safety`]) is pure;
//! this part looks at the machine:
//!
//! - a safe-list command that names per-process data under `/proc`, a device, or `/` (from which
//!   a recursive search reaches `/proc`) is not safe — checked on the resolved path, so a
//!   symlink in the project cannot hide it;
//! - a safe-list command runs with a `PATH` of absolute directories outside the project (a
//!   relative entry such as `.`, or one inside the project, would run the project's own `ls`),
//!   and, when it runs git, with git's program-running settings neutralised
//!   ([`crate::tools::git_guard`]);
//! - a command that runs git is not run unasked where the repository could make git run its own
//!   programs: a safe-list command when a setting cannot be neutralised, any other command (the
//!   judge's, and in trust mode) when the repository names any program or has hooks. The
//!   repository is the one each git of the command really uses (`cd sub &&`, `-C`, `GIT_DIR`…,
//!   [`git_guard::targets`]); when that cannot be told, the command asks.

use std::path::Path;

use crate::tools::builtin::paths::resolve;
use crate::tools::builtin::protected::shell_arg_refusal;
use crate::tools::command_safety::segment_argvs;
use crate::tools::git_guard::{self, GitTarget, Inspection, Target};
use crate::tools::rules::paths::path_words;
use crate::tools::shell::ChildEnv;

/// Where each git of `command` runs ([`git_guard::targets`]); empty when it runs none.
fn git_targets(command: &str, cwd: &Path) -> Vec<GitTarget> {
    let cdpath = std::env::var_os("CDPATH").is_some_and(|v| !v.is_empty());
    git_guard::targets::git_targets(command, git_guard::targets::Context { cwd, cdpath })
}

/// The first refusal `why` finds over the repositories the gits of a command use; a target
/// sayso cannot tell is one too.
fn refusal_over(
    targets: &[GitTarget],
    cwd: &Path,
    why: impl Fn(&Inspection) -> Option<String>,
) -> Option<String> {
    targets.iter().find_map(|t| match t {
        GitTarget::Unknown(reason) => Some(format!(
            "sayso cannot tell which repository git will use: {reason}"
        )),
        GitTarget::Known(target) => {
            let found = match Inspection::run_target(target) {
                Ok(i) => why(&i),
                Err(e) => Some(e),
            }?;
            Some(if target.dir == cwd && target.git_dir.is_none() {
                found
            } else {
                format!("git runs in `{}`: {found}", shown(cwd, target))
            })
        }
    })
}

fn shown(cwd: &Path, target: &Target) -> String {
    let dir = target.git_dir.as_ref().unwrap_or(&target.dir);
    dir.strip_prefix(cwd)
        .ok()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(dir)
        .display()
        .to_string()
}

/// Why a command that passed the text gate may not run unasked: it names a system path.
pub fn system_path_refusal(command: &str, cwd: &Path) -> Option<String> {
    let argvs = segment_argvs(command).ok()?;
    argvs.iter().find_map(|argv| {
        path_words(argv)
            .filter(|w| !w.is_empty())
            .find_map(|w| shell_arg_refusal(&resolve(cwd, w).path))
    })
}

/// Why a command that passed the text gate, and runs git, may not run unasked in `cwd` even
/// with git's settings neutralised.
pub fn safe_list_git_refusal(command: &str, cwd: &Path) -> Option<String> {
    let targets = git_targets(command, cwd);
    if targets.is_empty() {
        return None;
    }
    if let Some(why) = git_guard::version_refusal() {
        return Some(why);
    }
    refusal_over(&targets, cwd, Inspection::auto_run_refusal)
}

/// Why a command that is not on the safe list, and runs git, may not be judged (the judge sees
/// only the text; the repository decides what git runs).
pub fn judged_git_refusal(command: &str, cwd: &Path) -> Option<String> {
    refusal_over(
        &git_targets(command, cwd),
        cwd,
        Inspection::unattended_refusal,
    )
}

/// The environment a safe-list command runs with: a clean `PATH`, and for git the guarded
/// settings (with the repository's filter drivers blanked).
pub fn safe_list_env(command: &str, cwd: &Path) -> ChildEnv {
    let mut env = ChildEnv::default();
    if let Some(path) = std::env::var_os("PATH") {
        let root = resolve(cwd, ".").path;
        let dirs: Vec<_> = std::env::split_paths(&path)
            .filter(|d| d.is_absolute() && !d.starts_with(&root) && !d.starts_with(cwd))
            .collect();
        if let Ok(joined) = std::env::join_paths(dirs) {
            env.set
                .push(("PATH".into(), joined.to_string_lossy().into_owned()));
        }
    }
    let targets = git_targets(command, cwd);
    if !targets.is_empty() {
        let mut filters: Vec<String> = Vec::new();
        for t in &targets {
            if let GitTarget::Known(t) = t
                && let Ok(i) = Inspection::run_target(t)
            {
                for f in i.filters {
                    if !filters.contains(&f) {
                        filters.push(f);
                    }
                }
            }
        }
        env = env.and(&git_guard::guard_env(&filters));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_paths_are_refused_even_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        for cmd in [
            "cat /proc/self/environ",
            "cat /proc/1/environ",
            "grep -r KEY /",
            "rg -a KEY ../../../../../../../..",
            "head --file=/proc/1/environ",
            "cat /dev/tty",
        ] {
            assert!(system_path_refusal(cmd, cwd).is_some(), "{cmd}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/proc/self/environ", cwd.join("notes.txt")).unwrap();
            assert!(system_path_refusal("cat notes.txt", cwd).is_some());
            // A link named like an option, after `--`; a value attached to a short option.
            std::os::unix::fs::symlink("/proc", cwd.join("-p")).unwrap();
            assert!(system_path_refusal("cat -- -p/1/environ", cwd).is_some());
            assert!(system_path_refusal("grep -f/proc/1/environ x", cwd).is_some());
        }
        for cmd in [
            "cat src/main.rs",
            "ls -la",
            "wc -l /etc/hosts",
            "grep x /dev/null",
        ] {
            assert_eq!(system_path_refusal(cmd, cwd), None, "{cmd}");
        }
    }

    #[test]
    fn the_path_of_a_safe_command_leaves_out_relative_and_project_directories() {
        let dir = tempfile::tempdir().unwrap();
        let env = safe_list_env("ls", dir.path());
        let path = &env.set.iter().find(|(k, _)| k == "PATH").unwrap().1;
        for d in std::env::split_paths(path) {
            assert!(d.is_absolute() && !d.starts_with(dir.path()), "{d:?}");
        }
        assert!(
            !env.set.iter().any(|(k, _)| k == "GIT_CONFIG_COUNT"),
            "no git, no git settings"
        );
        let env = safe_list_env("git status", dir.path());
        assert!(env.set.iter().any(|(k, _)| k == "GIT_CONFIG_COUNT"));
    }
}
