//! `[sandbox]` through the real binary: a project file that would loosen it is refused with
//! file:line, an allow rule that lifts it is the user's alone, `sayso config check` shows the
//! sandbox in force, a run where no backend works says so at the start, and in tmux the status
//! bar shows the sandbox mode and `/sandbox` the policy (`--sandbox` reflected in both).
//!
//! These expect a working backend on Linux (bubblewrap, installed here and in CI): a machine
//! without one fails them, never skips them.

use std::path::Path;

use pretty_assertions::assert_eq;

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::Tui;
use crate::support::{Output, home_with, run, sayso};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `sayso config check` (plus `args`) in `home`, which is also the working directory.
async fn check(home: &Path, args: &[&str]) -> Output {
    let mut cmd = sayso(home);
    cmd.args(["config", "check"]).args(args);
    run(cmd).await
}

/// The `sandbox:` line of `config check` and the ones under it.
fn sandbox_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("sandbox:"))
        .take_while(|l| l.starts_with("sandbox:") || l.starts_with("  "))
        .collect()
}

#[tokio::test]
async fn config_check_shows_the_sandbox_in_force() {
    let home = tempfile::tempdir().unwrap();
    let out = check(home.path(), &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = sandbox_lines(&out.stdout);
    assert!(
        lines.first().is_some_and(
            |l| l.starts_with("sandbox:      workspace-write (bubblewrap (")
                && l.ends_with("), network denied")
        ),
        "{}",
        out.stdout
    );
    let home_dir = std::fs::canonicalize(home.path()).unwrap();
    let writable = lines.iter().find(|l| l.starts_with("  writable:")).copied();
    assert!(
        writable.is_some_and(|l| l.contains(&home_dir.display().to_string())
            || l.contains(&home.path().display().to_string())),
        "the project is writable: {}",
        out.stdout
    );

    let out = check(home.path(), &["--sandbox", "read-only"]).await;
    let lines = sandbox_lines(&out.stdout);
    assert!(
        lines[0].starts_with("sandbox:      read-only (bubblewrap ("),
        "{}",
        out.stdout
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("  writable:")),
        "{}",
        out.stdout
    );

    let out = check(home.path(), &["--sandbox", "off"]).await;
    assert_eq!(
        sandbox_lines(&out.stdout),
        ["sandbox:      off: commands run unconfined"]
    );

    write(
        &home.path().join("config/sayso/config.toml"),
        "[sandbox]\nnetwork = true\n",
    );
    let out = check(home.path(), &[]).await;
    assert!(
        sandbox_lines(&out.stdout)[0].ends_with("network allowed"),
        "{}",
        out.stdout
    );
}

/// A backend this platform does not have: the sandbox falls back to off, and says why.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn without_a_backend_config_check_and_a_run_say_the_sandbox_is_off() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "[sandbox]\nbackend = \"seatbelt\"\n");
    let out = check(home.path(), &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = sandbox_lines(&out.stdout);
    assert!(
        lines[0].starts_with("sandbox:      off (no backend): workspace-write was asked for, but ")
            && lines[0].ends_with("; commands run unconfined"),
        "{}",
        out.stdout
    );

    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("the sandbox is off: `workspace-write` was asked for, but ")
            && out
                .stderr
                .contains("commands run unconfined (`sayso config check` shows the policy)"),
        "{}",
        out.stderr
    );
}

