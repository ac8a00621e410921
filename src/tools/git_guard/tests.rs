//! The settings table, the parser, and a canary repository per program-running setting: each
//! plants a script that would create a marker file, runs the read-only commands with the
//! guarded environment, and checks the marker never appears while git still answers.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;

#[test]
fn every_setting_has_its_handling() {
    let table = [
        ("core.fsmonitor", Handling::Neutralised),
        ("core.hooksPath", Handling::Neutralised),
        ("core.pager", Handling::Neutralised),
        ("pager.diff", Handling::Neutralised),
        ("diff.external", Handling::NeedsFlags),
        ("diff.x.textconv", Handling::NeedsFlags),
        ("diff.X.TextConv", Handling::NeedsFlags),
        ("diff.x.command", Handling::NeedsFlags),
        ("diff.x.xfuncname", Handling::Neutralised),
        ("filter.lfs.clean", Handling::Filter),
        ("filter.a=b.process", Handling::Filter),
        ("log.showSignature", Handling::Neutralised),
        ("gpg.program", Handling::Neutralised),
        ("core.sshCommand", Handling::Neutralised),
        ("credential.helper", Handling::Neutralised),
        ("remote.origin.uploadpack", Handling::Neutralised),
        ("remote.origin.promisor", Handling::Neutralised),
        ("submodule.s.ignore", Handling::NeedsFlags),
        ("core.worktree", Handling::Never),
        ("core.WorkTree", Handling::Never),
        ("user.email", Handling::Neutralised),
    ];
    for (key, want) in table {
        assert_eq!(classify(key), want, "{key}");
    }
}

#[test]
fn the_denylist_covers_what_runs_programs() {
    for key in [
        "core.fsmonitor",
        "core.hooksPath",
        "core.pager",
        "pager.log",
        "core.editor",
        "sequence.editor",
        "core.sshCommand",
        "core.gitProxy",
        "core.askPass",
        "core.worktree",
        "credential.helper",
        "credential.https://x.helper",
        "diff.external",
        "diff.x.command",
        "diff.x.textconv",
        "filter.x.clean",
        "merge.x.driver",
        "gpg.program",
        "gpg.ssh.program",
        "log.showSignature",
        "remote.origin.uploadpack",
        "remote.origin.receivepack",
        "remote.origin.vcs",
        "remote.origin.promisor",
        "extensions.partialClone",
        "protocol.ext.allow",
        "include.path",
        "includeIf.gitdir:/x.path",
        "alias.st",
        "safe.directory",
        "submodule.s.update",
    ] {
        assert!(names_program(key), "{key}");
    }
    for key in [
        "user.email",
        "core.bare",
        "remote.origin.url",
        "diff.x.xfuncname",
        "core.autocrlf",
    ] {
        assert!(!names_program(key), "{key}");
    }
}

#[test]
fn the_listing_keeps_repository_keys_and_filter_names() {
    let raw = b"global\0file:/home/u/.gitconfig\0filter.lfs.clean\ngit-lfs clean -- %f\0\
local\0file:.git/config\0core.fsmonitor\n/tmp/x\0\
local\0file:.git/config\0filter.Evil=1.process\ncat\0\
local\0file:.git/config\0filter.Evil=1.clean\ncat\0\
worktree\0file:.git/config.worktree\0diff.x.textconv\nsh\0\
local\0file:.git/config\0core.bare\0";
    let i = Inspection::parse(raw);
    assert_eq!(i.filters, ["Evil=1"]);
    let keys: Vec<&str> = i.repo_keys.iter().map(|k| k.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "core.fsmonitor",
            "filter.Evil=1.process",
            "filter.Evil=1.clean",
            "diff.x.textconv",
            "core.bare"
        ]
    );
    let why = i.auto_run_refusal().unwrap();
    assert!(
        why.contains("`diff.x.textconv` (file:.git/config.worktree)"),
        "{why}"
    );
    assert!(!why.contains("fsmonitor"), "{why}");
    assert!(i.worktree_override().is_none());
}

