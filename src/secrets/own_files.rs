//! Files sayso reads on its own account (instruction files, `.git/HEAD`, the memory tool's
//! files, config files): each must resolve to a regular file outside `/proc`, `/sys` and `/dev`
//! (and outside any procfs or sysfs mounted elsewhere), and, where the caller says so, inside
//! given directories. A symlink `AGENTS.md -> /proc/self/environ` or to a file outside the project
//! is refused with a reason, never read.
//!
//! The resolved path is opened without following a final symlink and checked again on the open
//! file (its type, and on Linux its file system), so what is read is what was checked.
//!
//! Where the file must lie inside given directories, one with more than one hard link is refused:
//! `AGENTS.md` hard-linked to `~/.ssh/id_ed25519` resolves inside the project.
//!
//! A file larger than [`MAX_OWN_FILE`] is refused, never read: an `AGENTS.md` of many gigabytes
//! (a sparse file from an unpacked archive costs nothing on disk) would otherwise be read whole
//! into memory at start, to keep 16 KiB of it.

use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// It does not exist (nor does what a symlink points to): usually no note is due.
    Missing,
    /// It exists and may not be read: the reason, for a note (never the content).
    Refused(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Missing => f.write_str("it does not exist"),
            Refused::Refused(why) => f.write_str(why),
        }
    }
}

/// The largest file sayso reads on its own account, in bytes.
pub const MAX_OWN_FILE: u64 = 4 * 1024 * 1024;

/// The system trees no file of sayso's own is ever read from.
const SYSTEM_TREES: [&str; 3] = ["/proc", "/sys", "/dev"];

/// `path` resolved, if sayso may read it: a regular file not under `/proc`, `/sys` or `/dev`, and
/// inside one of `within` (resolved too) unless `within` is empty.
pub fn check(path: &Path, within: &[&Path]) -> Result<PathBuf, Refused> {
    let resolved = match std::fs::canonicalize(path) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Refused::Missing),
        Err(e) => return Err(Refused::Refused(format!("it cannot be resolved: {e}"))),
    };
    let shown = if resolved == path {
        String::new()
    } else {
        format!(" (it resolves to {})", resolved.display())
    };
    if let Some(tree) = SYSTEM_TREES.iter().find(|t| resolved.starts_with(t)) {
        return Err(Refused::Refused(format!(
            "it is under {tree}{shown}: system and process data are never read"
        )));
    }
    let meta = std::fs::metadata(&resolved)
        .map_err(|e| Refused::Refused(format!("it cannot be read{shown}: {e}")))?;
    if !meta.is_file() {
        return Err(Refused::Refused(format!("it is not a regular file{shown}")));
    }
    if !within.is_empty() {
        let inside = within
            .iter()
            .any(|dir| std::fs::canonicalize(dir).is_ok_and(|d| resolved.starts_with(d)));
        if !inside {
            let dirs: Vec<String> = within.iter().map(|d| d.display().to_string()).collect();
            return Err(Refused::Refused(format!(
                "it is outside {}{shown}",
                dirs.join(" and ")
            )));
        }
    }
    Ok(resolved)
}

/// The bytes of `path`, if [`check`] allows it (checked again on the open file).
pub fn read(path: &Path, within: &[&Path]) -> Result<Vec<u8>, Refused> {
    read_at_most(path, within, MAX_OWN_FILE)
}

