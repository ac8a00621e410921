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
use crate::checkpoint::{ConflictChoice, History, Image, Store, UndoAction, UndoPlan, undo_ops};
use crate::events::answer::{RewindTo, UndoDone, UndoPreview};
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
        return preview(agent, saving, false, Some(to), front).await;
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
            let sink = saving.sink(front, agent);
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
pub(super) async fn undo(agent: &mut Agent, saving: &mut Saving, redo: bool, front: &EventSink) {
    preview(agent, saving, redo, None, front).await
}

/// What an undo works on: the chat's undo state (read back from its session file), its
/// project and the checkpoint store.
struct Place {
    history: History,
    root: std::path::PathBuf,
    /// sayso's own directories inside the project: never part of an undo.
    exclude: Vec<std::path::PathBuf>,
    store: Store,
}

async fn place(agent: &Agent, saving: &mut Saving) -> Result<Place, String> {
    let Some(recorder) = agent.engine.checkpoints() else {
        return Err(OFF.into());
    };
    let Some((_, path)) = saving.flushed().await else {
        return Err("nothing to take back yet: this chat has not changed any file".into());
    };
    let history = crate::session::undo_state::history(&path)
        .map_err(|e| format!("cannot read the chat's session file: {e}"))?;
    Ok(Place {
        history,
        root: recorder.root().to_path_buf(),
        exclude: recorder.exclude().to_vec(),
        store: recorder.store().clone(),
    })
}

/// Why there is no undo at all.
const OFF: &str =
    "undo is off in this chat ([undo] enabled = false, or --no-session): no checkpoints were kept";

/// The plan of an undo (every turn from `rewind`'s message on, or the latest) or a redo, with
/// its preview.
fn plan(
    p: &Place,
    redo: bool,
    rewind: Option<&RewindTo>,
) -> Result<(UndoPlan, UndoPreview), String> {
    let action = if redo {
        UndoAction::Redo
    } else {
        UndoAction::Undo
    };
    let to = rewind.map(|r| r.index as u32 + 1);
    let plan = undo_ops::prepare(&p.history, action, to, &p.root, &p.exclude, &p.store)
        .map_err(|e| format!("cannot prepare the {}: {e}", action.as_str()))?;
    let diff = undo_ops::diff(&plan, &p.root, &p.store);
    let preview = preview_of(&plan, diff, rewind.cloned());
    Ok((plan, preview))
}

/// The preview of `plan` (pure).
pub fn preview_of(plan: &UndoPlan, diff: String, rewind: Option<RewindTo>) -> UndoPreview {
    UndoPreview {
        redo: plan.action == UndoAction::Redo,
        turns: plan.turns.clone(),
        restores: plan.restores.iter().map(|r| r.path.clone()).collect(),
        diff,
        conflicts: plan
            .conflicts
            .iter()
            .map(|c| {
                (
                    c.path.clone(),
                    conflict_reason(&c.expected, &c.current).to_owned(),
                )
            })
            .collect(),
        unrecoverable: plan.unrecoverable.iter().map(|u| u.path.clone()).collect(),
        rewind,
        changed: false,
    }
}

/// Why a path is a conflict: what is there now against what sayso left.
pub fn conflict_reason(expected: &Image, current: &Image) -> &'static str {
    match (expected, current) {
        (_, Image::Other) => "not a plain file now",
        (Image::Missing, _) => "created since",
        (_, Image::Missing) => "deleted since",
        (Image::File { hash: a, .. }, Image::File { hash: b, .. }) if a == b => {
            "its mode changed since"
        }
        _ => "edited since",
    }
}

/// Nothing to write, nothing in the way.
fn nothing(p: &UndoPreview) -> bool {
    p.turns.is_empty()
        || (p.restores.is_empty() && p.conflicts.is_empty() && p.unrecoverable.is_empty())
}

/// Plans and sends the preview (or says there is nothing to do).
async fn preview(
    agent: &mut Agent,
    saving: &mut Saving,
    redo: bool,
    rewind: Option<RewindTo>,
    front: &EventSink,
) {
    let planned = match place(agent, saving).await {
        Ok(p) => plan(&p, redo, rewind.as_ref()).map(|(_, preview)| preview),
        Err(e) => Err(e),
    };
    match (planned, rewind) {
        // A rewind of both with no file to restore (or no checkpoints at all): the
        // conversation alone.
        (Ok(p), Some(to)) if nothing(&p) && to.restore.conversation() => {
            fork(agent, saving, &to, None, front).await
        }
        (Err(e), Some(to)) if e == OFF && to.restore.conversation() => {
            fork(agent, saving, &to, None, front).await
        }
        (Ok(p), Some(to)) if nothing(&p) => front.emit(Event::Answer(Answer::UndoFailed {
            error: format!(
                "nothing to restore: no turn from message {} on changed files sayso can take back",
                to.index + 1
            ),
        })),
        (Ok(p), None) if nothing(&p) => front.emit(Event::Answer(Answer::NothingToUndo { redo })),
        (Ok(p), _) => front.emit(Event::Answer(Answer::UndoPreview(p))),
        (Err(error), Some(_)) => front.emit(Event::Answer(Answer::RewindFailed { error })),
        (Err(error), None) => front.emit(Event::Answer(Answer::UndoFailed { error })),
    }
}

