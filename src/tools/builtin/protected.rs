//! Protected paths (SPEC §8.3): the writes that always ask the user, in every mode, whatever
//! was remembered or allowed — and why, for the approval modal.
//!
//! A file tool's write (create, edit, delete) asks when its resolved target (after `..` and
//! symlinks, see [`super::paths`]) is:
//!
//! - outside the working directory;
//! - inside a `.git` directory anywhere in the project (its config and hooks name programs git
//!   runs), or a `.git` file (it points git at another directory);
//! - inside a `.sayso` directory (project configuration);
//! - a `.gitattributes` or `.gitmodules` file anywhere (they select filters, diff drivers and
//!   submodules);
//! - a repository layout where no `.git` is: a file named `HEAD`, and git's own names
//!   (`config`, `objects/`, `refs/`, `hooks/`, …) in a directory that holds a `HEAD` — a bare
//!   repository whose config git would obey (`protected/repository_layout.rs`);
//! - inside sayso's own configuration, data or state directories, or one of the config files it
//!   read (this also keeps the session store out of the model's reach);
//! - an existing file with more than one hard link (a write changes every linked name, and the
//!   other one may lie outside the project).
//!
//! Names are compared without regard to ASCII case and trailing dots or spaces, as the
//! case-insensitive file systems of macOS and Windows would open them.
//!
//! The `memory` tool is not a file tool: it writes only inside its own directory, by design.
//!
//! Reads have their own refusal, [`read_refusal`]: another process's data under `/proc` (its
//! environment holds the user's keys, its memory anything) is never read by a tool, and a
//! command on the safe list that names such a path (or `/`, from which a recursive search
//! reaches `/proc`, or a device) is not auto-approved ([`shell_arg_refusal`]).

use std::path::{Component, Path, PathBuf};

mod repository_layout;

/// Whether `name` is `want` (ASCII) as a case-insensitive file system would see it: case
/// folded both ways, as APFS and NTFS fold it (so `ſ` is `s`, `ı` is `i`, the Kelvin sign is
/// `k`), trailing dots and spaces dropped, and an NTFS stream suffix (`.git::$INDEX_ALLOCATION`)
/// ignored.
fn same_name(name: &str, want: &str) -> bool {
    let name = name.split(':').next().unwrap_or(name);
    let fold = |s: &str| -> String {
        s.chars()
            .flat_map(char::to_uppercase)
            .flat_map(char::to_lowercase)
            .collect()
    };
    fold(name.trim_end_matches(['.', ' '])) == fold(want)
}

/// Why a write to `path` (resolved, absolute) must be confirmed by the user, if it must.
/// `inside` says whether it lies in the working directory `cwd`; `own` lists sayso's own
/// directories and config files.
pub fn write_caution(cwd: &Path, path: &Path, inside: bool, own: &[PathBuf]) -> Option<String> {
    let shown = super::paths::display(cwd, path);
    if let Some(dir) = own
        .iter()
        .find(|d| path.starts_with(d) || path.starts_with(super::paths::resolve(d, ".").path))
    {
        return Some(format!(
            "`{shown}` is in sayso's own files ({}); only you may change them",
            dir.display()
        ));
    }
    if !inside {
        return Some(format!("`{shown}` is OUTSIDE the working directory"));
    }
    let root = super::paths::resolve(cwd, ".").path;
    let rel = path.strip_prefix(&root).unwrap_or(path);
    let names: Vec<&str> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => n.to_str(),
            _ => None,
        })
        .collect();
    if names.iter().any(|n| same_name(n, ".git")) {
        return Some(format!(
            "`{shown}` is git's own data (.git): its config and hooks name programs that git runs"
        ));
    }
    if let Some(why) = repository_layout::caution(&root, &names, &shown) {
        return Some(why);
    }
    if names.iter().any(|n| same_name(n, ".sayso")) {
        return Some(format!(
            "`{shown}` is sayso's project configuration (.sayso)"
        ));
    }
    if let Some(last) = names.last()
        && (same_name(last, ".gitattributes") || same_name(last, ".gitmodules"))
    {
        return Some(format!(
            "`{shown}` tells git which filters, diff drivers and submodules to use, which can run programs"
        ));
    }
    let links = link_count(path);
    if links > 1 {
        return Some(format!(
            "`{shown}` has {links} hard links: writing it also changes the other names, which may be outside the project"
        ));
    }
    None
}

