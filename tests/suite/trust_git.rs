//! Git where it actually runs (issue 18, root 2), against the real binary: hostile
//! repositories whose config names a canary script, the fixture model making the calls, the
//! binary headless (no one to ask). Each test failed before its fix; the tests look at the
//! canary, the files on disk and the tool messages sent back.
//!
//! The attack list (numbered as in issue 18):
//!
//! 1. Signature programs ran in `--auto`: `git log --show-signature`, `--pretty=%GG`,
//!    `'--format=%G?'`, `--format=%G\?`, `format:`/`tformat:` forms, `git show
//!    --show-signature`, a `pretty.<name>` alias using `%G` were on the safe list and ran the
//!    repository's `gpg.program` (`log.showSignature=false` does not cover them); a
//!    repository's `format.pretty` made plain safe-listed `git log` run it.
//! 11. Git in another repository was not inspected: `cd sub && git status` and `git -C sub
//!     status` with a hostile repository in `sub` ran its `core.fsmonitor` unasked in trust,
//!     and in auto on a judge verdict that saw only the text.
//! 16. The bare-repository trap: in `--auto`, in a directory with no `.git`, the model
//!     created `HEAD`, `config` (with `core.fsmonitor`), `objects/` and `refs/` unasked.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;

use crate::hostile::{git, run_calls};
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::home_with as home;
use crate::support::result_of;

/// Records a failed expectation for one form and goes on with the next, so that a run names
/// every form that broke.
macro_rules! expect {
    ($failed:ident, $cond:expr, $($msg:tt)+) => {
        if !$cond {
            $failed.push(format!($($msg)+));
            continue;
        }
    };
}

/// A canary script: creates `marker` when run, passes its input through, succeeds.
struct Canary {
    dir: tempfile::TempDir,
    script: String,
    marker: PathBuf,
}

fn canary() -> Canary {
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
    Canary {
        script: script.display().to_string(),
        marker,
        dir,
    }
}

impl Canary {
    fn ran(&self) -> bool {
        self.marker.exists()
    }
}

fn config(repo: &Path, key: &str, value: &str) {
    git(repo, &["config", key, value]);
}

/// A repository with one commit whose HEAD carries a forged OpenPGP signature, and a config
/// naming the canary for every signature program.
fn signed_repo(c: &Canary) -> PathBuf {
    let repo = c.dir.path().join("signed");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "one\n").unwrap();
    git(&repo, &["add", "a.txt"]);
    git(&repo, &["commit", "-qm", "one"]);
    let tree = Command::new("git")
        .args(["rev-parse", "HEAD^{tree}"])
        .current_dir(&repo)
        .output()
        .unwrap();
    let commit = format!(
        "tree {}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned work\n",
        String::from_utf8_lossy(&tree.stdout).trim()
    );
    let mut hash = Command::new("git")
        .args(["hash-object", "-t", "commit", "-w", "--stdin"])
        .current_dir(&repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(hash.stdin.as_mut().unwrap(), commit.as_bytes()).unwrap();
    let sha = String::from_utf8(hash.wait_with_output().unwrap().stdout).unwrap();
    git(&repo, &["update-ref", "HEAD", sha.trim()]);
    for key in [
        "gpg.program",
        "gpg.openpgp.program",
        "gpg.ssh.program",
        "gpg.x509.program",
    ] {
        config(&repo, key, &c.script);
    }
    config(&repo, "pretty.sig", "%h %G?");
    repo
}

const APPROVAL: &str = "Approval required for `run_command` but sayso is running non-interactively";

/// The judge's answer, queued after the model's calls: if sayso asked the judge, the judge
/// would say "safe" and the command would run.
fn judge_says_safe() -> Reply {
    Reply::Json(
        json!({"choices": [{"message": {"role": "assistant", "content": "{\"safe\": true, \"reason\": \"read-only git\"}"}, "finish_reason": "stop"}]}),
    )
}

fn judge_was_asked(fx: &Fixture) -> bool {
    fx.requests()
        .iter()
        .any(|r| r.body.get("response_format").is_some())
}

