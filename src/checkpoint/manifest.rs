//! A checkpoint's manifest (a store object, JSON): what one tool call changed — each path's
//! before- and after-image — or, while the call is pending, what undo would need if it never
//! finished: the before-images of the paths it names, or the project's tree before it
//! ([`super::snapshot`]).
//!
//! [`changes_between`] compares two snapshots (pure); [`net`] folds a sequence of changes into
//! one before → after per path (pure), which is what an undo of several calls or turns applies.

use std::collections::BTreeMap;
use std::io;

use serde::{Deserialize, Serialize};

use super::image::Image;
use super::object::ObjectId;
use super::store::Store;

/// One path changed by one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub path: String,
    pub before: Image,
    pub after: Image,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// What the call changed (a complete checkpoint).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<Change>,
    /// Pending, a file tool's call: the paths it names, as they were before it ran.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub before: BTreeMap<String, Image>,
    /// Pending, a command's call: the project's tree before it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_tree: Option<ObjectId>,
}

impl Manifest {
    pub fn store(&self, store: &Store) -> io::Result<ObjectId> {
        let bytes = serde_json::to_vec(self).map_err(io::Error::other)?;
        Ok(store.put(&bytes)?.0)
    }

    pub fn load(id: &ObjectId, store: &Store) -> io::Result<Self> {
        serde_json::from_slice(&store.get(id)?)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }

    /// Every object the manifest names (trees aside: [`super::gc`] walks them).
    pub fn objects(&self) -> impl Iterator<Item = &ObjectId> {
        self.changes
            .iter()
            .flat_map(|c| [c.before.hash(), c.after.hash()])
            .chain(self.before.values().map(Image::hash))
            .flatten()
    }
}

/// What differs between two snapshots (paths in either), in path order.
pub fn changes_between(
    before: &BTreeMap<String, Image>,
    after: &BTreeMap<String, Image>,
) -> Vec<Change> {
    let mut out = Vec::new();
    let missing = Image::Missing;
    let mut paths: Vec<&String> = before.keys().chain(after.keys()).collect();
    paths.sort();
    paths.dedup();
    for p in paths {
        let b = before.get(p).unwrap_or(&missing);
        let a = after.get(p).unwrap_or(&missing);
        if !b.same(a) {
            out.push(Change {
                path: p.clone(),
                before: b.clone(),
                after: a.clone(),
            });
        }
    }
    out
}

/// Changes in the order they happened, folded: each path's first before and last after;
/// a path that ended as it began is left out.
pub fn net<'a>(changes: impl IntoIterator<Item = &'a Change>) -> Vec<Change> {
    let mut by_path: BTreeMap<&str, Change> = BTreeMap::new();
    for c in changes {
        by_path
            .entry(&c.path)
            .and_modify(|n| n.after = c.after.clone())
            .or_insert_with(|| c.clone());
    }
    by_path
        .into_values()
        .filter(|c| !c.before.same(&c.after))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(s: &str) -> Image {
        Image::File {
            hash: ObjectId::of(s.as_bytes()),
            mode: 0o644,
            len: s.len() as u64,
            hash_only: false,
        }
    }

    #[test]
    fn changes_between_snapshots_and_their_net() {
        let before = BTreeMap::from([("a".to_string(), file("1")), ("b".to_string(), file("2"))]);
        let after = BTreeMap::from([("a".to_string(), file("1")), ("c".to_string(), file("3"))]);
        let ch = changes_between(&before, &after);
        assert_eq!(
            ch.iter()
                .map(|c| (c.path.as_str(), &c.before, &c.after))
                .collect::<Vec<_>>(),
            vec![
                ("b", &file("2"), &Image::Missing),
                ("c", &Image::Missing, &file("3"))
            ]
        );
        let back = changes_between(&after, &before);
        let all: Vec<Change> = ch.iter().chain(&back).cloned().collect();
        assert!(
            net(&all).is_empty(),
            "changed and changed back is no change"
        );
        let edit = |p: &str, b, a| Change {
            path: p.into(),
            before: file(b),
            after: file(a),
        };
        assert_eq!(
            net(&[edit("x", "1", "2"), edit("x", "2", "3")]),
            vec![edit("x", "1", "3")]
        );
    }
}
