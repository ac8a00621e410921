//! Taking secret variables out of sayso's own environment at start: each value is captured, the
//! variable is removed (so no child process, whoever spawns it, can inherit it), and its bytes
//! in the initial environment block are overwritten with NUL (so `/proc/<pid>/environ` of sayso
//! shows no secret, even to root). The process is then made non-dumpable (no core dump, no
//! ptrace attach, `/proc/<pid>/` owned by root).
//!
//! Must run before any other thread starts: it changes the environment. Not here: which names
//! are secret (the config), and reading them afterwards ([`super::Vault`]).

#[cfg(unix)]
use std::ffi::{CStr, c_char};

/// Takes each variable in `names` out of the environment and overwrites its bytes; returns the
/// (name, value) pairs that were set.
///
/// # Safety
/// No other thread may read or change the environment while this runs.
pub unsafe fn take(names: &[String]) -> Vec<(String, String)> {
    let mut taken = Vec::new();
    let block = initial_block();
    for name in names {
        if name.is_empty() || name.contains(['=', '\0']) {
            continue;
        }
        let Some(value) = std::env::var_os(name) else {
            continue;
        };
        taken.push((name.clone(), value.to_string_lossy().into_owned()));
        // SAFETY: the caller guarantees no other thread touches the environment.
        let entries = unsafe { entries_named(name) };
        // SAFETY: as above.
        unsafe { std::env::remove_var(name) };
        for entry in entries {
            let (start, len) = entry;
            let inside = block.is_none_or(|(lo, hi)| start >= lo && start + len <= hi);
            if inside {
                // SAFETY: `entry` is a NUL-terminated string of the environment of `len` bytes
                // that we own (the kernel's block on the stack, or a copy libc made), checked to
                // lie inside the initial block when its bounds are known.
                unsafe { wipe(start as *mut u8, len) };
            }
        }
    }
    taken
}

/// Makes the process non-dumpable (Linux); elsewhere nothing.
pub fn forbid_dumps() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_SET_DUMPABLE takes one integer argument.
        let rc = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
        if rc != 0 {
            tracing::warn!("cannot make the process non-dumpable");
        }
    }
}

#[cfg(unix)]
unsafe extern "C" {
    static mut environ: *mut *mut c_char;
}

/// Elsewhere the variables are removed, and no block is overwritten.
#[cfg(not(unix))]
unsafe fn entries_named(_name: &str) -> Vec<(usize, usize)> {
    Vec::new()
}

/// The address and length of every `NAME=…` entry of the environment for `name`.
///
/// # Safety
/// No other thread may change the environment while this runs.
#[cfg(unix)]
unsafe fn entries_named(name: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let prefix = format!("{name}=");
    // SAFETY: `environ` is the NULL-terminated array of the process's environment strings.
    let mut p = unsafe { environ };
    if p.is_null() {
        return out;
    }
    loop {
        // SAFETY: `p` stays inside the array until its NULL terminator.
        let entry = unsafe { *p };
        if entry.is_null() {
            break;
        }
        // SAFETY: every entry is a NUL-terminated string.
        let bytes = unsafe { CStr::from_ptr(entry) }.to_bytes();
        if bytes.starts_with(prefix.as_bytes()) {
            out.push((entry as usize, bytes.len()));
        }
        // SAFETY: not yet at the terminator.
        p = unsafe { p.add(1) };
    }
    out
}

/// Overwrites `len` bytes at `at` with NUL, writes the compiler may not drop.
///
/// # Safety
/// `at..at + len` must be writable memory no one else uses.
unsafe fn wipe(at: *mut u8, len: usize) {
    for i in 0..len {
        // SAFETY: inside the range the caller vouches for.
        unsafe { std::ptr::write_volatile(at.add(i), 0) };
    }
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
}

/// The bounds of the environment block the kernel gave the process (`env_start`, `env_end` of
/// `/proc/self/stat`, Linux 3.5+), when they can be read.
fn initial_block() -> Option<(usize, usize)> {
    #[cfg(target_os = "linux")]
    {
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let (_, rest) = stat.rsplit_once(')')?;
        // Fields after the command name start at field 3 (state); env_start is field 50.
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let start = fields.get(50 - 3)?.parse().ok()?;
        let end = fields.get(51 - 3)?.parse().ok()?;
        (start < end).then_some((start, end))
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn the_initial_block_is_found_and_holds_the_environment() {
        let (start, end) = initial_block().expect("env_start/env_end");
        // SAFETY: reading our own environment array; the test changes nothing.
        let entries = unsafe { entries_named("PATH") };
        let &(at, len) = entries.first().expect("PATH is set");
        assert!(at >= start && at + len <= end, "PATH lies in the block");
    }
}
