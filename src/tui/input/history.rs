//! The input history: the messages and commands sent, newest last, kept across runs in
//! `history.jsonl` in sayso's state directory (one JSON string a line, so a message of many
//! lines is one entry), and Ctrl+R's reverse incremental search over it.
//!
//! The file is written whole after each entry (a temp file in the same directory, mode 0600,
//! renamed over the old one), with secrets scrubbed (`crate::secrets::scrub`), duplicates
//! collapsed (an entry sent again moves to the end) and at most [`MAX_ENTRIES`] kept. It is read
//! through `crate::secrets::own_files` (a regular file inside the state directory, never a
//! symlink to elsewhere); a line that is not a JSON string is skipped. It refuses to fail the
//! chat: a history that cannot be read or written is a note, and the chat goes on without it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The most entries kept (the oldest go first).
pub const MAX_ENTRIES: usize = 1000;

/// The file's name in the state directory.
pub const FILE_NAME: &str = "history.jsonl";

#[derive(Debug, Default)]
pub struct History {
    entries: Vec<String>,
    /// Where it is saved; `None`: this run only.
    file: Option<PathBuf>,
}

impl History {
    /// The history saved in `dir` (empty when there is none yet), saved there from now on; the
    /// error says why the saved one could not be read (it is then started afresh).
    pub fn load(dir: &Path) -> (Self, Option<String>) {
        let file = dir.join(FILE_NAME);
        let (entries, error) = match crate::secrets::own_files::read_to_string(&file, &[dir]) {
            Ok(text) => (parse(&text), None),
            Err(crate::secrets::own_files::Refused::Missing) => (Vec::new(), None),
            Err(e) => (
                Vec::new(),
                Some(format!(
                    "the input history {} was not read: {e}",
                    file.display()
                )),
            ),
        };
        (
            Self {
                entries,
                file: Some(file),
            },
            error,
        )
    }

    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        self.entries.get(i).map(String::as_str)
    }

    /// Adds `sent` as the newest entry (an equal older one is dropped) and saves the file;
    /// the error says why it could not be saved.
    pub fn push(&mut self, sent: &str) -> Result<(), String> {
        add(&mut self.entries, sent);
        match &self.file {
            Some(file) => save(file, &self.entries)
                .map_err(|e| format!("the input history {} was not saved: {e}", file.display())),
            None => Ok(()),
        }
    }

    /// The newest entry before index `before` (all: `len()`) that contains `query`
    /// (case-insensitively); an empty query matches every entry.
    pub fn search(&self, query: &str, before: usize) -> Option<usize> {
        let query = query.to_lowercase();
        self.entries[..before.min(self.entries.len())]
            .iter()
            .rposition(|e| e.to_lowercase().contains(&query))
    }
}

/// `sent` as the newest of `entries`: an equal entry moves to the end, the oldest go past
/// [`MAX_ENTRIES`].
fn add(entries: &mut Vec<String>, sent: &str) {
    entries.retain(|e| e != sent);
    entries.push(sent.to_owned());
    let over = entries.len().saturating_sub(MAX_ENTRIES);
    entries.drain(..over);
}

/// The entries of a history file: one JSON string a line; other lines are skipped.
fn parse(text: &str) -> Vec<String> {
    let mut entries = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        if let Ok(serde_json::Value::String(s)) = serde_json::from_str(line) {
            add(&mut entries, &s);
        }
    }
    entries
}

/// The file's text: each entry scrubbed of secrets, one JSON string a line.
fn render(entries: &[String]) -> String {
    let mut out = String::new();
    for e in entries {
        let scrubbed = crate::secrets::scrub(e);
        out.push_str(&serde_json::Value::String(scrubbed.into_owned()).to_string());
        out.push('\n');
    }
    out
}

/// Writes `entries` to `file` at once: a 0600 temp file beside it, renamed over it.
fn save(file: &Path, entries: &[String]) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    // tempfile creates it 0600 on Unix.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(render(entries).as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests;
