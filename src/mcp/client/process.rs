//! A stdio MCP server we spawned: starting it (inside the sandbox when its config says
//! `sandbox = true`) as the leader of its own process group with the environment it may see,
//! keeping the last few KiB of its stderr, noticing when it exits, and signalling its whole
//! group (SIGTERM, then SIGKILL).
//!
//! Not: the group-id checks and the signalling (that is [`crate::process_group`], shared with
//! the shell runner); JSON-RPC. The caller gets the child's stdout and stdin and hands them to `rmcp`.

use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

use super::ServerSpec;
use crate::process_group;
use crate::sandbox::Confinement;

/// How much of the server's stderr we keep.
const STDERR_KEEP: usize = 4096;
/// How much of that an error message quotes.
const STDERR_QUOTE: usize = 600;
/// How long `Drop` (which must not wait on the runtime) gives the group after SIGTERM.
const DROP_GRACE: Duration = Duration::from_millis(100);
/// How long an error message waits for the exit status / last stderr of a dying server.
const END_WAIT: Duration = Duration::from_millis(500);

/// The running (or exited) server process.
pub(super) struct ServerProcess {
    /// The leader's pid, which is the group id (`process_group(0)`).
    pgid: Option<u32>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    stderr_done: watch::Receiver<bool>,
    exit: watch::Receiver<Option<ExitStatus>>,
    /// The whole group is known to be gone: never signal its id again (it could be reused).
    gone: AtomicBool,
}

/// What the caller needs to talk to the server.
pub(super) struct Spawned {
    pub process: ServerProcess,
    pub stdout: ChildStdout,
    pub stdin: ChildStdin,
}

/// `command args…` as the argv that starts it: inside the server's sandbox
/// (`Confinement::Policy`: the chat's settings, network included) when it has one, else as
/// it is. A sandbox that cannot be set up is an error: the server does not start unconfined.
fn confined_argv(
    spec: &ServerSpec,
    command: &str,
    args: &[String],
    cwd: Option<&std::path::Path>,
) -> Result<Vec<String>, String> {
    let argv: Vec<String> = std::iter::once(command.to_owned())
        .chain(args.iter().cloned())
        .collect();
    let Some(sandbox) = &spec.sandbox else {
        return Ok(argv);
    };
    let here = match cwd {
        Some(d) => d.to_path_buf(),
        None => std::env::current_dir().map_err(|e| format!("no working directory: {e}"))?,
    };
    match sandbox.wrap(&argv, &here, Confinement::Policy) {
        Ok(None) => Ok(argv),
        Ok(Some(wrapped)) => Ok(wrapped),
        Err(e) => Err(crate::tools::exec::runner::sandbox_setup_error(&e)),
    }
}

