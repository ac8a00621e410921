//! Capture, the driver side: before a tool call that can change files runs, [`Recorder::before`]
//! takes what it may change — the named paths' images, or the project's snapshot — stores it,
//! and returns the pending [`Checkpoint`] record to save before the call runs; after it,
//! [`Recorder::after`] takes the after-images and returns the complete record (what differed).
//!
//! One recorder per chat: it keeps the stat cache and the last snapshot between calls (so an
//! unchanged tree costs a walk and no reads), the session's [`Budget`], and the turn number
//! (the ordinal of the chat's user messages). Paths outside the project are not covered.

use std::collections::BTreeMap;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use super::image::{Budget, Image};
use super::manifest::{Change, Manifest, changes_between};
use super::object::ObjectId;
use super::record::Checkpoint;
use super::snapshot::{self, Files, StatCache};
use super::store::Store;
use super::undo_ops::current_image;
use crate::config::undo::UndoSettings;

/// What a call can change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// These paths (absolute, or relative to the project).
    Paths(Vec<PathBuf>),
    /// Anything in the project (a command).
    Project,
}

/// A call's before-state, between [`Recorder::before`] and [`Recorder::after`].
#[derive(Debug)]
pub struct Pending {
    call_id: String,
    turn: u32,
    before: Before,
}

#[derive(Debug)]
enum Before {
    Paths(BTreeMap<String, Image>),
    Project(Files),
}

struct State {
    budget: Budget,
    cache: StatCache,
    /// The last snapshot and its tree.
    last: Option<(Files, ObjectId)>,
    turn: u32,
    /// The cap's notice was given.
    cap_told: bool,
    cap: u64,
}

pub struct Recorder {
    root: PathBuf,
    /// sayso's own directories (never snapshotted, even inside the project).
    exclude: Vec<PathBuf>,
    store: Store,
    state: Mutex<State>,
}

