//! The [`Host`] the runner gives [`super::attribute`]: paths resolved on this machine, and
//! whether this user could write them outside the sandbox (`access(2)`, which also says
//! `EROFS` for a file system that is read-only for everyone).

use std::path::{Component, Path, PathBuf};

use super::Host;

/// This machine, as the user sayso runs as.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealHost;

impl Host for RealHost {
    fn resolve(&self, path: &Path) -> PathBuf {
        let lexical = normalized(path);
        // The longest existing prefix, with its symlinks resolved; the rest as written.
        let mut existing = lexical.as_path();
        let mut rest = Vec::new();
        loop {
            if let Ok(real) = std::fs::canonicalize(existing) {
                let mut out = real;
                out.extend(rest.iter().rev());
                return out;
            }
            match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    rest.push(name.to_owned());
                    existing = parent;
                }
                _ => return lexical,
            }
        }
    }

    fn writable(&self, path: &Path) -> bool {
        if path.symlink_metadata().is_ok() {
            return access(path, false);
        }
        // A new file: its nearest existing directory must let it be created.
        path.ancestors()
            .skip(1)
            .find(|a| a.symlink_metadata().is_ok())
            .is_some_and(|dir| dir.is_dir() && access(dir, true))
    }
}

/// `path` with `.` and `..` applied as text (a resolved prefix comes after).
pub(super) fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// This user may write `path` (`dir`: create entries in the directory `path`).
#[cfg(unix)]
fn access(path: &Path, dir: bool) -> bool {
    let mode = if dir {
        libc::W_OK | libc::X_OK
    } else {
        libc::W_OK
    };
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a NUL-terminated path and an integer mode; access only reads them.
    unsafe { libc::access(c.as_ptr(), mode) == 0 }
}

#[cfg(not(unix))]
fn access(path: &Path, _dir: bool) -> bool {
    path.metadata().is_ok_and(|m| !m.permissions().readonly())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_the_existing_part_and_keeps_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        std::fs::create_dir(real.join("a")).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(real.join("a"), real.join("link")).unwrap();
        let host = RealHost;
        assert_eq!(
            host.resolve(&real.join("a/../a/./new/file")),
            real.join("a/new/file")
        );
        #[cfg(unix)]
        assert_eq!(host.resolve(&real.join("link/x")), real.join("a/x"));
        assert!(host.writable(&real.join("a/new-file")));
        assert!(host.writable(&real.join("a/missing/deeper/file")));
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_directory_is_not_writable_unless_root() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ro = dir.path().join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        // SAFETY: geteuid has no arguments and cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        assert_eq!(RealHost.writable(&ro.join("f")), root);
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
