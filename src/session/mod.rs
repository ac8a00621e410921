//! Sessions (SPEC §8.1): every chat is saved as it happens and can be resumed.
//!
//! - [`store`]: the files — where they live, ids, private permissions, appending, reading a
//!   file whose last line was torn by a crash.
//! - [`record`]: one line of a session file; records replay as the events they came from.
//! - [`writer`]: the task that writes the agent's events as records while they happen.
//! - [`resume`]: a session file read back into history, transcript and state.
//! - [`live`]: the session of a running chat: created with its first message, written by a
//!   task fed the same events as the front-end, closed cleanly.
//! - [`catalog`]: the saved sessions as a list; latest of a directory; removal and pruning.
//! - [`choose`]: which session `--resume`/`--continue` mean, and the banner a resumed chat
//!   opens with.
//! - [`fork`]: a session forked by `/rewind` (a new file up to a cut; the parent kept).
//! - [`transcript_md`]: a session as Markdown (`sayso sessions show`).
//! - [`undo_state`]: a session's undo state from its records, and collecting the checkpoint
//!   objects no remaining session names.
pub mod catalog;
pub mod choose;
pub mod fork;
pub mod live;
pub mod record;
pub mod resume;
pub mod store;
pub mod transcript_md;
pub mod undo_state;
pub mod writer;

use std::path::Path;

/// A saved session read back: its id, what it holds, and how many lines were unreadable (a
/// torn last line after a crash).
pub struct Saved {
    pub id: String,
    pub resumed: resume::Resumed,
    pub skipped: usize,
    /// What the chat said on taking it up (a saved mode looser than this run's, not restored).
    pub notice: Option<crate::events::Notice>,
    /// What it is (id, start, directory, messages), and a warning when it was started in
    /// another directory: [`choose::banner`].
    pub banner: Vec<String>,
}

/// Opens the session `id` (or a unique start of it), or with `None` the one started in `cwd`
/// that was used last.
pub fn open_saved(data_dir: &Path, id: Option<&str>, cwd: &Path) -> Result<Saved, String> {
    let summary = choose::choose(&data_dir.join("sessions"), id, cwd)?;
    let banner = choose::banner(&summary, cwd);
    let (records, skipped) = store::read_records(&summary.path)
        .map_err(|e| format!("cannot read {}: {e}", summary.path.display()))?;
    if skipped > 0 {
        tracing::warn!(id = %summary.id, skipped, "unreadable lines skipped in a session file");
    }
    Ok(Saved {
        id: summary.id,
        resumed: resume::resume(records),
        skipped,
        notice: None,
        banner,
    })
}
