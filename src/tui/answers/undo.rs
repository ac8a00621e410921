//! How the answers to `/undo`, `/redo` and `/rewind` read: what was restored, what was left
//! alone and why, where a rewound chat goes on (and where the old one stays). A preview is
//! drawn by `tui::undo_view`, not worded here, but reads as a one-line summary if it ever
//! reaches the transcript.

use crate::events::Answer;
use crate::events::answer::{UndoDone, UndoPreview};

/// The answer's text, or what went wrong; `None` for the answers that are not about undo.
pub(super) fn text(a: &Answer) -> Option<Result<String, String>> {
    Some(match a {
        Answer::UndoPreview(p) => Ok(preview(p)),
        Answer::NothingToUndo { redo: false } => Err(
            "nothing to undo: no earlier turn of this chat changed files sayso can take back"
                .into(),
        ),
        Answer::NothingToUndo { redo: true } => Err(
            "nothing to redo: no undo to re-apply (new changes after an undo end its redo)".into(),
        ),
        Answer::Undone(d) => Ok(done_in(d, true)),
        Answer::UndoFailed { error } => Err(error.clone()),
        Answer::Rewound {
            index,
            id,
            parent,
            code,
            ..
        } => {
            let mut out = format!(
                "rewound to before message {}: the chat goes on as session {id}; the conversation before the rewind stays in session {parent} (/resume {parent}). The message is back in the input to edit and send.",
                index + 1
            );
            if let Some(d) = code {
                out.push('\n');
                out.push_str(&done_in(d, false));
            }
            Ok(out)
        }
        Answer::RewindFailed { error } => Err(format!("could not rewind: {error}")),
        _ => return None,
    })
}

fn turns(t: &[u32]) -> String {
    let list: Vec<String> = t.iter().map(u32::to_string).collect();
    match t.len() {
        1 => format!("turn {}", list.join("")),
        _ => format!("turns {}", list.join(", ")),
    }
}

fn preview(p: &UndoPreview) -> String {
    let verb = if p.redo { "redo" } else { "undo" };
    format!(
        "{verb} of {}: {} file(s) to write, {} conflict(s)",
        turns(&p.turns),
        p.restores.len(),
        p.conflicts.len()
    )
}

/// What an applied undo or redo did; `again`: say how to go back on it (not after a rewind:
/// the forked chat has no undo to redo).
fn done_in(d: &UndoDone, again: bool) -> String {
    let verb = if d.redo { "re-applied" } else { "undid" };
    let again = match (again, d.redo) {
        (false, _) => String::new(),
        (true, true) => " (/undo takes them back again)".to_owned(),
        (true, false) => " (/redo re-applies them)".to_owned(),
    };
    let mut lines = vec![if d.restored.is_empty() {
        format!(
            "{verb} nothing of {}: no file could be written",
            turns(&d.turns)
        )
    } else {
        format!(
            "{verb} the file changes of {}: {}{again}",
            turns(&d.turns),
            d.restored.join(", ")
        )
    }];
    if !d.conflicts.is_empty() {
        lines.push(format!(
            "left as they are (changed since sayso's change): {}",
            d.conflicts.join(", ")
        ));
    }
    for (path, why) in &d.failed {
        lines.push(format!("could not write {path}: {why}"));
    }
    if !d.unrecoverable.is_empty() {
        lines.push(format!(
            "cannot be restored (kept by hash only, or gone from the store): {}",
            d.unrecoverable.join(", ")
        ));
    }
    lines.join("\n")
}
