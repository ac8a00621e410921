//! Tests of the parent module, with real processes.

use super::*;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::Stdio;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// `sh -c script` in its own group, stdout piped.
fn spawn(script: &str) -> Child {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    own_group(&mut cmd).spawn().expect("sh")
}

/// The first line the child prints (a pid, below).
async fn first_line(child: &mut Child) -> i32 {
    let stdout = child.stdout.take().expect("stdout");
    let line = BufReader::new(stdout)
        .lines()
        .next_line()
        .await
        .expect("read")
        .expect("a line");
    line.trim().parse().expect("a pid")
}

/// Alive and not a zombie (the init here may not reap orphans).
fn pid_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks existence.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !matches!(parse_stat(&stat), Some(("Z" | "X", _))),
        Err(_) => !cfg!(target_os = "linux"),
    }
}

fn pgid_of(child: &Child) -> u32 {
    child.id().expect("running")
}

#[test]
fn never_signals_special_groups() {
    assert_eq!(signalable(0), None);
    assert_eq!(signalable(1), None);
    // SAFETY: no preconditions.
    let own = unsafe { libc::getpgrp() } as u32;
    assert_eq!(signalable(own), None);
    assert_eq!(signalable(u32::MAX), None);
    assert_eq!(signalable(4242), Some(4242));
    // Nothing to signal, nothing alive.
    assert!(!alive(0));
    assert!(!alive(1));
}

#[test]
fn stat_lines_give_state_and_group() {
    for (stat, want) in [
        ("12 (sh) S 1 12 12 0 -1", Some(("S", 12))),
        ("13 (a b) c) Z 12 77 12 0", Some(("Z", 77))),
        ("14 (x) R 1", None),
        ("15 no name", None),
    ] {
        assert_eq!(parse_stat(stat), want, "{stat}");
    }
}

#[tokio::test]
async fn own_group_makes_the_child_a_group_leader() {
    let mut child = spawn("echo $$; sleep 30");
    let pid = first_line(&mut child).await;
    assert_eq!(pid as u32, pgid_of(&child));
    // SAFETY: getpgid has no memory-safety preconditions.
    assert_eq!(unsafe { libc::getpgid(pid) }, pid);
    stop(vec![pgid_of(&child)], Duration::from_secs(5)).await;
    child.wait().await.unwrap();
}

#[tokio::test]
async fn own_group_leads_a_session_of_its_own_without_a_terminal() {
    // Fields 6 and 7 of /proc/PID/stat: the session id and the controlling terminal.
    let mut child = spawn("echo $$ $(cut -d' ' -f6,7 /proc/$$/stat); sleep 30");
    let stdout = child.stdout.take().expect("stdout");
    let line = BufReader::new(stdout)
        .lines()
        .next_line()
        .await
        .expect("read")
        .expect("a line");
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words.len(), 3, "{line}");
    assert_eq!(words[1], words[0], "the session is the child's own: {line}");
    assert_eq!(words[2], "0", "no controlling terminal: {line}");
    stop(vec![pgid_of(&child)], Duration::from_secs(5)).await;
    child.wait().await.unwrap();
}

#[tokio::test]
async fn stop_ends_the_leader_and_its_background_children() {
    let mut child = spawn("sleep 30 & echo $!; wait");
    let bg = first_line(&mut child).await;
    let pgid = pgid_of(&child);
    assert!(alive(pgid));
    assert!(pid_alive(bg));
    stop(vec![pgid], Duration::from_secs(30)).await;
    assert!(!alive(pgid));
    assert!(!pid_alive(bg));
    // SIGTERM was enough: no SIGKILL was needed.
    let status = child.wait().await.unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM));
}

#[tokio::test]
async fn a_group_ignoring_sigterm_gets_sigkill_after_the_grace() {
    let mut child = spawn("trap '' TERM; sleep 30 & echo $!; wait");
    let bg = first_line(&mut child).await;
    let pgid = pgid_of(&child);
    stop(vec![pgid], Duration::from_millis(200)).await;
    assert!(!alive(pgid));
    assert!(!pid_alive(bg));
    let status = child.wait().await.unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
}

#[tokio::test]
async fn stop_takes_several_groups_at_once() {
    let mut a = spawn("echo $$; sleep 30");
    let mut b = spawn("echo $$; sleep 30");
    first_line(&mut a).await;
    first_line(&mut b).await;
    let groups = vec![pgid_of(&a), pgid_of(&b)];
    stop(groups.clone(), Duration::from_secs(30)).await;
    assert!(groups.iter().all(|&g| !alive(g)));
    for child in [&mut a, &mut b] {
        let status = child.wait().await.unwrap();
        assert_eq!(status.signal(), Some(libc::SIGTERM));
    }
}

/// The MCP client used to count zombies as members: a dead leader that its owner had not
/// reaped yet (or orphans of an init that never reaps) kept the group "alive" until the
/// SIGKILL and past it.
#[cfg(target_os = "linux")]
#[test]
fn a_group_of_zombies_is_not_alive() {
    let mut child = std::process::Command::new("true")
        .process_group(0)
        .stdin(Stdio::null())
        .spawn()
        .expect("true");
    let pid = child.id() as i32;
    // Not reaped: it stays a zombie until we wait.
    let mut zombie = false;
    for _ in 0..500 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        if matches!(parse_stat(&stat), Some(("Z", _))) {
            zombie = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(zombie, "`true` did not exit");
    // kill() still finds the group...
    // SAFETY: signal 0 only checks existence.
    assert_eq!(unsafe { libc::kill(-pid, 0) }, 0);
    // ...but nothing in it runs.
    assert!(!alive(child.id()));
    assert!(child.wait().unwrap().success());
}

#[tokio::test]
async fn stop_blocking_ends_a_group_without_the_runtime() {
    let mut child = spawn("echo $$; sleep 30");
    first_line(&mut child).await;
    let pgid = pgid_of(&child);
    tokio::task::spawn_blocking(move || stop_blocking(pgid, Duration::from_secs(30)))
        .await
        .unwrap();
    assert!(!alive(pgid));
    let status = child.wait().await.unwrap();
    assert_eq!(status.signal(), Some(libc::SIGTERM));
}

#[tokio::test]
async fn stop_blocking_kills_what_ignores_sigterm() {
    let mut child = spawn("trap '' TERM; echo $$; sleep 30");
    first_line(&mut child).await;
    let pgid = pgid_of(&child);
    tokio::task::spawn_blocking(move || stop_blocking(pgid, Duration::from_millis(100)))
        .await
        .unwrap();
    let status = child.wait().await.unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
}

#[tokio::test]
async fn dropping_the_guard_kills_the_group_unless_disarmed() {
    let mut child = spawn("sleep 30 & echo $!; wait");
    let bg = first_line(&mut child).await;
    let pgid = pgid_of(&child);
    let mut guard = KillOnDrop::new(Some(pgid));
    assert_eq!(guard.pgid(), Some(pgid));
    guard.disarm();
    assert_eq!(guard.pgid(), None);
    drop(guard);
    assert!(alive(pgid), "a disarmed guard signals nothing");

    drop(KillOnDrop::new(Some(pgid)));
    let status = child.wait().await.unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    while pid_alive(bg) {
        tokio::time::sleep(POLL).await;
    }
    assert!(!alive(pgid));
}
