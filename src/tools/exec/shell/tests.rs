//! Tests of the parent module.

use super::*;
use std::path::{Path, PathBuf};

fn script(dir: &Path, s: &str) -> ShellSpec {
    ShellSpec {
        program: ShellProgram::Script(s.to_owned()),
        cwd: dir.to_path_buf(),
        env: ChildEnv::default(),
        timeout: None,
    }
}

async fn run(spec: &ShellSpec) -> ShellOutcome {
    run_shell(spec, &CancellationToken::new())
        .await
        .expect("spawn")
}

/// Alive and not a zombie (the init here may not reap orphans).
fn pid_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks existence.
    if unsafe { libc::kill(pid, 0) } != 0 {
        return false;
    }
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let rest = &stat[stat.rfind(')').unwrap() + 1..];
            !matches!(rest.split_ascii_whitespace().next(), Some("Z" | "X"))
        }
        Err(_) => !cfg!(target_os = "linux"),
    }
}

fn read_pid(path: PathBuf) -> i32 {
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .trim()
        .parse()
        .unwrap()
}

/// Waits (without asserting on time) until `path` exists.
async fn wait_for_file(path: &Path) {
    while !path.exists() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Runs `spec` with a timeout that fires only after the script created `ready` (once it has
/// set up what the test looks at): if a busy machine kept the script from getting there before
/// the timeout, the run is repeated with twice the timeout. So no outcome depends on how fast
/// the machine is.
async fn run_timing_out_after(mut spec: ShellSpec, ready: &Path, limits: Limits) -> ShellOutcome {
    let mut timeout = Duration::from_millis(200);
    for _ in 0..8 {
        let _ = std::fs::remove_file(ready);
        spec.timeout = Some(timeout);
        let o = run_with(&spec, &CancellationToken::new(), limits)
            .await
            .expect("spawn");
        if ready.exists() {
            return o;
        }
        timeout *= 2;
    }
    panic!(
        "the script never created {} before its timeout",
        ready.display()
    );
}

#[tokio::test]
async fn echo_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&script(dir.path(), "echo hello")).await;
    assert_eq!(o.exit_code, Some(0));
    assert_eq!(o.stdout, "hello\n");
    assert_eq!(o.stderr, "");
    assert!(o.success());
    assert!(!o.timed_out && !o.cancelled && !o.stdout_truncated);
}

#[tokio::test]
async fn non_zero_exit_captures_stderr_separately() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&script(dir.path(), "echo out; echo oops >&2; exit 3")).await;
    assert_eq!(o.exit_code, Some(3));
    assert_eq!(o.stdout, "out\n");
    assert_eq!(o.stderr, "oops\n");
    assert!(!o.success());
    assert!(!o.timed_out);
}

#[tokio::test]
async fn ansi_colours_are_stripped() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&script(
        dir.path(),
        r"printf '\033[31mred\033[0m\r\n'; printf '\033[1mb\033[0m' >&2",
    ))
    .await;
    assert_eq!(o.stdout, "red\n");
    assert_eq!(o.stderr, "b");
}

#[tokio::test]
async fn cwd_is_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&script(dir.path(), "pwd -P; echo \"$PWD\"")).await;
    let real = dir.path().canonicalize().unwrap();
    let mut lines = o.stdout.lines();
    assert_eq!(lines.next().map(PathBuf::from), Some(real));
    assert_eq!(
        lines.next().map(PathBuf::from),
        Some(dir.path().to_path_buf())
    );
}

#[tokio::test]
async fn env_is_passed() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = script(dir.path(), "printf '%s' \"$SAYSO_TEST_VAR\"");
    spec.env
        .set
        .push(("SAYSO_TEST_VAR".into(), "a value; with $stuff".into()));
    assert_eq!(run(&spec).await.stdout, "a value; with $stuff");
}

#[tokio::test]
async fn removed_variables_are_not_inherited() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = script(dir.path(), "printf '[%s][%s]' \"$HOME\" \"${PATH:+set}\"");
    spec.env.remove.push("HOME".into());
    assert_eq!(run(&spec).await.stdout, "[][set]");
}

#[tokio::test]
async fn argv_is_not_parsed_by_a_shell() {
    let dir = tempfile::tempdir().unwrap();
    let spec = ShellSpec {
        program: ShellProgram::Argv(vec![
            "printf".into(),
            "[%s]\\n".into(),
            "a b; touch injected".into(),
            "$HOME".into(),
        ]),
        ..script(dir.path(), "")
    };
    let o = run(&spec).await;
    assert_eq!(o.exit_code, Some(0));
    assert_eq!(o.stdout, "[a b; touch injected]\n[$HOME]\n");
    assert!(!dir.path().join("injected").exists());
}

