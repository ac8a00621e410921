//! Where each git of a shell command really runs (issue 18, case 11): for a compound command,
//! the directory git starts in and the repository it is told to use, so that the inspection
//! ([`super::Inspection::run_target`]) looks at that repository and not at the working
//! directory's. A pure function of the command text, the working directory and whether
//! `CDPATH` is set: no IO.
//!
//! What moves git, and how it is read:
//!
//! - `cd DIR` (and `-L`/`-P`), cumulative and relative to the directory before it. A `cd` may
//!   fail, and `||`, pipes (a subshell) and `&` decide whether it applies at all, so every
//!   directory git could start in is kept: after `cd sub && git status` both the working
//!   directory and `sub` are targets. `cd` with no argument, `cd -`, `~`, a variable, a
//!   pattern, `pushd`/`popd`, a relative `cd` while `CDPATH` is set, a `cd` after a loop
//!   keyword (`while`, `until`, `for`, `select`), or more than 16 possible directories: unknown.
//! - `git -C DIR` (several compose, `-C ''` is no move), `--git-dir=X` / `--git-dir X`,
//!   `--work-tree`, `--bare` (the directory itself is the git directory).
//! - `GIT_DIR=` / `GIT_WORK_TREE=` as a prefix assignment, through `env` (whose `-C DIR`,
//!   `-u`, `-i` are read too), or set for later commands (`export`, `declare`, a bare
//!   assignment; `unset`). Relative values are resolved against the directory git starts in,
//!   as git does. Any other `GIT_*` variable (`GIT_CONFIG_*`, `GIT_COMMON_DIR`,
//!   `GIT_EXEC_PATH`, `GIT_CEILING_DIRECTORIES`, …) but a few that change nothing git reads
//!   (identities, dates, `GIT_PAGER`, `GIT_TERMINAL_PROMPT`, `GIT_OPTIONAL_LOCKS`,
//!   `GIT_NO_LAZY_FETCH`): unknown. `HOME`/`XDG_CONFIG_HOME` (git's user configuration),
//!   a variable set from input or by name (`read`, `printf -v`, `declare -n`) or exported
//!   without a value sayso saw, an `alias`, `set -P`, `cd -P` through `..`: unknown.
//!   `trap` with a git in its action: unknown. `source`/`.` of a file: unknown for every later
//!   git.
//! - `sh|bash|zsh|dash|ksh -c 'SCRIPT'` is read recursively (up to 4 levels). Shell keywords
//!   before a command (`if`, `then`, `do`, `!`, …) are skipped.
//! - git behind any other wrapper (`sudo`, `xargs`, `find -exec`, `eval`, `nice`, `timeout`,
//!   `watch`, …), a command word that is a variable, a substitution or a group (`$(…)`,
//!   backticks, `( … )`, `{ … }`) in a command that mentions git, or a command sayso cannot
//!   parse: unknown.
//!
//! Unknown means "not safe": the caller asks the user. What this does not do: look inside
//! scripts, makefiles or programs that run git themselves (`make`, `npm test`), or know what
//! a command changes on disk before git runs (`tar x && git status`).

use std::path::{Path, PathBuf};

use crate::tools::policy::command_safety::normalize::{dash_c, is_shell};
use crate::tools::policy::command_safety::{Unsafe, rule_segments};

mod moves;
use moves::{change_dir, invocation, run_env};

/// The repository one git invocation uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// Where git starts (after `cd` and `-C`); it discovers the repository from here.
    pub dir: PathBuf,
    /// An explicit git directory (`--git-dir`, `GIT_DIR`, `--bare`), absolute.
    pub git_dir: Option<PathBuf>,
    /// An explicit work tree (`--work-tree`, `GIT_WORK_TREE`), absolute.
    pub work_tree: Option<PathBuf>,
}

impl Target {
    /// git started in `dir` with nothing explicit.
    pub fn at(dir: &Path) -> Self {
        Target {
            dir: dir.to_path_buf(),
            git_dir: None,
            work_tree: None,
        }
    }
}

/// One git invocation's target, or why it cannot be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitTarget {
    Known(Target),
    Unknown(String),
}

/// What the shell knows besides the command text.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub cwd: &'a Path,
    /// `CDPATH` is set: a relative `cd` may go elsewhere.
    pub cdpath: bool,
}

