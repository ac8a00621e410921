//! Path resolution for file tools: against the working directory, after `..` and symlinks.
//!
//! A path is "inside" when its fully resolved form lies under the resolved working directory.
//! Symlinks are followed for the part of the path that exists, so a link inside the project
//! pointing outside it counts as outside; the part that does not exist yet is normalised
//! lexically.

use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The absolute path to use.
    pub path: PathBuf,
    /// Whether it lies inside the working directory.
    pub inside: bool,
}

fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Follows symlinks in the longest existing prefix of `p` (already absolute and normalised).
fn canonical(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&existing) {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return normalise(&out);
        }
        match (
            existing.file_name().map(|n| n.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

pub fn resolve(cwd: &Path, filepath: &str) -> Resolved {
    let joined = if Path::new(filepath).is_absolute() {
        PathBuf::from(filepath)
    } else {
        cwd.join(filepath)
    };
    let path = canonical(&normalise(&joined));
    let root = canonical(&normalise(cwd));
    Resolved {
        inside: path.starts_with(&root),
        path,
    }
}

/// `path` relative to the working directory when inside it, for messages.
pub fn display(cwd: &Path, path: &Path) -> String {
    let root = canonical(&normalise(cwd));
    path.strip_prefix(&root)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotdot_and_symlinks_are_resolved_before_the_inside_check() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let cwd = dir.path();
        std::fs::create_dir(cwd.join("src")).unwrap();
        assert!(resolve(cwd, "src/new.rs").inside);
        assert!(resolve(cwd, "src/../a/b.txt").inside);
        assert!(!resolve(cwd, "../escape.txt").inside);
        assert!(!resolve(cwd, "/etc/passwd").inside);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), cwd.join("link")).unwrap();
            let r = resolve(cwd, "link/file.txt");
            assert!(!r.inside, "{r:?}");
        }
        assert_eq!(display(cwd, &resolve(cwd, "src/x.rs").path), "src/x.rs");
    }
}
