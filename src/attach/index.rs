//! The `@` picker's file index: the project's paths (files, and directories with a trailing
//! `/`), gitignore-aware (`.gitignore`, `.ignore`, git's excludes; hidden entries and `.git`
//! left out), walked on a thread of its own so the UI never waits for it, and walked again when
//! the picker opens more than [`STALE_AFTER`] after the last walk. Paths are relative to the
//! root, sorted, at most [`MAX_PATHS`].
//!
//! What it refuses to do: walk on the caller's thread, walk twice at once, or hold more than
//! [`MAX_PATHS`] paths (the walk stops there, and [`Snapshot::cut`] says so).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most paths the index holds.
pub const MAX_PATHS: usize = 200_000;
/// An index older than this is walked again when the picker opens.
pub const STALE_AFTER: Duration = Duration::from_secs(10);

/// What the last walk found.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub paths: Arc<Vec<String>>,
    /// The walk stopped at [`MAX_PATHS`].
    pub cut: bool,
    /// Which walk found these paths: 1 for the first, 0 before any ended.
    pub walk: u64,
}

#[derive(Debug, Default)]
struct State {
    snapshot: Snapshot,
    walked_at: Option<Instant>,
    walking: bool,
}

/// A handle to the index of one root; clones share it.
#[derive(Debug, Clone)]
pub struct FileIndex {
    root: PathBuf,
    state: Arc<Mutex<State>>,
}

impl FileIndex {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            state: Arc::default(),
        }
    }

    /// Starts a walk on a thread of its own unless one is running or the last is fresh.
    pub fn refresh(&self) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        let fresh = s.walked_at.is_some_and(|t| t.elapsed() < STALE_AFTER);
        if s.walking || fresh {
            return;
        }
        s.walking = true;
        let (root, state) = (self.root.clone(), self.state.clone());
        let spawned = std::thread::Builder::new()
            .name("file-index".into())
            .spawn(move || {
                let mut snapshot = walk(&root, MAX_PATHS);
                if let Ok(mut s) = state.lock() {
                    snapshot.walk = s.snapshot.walk + 1;
                    s.snapshot = snapshot;
                    s.walked_at = Some(Instant::now());
                    s.walking = false;
                }
            });
        if spawned.is_err() {
            s.walking = false;
        }
    }

    /// The paths of the last walk (none before the first ends).
    pub fn snapshot(&self) -> Snapshot {
        self.state
            .lock()
            .map(|s| s.snapshot.clone())
            .unwrap_or_default()
    }

    /// Whether a walk is running.
    pub fn walking(&self) -> bool {
        self.state.lock().is_ok_and(|s| s.walking)
    }

    /// How many walks have ended (the last snapshot's [`Snapshot::walk`]).
    pub fn walks(&self) -> u64 {
        self.state.lock().map_or(0, |s| s.snapshot.walk)
    }
}

/// The paths under `root` (relative, sorted), at most `cap`.
pub fn walk(root: &Path, cap: usize) -> Snapshot {
    let mut paths = Vec::new();
    let mut cut = false;
    let walker = ignore::WalkBuilder::new(root)
        .require_git(false)
        .filter_entry(|e| e.file_name() != ".git")
        .build();
    for entry in walker.filter_map(Result::ok) {
        if entry.depth() == 0 {
            continue;
        }
        if paths.len() >= cap {
            cut = true;
            break;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let mut p = rel.to_string_lossy().into_owned();
        if entry.file_type().is_some_and(|t| t.is_dir()) {
            p.push('/');
        }
        paths.push(p);
    }
    paths.sort_unstable();
    Snapshot {
        paths: Arc::new(paths),
        cut,
        walk: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_honours_gitignore_and_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("src")).unwrap();
        std::fs::create_dir_all(d.join("target/debug")).unwrap();
        std::fs::write(d.join(".gitignore"), "target/\n*.log\n").unwrap();
        std::fs::write(d.join("src/a.rs"), "").unwrap();
        std::fs::write(d.join("x.log"), "").unwrap();
        std::fs::write(d.join("target/debug/b"), "").unwrap();
        let s = walk(d, 100);
        assert_eq!(*s.paths, ["src/", "src/a.rs"]);
        assert!(!s.cut);
        let s = walk(d, 1);
        assert_eq!(s.paths.len(), 1);
        assert!(s.cut);
    }

    #[test]
    fn refresh_walks_off_the_callers_thread() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        let index = FileIndex::new(dir.path());
        index.refresh();
        // Poll (no wall-clock assertion): the walk ends and its paths show.
        for _ in 0..1000 {
            if !index.walking() {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(*index.snapshot().paths, ["a.txt"]);
    }
}