/// Every git invocation of `command` and its target(s); empty when it runs no git. A git
/// that may start in several directories (after a `cd` that may not apply) appears once per
/// directory. Known targets are listed once.
pub fn git_targets(command: &str, ctx: Context) -> Vec<GitTarget> {
    let mut out = Vec::new();
    let start = vec![Shell::new(ctx.cwd)];
    scan(command, ctx, start, 0, &mut out);
    let mut unique = Vec::new();
    for t in out {
        if !unique.contains(&t) {
            unique.push(t);
        }
    }
    unique
}

const MAX_DIRS: usize = 16;
const MAX_DEPTH: usize = 4;

/// One state the shell may be in when a segment runs.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shell {
    dir: PathBuf,
    git_dir: Option<String>,
    work_tree: Option<String>,
    /// Once set, every later git from this state is unknown, for this reason.
    unknown: Option<String>,
}

impl Shell {
    fn new(cwd: &Path) -> Self {
        Shell {
            dir: cwd.to_path_buf(),
            git_dir: None,
            work_tree: None,
            unknown: None,
        }
    }

    fn tainted(&self, why: &str) -> Self {
        let mut s = self.clone();
        s.unknown.get_or_insert_with(|| why.to_owned());
        s
    }
}

fn mentions_git(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || ";&|()'\"`{}=".contains(c))
        .any(|w| base_name(w) == "git")
}

fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or_default()
}

fn scan(
    command: &str,
    ctx: Context,
    mut shells: Vec<Shell>,
    depth: usize,
    out: &mut Vec<GitTarget>,
) {
    let Ok((argvs, hazard)) = rule_segments(command) else {
        if mentions_git(command) {
            out.push(GitTarget::Unknown(
                "sayso cannot read this command to tell where git runs".into(),
            ));
        }
        return;
    };
    let structural = matches!(
        hazard,
        Some(Unsafe::Substitution | Unsafe::Backticks | Unsafe::Grouping)
    ) || argvs.iter().flatten().any(|w| {
        w.contains('`') || w.contains("$(") || w.starts_with(['(', '{']) || w.ends_with([')', '}'])
    });
    if structural && mentions_git(command) {
        out.push(GitTarget::Unknown(
            "the command uses a substitution, subshell or group, so sayso cannot tell where git runs".into(),
        ));
        return;
    }
    let mut looping = false;
    for argv in &argvs {
        let mut words: &[String] = argv;
        while let Some((first, rest)) = words.split_first() {
            match first.as_str() {
                "while" | "until" | "for" | "select" => {
                    looping = true;
                    words = rest;
                }
                // `time -p`: bash's keyword takes that one option.
                "time" if rest.first().is_some_and(|w| w == "-p" || w == "--") => {
                    words = &rest[1..];
                }
                "!" | "if" | "then" | "else" | "elif" | "do" | "time" | "coproc" => words = rest,
                _ => break,
            }
        }
        shells = segment(words, ctx, shells, looping, depth, out);
        if shells.len() > MAX_DIRS {
            let why = "git could start in too many directories for sayso to inspect";
            shells = vec![Shell::new(ctx.cwd).tainted(why)];
        }
    }
}

/// Prefix assignments, then the command word.
fn split_assignments(words: &[String]) -> (Vec<(&str, &str)>, &[String]) {
    let mut assignments = Vec::new();
    let mut rest = words;
    while let Some((first, tail)) = rest.split_first() {
        match assignment(first) {
            Some(a) => assignments.push(a),
            None => break,
        }
        rest = tail;
    }
    (assignments, rest)
}

