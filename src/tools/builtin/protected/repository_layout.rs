//! The bare-repository trap (issue 18, case 16): a directory that holds `HEAD`, `objects/`
//! and `refs/` *is* a git repository to git, with no `.git` in sight, and its `config` may set
//! `core.fsmonitor`, which the user's next `git status` there runs.
//!
//! The invariant, on file tools' writes (create, edit, delete) inside the project:
//!
//! - a file named `HEAD` outside `.git` always asks: git recognises no repository without
//!   it, so the trap cannot be completed unasked in any order;
//! - in a directory that already holds a `HEAD`, git's own names ask too: the files
//!   `config`, `config.worktree`, `packed-refs`, `commondir`, `gitdir`, `index`, and
//!   anything under `objects/`, `refs/`, `hooks/`, `info/`, `worktrees/`, `modules/`, `logs/`.
//!
//! A project's ordinary `config/` directory, `refs/` or `objects/` asks only next to a
//! `HEAD`. Names are compared like the rest of the protected paths (ASCII case and trailing
//! dots and spaces ignored). `.git` itself is protected by the parent module.

use std::path::Path;

use super::same_name;

/// Files git reads from a git directory.
const GIT_DIR_FILES: &[&str] = &[
    "config",
    "config.worktree",
    "packed-refs",
    "commondir",
    "gitdir",
    "index",
];

/// Directories git reads from a git directory.
const GIT_DIR_DIRS: &[&str] = &[
    "objects",
    "refs",
    "hooks",
    "info",
    "worktrees",
    "modules",
    "logs",
];

/// Why a write to `root/names…` would lay out a git repository, if it would.
pub(super) fn caution(root: &Path, names: &[&str], shown: &str) -> Option<String> {
    let last = names.len().checked_sub(1)?;
    if same_name(names[last], "HEAD") {
        return Some(format!(
            "`{shown}` would make its directory a git repository (HEAD): git there would run what its config names"
        ));
    }
    let mut dir = root.to_path_buf();
    for (i, name) in names.iter().enumerate() {
        let git_name = if i == last {
            GIT_DIR_FILES.iter().any(|f| same_name(name, f))
        } else {
            GIT_DIR_DIRS.iter().any(|d| same_name(name, d))
        };
        if git_name && holds_head(&dir) {
            return Some(format!(
                "`{shown}` is part of a git repository layout (its directory holds a HEAD): git there would run what its config names"
            ));
        }
        dir.push(name);
    }
    None
}

/// `dir` holds an entry git would take for `HEAD` (any case, as the file system may fold it).
fn holds_head(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_str().is_some_and(|n| same_name(n, "HEAD")))
    })
}

#[cfg(test)]
mod tests {
    use super::super::write_caution;
    use crate::tools::builtin::paths::resolve;

    fn asks(cwd: &std::path::Path, p: &str) -> bool {
        let r = resolve(cwd, p);
        write_caution(cwd, &r.path, r.inside, &[]).is_some()
    }

    #[test]
    fn a_head_file_always_asks_and_makes_its_neighbours_ask() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        for p in ["HEAD", "vendor/lib/HEAD", "x/head", "HEAD."] {
            assert!(asks(cwd, p), "{p}");
        }
        // Before a HEAD exists, the rest of the layout is an ordinary project's.
        for p in [
            "config",
            "config/app.toml",
            "b/config",
            "b/objects/ab/cdef",
            "b/refs/heads/main",
            "b/hooks/post-index-change",
            "docs/refs/index.md",
        ] {
            assert!(!asks(cwd, p), "{p}");
        }
        std::fs::create_dir_all(cwd.join("b")).unwrap();
        std::fs::write(cwd.join("b/HEAD"), "ref: refs/heads/main\n").unwrap();
        for p in [
            "b/config",
            "b/CONFIG",
            "b/packed-refs",
            "b/commondir",
            "b/objects/ab/cdef",
            "b/refs/heads/main",
            "b/hooks/post-index-change",
            "b/info/attributes",
        ] {
            assert!(asks(cwd, p), "{p}");
        }
        for p in ["b/config/app.toml", "b/src/main.rs", "b/README", "config"] {
            assert!(!asks(cwd, p), "{p}");
        }
    }
}
