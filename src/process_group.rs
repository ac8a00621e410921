//! Process groups sayso starts and stops, for the shell runner (`tools::exec::shell`) and the MCP
//! stdio client (`mcp::client::process`):
//!
//! - [`own_group`]: a command is spawned as the leader of a new session and so of a new group
//!   (unix `setsid()` in the child), so the group id is the child's pid, and it has no
//!   controlling terminal: nothing it starts can open `/dev/tty` to read the keys typed into
//!   sayso or draw over its screen.
//! - [`signalable`]: which ids may be signalled — never 0 (our own group), 1 (`kill(-1)` is
//!   every process we may signal) or sayso's own group.
//! - [`signal`] a whole group; [`alive`]: whether it still has a process that is not a zombie
//!   (on Linux /proc tells; zombies left to an init that does not reap orphans would otherwise
//!   keep a group "alive" forever).
//! - [`stop`] / [`stop_blocking`]: SIGTERM, then SIGKILL to whatever is left after a grace;
//!   they return once nothing but zombies is left (or shortly after the SIGKILL).
//! - [`KillOnDrop`]: SIGKILLs a group whose owner is dropped before dealing with it.
//! - [`tree`] (Linux): the processes below one process, whatever group or session they moved
//!   to (the sandbox helper ends them when a confined command is over).
//!
//! Not here: reaping. Whoever owns the `Child` waits on it (its own zombie is its to collect;
//! tokio reaps a dropped child in the background); orphans belong to init. Nor which group
//! belongs to what (`tools::exec::shell::Jobs`, `mcp::client::process`).
//!
//! On non-unix systems there are no groups: only [`stop`] (each id's process tree killed with
//! `taskkill /T`), [`stop_blocking`] and the guard (both nothing: `kill_on_drop` kills the
//! child) exist there.

use std::time::Duration;

/// How often a signalled group is looked at.
pub const POLL: Duration = Duration::from_millis(20);
/// After SIGKILL, how long [`stop`] waits for the group to be gone (a process in an
/// uninterruptible sleep dies when it wakes).
const AFTER_KILL: Duration = Duration::from_millis(300);

/// Makes `cmd` start as the leader of its own session and process group, without a
/// controlling terminal (unix; elsewhere nothing).
pub fn own_group(cmd: &mut tokio::process::Command) -> &mut tokio::process::Command {
    #[cfg(unix)]
    // SAFETY: the closure runs in the child between fork and exec and calls only setsid,
    // which is async-signal-safe; it allocates nothing and touches no lock.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

/// A group id we may signal: not 0 (our own group), not 1 (`kill(-1)` is everyone), and not
/// sayso's own group.
#[cfg(unix)]
pub fn signalable(pgid: u32) -> Option<libc::pid_t> {
    let pgid = libc::pid_t::try_from(pgid).ok()?;
    // SAFETY: getpgrp has no preconditions.
    let own = unsafe { libc::getpgrp() };
    (pgid > 1 && pgid != own).then_some(pgid)
}

/// Sends `sig` to every process of group `pgid` (when it may be signalled).
#[cfg(unix)]
pub fn signal(pgid: u32, sig: libc::c_int) {
    if let Some(pgid) = signalable(pgid) {
        // SAFETY: kill has no memory-safety preconditions; a negative pid names a group.
        unsafe {
            libc::kill(-pgid, sig);
        }
    }
}

/// Whether group `pgid` still has a process that is not a zombie.
#[cfg(unix)]
pub fn alive(pgid: u32) -> bool {
    let Some(pgid) = signalable(pgid) else {
        return false;
    };
    // SAFETY: signal 0 only checks existence and permission.
    if unsafe { libc::kill(-pgid, 0) } != 0
        && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    {
        return false;
    }
    // Zombies still count for kill(); where init does not reap orphans they would keep the
    // group "alive" forever. Linux lets us look closer.
    #[cfg(target_os = "linux")]
    if let Some(live) = linux_group_has_live_member(pgid) {
        if !live {
            // Only zombies are left. A SIGKILL costs nothing and covers a /proc we misread.
            // SAFETY: as above.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
        return live;
    }
    true
}

/// Scans /proc for a non-zombie process in group `pgid`. None when /proc is not ours to read.
#[cfg(target_os = "linux")]
fn linux_group_has_live_member(pgid: libc::pid_t) -> Option<bool> {
    // A /proc of another pid namespace would show other processes: check it shows us.
    let own = std::fs::read_to_string("/proc/self/stat").ok()?;
    let own_pid: libc::pid_t = own.split_ascii_whitespace().next()?.parse().ok()?;
    // SAFETY: getpid has no preconditions.
    if own_pid != unsafe { libc::getpid() } {
        return None;
    }
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // The process may be gone by now: skip what cannot be read.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((state, pgrp)) = parse_stat(&stat)
            && pgrp == pgid
            && state != "Z"
            && state != "X"
        {
            return Some(true);
        }
    }
    Some(false)
}

/// (state, pgrp) from the text of /proc/PID/stat; the command name may hold spaces and ')'.
#[cfg(target_os = "linux")]
fn parse_stat(stat: &str) -> Option<(&str, libc::pid_t)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}

