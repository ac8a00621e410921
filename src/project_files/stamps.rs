//! Whether files changed since they were read, from their metadata alone: a [`Stamps`] is what
//! `stat` says of each path (the path itself, and what a symlink there points to: device,
//! inode, size, modification and change times, type), so comparing two costs a few system
//! calls and no read. A file written, replaced, renamed over, removed or created, and a
//! symlink pointed elsewhere, all change it (the change time moves on every write and cannot be
//! set back by a program). A directory's own stamp changes when an entry is added, removed or
//! renamed; [`tree`] lists a directory's entries to stamp them too.
//!
//! Not here: what changed means (the readers compare what they read, so a rewrite with the
//! same text is no change to them).

use std::path::{Path, PathBuf};

/// What `stat` said of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Meta {
    dev: u64,
    ino: u64,
    len: u64,
    modified: i128,
    changed: i128,
    dir: bool,
}

impl Meta {
    fn of(m: &std::fs::Metadata) -> Self {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Meta {
                dev: m.dev(),
                ino: m.ino(),
                len: m.len(),
                modified: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
                changed: i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
                dir: m.is_dir(),
            }
        }
        #[cfg(not(unix))]
        {
            let nanos = |t: std::io::Result<std::time::SystemTime>| {
                t.ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos() as i128)
            };
            Meta {
                dev: 0,
                ino: 0,
                len: m.len(),
                modified: nanos(m.modified()),
                changed: nanos(m.created()),
                dir: m.is_dir(),
            }
        }
    }
}

/// One path's stamp: the path itself (a symlink's own), and what it resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    own: Meta,
    target: Option<Meta>,
}

/// The stamps of some paths, in the order given; equal when nothing of them changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamps(Vec<(PathBuf, Option<Stamp>)>);

impl Stamps {
    /// Stamps each of `paths` now (a missing one as missing).
    pub fn of(paths: impl IntoIterator<Item = PathBuf>) -> Self {
        Stamps(
            paths
                .into_iter()
                .map(|p| {
                    let stamp = std::fs::symlink_metadata(&p).ok().map(|own| Stamp {
                        own: Meta::of(&own),
                        target: std::fs::metadata(&p).ok().map(|m| Meta::of(&m)),
                    });
                    (p, stamp)
                })
                .collect(),
        )
    }
}

/// `dir` and the entries of it, sorted (none when it cannot be listed).
pub fn tree(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    entries.insert(0, dir.to_path_buf());
    entries
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_write_a_new_file_a_removal_and_a_repointed_link_each_change_the_stamps() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("AGENTS.md");
        let stamp = || Stamps::of(tree(d.path()).into_iter().chain([file.clone()]));
        let before = stamp();
        assert_eq!(before, stamp(), "nothing changed");
        std::fs::write(&file, "a").unwrap();
        let written = stamp();
        assert_ne!(before, written, "created");
        // The same size, written again: the change time moves.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&file, "b").unwrap();
        let rewritten = stamp();
        assert_ne!(written, rewritten, "rewritten");
        std::fs::write(d.path().join("x.md"), "x").unwrap();
        let added = stamp();
        assert_ne!(rewritten, added, "an entry added");
        std::fs::write(d.path().join("one"), "1").unwrap();
        std::fs::write(d.path().join("two"), "2").unwrap();
        std::os::unix::fs::symlink("one", d.path().join("link")).unwrap();
        let linked = stamp();
        std::fs::remove_file(d.path().join("link")).unwrap();
        std::os::unix::fs::symlink("two", d.path().join("link")).unwrap();
        assert_ne!(linked, stamp(), "the link points elsewhere");
        std::fs::remove_file(&file).unwrap();
        assert_ne!(linked, stamp(), "removed");
    }
}