/// The user's yes to `shown`: applied when planning again gives the same preview (else the
/// new one is sent, marked changed, and nothing is written). A conflict is never written;
/// the rest is written only when there is no conflict, or `rest`.
pub(super) async fn apply(
    agent: &mut Agent,
    saving: &mut Saving,
    shown: UndoPreview,
    rest: bool,
    front: &EventSink,
) {
    let failed = |error: String| match shown.rewind {
        Some(_) => Answer::RewindFailed { error },
        None => Answer::UndoFailed { error },
    };
    let p = match place(agent, saving).await {
        Ok(p) => p,
        Err(e) => return front.emit(Event::Answer(failed(e))),
    };
    let (plan, now) = match plan(&p, shown.redo, shown.rewind.as_ref()) {
        Ok(planned) => planned,
        Err(e) => return front.emit(Event::Answer(failed(e))),
    };
    let same = UndoPreview {
        changed: false,
        ..shown.clone()
    };
    if now != same {
        return front.emit(Event::Answer(Answer::UndoPreview(UndoPreview {
            changed: true,
            ..now
        })));
    }
    if !rest && !plan.conflicts.is_empty() {
        return front.emit(Event::Answer(failed(
            "nothing written: some files changed since sayso's change (apply the rest, or stop)"
                .into(),
        )));
    }
    let choice = if rest {
        ConflictChoice::ApplyRest
    } else {
        ConflictChoice::Stop
    };
    let root = p.root.clone();
    let store = p.store.clone();
    let plan_for = plan.clone();
    let applied = tokio::task::spawn_blocking(move || {
        crate::checkpoint::apply(&plan_for, choice, &root, &store)
    })
    .await;
    let applied = match applied {
        Ok(a) => a,
        Err(e) => return front.emit(Event::Answer(failed(format!("the undo task failed: {e}")))),
    };
    // Nothing written, nothing undone: the turns stay as they were for the next `/undo`.
    if !applied.restored.is_empty() {
        // The sink goes at once: it holds the writer open, and a fork closes the writer.
        saving
            .sink(front, agent)
            .emit(Event::Undo(undo_ops::record(&plan, &applied)));
    }
    let done = UndoDone {
        redo: shown.redo,
        turns: plan.turns.clone(),
        restored: applied.restored,
        conflicts: applied.conflicts,
        unrecoverable: now.unrecoverable,
        failed: applied.failed,
    };
    match shown.rewind {
        Some(to) if to.restore.conversation() => fork(agent, saving, &to, Some(done), front).await,
        _ => {
            agent.notes.extend(note(&done));
            front.emit(Event::Answer(Answer::Undone(done)));
        }
    }
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
            failed: Vec::new(),
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

    fn file(s: &str, mode: u32) -> Image {
        Image::File {
            hash: crate::checkpoint::ObjectId::of(s.as_bytes()),
            mode,
            len: s.len() as u64,
            hash_only: false,
        }
    }

    #[test]
    fn a_conflict_says_what_happened_to_the_file() {
        let rows = [
            (file("a", 0o644), file("b", 0o644), "edited since"),
            (file("a", 0o644), file("a", 0o755), "its mode changed since"),
            (file("a", 0o644), Image::Missing, "deleted since"),
            (Image::Missing, file("b", 0o644), "created since"),
            (file("a", 0o644), Image::Other, "not a plain file now"),
        ];
        for (expected, current, want) in rows {
            assert_eq!(conflict_reason(&expected, &current), want, "{current:?}");
        }
    }

    #[test]
    fn the_preview_lists_the_plan_by_path() {
        use crate::checkpoint::{Conflict, Restore, Unrecoverable};
        let plan = UndoPlan {
            action: UndoAction::Undo,
            turns: vec![2, 3],
            restores: vec![Restore {
                path: "a.txt".into(),
                current: file("new", 0o644),
                target: file("old", 0o644),
            }],
            conflicts: vec![Conflict {
                path: "b.txt".into(),
                expected: file("sayso", 0o644),
                current: file("user", 0o644),
                target: file("before", 0o644),
            }],
            unrecoverable: vec![Unrecoverable {
                path: "big.bin".into(),
                target: Image::Missing,
            }],
        };
        let p = preview_of(&plan, "diff".into(), None);
        assert_eq!(
            p,
            UndoPreview {
                redo: false,
                turns: vec![2, 3],
                restores: vec!["a.txt".into()],
                diff: "diff".into(),
                conflicts: vec![("b.txt".into(), "edited since".into())],
                unrecoverable: vec!["big.bin".into()],
                rewind: None,
                changed: false,
            }
        );
        assert!(!nothing(&p));
        assert!(nothing(&UndoPreview {
            restores: vec![],
            conflicts: vec![],
            unrecoverable: vec![],
            ..p.clone()
        }));
        assert!(nothing(&UndoPreview { turns: vec![], ..p }));
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