/// Landlock forced: what it cannot enforce is said by `config check` and at a run's start.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn landlock_forced_says_what_it_cannot_enforce() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "[sandbox]\nbackend = \"landlock\"\n");
    let out = check(home.path(), &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = sandbox_lines(&out.stdout);
    assert!(
        lines[0].starts_with("sandbox:      workspace-write (Landlock ABI "),
        "{}",
        out.stdout
    );
    let protected = "  cannot enforce: the project's .git, .sayso, .gitattributes and .gitmodules stay writable";
    assert!(
        lines.iter().any(|l| l.starts_with(protected)),
        "{}",
        out.stdout
    );

    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "the sandbox (workspace-write) cannot enforce: the project's .git, .sayso, .gitattributes and .gitmodules stay writable"
        ),
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn a_project_file_that_would_loosen_the_sandbox_is_refused_with_its_line() {
    let home = tempfile::tempdir().unwrap();
    write(
        &home.path().join("config/sayso/config.toml"),
        "[sandbox]\nmode = \"read-only\"\n",
    );
    let project = home.path().join(".sayso/config.toml");
    write(
        &project,
        "model = \"m\"\n[sandbox]\nmode = \"workspace-write\"\nnetwork = true\nwritable_roots = [\"/\"]\n",
    );
    let out = check(home.path(), &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    for (line, key) in [(3, "mode"), (4, "network"), (5, "writable_roots")] {
        let want = format!(
            "sayso: warning: {}:{line}: ignoring `sandbox.{key} = ",
            project.display()
        );
        assert!(out.stderr.contains(&want), "{want}\n{}", out.stderr);
    }
    assert!(
        out.stderr
            .contains("a project config may tighten the sandbox, never loosen it"),
        "{}",
        out.stderr
    );
    // The user's policy stays in force.
    let lines = sandbox_lines(&out.stdout);
    assert!(
        lines[0].starts_with("sandbox:      read-only (") && lines[0].ends_with("network denied"),
        "{}",
        out.stdout
    );

    // Tightening is taken.
    write(&project, "[sandbox]\nmode = \"read-only\"\n");
    write(&home.path().join("config/sayso/config.toml"), "");
    let out = check(home.path(), &[]).await;
    assert_eq!(out.stderr, "");
    assert!(
        sandbox_lines(&out.stdout)[0].starts_with("sandbox:      read-only ("),
        "{}",
        out.stdout
    );
}

#[tokio::test]
async fn only_the_users_own_allow_rules_may_lift_the_sandbox() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".sayso/config.toml");
    write(
        &project,
        "[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"npm ci\"\ndecision = \"allow\"\nsandbox = false\n",
    );
    let out = check(home.path(), &[]).await;
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr.starts_with(&format!(
            "sayso: error: {}:1: key `approvals.rules`: `sandbox` and `network` may be set only by your user config's allow rules",
            project.display()
        )),
        "{}",
        out.stderr
    );
    std::fs::remove_file(&project).unwrap();

    let user = home.path().join("config/sayso/config.toml");
    write(
        &user,
        "model = \"m\"\n[[approvals.rules]]\nmatch = \"curl *\"\ndecision = \"deny\"\nnetwork = true\n",
    );
    let out = check(home.path(), &[]).await;
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr.contains(&format!(
            "{}:2: key `approvals.rules`: `sandbox` and `network` are for allow rules",
            user.display()
        )),
        "{}",
        out.stderr
    );

    write(
        &user,
        "[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"npm ci\"\ndecision = \"allow\"\nsandbox = false\nnetwork = true\n",
    );
    let mut cmd = sayso(home.path());
    cmd.arg("approvals");
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("run_command match \"npm ci\" → allow, sandbox = false, network = true"),
        "{}",
        out.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_bar_shows_the_sandbox_and_slash_sandbox_the_policy() {
    let fx = Fixture::start().await;
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    let screen = tui.wait_for("sandbox: workspace-write").await;
    let bar = screen
        .lines()
        .find(|l| l.contains("sandbox: workspace-write"))
        .unwrap_or_default();
    assert!(
        bar.starts_with(" BALANCED  sandbox: workspace-write · "),
        "{screen}"
    );
    tui.send("/sandbox").await;
    let screen = tui.wait_for("cannot enforce:").await;
    for want in [
        "sandbox: workspace-write — bubblewrap (",
        "network:          denied",
        "writable:",
        "kept read-only:",
        "/work/.git",
        "hidden (sayso's):",
        "/config/sayso",
    ] {
        assert!(screen.contains(want), "{want}\n{screen}");
    }
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_read_only_on_the_command_line_is_shown_in_the_bar_and_the_policy() {
    let fx = Fixture::start().await;
    let tui = Tui::start(&fx.base_url(), &["--sandbox", "read-only"]);
    tui.ready().await;
    let screen = tui.wait_for("sandbox: read-only").await;
    assert!(!screen.contains("workspace-write"), "{screen}");
    tui.send("/sandbox").await;
    let screen = tui.wait_for("cannot enforce:").await;
    assert!(
        screen.contains("sandbox: read-only — bubblewrap ("),
        "{screen}"
    );
    assert!(screen.contains("writable:         nothing"), "{screen}");
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());
}
