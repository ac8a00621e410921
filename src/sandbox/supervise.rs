//! The helper's parent half (Linux): `sayso __sandbox-exec` forks, the child confines itself
//! and becomes the command, and the helper stays as its parent until the command is over, then
//! ends everything the command left behind, whatever group or session it moved to.
//!
//! Why a parent stays: under Landlock there is no PID namespace, so nothing else ends a
//! finished command's background processes (a reader of the terminal, a `(sleep; …) &`, a
//! `setsid` or double-forked daemon); under bubblewrap the namespace dies with the command,
//! and this makes that happen before the helper exits rather than shortly after. The helper is
//! a child-subreaper (`PR_SET_CHILD_SUBREAPER`), so what the command orphans is reparented to
//! it, not to init; once the command exits, it SIGKILLs its children, reaps, and repeats until
//! it has none (a pid it has not reaped cannot be reused, so it never signals a stranger).
//!
//! What it guarantees:
//! - The exit status is the command's: its exit code, or death by the same signal (no core
//!   file). A setup failure in the child is `sayso sandbox: …` with
//!   [`super::exec::SETUP_FAILED`], as before the fork.
//! - Stopping: SIGTERM, SIGINT, SIGHUP or SIGQUIT to the helper (sayso signals the command's
//!   group, of which the helper is the leader) is passed on as SIGTERM to every process below
//!   it; after [`STOP_GRACE`] (shorter than the runner's grace before its SIGKILL) whatever is
//!   left is SIGKILLed and the helper dies of the signal it got. If sayso itself dies, the
//!   helper is told (`PR_SET_PDEATHSIG`) and does the same.
//! - The command cannot end the helper early: every catchable signal is blocked in it, and the
//!   seccomp filter refuses SIGKILL and SIGSTOP sent to it ([`super::seccomp`]); under Landlock
//!   ABI 6 the command's domain cannot signal it at all (the helper is outside that domain: it
//!   forks before the child confines itself).
//!
//! With `allow_loopback`, it also takes the part [`super::loopback`] gives it: inside
//! bubblewrap it hands the mirrored loopback listeners out before it forks; under Landlock its
//! loop serves the command's `connect`, `bind` and `listen` ([`notify`]).
//!
//! Not here: what the child confines ([`super::exec`]).

use std::ffi::OsString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use libc::{c_int, pid_t};

use super::exec::{FAILURE_PREFIX, SETUP_FAILED};
use super::loopback::notify::{self, Notify};
use super::loopback::{Loopback, fdpass};
use super::policy::HelperPolicy;
use crate::process_group::tree;

/// How long a stopped command has between the SIGTERM and the SIGKILL of everything below the
/// helper: shorter than the runner's grace (`tools::exec::shell::KILL_GRACE`), so the helper
/// ends what it can reach before the runner's SIGKILL ends the helper.
pub const STOP_GRACE: Duration = Duration::from_millis(1500);

/// The signals that stop the command.
const STOPS: [c_int; 4] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT];

/// The helper's parent-death signal: it stops the command when the parent process is gone (the
/// helper was reparented), not when only the thread that started it ended (the kernel sends it
/// then too, and again when the process goes).
const PARENT_GONE: c_int = libc::SIGUSR1;

/// Runs `argv` confined as `policy` says, in a child, and supervises it (see the module doc).
/// `Err` when the helper cannot start (nothing ran).
pub fn run(policy: &HelperPolicy, argv: &[OsString]) -> Result<ExitCode, String> {
    let os = |what: &str| format!("{what}: {}", std::io::Error::last_os_error());
    // SAFETY: prctl with integer arguments only.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(os("cannot become the command's subreaper"));
    }
    // If sayso dies without stopping the command, the helper stops it as if told to (what
    // bubblewrap's --die-with-parent does for its namespace). The signal also comes when only
    // the thread that started the helper ends ([`PARENT_GONE`]).
    // SAFETY: prctl and getppid with integer arguments only.
    let parent = unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, PARENT_GONE, 0, 0, 0);
        libc::getppid()
    };
    let signals = Signals::block()?;
    let mut channel = None;
    match &policy.loopback {
        Some(Loopback::Listen(addrs)) => super::loopback::relay::hand_out(addrs)?,
        Some(Loopback::Supervise) => channel = Some(fdpass::pair()?),
        Some(Loopback::Relay) | None => {}
    }
    // SAFETY: getpid has no preconditions.
    let helper = unsafe { libc::getpid() };
    // SAFETY: the helper is single-threaded here (main hands over before anything starts a
    // thread), so the child may run ordinary code until it execs.
    match unsafe { libc::fork() } {
        -1 => Err(os("cannot start the command")),
        0 => {
            let channel = channel.map(|(_, theirs)| theirs);
            let code = child(policy, argv, &signals, helper, channel);
            std::process::exit(code)
        }
        pid => {
            let notify = channel.and_then(|(ours, theirs)| {
                drop(theirs);
                fdpass::receive(&ours).into_iter().next().map(Notify::new)
            });
            let ending = watch(pid, parent, &signals, notify);
            end_the_rest(helper);
            Ok(exit_as(ending))
        }
    }
}

