//! A saved session's undo state and its checkpoint data's retention: the `checkpoint` and
//! `undo` records read back into a [`History`] (one pass over the file), an applied undo
//! appended as a record (whole line, `O_APPEND`, synced), and the collection of checkpoint
//! objects that no remaining session names (after `sessions.keep` pruning and
//! `sayso sessions rm`).
//!
//! It never deletes an object a session still names, whichever session wrote it (a forked
//! session names its parent's), nor one written in the last hour ([`crate::checkpoint::gc`]).

use std::io::Write;
use std::path::Path;

use super::catalog;
use super::record::Record;
use super::store::read_records;
use crate::checkpoint::{History, Mark, ObjectId, Store, Undo, gc};
use crate::events::Event;

/// The undo record an event is, if it is one (a live chat's history grows by these).
pub fn mark_of(e: &Event) -> Option<Mark> {
    match e {
        Event::Checkpoint(c) => Some(Mark::Checkpoint(c.clone())),
        Event::Undo(u) => Some(Mark::Undo(u.clone())),
        _ => None,
    }
}

/// The undo records of `records`, in order.
pub fn marks(records: impl IntoIterator<Item = Record>) -> impl Iterator<Item = Mark> {
    records.into_iter().filter_map(|r| match r {
        Record::Event(Event::Checkpoint(c)) => Some(Mark::Checkpoint(c)),
        Record::Event(Event::Undo(u)) => Some(Mark::Undo(u)),
        _ => None,
    })
}

/// The undo state of the session file at `path`.
pub fn history(path: &Path) -> std::io::Result<History> {
    let (records, _) = read_records::<Record>(path)?;
    Ok(History::from_marks(marks(records)))
}

/// Appends an applied undo to the session file at `path` and syncs it.
pub fn append_undo(path: &Path, undo: &Undo) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(&Record::Event(Event::Undo(undo.clone())))
        .map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut f = std::fs::OpenOptions::new().append(true).open(path)?;
    f.write_all(&line)?;
    f.sync_data()
}

/// Every manifest the sessions in `sessions_dir` name.
fn named_manifests(sessions_dir: &Path) -> Vec<ObjectId> {
    let mut out = Vec::new();
    for s in catalog::list(sessions_dir) {
        if let Ok(h) = manifests_of(&s.path) {
            out.extend(h);
        }
    }
    out
}

/// Every manifest a session file names (also the superseded pending ones: cheap, and safe).
fn manifests_of(path: &Path) -> std::io::Result<Vec<ObjectId>> {
    let (records, _) = read_records::<Record>(path)?;
    Ok(marks(records)
        .filter_map(|m| match m {
            Mark::Checkpoint(c) => Some(c.manifest),
            Mark::Undo(_) => None,
        })
        .collect())
}

/// Deletes the checkpoint objects under `data_dir` that no remaining session names; how many
/// objects and bytes went. A missing store is nothing to collect.
pub fn collect_garbage(data_dir: &Path) -> std::io::Result<gc::Collected> {
    if !data_dir.join("checkpoints/objects").is_dir() {
        return Ok(gc::Collected::default());
    }
    let store = Store::in_data_dir(data_dir)?;
    let live = gc::live(named_manifests(&data_dir.join("sessions")), &store);
    gc::collect(&store, &live, gc::GRACE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::{Checkpoint, UndoAction};

    #[test]
    fn undo_state_round_trips_through_a_session_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let cp = Checkpoint {
            turn: 2,
            call_id: "c1".into(),
            manifest: ObjectId::of(b"m"),
            paths: vec!["a.txt".into()],
            pending: false,
            unrecoverable: vec![],
            cap_reached: false,
        };
        let line = serde_json::to_string(&Record::Event(Event::Checkpoint(cp.clone()))).unwrap();
        assert!(line.contains(r#""t":"checkpoint""#), "{line}");
        std::fs::write(&path, format!("{line}\n")).unwrap();
        assert_eq!(history(&path).unwrap().undo_turns(None), vec![2]);
        let undo = Undo {
            action: UndoAction::Undo,
            turns: vec![2],
            restored: vec!["a.txt".into()],
            conflicts: vec![],
        };
        append_undo(&path, &undo).unwrap();
        let h = history(&path).unwrap();
        assert!(h.undo_turns(None).is_empty());
        assert_eq!(h.redo_turns(), vec![2]);
        assert_eq!(mark_of(&Event::Undo(undo.clone())), Some(Mark::Undo(undo)));
    }
}
