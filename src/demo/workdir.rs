//! The directory the demo's tools work in: `$XDG_CACHE_HOME/sayso/demo/` (`~/.cache/…`), the
//! same for every demo chat, so `sayso --demo --continue` finds its session (saved with this
//! directory) and the files the last demo chat made. Not under sayso's data directory: that
//! one is sayso's own, where every write asks (it holds the sessions), so the demo could not
//! show a tool running unasked in auto mode there. What is in it is disposable: a cache.
//!
//! A new demo chat resets it to the demo's starting files (`assets/demo/start/`); continuing
//! one (`--continue`, `--resume`) keeps it as it is. Reset only empties a directory that
//! sayso made for the demo (it holds the [`MARKER`] file); anything else at that path is left
//! alone and the demo works in a scratch directory instead. So does a new demo started while
//! another one runs (it holds `demo.lock`): resetting would pull the files from under it. A
//! scratch directory is deleted at exit, so its chat cannot be continued, and the demo says so.
//!
//! `-C DIR` is not handled here: the demo then works in DIR, never reset.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// Marks the directory as the demo's own (so a reset may empty it).
pub const MARKER: &str = ".sayso-demo";

/// The files a new demo chat starts with.
const START: &[(&str, &str)] = &[("notes.md", include_str!("../../assets/demo/start/notes.md"))];

/// The demo's working directory for this run.
pub struct Workdir {
    path: PathBuf,
    /// Why this run works in a scratch directory, when it does.
    pub scratch_reason: Option<String>,
    _lock: Option<File>,
    _scratch: Option<tempfile::TempDir>,
}

impl Workdir {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What to tell the user at start.
    pub fn describe(&self, fresh: bool) -> String {
        match &self.scratch_reason {
            Some(why) => format!(
                "the demo works in {} ({why}; it is deleted at exit, so this chat cannot be continued)",
                self.path.display()
            ),
            None if fresh => format!(
                "the demo works in {} (reset for this chat; `sayso --demo --continue` takes it up again)",
                self.path.display()
            ),
            None => format!("the demo continues in {}", self.path.display()),
        }
    }
}

/// sayso's cache directory: `$XDG_CACHE_HOME/sayso` (when absolute), else the platform's.
fn cache_root() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    xdg.or_else(|| {
        use etcetera::BaseStrategy;
        etcetera::choose_base_strategy().ok().map(|b| b.cache_dir())
    })
    .map(|d| d.join("sayso"))
}

/// The demo's directory: reset to the starting files when `fresh` (a new demo chat), kept
/// otherwise.
pub fn prepare(fresh: bool) -> io::Result<Workdir> {
    match cache_root() {
        Some(root) => prepare_in(&root, fresh),
        None => scratch("there is no cache directory (set XDG_CACHE_HOME)".into()),
    }
}

fn scratch(reason: String) -> io::Result<Workdir> {
    let scratch = tempfile::Builder::new().prefix("sayso-demo-").tempdir()?;
    fill(scratch.path())?;
    Ok(Workdir {
        path: scratch.path().to_path_buf(),
        scratch_reason: Some(reason),
        _lock: None,
        _scratch: Some(scratch),
    })
}

/// [`prepare`] with `root/demo` as the demo's directory (`root/demo.lock` its lock).
fn prepare_in(root: &Path, fresh: bool) -> io::Result<Workdir> {
    let dir = root.join("demo");
    std::fs::create_dir_all(root)?;
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(root.join("demo.lock"))?;
    let locked = match lock.try_lock() {
        Ok(()) => true,
        Err(std::fs::TryLockError::WouldBlock) => false,
        Err(std::fs::TryLockError::Error(e)) => return Err(e),
    };
    let ours = !dir.exists() || dir.join(MARKER).is_file() || is_empty_dir(&dir);
    let reason = if !ours {
        Some(format!(
            "{} exists and was not made by the demo, so it is left alone",
            dir.display()
        ))
    } else if fresh && !locked {
        Some("another demo is running in the demo's directory".to_owned())
    } else {
        None
    };
    if let Some(reason) = reason {
        return scratch(reason);
    }
    if fresh || !dir.exists() {
        reset(&dir)?;
    }
    Ok(Workdir {
        path: std::fs::canonicalize(&dir).unwrap_or(dir),
        scratch_reason: None,
        _lock: locked.then_some(lock),
        _scratch: None,
    })
}

fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_none())
}

/// Empties `dir` (made for the demo) and puts the starting files back.
fn reset(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        // `file_type` does not follow symlinks: a link is removed, never what it points to.
        if entry.file_type()?.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else {
            std::fs::remove_file(entry.path())?;
        }
    }
    fill(dir)
}

fn fill(dir: &Path) -> io::Result<()> {
    std::fs::write(
        dir.join(MARKER),
        "This directory is sayso's demo: a new `sayso --demo` chat empties it.\n",
    )?;
    for (name, text) in START {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_demo_resets_its_directory_and_a_continued_one_keeps_it() {
        let data = tempfile::tempdir().unwrap();
        let w = prepare_in(data.path(), true).unwrap();
        let dir = w.path().to_path_buf();
        assert!(w.scratch_reason.is_none());
        assert!(dir.join("notes.md").is_file());
        std::fs::write(dir.join("hello.md"), "made by the demo").unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        drop(w);
        let w = prepare_in(data.path(), false).unwrap();
        assert_eq!(w.path(), dir);
        assert!(dir.join("hello.md").is_file(), "--continue keeps the files");
        drop(w);
        let w = prepare_in(data.path(), true).unwrap();
        assert!(!dir.join("hello.md").exists() && !dir.join("sub").exists());
        assert!(dir.join("notes.md").is_file());
        // While it runs, another new demo gets a scratch directory instead.
        let other = prepare_in(data.path(), true).unwrap();
        assert_ne!(other.path(), dir);
        assert!(other.scratch_reason.is_some());
        assert!(other.path().join("notes.md").is_file());
        drop(w);
    }

    #[test]
    fn a_directory_the_demo_did_not_make_is_never_emptied() {
        let data = tempfile::tempdir().unwrap();
        let dir = data.path().join("demo");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("mine.txt"), "keep me").unwrap();
        let w = prepare_in(data.path(), true).unwrap();
        assert_ne!(w.path(), dir);
        assert!(w.describe(true).contains("was not made by the demo"));
        assert_eq!(
            std::fs::read_to_string(dir.join("mine.txt")).unwrap(),
            "keep me"
        );
    }
}