/// The child: dies with the helper, confines itself, becomes the command. Returns only on
/// failure, with the exit code.
fn child(
    policy: &HelperPolicy,
    argv: &[OsString],
    signals: &Signals,
    helper: pid_t,
    channel: Option<OwnedFd>,
) -> i32 {
    // SAFETY: prctl and getppid with integer arguments only.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() != helper {
            return i32::from(SETUP_FAILED);
        }
    }
    signals.restore();
    let confined = super::exec::confine(policy, helper).and_then(|()| match channel {
        // The loopback supervisor's filter, its listener handed to the helper.
        Some(channel) => fdpass::send(&channel, &[notify::install()?.as_raw_fd()]),
        None => Ok(()),
    });
    if let Err(what) = confined {
        eprintln!("{FAILURE_PREFIX}{what}");
        return i32::from(SETUP_FAILED);
    }
    close_inherited();
    let Some((program, args)) = argv.split_first() else {
        return i32::from(SETUP_FAILED);
    };
    super::exec::exec(program, args)
}

/// Marks every descriptor above stderr close-on-exec: the command inherits its standard streams
/// and nothing else of sayso's (best effort: `close_range` is Linux 5.11+, and sayso opens its
/// own descriptors close-on-exec anyway).
fn close_inherited() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range with integer arguments only; it changes descriptor flags.
    unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            CLOSE_RANGE_CLOEXEC,
        );
    }
}

/// How the command's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// The command exited, with this wait status.
    Exited(c_int),
    /// The helper was told to stop with this signal and the grace ran out.
    Stopped(c_int),
}

/// Waits for the command (`child`) to exit or for a stop, serving the loopback supervisor's
/// notifications meanwhile.
fn watch(child: pid_t, parent: pid_t, signals: &Signals, mut notify: Option<Notify>) -> Ending {
    let mut stopping: Option<(c_int, Instant)> = None;
    loop {
        let timeout = match stopping {
            Some((_, since)) => {
                let left = STOP_GRACE.saturating_sub(since.elapsed());
                c_int::try_from(left.as_millis()).unwrap_or(c_int::MAX)
            }
            None => -1,
        };
        let mut fds = [
            libc::pollfd {
                fd: signals.fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                // A negative descriptor is ignored by poll.
                fd: notify.as_ref().map_or(-1, Notify::fd),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        // SAFETY: `fds` is a valid array of two pollfds for the duration of the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, timeout) };
        if n < 0 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            // poll itself failed (it should not): wait for the command without serving.
            return Ending::Exited(wait_for(child));
        }
        if fds[0].revents & libc::POLLIN != 0 {
            for sig in signals.read() {
                if sig == libc::SIGCHLD {
                    if let Some(status) = reap(child) {
                        return Ending::Exited(status);
                    }
                } else if sig == PARENT_GONE && own_parent() == parent {
                    // Only a thread of sayso ended: sayso is still there.
                } else if stopping.is_none() {
                    let sig = if sig == PARENT_GONE {
                        libc::SIGTERM
                    } else {
                        sig
                    };
                    stopping = Some((sig, Instant::now()));
                    for pid in tree::descendants(own_pid()) {
                        // SAFETY: kill has no memory-safety preconditions.
                        unsafe { libc::kill(pid, libc::SIGTERM) };
                    }
                }
            }
        }
        let served = fds[1].revents;
        if served & libc::POLLIN != 0 {
            if !notify.as_ref().is_some_and(Notify::serve) {
                notify = None;
            }
        } else if served != 0 {
            // Hung up: nothing is left under the filter.
            notify = None;
        }
        if let Some((sig, since)) = stopping
            && since.elapsed() >= STOP_GRACE
        {
            return Ending::Stopped(sig);
        }
    }
}

/// Reaps every child that is done; the command's wait status if it was one of them.
fn reap(command: pid_t) -> Option<c_int> {
    let mut found = None;
    loop {
        let mut status: c_int = 0;
        // SAFETY: waitpid writes the status into a local.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return found;
        }
        if pid == command {
            found = Some(status);
        }
    }
}

/// Blocks until `child` exits; its wait status.
fn wait_for(child: pid_t) -> c_int {
    loop {
        let mut status: c_int = 0;
        // SAFETY: waitpid writes the status into a local.
        let pid = unsafe { libc::waitpid(child, &mut status, 0) };
        if pid == child
            || (pid < 0
                && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted)
        {
            return status;
        }
    }
}