/// Spawns `command args…` for `spec`, inside its sandbox when it has one. The error is the
/// reason, for `McpError::Start`.
pub(super) fn spawn(
    spec: &ServerSpec,
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&std::path::Path>,
) -> Result<Spawned, String> {
    let argv = confined_argv(spec, command, args, cwd)?;
    let (program, rest) = argv.split_first().ok_or("no program to run")?;
    let mut cmd = Command::new(program);
    cmd.args(rest)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for name in spec
        .secret_env
        .iter()
        .chain(&crate::secrets::withheld_env())
    {
        cmd.env_remove(name);
    }
    // Explicit configuration wins, even over a secret's removal.
    cmd.envs(env);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    process_group::own_group(&mut cmd);
    let mut child = cmd.spawn().map_err(|e| match cwd {
        Some(dir) => format!("cannot run `{command}` in {}: {e}", dir.display()),
        None => format!("cannot run `{command}`: {e}"),
    })?;
    let pgid = child.id();
    let (Some(stdout), Some(stdin), Some(mut stderr_pipe)) =
        (child.stdout.take(), child.stdin.take(), child.stderr.take())
    else {
        return Err(format!("`{command}` started without its pipes"));
    };

    let stderr = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_KEEP)));
    let (done_tx, stderr_done) = watch::channel(false);
    let ring = stderr.clone();
    tokio::spawn(async move {
        let mut buf = [0u8; 1024];
        while let Ok(n) = stderr_pipe.read(&mut buf).await {
            if n == 0 {
                break;
            }
            let mut ring = lock(&ring);
            ring.extend(&buf[..n]);
            let excess = ring.len().saturating_sub(STDERR_KEEP);
            ring.drain(..excess);
        }
        let _ = done_tx.send(true);
    });

    let (exit_tx, exit) = watch::channel(None);
    // This task owns the child and reaps it, so a dead leader does not linger as a zombie.
    tokio::spawn(async move {
        if let Ok(status) = child.wait().await {
            let _ = exit_tx.send(Some(status));
        }
    });

    Ok(Spawned {
        process: ServerProcess {
            pgid,
            stderr,
            stderr_done,
            exit,
            gone: AtomicBool::new(false),
        },
        stdout,
        stdin,
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl ServerProcess {
    /// The process-group id while the group may still exist.
    pub fn group(&self) -> Option<u32> {
        #[cfg(unix)]
        {
            self.pgid
        }
        #[cfg(not(unix))]
        {
            None
        }
    }

    /// The leader's exit status, once it has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// The last lines of stderr, on one line (` | ` between lines), at most [`STDERR_QUOTE`]
    /// bytes; empty when it wrote nothing.
    pub fn stderr_tail(&self) -> String {
        let bytes: Vec<u8> = lock(&self.stderr).iter().copied().collect();
        quote_tail(&String::from_utf8_lossy(&bytes))
    }

    /// Why the connection ended, as far as the process tells: its exit status (waiting a moment
    /// for it) and the tail of its stderr.
    pub async fn describe_end(&self) -> String {
        let mut exit = self.exit.clone();
        let status = tokio::time::timeout(END_WAIT, exit.wait_for(Option::is_some))
            .await
            .ok()
            .and_then(|r| r.ok().and_then(|s| *s));
        let mut done = self.stderr_done.clone();
        let _ = tokio::time::timeout(END_WAIT, done.wait_for(|d| *d)).await;
        let mut reason = match status {
            Some(status) => format!("the server process exited ({status})"),
            None => "the server stopped answering on stdout".to_owned(),
        };
        append_stderr(&mut reason, &self.stderr_tail());
        reason
    }

    /// Like [`Self::describe_end`] for a start that failed: waits for its stderr to end (we have
    /// killed it, or it died) and quotes it.
    pub async fn describe_failed_start(&self, what: String) -> String {
        let mut done = self.stderr_done.clone();
        let _ = tokio::time::timeout(END_WAIT, done.wait_for(|d| *d)).await;
        // Its stderr can end (the pipe closed) a moment before its exit status is collected:
        // wait for that moment too, or a server that died says nothing of how.
        let mut exit = self.exit.clone();
        let _ = tokio::time::timeout(END_WAIT, exit.wait_for(Option::is_some)).await;
        let mut reason = what;
        if let Some(status) = self.exit_status() {
            reason.push_str(&format!("; the process exited ({status})"));
        }
        append_stderr(&mut reason, &self.stderr_tail());
        reason
    }

    /// SIGTERM to the group, SIGKILL to whatever is left after `grace`. Returns once the group is
    /// gone (only zombies left count as gone), or shortly after the SIGKILL.
    pub async fn terminate(&self, grace: Duration) {
        let Some(pgid) = self.live_group() else {
            return;
        };
        process_group::stop(vec![pgid], grace).await;
        // Nothing survives SIGKILL; what may be left are zombies.
        self.gone.store(true, Ordering::SeqCst);
    }

    /// The synchronous version for `Drop`: SIGTERM, a short wait, SIGKILL if anything is left.
    pub fn kill_now(&self) {
        let Some(pgid) = self.live_group() else {
            return;
        };
        process_group::stop_blocking(pgid, DROP_GRACE);
        self.gone.store(true, Ordering::SeqCst);
    }

    fn live_group(&self) -> Option<u32> {
        if self.gone.load(Ordering::SeqCst) {
            return None;
        }
        self.group()
    }
}

/// A start abandoned midway, or a connection dropped: the server must not outlive it.
impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill_now();
    }
}

fn append_stderr(reason: &mut String, tail: &str) {
    if !tail.is_empty() {
        reason.push_str("; its stderr ended with: ");
        reason.push_str(tail);
    }
}

/// The last non-blank lines of `text`, joined with ` | `, cut to [`STDERR_QUOTE`] bytes from the
/// end (on a char boundary).
fn quote_tail(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    let tail = crate::text_cut::tail(&joined, STDERR_QUOTE);
    if tail.len() == joined.len() {
        return joined;
    }
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::quote_tail;

    #[test]
    fn stderr_tail_is_the_last_lines_on_one_line() {
        assert_eq!(quote_tail("a\n\n  b  \nc\n"), "a | b | c");
        assert_eq!(quote_tail(""), "");
    }

    #[test]
    fn long_stderr_is_cut_from_the_front_on_a_char_boundary() {
        let text = "é".repeat(1000);
        let tail = quote_tail(&text);
        assert!(tail.starts_with('…'));
        assert!(tail.len() <= super::STDERR_QUOTE + '…'.len_utf8());
    }
}
