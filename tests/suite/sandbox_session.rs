//! Issue 36, item 3: no terminal inside the sandbox, and nothing left running — through the
//! real binary, with each Linux backend forced in the test home's config.
//!
//! - Under Landlock (where bubblewrap cannot create namespaces), a command used to own the
//!   terminal sayso runs in: it could write escape sequences and a fake box to `/dev/pts/N`
//!   and read the keys typed into the composer, and a reader it left in the background kept
//!   reading after the call. Now the terminals in `/dev` are hidden and `/dev/tty` is no
//!   one's (a command has no controlling terminal). Checked in tmux under both backends (the
//!   bubblewrap cases held before), on the pane's own tty (never every `/dev/pts/*`: other
//!   tests' panes are there too).
//! - Under both backends, what a confined command leaves running (a `( … ) &`, a `setsid`, a
//!   double fork) is gone when the call ends, and so is what a command stopped by its timeout
//!   started, TERM ignored or not. Unconfined (`--sandbox off`) a background process is left
//!   running, as the README says (the way to keep a server up).
//!
//! Processes are found by a token in their command line (`sleep 3600.<token>`), which works
//! across bubblewrap's PID namespace.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::{Tui, WAIT, quote};
use crate::support::{home_with, result_of, run, sayso};

static NEXT: AtomicUsize = AtomicUsize::new(0);

fn run_command(id: &str, cmd: &str) -> Reply {
    calls(&[(id, "run_command", json!({ "cmd": cmd }))])
}

/// The user config of these tests: the fixture, no judge, the sandbox on with `backend`.
fn config(base_url: &str, backend: &str) -> String {
    format!(
        "model = \"m\"\n[provider]\nbase_url = \"{base_url}\"\nmax_retries = 0\n[judge]\nenabled = false\n[sandbox]\nmode = \"workspace-write\"\nbackend = \"{backend}\"\n"
    )
}

/// sayso in tmux with `config` from a file outside its home, in trust mode (commands run
/// unasked, still sandboxed).
fn tui_with(config: &str) -> (tempfile::TempDir, Tui) {
    let aside = tempfile::tempdir().unwrap();
    let file = aside.path().join("config.toml");
    std::fs::write(&file, config).unwrap();
    let file = file.display().to_string();
    let tui = Tui::start_unconfigured(&[], &["-c", &file, "--approval-mode", "trust"]);
    (aside, tui)
}

/// Copies what the pane's program and anything else writes to its tty from now on into a
/// file (tmux `pipe-pane -O`).
fn log_output(tui: &Tui) -> std::path::PathBuf {
    let log = tui.root_path().join("pane.out");
    let pipe = format!("cat >> {}", quote(log.display()));
    assert!(
        tui.tmux(&["pipe-pane", "-O", "-t", "e2e", &pipe])
            .status
            .success()
    );
    log
}

/// The pane's tty, `/dev/pts/N`.
fn pane_tty(tui: &Tui) -> String {
    let tty = tui.pane("#{pane_tty}");
    assert!(tty.starts_with("/dev/pts/"), "{tty}");
    tty
}

/// A command writes an OSC title and a fake approval box to the pane's tty and to `/dev/tty`:
/// none of it reaches the terminal, the title stays, and the model is told the writes were
/// refused. (The marker is put together at run time, so the command's own text, which sayso
/// shows, never holds it.) Under bubblewrap the pane's tty is not in its `/dev`, and
/// `/dev/tty` is no one's there either.
async fn a_command_cannot_draw_on_the_terminal(backend: &str) {
    let fx = Fixture::start().await;
    let (_aside, tui) = tui_with(&config(&fx.base_url(), backend));
    tui.ready().await;
    let tty = pane_tty(&tui);
    let title = tui.pane("#{pane_title}");
    let log = log_output(&tui);
    let cmd = format!(
        "m=FAKE; m=${{m}}BOX; for t in {tty} /dev/tty; do \
         printf '\\033]2;TITLE%s\\007\\033[5;5H+-- Approval needed: %s --+' \"$m\" \"$m\" > $t \
         || echo \"refused $t\"; done; echo tried"
    );
    fx.push(run_command("c1", &cmd));
    fx.push(Reply::Stream(sse::text_reply(&["All done."])));
    tui.send("draw over sayso").await;
    tui.wait_for("All done.").await;
    // What reached the tty, up to sayso's own "All done." (pipe-pane copies in order).
    let written = wait_for_log(&log, "done.").await;
    assert!(
        !written.contains("FAKEBOX"),
        "the command wrote to the terminal:\n{written}"
    );
    let now = tui.pane("#{pane_title}");
    assert!(!now.contains("FAKEBOX"), "the title changed to {now:?}");
    assert_eq!(now, title);
    let result = result_of(&fx, "c1");
    for t in [tty.as_str(), "/dev/tty"] {
        assert!(result.contains(&format!("refused {t}")), "{result}");
    }
}

