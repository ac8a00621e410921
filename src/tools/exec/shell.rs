//! Running one shell command for a tool (SPEC §4.2), and the registry of process groups that
//! function tools start (SPEC §4.2 `register_job`, §4.5).
//!
//! What it owns:
//!
//! - [`run_shell`]: spawns a [`ShellSpec`] (a script for `sh -c`, or an argv run directly) in
//!   its own session and process group ([`crate::process_group::own_group`]: the group id is
//!   the child's pid, and no controlling terminal, so a command cannot read the keys typed into
//!   sayso from `/dev/tty` nor draw over its screen), stdin null, cwd and extra environment
//!   set. Stdout and stderr are read concurrently while the child runs, so a chatty child
//!   never blocks on a full pipe; each stream keeps its first
//!   [`MAX_OUTPUT_BYTES`] and notes what was cut. The result is decoded lossily as UTF-8 and
//!   ANSI-stripped ([`crate::tools::exec::ansi`]). It stops at the child's exit, at the spec's timeout, or
//!   when the cancellation token fires.
//! - [`Jobs`]: process groups registered by function tools, killed together on cancel (in
//!   `groups`). Signalling a group and telling whether it is gone is
//!   [`crate::process_group`]'s.
//!
//! Invariants:
//!
//! - A timed-out or cancelled command leaves no process of its group alive: the whole group gets
//!   SIGTERM, then SIGKILL after [`KILL_GRACE`]; `run_shell` returns as soon as the group is
//!   gone (zombies left to a non-reaping init count as gone) and the child is reaped. The same
//!   holds when the `run_shell` future is dropped mid-run: the group gets SIGKILL (SIGTERM
//!   when the sandbox helper leads it: the helper then ends everything below it, sayso gone
//!   or not).
//! - `timed_out` is decided by our own timer only, never by an exit code (124 is just a code);
//!   `cancelled` only by the token.
//! - Signals go to a group only while we know it is ours; group ids 0 and 1 and sayso's own
//!   group are never signalled.
//!
//! What it does not do: no pty (programs see pipes, so most turn colours off themselves); no
//! stdin; no environment policy of its own (the child inherits sayso's environment changed by
//! `spec.env`, plus `PWD`; callers remove the secrets); no output streaming while the command runs. A command that exits normally but leaves
//! background processes holding its pipes is not killed: its output is read for
//! [`PIPE_DRAIN`] more, then left behind. On non-unix systems there are no process groups: the
//! child alone is killed (and [`Jobs`] uses `taskkill /T`).

use std::future::Future;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::task::Poll;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
#[cfg(unix)]
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::tools::exec::ansi::strip_ansi_owned;

mod capture;
mod groups;
use crate::process_group::{self, KillOnDrop};
use capture::*;
pub use groups::Jobs;

/// Each of stdout and stderr keeps at most this many bytes (the head); the rest is read and
/// dropped, and the text ends with a note saying how much was cut.
pub const MAX_OUTPUT_BYTES: usize = 8 * 1024 * 1024;
/// Time between SIGTERM and SIGKILL when stopping a process group.
pub const KILL_GRACE: Duration = Duration::from_secs(2);
/// After the child exits, how long to keep reading pipes that something else still holds open.
pub const PIPE_DRAIN: Duration = Duration::from_millis(500);
/// After SIGKILL, how long to wait for the child to be reaped before giving up on it (tokio
/// reaps it later in the background).
const REAP_AFTER_KILL: Duration = Duration::from_secs(1);
/// Read chunk size for the pipes.
const CHUNK: usize = 64 * 1024;

/// What to run: a script for `sh -c`, or an argv executed directly (no shell).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellProgram {
    Script(String),
    Argv(Vec<String>),
}

impl ShellProgram {
    /// The argv that runs it: a script is `sh -c SCRIPT` (`cmd /C SCRIPT` on Windows), exactly
    /// as [`run_shell`] runs it (the sandbox wraps this argv).
    pub fn argv(&self) -> Vec<String> {
        match self {
            ShellProgram::Script(script) => {
                let (shell, flag) = if cfg!(unix) {
                    ("sh", "-c")
                } else {
                    ("cmd", "/C")
                };
                vec![shell.to_owned(), flag.to_owned(), script.clone()]
            }
            ShellProgram::Argv(argv) => argv.clone(),
        }
    }
}

/// Changes to the environment a child inherits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildEnv {
    /// Variables set (or replaced).
    pub set: Vec<(String, String)>,
    /// Inherited variables removed (before `set` applies).
    pub remove: Vec<String>,
}

impl ChildEnv {
    /// Applies these changes to a command.
    pub fn apply_to(&self, cmd: &mut std::process::Command) {
        for k in &self.remove {
            cmd.env_remove(k);
        }
        cmd.envs(self.set.iter().map(|(k, v)| (k, v)));
    }

