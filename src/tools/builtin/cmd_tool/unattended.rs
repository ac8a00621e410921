//! What a shell command needs, besides its text, before it may run without the user seeing it
//! (auto mode, SPEC §5.4 and §8.3). The text gate ([`crate::tools::policy::command_safety`]) is pure;
//! this part looks at the machine:
//!
//! - a safe-list command that names per-process data under `/proc`, a device, or `/` (from which
//!   a recursive search reaches `/proc`) is not safe — checked on the resolved path, so a
//!   symlink in the project cannot hide it;
//! - nor is one that names sayso's own files (its config, data and state directories, the config
//!   files it read) or a directory holding one, nor a recursive search (`rg`, `grep -r`) from a
//!   working directory that holds one: the config holds the provider's header values, and the
//!   scrubber finds exact occurrences only, which `grep -o .`, `head -c` or `tail -c` reshape;
//! - a safe-list command runs with a `PATH` of absolute directories outside the project (a
//!   relative entry such as `.`, or one inside the project, would run the project's own `ls`),
//!   and, when it runs git, with git's program-running settings neutralised
//!   ([`crate::tools::git_guard`]);
//! - a command that runs git is not run unasked where the repository could make git run its own
//!   programs: a safe-list command when a setting cannot be neutralised, any other command (the
//!   judge's, and in trust mode) when the repository names any program or has hooks. The
//!   repository is the one each git of the command really uses (`cd sub &&`, `-C`, `GIT_DIR`…,
//!   [`git_guard::targets`]); when that cannot be told, the command asks. The inspection's own
//!   git runs in the chat's sandbox, read-only.

use std::path::{Path, PathBuf};