#[tokio::test]
async fn spawn_failures_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let missing = ShellSpec {
        program: ShellProgram::Argv(vec!["sayso-no-such-program-xyz".into(), "x".into()]),
        ..script(dir.path(), "")
    };
    let e = run_shell(&missing, &cancel).await.unwrap_err();
    assert_eq!(
        e,
        "cannot run `sayso-no-such-program-xyz`: No such file or directory"
    );

    let empty = ShellSpec {
        program: ShellProgram::Argv(vec![]),
        ..script(dir.path(), "")
    };
    assert!(run_shell(&empty, &cancel).await.is_err());

    let gone = script(&dir.path().join("nope"), "true");
    let e = run_shell(&gone, &cancel).await.unwrap_err();
    assert!(e.contains("does not exist") && e.contains("nope"), "{e}");
}

#[tokio::test]
async fn timeout_kills_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let spec = script(
        dir.path(),
        "sleep 30 & echo started; echo $! > p.tmp; mv p.tmp pid; wait",
    );
    let o = run_timing_out_after(spec, &dir.path().join("pid"), Limits::default()).await;
    assert!(o.timed_out);
    assert!(!o.cancelled);
    assert!(!o.success());
    assert_eq!(o.exit_code, None);
    assert_eq!(o.signal, Some(libc::SIGTERM));
    assert_eq!(o.stdout, "started\n");
    let grandchild = read_pid(dir.path().join("pid"));
    assert!(!pid_alive(grandchild), "grandchild {grandchild} survived");
}

#[tokio::test]
async fn foreground_sleep_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = script(dir.path(), "sleep 30");
    spec.timeout = Some(Duration::from_millis(200));
    let o = run(&spec).await;
    assert!(o.timed_out);
    assert_eq!(o.exit_code, None);
}

#[tokio::test]
async fn sigterm_ignored_escalates_to_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    // The ignored disposition is inherited by `sleep` too.
    let spec = script(
        dir.path(),
        "trap '' TERM; sleep 30 & echo $! > p.tmp; mv p.tmp pid; wait",
    );
    let limits = Limits {
        grace: Duration::from_millis(300),
        ..Limits::default()
    };
    let o = run_timing_out_after(spec, &dir.path().join("pid"), limits).await;
    assert!(o.timed_out);
    assert_eq!(o.signal, Some(libc::SIGKILL));
    let grandchild = read_pid(dir.path().join("pid"));
    assert!(!pid_alive(grandchild), "grandchild {grandchild} survived");
}

#[tokio::test]
async fn exit_124_is_not_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&script(dir.path(), "exit 124")).await;
    assert!(!o.timed_out);
    assert_eq!(o.exit_code, Some(124));
    assert!(!o.success());

    // And a timeout is a timeout even when the script exits 124 on TERM itself.
    let spec = script(
        dir.path(),
        "trap 'exit 124' TERM; touch trapped; sleep 30 & wait",
    );
    let o = run_timing_out_after(spec, &dir.path().join("trapped"), Limits::default()).await;
    assert!(o.timed_out);
    assert_eq!(o.exit_code, Some(124));
}

#[tokio::test]
async fn cancel_kills_the_shell_and_the_jobs_it_started() {
    let dir = tempfile::tempdir().unwrap();
    // The background job would write the marker; it must die with the shell.
    let spec = script(
        dir.path(),
        "(sleep 30; touch marker) & echo $! > j.tmp; mv j.tmp job; echo $$ > s.tmp; mv s.tmp started; wait",
    );
    let cancel = CancellationToken::new();
    let trigger = {
        let cancel = cancel.clone();
        let started = dir.path().join("started");
        tokio::spawn(async move {
            wait_for_file(&started).await;
            cancel.cancel();
        })
    };
    let o = run_shell(&spec, &cancel).await.unwrap();
    trigger.await.unwrap();
    assert!(o.cancelled);
    assert!(!o.timed_out);
    assert!(!o.success());
    // `run_shell` returned once the group was gone: nothing is left that could write the marker.
    let sh = read_pid(dir.path().join("started"));
    let job = read_pid(dir.path().join("job"));
    assert!(!pid_alive(sh), "the shell {sh} survived");
    assert!(!pid_alive(job), "the background job {job} survived");
    assert!(!dir.path().join("marker").exists());
}

#[tokio::test]
async fn cancelled_before_start_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let o = run_shell(&script(dir.path(), "touch marker"), &cancel)
        .await
        .unwrap();
    assert!(o.cancelled && !o.success());
    assert!(!dir.path().join("marker").exists());
}

#[tokio::test]
async fn large_output_on_both_streams_does_not_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&script(
        dir.path(),
        "head -c 5000000 /dev/zero | tr '\\0' a >&2 & head -c 5000000 /dev/zero | tr '\\0' b; wait",
    ))
    .await;
    assert_eq!(o.exit_code, Some(0));
    assert_eq!(o.stdout.len(), 5_000_000);
    assert_eq!(o.stderr.len(), 5_000_000);
    assert!(o.stdout.bytes().all(|b| b == b'b'));
    assert!(o.stderr.bytes().all(|b| b == b'a'));
    assert!(!o.stdout_truncated && !o.stderr_truncated);
}

