//! The bubblewrap backend: the argv of `bwrap` for a [`RunPolicy`] (pure), and the one-time
//! probe that bubblewrap works on this machine.
//!
//! The mounts, in order: the root read-only, a fresh `/dev` and `/proc` (a PID namespace of
//! its own, so no other process's `/proc` entry is there), no network unless allowed; then the
//! writable directories bound read-write, the protected paths inside them re-bound read-only,
//! the hidden paths covered (a directory by an empty read-only tmpfs, a file by `/dev/null`,
//! which a `nodev` bind makes unopenable). Inside, `sayso __sandbox-exec` applies the seccomp
//! filter and runs the command. Not `--new-session`: sayso already starts bubblewrap in a
//! session of its own (no controlling terminal, so `/dev/tty` opens nothing) and stops a
//! command by that process group; the filter blocks `TIOCSTI` too. With `allow_loopback` the
//! network namespace stays (the loopback is mirrored into it: `super::loopback`).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::policy::{HelperPolicy, RunPolicy, utf8};

/// `bwrap`'s argv for `argv` run in `cwd` under `policy`, the helper at `helper`.
/// `is_dir` tells a hidden directory from a hidden file.
pub fn argv(
    bwrap: &Path,
    helper: &Path,
    policy: &RunPolicy,
    cwd: &Path,
    argv: &[String],
    is_dir: impl Fn(&Path) -> bool,
) -> Result<Vec<String>, String> {
    if let Some(h) = policy.hidden.iter().find(|h| helper.starts_with(h)) {
        return Err(format!(
            "the sayso binary {} is inside {}, which the sandbox hides: install it elsewhere",
            helper.display(),
            h.display()
        ));
    }
    let mut out: Vec<String> = vec![utf8(bwrap)?.to_owned()];
    let mut push = |items: &[&str]| out.extend(items.iter().map(|s| (*s).to_owned()));
    push(&["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    push(&["--unshare-pid"]);
    if !policy.network {
        push(&["--unshare-net"]);
    }
    push(&["--die-with-parent"]);
    for w in &policy.writable {
        let w = utf8(w)?;
        push(&["--bind", w, w]);
    }
    for p in &policy.protected {
        let p = utf8(p)?;
        push(&["--ro-bind", p, p]);
    }
    for h in &policy.hidden {
        let name = utf8(h)?;
        if is_dir(h) {
            push(&["--tmpfs", name, "--remount-ro", name]);
        } else {
            push(&["--ro-bind", "/dev/null", name]);
        }
    }
    push(&["--chdir", utf8(cwd)?, "--"]);
    let helper_policy = HelperPolicy::of(policy, false)?.encode();
    push(&[utf8(helper)?, super::exec::ARG, &helper_policy, "--"]);
    out.extend(argv.iter().cloned());
    Ok(out)
}

/// `bwrap` on `PATH` when it can set up a sandbox here (probed once per process), or why not.
pub fn available() -> Result<PathBuf, String> {
    static PROBE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    PROBE.get_or_init(probe).clone()
}

fn probe() -> Result<PathBuf, String> {
    let bwrap = on_path("bwrap").ok_or("bubblewrap (bwrap) is not installed")?;
    // A success under the same binary, user, boot and kernel switches is not probed again.
    let stamp = super::bwrap_cache::Stamp::now(&bwrap);
    let file = super::bwrap_cache::default_file();
    if let (Some(stamp), Some(file)) = (&stamp, &file)
        && super::bwrap_cache::remembered(file, stamp)
    {
        return Ok(bwrap);
    }
    let out = std::process::Command::new(&bwrap)
        .args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"])
        .args([
            "--unshare-pid",
            "--unshare-net",
            "--die-with-parent",
            "--",
            "true",
        ])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("bubblewrap ({}) does not start: {e}", bwrap.display()))?;
    if out.status.success() {
        if let (Some(stamp), Some(file)) = (&stamp, &file) {
            super::bwrap_cache::remember(file, stamp);
        }
        return Ok(bwrap);
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let said = crate::text_cut::head_chars(said.trim(), 200);
    Err(format!(
        "bubblewrap cannot set up a sandbox here (user namespaces may be off): {said}"
    ))
}

/// The first executable `name` on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(network: bool, writes: bool) -> RunPolicy {
        RunPolicy {
            writable: if writes {
                vec!["/p".into(), "/tmp".into()]
            } else {
                vec![]
            },
            protected: if writes {
                vec!["/p/.git".into()]
            } else {
                vec![]
            },
            protected_dirs: vec![],
            hidden: vec!["/h/sayso".into(), "/h/config.toml".into()],
            network,
            own_pid: 1,
            ..RunPolicy::default()
        }
    }

    fn built(p: &RunPolicy) -> String {
        let cmd = ["sh".to_owned(), "-c".to_owned(), "echo hi".to_owned()];
        argv(
            Path::new("/usr/bin/bwrap"),
            Path::new("/bin/sayso"),
            p,
            Path::new("/p/sub"),
            &cmd,
            |h| !h.to_string_lossy().ends_with(".toml"),
        )
        .unwrap()
        .join(" ")
    }

    #[test]
    fn workspace_write_binds_the_writable_then_protected_then_hidden() {
        assert_eq!(
            built(&policy(false, true)),
            "/usr/bin/bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --unshare-net \
             --die-with-parent --bind /p /p --bind /tmp /tmp --ro-bind /p/.git /p/.git \
             --tmpfs /h/sayso --remount-ro /h/sayso --ro-bind /dev/null /h/config.toml \
             --chdir /p/sub -- /bin/sayso __sandbox-exec {\"l\":false,\"n\":false} -- sh -c echo hi"
        );
    }

    #[test]
    fn a_helper_inside_a_hidden_dir_is_refused() {
        let err = argv(
            Path::new("/usr/bin/bwrap"),
            Path::new("/h/sayso/bin/sayso"),
            &policy(false, true),
            Path::new("/p"),
            &["true".to_owned()],
            |_| true,
        )
        .unwrap_err();
        assert!(err.contains("inside /h/sayso"), "{err}");
    }

    #[test]
    fn network_keeps_the_net_namespace_and_read_only_binds_nothing_writable() {
        let text = built(&policy(true, false));
        assert!(!text.contains("--unshare-net"), "{text}");
        assert!(!text.contains("--bind /p"), "{text}");
        assert!(text.contains(r#"{"l":false,"n":true}"#), "{text}");
        assert!(!text.contains("--new-session"), "{text}");
    }
}
