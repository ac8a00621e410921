//! Rules and the safe list read commands as the shell does (issue 18, root 3), against the real
//! binary: the fixture model makes the calls, sayso runs headless (no one to ask), and the
//! tests look at files on disk and the tool messages sent back. Each test is an attack that
//! worked before its fix.
//!
//! The attack list (numbered as in issue 18):
//!
//! 4. Allow rules covered options that write: with `git diff *` or `git log *` allowed,
//!    `--output=FILE` wrote `.git/config` (a `core.fsmonitor` payload) or a file outside the
//!    project.
//! 5. A committed symlink into `/proc` plus the safe-listed `grep -R PATTERN .` in `--auto`
//!    returned `/proc/…/environ`: only the paths named on the command line were checked.
//! 6. With `cat *` allowed, `cat /proc/<sayso pid>/environ` ran: the `/proc` refusal applied to
//!    the auto safe list only.
//! 9. With `run_command` `rm *` denied in trust, `/bin/rm x`, `command rm x`, `env rm x`,
//!    `sh -c 'rm x'`, `$(echo rm) x`, `find . -name x -delete` (and `xargs rm`, nested shells)
//!    deleted the file.
//! 10. A `tool = "*"` path deny on `.env` / `secrets/**` stopped only `filepath` tools:
//!     `grep_search` (also with `include_pattern`), `get_changed_files` (a tracked `.env`) and
//!     in `--auto` the safe-listed `cat .env` / `grep -r X secrets` read it.
//!
//! 5 and 6 read `/proc`, so they are built on Linux only (there is no `/proc` to leak elsewhere).
//!
//! (The normaliser's table of shell forms and the modal's offers are unit-tested beside their
//! code: `tools/policy/command_safety/normalize/tests.rs`, `tools/policy/rules/tests/forms.rs`.)

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::{Output, home_with, run, sayso};
use crate::support::{result_of, tool_messages};

const NO_JUDGE: &str = "[judge]\nenabled = false\n";

/// The tool message for `id` in the last request.
fn shell(id: &str, cmd: &str) -> (String, String, Value) {
    (id.into(), "run_command".into(), json!({"cmd": cmd}))
}

/// A rule block for the user's config.
fn rule(tool: &str, key: &str, value: &str, decision: &str) -> String {
    format!(
        "\n[[approvals.rules]]\ntool = \"{tool}\"\n{key} = {}\ndecision = \"{decision}\"\n",
        toml_str(value)
    )
}

fn toml_str(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn reply(calls: &[(String, String, Value)]) -> Reply {
    let refs: Vec<(&str, &str, &Value)> = calls
        .iter()
        .map(|(i, n, a)| (i.as_str(), n.as_str(), a))
        .collect();
    call_reply(&refs)
}

/// One reply calling `calls`, then "done"; `prepare` fills the home (the working directory)
/// first; runs `sayso -p ARGS go`.
async fn one_batch(
    calls: &[(String, String, Value)],
    config: &str,
    args: &[&str],
    prepare: impl FnOnce(&Path),
) -> (Fixture, tempfile::TempDir, Output) {
    let fx = Fixture::start().await;
    fx.push(reply(calls));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), config);
    prepare(h.path());
    let mut cmd = sayso(h.path());
    cmd.arg("-p").args(args).arg("go");
    let out = run(cmd).await;
    (fx, h, out)
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

fn refused(message: &str) -> bool {
    message.starts_with("The call was denied by the approval rule")
        || message.starts_with("Approval required for `run_command`")
}

// 9 -------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_deny_rule_on_rm_in_trust_stops_every_rewrite_of_rm() {
    let forms = [
        "/bin/rm f1",
        "command rm f2",
        "env rm f3",
        "sh -c 'rm f4'",
        "$(echo rm) f5",
        "find . -name f6 -delete",
        "echo f7 | xargs rm",
        "bash -c \"sh -c 'nohup /bin/rm f8'\"",
        "LC_ALL=C timeout 5 rm f9",
        "find . -name f10 -exec rm {} +",
        "`echo rm` f11",
        "R=rm; $R f12",
    ];
    let calls: Vec<_> = forms
        .iter()
        .enumerate()
        .map(|(i, c)| shell(&format!("c{i}"), c))
        .collect();
    let (fx, h, out) = one_batch(
        &calls,
        &rule("run_command", "match", "rm *", "deny"),
        &["--approval-mode", "trust"],
        |d| {
            for i in 1..=forms.len() {
                std::fs::write(d.join(format!("f{i}")), "keep").unwrap();
            }
        },
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    for (i, form) in forms.iter().enumerate() {
        assert!(
            h.path().join(format!("f{}", i + 1)).exists(),
            "`{form}` deleted its file"
        );
        let message = result_of(&fx, &format!("c{i}"));
        assert!(refused(&message), "`{form}`: {message}");
    }
    assert!(
        result_of(&fx, "c4").contains("which sayso cannot check this command against"),
        "an opaque command says why it asks: {}",
        result_of(&fx, "c4")
    );
}

