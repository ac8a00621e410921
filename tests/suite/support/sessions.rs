//! The session files of a private home (see [`super::sayso`]).

use std::path::{Path, PathBuf};

/// Where sayso keeps the sessions of `home`.
pub fn sessions_dir(home: &Path) -> PathBuf {
    home.join("data/sayso/sessions")
}

/// The session files under `home`, oldest first.
pub fn session_files(home: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(sessions_dir(home))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// A session's id: its file name without `.jsonl`.
pub fn id_of(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}
