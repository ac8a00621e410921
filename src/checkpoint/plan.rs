//! The undo planner (pure): from the net changes of the turns to take back (or re-apply) and
//! the current images of their paths, an [`UndoPlan`] — what it will write, what it must not
//! (a conflict: the file is no longer what sayso left), and what it cannot (its content was
//! kept by hash only, or is gone from the store).
//!
//! A path already as the undo would leave it is left out. A directory (or anything not a
//! file or link) where a file should be is a conflict, never removed. Nothing here reads or
//! writes; `super::apply` does, and checks each path again just before writing it.

use std::collections::BTreeMap;

use super::image::Image;
use super::manifest::Change;
use super::object::ObjectId;
use super::record::UndoAction;

/// One path the plan writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restore {
    pub path: String,
    /// What is there now (what sayso left).
    pub current: Image,
    /// What it becomes.
    pub target: Image,
}

/// A path that changed since sayso's change: listed, never overwritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub path: String,
    /// What sayso left there.
    pub expected: Image,
    pub current: Image,
    /// What the undo would have written.
    pub target: Image,
}

/// A path the plan should write but cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unrecoverable {
    pub path: String,
    pub target: Image,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoPlan {
    pub action: UndoAction,
    pub turns: Vec<u32>,
    pub restores: Vec<Restore>,
    pub conflicts: Vec<Conflict>,
    pub unrecoverable: Vec<Unrecoverable>,
}

impl UndoPlan {
    /// Nothing to write, nothing in the way.
    pub fn is_empty(&self) -> bool {
        self.restores.is_empty() && self.conflicts.is_empty() && self.unrecoverable.is_empty()
    }
}