/// `path` relative to `root`, `/`-separated, when inside it (lexically: no `..`).
fn relative(root: &Path, path: &Path) -> Option<String> {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    let rel = abs.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?.to_owned()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Each path canonical where it exists (the walker's paths are under the canonical root).
pub fn canonical_all(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect()
}

impl Recorder {
    /// A recorder for the project at `root`; `exclude`: sayso's own directories (its data,
    /// config and state), left out of snapshots.
    pub fn new(root: &Path, store: Store, settings: &UndoSettings, exclude: &[PathBuf]) -> Self {
        Self {
            exclude: canonical_all(exclude),
            // The file tools name canonical paths.
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            store,
            state: Mutex::new(State {
                budget: Budget::new(settings.max_file_size, settings.session_cap),
                cache: StatCache::default(),
                last: None,
                turn: 0,
                cap_told: false,
                cap: settings.session_cap,
            }),
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// sayso's own directories, left out of snapshots (pass them to `undo_ops::prepare`).
    pub fn exclude(&self) -> &[PathBuf] {
        &self.exclude
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The turn the next checkpoints belong to.
    pub fn turn(&self) -> u32 {
        self.state().turn
    }

    /// A user message was sent (or, on resume, this many had been).
    pub fn set_turn(&self, turn: u32) {
        self.state().turn = turn;
    }

    pub fn next_turn(&self) {
        self.state().turn += 1;
    }

    /// Takes the before-state of a call and stores it; the pending record to save before it
    /// runs.
    pub fn before(&self, call_id: &str, scope: &Scope) -> io::Result<(Pending, Checkpoint)> {
        let mut st = self.state();
        let st = &mut *st;
        let (before, manifest) = match scope {
            Scope::Paths(paths) => {
                let mut images = BTreeMap::new();
                for p in paths {
                    if let Some(rel) = relative(&self.root, p) {
                        let image = match super::apply::confined(&self.root, &rel, false) {
                            Ok(abs) => super::image::capture(&abs, &self.store, &mut st.budget)?,
                            Err(_) => Image::Other,
                        };
                        images.insert(rel, image);
                    }
                }
                let m = Manifest {
                    before: images.clone(),
                    ..Manifest::default()
                };
                (Before::Paths(images), m)
            }
            Scope::Project => {
                let files = snapshot::take(
                    &self.root,
                    &self.exclude,
                    &self.store,
                    &mut st.budget,
                    &mut st.cache,
                )?;
                let tree = match &st.last {
                    Some((last, id)) if *last == files => id.clone(),
                    _ => snapshot::store_tree(&files, &self.store)?,
                };
                st.last = Some((files.clone(), tree.clone()));
                let m = Manifest {
                    before_tree: Some(tree),
                    ..Manifest::default()
                };
                (Before::Project(files), m)
            }
        };
        let id = manifest.store(&self.store)?;
        self.store.sync()?;
        let record = Checkpoint {
            turn: st.turn,
            call_id: call_id.to_owned(),
            manifest: id,
            paths: Vec::new(),
            pending: true,
            unrecoverable: Vec::new(),
            cap_reached: st.budget.cap_reached,
        };
        Ok((
            Pending {
                call_id: call_id.to_owned(),
                turn: st.turn,
                before,
            },
            record,
        ))
    }

    /// Takes the after-state of a call; the complete record (its `paths` empty when the call
    /// changed nothing).
    pub fn after(&self, pending: Pending) -> io::Result<Checkpoint> {
        let mut st = self.state();
        let st = &mut *st;
        let changes: Vec<Change> = match &pending.before {
            Before::Paths(before) => {
                let mut after = BTreeMap::new();
                for p in before.keys() {
                    let image = match super::apply::confined(&self.root, p, false) {
                        Ok(abs) => super::image::capture(&abs, &self.store, &mut st.budget)?,
                        Err(_) => current_image(&self.root, p, &self.store)?,
                    };
                    after.insert(p.clone(), image);
                }
                changes_between(before, &after)
            }
            Before::Project(before) => {
                let after = snapshot::take(
                    &self.root,
                    &self.exclude,
                    &self.store,
                    &mut st.budget,
                    &mut st.cache,
                )?;
                let changes = changes_between(before, &after);
                // The next call's before is this after: its tree is stored then if it differs.
                if changes.is_empty()
                    && let Some((files, _)) = &st.last
                    && files == &after
                {
                } else {
                    st.last = None;
                }
                changes
            }
        };
        let unrecoverable = changes
            .iter()
            .filter(|c| !c.before.restorable())
            .map(|c| c.path.clone())
            .collect();
        let paths = changes.iter().map(|c| c.path.clone()).collect();
        let id = Manifest {
            changes,
            ..Manifest::default()
        }
        .store(&self.store)?;
        self.store.sync()?;
        Ok(Checkpoint {
            turn: pending.turn,
            call_id: pending.call_id,
            manifest: id,
            paths,
            pending: false,
            unrecoverable,
            cap_reached: st.budget.cap_reached,
        })
    }

    /// The session's cap (bytes), the first time it is found reached; then `None`.
    pub fn cap_notice(&self) -> Option<u64> {
        let mut st = self.state();
        (st.budget.cap_reached && !st.cap_told).then(|| {
            st.cap_told = true;
            st.cap
        })
    }

    /// New bytes this chat added to the store so far.
    pub fn added_bytes(&self) -> u64 {
        self.state().budget.added
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn relative_paths_stay_inside_the_project() {
        let root = Path::new("/p");
        assert_eq!(relative(root, Path::new("/p/a/b")), Some("a/b".into()));
        assert_eq!(relative(root, Path::new("a/./b")), Some("a/b".into()));
        assert_eq!(relative(root, Path::new("/q/a")), None);
        assert_eq!(relative(root, Path::new("/p/../q")), None);
        assert_eq!(relative(root, Path::new("/p")), None);
    }

    #[test]
    fn a_file_tool_s_checkpoint_keeps_the_named_paths_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("a"), "before").unwrap();
        fs::write(root.join("other"), "x").unwrap();
        let store = Store::open(&dir.path().join("cp")).unwrap();
        let r = Recorder::new(&root, store.clone(), &UndoSettings::default(), &[]);
        let scope = Scope::Paths(vec![
            root.join("a"),
            root.join("new"),
            dir.path().join("outside"),
        ]);
        let (pending, rec) = r.before("c1", &scope).unwrap();
        let m = Manifest::load(&rec.manifest, &store).unwrap();
        assert_eq!(
            m.before.keys().collect::<Vec<_>>(),
            ["a", "new"],
            "outside is not covered"
        );
        fs::write(root.join("a"), "after").unwrap();
        fs::write(root.join("other"), "changed, but not named").unwrap();
        let done = r.after(pending).unwrap();
        assert_eq!(done.paths, vec!["a".to_string()]);
        let m = Manifest::load(&done.manifest, &store).unwrap();
        assert_eq!(
            store.get(m.changes[0].before.hash().unwrap()).unwrap(),
            b"before"
        );
        assert_eq!(
            store.get(m.changes[0].after.hash().unwrap()).unwrap(),
            b"after"
        );
    }

    #[test]
    fn sayso_s_own_directories_are_left_out_of_snapshots() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir_all(root.join("data/sayso")).unwrap();
        let store = Store::open(&root.join("data/sayso/checkpoints")).unwrap();
        let r = Recorder::new(&root, store, &UndoSettings::default(), &[root.join("data")]);
        let (pending, _) = r.before("c1", &Scope::Project).unwrap();
        fs::write(root.join("data/sayso/session.jsonl"), "x").unwrap();
        assert!(r.after(pending).unwrap().paths.is_empty());
    }

    #[test]
    fn a_command_s_checkpoint_records_what_differed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir(&root).unwrap();
        fs::write(root.join("keep"), "k").unwrap();
        fs::write(root.join("gone"), "g").unwrap();
        let store = Store::open(&dir.path().join("cp")).unwrap();
        let r = Recorder::new(&root, store, &UndoSettings::default(), &[]);
        r.set_turn(3);
        let (pending, rec) = r.before("c1", &Scope::Project).unwrap();
        assert!(rec.pending && rec.turn == 3);
        fs::remove_file(root.join("gone")).unwrap();
        fs::write(root.join("new"), "n").unwrap();
        let done = r.after(pending).unwrap();
        assert_eq!(done.paths, vec!["gone".to_string(), "new".to_string()]);
        assert!(!done.pending);
        // Nothing changed: an empty complete record.
        let (pending, _) = r.before("c2", &Scope::Project).unwrap();
        assert!(r.after(pending).unwrap().paths.is_empty());
    }
}
