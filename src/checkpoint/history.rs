//! The undo state of a chat, replayed from its records (pure): which turns have checkpoints,
//! which were undone (the redo stack), and which can no longer be redone.
//!
//! Rules: an undo takes back the latest turn not yet undone ("again" goes one further back);
//! `--turn N` takes back every turn from the latest down to N; a redo re-applies the last
//! undo's turns. A new checkpoint after an undo ends the redo stack (the undone turns stay
//! undone, as an editor's redo does after new typing). A pending checkpoint is superseded by
//! the complete one of the same call.

use std::collections::BTreeSet;

use super::record::{Checkpoint, Undo, UndoAction};

/// One undo record or checkpoint, in the order the session wrote them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mark {
    Checkpoint(Checkpoint),
    Undo(Undo),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    /// The checkpoints in effect, in order.
    checkpoints: Vec<Checkpoint>,
    /// Each applied undo's turns, the last on top.
    undone: Vec<Vec<u32>>,
    /// Turns undone and no longer redoable.
    settled: BTreeSet<u32>,
}

impl History {
    pub fn from_marks(marks: impl IntoIterator<Item = Mark>) -> Self {
        let mut h = History::default();
        for m in marks {
            h.push(m);
        }
        h
    }

    /// One more record, as it is written.
    pub fn push(&mut self, mark: Mark) {
        match mark {
            Mark::Checkpoint(c) => {
                if !c.pending
                    && let Some(i) = self
                        .checkpoints
                        .iter()
                        .rposition(|p| p.pending && p.call_id == c.call_id)
                {
                    self.checkpoints.remove(i);
                }
                if !c.paths.is_empty() || c.pending {
                    // New changes: what was undone can no longer be redone.
                    for group in self.undone.drain(..) {
                        self.settled.extend(group);
                    }
                    self.checkpoints.push(c);
                }
            }
            Mark::Undo(u) => match u.action {
                UndoAction::Undo => self.undone.push(u.turns),
                UndoAction::Redo => {
                    if self.undone.last() == Some(&u.turns) {
                        self.undone.pop();
                    }
                }
            },
        }
    }

    fn undone(&self, turn: u32) -> bool {
        self.settled.contains(&turn) || self.undone.iter().any(|g| g.contains(&turn))
    }

    /// The turns with checkpoints that an undo can still take back, ascending.
    pub fn active_turns(&self) -> Vec<u32> {
        let set: BTreeSet<u32> = self
            .checkpoints
            .iter()
            .map(|c| c.turn)
            .filter(|t| !self.undone(*t))
            .collect();
        set.into_iter().collect()
    }

    /// What an undo takes back: the latest active turn, or with `to`, every active turn from
    /// `to` on. Empty when there is nothing to undo.
    pub fn undo_turns(&self, to: Option<u32>) -> Vec<u32> {
        let active = self.active_turns();
        match to {
            Some(n) => active.into_iter().filter(|t| *t >= n).collect(),
            None => active.last().map(|t| vec![*t]).unwrap_or_default(),
        }
    }

    /// What a redo re-applies: the last undo's turns, when they can still be redone.
    pub fn redo_turns(&self) -> Vec<u32> {
        self.undone.last().cloned().unwrap_or_default()
    }

    /// The checkpoints of `turns`, in the order they were taken.
    pub fn checkpoints_of(&self, turns: &[u32]) -> Vec<&Checkpoint> {
        self.checkpoints
            .iter()
            .filter(|c| turns.contains(&c.turn))
            .collect()
    }

    /// Every checkpoint in effect.
    pub fn checkpoints(&self) -> &[Checkpoint] {
        &self.checkpoints
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::object::ObjectId;

    fn cp(turn: u32, call: &str, pending: bool) -> Mark {
        Mark::Checkpoint(Checkpoint {
            turn,
            call_id: call.into(),
            manifest: ObjectId::of(call.as_bytes()),
            paths: if pending { vec![] } else { vec!["a".into()] },
            pending,
            unrecoverable: vec![],
            cap_reached: false,
        })
    }
    fn undo(action: UndoAction, turns: &[u32]) -> Mark {
        Mark::Undo(Undo {
            action,
            turns: turns.to_vec(),
            restored: vec![],
            conflicts: vec![],
        })
    }
    use UndoAction::{Redo, Undo as U};

    #[test]
    fn undo_and_redo_state_table() {
        struct Row {
            marks: Vec<Mark>,
            undo: Vec<u32>,
            undo_to_2: Vec<u32>,
            redo: Vec<u32>,
        }
        let rows = [
            // Nothing recorded.
            Row {
                marks: vec![],
                undo: vec![],
                undo_to_2: vec![],
                redo: vec![],
            },
            // The latest turn first; --turn 2 takes every turn from 2 on.
            Row {
                marks: vec![cp(1, "a", false), cp(2, "b", false), cp(3, "c", false)],
                undo: vec![3],
                undo_to_2: vec![2, 3],
                redo: vec![],
            },
            // Again: one turn further back; redo gives back the last undone.
            Row {
                marks: vec![cp(1, "a", false), cp(3, "c", false), undo(U, &[3])],
                undo: vec![1],
                undo_to_2: vec![],
                redo: vec![3],
            },
            // A redo pops the stack.
            Row {
                marks: vec![
                    cp(1, "a", false),
                    cp(3, "c", false),
                    undo(U, &[3]),
                    undo(Redo, &[3]),
                ],
                undo: vec![3],
                undo_to_2: vec![3],
                redo: vec![],
            },
            // New changes after an undo: nothing to redo, the undone turn stays undone.
            Row {
                marks: vec![
                    cp(1, "a", false),
                    cp(2, "b", false),
                    undo(U, &[2]),
                    cp(3, "c", false),
                ],
                undo: vec![3],
                undo_to_2: vec![3],
                redo: vec![],
            },
            // A pending checkpoint alone (killed mid-call) is something to undo.
            Row {
                marks: vec![cp(4, "d", true)],
                undo: vec![4],
                undo_to_2: vec![4],
                redo: vec![],
            },
            // Superseded by its complete record; a call that changed nothing leaves nothing.
            Row {
                marks: vec![
                    cp(4, "d", true),
                    Mark::Checkpoint(Checkpoint {
                        paths: vec![],
                        ..match cp(4, "d", false) {
                            Mark::Checkpoint(c) => c,
                            _ => unreachable!(),
                        }
                    }),
                ],
                undo: vec![],
                undo_to_2: vec![],
                redo: vec![],
            },
        ];
        for (i, r) in rows.into_iter().enumerate() {
            let h = History::from_marks(r.marks);
            assert_eq!(h.undo_turns(None), r.undo, "row {i}");
            assert_eq!(h.undo_turns(Some(2)), r.undo_to_2, "row {i}");
            assert_eq!(h.redo_turns(), r.redo, "row {i}");
        }
    }

    #[test]
    fn a_complete_record_replaces_its_pending_one() {
        let h = History::from_marks([cp(1, "a", true), cp(1, "a", false)]);
        assert_eq!(h.checkpoints().len(), 1);
        assert!(!h.checkpoints()[0].pending);
    }
}
