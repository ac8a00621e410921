//! Process groups and who may signal them: the group-id checks (never 0, 1 or sayso's own
//! group), signalling a whole group, telling whether a group still has a live process (on
//! Linux, zombies left to a non-reaping init do not count), the guard that SIGKILLs a group
//! when `run_shell` is dropped mid-run, and [`Jobs`], the registry of groups function tools
//! start, killed together on cancel.
//!
//! On non-unix systems there are no groups: the guard does nothing (`kill_on_drop` kills the
//! child) and [`Jobs`] kills each registered pid's tree with `taskkill /T`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

#[cfg(not(unix))]
use std::process::Stdio;
#[cfg(not(unix))]
use tokio::process::Command;
#[cfg(unix)]
use tokio::time::Instant;

use super::KILL_GRACE;
#[cfg(unix)]
use super::POLL;

/// SIGKILLs the group if the `run_shell` future is dropped before the group was dealt with.
#[cfg_attr(not(unix), allow(dead_code))]
pub(super) struct GroupGuard {
    pub(super) pgid: Option<u32>,
}

impl GroupGuard {
    pub(super) fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pgid) = self.pgid.take() {
            signal_group(pgid, libc::SIGKILL);
        }
        // Elsewhere `kill_on_drop` kills the child.
    }
}

/// A group id we may signal: not 0 (our own group), not 1 (`kill(-1)` is everyone), and not
/// sayso's own group.
#[cfg(unix)]
pub(super) fn signalable(pgid: u32) -> Option<libc::pid_t> {
    let pgid = libc::pid_t::try_from(pgid).ok()?;
    // SAFETY: getpgrp has no preconditions.
    let own = unsafe { libc::getpgrp() };
    (pgid > 1 && pgid != own).then_some(pgid)
}

/// Sends `sig` to every process of group `pgid`.
#[cfg(unix)]
pub(super) fn signal_group(pgid: u32, sig: libc::c_int) {
    if let Some(pgid) = signalable(pgid) {
        // SAFETY: kill has no memory-safety preconditions; a negative pid names a group.
        unsafe {
            libc::kill(-pgid, sig);
        }
    }
}

/// Whether group `pgid` still has a process that is not a zombie.
#[cfg(unix)]
pub(super) fn group_alive(pgid: u32) -> bool {
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
    /// (state, pgrp) from the text of /proc/PID/stat; the command name may hold spaces and ')'.
    fn parse(stat: &str) -> Option<(&str, libc::pid_t)> {
        let rest = &stat[stat.rfind(')')? + 1..];
        let mut fields = rest.split_ascii_whitespace();
        let state = fields.next()?;
        let _ppid = fields.next()?;
        let pgrp = fields.next()?.parse().ok()?;
        Some((state, pgrp))
    }
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
        if let Some((state, pgrp)) = parse(&stat)
            && pgrp == pgid
            && state != "Z"
            && state != "X"
        {
            return Some(true);
        }
    }
    Some(false)
}

/// A registry of child process groups started by function tools, so cancellation can kill them
/// (SPEC §4.2 `register_job`). Cloning shares the registry.
#[derive(Clone, Default, Debug)]
pub struct Jobs {
    groups: Arc<Mutex<Vec<u32>>>,
}

impl Jobs {
    /// Registers a process group id (unix pgid; on other OS a pid) to kill on cancel.
    /// The group should have been started with `process_group(0)`; its leader's pid is the id.
    pub fn register(&self, pgid: u32) {
        let mut groups = self.lock();
        if !groups.contains(&pgid) {
            groups.push(pgid);
        }
    }

    /// Forgets a group (call it once the job is over, before its id can be reused).
    pub fn unregister(&self, pgid: u32) {
        self.lock().retain(|&g| g != pgid);
    }

    /// The registered ids, in registration order.
    pub fn registered(&self) -> Vec<u32> {
        self.lock().clone()
    }

    /// SIGTERM then (after grace) SIGKILL every registered group; clears the registry.
    /// Returns as soon as every group is gone.
    pub async fn kill_all(&self) {
        let groups = std::mem::take(&mut *self.lock());
        kill_groups(groups, KILL_GRACE).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u32>> {
        self.groups
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(unix)]
async fn kill_groups(mut groups: Vec<u32>, grace: Duration) {
    for &g in &groups {
        signal_group(g, libc::SIGTERM);
    }
    let deadline = Instant::now() + grace;
    loop {
        groups.retain(|&g| group_alive(g));
        if groups.is_empty() {
            return;
        }
        if Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(POLL).await;
    }
    for &g in &groups {
        signal_group(g, libc::SIGKILL);
    }
}

#[cfg(not(unix))]
async fn kill_groups(groups: Vec<u32>, _grace: Duration) {
    for pid in groups {
        let _ = Command::new("taskkill")
            .args(["/PID", &pid.to_string(), "/T", "/F"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .await;
    }
}
