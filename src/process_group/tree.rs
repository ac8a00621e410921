//! The processes below one process, from `/proc` (Linux): what the sandbox helper
//! (`crate::sandbox::supervise`) ends when a confined command is over, including what left the
//! command's group with `setsid` or was double-forked (reparented to the helper, a
//! child-subreaper, rather than to init).
//!
//! A snapshot: a process forked after the scan is not in it (the caller scans again until
//! nothing is left). Processes that cannot be read (gone meanwhile) are skipped. Pure parsing
//! ([`parent_of`], [`below`]) is split from the scan so it is tested without processes.

use std::collections::HashMap;

/// The parent pid in the text of `/proc/PID/stat` (the command name may hold spaces and ')').
pub fn parent_of(stat: &str) -> Option<i32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let _state = fields.next()?;
    fields.next()?.parse().ok()
}

/// The pids below `root` in a (pid, parent) list, parents before their children.
pub fn below(root: i32, procs: &[(i32, i32)]) -> Vec<i32> {
    let mut children: HashMap<i32, Vec<i32>> = HashMap::new();
    for &(pid, parent) in procs {
        if pid != root {
            children.entry(parent).or_default().push(pid);
        }
    }
    let mut out = Vec::new();
    let mut next = vec![root];
    while let Some(p) = next.pop() {
        if let Some(kids) = children.remove(&p) {
            out.extend(&kids);
            next.extend(kids);
        }
    }
    out
}

/// Every process below `root` now, read from `/proc` (empty when `/proc` cannot be read).
pub fn descendants(root: i32) -> Vec<i32> {
    below(root, &processes())
}

/// The children of `root` now, read from `/proc`.
pub fn children(root: i32) -> Vec<i32> {
    processes()
        .into_iter()
        .filter(|&(pid, parent)| parent == root && pid != root)
        .map(|(pid, _)| pid)
        .collect()
}

/// Every process `/proc` shows, with its parent.
fn processes() -> Vec<(i32, i32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            Some((pid, parent_of(&stat)?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parent_is_read_past_a_name_with_parentheses() {
        assert_eq!(parent_of("12 (sh) S 1 12 12 0 -1"), Some(1));
        assert_eq!(parent_of("13 (a b) c) Z 12 77 12"), Some(12));
        assert_eq!(parent_of("14 (x) R"), None);
        assert_eq!(parent_of("no name"), None);
    }

    #[test]
    fn below_follows_every_generation_and_nothing_else() {
        // 10 → 11 → 12 → 13, 10 → 14; 20 is someone else's, 1 is init.
        let procs = [
            (1, 0),
            (10, 1),
            (11, 10),
            (12, 11),
            (13, 12),
            (14, 10),
            (20, 1),
        ];
        let mut got = below(10, &procs);
        got.sort_unstable();
        assert_eq!(got, [11, 12, 13, 14]);
        assert!(below(13, &procs).is_empty());
        assert!(below(99, &procs).is_empty());
    }

    #[test]
    fn this_process_has_its_child_below_it() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep");
        let me = i32::try_from(std::process::id()).expect("a pid");
        let kid = i32::try_from(child.id()).expect("a pid");
        assert!(descendants(me).contains(&kid));
        assert!(children(me).contains(&kid));
        let _ = child.kill();
        let _ = child.wait();
    }
}
