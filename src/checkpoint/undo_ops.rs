//! The IO half of an undo or redo of a saved chat: the turns' changes read from their
//! manifests (a pending checkpoint's from what is on disk now), the current images of their
//! paths, then [`super::plan::plan`]; the diff's sides read from the store and the project.
//! Used alike by the CLI (`sayso sessions undo`) and the chat (`/undo`); `exclude` is sayso's
//! own directories (data, config, state), never part of a project snapshot.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use super::apply::confined;
use super::history::History;
use super::image::{Budget, Image, capture};
use super::manifest::{Change, Manifest, changes_between};
use super::plan::{UndoPlan, plan};
use super::record::{Checkpoint, Undo, UndoAction};
use super::snapshot::{self, StatCache};
use super::store::Store;

/// The image of `rel` under `root` now, nothing stored; a path with a link on the way is
/// [`Image::Other`] (never followed, so never restored through).
pub fn current_image(root: &Path, rel: &str, store: &Store) -> io::Result<Image> {
    match confined(root, rel, false) {
        Ok(path) => capture(&path, store, &mut Budget::new(0, 0)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Image::Missing),
        Err(_) => Ok(Image::Other),
    }
}

/// The changes of `checkpoints` in order; a pending one's from its before-images (or tree)
/// to what is there now.
pub fn changes_of(
    checkpoints: &[&Checkpoint],
    root: &Path,
    exclude: &[PathBuf],
    store: &Store,
) -> io::Result<Vec<Change>> {
    let mut out = Vec::new();
    for c in checkpoints {
        let m = Manifest::load(&c.manifest, store)?;
        if !c.pending {
            out.extend(m.changes);
            continue;
        }
        let mut now = BTreeMap::new();
        let before = match &m.before_tree {
            Some(tree) => {
                now = snapshot::take(
                    root,
                    &super::recorder::canonical_all(exclude),
                    store,
                    &mut Budget::new(0, 0),
                    &mut StatCache::default(),
                )?;
                snapshot::load_tree(tree, store)?.0
            }
            None => {
                for p in m.before.keys() {
                    now.insert(p.clone(), current_image(root, p, store)?);
                }
                m.before.clone()
            }
        };
        out.extend(changes_between(&before, &now));
    }
    Ok(out)
}

/// The plan for an undo (`to`: every turn from `to` on; else the latest) or a redo.
pub fn prepare(
    history: &History,
    action: UndoAction,
    to: Option<u32>,
    root: &Path,
    exclude: &[PathBuf],
    store: &Store,
) -> io::Result<UndoPlan> {
    let turns = match action {
        UndoAction::Undo => history.undo_turns(to),
        UndoAction::Redo => history.redo_turns(),
    };
    let changes = changes_of(&history.checkpoints_of(&turns), root, exclude, store)?;
    let mut current = BTreeMap::new();
    for c in &changes {
        if !current.contains_key(&c.path) {
            current.insert(c.path.clone(), current_image(root, &c.path, store)?);
        }
    }
    Ok(plan(action, &turns, &changes, &current, |h| {
        store.contains(h)
    }))
}

/// The unified diff of what `plan` will write.
pub fn diff(plan: &UndoPlan, root: &Path, store: &Store) -> String {
    super::diff_text::plan_diff(plan, |path, image, is_current| match image {
        Image::Missing | Image::Other => None,
        Image::Symlink { target } => Some(target.clone().into_bytes()),
        Image::File { hash, .. } => {
            if is_current {
                confined(root, path, false)
                    .and_then(|p| std::io::Read::bytes(super::image::open_nofollow(&p)?).collect())
                    .ok()
            } else {
                store.get(hash).ok()
            }
        }
    })
}

/// The record of an applied plan.
pub fn record(plan: &UndoPlan, applied: &super::apply::Applied) -> Undo {
    Undo {
        action: plan.action,
        turns: plan.turns.clone(),
        restored: applied.restored.clone(),
        conflicts: applied.conflicts.clone(),
    }
}