use crate::sandbox::Sandbox;
use crate::tools::builtin::paths::resolve;
use crate::tools::builtin::protected::{read_refusal, shell_arg_refusal};
use crate::tools::exec::shell::ChildEnv;
use crate::tools::git_guard::{self, GitTarget, Inspection, Target};
use crate::tools::policy::command_safety::segment_argvs;
use crate::tools::policy::rules::paths::path_words;

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
    sandbox: &Sandbox,
    why: impl Fn(&Inspection) -> Option<String>,
) -> Option<String> {
    targets.iter().find_map(|t| match t {
        GitTarget::Unknown(reason) => Some(format!(
            "sayso cannot tell which repository git will use: {reason}"
        )),
        GitTarget::Known(target) => {
            let found = match Inspection::run_target(target, sandbox) {
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

/// Why a command that passed the text gate may not run unasked: it names a system path, or
/// one of sayso's own files `own` or a directory holding one, or searches recursively from a
/// working directory that holds one.
pub fn system_path_refusal(command: &str, cwd: &Path, own: &[PathBuf]) -> Option<String> {
    let argvs = segment_argvs(command).ok()?;
    argvs.iter().find_map(|argv| {
        let named = path_words(argv).filter(|w| !w.is_empty()).find_map(|w| {
            let path = resolve(cwd, w).path;
            shell_arg_refusal(&path).or_else(|| own_path_refusal(&path, own))
        });
        named.or_else(|| {
            searches_recursively(argv)
                .then(|| own_path_refusal(&resolve(cwd, ".").path, own))
                .flatten()
        })
    })
}

/// Why any command (off the safe list too: the judge's, trust mode's) must be confirmed by
/// the user: it names a file in sayso's own files, or another process's data under `/proc`
/// (the user's shell holds the key in its environment). Only the words sayso can read are
/// checked; a command it cannot parse is left to the other checks.
pub fn secret_read_refusal(command: &str, cwd: &Path, own: &[PathBuf]) -> Option<String> {
    let argvs = segment_argvs(command).ok()?;
    argvs.iter().find_map(|argv| {
        path_words(argv).filter(|w| !w.is_empty()).find_map(|w| {
            let path = resolve(cwd, w).path;
            if let Some(why) = read_refusal(&path) {
                return Some(why);
            }
            own.iter()
                .find(|o| path.starts_with(o) || path.starts_with(resolve(o, ".").path))
                .map(|o| {
                    format!(
                        "`{}` is in sayso's own files ({}), where your provider's header values are",
                        path.display(),
                        o.display()
                    )
                })
        })
    })
}

/// Why a command naming `path` (resolved) may not run unasked: it is in sayso's own files, or
/// a directory holding one of them.
pub fn own_path_refusal(path: &Path, own: &[PathBuf]) -> Option<String> {
    own.iter().find_map(|o| {
        let resolved = resolve(o, ".").path;
        // A project's `.sayso/config.toml` holds no secret (its headers are dropped): the
        // directories above it, the project's own, are not refused for it.
        let project_config = o
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == ".sayso");
        let hit = [o, &resolved]
            .iter()
            .any(|o| path.starts_with(o) || (!project_config && o.starts_with(path)));
        hit.then(|| {
            format!(
                "`{}` is or holds sayso's own files ({}), where your provider's header values are",
                path.display(),
                o.display()
            )
        })
    })
}

/// Whether `argv` reads the files of its working directory's tree: `rg` (always: its many
/// options that take a value make telling a path operand apart unreliable, so this fails
/// closed), or a recursive `grep` given no file operand.
fn searches_recursively(argv: &[String]) -> bool {
    let program = argv
        .first()
        .map(|p| p.rsplit('/').next().unwrap_or(p))
        .unwrap_or_default();
    match program {
        "rg" => true,
        "grep" | "egrep" | "fgrep" => grep_searches_cwd(&argv[1..]),
        _ => false,
    }
}

/// GNU grep's options that take a value in the next word when not attached.
const GREP_SHORT_VALUE: &str = "efmABCdD";
const GREP_LONG_VALUE: [&str; 15] = [
    "regexp",
    "file",
    "max-count",
    "after-context",
    "before-context",
    "context",
    "directories",
    "devices",
    "label",
    "include",
    "exclude",
    "exclude-from",
    "exclude-dir",
    "binary-files",
    "group-separator",
];

/// Whether grep with `args` searches recursively and names no file, so searches `.`.
fn grep_searches_cwd(args: &[String]) -> bool {
    let mut recursive = false;
    let mut pattern_by_option = false;
    let mut operands: usize = 0;
    let mut words = args.iter();
    let mut options_done = false;
    while let Some(w) = words.next() {
        if options_done || w == "-" || !w.starts_with('-') {
            operands += 1;
            continue;
        }
        if w == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = w.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            // Abbreviations are accepted: match by prefix, as getopt_long does.
            let takes = GREP_LONG_VALUE
                .iter()
                .find(|o| !name.is_empty() && o.starts_with(name));
            if "recursive".starts_with(name) && name.len() >= 2
                || "dereference-recursive".starts_with(name) && name.len() >= 2
            {
                recursive = true;
            }
            if let Some(o) = takes {
                let value = value.map(str::to_owned).or_else(|| words.next().cloned());
                if *o == "regexp" || *o == "file" {
                    pattern_by_option = true;
                }
                if *o == "directories" && value.as_deref() == Some("recurse") {
                    recursive = true;
                }
            }
            continue;
        }
        // A cluster of short options; the first that takes a value ends it.
        let short = &w[1..];
        for (i, c) in short.char_indices() {
            match c {
                'r' | 'R' => recursive = true,
                _ if GREP_SHORT_VALUE.contains(c) => {
                    let attached = &short[i + c.len_utf8()..];
                    let value = if attached.is_empty() {
                        words.next().cloned()
                    } else {
                        Some(attached.to_owned())
                    };
                    if c == 'e' || c == 'f' {
                        pattern_by_option = true;
                    }
                    if c == 'd' && value.as_deref() == Some("recurse") {
                        recursive = true;
                    }
                    break;
                }
                _ => {}
            }
        }
    }
    let files = if pattern_by_option {
        operands
    } else {
        operands.saturating_sub(1)
    };
    recursive && files == 0
}

/// Why a command that passed the text gate, and runs git, may not run unasked in `cwd` even
/// with git's settings neutralised.
pub fn safe_list_git_refusal(command: &str, cwd: &Path, sandbox: &Sandbox) -> Option<String> {
    let targets = git_targets(command, cwd);
    if targets.is_empty() {
        return None;
    }
    if let Some(why) = git_guard::version_refusal() {
        return Some(why);
    }
    refusal_over(&targets, cwd, sandbox, Inspection::auto_run_refusal)
}

/// Why a command that is not on the safe list, and runs git, may not be judged (the judge sees
/// only the text; the repository decides what git runs).
pub fn judged_git_refusal(command: &str, cwd: &Path, sandbox: &Sandbox) -> Option<String> {
    refusal_over(
        &git_targets(command, cwd),
        cwd,
        sandbox,
        Inspection::unattended_refusal,
    )
}

/// The environment a safe-list command runs with: a clean `PATH`, and for git the guarded
/// settings (with the repository's filter drivers blanked).
pub fn safe_list_env(command: &str, cwd: &Path, sandbox: &Sandbox) -> ChildEnv {
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
                && let Ok(i) = Inspection::run_target(t, sandbox)
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
            assert!(system_path_refusal(cmd, cwd, &[]).is_some(), "{cmd}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/proc/self/environ", cwd.join("notes.txt")).unwrap();
            assert!(system_path_refusal("cat notes.txt", cwd, &[]).is_some());
            // A link named like an option, after `--`; a value attached to a short option.
            std::os::unix::fs::symlink("/proc", cwd.join("-p")).unwrap();
            assert!(system_path_refusal("cat -- -p/1/environ", cwd, &[]).is_some());
            assert!(system_path_refusal("grep -f/proc/1/environ x", cwd, &[]).is_some());
        }
        for cmd in [
            "cat src/main.rs",
            "ls -la",
            "wc -l /etc/hosts",
            "grep x /dev/null",
        ] {
            assert_eq!(system_path_refusal(cmd, cwd, &[]), None, "{cmd}");
        }
    }

    /// The scrubber finds exact occurrences only: a safe-list command may not reshape sayso's
    /// own config (`grep -o .`, `head -c`), name a directory holding it, or search a working
    /// directory that holds it.
    #[test]
    fn sayso_own_files_and_the_directories_holding_them_are_refused() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let config_dir = h.join("config/sayso");
        std::fs::create_dir_all(&config_dir).unwrap();
        std::fs::write(config_dir.join("config.toml"), "x").unwrap();
        std::fs::create_dir_all(h.join("project/src")).unwrap();
        let own = vec![config_dir.clone(), config_dir.join("config.toml")];
        let project = h.join("project");
        let config = config_dir.join("config.toml").display().to_string();
        for cmd in [
            format!("grep -o . {config}"),
            format!("head -c 30 {config}"),
            format!("tail -c30 {config}"),
            "cat ../config/sayso/config.toml".to_owned(),
            format!("grep -r -o . {}", h.join("config").display()),
            format!("rg -o . {}", h.display()),
            "rg -o . ..".to_owned(),
        ] {
            assert!(system_path_refusal(&cmd, &project, &own).is_some(), "{cmd}");
        }
        // From the directory that holds the config, a recursive search reaches it.
        for cmd in [
            "rg -o x",
            "rg -o -e x project",
            "grep -rho x",
            "grep --recursive x",
            "grep --rec x",
            "grep -d recurse x",
            "grep -r -e x -e project",
            "grep -r -o -m 5 x",
            "grep -r -A3 x",
            "grep -r --group-separator project x",
        ] {
            assert!(system_path_refusal(cmd, h, &own).is_some(), "{cmd}");
        }
        // A recursive grep of named files stays in them; a plain one reads only its files.
        for cmd in [
            "grep -r x project",
            "grep -r -e x project",
            "grep -o x project/a",
        ] {
            assert_eq!(system_path_refusal(cmd, h, &own), None, "{cmd}");
        }
        for cmd in ["rg -o x src", "grep -r x src", "cat src/main.rs", "rg -o x"] {
            assert_eq!(system_path_refusal(cmd, &project, &own), None, "{cmd}");
        }
        // A project config (no secrets in it) does not make its project refused.
        std::fs::create_dir_all(project.join(".sayso")).unwrap();
        std::fs::write(project.join(".sayso/config.toml"), "").unwrap();
        let mut with_project = own.clone();
        with_project.push(project.join(".sayso/config.toml"));
        for cmd in ["rg -o x", "grep -r x .", "ls ."] {
            assert_eq!(
                system_path_refusal(cmd, &project, &with_project),
                None,
                "{cmd}"
            );
        }
    }

    /// Any command, off the safe list too, that reads sayso's own files or another process's
    /// data asks: the judge sees only its text.
    #[test]
    fn reads_of_own_files_or_process_data_are_refused_for_every_command() {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        let own_dir = h.join("config/sayso");
        std::fs::create_dir_all(&own_dir).unwrap();
        std::fs::create_dir_all(h.join("project")).unwrap();
        let own = vec![own_dir.clone()];
        let project = h.join("project");
        let config = own_dir.join("config.toml").display().to_string();
        for cmd in [
            format!("od -c {config}"),
            format!("xxd {config} | head"),
            "base64 ../config/sayso/config.toml".to_owned(),
            "od -c /proc/1/environ".to_owned(),
            "xxd /proc/self/environ".to_owned(),
        ] {
            assert!(secret_read_refusal(&cmd, &project, &own).is_some(), "{cmd}");
        }
        for cmd in [
            "cargo build",
            "ls /",
            "cat /proc/cpuinfo",
            "find / -name x",
            "od -c src/a.bin",
        ] {
            assert_eq!(secret_read_refusal(cmd, &project, &own), None, "{cmd}");
        }
    }

    #[test]
    fn the_path_of_a_safe_command_leaves_out_relative_and_project_directories() {
        let dir = tempfile::tempdir().unwrap();
        let env = safe_list_env("ls", dir.path(), &Sandbox::off());
        let path = &env.set.iter().find(|(k, _)| k == "PATH").unwrap().1;
        for d in std::env::split_paths(path) {
            assert!(d.is_absolute() && !d.starts_with(dir.path()), "{d:?}");
        }
        assert!(
            !env.set.iter().any(|(k, _)| k == "GIT_CONFIG_COUNT"),
            "no git, no git settings"
        );
        let env = safe_list_env("git status", dir.path(), &Sandbox::off());
        assert!(env.set.iter().any(|(k, _)| k == "GIT_CONFIG_COUNT"));
    }
}