#[test]
fn the_guarded_environment_numbers_its_overrides() {
    let env = guard_env(&["a=b".into()]);
    let get = |k: &str| {
        env.set
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
    };
    let count: usize = get("GIT_CONFIG_COUNT").unwrap().parse().unwrap();
    assert_eq!(count, NEUTRAL_CONFIG.len() + 4);
    let keys: Vec<&str> = (0..count)
        .map(|i| get(&format!("GIT_CONFIG_KEY_{i}")).unwrap())
        .collect();
    assert!(keys.contains(&"filter.a=b.process"));
    assert!(keys.contains(&"core.fsmonitor"));
    assert_eq!(get("GIT_NO_LAZY_FETCH"), Some("1"));
    assert!(env.remove.iter().any(|v| v == "EDITOR"));
    assert!(!env.remove.iter().any(|v| v == "GIT_CONFIG_COUNT"));
}

#[test]
fn versions_parse() {
    assert_eq!(parse_version("git version 2.47.3\n"), Some((2, 47)));
    assert_eq!(
        parse_version("git version 2.39.5 (Apple Git-154)"),
        Some((2, 39))
    );
    assert_eq!(parse_version("git version 2.45.rc1"), Some((2, 45)));
    assert_eq!(parse_version("nonsense"), None);
}

// ---------------------------------------------------------------------------------------------
// Canaries against the real git.

struct Canary {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    marker: PathBuf,
    /// A script that creates the marker, and passes its input through (for filters and
    /// textconv, so git keeps working when it does run it).
    script: PathBuf,
}

fn git(repo: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.email=t@t",
            "-c",
            "user.name=t",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

/// A repository whose config points every program setting at a script that leaves a mark, or
/// `None` when there is no git (a failure under `CI`, where a skipped security test would pass
/// unseen; elsewhere it says why it skips).
fn canary() -> Option<Canary> {
    if git_program().is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "git is needed for the git-hardening tests (CI is set: a skip would pass unseen)"
        );
        eprintln!("git not found: skipping a git-hardening test");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let marker = dir.path().join("RAN");
    let script = dir.path().join("evil.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch '{}'\ncat \"$@\" 2>/dev/null\nexit 0\n",
            marker.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "one\n").unwrap();
    git(&repo, &["add", "a.txt"]);
    git(&repo, &["commit", "-qm", "one"]);
    std::fs::write(repo.join("a.txt"), "one\ntwo\n").unwrap();
    Some(Canary {
        _dir: dir,
        repo,
        marker,
        script,
    })
}

impl Canary {
    fn set(&self, key: &str, value: &str) {
        git(&self.repo, &["config", key, value]);
    }

    fn attributes(&self, line: &str) {
        std::fs::write(self.repo.join(".git/info/attributes"), format!("{line}\n")).unwrap();
    }

