//! Applying an [`UndoPlan`]: each restore written inside the project only — a path with `..`,
//! an absolute path or a symbolic link on the way is refused, never followed (a link at the
//! path itself is replaced, not written through). Content is written to a temporary file in
//! the same directory with its mode, then renamed over the path.
//!
//! Just before each write the path's image is taken again: if it is no longer what the plan
//! saw, it is a conflict now and is left alone. With [`ConflictChoice::Stop`] a plan with
//! conflicts writes nothing.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use super::image::{Budget, Image, capture};
use super::plan::UndoPlan;
use super::store::Store;

/// What to do when some paths are conflicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConflictChoice {
    /// Write the other paths; leave the conflicts as they are.
    ApplyRest,
    /// Write nothing.
    Stop,
}

/// What an apply did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    pub restored: Vec<String>,
    /// Left alone: conflicts (the plan's, and those found while writing).
    pub conflicts: Vec<String>,
    /// Could not be written, with why.
    pub failed: Vec<(String, String)>,
}

/// `root/rel` when `rel` is a plain relative path and no directory on the way is a symbolic
/// link; missing directories are created (`create`).
pub fn confined(root: &Path, rel: &str, create: bool) -> io::Result<PathBuf> {
    let refuse = |why: String| io::Error::new(io::ErrorKind::PermissionDenied, why);
    let rel_path = Path::new(rel);
    let mut parts = Vec::new();
    for c in rel_path.components() {
        match c {
            Component::Normal(p) => parts.push(p),
            _ => return Err(refuse(format!("`{rel}` is not a path inside the project"))),
        }
    }
    let Some((_, dirs)) = parts.split_last() else {
        return Err(refuse("an empty path".into()));
    };
    let mut at = root.to_path_buf();
    for d in dirs {
        at.push(d);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refuse(format!(
                    "`{}` is a symbolic link: not followed",
                    at.display()
                )));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(refuse(format!("`{}` is not a directory", at.display()))),
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => fs::create_dir(&at)?,
            Err(e) => return Err(e),
        }
    }
    Ok(root.join(rel_path))
}

fn write_image(path: &Path, target: &Image, store: &Store) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    match target {
        Image::Missing => match fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => Err(io::Error::other("a directory is there now")),
            Ok(_) => fs::remove_file(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        },
        Image::File { hash, mode, .. } => {
            let bytes = store.get(hash)?;
            let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
            tmp.write_all(&bytes)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                tmp.as_file()
                    .set_permissions(fs::Permissions::from_mode(*mode))?;
            }
            tmp.as_file().sync_all()?;
            tmp.persist(path).map_err(|e| e.error)?;
            Ok(())
        }
        Image::Symlink { target } => {
            #[cfg(unix)]
            {
                let tmp = tempfile::Builder::new()
                    .prefix(".sayso-undo")
                    .make_in(dir, |p| std::os::unix::fs::symlink(target, p))?;
                let tmp_path = tmp.path().to_path_buf();
                // Keep the link; the guard would remove it on drop.
                std::mem::forget(tmp);
                fs::rename(&tmp_path, path)
            }
            #[cfg(not(unix))]
            {
                let _ = target;
                Err(io::Error::other(
                    "symbolic links are not restored on this system",
                ))
            }
        }
        Image::Other => Err(io::Error::other("not a file undo can write")),
    }
}

