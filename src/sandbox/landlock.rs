//! The Landlock backend, applied by `sayso __sandbox-exec`'s child to itself before it becomes
//! the command: reads everywhere but the hidden paths ([`super::landlock_plan`]), writes only
//! to the writable directories and the `/dev` character devices a command writes to, no TCP
//! bind or connect unless the network is allowed (ABI 4), no signals to processes outside the
//! sandbox (ABI 6), and, without the network, no abstract UNIX sockets outside it.
//!
//! No terminal: the terminals in `/dev` ([`terminals`]: `/dev/pts`, `/dev/ptmx`, the console
//! and the virtual consoles, by device number) are hidden like sayso's own files, so a command
//! can neither draw on the terminal sayso runs in nor read the keys typed into it. `/dev/tty`
//! stays (it is the caller's controlling terminal, and a command has none: sayso starts it in
//! a session of its own, so opening it fails with "No such device or address").
//!
//! What Landlock cannot do (deny a path inside a directory it allows, so the protected paths
//! of the project stay writable, and a hidden path inside a writable directory stays
//! readable) is said by [`super::Sandbox::limits`]; here such a hidden path is simply left
//! to the writable directory's rule. `/proc/<sayso pid>` is one of the hidden paths (Landlock's
//! own ptrace rule stops `mem` and `fd` of processes outside the sandbox but, on the kernels
//! seen, not `environ` or `maps`), and so are all the other processes' entries: only the
//! command's own stays, as in bubblewrap's PID namespace.

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope, path_beneath_rules,
};

use super::landlock_plan::{list_dir, read_plan};
use super::policy::HelperPolicy;

/// The newest ABI whose rights this backend asks for (older kernels get what they know).
const TARGET: ABI = ABI::V6;

/// The character devices a confined command may write (and `ioctl`) besides its directories.
const DEVICES: [&str; 6] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// Whether a character device of this major/minor number is a terminal a user may type into or
/// read: the virtual consoles and serial lines (4), the console and `/dev/ptmx` (5, but not
/// 5:0, `/dev/tty`), the consoles' screen memory (7) and pseudo-terminals (136-143).
pub fn is_terminal(major: u32, minor: u32) -> bool {
    matches!(major, 4 | 7 | 136..=143) || (major == 5 && minor != 0)
}

/// The terminals in `dir` (`/dev`): its `pts` directory and every character device that
/// [`is_terminal`].
pub fn terminals(dir: &Path) -> Vec<PathBuf> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            if e.file_name() == "pts" {
                return true;
            }
            let Ok(meta) = e.path().symlink_metadata() else {
                return false;
            };
            let dev = meta.rdev();
            meta.file_type().is_char_device() && is_terminal(libc::major(dev), libc::minor(dev))
        })
        .map(|e| e.path())
        .collect()
}

/// The Landlock ABI the running kernel offers (0: none).
pub fn kernel_abi() -> u32 {
    // SAFETY: the version query takes no ruleset (null, size 0) and only returns a number.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    u32::try_from(v).unwrap_or(0)
}