// 4 -------------------------------------------------------------------------------------------

#[tokio::test]
async fn git_diff_and_log_allowed_never_cover_output_to_a_file() {
    let outside = tempfile::tempdir().unwrap();
    let outside_file = outside.path().join("written.txt");
    let config = format!(
        "{}{}",
        rule("run_command", "match", "git diff *", "allow"),
        rule("run_command", "match", "git log *", "allow")
    );
    let calls = [
        shell("c1", "git diff --stat"),
        shell("c2", "git diff --output=.git/config"),
        shell("c3", "git diff --out=.git/hooks/pre-commit"),
        shell(
            "c4",
            &format!("git log -p --output={}", outside_file.display()),
        ),
    ];
    let config_before = std::sync::Mutex::new(String::new());
    let (fx, h, out) = one_batch(&calls, &config, &[], |d| {
        git(d, &["init", "-q"]);
        std::fs::write(d.join("a.txt"), "one\n").unwrap();
        git(d, &["add", "a.txt"]);
        git(d, &["commit", "-qm", "a"]);
        std::fs::write(d.join("a.txt"), "two\n").unwrap();
        *config_before.lock().unwrap() = std::fs::read_to_string(d.join(".git/config")).unwrap();
    })
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        result_of(&fx, "c1").contains("a.txt"),
        "the allowed form ran: {}",
        result_of(&fx, "c1")
    );
    assert_eq!(
        std::fs::read_to_string(h.path().join(".git/config")).unwrap(),
        *config_before.lock().unwrap(),
        ".git/config is unchanged"
    );
    assert!(!h.path().join(".git/hooks/pre-commit").exists());
    assert!(!outside_file.exists(), "nothing was written outside");
    for id in ["c2", "c3", "c4"] {
        let message = result_of(&fx, id);
        assert!(refused(&message), "{id}: {message}");
    }
}

// 6 -------------------------------------------------------------------------------------------

#[cfg(target_os = "linux")]
#[tokio::test]
async fn cat_allowed_never_covers_sayso_own_environ() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    // The first reply waits until the test knows sayso's pid and has scripted the next one.
    let Reply::Stream(steps) = reply(&[shell("c0", "cat notes.txt")]) else {
        unreachable!()
    };
    let mut gated = vec![Step::Gate(gate.clone())];
    gated.extend(steps);
    fx.push(Reply::Stream(gated));
    let h = home_with(
        &fx.base_url(),
        &rule("run_command", "match", "cat *", "allow"),
    );
    std::fs::write(h.path().join("notes.txt"), "hello").unwrap();
    let mut cmd = sayso(h.path());
    cmd.env("SAYSO_TEST_CANARY", "canary-6-environ")
        .arg("-p")
        .arg("go")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().expect("spawn sayso");
    let pid = child.id().expect("a pid");
    fx.push(reply(&[shell("c1", &format!("cat /proc/{pid}/environ"))]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    gate.notify_one();
    let out = child.wait_with_output().await.unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        tool_messages(&fx.requests()[1].body)[0].1,
        "`cat notes.txt`\n````\nhello\n````",
        "the allow rule covers a plain cat"
    );
    let message = result_of(&fx, "c1");
    assert!(refused(&message), "{message}");
    assert!(!message.contains("SAYSO_TEST_CANARY"), "{message}");
}

// 5 -------------------------------------------------------------------------------------------

