//! That bubblewrap worked here, remembered between runs so the TUI's start does not wait for a
//! `bwrap … true` probe (~6 ms and a child process, before the first frame can show which
//! sandbox is on): `$XDG_CACHE_HOME/sayso/bwrap-ok`, one line naming what the probe depended on
//! — the `bwrap` binary (path, device, inode, size, mtime, mode), the user, this boot, and the
//! kernel's user-namespace switches. A probe is skipped only when that line is the same now.
//!
//! Only success is written: a failed probe is probed again next run, so a file can never turn
//! a working sandbox off (at worst, a stale file names a `bwrap` that now fails, and the
//! command then fails inside it, which asks the user like any denial). A file that cannot be
//! read, or a write that fails, is as good as none.
//!
//! Not here: the probe itself or choosing a backend (`bwrap.rs`, `detect.rs`).

use std::path::{Path, PathBuf};

/// The kernel files whose values decide whether unprivileged user namespaces work.
const USERNS_SWITCHES: [&str; 3] = [
    "/proc/sys/kernel/unprivileged_userns_clone",
    "/proc/sys/user/max_user_namespaces",
    "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];
const BOOT_ID: &str = "/proc/sys/kernel/random/boot_id";

/// What a probe's result depends on, as one line: equal lines, same result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp(String);

impl Stamp {
    /// The line for `bwrap` now (`None` when its metadata cannot be read).
    pub fn now(bwrap: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(bwrap).ok()?;
        let file = format!(
            "{} {} {} {} {}.{} {:o}",
            bwrap.display(),
            m.dev(),
            m.ino(),
            m.size(),
            m.mtime(),
            m.mtime_nsec(),
            m.mode()
        );
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc::geteuid() };
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let switches: Vec<String> = USERNS_SWITCHES.iter().map(|p| read(p)).collect();
        Some(Self::of(&file, uid, &read(BOOT_ID), &switches))
    }

    /// The line for these facts (pure: what [`Stamp::now`] reads, passed in).
    pub fn of(file: &str, uid: u32, boot_id: &str, switches: &[String]) -> Self {
        let switches: Vec<&str> = switches.iter().map(|s| s.trim()).collect();
        Self(format!(
            "v1 bwrap={file} uid={uid} boot={} userns={}",
            boot_id.trim(),
            switches.join(",")
        ))
        .single_line()
    }

    fn single_line(self) -> Self {
        Self(self.0.replace(['\n', '\r'], " "))
    }

    /// Whether a file's text says the probe succeeded under this same stamp.
    pub fn matches(&self, text: &str) -> bool {
        text.strip_suffix('\n').unwrap_or(text) == self.0
    }
}

/// The file: `$XDG_CACHE_HOME/sayso/bwrap-ok` (when absolute), else the platform's cache dir's.
pub fn default_file() -> Option<PathBuf> {
    crate::provider::window::default_cache_dir()
        .and_then(|d| d.parent().map(|p| p.join("bwrap-ok")))
}

/// Whether `file` remembers a successful probe under `stamp`.
pub fn remembered(file: &Path, stamp: &Stamp) -> bool {
    std::fs::read_to_string(file).is_ok_and(|t| stamp.matches(&t))
}

/// Remembers a successful probe under `stamp` (written whole, then renamed into place; a
/// failure is only logged).
pub fn remember(file: &Path, stamp: &Stamp) {
    let write = || -> std::io::Result<()> {
        let dir = file.parent().ok_or(std::io::ErrorKind::NotFound)?;
        let mut b = std::fs::DirBuilder::new();
        std::os::unix::fs::DirBuilderExt::mode(b.recursive(true), 0o700);
        b.create(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::io::Write::write_all(&mut tmp, format!("{}\n", stamp.0).as_bytes())?;
        tmp.persist(file).map_err(|e| e.error)?;
        Ok(())
    };
    if let Err(e) = write() {
        tracing::debug!(file = %file.display(), error = %e, "the bubblewrap probe was not remembered");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sw(a: &str) -> Vec<String> {
        vec![a.to_owned(), "63000\n".to_owned(), String::new()]
    }

    #[test]
    fn any_fact_the_probe_depends_on_changes_the_stamp() {
        let base = Stamp::of(
            "/usr/bin/bwrap 1 2 3 4.5 100755",
            1000,
            "boot-a\n",
            &sw("1\n"),
        );
        assert!(base.matches(&format!("{}\n", base.0)));
        assert!(base.matches(&base.0));
        for (name, other) in [
            (
                "another binary",
                Stamp::of("/usr/bin/bwrap 1 9 3 4.5 100755", 1000, "boot-a", &sw("1")),
            ),
            (
                "another user",
                Stamp::of("/usr/bin/bwrap 1 2 3 4.5 100755", 0, "boot-a", &sw("1")),
            ),
            (
                "another boot",
                Stamp::of("/usr/bin/bwrap 1 2 3 4.5 100755", 1000, "boot-b", &sw("1")),
            ),
            (
                "user namespaces switched off",
                Stamp::of("/usr/bin/bwrap 1 2 3 4.5 100755", 1000, "boot-a", &sw("0")),
            ),
        ] {
            assert_ne!(base, other, "{name}");
            assert!(!other.matches(&base.0), "{name}");
        }
        for text in ["", "v1", "garbage\n", &format!("{}x", base.0)] {
            assert!(!base.matches(text), "{text:?}");
        }
    }

    #[test]
    fn a_newline_in_a_fact_cannot_forge_a_second_line() {
        let s = Stamp::of("/tmp/a\nb 1 2 3 4.5 755", 1, "x", &[]);
        assert!(!s.0.contains('\n'));
    }

    #[test]
    fn remembered_only_under_the_same_stamp() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("cache").join("bwrap-ok");
        let a = Stamp::of("bwrap a", 1, "boot", &[]);
        let b = Stamp::of("bwrap b", 1, "boot", &[]);
        assert!(!remembered(&file, &a), "nothing written yet");
        remember(&file, &a);
        assert!(remembered(&file, &a));
        assert!(!remembered(&file, &b));
        remember(&file, &b);
        assert!(remembered(&file, &b) && !remembered(&file, &a));
    }

    #[test]
    fn the_stamp_of_a_real_file_is_stable_and_a_missing_one_has_none() {
        let exe = std::env::current_exe().expect("current exe");
        assert_eq!(Stamp::now(&exe), Stamp::now(&exe));
        assert_eq!(Stamp::now(Path::new("/nonexistent/bwrap")), None);
    }
}