/// Why a tool must not read `path` (resolved, absolute), if it must not: per-process data
/// under `/proc` (`/proc/<pid>/…`, `/proc/self/…`: environments, memory, command lines) and
/// the kernel's memory.
pub fn read_refusal(path: &Path) -> Option<String> {
    let mut parts = path
        .components()
        .skip_while(|c| matches!(c, Component::RootDir));
    let first = parts.next()?.as_os_str().to_str()?;
    match (first, parts.next().and_then(|c| c.as_os_str().to_str())) {
        ("proc", Some(p))
            if p == "self"
                || p == "thread-self"
                || p == "kcore"
                || p == "kmem"
                || p.chars().all(|c| c.is_ascii_digit()) =>
        {
            Some(format!(
                "`{}` is another process's private data (its environment and memory); sayso never reads it",
                path.display()
            ))
        }
        ("dev", Some("mem" | "kmem" | "port")) => Some(format!(
            "`{}` is the machine's memory; sayso never reads it",
            path.display()
        )),
        _ => None,
    }
}

/// Why a safe-list command that names `path` (resolved, absolute) may not run unasked: it is
/// per-process data ([`read_refusal`]), anywhere under `/proc` or `/dev` (but `/dev/null`), or
/// `/` itself, from which a recursive search reaches `/proc`.
pub fn shell_arg_refusal(path: &Path) -> Option<String> {
    if let Some(why) = read_refusal(path) {
        return Some(why);
    }
    let dev_null = Path::new("/dev/null");
    if path == Path::new("/")
        || path.starts_with("/proc")
        || (path.starts_with("/dev") && path != dev_null)
    {
        return Some(format!(
            "`{}` reaches system files (/proc, /dev)",
            path.display()
        ));
    }
    None
}

#[cfg(unix)]
fn link_count(path: &Path) -> u64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map_or(0, |m| m.nlink())
}

#[cfg(not(unix))]
fn link_count(_path: &Path) -> u64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::builtin::paths::resolve;

    fn caution(cwd: &Path, p: &str, own: &[PathBuf]) -> Option<String> {
        let r = resolve(cwd, p);
        write_caution(cwd, &r.path, r.inside, own)
    }

    #[test]
    fn protected_names_anywhere_in_the_project_ask() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        for p in [
            ".git/config",
            ".git/hooks/pre-commit",
            "vendor/lib/.git/config",
            ".GIT/config",
            ".git./config",
            ".git",
            ".sayso/config.toml",
            "sub/.sayso/x",
            ".gitattributes",
            "docs/.gitattributes",
            ".gitmodules",
            ".GitModules",
            ".gıt/config",
            ".ſayso/config.toml",
            ".gitattributeſ",
            ".git::$INDEX_ALLOCATION/config",
            "b/HEAD::$DATA",
        ] {
            assert!(caution(cwd, p, &[]).is_some(), "{p}");
        }
        for p in [
            "src/main.rs",
            "git/config",
            ".github/workflows/ci.yml",
            "a.gitattributes",
        ] {
            assert_eq!(caution(cwd, p, &[]), None, "{p}");
        }
        assert!(
            caution(cwd, "../x", &[])
                .unwrap()
                .contains("OUTSIDE the working directory")
        );
    }

    #[test]
    fn sayso_own_directories_ask_even_inside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        let own = vec![cwd.join("home/.config/sayso")];
        let why = caution(cwd, "home/.config/sayso/config.toml", &own).unwrap();
        assert!(why.contains("sayso's own files"), "{why}");
        assert_eq!(caution(cwd, "home/.config/other", &own), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_file_with_another_hard_link_asks() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().join("bashrc");
        std::fs::write(&target, "x").unwrap();
        std::fs::hard_link(&target, dir.path().join("innocent.txt")).unwrap();
        let why = caution(dir.path(), "innocent.txt", &[]).unwrap();
        assert!(why.contains("2 hard links"), "{why}");
        std::fs::write(dir.path().join("plain.txt"), "x").unwrap();
        assert_eq!(caution(dir.path(), "plain.txt", &[]), None);
    }

    #[test]
    fn process_data_is_never_read() {
        for p in [
            "/proc/self/environ",
            "/proc/1/environ",
            "/proc/123/mem",
            "/proc/thread-self/environ",
            "/proc/42/task/43/environ",
            "/proc/kcore",
            "/dev/mem",
        ] {
            assert!(read_refusal(Path::new(p)).is_some(), "{p}");
        }
        for p in ["/proc/cpuinfo", "/etc/hosts", "/home/u/proc/1/environ"] {
            assert_eq!(read_refusal(Path::new(p)), None, "{p}");
        }
        for p in ["/", "/proc", "/proc/cpuinfo", "/dev/tty", "/dev/zero"] {
            assert!(shell_arg_refusal(Path::new(p)).is_some(), "{p}");
        }
        for p in ["/dev/null", "/etc", "/home/u/src"] {
            assert_eq!(shell_arg_refusal(Path::new(p)), None, "{p}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_into_git_is_seen_through() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::os::unix::fs::symlink(dir.path().join(".git"), dir.path().join("docs")).unwrap();
        assert!(caution(dir.path(), "docs/config", &[]).is_some());
    }
}
