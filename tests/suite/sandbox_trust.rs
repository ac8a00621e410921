//! The hostile repositories of the trust tests (`trust_git.rs`, `hostile.rs`) once more, with
//! the sandbox as the wall (issue 22): the real binary in TRUST mode (nothing asks) with the
//! default sandbox (workspace-write), the fixture model making the calls. The git guard cannot
//! see into a script the project ships (`sh build.sh`, which runs git), so there the
//! repository's programs do run; the sandbox keeps them from writing anywhere but the project.
//! Each canary writes its marker outside the project and outside sayso's temp directory (sayso
//! runs with `TMPDIR` set to a private one); each test checks that the command really ran
//! (its output reached the model), that no marker exists, and, as a control, that the same
//! command outside sayso does leave one.
//!
//! Also: the git that `get_changed_files` starts itself runs read-only, so a git config that
//! makes git write a file (`trace2.normalTarget`, which git reads from the user's own config
//! only) writes nothing.
//!
//! These tests need a working sandbox backend (bubblewrap or Landlock): they fail, never skip,
//! without one; with `[sandbox] mode = "off"` each of them fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::hostile::git;
use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{Output, home_with, result_of, run, sayso};

const APPROVAL: &str = "Approval required for";

/// Records a failed expectation for one case and goes on with the next.
macro_rules! expect {
    ($failed:ident, $cond:expr, $($msg:tt)+) => {
        if !$cond {
            $failed.push(format!($($msg)+));
            continue;
        }
    };
}

/// A hostile project: `dir` holds the canary (`evil.sh`, which creates `PWNED` next to
/// itself, outside the project) and the repository `repo` (the project).
struct Hostile {
    dir: tempfile::TempDir,
    repo: PathBuf,
    script: String,
    marker: PathBuf,
}

fn hostile() -> Hostile {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("PWNED");
    let script = dir.path().join("evil.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch '{}'\ncat \"$@\" 2>/dev/null\nexit 0\n",
            marker.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "one\n").unwrap();
    git(&repo, &["add", "a.txt"]);
    git(&repo, &["commit", "-qm", "one"]);
    std::fs::write(repo.join("a.txt"), "one\ntwo\n").unwrap();
    Hostile {
        script: script.display().to_string(),
        marker,
        repo,
        dir,
    }
}

impl Hostile {
    fn set(&self, key: &str, value: &str) {
        git(&self.repo, &["config", key, value]);
    }

    fn ran(&self) -> bool {
        self.marker.exists()
    }

    /// `build.sh` in the project: runs `body`, then says it is done.
    fn build_script(&self, body: &str) {
        std::fs::write(
            self.repo.join("build.sh"),
            format!("{body}\necho build finished\n"),
        )
        .unwrap();
    }

    /// HEAD becomes a commit carrying a forged OpenPGP signature.
    fn sign_head(&self) {
        let out = |args: &[&str]| {
            let o = Command::new("git")
                .args(args)
                .current_dir(&self.repo)
                .output()
                .unwrap();
            String::from_utf8_lossy(&o.stdout).trim().to_owned()
        };
        let tree = out(&["rev-parse", "HEAD^{tree}"]);
        let commit = format!(
            "tree {tree}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned work\n"
        );
        let mut hash = Command::new("git")
            .args(["hash-object", "-t", "commit", "-w", "--stdin"])
            .current_dir(&self.repo)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(hash.stdin.as_mut().unwrap(), commit.as_bytes()).unwrap();
        let sha = String::from_utf8(hash.wait_with_output().unwrap().stdout).unwrap();
        git(&self.repo, &["update-ref", "HEAD", sha.trim()]);
    }

    /// The control: `cmd` run by hand in the project leaves the marker.
    fn live(&self, cmd: &str) -> bool {
        Command::new("sh")
            .args(["-c", cmd])
            .current_dir(&self.repo)
            .output()
            .unwrap();
        self.ran()
    }
}

/// sayso in TRUST mode in `cwd`, with a private `TMPDIR`, after pushing `calls` and a final
/// reply; `extra` is more user config.
async fn trusted(fx: &Fixture, cwd: &Path, extra: &str, calls: &[(&str, &str, Value)]) -> Output {
    fx.push(call_reply(calls));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), extra);
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = sayso(h.path());
    cmd.env("TMPDIR", tmp.path())
        .args(["-p", "go", "--approval-mode", "trust", "-C"])
        .arg(cwd);
    run(cmd).await
}