/// A command starts a reader of the pane's tty in the background and returns; then the user
/// types into the composer: every key reaches sayso, the reader read nothing (it could not
/// open the tty, and it would not have outlived the call anyway).
async fn a_command_cannot_read_the_keys_typed_into_sayso(backend: &str) {
    let fx = Fixture::start().await;
    let (_aside, tui) = tui_with(&config(&fx.base_url(), backend));
    tui.ready().await;
    let tty = pane_tty(&tui);
    let stolen = tui.work().join("stolen.txt");
    let cmd = format!(
        "(cat {tty} > {} 2>&1 &); echo reader-started",
        quote(stolen.display())
    );
    fx.push(run_command("c1", &cmd));
    fx.push(Reply::Stream(sse::text_reply(&["All done."])));
    tui.send("start a reader").await;
    tui.wait_for("All done.").await;
    assert!(result_of(&fx, "c1").contains("reader-started"));

    let secret = "hunter2-typed-after-the-call";
    tui.type_text(secret);
    let start = Instant::now();
    let mut screen = tui.screen();
    while !screen.contains(secret) && start.elapsed() < WAIT {
        tokio::time::sleep(Duration::from_millis(50)).await;
        screen = tui.screen();
    }
    let read = std::fs::read_to_string(&stolen).unwrap_or_default();
    assert!(
        !read.contains("hunter") && !read.contains("typed"),
        "the reader got the keys: {read:?}"
    );
    assert!(
        screen.contains(secret),
        "keys typed into the composer went missing:\n{screen}"
    );
}

/// A token no other test's command line holds.
fn token() -> String {
    format!(
        "{}{:03}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// The processes alive (not zombies) whose command line starts with `needle` (not the shells
/// whose script holds it).
fn alive_with(needle: &str) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let state = stat[stat.rfind(')')? + 1..].split_whitespace().next()?;
            (cmdline.starts_with(needle) && state != "Z").then_some(pid)
        })
        .collect()
}

/// A command that leaves three sleepers behind — in its group, in a session of its own, and
/// double-forked — each with `sleep 3600.<tok><n>`; and the needles that find them.
fn leaves_three(tok: &str, marker_dir: &Path) -> (String, Vec<String>) {
    let m = |n: u8| quote(marker_dir.join(format!("marker{n}")).display());
    let cmd = format!(
        "(sleep 3600.{tok}1; touch {m1}) & \
         setsid sh -c 'sleep 3600.{tok}2; touch {m2}' & \
         sh -c '(sleep 3600.{tok}3; touch {m3}) &'; \
         sleep 0.2; echo started",
        m1 = m(1),
        m2 = m(2),
        m3 = m(3),
    );
    let needles = (1..=3).map(|n| format!("sleep 3600.{tok}{n}")).collect();
    (cmd, needles)
}