#[tokio::test]
async fn signature_forms_never_run_the_gpg_program_in_auto() {
    let mut failed: Vec<String> = Vec::new();
    for cmd in [
        "git log -1 --show-signature",
        "git log -1 --pretty=%GG",
        "git log -1 '--format=%G?'",
        "git log -1 --format=%G\\?",
        "git log -1 --pretty=format:%G\\?",
        "git log -1 '--pretty=tformat:%GK'",
        "git show -s --show-signature",
        "git log -1 --pretty=sig",
    ] {
        let c = canary();
        let repo = signed_repo(&c);
        let fx = Fixture::start().await;
        fx.push(sse::tool_call_reply(&[(
            "c1",
            "run_command",
            json!({"cmd": cmd, "flag": null}),
        )]));
        fx.push(judge_says_safe());
        fx.push(Reply::Stream(sse::text_reply(&["done"])));
        // `git show` is listed too, as a user may list it.
        let h = home(
            &fx.base_url(),
            "[tools.run_command.opts]\nsafe_commands = [\"git log\", \"git show\"]\n",
        );
        let mut sayso = crate::support::sayso(h.path());
        sayso.args(["-p", "go", "--auto", "-C"]).arg(&repo);
        let out = crate::support::run(sayso).await;
        expect!(failed, !c.ran(), "{cmd}: the repository's gpg.program ran");
        let content = result_of(&fx, "c1");
        expect!(
            failed,
            content.starts_with(APPROVAL) && content.contains("gpg.program"),
            "{cmd}: {content}\n{}",
            out.stderr
        );
        expect!(
            failed,
            !judge_was_asked(&fx),
            "{cmd}: the judge saw only the text"
        );
        // The control: the same command as the user would run it does verify.
        let ran = Command::new("sh")
            .args(["-c", cmd])
            .current_dir(&repo)
            .output()
            .unwrap();
        expect!(
            failed,
            c.ran(),
            "{cmd}: the planted program is live: {ran:?}"
        );
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[tokio::test]
async fn a_repository_format_that_verifies_runs_neutralised_on_the_safe_list() {
    let c = canary();
    let repo = signed_repo(&c);
    config(&repo, "format.pretty", "%s %G?");
    let fx = Fixture::start().await;
    let h = home(&fx.base_url(), "[judge]\nenabled = false\n");
    let out = run_calls(
        &fx,
        h.path(),
        &repo,
        &["--auto"],
        &[
            (
                "c1",
                "run_command",
                json!({"cmd": "git log -1", "flag": null}),
            ),
            (
                "c2",
                "run_command",
                json!({"cmd": "git log -1 --stat", "flag": null}),
            ),
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!c.ran(), "a repository format ran the gpg program");
    for id in ["c1", "c2"] {
        let content = result_of(&fx, id);
        assert!(content.contains("signed work"), "{id} answered: {content}");
    }
    Command::new("git")
        .args(["log", "-1"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(c.ran(), "the control verifies the signature");
}

/// A clean project with a hostile repository vendored in `sub`.
fn project_with_hostile_sub(c: &Canary) -> (PathBuf, PathBuf) {
    let project = c.dir.path().join("project");
    let sub = project.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    git(&project, &["init", "-q"]);
    std::fs::write(project.join("README"), "hi\n").unwrap();
    git(&project, &["add", "README"]);
    git(&project, &["commit", "-qm", "project"]);
    git(&sub, &["init", "-q"]);
    std::fs::write(sub.join("lib.c"), "int x;\n").unwrap();
    git(&sub, &["add", "lib.c"]);
    git(&sub, &["commit", "-qm", "vendored"]);
    config(&sub, "core.fsmonitor", &c.script);
    (project, sub)
}

const MOVES: &[&str] = &[
    "cd sub && git status",
    "git -C sub status",
    "cd sub; git diff --stat",
    "GIT_DIR=sub/.git GIT_WORK_TREE=sub git status",
];

#[tokio::test]
async fn git_in_another_repository_asks_in_trust_mode() {
    let mut failed: Vec<String> = Vec::new();
    for cmd in MOVES {
        let c = canary();
        let (project, sub) = project_with_hostile_sub(&c);
        let fx = Fixture::start().await;
        let h = home(&fx.base_url(), "");
        let out = run_calls(
            &fx,
            h.path(),
            &project,
            &["--approval-mode", "trust"],
            &[("c1", "run_command", json!({"cmd": cmd, "flag": null}))],
        )
        .await;
        expect!(failed, out.code == 0, "{}", out.stderr);
        expect!(failed, !c.ran(), "{cmd}: sub's core.fsmonitor ran");
        let content = result_of(&fx, "c1");
        expect!(
            failed,
            content.starts_with(APPROVAL)
                && content.contains("git runs in `sub")
                && content.contains("core.fsmonitor"),
            "{cmd}: {content}"
        );
        // The control: the same command without sayso runs the planted program.
        Command::new("sh")
            .args(["-c", cmd])
            .current_dir(&project)
            .output()
            .unwrap();
        expect!(failed, c.ran(), "{cmd}: the planted config is live");
        drop(sub);
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[tokio::test]
async fn git_in_another_repository_is_never_judged_in_auto() {
    let mut failed: Vec<String> = Vec::new();
    for cmd in MOVES {
        let c = canary();
        let (project, _sub) = project_with_hostile_sub(&c);
        let fx = Fixture::start().await;
        fx.push(sse::tool_call_reply(&[(
            "c1",
            "run_command",
            json!({"cmd": cmd, "flag": null}),
        )]));
        fx.push(judge_says_safe());
        fx.push(Reply::Stream(sse::text_reply(&["done"])));
        let h = home(&fx.base_url(), "");
        let mut sayso = crate::support::sayso(h.path());
        sayso.args(["-p", "go", "--auto", "-C"]).arg(&project);
        let out = crate::support::run(sayso).await;
        expect!(failed, !c.ran(), "{cmd}: sub's core.fsmonitor ran");
        expect!(failed, !judge_was_asked(&fx), "{cmd}: the judge was asked");
        let content = result_of(&fx, "c1");
        expect!(
            failed,
            content.starts_with(APPROVAL) && content.contains("core.fsmonitor"),
            "{cmd}: {content}\n{}",
            out.stderr
        );
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[tokio::test]
async fn where_git_runs_cannot_be_told_it_asks_in_trust_mode() {
    let c = canary();
    let (project, _sub) = project_with_hostile_sub(&c);
    let fx = Fixture::start().await;
    let h = home(&fx.base_url(), "");
    let out = run_calls(
        &fx,
        h.path(),
        &project,
        &["--approval-mode", "trust"],
        &[
            (
                "c1",
                "run_command",
                json!({"cmd": "D=sub; cd \"$D\" && git status", "flag": null}),
            ),
            (
                "c2",
                "run_command",
                json!({"cmd": "sh -c 'cd sub && git status'", "flag": null}),
            ),
            (
                "c3",
                "run_command",
                json!({"cmd": "env -C sub git status", "flag": null}),
            ),
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!c.ran(), "sub's core.fsmonitor ran");
    let c1 = result_of(&fx, "c1");
    assert!(
        c1.starts_with(APPROVAL) && c1.contains("sayso cannot tell which repository git will use"),
        "{c1}"
    );
    for id in ["c2", "c3"] {
        let content = result_of(&fx, id);
        assert!(
            content.starts_with(APPROVAL) && content.contains("core.fsmonitor"),
            "{id}: {content}"
        );
    }
}

#[tokio::test]
async fn the_model_cannot_lay_out_a_bare_repository_unasked() {
    let c = canary();
    let project = c.dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let fsmonitor = format!(
        "[core]\n\tbare = false\n\tworktree = ..\n\tfsmonitor = {}\n",
        c.script
    );
    let fx = Fixture::start().await;
    let h = home(&fx.base_url(), "[judge]\nenabled = false\n");
    let out = run_calls(
        &fx,
        h.path(),
        &project,
        &["--auto"],
        &[
            (
                "c1",
                "create_file",
                json!({"filepath": "trap/config", "content": fsmonitor}),
            ),
            (
                "c2",
                "create_file",
                json!({"filepath": "trap/objects/info/packs", "content": ""}),
            ),
            (
                "c3",
                "create_file",
                json!({"filepath": "trap/refs/heads/main", "content": ""}),
            ),
            (
                "c4",
                "create_file",
                json!({"filepath": "trap/HEAD", "content": "ref: refs/heads/main\n"}),
            ),
        ],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let c4 = result_of(&fx, "c4");
    assert!(
        c4.starts_with("Approval required for `create_file` but sayso is running non-interactively: `trap/HEAD` would make its directory a git repository"),
        "{c4}"
    );
    assert!(!project.join("trap/HEAD").exists());
    let trap = project.join("trap");
    for args in [&["status"][..], &["log", "-1"]] {
        Command::new("git")
            .args(args)
            .current_dir(&trap)
            .output()
            .unwrap();
    }
    assert!(!c.ran(), "the user's own git in trap/ ran the payload");
}

#[tokio::test]
async fn git_in_an_embedded_bare_repository_asks_in_trust_mode() {
    let c = canary();
    let project = c.dir.path().join("project");
    let bare = project.join("fixtures/repo.git");
    std::fs::create_dir_all(&project).unwrap();
    git(&project, &["init", "-q", "--bare", "fixtures/repo.git"]);
    config(&bare, "core.fsmonitor", &c.script);
    config(&bare, "core.pager", &c.script);
    let fx = Fixture::start().await;
    let h = home(&fx.base_url(), "");
    let out = run_calls(
        &fx,
        h.path(),
        &project,
        &["--approval-mode", "trust"],
        &[(
            "c1",
            "run_command",
            json!({"cmd": "cd fixtures/repo.git && git log", "flag": null}),
        )],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let content = result_of(&fx, "c1");
    assert!(
        content.starts_with(APPROVAL) && content.contains("safe.bareRepository"),
        "{content}"
    );
}