/// Each hostile setting, reached through a script of the project that runs git.
#[tokio::test]
async fn a_project_script_that_runs_hostile_git_leaves_no_marker_in_trust_mode() {
    type Setup = fn(&Hostile);
    let cases: &[(&str, Setup, &str)] = &[
        (
            "core.fsmonitor",
            |h| h.set("core.fsmonitor", &h.script),
            "git status",
        ),
        (
            "diff.<driver>.textconv",
            |h| {
                h.set("diff.evil.textconv", &h.script);
                std::fs::write(h.repo.join(".git/info/attributes"), "*.txt diff=evil\n").unwrap();
            },
            "git diff",
        ),
        (
            "diff.external",
            |h| h.set("diff.external", &h.script),
            "git diff",
        ),
        (
            "filter.<driver>.clean",
            |h| {
                h.set("filter.evil.clean", &h.script);
                std::fs::write(h.repo.join(".git/info/attributes"), "*.txt filter=evil\n").unwrap();
            },
            "git diff",
        ),
        (
            "gpg.program",
            |h| {
                h.sign_head();
                h.set("gpg.program", &h.script);
            },
            "git log -1 --show-signature",
        ),
        (
            "a pre-commit hook",
            |h| {
                std::fs::copy(&h.script, h.repo.join(".git/hooks/pre-commit")).unwrap();
            },
            "git -c user.name=t -c user.email=t@t commit -qam two",
        ),
    ];
    let mut failed: Vec<String> = Vec::new();
    for (what, setup, git_cmd) in cases {
        let h = hostile();
        setup(&h);
        h.build_script(git_cmd);
        let fx = Fixture::start().await;
        let out = trusted(
            &fx,
            &h.repo,
            "",
            &[(
                "c1",
                "run_command",
                json!({"cmd": "sh build.sh", "flag": null}),
            )],
        )
        .await;
        expect!(failed, out.code == 0, "{what}: {}", out.stderr);
        let content = result_of(&fx, "c1");
        expect!(
            failed,
            !content.starts_with(APPROVAL) && content.contains("build finished"),
            "{what}: the script did not run: {content}"
        );
        expect!(
            failed,
            !h.ran(),
            "{what}: the repository's program wrote outside the project: {content}"
        );
        expect!(
            failed,
            h.live("sh build.sh"),
            "{what}: the planted setting is not live"
        );
        drop(h.dir);
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// A write the sandbox refused, as the program reports it (bubblewrap's read-only mounts,
/// Landlock's denial).
fn denied(text: &str) -> bool {
    text.contains("Read-only file system") || text.contains("Permission denied")
}

/// `--output` makes git itself write where it is told: outside the project it cannot.
#[tokio::test]
async fn git_output_outside_the_project_is_refused_by_the_sandbox_in_trust_mode() {
    let mut failed: Vec<String> = Vec::new();
    for form in ["git diff --output={}", "git log -1 -p --output={}"] {
        let h = hostile();
        let cmd = form.replace("{}", &h.marker.display().to_string());
        let fx = Fixture::start().await;
        let out = trusted(
            &fx,
            &h.repo,
            "",
            &[("c1", "run_command", json!({"cmd": cmd, "flag": null}))],
        )
        .await;
        expect!(failed, out.code == 0, "{cmd}: {}", out.stderr);
        let content = result_of(&fx, "c1");
        expect!(failed, !h.ran(), "{cmd}: git wrote outside: {content}");
        expect!(
            failed,
            !content.starts_with(APPROVAL) && denied(&content),
            "{cmd}: the model is not told what failed: {content}"
        );
        expect!(failed, h.live(&cmd), "{cmd}: the control wrote nothing");
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The git `get_changed_files` runs (and its inspection's) writes nothing, whatever its
/// config says: here `trace2.normalTarget` in the user's own git config (git reads trace2
/// settings from there only) names a file outside the project.
#[tokio::test]
async fn the_git_get_changed_files_runs_cannot_write() {
    let h = hostile();
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "get_changed_files",
        json!({"source_control_state": null}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let home = home_with(&fx.base_url(), "");
    // `sayso` sets XDG_CONFIG_HOME to `home/config`: git's own user config lives beside sayso's.
    let git_config = home.path().join("config/git/config");
    std::fs::create_dir_all(git_config.parent().unwrap()).unwrap();
    std::fs::write(
        &git_config,
        format!("[trace2]\n\tnormalTarget = {}\n", h.marker.display()),
    )
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = sayso(home.path());
    cmd.env("TMPDIR", tmp.path())
        .args(["-p", "go", "--approval-mode", "trust", "-C"])
        .arg(&h.repo);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let content = result_of(&fx, "c1");
    assert!(
        content.contains("+two"),
        "get_changed_files answered: {content}"
    );
    assert!(!h.ran(), "git wrote its trace outside the project");
    // The control: the same git config, outside sayso, writes the trace.
    Command::new("git")
        .args(["diff"])
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .current_dir(&h.repo)
        .output()
        .unwrap();
    assert!(h.ran(), "the trace2 setting is not live");
}

/// The argv the git guard confines runs read-only even in its own project (the library call,
/// with the real `sayso` binary as the sandbox's helper).
#[test]
fn confined_git_writes_nothing_even_in_its_own_project() {
    use sayso::sandbox::{Mode, Places, Sandbox, Settings};
    use sayso::tools::git_guard::confined::{command_of, confined_git};
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path();
    git(repo, &["init", "-q"]);
    let places = Places {
        helper: env!("CARGO_BIN_EXE_sayso").into(),
        ..Places::for_chat(repo, Vec::new())
    };
    let sandbox = Sandbox::new(Settings::default(), places);
    assert_ne!(
        sandbox.mode(),
        Mode::Off,
        "no backend: {:?}",
        sandbox.backend
    );
    let git_init = |sandbox: &Sandbox| {
        let program = sayso::tools::git_guard::git_program().unwrap();
        let argv = vec![
            program.display().to_string(),
            "init".into(),
            "-q".into(),
            "inner".into(),
        ];
        let argv = confined_git(sandbox, argv, repo).unwrap();
        command_of(&argv)
            .unwrap()
            .current_dir(repo)
            .output()
            .unwrap()
    };
    let out = git_init(&sandbox);
    assert!(!out.status.success(), "{out:?}");
    assert!(
        !repo.join("inner").exists(),
        "the confined git wrote the project"
    );
    let out = git_init(&Sandbox::off());
    assert!(
        out.status.success() && repo.join("inner/.git").exists(),
        "{out:?}"
    );
}