/// Restricts this process as `policy` says.
pub fn apply(policy: &HelperPolicy) -> Result<(), String> {
    let err = |e: landlock::RulesetError| format!("Landlock: {e}");
    let writable: Vec<PathBuf> = policy.writable.iter().map(PathBuf::from).collect();
    let mut hidden: Vec<PathBuf> = policy
        .hidden
        .iter()
        .map(PathBuf::from)
        .filter(|h| !inside(h, &writable))
        .collect();
    hidden.extend(
        policy
            .own_pid
            .map(|pid| PathBuf::from(format!("/proc/{pid}"))),
    );
    hidden.extend(terminals(Path::new("/dev")));
    // In /proc, only the command's own entry (this process, which becomes it): no other
    // process's, as under bubblewrap's PID namespace, and a rule fewer for each.
    let me = std::process::id().to_string();
    let list = move |dir: &Path| {
        let mut entries = list_dir(dir)?;
        if dir == Path::new("/proc") {
            entries.retain(|(name, _)| {
                name == me.as_str() || name.to_str().is_none_or(|n| n.parse::<u32>().is_err())
            });
        }
        Some(entries)
    };
    let plan = read_plan(&hidden, &list);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(TARGET))
        .map_err(err)?;
    if !policy.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(TARGET))
            .map_err(err)?
            .scope(Scope::AbstractUnixSocket)
            .map_err(err)?;
    }
    let ruleset = ruleset.scope(Scope::Signal).map_err(err)?;
    let read = AccessFs::from_read(TARGET);
    let device = AccessFs::WriteFile | AccessFs::Truncate | AccessFs::IoctlDev;
    let status = ruleset
        .create()
        .map_err(err)?
        .add_rules(path_beneath_rules(&plan.beneath, read))
        .map_err(err)?
        .add_rules(path_beneath_rules(&plan.listing, AccessFs::ReadDir))
        .map_err(err)?
        .add_rules(path_beneath_rules(DEVICES, read | device))
        .map_err(err)?
        .add_rules(path_beneath_rules(&writable, AccessFs::from_all(TARGET)))
        .map_err(err)?
        .no_new_privs(true)
        .restrict_self()
        .map_err(err)?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err("Landlock is not enforced by this kernel".into());
    }
    Ok(())
}

/// What a kernel at `abi` cannot enforce of the Landlock policy, as sentences.
pub fn abi_limits(abi: u32, network_denied: bool) -> Vec<String> {
    let mut out = Vec::new();
    if abi < 2 {
        out.push(
            "Landlock ABI 1 cannot move files between directories: such renames fail".to_owned(),
        );
    }
    if abi < 3 {
        out.push(
            "Landlock before ABI 3 cannot stop a command truncating files outside the project"
                .to_owned(),
        );
    }
    if abi < 4 && network_denied {
        out.push("Landlock before ABI 4 has no network rules: only the seccomp filter blocks network sockets".to_owned());
    }
    if abi < 6 {
        out.push(
            "Landlock before ABI 6 cannot stop a command signalling processes outside the sandbox"
                .to_owned(),
        );
    }
    out
}

/// `path` is inside one of `roots`.
pub fn inside(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| path.starts_with(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_abis_say_what_they_cannot_enforce() {
        assert!(abi_limits(7, true).is_empty());
        assert_eq!(abi_limits(4, true).len(), 1);
        let old = abi_limits(1, true).join("\n");
        assert!(old.contains("ABI 4"), "{old}");
        assert!(!abi_limits(3, false).join("\n").contains("network"));
    }

    #[test]
    fn terminals_are_told_by_device_number() {
        for (major, minor) in [(4, 1), (4, 64), (5, 1), (5, 2), (7, 0), (136, 3), (143, 9)] {
            assert!(is_terminal(major, minor), "{major}:{minor}");
        }
        // /dev/tty, /dev/null, /dev/urandom, a disk.
        for (major, minor) in [(5, 0), (1, 3), (1, 9), (8, 0)] {
            assert!(!is_terminal(major, minor), "{major}:{minor}");
        }
        let here = terminals(Path::new("/dev"));
        for want in ["/dev/pts", "/dev/ptmx"] {
            assert!(
                here.iter().any(|p| p == Path::new(want)),
                "{want}: {here:?}"
            );
        }
        assert!(!here.iter().any(|p| p == Path::new("/dev/tty")), "{here:?}");
        assert!(
            !here.iter().any(|p| p == Path::new("/dev/null")),
            "{here:?}"
        );
    }

    #[test]
    fn this_kernel_reports_an_abi() {
        // The machine this project runs on has Landlock (README "Sandbox"); 0 would mean the
        // query itself is wrong or Landlock is off, and the landlock tests would fail too.
        assert!(kernel_abi() >= 1, "Landlock ABI query returned 0");
    }
}
