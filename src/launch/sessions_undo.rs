//! `sayso sessions undo|redo|diff ID`: undo from a script. Without `--yes` an undo prints the
//! diff it would apply (stdout, a patch) and what it would do (stderr), and writes nothing;
//! with `--yes` it applies it. Conflicts (a file changed since sayso's change) and files
//! whose content was not kept are listed; they make the exit code 1 and, unless
//! `--apply-rest`, nothing is written. An applied undo is appended to the session's file, so
//! a resumed chat agrees. The project is the session's directory, not the current one.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::fail;
use crate::checkpoint::manifest::net;
use crate::checkpoint::{ConflictChoice, Image, Store, UndoAction, UndoPlan, apply, undo_ops};
use crate::exit;
use crate::session::{catalog, undo_state};

struct Opened {
    id: String,
    /// sayso's own directories, never part of a snapshot.
    exclude: Vec<PathBuf>,
    path: PathBuf,
    root: PathBuf,
    store: Store,
}

fn open(data_dir: &Path, id: &str) -> Result<Opened, u8> {
    let s = catalog::find(&data_dir.join("sessions"), id).map_err(|e| fail(exit::USAGE, e))?;
    let root = PathBuf::from(s.cwd());
    if s.cwd().is_empty() || !root.is_dir() {
        return Err(fail(
            exit::FAILED,
            format!("session {}: its directory `{}` is gone", s.id, s.cwd()),
        ));
    }
    let store = Store::in_data_dir(data_dir).map_err(|e| {
        fail(
            exit::FAILED,
            format!("cannot open the checkpoint store: {e}"),
        )
    })?;
    let dirs = crate::config::Dirs::from_env(&crate::config::ProcessEnv);
    Ok(Opened {
        exclude: [dirs.data, dirs.config, dirs.state]
            .into_iter()
            .chain(crate::provider::window::default_cache_dir())
            .collect(),
        id: s.id,
        path: s.path,
        root,
        store,
    })
}

fn turns_text(turns: &[u32]) -> String {
    let t: Vec<String> = turns.iter().map(u32::to_string).collect();
    format!(
        "turn{} {}",
        if turns.len() == 1 { "" } else { "s" },
        t.join(", ")
    )
}

/// What the plan does, one line a path (stderr).
fn describe(plan: &UndoPlan, err: &mut impl Write) {
    for r in &plan.restores {
        let verb = match (&r.current, &r.target) {
            (Image::Missing, _) => "recreate",
            (_, Image::Missing) => "delete",
            _ => "restore",
        };
        let _ = writeln!(err, "{verb}: {}", r.path);
    }
    for c in &plan.conflicts {
        let _ = writeln!(
            err,
            "conflict: {} (changed since sayso's change; left as it is)",
            c.path
        );
    }
    for u in &plan.unrecoverable {
        let _ = writeln!(
            err,
            "unrecoverable: {} (its earlier content was not kept: too large, or the session's cap)",
            u.path
        );
    }
}

/// `sayso sessions undo ID [--turn N] [--yes] [--apply-rest]`, and `redo`.
pub fn undo(
    data_dir: &Path,
    id: &str,
    action: UndoAction,
    turn: Option<u32>,
    yes: bool,
    apply_rest: bool,
) -> u8 {
    let s = match open(data_dir, id) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let history = match undo_state::history(&s.path) {
        Ok(h) => h,
        Err(e) => return fail(exit::FAILED, format!("cannot read session {}: {e}", s.id)),
    };
    let plan = match undo_ops::prepare(&history, action, turn, &s.root, &s.exclude, &s.store) {
        Ok(p) => p,
        Err(e) => {
            return fail(
                exit::FAILED,
                format!("cannot prepare the {}: {e}", action.as_str()),
            );
        }
    };
    let mut err = std::io::stderr().lock();
    if plan.turns.is_empty() {
        let _ = writeln!(err, "session {}: nothing to {}", s.id, action.as_str());
        return exit::OK;
    }
    print!("{}", undo_ops::diff(&plan, &s.root, &s.store));
    let _ = writeln!(
        err,
        "{} of {} in {}:",
        action.as_str(),
        turns_text(&plan.turns),
        s.root.display()
    );
    describe(&plan, &mut err);
    let blocked = !plan.conflicts.is_empty() || !plan.unrecoverable.is_empty();
    if !yes {
        let _ = writeln!(
            err,
            "nothing written: run again with --yes to apply{}",
            if blocked {
                " (--apply-rest to leave the conflicts and apply the rest)"
            } else {
                ""
            }
        );
        return if blocked { exit::FAILED } else { exit::OK };
    }
    if blocked && !apply_rest {
        let _ = writeln!(
            err,
            "nothing written: --apply-rest applies the other files and leaves these"
        );
        return exit::FAILED;
    }
    let applied = apply(&plan, ConflictChoice::ApplyRest, &s.root, &s.store);
    for (path, why) in &applied.failed {
        let _ = writeln!(err, "failed: {path}: {why}");
    }
    if let Err(e) = undo_state::append_undo(&s.path, &undo_ops::record(&plan, &applied)) {
        return fail(
            exit::FAILED,
            format!("applied, but the session file could not record it: {e}"),
        );
    }
    let _ = writeln!(
        err,
        "{}: {} file(s) written",
        action.as_str(),
        applied.restored.len()
    );
    // Told to apply the rest: the known conflicts are not a failure; a new one (a file that
    // changed while the undo ran) or a failed write is.
    let new_conflicts = applied.conflicts.len() > plan.conflicts.len();
    if applied.failed.is_empty() && !new_conflicts {
        exit::OK
    } else {
        exit::FAILED
    }
}

/// `sayso sessions diff ID [--turn N]`: what the session's turns changed (those not undone).
pub fn diff(data_dir: &Path, id: &str, turn: Option<u32>) -> u8 {
    let s = match open(data_dir, id) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let history = match undo_state::history(&s.path) {
        Ok(h) => h,
        Err(e) => return fail(exit::FAILED, format!("cannot read session {}: {e}", s.id)),
    };
    let turns: Vec<u32> = history
        .active_turns()
        .into_iter()
        .filter(|t| turn.is_none_or(|n| n == *t))
        .collect();
    let changes = match undo_ops::changes_of(
        &history.checkpoints_of(&turns),
        &s.root,
        &s.exclude,
        &s.store,
    ) {
        Ok(c) => c,
        Err(e) => return fail(exit::FAILED, format!("cannot read the checkpoints: {e}")),
    };
    let side = |i: &Image| match i {
        Image::File { hash, .. } => s.store.get(hash).ok(),
        Image::Symlink { target } => Some(target.clone().into_bytes()),
        _ => None,
    };
    let mut out = std::io::stdout().lock();
    for c in net(&changes) {
        let (old, new) = (side(&c.before), side(&c.after));
        let mut text =
            crate::checkpoint::diff_text::file_diff(&c.path, &c.before, &old, &c.after, &new);
        if (!c.before.restorable() && old.is_none()) || (!c.after.restorable() && new.is_none()) {
            text.push_str("(content not kept: too large, or the session's cap)\n");
        }
        let _ = out.write_all(text.as_bytes());
    }
    exit::OK
}
