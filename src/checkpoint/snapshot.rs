//! A project snapshot: every file git would see — tracked and untracked-but-not-ignored —
//! found by the `ignore` crate's walker with the gitignore rules (`.gitignore`, the parents',
//! `.git/info/exclude`, the global excludes file), without running git at all: nothing the
//! project's git config, hooks or attributes say can run. `.git` itself is left out; symbolic
//! links are recorded as links, never followed.
//!
//! A [`StatCache`] (length, mtime, ctime, inode, mode) lets an unchanged tree re-snapshot
//! without reading its files. As git does with a racily clean index, an entry whose mtime is
//! not safely older than when it was cached is read again.
//!
//! Snapshots are stored as trees, one object per directory (like git's), so a changed file costs
//! the objects of its directory and their parents, not a copy of the whole listing.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::image::{Budget, Image, capture};
use super::object::ObjectId;
use super::store::Store;

/// Path (relative, `/`-separated) → image.
pub type Files = BTreeMap<String, Image>;

/// An entry younger than this when it was cached is not trusted (coarse file system clocks).
const RACY_NS: i128 = 2_000_000_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    len: u64,
    mtime_ns: i128,
    ctime_ns: i128,
    ino: u64,
    mode: u32,
}

impl Stat {
    fn of(m: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Stat {
                len: m.len(),
                mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
                ctime_ns: m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
                ino: m.ino(),
                mode: m.mode(),
            }
        }
        #[cfg(not(unix))]
        {
            let mtime_ns = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128);
            Stat {
                len: m.len(),
                mtime_ns,
                ctime_ns: mtime_ns,
                ino: 0,
                mode: super::image::mode_of(m),
            }
        }
    }
}

struct Cached {
    stat: Stat,
    image: Image,
    taken_ns: i128,
}

/// What the last snapshots saw, to skip reading files that did not change.
#[derive(Default)]
pub struct StatCache {
    entries: HashMap<String, Cached>,
}

fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// The walker over what git would see under `root`, `exclude` (sayso's own directories, when
/// the project holds them) left out. Parallel: the walk is `readdir` and an `lstat` per file,
/// which the threads overlap (`git status` does the same with its preloaded index).
fn walker(root: &Path, exclude: &[PathBuf]) -> ignore::WalkParallel {
    let exclude = exclude.to_vec();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    ignore::WalkBuilder::new(root)
        .hidden(false)
        .ignore(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .threads(threads)
        .filter_entry(move |e| e.file_name() != ".git" && !exclude.iter().any(|x| x == e.path()))
        .build_parallel()
}

/// One file the walk found: its path relative to the root (`/`-separated), where it is, and
/// what `lstat` said.
struct Found {
    rel: String,
    path: PathBuf,
    stat: Stat,
}

/// Every file (and link) under `root` that git would see, with its `lstat`, sorted by path.
fn list(root: &Path, exclude: &[PathBuf]) -> Vec<Found> {
    let found = std::sync::Mutex::new(Vec::new());
    walker(root, exclude).run(|| {
        let found = &found;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return ignore::WalkState::Continue;
            };
            if entry.depth() == 0 || entry.file_type().is_some_and(|t| t.is_dir()) {
                return ignore::WalkState::Continue;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                return ignore::WalkState::Continue;
            };
            // A name that is not UTF-8 cannot be recorded: such files are not covered.
            let Some(rel) = rel
                .to_str()
                .map(|s| s.replace(std::path::MAIN_SEPARATOR, "/"))
            else {
                return ignore::WalkState::Continue;
            };
            let Ok(meta) = entry.path().symlink_metadata() else {
                return ignore::WalkState::Continue;
            };
            let one = Found {
                rel,
                stat: Stat::of(&meta),
                path: entry.into_path(),
            };
            if let Ok(mut all) = found.lock() {
                all.push(one);
            }
            ignore::WalkState::Continue
        })
    });
    let mut all = found.into_inner().unwrap_or_else(|e| e.into_inner());
    all.sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
    all
}

/// The files under `root` now, their content stored as `budget` allows.
pub fn take(
    root: &Path,
    exclude: &[PathBuf],
    store: &Store,
    budget: &mut Budget,
    cache: &mut StatCache,
) -> io::Result<Files> {
    let start = now_ns();
    let mut files = Files::new();
    let mut seen = HashMap::with_capacity(cache.entries.len());
    for Found { rel, path, stat } in list(root, exclude) {
        let image = match cache.entries.remove(&rel) {
            Some(c)
                if c.stat == stat
                    && c.stat.mtime_ns < c.taken_ns - RACY_NS
                    && c.image.restorable() =>
            {
                c.image
            }
            _ => match capture(&path, store, budget) {
                Ok(i) => i,
                // Gone between the listing and the read: not there.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            },
        };
        seen.insert(
            rel.clone(),
            Cached {
                stat,
                image: image.clone(),
                taken_ns: start,
            },
        );
        files.insert(rel, image);
    }
    cache.entries = seen;
    Ok(files)
}

/// One directory's listing as stored.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Tree {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    files: BTreeMap<String, Image>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    dirs: BTreeMap<String, ObjectId>,
}

fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// Stores `files` as trees; the root tree's id.
pub fn store_tree(files: &Files, store: &Store) -> io::Result<ObjectId> {
    let mut trees: BTreeMap<String, Tree> = BTreeMap::new();
    trees.insert(String::new(), Tree::default());
    for (path, image) in files {
        let (dir, name) = split(path);
        trees
            .entry(dir.to_owned())
            .or_default()
            .files
            .insert(name.to_owned(), image.clone());
        let mut d = dir;
        while !d.is_empty() {
            let (parent, _) = split(d);
            trees.entry(parent.to_owned()).or_default();
            d = parent;
        }
    }
    let mut dirs: Vec<String> = trees.keys().cloned().collect();
    // Deepest first, so each parent is stored after its children.
    dirs.sort_by_key(|d| {
        std::cmp::Reverse(if d.is_empty() {
            0
        } else {
            d.matches('/').count() + 1
        })
    });
    let mut root = None;
    for d in dirs {
        let Some(tree) = trees.remove(&d) else {
            continue;
        };
        let bytes = serde_json::to_vec(&tree).map_err(io::Error::other)?;
        let (id, _) = store.put(&bytes)?;
        if d.is_empty() {
            root = Some(id);
        } else {
            let (parent, name) = split(&d);
            trees
                .entry(parent.to_owned())
                .or_default()
                .dirs
                .insert(name.to_owned(), id);
        }
    }
    root.ok_or_else(|| io::Error::other("no root tree"))
}

/// The files of a stored tree, and every tree object it took (for the collector).
pub fn load_tree(id: &ObjectId, store: &Store) -> io::Result<(Files, Vec<ObjectId>)> {
    let mut files = Files::new();
    let mut trees = Vec::new();
    let mut todo = vec![(String::new(), id.clone())];
    while let Some((prefix, id)) = todo.pop() {
        let tree: Tree = serde_json::from_slice(&store.get(&id)?)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
        trees.push(id);
        for (name, image) in tree.files {
            files.insert(format!("{prefix}{name}"), image);
        }
        for (name, sub) in tree.dirs {
            todo.push((format!("{prefix}{name}/"), sub));
        }
    }
    Ok((files, trees))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn snapshots_see_what_git_sees_and_trees_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cp")).unwrap();
        let p = dir.path().join("p");
        fs::create_dir_all(p.join(".git/hooks")).unwrap();
        fs::create_dir_all(p.join("src/deep")).unwrap();
        fs::create_dir_all(p.join("target")).unwrap();
        fs::write(p.join(".git/config"), "x").unwrap();
        fs::write(p.join(".gitignore"), "target/\n*.log\n").unwrap();
        fs::write(p.join("src/a.rs"), "a").unwrap();
        fs::write(p.join("src/deep/b.rs"), "b").unwrap();
        fs::write(p.join("target/out"), "o").unwrap();
        fs::write(p.join("x.log"), "l").unwrap();
        fs::write(p.join(".env"), "hidden but not ignored").unwrap();
        let mut b = Budget::new(1 << 20, 1 << 30);
        let mut cache = StatCache::default();
        let files = take(&p, &[], &store, &mut b, &mut cache).unwrap();
        assert_eq!(
            files.keys().map(String::as_str).collect::<Vec<_>>(),
            vec![".env", ".gitignore", "src/a.rs", "src/deep/b.rs"]
        );
        let id = store_tree(&files, &store).unwrap();
        let (back, trees) = load_tree(&id, &store).unwrap();
        assert_eq!(back, files);
        assert_eq!(trees.len(), 3, "root, src, src/deep");
        // The same files: the same tree, nothing new stored.
        let before = store.ids().unwrap().len();
        assert_eq!(store_tree(&files, &store).unwrap(), id);
        assert_eq!(store.ids().unwrap().len(), before);
    }

    #[test]
    fn the_stat_cache_notices_a_change_of_the_same_length_in_the_same_second() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cp")).unwrap();
        let p = dir.path().join("p");
        fs::create_dir(&p).unwrap();
        fs::write(p.join("f"), "aaaa").unwrap();
        let mut b = Budget::new(1 << 20, 1 << 30);
        let mut cache = StatCache::default();
        let one = take(&p, &[], &store, &mut b, &mut cache).unwrap();
        fs::write(p.join("f"), "bbbb").unwrap();
        let two = take(&p, &[], &store, &mut b, &mut cache).unwrap();
        assert_ne!(one["f"], two["f"], "a racily clean entry is read again");
    }
}