#[tokio::test]
async fn output_over_the_cap_keeps_the_head() {
    let dir = tempfile::tempdir().unwrap();
    let spec = script(dir.path(), "printf 'é%.0s' $(seq 1 3000)");
    let limits = Limits {
        max_bytes: 1001,
        ..Limits::default()
    };
    let o = run_with(&spec, &CancellationToken::new(), limits)
        .await
        .unwrap();
    assert_eq!(o.exit_code, Some(0));
    assert!(o.stdout_truncated);
    // 1001 bytes = 500 whole 'é' and half of one, which is dropped.
    assert_eq!(
        o.stdout,
        format!(
            "{}\n[output truncated: 5000 more bytes not shown]",
            "é".repeat(500)
        )
    );
}

#[tokio::test]
async fn invalid_utf8_is_decoded_lossily() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&script(dir.path(), r"printf 'a\377b\n'")).await;
    assert_eq!(o.stdout, "a\u{fffd}b\n");
}

#[tokio::test]
async fn background_process_holding_the_pipe_does_not_block() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&script(dir.path(), "sleep 30 & echo $! > pid; echo done")).await;
    assert_eq!(o.exit_code, Some(0));
    assert_eq!(o.stdout, "done\n");
    // Left alone by design; clean up.
    let bg = read_pid(dir.path().join("pid"));
    // SAFETY: a pid we just started.
    unsafe { libc::kill(bg, libc::SIGKILL) };
}

#[tokio::test]
async fn dropping_the_future_kills_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let spec = script(dir.path(), "sleep 30 & echo $! > p.tmp; mv p.tmp pid; wait");
    let pid_file = dir.path().join("pid");
    let cancel = CancellationToken::new();
    tokio::select! {
        _ = run_shell(&spec, &cancel) => panic!("finished on its own"),
        () = wait_for_file(&pid_file) => {}
    }
    let grandchild = read_pid(pid_file);
    while pid_alive(grandchild) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn jobs_kill_all_kills_registered_groups() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new("sh")
        .args([
            "-c",
            "sleep 30 & echo $! > pid; echo x > r.tmp; mv r.tmp ready; wait",
        ])
        .current_dir(dir.path())
        .process_group(0)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let jobs = Jobs::default();
    let pgid = child.id().unwrap();
    jobs.register(pgid);
    jobs.register(pgid);
    assert_eq!(jobs.registered(), vec![pgid]);
    wait_for_file(&dir.path().join("ready")).await;
    let grandchild = read_pid(dir.path().join("pid"));
    // A clone shares the registry.
    jobs.clone().kill_all().await;
    assert!(jobs.registered().is_empty());
    let status = child.wait().await.unwrap();
    assert_eq!(exit_signal(status), Some(libc::SIGTERM));
    assert!(!pid_alive(grandchild));

    jobs.register(7);
    jobs.unregister(7);
    assert!(jobs.registered().is_empty());
}

#[test]
fn futures_are_send() {
    fn is_send<T: Send>(_: &T) {}
    let dir = tempfile::tempdir().unwrap();
    let spec = script(dir.path(), "true");
    let cancel = CancellationToken::new();
    is_send(&run_shell(&spec, &cancel));
    is_send(&Jobs::default().kill_all());
}

#[test]
fn partial_utf8_tail_is_trimmed() {
    let mut v = "aé".as_bytes().to_vec();
    v.pop();
    trim_partial_utf8_tail(&mut v);
    assert_eq!(v, b"a");
    let mut v = "a🦀".as_bytes().to_vec();
    trim_partial_utf8_tail(&mut v);
    assert_eq!(v, "a🦀".as_bytes());
    v.truncate(3);
    trim_partial_utf8_tail(&mut v);
    assert_eq!(v, b"a");
}

/// The cap keeps the head, and the tool result keeps its tail: padding chosen so that the cap
/// cuts through a secret would show any piece of it. The output is scrubbed before the cut.
#[tokio::test]
async fn the_cap_never_cuts_a_secret_into_a_piece_the_scrubber_misses() {
    let secret = "sk-capture-cut-0123456789abcdef";
    crate::secrets::register(&[crate::secrets::Secret::new("$CAP_KEY", secret)], &[]);
    let dir = tempfile::tempdir().unwrap();
    let spec = script(
        dir.path(),
        &format!("printf 'x%.0s' $(seq 1 50); printf '{secret}'; printf 'y%.0s' $(seq 1 500)"),
    );
    let limits = Limits {
        max_bytes: 64,
        ..Limits::default()
    };
    let o = run_with(&spec, &CancellationToken::new(), limits)
        .await
        .unwrap();
    assert!(o.stdout_truncated);
    let shown = crate::secrets::scrub(&o.stdout);
    assert!(!shown.contains(&secret[..12]), "{shown}");
    assert!(shown.starts_with(&"x".repeat(50)), "{shown}");
}