/// SIGKILLs the helper's children and reaps them, again and again, until it has none: what
/// they leave is reparented to the helper (its subreaper), so this ends everything below it.
/// Only the helper's own children are signalled, whose pids cannot be reused before it reaps
/// them.
fn end_the_rest(helper: pid_t) {
    loop {
        loop {
            let mut status: c_int = 0;
            // SAFETY: waitpid writes the status into a local.
            match unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } {
                0 => break,
                pid if pid > 0 => continue,
                _ => return, // ECHILD: nothing is left
            }
        }
        let children = tree::children(helper);
        if children.is_empty() {
            // Children exist but /proc does not show them: nothing more can be done safely.
            return;
        }
        for pid in children {
            // SAFETY: kill has no memory-safety preconditions; `pid` is an unreaped child.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        let mut status: c_int = 0;
        // SAFETY: waitpid writes the status into a local.
        if unsafe { libc::waitpid(-1, &mut status, 0) } < 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD)
        {
            return;
        }
    }
}

/// The exit of a process passing on a child's raw wait `status`: its exit code, or death by
/// its signal.
pub fn exit_as_status(status: c_int) -> ExitCode {
    exit_as(Ending::Exited(status))
}

/// The helper's exit for `ending`: the command's exit code, or death by its signal.
fn exit_as(ending: Ending) -> ExitCode {
    let sig = match ending {
        Ending::Exited(status) if libc::WIFEXITED(status) => {
            return ExitCode::from(u8::try_from(libc::WEXITSTATUS(status)).unwrap_or(1));
        }
        Ending::Exited(status) if libc::WIFSIGNALED(status) => libc::WTERMSIG(status),
        Ending::Exited(_) => return ExitCode::from(1),
        Ending::Stopped(sig) => sig,
    };
    die_by(sig);
    ExitCode::from(u8::try_from(128 + sig).unwrap_or(1))
}

/// Ends this process with `sig` (default action, no core file); returns if that fails.
fn die_by(sig: c_int) {
    let no_core = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain syscalls on this process with valid pointers to locals.
    unsafe {
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
}

fn own_pid() -> pid_t {
    // SAFETY: getpid has no preconditions.
    unsafe { libc::getpid() }
}

fn own_parent() -> pid_t {
    // SAFETY: getppid has no preconditions.
    unsafe { libc::getppid() }
}

/// Every catchable signal blocked in the helper; the ones it acts on read from a signalfd.
struct Signals {
    fd: OwnedFd,
    old: libc::sigset_t,
}

impl Signals {
    fn block() -> Result<Self, String> {
        let os = |what: &str| format!("{what}: {}", std::io::Error::last_os_error());
        // SAFETY: sigset operations on locals, then sigprocmask and signalfd with valid
        // pointers; the descriptor is owned right after it is created.
        unsafe {
            let mut all: libc::sigset_t = std::mem::zeroed();
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::sigfillset(&mut all);
            if libc::sigprocmask(libc::SIG_BLOCK, &all, &mut old) != 0 {
                return Err(os("cannot block signals"));
            }
            let mut watched: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut watched);
            for sig in STOPS.iter().chain([&libc::SIGCHLD, &PARENT_GONE]) {
                libc::sigaddset(&mut watched, *sig);
            }
            let fd = libc::signalfd(-1, &watched, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
            if fd < 0 {
                return Err(os("cannot watch signals"));
            }
            Ok(Self {
                fd: OwnedFd::from_raw_fd(fd),
                old,
            })
        }
    }

    /// The signal mask as it was (in the child, before it becomes the command).
    fn restore(&self) {
        // SAFETY: sets the mask from a valid set.
        unsafe { libc::sigprocmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut()) };
    }

    /// The signals received since the last read.
    fn read(&self) -> Vec<c_int> {
        let mut out = Vec::new();
        loop {
            // SAFETY: reads at most one siginfo into a zeroed local of that size.
            let mut info: libc::signalfd_siginfo = unsafe { std::mem::zeroed() };
            let size = std::mem::size_of::<libc::signalfd_siginfo>();
            let n = unsafe {
                libc::read(
                    self.fd.as_raw_fd(),
                    (&raw mut info).cast::<libc::c_void>(),
                    size,
                )
            };
            if usize::try_from(n).ok() != Some(size) {
                return out;
            }
            out.push(c_int::try_from(info.ssi_signo).unwrap_or(0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helper_ends_the_command_before_the_runner_would() {
        assert!(STOP_GRACE + Duration::from_millis(300) < crate::tools::exec::shell::KILL_GRACE);
    }
}