    /// Runs `args` with the guarded environment (filters learnt by inspection) and flags as
    /// sayso adds them; returns stdout.
    fn run(&self, args: &[&str]) -> String {
        let inspection = Inspection::run(&self.repo, &Sandbox::off()).unwrap();
        let env = guard_env(&inspection.filters);
        let mut cmd = Command::new(git_program().unwrap());
        cmd.args(args).current_dir(&self.repo);
        env.apply_to(&mut cmd);
        let out = cmd.output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn assert_nothing_ran(&self, what: &str) {
        assert!(!self.marker.exists(), "{what}: the planted program ran");
    }
}

const READS: &[&[&str]] = &[
    &["status"],
    &["diff"],
    &["diff", "--cached"],
    &["log", "-p", "-1"],
    &["show", "HEAD"],
];

#[test]
fn the_guarded_environment_stops_what_it_claims_to() {
    let Some(c) = canary() else {
        return;
    };
    let script = c.script.display().to_string();
    c.set("core.fsmonitor", &script);
    c.set("core.pager", &script);
    c.set("pager.diff", &script);
    c.set("pager.status", &script);
    c.set("log.showSignature", "true");
    c.set("gpg.program", &script);
    c.set("core.sshCommand", &script);
    c.set("filter.evil.clean", &script);
    c.set("filter.evil.smudge", &script);
    c.set("filter.evil.process", &script);
    c.set("core.untrackedCache", "true");
    c.attributes("*.txt filter=evil");
    std::fs::create_dir_all(c.repo.join(".git/hooks")).unwrap();
    for hook in ["post-index-change", "pre-commit", "post-checkout"] {
        let p = c.repo.join(".git/hooks").join(hook);
        std::fs::copy(&c.script, &p).unwrap();
    }
    // A stale index: the next status rewrites it (which would run post-index-change).
    std::fs::write(c.repo.join("b.txt"), "new\n").unwrap();
    for args in READS {
        let out = c.run(args);
        c.assert_nothing_ran(&format!("git {args:?}"));
        if args[0] == "diff" && args.len() == 1 {
            assert!(out.contains("+two"), "git diff still answers: {out}");
        }
    }
    // The control: without the guard the same repository does run the planted program.
    Command::new("git")
        .args(["status"])
        .current_dir(&c.repo)
        .output()
        .unwrap();
    assert!(c.marker.exists(), "the planted settings are live");
    let inspection = Inspection::run(&c.repo, &Sandbox::off()).unwrap();
    assert_eq!(inspection.filters, ["evil"]);
    assert_eq!(
        inspection.auto_run_refusal(),
        None,
        "every key planted here is neutralised"
    );
}

#[test]
fn textconv_and_diff_commands_are_reported_not_auto_approved() {
    let Some(c) = canary() else {
        return;
    };
    let script = c.script.display().to_string();
    c.set("diff.evil.textconv", &script);
    c.attributes("*.txt diff=evil");
    let refusal = Inspection::run(&c.repo, &Sandbox::off())
        .unwrap()
        .auto_run_refusal()
        .unwrap();
    assert!(refusal.contains("diff.evil.textconv"), "{refusal}");
    // With the flags sayso adds when it builds the command itself, nothing runs; without them
    // (the control) the program does.
    c.run(&["diff", "--no-ext-diff", "--no-textconv"]);
    c.run(&["log", "-p", "-1", "--no-ext-diff", "--no-textconv"]);
    c.assert_nothing_ran("diff --no-textconv");
    c.run(&["diff"]);
    assert!(c.marker.exists(), "textconv is live without the flag");

    let Some(c) = canary() else {
        return;
    };
    c.set("diff.external", &script);
    assert!(
        Inspection::run(&c.repo, &Sandbox::off())
            .unwrap()
            .auto_run_refusal()
            .unwrap()
            .contains("diff.external")
    );
    c.run(&["diff", "--no-ext-diff"]);
    c.run(&["diff", "--cached", "--no-ext-diff"]);
    c.assert_nothing_ran("diff.external with --no-ext-diff");

    let Some(c) = canary() else {
        return;
    };
    c.set("diff.evil.command", &script);
    c.attributes("*.txt diff=evil");
    assert!(
        Inspection::run(&c.repo, &Sandbox::off())
            .unwrap()
            .auto_run_refusal()
            .unwrap()
            .contains("diff.evil.command")
    );
    c.run(&["diff", "--no-ext-diff"]);
    c.assert_nothing_ran("diff --no-ext-diff");
}

#[test]
fn a_parent_directory_repository_is_inspected_too() {
    let Some(c) = canary() else {
        return;
    };
    c.set("core.worktree", "/");
    let sub = c.repo.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let i = Inspection::run(&sub, &Sandbox::off()).unwrap();
    assert_eq!(i.worktree_override().unwrap().key, "core.worktree");
    assert!(i.auto_run_refusal().unwrap().contains("core.worktree"));
}

#[test]
fn hooks_and_program_keys_stop_unattended_git() {
    let Some(c) = canary() else {
        return;
    };
    assert_eq!(
        Inspection::run(&c.repo, &Sandbox::off())
            .unwrap()
            .unattended_refusal(),
        None
    );
    std::fs::copy(&c.script, c.repo.join(".git/hooks/pre-commit")).unwrap();
    let why = Inspection::run(&c.repo, &Sandbox::off())
        .unwrap()
        .unattended_refusal()
        .unwrap();
    assert!(why.contains("hooks (pre-commit)"), "{why}");
    assert_eq!(
        Inspection::run(&c.repo, &Sandbox::off())
            .unwrap()
            .auto_run_refusal(),
        None,
        "the safe list runs with hooks off"
    );
    c.set("core.fsmonitor", "x");
    let why = Inspection::run(&c.repo, &Sandbox::off())
        .unwrap()
        .unattended_refusal()
        .unwrap();
    assert!(why.contains("core.fsmonitor"), "{why}");
}

#[test]
fn submodules_are_reported() {
    let Some(c) = canary() else {
        return;
    };
    std::fs::write(
        c.repo.join(".gitmodules"),
        "[submodule \"s\"]\n\tpath = s\n",
    )
    .unwrap();
    let why = Inspection::run(&c.repo, &Sandbox::off())
        .unwrap()
        .auto_run_refusal()
        .unwrap();
    assert!(why.contains("submodules"), "{why}");
}

#[test]
fn outside_a_repository_nothing_is_reported() {
    if git_program().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let i = Inspection::run(dir.path(), &Sandbox::off()).unwrap();
    assert_eq!(i.auto_run_refusal(), None);
}

/// Runs git in `repo` without any guard (the control), returns its stdout.
fn plain(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(repo)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_forged_signature_does_not_run_the_gpg_program() {
    let Some(c) = canary() else {
        return;
    };
    let tree = plain(&c.repo, &["rev-parse", "HEAD^{tree}"]);
    let commit = format!(
        "tree {}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nsigned\n",
        tree.trim()
    );
    let mut hash = Command::new("git")
        .args(["hash-object", "-t", "commit", "-w", "--stdin"])
        .current_dir(&c.repo)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(hash.stdin.as_mut().unwrap(), commit.as_bytes()).unwrap();
    let sha = String::from_utf8(hash.wait_with_output().unwrap().stdout).unwrap();
    git(&c.repo, &["update-ref", "HEAD", sha.trim()]);
    c.set("log.showSignature", "true");
    c.set("gpg.program", &c.script.display().to_string());
    for args in READS {
        c.run(args);
    }
    c.assert_nothing_ran("a signed commit shown");
    plain(&c.repo, &["log", "-1"]);
    assert!(c.marker.exists(), "the control verifies the signature");
}

#[test]
fn a_partial_clone_does_not_fetch_through_the_repository_transport() {
    let Some(c) = canary() else {
        return;
    };
    git(&c.repo, &["config", "uploadpack.allowFilter", "true"]);
    let parent = c.repo.parent().unwrap();
    let out = Command::new("git")
        .args([
            "-c",
            "protocol.file.allow=always",
            "clone",
            "-q",
            "--filter=blob:none",
            "--no-checkout",
        ])
        .arg(format!("file://{}", c.repo.display()))
        .arg("partial")
        .current_dir(parent)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let partial = parent.join("partial");
    let upload = parent.join("upload.sh");
    std::fs::write(
        &upload,
        format!(
            "#!/bin/sh\ntouch '{}'\nexec git-upload-pack \"$@\"\n",
            c.marker.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&upload, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    git(
        &partial,
        &[
            "config",
            "remote.origin.uploadpack",
            &upload.display().to_string(),
        ],
    );
    git(&partial, &["config", "protocol.file.allow", "always"]);
    let guarded = Canary {
        _dir: tempfile::tempdir().unwrap(),
        repo: partial.clone(),
        marker: c.marker.clone(),
        script: c.script.clone(),
    };
    guarded.run(&["show", "HEAD:a.txt"]);
    guarded.run(&["log", "-p", "-1"]);
    guarded.assert_nothing_ran("a missing blob");
    plain(&partial, &["show", "HEAD:a.txt"]);
    assert!(
        c.marker.exists(),
        "the control fetches through the planted program"
    );
}