/// The plan for `action` over `changes` (the turns' changes in the order they happened),
/// `current` holding each path's image now (a path absent from it is missing), `stored`
/// telling whether an object is in the store.
pub fn plan(
    action: UndoAction,
    turns: &[u32],
    changes: &[Change],
    current: &BTreeMap<String, Image>,
    stored: impl Fn(&ObjectId) -> bool,
) -> UndoPlan {
    let mut p = UndoPlan {
        action,
        turns: turns.to_vec(),
        restores: Vec::new(),
        conflicts: Vec::new(),
        unrecoverable: Vec::new(),
    };
    let missing = Image::Missing;
    for c in super::manifest::net(changes) {
        let (expected, target) = match action {
            UndoAction::Undo => (c.after, c.before),
            UndoAction::Redo => (c.before, c.after),
        };
        let now = current.get(&c.path).unwrap_or(&missing);
        if now.same(&target) && *now != Image::Other {
            continue;
        }
        if !now.same(&expected) || *now == Image::Other {
            p.conflicts.push(Conflict {
                path: c.path,
                expected,
                current: now.clone(),
                target,
            });
        } else if !target.restorable() || target.hash().is_some_and(|h| !stored(h)) {
            p.unrecoverable.push(Unrecoverable {
                path: c.path,
                target,
            });
        } else {
            p.restores.push(Restore {
                path: c.path,
                current: now.clone(),
                target,
            });
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str) -> Image {
        Image::File {
            hash: ObjectId::of(s.as_bytes()),
            mode: 0o644,
            len: s.len() as u64,
            hash_only: false,
        }
    }
    fn x(s: &str) -> Image {
        Image::File {
            hash: ObjectId::of(s.as_bytes()),
            mode: 0o755,
            len: s.len() as u64,
            hash_only: false,
        }
    }
    fn big(s: &str) -> Image {
        Image::File {
            hash: ObjectId::of(s.as_bytes()),
            mode: 0o644,
            len: s.len() as u64,
            hash_only: true,
        }
    }
    fn ch(before: Image, after: Image) -> Change {
        Change {
            path: "p".into(),
            before,
            after,
        }
    }

    /// Which bucket the single path lands in.
    #[derive(Debug, PartialEq)]
    enum Out {
        Nothing,
        Restore(Image),
        Conflict,
        Unrecoverable,
    }

    fn run(action: UndoAction, changes: &[Change], now: Image, gone: Option<&str>) -> Out {
        let current = BTreeMap::from([("p".to_string(), now)]);
        let gone = gone.map(|s| ObjectId::of(s.as_bytes()));
        let p = plan(action, &[1], changes, &current, |h| {
            Some(h) != gone.as_ref()
        });
        match (&p.restores[..], &p.conflicts[..], &p.unrecoverable[..]) {
            ([], [], []) => Out::Nothing,
            ([r], [], []) => Out::Restore(r.target.clone()),
            ([], [_], []) => Out::Conflict,
            ([], [], [_]) => Out::Unrecoverable,
            _ => panic!("one path in two buckets: {p:?}"),
        }
    }

    #[test]
    fn undo_and_redo_table() {
        use Out::*;
        use UndoAction::{Redo, Undo};
        let m = Image::Missing;
        /// Name, action, the changes, the path now, an object gone from the store, the outcome.
        type Row<'a> = (
            &'a str,
            UndoAction,
            Vec<Change>,
            Image,
            Option<&'a str>,
            Out,
        );
        let rows: Vec<Row> = vec![
            (
                "edit undone",
                Undo,
                vec![ch(f("a"), f("b"))],
                f("b"),
                None,
                Restore(f("a")),
            ),
            (
                "create undone: deleted",
                Undo,
                vec![ch(m.clone(), f("b"))],
                f("b"),
                None,
                Restore(m.clone()),
            ),
            (
                "delete undone: back",
                Undo,
                vec![ch(f("a"), m.clone())],
                m.clone(),
                None,
                Restore(f("a")),
            ),
            (
                "chmod undone",
                Undo,
                vec![ch(f("a"), x("a"))],
                x("a"),
                None,
                Restore(f("a")),
            ),
            (
                "user edited since",
                Undo,
                vec![ch(f("a"), f("b"))],
                f("c"),
                None,
                Conflict,
            ),
            (
                "user chmod since",
                Undo,
                vec![ch(f("a"), f("b"))],
                x("b"),
                None,
                Conflict,
            ),
            (
                "user deleted since",
                Undo,
                vec![ch(f("a"), f("b"))],
                m.clone(),
                None,
                Conflict,
            ),
            (
                "a directory now",
                Undo,
                vec![ch(f("a"), m.clone())],
                Image::Other,
                None,
                Conflict,
            ),
            (
                "already as before",
                Undo,
                vec![ch(f("a"), f("b"))],
                f("a"),
                None,
                Nothing,
            ),
            (
                "two edits: the first before",
                Undo,
                vec![ch(f("a"), f("b")), ch(f("b"), f("c"))],
                f("c"),
                None,
                Restore(f("a")),
            ),
            (
                "kept by hash only",
                Undo,
                vec![ch(big("a"), f("b"))],
                f("b"),
                None,
                Unrecoverable,
            ),
            (
                "gone from the store",
                Undo,
                vec![ch(f("a"), f("b"))],
                f("b"),
                Some("a"),
                Unrecoverable,
            ),
            (
                "a link back",
                Undo,
                vec![ch(Image::Symlink { target: "t".into() }, m.clone())],
                m.clone(),
                None,
                Restore(Image::Symlink { target: "t".into() }),
            ),
            (
                "redo an edit",
                Redo,
                vec![ch(f("a"), f("b"))],
                f("a"),
                None,
                Restore(f("b")),
            ),
            (
                "redo a delete",
                Redo,
                vec![ch(f("a"), m.clone())],
                f("a"),
                None,
                Restore(m.clone()),
            ),
            (
                "redo after the user edited",
                Redo,
                vec![ch(f("a"), f("b"))],
                f("z"),
                None,
                Conflict,
            ),
            (
                "redo: already done",
                Redo,
                vec![ch(f("a"), f("b"))],
                f("b"),
                None,
                Nothing,
            ),
        ];
        for (name, action, changes, now, gone, want) in rows {
            assert_eq!(run(action, &changes, now, gone), want, "{name}");
        }
    }

    #[test]
    fn a_path_missing_from_current_is_missing() {
        let p = plan(
            UndoAction::Undo,
            &[1],
            &[ch(Image::Missing, f("b"))],
            &BTreeMap::new(),
            |_| true,
        );
        assert!(p.is_empty(), "created, already gone: nothing to do");
    }
}