/// SIGTERM to every group, then (after `grace`) SIGKILL to those still alive. Returns as soon
/// as every group is gone, or at most 300 ms (`AFTER_KILL`) after the SIGKILL.
#[cfg(unix)]
pub async fn stop(mut groups: Vec<u32>, grace: Duration) {
    use tokio::time::Instant;
    for &g in &groups {
        signal(g, libc::SIGTERM);
    }
    let mut deadline = Instant::now() + grace;
    let mut killed = false;
    loop {
        groups.retain(|&g| alive(g));
        if groups.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            if killed {
                return;
            }
            for &g in &groups {
                signal(g, libc::SIGKILL);
            }
            killed = true;
            deadline = Instant::now() + AFTER_KILL;
        }
        tokio::time::sleep(POLL).await;
    }
}

#[cfg(not(unix))]
pub async fn stop(groups: Vec<u32>, _grace: Duration) {
    use std::process::Stdio;
    for pid in groups {
        let _ = tokio::process::Command::new("taskkill")
            .args(["/PID", &pid.to_string(), "/T", "/F"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
    }
}

/// [`stop`] for one group without the runtime (for `Drop`): the thread sleeps between looks,
/// and after the SIGKILL it does not wait.
#[cfg(unix)]
pub fn stop_blocking(pgid: u32, grace: Duration) {
    signal(pgid, libc::SIGTERM);
    let deadline = std::time::Instant::now() + grace;
    while std::time::Instant::now() < deadline {
        if !alive(pgid) {
            return;
        }
        std::thread::sleep(POLL.min(grace));
    }
    signal(pgid, libc::SIGKILL);
}

#[cfg(not(unix))]
pub fn stop_blocking(_pgid: u32, _grace: Duration) {}

/// SIGKILLs the group when dropped, unless [`KillOnDrop::disarm`]ed first: a runner whose
/// future is dropped mid-run must not leave its group behind. A group led by the sandbox
/// helper ([`KillOnDrop::supervised`]) gets SIGTERM instead: the helper then ends everything
/// below it, also what left the group, on its own (a SIGKILL would end the helper first).
#[cfg_attr(not(unix), allow(dead_code))]
#[derive(Debug)]
pub struct KillOnDrop {
    pgid: Option<u32>,
    supervised: bool,
}

impl KillOnDrop {
    /// Guards group `pgid` (None: nothing to guard, e.g. a child already reaped).
    pub fn new(pgid: Option<u32>) -> Self {
        Self {
            pgid,
            supervised: false,
        }
    }

    /// Guards group `pgid` whose leader is the sandbox helper (`sayso __sandbox-exec`).
    pub fn supervised(pgid: Option<u32>) -> Self {
        Self {
            pgid,
            supervised: true,
        }
    }

    /// The guarded group, until disarmed.
    pub fn pgid(&self) -> Option<u32> {
        self.pgid
    }

    /// The group was dealt with (or is not ours to kill any more): dropping does nothing.
    pub fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pgid) = self.pgid.take() {
            signal(
                pgid,
                if self.supervised {
                    libc::SIGTERM
                } else {
                    libc::SIGKILL
                },
            );
        }
        // Elsewhere `kill_on_drop` kills the child.
    }
}

#[cfg(target_os = "linux")]
pub mod tree;

#[cfg(all(test, unix))]
mod tests;