    /// `self` with `other`'s changes added after its own.
    pub fn and(mut self, other: &ChildEnv) -> ChildEnv {
        self.set.extend(other.set.iter().cloned());
        self.remove.extend(other.remove.iter().cloned());
        self
    }
}

/// One command to run.
#[derive(Debug, Clone)]
pub struct ShellSpec {
    pub program: ShellProgram,
    pub cwd: std::path::PathBuf,
    /// Changes to the inherited environment.
    pub env: ChildEnv,
    /// Kill the whole process group after this long (None = no limit).
    pub timeout: Option<Duration>,
}

/// How a command ended and what it printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ShellOutcome {
    /// None when killed by a signal.
    pub exit_code: Option<i32>,
    /// The signal that ended the child (unix), if any.
    pub signal: Option<i32>,
    /// Lossy UTF-8, ANSI stripped, head kept when over [`MAX_OUTPUT_BYTES`].
    pub stdout: String,
    /// Lossy UTF-8, ANSI stripped, head kept when over [`MAX_OUTPUT_BYTES`].
    pub stderr: String,
    /// Whether `stdout` was cut (it then ends with a note).
    pub stdout_truncated: bool,
    /// Whether `stderr` was cut (it then ends with a note).
    pub stderr_truncated: bool,
    /// Decided by our own timer, never by exit code 124.
    pub timed_out: bool,
    /// Killed because `cancel` fired (or it had fired before the command could start).
    pub cancelled: bool,
}

impl ShellOutcome {
    /// Exit 0, and neither timed out nor cancelled.
    pub fn success(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.cancelled
    }
}

/// Runs one command; see the module doc. `Err` only when it could not be started (program
/// not found, cwd missing, empty argv): "cannot run `foo`: No such file or directory".
pub async fn run_shell(
    spec: &ShellSpec,
    cancel: &CancellationToken,
) -> Result<ShellOutcome, String> {
    run_with(spec, cancel, Limits::default()).await
}

/// The tunable numbers, so tests can use small ones.
#[derive(Debug, Clone, Copy)]
struct Limits {
    max_bytes: usize,
    grace: Duration,
    drain: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_bytes: MAX_OUTPUT_BYTES,
            grace: KILL_GRACE,
            drain: PIPE_DRAIN,
        }
    }
}

/// Why the wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    Exited,
    TimedOut,
    Cancelled,
}

async fn run_with(
    spec: &ShellSpec,
    cancel: &CancellationToken,
    limits: Limits,
) -> Result<ShellOutcome, String> {
    let (mut cmd, label) = build_command(spec)?;
    match std::fs::metadata(&spec.cwd) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(format!(
                "cannot run `{label}`: the working directory `{}` is not a directory",
                spec.cwd.display()
            ));
        }
        Err(_) => {
            return Err(format!(
                "cannot run `{label}`: the working directory `{}` does not exist",
                spec.cwd.display()
            ));
        }
    }
    if cancel.is_cancelled() {
        return Ok(ShellOutcome {
            cancelled: true,
            ..ShellOutcome::default()
        });
    }

    let mut child = cmd.spawn().map_err(|e| spawn_error(&label, &e))?;
    // In its own group, the group id is the child's pid.
    let mut guard = if supervised(spec) {
        KillOnDrop::supervised(child.id())
    } else {
        KillOnDrop::new(child.id())
    };
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let mut out = Captured::new(limits.max_bytes);
    let mut err = Captured::new(limits.max_bytes);

    let (status, stop) = {
        let mut pipes = Pipes {
            out: Some(Box::pin(read_into(stdout, &mut out))),
            err: Some(Box::pin(read_into(stderr, &mut err))),
        };
        let (status, stop) = supervise(
            &mut child,
            &mut guard,
            &mut pipes,
            spec.timeout,
            cancel,
            limits,
        )
        .await;
        // Whatever still holds the pipes gets a short while to finish writing.
        let drain = tokio::time::sleep(limits.drain);
        tokio::pin!(drain);
        while !pipes.done() {
            tokio::select! {
                () = pipes.progress() => {}
                () = &mut drain => break,
            }
        }
        (status, stop)
    };

    let (stdout, stdout_truncated) = out.into_text();
    let (stderr, stderr_truncated) = err.into_text();
    let status = status.and_then(Result::ok);
    Ok(ShellOutcome {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(exit_signal),
        stdout,
        stderr,
        stdout_truncated,
        stderr_truncated,
        timed_out: stop == Stop::TimedOut,
        cancelled: stop == Stop::Cancelled,
    })
}

