//! Deleting what no session needs: given the manifests the remaining sessions' checkpoint
//! records name, every object they reach (contents, trees) is live; the rest goes. A forked
//! session names its parent's objects, so they stay while either does.
//!
//! An object younger than [`GRACE`] is never deleted: a running chat writes its objects
//! before the record that names them, and a collection must not slip in between. A manifest
//! that cannot be read keeps what it can of its objects (nothing is deleted on a guess about
//! a damaged file: the objects it may name are unknown, so only unreadable manifests'
//! neighbours that are provably unreferenced go).

use std::collections::BTreeSet;
use std::io;
use std::time::{Duration, SystemTime};

use super::manifest::Manifest;
use super::object::ObjectId;
use super::snapshot;
use super::store::Store;

/// Objects younger than this are kept whatever the records say.
pub const GRACE: Duration = Duration::from_secs(3600);

/// Every object reachable from `manifests`.
pub fn live(manifests: impl IntoIterator<Item = ObjectId>, store: &Store) -> BTreeSet<ObjectId> {
    let mut out = BTreeSet::new();
    for id in manifests {
        if !out.insert(id.clone()) {
            continue;
        }
        let Ok(m) = Manifest::load(&id, store) else {
            continue;
        };
        out.extend(m.objects().cloned());
        if let Some(tree) = &m.before_tree
            && let Ok((files, trees)) = snapshot::load_tree(tree, store)
        {
            out.extend(trees);
            out.extend(files.values().filter_map(|i| i.hash().cloned()));
        }
    }
    out
}

/// What a collection removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Collected {
    pub objects: usize,
    pub bytes: u64,
}

/// Deletes every object not in `live` and older than `grace`.
pub fn collect(store: &Store, live: &BTreeSet<ObjectId>, grace: Duration) -> io::Result<Collected> {
    let now = SystemTime::now();
    let mut out = Collected::default();
    for id in store.ids()? {
        if live.contains(&id) {
            continue;
        }
        let young = store
            .modified(&id)
            .and_then(|t| now.duration_since(t).ok())
            .is_none_or(|age| age < grace);
        if young {
            continue;
        }
        out.bytes += store.size_of(&id);
        store.remove(&id)?;
        out.objects += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::image::Image;
    use crate::checkpoint::manifest::Change;

    #[test]
    fn what_a_remaining_manifest_names_stays_and_the_rest_goes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let file = |s: &str| {
            let (hash, _) = store.put(s.as_bytes()).unwrap();
            Image::File {
                hash,
                mode: 0o644,
                len: s.len() as u64,
                hash_only: false,
            }
        };
        let shared = file("shared");
        let kept = Manifest {
            changes: vec![Change {
                path: "a".into(),
                before: shared.clone(),
                after: file("mine"),
            }],
            ..Manifest::default()
        }
        .store(&store)
        .unwrap();
        let tree = snapshot::store_tree(
            &[("d/x".to_string(), file("in a tree"))]
                .into_iter()
                .collect(),
            &store,
        )
        .unwrap();
        let pending = Manifest {
            before_tree: Some(tree),
            ..Manifest::default()
        }
        .store(&store)
        .unwrap();
        let gone = Manifest {
            changes: vec![Change {
                path: "a".into(),
                before: shared,
                after: file("theirs"),
            }],
            ..Manifest::default()
        }
        .store(&store)
        .unwrap();
        let live = live([kept.clone(), pending.clone()], &store);
        assert!(!live.contains(&gone));
        // Everything is young: nothing goes within the grace period.
        assert_eq!(collect(&store, &live, GRACE).unwrap().objects, 0);
        let c = collect(&store, &live, Duration::ZERO).unwrap();
        assert_eq!(c.objects, 2, "the other manifest and its own content");
        assert!(store.contains(&kept) && store.contains(&pending));
        for id in &live {
            assert!(store.contains(id), "{id}");
        }
        assert_eq!(store.get(&ObjectId::of(b"shared")).unwrap(), b"shared");
    }
}