#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_recursive_grep_that_follows_symlinks_into_proc_is_not_safe_in_auto() {
    let calls = [
        shell("c1", "grep -R -a -D skip canary-5-environ vendor"),
        shell(
            "c2",
            "grep --dereference-recursive -a -D skip canary-5-environ .",
        ),
        shell("c3", "grep -r -a -D skip canary-5-environ vendor"),
    ];
    let fx = Fixture::start().await;
    fx.push(reply(&calls));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), NO_JUDGE);
    std::fs::create_dir_all(h.path().join("vendor")).unwrap();
    // A link to a file, so the walk stays small: grep's own environment, with the canary.
    std::os::unix::fs::symlink("/proc/self/environ", h.path().join("vendor/env")).unwrap();
    let mut cmd = sayso(h.path());
    cmd.env("SAYSO_TEST_CANARY", "canary-5-environ")
        .args(["-p", "--auto", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    for id in ["c1", "c2"] {
        let message = result_of(&fx, id);
        assert!(refused(&message), "{id}: {message}");
        assert!(!message.contains("SAYSO_TEST_CANARY"), "{id}: {message}");
    }
    // `grep -r` does not follow links inside the tree: safe, and it finds nothing there.
    let plain = result_of(&fx, "c3");
    assert!(!refused(&plain), "{plain}");
    assert!(!plain.contains("SAYSO_TEST_CANARY"), "{plain}");
}

// 10 ------------------------------------------------------------------------------------------

const SECRET: &str = "sk-test-10-secret";

fn deny_env_and_secrets() -> String {
    format!(
        "{NO_JUDGE}{}{}",
        rule("*", "path", ".env", "deny"),
        rule("*", "path", "secrets/**", "deny")
    )
}

fn with_secrets(d: &Path) {
    std::fs::write(d.join(".env"), format!("KEY={SECRET}\n")).unwrap();
    std::fs::create_dir_all(d.join("secrets")).unwrap();
    std::fs::write(d.join("secrets/key.txt"), format!("KEY={SECRET}\n")).unwrap();
    std::fs::write(d.join("notes.txt"), "KEY=public\n").unwrap();
}

#[tokio::test]
async fn a_path_deny_rule_keeps_the_file_out_of_searches_and_diffs() {
    let calls = [
        (
            "c1".to_owned(),
            "grep_search".to_owned(),
            json!({"query": "KEY", "is_regexp": null, "include_pattern": null}),
        ),
        (
            "c2".to_owned(),
            "grep_search".to_owned(),
            json!({"query": "sk-test", "is_regexp": null, "include_pattern": "**/.env"}),
        ),
        (
            "c3".to_owned(),
            "get_changed_files".to_owned(),
            json!({"source_control_state": null}),
        ),
        (
            "c4".to_owned(),
            "file_search".to_owned(),
            json!({"query": "secrets/**", "max_results": null}),
        ),
    ];
    let (fx, _h, out) = one_batch(&calls, &deny_env_and_secrets(), &[], |d| {
        with_secrets(d);
        git(d, &["init", "-q"]);
        std::fs::write(d.join(".env"), "KEY=old\n").unwrap();
        git(d, &["add", "-f", ".env", "notes.txt"]);
        git(d, &["commit", "-qm", "tracked"]);
        with_secrets(d);
        std::fs::write(d.join("notes.txt"), "KEY=changed\n").unwrap();
    })
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    for id in ["c1", "c2", "c3", "c4"] {
        let message = result_of(&fx, id);
        assert!(!message.contains(SECRET), "{id}: {message}");
        assert!(
            message.contains("left out: a deny rule covers `.env`, `secrets/**`"),
            "{id} says so: {message}"
        );
    }
    assert!(
        result_of(&fx, "c1").contains("notes.txt"),
        "the rest is searched"
    );
    assert!(
        result_of(&fx, "c3").contains("KEY=changed"),
        "the other changes are shown: {}",
        result_of(&fx, "c3")
    );
}

#[tokio::test]
async fn a_path_deny_rule_stops_shell_commands_that_read_the_file_in_auto() {
    let calls = [
        shell("c1", "cat .env"),
        shell("c2", "grep -r sk-test secrets"),
        shell("c3", "grep -r sk-test ."),
        shell("c4", "cat notes.txt"),
        shell("c5", "head secrets/key.txt"),
    ];
    let (fx, _h, out) = one_batch(&calls, &deny_env_and_secrets(), &["--auto"], with_secrets).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    for id in ["c1", "c5"] {
        let message = result_of(&fx, id);
        assert!(
            message.starts_with("The call was denied by the approval rule"),
            "{id}: {message}"
        );
    }
    for id in ["c2", "c3"] {
        let message = result_of(&fx, id);
        assert!(
            message.starts_with("Approval required for `run_command`"),
            "{id}: {message}"
        );
        assert!(!message.contains(SECRET), "{id}: {message}");
    }
    assert!(
        result_of(&fx, "c4").contains("KEY=public"),
        "a file no rule covers is read: {}",
        result_of(&fx, "c4")
    );
}