/// The command for `spec`, and the name to use in error messages.
fn build_command(spec: &ShellSpec) -> Result<(Command, String), String> {
    let argv = spec.program.argv();
    let Some((program, args)) = argv.split_first() else {
        return Err("cannot run an empty command".to_owned());
    };
    let mut cmd = Command::new(program);
    cmd.args(args);
    let label = program.clone();
    cmd.current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // The sandbox helper is stopped through its group (the guard), never killed alone.
        .kill_on_drop(!supervised(spec));
    if spec.cwd.is_absolute() {
        cmd.env("PWD", &spec.cwd);
    }
    spec.env.apply_to(cmd.as_std_mut());
    process_group::own_group(&mut cmd);
    Ok((cmd, label))
}

/// Whether `spec` runs the sandbox helper (`sayso __sandbox-exec …`, as `Sandbox::wrap`
/// makes it), which ends what the command leaves behind when it is told to stop.
fn supervised(spec: &ShellSpec) -> bool {
    matches!(&spec.program, ShellProgram::Argv(a) if a.get(1).is_some_and(|x| x == crate::sandbox::exec::ARG))
}

/// "cannot run `foo`: No such file or directory" (without the "(os error 2)" tail).
fn spawn_error(label: &str, e: &std::io::Error) -> String {
    let mut msg = e.to_string();
    if let Some(i) = msg.find(" (os error ") {
        msg.truncate(i);
    }
    format!("cannot run `{label}`: {msg}")
}

#[cfg(unix)]
fn exit_signal(status: ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(&status)
}

#[cfg(not(unix))]
fn exit_signal(_status: ExitStatus) -> Option<i32> {
    None
}

/// Waits for exit, timeout or cancel; on the latter two stops the group. Returns the child's
/// status (None if it could not be reaped in time) and why the wait ended.
async fn supervise(
    child: &mut Child,
    guard: &mut KillOnDrop,
    pipes: &mut Pipes<'_>,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
    limits: Limits,
) -> (Option<std::io::Result<ExitStatus>>, Stop) {
    let timer = async move {
        match timeout {
            Some(t) => tokio::time::sleep(t).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(timer);
    let stop = loop {
        tokio::select! {
            biased;
            st = child.wait() => {
                // A normal exit: background processes it left are not ours to kill.
                guard.disarm();
                return (Some(st), Stop::Exited);
            }
            () = cancel.cancelled() => break Stop::Cancelled,
            () = &mut timer => break Stop::TimedOut,
            () = pipes.progress() => {}
        }
    };
    let status = terminate(child, guard, pipes, limits).await;
    (status, stop)
}

/// SIGTERM to the group, SIGKILL after the grace period; returns once the group is gone and
/// the child reaped, or after the hard deadline.
#[cfg(unix)]
async fn terminate(
    child: &mut Child,
    guard: &mut KillOnDrop,
    pipes: &mut Pipes<'_>,
    limits: Limits,
) -> Option<std::io::Result<ExitStatus>> {
    let Some(pgid) = guard.pgid() else {
        // No pid: the child was already reaped.
        return Some(child.wait().await);
    };
    process_group::signal(pgid, libc::SIGTERM);
    let start = Instant::now();
    let term_deadline = start + limits.grace;
    let hard_deadline = term_deadline + REAP_AFTER_KILL;
    let mut killed = false;
    let mut status = None;
    let mut next_check = start;
    loop {
        let now = Instant::now();
        if status.is_some() && now >= next_check {
            if !process_group::alive(pgid) {
                break;
            }
            next_check = now + process_group::POLL;
        }
        if !killed && now >= term_deadline {
            process_group::signal(pgid, libc::SIGKILL);
            killed = true;
        }
        if now >= hard_deadline {
            break;
        }
        let mut wake = if killed { hard_deadline } else { term_deadline };
        if status.is_some() {
            wake = wake.min(next_check);
        }
        tokio::select! {
            st = child.wait(), if status.is_none() => status = Some(st),
            () = tokio::time::sleep_until(wake) => {}
            () = pipes.progress() => {}
        }
    }
    // Only zombies (or nothing) are left, or we gave up after SIGKILL: either way, done.
    guard.disarm();
    status
}

#[cfg(not(unix))]
async fn terminate(
    child: &mut Child,
    guard: &mut KillOnDrop,
    pipes: &mut Pipes<'_>,
    limits: Limits,
) -> Option<std::io::Result<ExitStatus>> {
    let _ = child.start_kill();
    guard.disarm();
    let deadline = tokio::time::sleep(limits.grace + REAP_AFTER_KILL);
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            st = child.wait() => return Some(st),
            () = &mut deadline => return None,
            () = pipes.progress() => {}
        }
    }
}

#[cfg(all(test, unix))]
mod tests;