/// Kills what the needles find (an unconfined run's leftovers, a failing run's).
fn kill_all(needles: &[String]) {
    for n in needles {
        for pid in alive_with(n) {
            // SAFETY: kill has no memory-safety preconditions.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Runs `cmd` as the model's one call, headless in trust mode with `backend` (`None`: the
/// sandbox off), and `extra` config; the call's result.
async fn headless(backend: Option<&str>, cmd: &str, extra: &str) -> String {
    let fx = Fixture::start().await;
    fx.push(run_command("c1", cmd));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let home = home_with(&fx.base_url(), "");
    let full = match backend {
        Some(b) => config(&fx.base_url(), b),
        None => format!(
            "model = \"m\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 0\n[judge]\nenabled = false\n[sandbox]\nmode = \"off\"\n",
            fx.base_url()
        ),
    };
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!("{full}{extra}"),
    )
    .unwrap();
    let mut c = sayso(home.path());
    c.args(["--approval-mode", "trust", "-p", "go"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    result_of(&fx, "c1")
}

/// A confined command that exits normally leaves nothing running under `backend`; the same
/// command unconfined leaves its sleepers (the documented way to keep something up).
async fn a_finished_command_leaves_nothing_running(backend: &str) {
    let markers = tempfile::tempdir().unwrap();
    let tok = token();
    let (cmd, needles) = leaves_three(&tok, markers.path());
    let result = headless(Some(backend), &cmd, "").await;
    let left: Vec<(String, Vec<i32>)> =
        needles.iter().map(|n| (n.clone(), alive_with(n))).collect();
    kill_all(&needles);
    assert!(result.contains("started"), "{result}");
    for (needle, pids) in &left {
        assert!(
            pids.is_empty(),
            "{backend}: `{needle}` outlived the call: {pids:?}"
        );
    }

    let tok = token();
    let (cmd, needles) = leaves_three(&tok, markers.path());
    let result = headless(None, &cmd, "").await;
    let left = alive_with(&needles[0]);
    kill_all(&needles);
    assert!(result.contains("started"), "{result}");
    assert_eq!(
        left.len(),
        1,
        "unconfined, the background job keeps running"
    );
}

/// A confined command stopped by its timeout — the shell and an escapee both ignoring SIGTERM
/// — leaves nothing running under `backend`.
async fn a_timed_out_command_leaves_nothing_running(backend: &str) {
    let tok = token();
    let cmd =
        format!("trap '' TERM; setsid sh -c 'sleep 3600.{tok}1' & sleep 3600.{tok}2; echo never");
    let needles: Vec<String> = (1..=2).map(|n| format!("sleep 3600.{tok}{n}")).collect();
    let result = headless(
        Some(backend),
        &cmd,
        "[tools.run_command.opts]\ntimeout = 1500\n",
    )
    .await;
    let left: Vec<(String, Vec<i32>)> =
        needles.iter().map(|n| (n.clone(), alive_with(n))).collect();
    kill_all(&needles);
    assert!(result.contains("timed out"), "{result}");
    for (needle, pids) in &left {
        assert!(
            pids.is_empty(),
            "{backend}: `{needle}` outlived the timeout: {pids:?}"
        );
    }
}

/// The command cannot end the helper that ends its leftovers: SIGKILL and SIGSTOP to the
/// helper, to its group and to `kill(0)` are refused by the seccomp filter alone (checked
/// without Landlock, whose ABI 6 scoping would refuse them too: kernels before it rely on the
/// filter), and what the command left behind is still ended. (`kill(-1)` is refused as well,
/// but not tried here: unrefused, it would signal every process the test may signal.)
#[test]
fn the_command_cannot_kill_or_stop_the_helper() {
    use std::os::unix::process::CommandExt;
    let tok = token();
    let script = format!(
        "[ \"$(cat /proc/$PPID/comm)\" = sayso ] || {{ echo not-under-the-helper; exit 9; }}; \
         for t in $PPID -$PPID 0; do \
         kill -KILL -- $t 2>/dev/null || echo refused-kill; \
         kill -STOP -- $t 2>/dev/null || echo refused-stop; done; \
         (sleep 3600.{tok}1 &); echo started"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sayso"))
        .args([
            "__sandbox-exec",
            r#"{"n":false}"#,
            "--",
            "sh",
            "-c",
            &script,
        ])
        .process_group(0)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let left = alive_with(&format!("sleep 3600.{tok}1"));
    kill_all(&[format!("sleep 3600.{tok}1")]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        said,
        "refused-kill\nrefused-stop\n".repeat(3) + "started\n",
        "{out:?}"
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        left.is_empty(),
        "the sleeper outlived the command: {left:?}"
    );
}

/// Quitting sayso (Ctrl+D) while a confined command runs — the shell and an escapee both
/// ignoring SIGTERM — leaves nothing of it running once sayso is gone.
async fn quitting_while_a_command_runs_leaves_nothing_running(backend: &str) {
    let fx = Fixture::start().await;
    let (_aside, tui) = tui_with(&config(&fx.base_url(), backend));
    tui.ready().await;
    let tok = token();
    let cmd =
        format!("trap '' TERM; setsid sh -c 'sleep 3600.{tok}1' & sleep 3600.{tok}2; echo never");
    let needles: Vec<String> = (1..=2).map(|n| format!("sleep 3600.{tok}{n}")).collect();
    fx.push(run_command("c1", &cmd));
    tui.send("start something long").await;
    let start = Instant::now();
    while needles.iter().any(|n| alive_with(n).is_empty()) {
        assert!(start.elapsed() < WAIT, "the command never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tui.keys(&["C-d"]);
    tui.exit_code().await;
    // The helper ends them on its own after sayso is gone: give it its grace.
    let start = Instant::now();
    while needles.iter().any(|n| !alive_with(n).is_empty()) && start.elapsed() < WAIT {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left: Vec<(String, Vec<i32>)> =
        needles.iter().map(|n| (n.clone(), alive_with(n))).collect();
    kill_all(&needles);
    for (needle, pids) in &left {
        assert!(
            pids.is_empty(),
            "{backend}: `{needle}` outlived sayso: {pids:?}"
        );
    }
}

/// sayso killed (SIGKILL, nothing of it runs on) while a confined command runs — the shell and
/// an escapee both ignoring SIGTERM — leaves nothing of it running: the helper is told its
/// parent is gone and stops the command, as bubblewrap's `--die-with-parent` does.
async fn sayso_killed_while_a_command_runs_leaves_nothing_running(backend: &str) {
    let fx = Fixture::start().await;
    let tok = token();
    let cmd =
        format!("trap '' TERM; setsid sh -c 'sleep 3600.{tok}1' & sleep 3600.{tok}2; echo never");
    let needles: Vec<String> = (1..=2).map(|n| format!("sleep 3600.{tok}{n}")).collect();
    fx.push(run_command("c1", &cmd));
    let home = home_with(&fx.base_url(), "");
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        config(&fx.base_url(), backend),
    )
    .unwrap();
    let mut c = sayso(home.path());
    c.args(["--approval-mode", "trust", "-p", "go"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut running = c.spawn().unwrap();
    let start = Instant::now();
    while needles.iter().any(|n| alive_with(n).is_empty()) {
        assert!(start.elapsed() < WAIT, "the command never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    running.kill().await.unwrap();
    let start = Instant::now();
    while needles.iter().any(|n| !alive_with(n).is_empty()) && start.elapsed() < WAIT {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left: Vec<(String, Vec<i32>)> =
        needles.iter().map(|n| (n.clone(), alive_with(n))).collect();
    kill_all(&needles);
    for (needle, pids) in &left {
        assert!(
            pids.is_empty(),
            "{backend}: `{needle}` outlived sayso: {pids:?}"
        );
    }
}

/// The copy of the pane's output once it holds `end` (the copy lags the screen a little).
async fn wait_for_log(log: &Path, end: &str) -> String {
    let start = Instant::now();
    loop {
        let written = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
        if written.contains(end) || start.elapsed() > WAIT {
            return written;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

macro_rules! each_backend {
    ($($name:ident),* $(,)?) => {
        mod bubblewrap {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name("bubblewrap").await })*
        }
        mod landlock {
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() { super::$name("landlock").await })*
        }
    };
}

each_backend!(
    a_command_cannot_draw_on_the_terminal,
    a_command_cannot_read_the_keys_typed_into_sayso,
    a_finished_command_leaves_nothing_running,
    a_timed_out_command_leaves_nothing_running,
    quitting_while_a_command_runs_leaves_nothing_running,
    sayso_killed_while_a_command_runs_leaves_nothing_running,
);