/// Applies `plan` under `root`.
pub fn apply(plan: &UndoPlan, choice: ConflictChoice, root: &Path, store: &Store) -> Applied {
    let mut out = Applied {
        conflicts: plan.conflicts.iter().map(|c| c.path.clone()).collect(),
        ..Applied::default()
    };
    if choice == ConflictChoice::Stop && !plan.conflicts.is_empty() {
        return out;
    }
    for r in &plan.restores {
        let path = match confined(root, &r.path, !matches!(r.target, Image::Missing)) {
            Ok(p) => p,
            Err(e) => {
                out.failed.push((r.path.clone(), e.to_string()));
                continue;
            }
        };
        // Looking only: nothing is stored for the check.
        match capture(&path, store, &mut Budget::new(0, 0)) {
            Ok(now) if now.same(&r.current) && now != Image::Other => {}
            Ok(_) => {
                out.conflicts.push(r.path.clone());
                continue;
            }
            Err(e) => {
                out.failed.push((r.path.clone(), e.to_string()));
                continue;
            }
        }
        match write_image(&path, &r.target, store) {
            Ok(()) => out.restored.push(r.path.clone()),
            Err(e) => out.failed.push((r.path.clone(), e.to_string())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_restore_replaces_a_link_at_the_path_and_never_writes_through_it() {
        use crate::checkpoint::plan::Restore;
        use crate::checkpoint::record::UndoAction;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir(&root).unwrap();
        let outside = dir.path().join("outside.txt");
        fs::write(&outside, "outside\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("f")).unwrap();
        let store = Store::open(&dir.path().join("cp")).unwrap();
        let (hash, _) = store.put(b"restored\n").unwrap();
        let current = capture(&root.join("f"), &store, &mut Budget::new(0, 0)).unwrap();
        let target = Image::File {
            hash,
            mode: 0o600,
            len: 9,
            hash_only: false,
        };
        let plan = UndoPlan {
            action: UndoAction::Undo,
            turns: vec![1],
            restores: vec![Restore {
                path: "f".into(),
                current,
                target,
            }],
            conflicts: vec![],
            unrecoverable: vec![],
        };
        let done = apply(&plan, ConflictChoice::Stop, &root, &store);
        assert_eq!(done.restored, vec!["f".to_string()], "{done:?}");
        assert_eq!(fs::read_to_string(&outside).unwrap(), "outside\n");
        assert!(
            !fs::symlink_metadata(root.join("f"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(root.join("f")).unwrap(), "restored\n");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            fs::metadata(root.join("f")).unwrap().permissions().mode() & 0o777,
            0o600
        );
        // Through a linked directory: refused.
        std::os::unix::fs::symlink(dir.path(), root.join("d")).unwrap();
        let via = UndoPlan {
            restores: vec![Restore {
                path: "d/outside.txt".into(),
                current: Image::Missing,
                target: plan.restores[0].target.clone(),
            }],
            ..plan
        };
        let done = apply(&via, ConflictChoice::ApplyRest, &root, &store);
        assert!(
            done.restored.is_empty() && done.failed.len() == 1,
            "{done:?}"
        );
        assert_eq!(fs::read_to_string(&outside).unwrap(), "outside\n");
    }

    #[test]
    fn a_plan_with_conflicts_writes_nothing_when_told_to_stop() {
        use crate::checkpoint::plan::{Conflict, Restore};
        use crate::checkpoint::record::UndoAction;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir(&root).unwrap();
        let store = Store::open(&dir.path().join("cp")).unwrap();
        fs::write(root.join("a"), "a").unwrap();
        let plan = UndoPlan {
            action: UndoAction::Undo,
            turns: vec![1],
            restores: vec![Restore {
                path: "a".into(),
                current: capture(&root.join("a"), &store, &mut Budget::new(0, 0)).unwrap(),
                target: Image::Missing,
            }],
            conflicts: vec![Conflict {
                path: "b".into(),
                expected: Image::Missing,
                current: Image::Other,
                target: Image::Missing,
            }],
            unrecoverable: vec![],
        };
        let stopped = apply(&plan, ConflictChoice::Stop, &root, &store);
        assert!(stopped.restored.is_empty() && root.join("a").exists());
        assert_eq!(stopped.conflicts, vec!["b".to_string()]);
        // Changed between the plan and the write: a conflict now, left alone.
        fs::write(root.join("a"), "changed").unwrap();
        let rest = apply(&plan, ConflictChoice::ApplyRest, &root, &store);
        assert!(rest.restored.is_empty() && root.join("a").exists());
        assert_eq!(rest.conflicts, vec!["b".to_string(), "a".to_string()]);
    }

    #[test]
    fn confined_refuses_escapes_and_links_on_the_way() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        fs::create_dir(&root).unwrap();
        for bad in ["../x", "/etc/passwd", "", "a/../../x"] {
            assert!(confined(&root, bad, true).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path(), root.join("out")).unwrap();
            assert!(confined(&root, "out/x", true).is_err());
        }
        assert_eq!(
            confined(&root, "new/dir/f", true).unwrap(),
            root.join("new/dir/f")
        );
        assert!(root.join("new/dir").is_dir());
    }
}
