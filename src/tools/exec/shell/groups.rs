//! [`Jobs`], the registry of process groups function tools start, killed together on cancel
//! (SPEC §4.2 `register_job`). Signalling, liveness and stopping are
//! [`crate::process_group`]'s.
//!
//! On non-unix systems an id is a pid, and its process tree is killed with `taskkill /T`.

use std::sync::{Arc, Mutex};

use super::KILL_GRACE;

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
        crate::process_group::stop(groups, KILL_GRACE).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u32>> {
        self.groups
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
