//! `sayso __sandbox-exec POLICY -- PROGRAM ARGS…`: the helper that runs a command confined.
//! `main.rs` hands over to [`main`] before anything else runs (no crypto provider, no
//! command-line parser, no runtime), so it costs a fork and an `exec` and little more.
//!
//! On Linux it forks ([`super::supervise`]): the child applies Landlock when the policy says so
//! (the Landlock backend; under bubblewrap the mounts already did the filesystem), then the
//! seccomp filter, then `execvp`s the program; the helper stays as its parent, and when the
//! command exits it ends everything the command left running and exits as the command did.
//! Any failure before the exec prints `sayso sandbox: <what failed>` on stderr and exits with
//! [`SETUP_FAILED`]: the command never runs unconfined. A program that cannot be started
//! (not found, not executable) is reported as `sayso: cannot run …` with 127 or 126, as a
//! shell would, since that is not the sandbox's doing.

use std::ffi::OsString;
use std::process::ExitCode;

/// The hidden first argument that selects the helper.
pub const ARG: &str = "__sandbox-exec";

/// The helper's exit code when it cannot set the sandbox up (the command did not run).
pub const SETUP_FAILED: u8 = 125;

/// The prefix of the helper's own failure line ([`super::denial::setup_claimed`] reads it).
pub const FAILURE_PREFIX: &str = "sayso sandbox: ";

/// The helper: `std::env::args_os()` is `[sayso, __sandbox-exec, POLICY, --, program…]`.
pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(2).collect();
    match run(args) {
        Ok(code) => code,
        Err(what) => {
            eprintln!("{FAILURE_PREFIX}{what}");
            ExitCode::from(SETUP_FAILED)
        }
    }
}

/// Confines this process as `args` (`[POLICY, --, program…]`) say and becomes the program;
/// returns only if that fails (`Ok`: the program could not be started, `Err`: the sandbox
/// could not be set up).
fn run(args: Vec<OsString>) -> Result<ExitCode, String> {
    let mut args = args.into_iter();
    let policy = args.next().ok_or("no policy argument")?;
    let policy = policy
        .to_str()
        .ok_or("a policy argument that is not UTF-8")?;
    let policy = super::policy::HelperPolicy::decode(policy)?;
    if args.next().is_none_or(|a| a != "--") {
        return Err("no `--` after the policy".into());
    }
    let argv: Vec<OsString> = args.collect();
    if argv.is_empty() {
        return Err("no command to run".into());
    }
    #[cfg(target_os = "linux")]
    if policy.loopback == Some(super::loopback::Loopback::Relay) {
        return super::loopback::relay::run(&argv);
    }
    #[cfg(target_os = "linux")]
    return super::supervise::run(&policy, &argv);
    #[cfg(not(target_os = "linux"))]
    {
        let _ = policy;
        Err("this platform has no sandbox the helper can apply".into())
    }
}

/// Confines the calling process (the helper's child, about to become the command) as `policy`
/// says; `helper` is its parent, which the command may not stop.
#[cfg(target_os = "linux")]
pub(super) fn confine(policy: &super::policy::HelperPolicy, helper: i32) -> Result<(), String> {
    if policy.landlock {
        super::landlock::apply(policy)?;
    }
    use super::loopback::Loopback;
    use super::seccomp::LoopbackSockets;
    super::seccomp::apply(&super::seccomp::Filter {
        network: policy.network,
        loopback: match policy.loopback {
            Some(Loopback::Listen(_)) => Some(LoopbackSockets::Namespace),
            Some(Loopback::Supervise) => Some(LoopbackSockets::Supervised),
            Some(Loopback::Relay) | None => None,
        },
        helper: Some(helper),
    })
}

/// Becomes `program args…` (found on `PATH` as a shell would), or says why it cannot: the exit
/// code then (127 not found, 126 not runnable).
#[cfg(unix)]
pub(super) fn exec(program: &OsString, args: &[OsString]) -> i32 {
    use std::os::unix::process::CommandExt;
    let err = std::process::Command::new(program).args(args).exec();
    eprintln!(
        "sayso: cannot run {}: {err}",
        std::path::Path::new(program).display()
    );
    if err.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    }
}