/// [`read`] with another size limit than [`MAX_OWN_FILE`].
pub fn read_at_most(path: &Path, within: &[&Path], limit: u64) -> Result<Vec<u8>, Refused> {
    let resolved = check(path, within)?;
    let file = open_no_follow(&resolved)
        .map_err(|e| Refused::Refused(format!("it cannot be read: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| Refused::Refused(format!("it cannot be read: {e}")))?;
    if !meta.is_file() {
        return Err(Refused::Refused("it is not a regular file".into()));
    }
    // A path says nothing of where another hard link to the same file is: where the file must
    // lie inside given directories, one with more than one name is not read.
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if !within.is_empty() && meta.nlink() > 1 {
            return Err(Refused::Refused(format!(
                "it has {} hard links, and another name may be outside {}",
                meta.nlink(),
                within
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(" and ")
            )));
        }
    }
    if let Some(fs) = system_file_system(&file) {
        return Err(Refused::Refused(format!(
            "it is on a {fs} file system: system and process data are never read"
        )));
    }
    let too_large = |n: u64| {
        Refused::Refused(format!(
            "it is {n} bytes, more than the {limit} sayso reads of a file of its own"
        ))
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::new();
    // A file that grows while it is read is cut one byte past the limit, and refused.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Refused::Refused(format!("it cannot be read: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read`] as text (invalid UTF-8 replaced).
pub fn read_to_string(path: &Path, within: &[&Path]) -> Result<String, Refused> {
    read(path, within).map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    options.open(path)
}

/// `proc` or `sysfs` when the open file lives on one (wherever it is mounted).
#[cfg(target_os = "linux")]
fn system_file_system(file: &std::fs::File) -> Option<&'static str> {
    use std::os::fd::AsRawFd;
    const PROC_SUPER_MAGIC: i64 = 0x9fa0;
    const SYSFS_MAGIC: i64 = 0x6265_6572;
    let mut st = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `st` is a valid out-pointer for one statfs; the fd is open for the call.
    let rc = unsafe { libc::fstatfs(file.as_raw_fd(), st.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: fstatfs succeeded, so it filled `st`.
    // `f_type`'s type differs between architectures.
    #[allow(clippy::unnecessary_cast)]
    let kind = unsafe { st.assume_init() }.f_type as i64;
    match kind {
        PROC_SUPER_MAGIC => Some("proc"),
        SYSFS_MAGIC => Some("sysfs"),
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
fn system_file_system(_file: &std::fs::File) -> Option<&'static str> {
    None
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_regular_file_inside_is_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("AGENTS.md"), "hi").unwrap();
        let got = read_to_string(&dir.path().join("AGENTS.md"), &[dir.path()]);
        assert_eq!(got, Ok("hi".to_owned()));
        // A symlink to a file inside is fine.
        symlink("AGENTS.md", dir.path().join("link.md")).unwrap();
        assert!(read(&dir.path().join("link.md"), &[dir.path()]).is_ok());
    }

    #[test]
    fn system_trees_are_refused_through_symlinks_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        for (name, target) in [
            ("env", "/proc/self/environ"),
            ("sys", "/sys/kernel"),
            ("tty", "/dev/null"),
        ] {
            let link = dir.path().join(name);
            symlink(target, &link).unwrap();
            match read(&link, &[]) {
                Err(Refused::Refused(why)) => {
                    assert!(
                        why.contains("never read") || why.contains("regular"),
                        "{why}"
                    );
                }
                other => panic!("{target}: {other:?}"),
            }
        }
        let Err(Refused::Refused(why)) = read(Path::new("/proc/self/environ"), &[]) else {
            panic!("read /proc/self/environ");
        };
        assert!(why.contains("under /proc"), "{why}");
    }

    /// A hard link inside the project to a file outside it is the same file: refused.
    #[test]
    fn a_hard_link_is_refused_where_the_file_must_be_inside() {
        let outside = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir_in(outside.path()).unwrap();
        std::fs::write(outside.path().join("key"), "PRIVATE KEY").unwrap();
        std::fs::hard_link(outside.path().join("key"), project.path().join("AGENTS.md")).unwrap();
        let got = read(&project.path().join("AGENTS.md"), &[project.path()]);
        assert!(
            matches!(&got, Err(Refused::Refused(w)) if w.contains("hard links")),
            "{got:?}"
        );
        // Without a directory constraint (a config file) it is read.
        assert!(read(&project.path().join("AGENTS.md"), &[]).is_ok());
    }

    /// A sparse file of a terabyte is refused at once, never read into memory.
    #[test]
    fn a_huge_file_is_refused_without_being_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("AGENTS.md");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(1 << 40).unwrap();
        let started = std::time::Instant::now();
        let got = read(&path, &[dir.path()]);
        assert!(
            matches!(&got, Err(Refused::Refused(w)) if w.contains("more than")),
            "{got:?}"
        );
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        file.set_len(MAX_OWN_FILE).unwrap();
        assert_eq!(read(&path, &[]).map(|b| b.len() as u64), Ok(MAX_OWN_FILE));
    }

    #[test]
    fn files_outside_the_given_directories_and_non_files_are_refused() {
        let outside = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.txt"), "x").unwrap();
        symlink(
            outside.path().join("secret.txt"),
            project.path().join("AGENTS.md"),
        )
        .unwrap();
        let got = read(&project.path().join("AGENTS.md"), &[project.path()]);
        assert!(
            matches!(&got, Err(Refused::Refused(w)) if w.contains("outside")),
            "{got:?}"
        );
        // Without a directory constraint it is a plain file.
        assert!(read(&project.path().join("AGENTS.md"), &[]).is_ok());
        std::fs::create_dir(project.path().join("dir")).unwrap();
        assert!(matches!(
            read(&project.path().join("dir"), &[]),
            Err(Refused::Refused(_))
        ));
        assert_eq!(
            read(&project.path().join("missing"), &[]),
            Err(Refused::Missing)
        );
        symlink("nowhere", project.path().join("dangling")).unwrap();
        assert_eq!(
            read(&project.path().join("dangling"), &[]),
            Err(Refused::Missing)
        );
    }
}