fn assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    ((first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
    .then_some((name, value))
}

/// `GIT_*` variables that change nothing git reads from the repository or runs.
const HARMLESS_GIT_VARS: &[&str] = &[
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_PAGER",
    "GIT_TERMINAL_PROMPT",
    "GIT_OPTIONAL_LOCKS",
    "GIT_NO_LAZY_FETCH",
];

/// Applies one assignment to a shell state (for this command or for later ones).
fn assign(shell: &mut Shell, name: &str, value: Option<&str>) {
    let unreadable = value.is_some_and(|v| !plain_path(v));
    match name {
        "GIT_DIR" | "GIT_WORK_TREE" if unreadable => {
            shell
                .unknown
                .get_or_insert_with(|| format!("`{name}` is set to a value sayso cannot read"));
        }
        "GIT_DIR" => shell.git_dir = value.map(str::to_owned),
        "GIT_WORK_TREE" => shell.work_tree = value.map(str::to_owned),
        // Where git finds its user configuration (`$HOME/.gitconfig`,
        // `$XDG_CONFIG_HOME/git/config`), which may set a pager or an fsmonitor.
        "HOME" | "XDG_CONFIG_HOME" if value.is_some() => {
            shell.unknown.get_or_insert_with(|| {
                format!("the command sets `{name}`, where git reads its user configuration")
            });
        }
        "CDPATH" if value.is_some() => {
            shell
                .unknown
                .get_or_insert_with(|| "the command sets `CDPATH`".into());
        }
        n if n.starts_with("GIT_") && !HARMLESS_GIT_VARS.contains(&n) => {
            shell.unknown.get_or_insert_with(|| {
                format!("the command sets `{n}`, which changes what git reads")
            });
        }
        _ => {}
    }
}

/// A variable name whose value changes where git runs or what it reads.
fn moves_git(name: &str) -> bool {
    let name = name.split(['=', '[']).next().unwrap_or_default();
    matches!(name, "CDPATH" | "HOME" | "XDG_CONFIG_HOME")
        || (name.starts_with("GIT_") && !HARMLESS_GIT_VARS.contains(&name))
}

/// A path word the shell passes as written: no expansion or pattern left in it.
fn plain_path(word: &str) -> bool {
    !word.starts_with('~') && !word.contains(['$', '`', '*', '?', '[', '{', '}'])
}

/// The states after one segment; git invocations found are pushed to `out`.
fn segment(
    words: &[String],
    ctx: Context,
    shells: Vec<Shell>,
    looping: bool,
    depth: usize,
    out: &mut Vec<GitTarget>,
) -> Vec<Shell> {
    let (assignments, words) = split_assignments(words);
    let Some(program) = words.first() else {
        // `GIT_DIR=x` alone: a shell variable, maybe exported; it may or may not apply.
        let mut next = shells.clone();
        for s in &shells {
            let mut s = s.clone();
            for (name, value) in &assignments {
                assign(&mut s, name, Some(value));
            }
            next.push(s);
        }
        return next;
    };
    let args = &words[1..];
    let with_prefix = |s: &Shell| {
        let mut s = s.clone();
        for (name, value) in &assignments {
            assign(&mut s, name, Some(value));
        }
        s
    };
    match program.as_str() {
        "cd" => change_dir(args, ctx, shells, looping),
        "pushd" | "popd" => with_unknown(shells, "the command uses `pushd`/`popd`"),
        // An alias changes what a later `git` or `cd` runs (`sh` expands aliases); `set -P`
        // makes `cd` physical.
        "alias" => with_unknown(shells, "the command defines an alias"),
        "set"
            if args
                .iter()
                .any(|a| a == "physical" || (a.starts_with(['-', '+']) && a.contains('P'))) =>
        {
            with_unknown(shells, "the command changes how `cd` moves")
        }
        // Variables set from input or by name, which the assignments above cannot read.
        "read" | "getopts" | "printf" | "mapfile" | "readarray" | "let"
            if args.iter().any(|a| moves_git(a)) =>
        {
            with_unknown(
                shells,
                "the command sets a variable git reads from a value sayso cannot read",
            )
        }
        "trap" if args.iter().any(|a| mentions_git(a)) => {
            out.push(GitTarget::Unknown(
                "`trap` runs git later, which sayso does not read".into(),
            ));
            shells
        }
        "export" | "declare" | "typeset" | "readonly" | "local" | "unset" => {
            if looping {
                return with_unknown(shells, "the command changes git's variables inside a loop");
            }
            // A name reference (`declare -n r=GIT_DIR`) sets another variable; `export NAME`
            // exports a value set where sayso cannot see (`read NAME`).
            if args
                .iter()
                .any(|a| a.starts_with(['-', '+']) && a.contains('n') && program != "unset")
            {
                return with_unknown(shells, "the command declares a name reference");
            }
            let mut next = shells.clone();
            for s in &shells {
                let mut s = s.clone();
                for word in args.iter().filter(|w| !w.starts_with('-')) {
                    match (program.as_str(), assignment(word)) {
                        ("unset", _) => assign(&mut s, word, None),
                        (_, Some((name, value))) => assign(&mut s, name, Some(value)),
                        (_, None) if moves_git(word) => {
                            s.unknown.get_or_insert_with(|| {
                                format!(
                                    "the command exports `{word}`, whose value sayso cannot tell"
                                )
                            });
                        }
                        (_, None) => {}
                    }
                }
                next.push(s);
            }
            next
        }
        "source" | "." => with_unknown(shells, "the command reads a shell file that may move git"),
        "eval" => {
            out.push(GitTarget::Unknown(
                "`eval` runs a command sayso cannot read".into(),
            ));
            shells
        }
        p if !plain_path(p) => {
            out.push(GitTarget::Unknown(
                "the command word is a variable or pattern, so sayso cannot tell whether it runs git".into(),
            ));
            shells
        }
        p if base_name(p) == "git" => {
            for s in &shells {
                out.push(invocation(&with_prefix(s), args));
            }
            shells
        }
        "env" => {
            for s in &shells {
                run_env(&with_prefix(s), args, ctx, depth, out);
            }
            shells
        }
        p if is_shell(base_name(p)) => {
            match dash_c(args) {
                Some(script) if depth < MAX_DEPTH => {
                    let inner: Vec<Shell> = shells.iter().map(with_prefix).collect();
                    scan(script, ctx, inner, depth + 1, out);
                }
                Some(_) => out.push(GitTarget::Unknown(format!(
                    "`{p} -c` nests too deep for sayso to read"
                ))),
                // A script from a file or standard input: sayso cannot see what it runs.
                None if args.iter().all(|a| a.starts_with('-'))
                    || args.iter().any(|a| a.starts_with('<')) =>
                {
                    out.push(GitTarget::Unknown(format!(
                        "`{p}` runs a script from its input, which sayso cannot read"
                    )))
                }
                None if args.iter().any(|a| mentions_git(a)) => out.push(GitTarget::Unknown(
                    format!("git runs through `{p}` in a form sayso cannot read"),
                )),
                None => {}
            }
            shells
        }
        // `command -v git` only says where git is.
        "command" if args.first().is_some_and(|a| a == "-v" || a == "-V") => shells,
        "command" | "builtin" | "exec" | "nohup"
            if args.first().is_some_and(|a| !a.starts_with('-')) =>
        {
            let inner: Vec<Shell> = shells.iter().map(with_prefix).collect();
            segment(args, ctx, inner, looping, depth, out);
            shells
        }
        p if WRAPPERS.contains(&base_name(p)) => {
            if args.iter().any(|a| mentions_git(a)) {
                out.push(GitTarget::Unknown(format!(
                    "git runs through `{p}`, so sayso cannot tell where"
                )));
            }
            shells
        }
        _ => shells,
    }
}

/// Programs that run a command given in their arguments (besides `env`, the shells and the
/// transparent `command`/`builtin`/`exec`/`nohup`, which are read).
const WRAPPERS: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "nohup",
    "time",
    "timeout",
    "nice",
    "ionice",
    "stdbuf",
    "setsid",
    "command",
    "builtin",
    "exec",
    "xargs",
    "parallel",
    "watch",
    "chroot",
    "strace",
    "ltrace",
    "flock",
    "runuser",
    "unbuffer",
    "script",
    "busybox",
    "find",
    "fd",
    "nsenter",
    "unshare",
    "chrt",
    "taskset",
    "numactl",
    "systemd-run",
    "firejail",
    "env",
    "prlimit",
    "setpriv",
    "fakeroot",
    "faketime",
    "nocache",
    "chronic",
    "ifne",
    "sg",
    "pkexec",
    "ssh",
    "catchsegv",
    "valgrind",
    "dbus-run-session",
    "xvfb-run",
    "systemd-inhibit",
    "proxychains",
    "proxychains4",
    "torsocks",
    "cpulimit",
    "trickle",
    "rlwrap",
];

fn with_unknown(shells: Vec<Shell>, why: &str) -> Vec<Shell> {
    shells.iter().map(|s| s.tainted(why)).collect()
}

#[cfg(test)]
mod tests;
