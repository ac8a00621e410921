//! What moves git, read word by word: `cd` (every directory git could start in is kept),
//! `env` (its assignments, `-u`, `-i`, `-C`), and git's own options before the subcommand
//! (`-C`, `--git-dir`, `--work-tree`, `--bare`). See the parent module for the rules.

use std::path::{Component, Path, PathBuf};

use super::*;

/// `cd`: every state is kept (the `cd` may fail or not apply) and the moved ones added.
pub(super) fn change_dir(
    args: &[String],
    ctx: Context,
    shells: Vec<Shell>,
    looping: bool,
) -> Vec<Shell> {
    let dirs: Vec<&String> = args
        .iter()
        .skip_while(|a| matches!(a.as_str(), "-L" | "-P" | "-e" | "-@" | "--"))
        .collect();
    // A physical `cd` takes `..` after a symlink to the link target's parent.
    let physical = args
        .iter()
        .take_while(|a| a.starts_with('-') && a.as_str() != "--")
        .any(|a| a == "-P");
    let why = match dirs.as_slice() {
        _ if looping => Some("the command changes directory inside a loop"),
        [d] if physical
            && Path::new(d.as_str())
                .components()
                .any(|c| c == Component::ParentDir) =>
        {
            Some("`cd -P` through `..` follows symlinks sayso does not resolve")
        }
        [] => Some("`cd` with no directory goes to the home directory"),
        [d] if d.as_str() == "-" => Some("`cd -` goes back to a directory sayso cannot tell"),
        [d] if !plain_path(d) => {
            Some("`cd` to a directory sayso cannot read (a variable, `~` or a pattern)")
        }
        [d] if ctx.cdpath && !is_explicit(d) => {
            Some("`CDPATH` is set, so a relative `cd` may go elsewhere")
        }
        [_] => None,
        _ => Some("`cd` with several arguments"),
    };
    let mut next = shells.clone();
    for s in &shells {
        match why {
            Some(why) => next.push(s.tainted(why)),
            None => {
                let mut moved = s.clone();
                moved.dir = join_logical(&s.dir, dirs[0]);
                next.push(moved);
            }
        }
    }
    next.dedup();
    next
}

/// A `cd` argument that `CDPATH` does not apply to.
fn is_explicit(dir: &str) -> bool {
    dir.starts_with('/')
        || dir == "."
        || dir == ".."
        || dir.starts_with("./")
        || dir.starts_with("../")
}

/// `cd` is logical (`-L`, the default): `..` drops the last name of the path as written.
fn join_logical(base: &Path, rel: &str) -> PathBuf {
    let mut out = if Path::new(rel).is_absolute() {
        PathBuf::from("/")
    } else {
        base.to_path_buf()
    };
    for c in Path::new(rel).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
            _ => {}
        }
    }
    out
}

/// `env [-i] [-u NAME] [-C DIR] [NAME=VALUE…] COMMAND…`.
pub(super) fn run_env(
    shell: &Shell,
    args: &[String],
    ctx: Context,
    depth: usize,
    out: &mut Vec<GitTarget>,
) {
    let mut s = shell.clone();
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        match first.as_str() {
            "-i" | "--ignore-environment" | "-" => {
                s.git_dir = None;
                s.work_tree = None;
                rest = tail;
            }
            "-u" | "--unset" => {
                if let Some((name, tail)) = tail.split_first() {
                    assign(&mut s, name, None);
                    rest = tail;
                } else {
                    rest = tail;
                }
            }
            "-C" | "--chdir" => match tail.split_first() {
                Some((dir, tail)) if plain_path(dir) => {
                    s.dir = s.dir.join(dir);
                    rest = tail;
                }
                _ => {
                    s.unknown
                        .get_or_insert_with(|| "`env -C` to a directory sayso cannot read".into());
                    rest = tail;
                }
            },
            "--" => rest = tail,
            w if w.starts_with("--unset=") => {
                assign(&mut s, &w["--unset=".len()..], None);
                rest = tail;
            }
            w if w.starts_with("--chdir=") && plain_path(&w["--chdir=".len()..]) => {
                s.dir = s.dir.join(&w["--chdir=".len()..]);
                rest = tail;
            }
            w if w.starts_with('-') => {
                if rest.iter().any(|a| mentions_git(a)) {
                    out.push(GitTarget::Unknown(format!(
                        "git runs through `env {w}`, which sayso does not read"
                    )));
                }
                return;
            }
            w => match assignment(w) {
                Some((name, value)) => {
                    assign(&mut s, name, Some(value));
                    rest = tail;
                }
                None => break,
            },
        }
    }
    segment(rest, ctx, vec![s], false, depth, out);
}

/// Global options git reads before the subcommand that move it or tell it which repository.
pub(super) fn invocation(shell: &Shell, args: &[String]) -> GitTarget {
    if let Some(why) = &shell.unknown {
        return GitTarget::Unknown(why.clone());
    }
    let mut dir = shell.dir.clone();
    let mut git_dir = shell.git_dir.clone();
    let mut work_tree = shell.work_tree.clone();
    let mut rest = args;
    let unreadable =
        |what: &str| GitTarget::Unknown(format!("`{what}` names a directory sayso cannot read"));
    while let Some((first, tail)) = rest.split_first() {
        let (name, inline) = match first.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v)),
            _ => (first.as_str(), None),
        };
        let value = |tail: &[String]| -> Option<(String, usize)> {
            match inline {
                Some(v) => Some((v.to_owned(), 0)),
                None => tail.first().map(|v| (v.clone(), 1)),
            }
        };
        match name {
            "-C" | "--git-dir" | "--work-tree" => {
                let Some((v, used)) = value(tail) else {
                    return GitTarget::Unknown(format!("`git {name}` without a directory"));
                };
                if !plain_path(&v) {
                    return unreadable(&format!("git {name} {v}"));
                }
                match name {
                    "-C" if v.is_empty() => {}
                    "-C" => dir = dir.join(&v),
                    "--git-dir" => git_dir = Some(v),
                    _ => work_tree = Some(v),
                }
                rest = &tail[used..];
            }
            "--bare" => {
                git_dir = Some(".".into());
                rest = tail;
            }
            "-c" | "--namespace" | "--config-env" | "--super-prefix" | "--list-cmds" => {
                let used = if inline.is_some() { 0 } else { 1 };
                rest = tail.get(used..).unwrap_or_default();
            }
            "--exec-path" => {
                return GitTarget::Unknown(
                    "`git --exec-path` runs git's programs from elsewhere".into(),
                );
            }
            n if n.starts_with('-') => rest = tail,
            _ => break,
        }
    }
    GitTarget::Known(Target {
        git_dir: git_dir.map(|d| dir.join(d)),
        work_tree: work_tree.map(|d| dir.join(d)),
        dir,
    })
}
