//! Signature verification in a hostile repository (issue 18, case 1): a forged signature of
//! each kind (OpenPGP, SSH, X.509) and a repository that names a program for each; every way
//! of asking git to verify runs with the guarded environment and the program never runs,
//! while the same command without the guard (the control) does run it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::*;

struct Signed {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    marker: PathBuf,
}

fn git(repo: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.email=t@t", "-c", "user.name=t"])
        .args(args)
        .current_dir(repo)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository whose HEAD carries a forged signature with `armor` lines, and whose config
/// names a canary script for every signature program.
fn signed(armor: (&str, &str)) -> Signed {
    assert!(git_program().is_some(), "these tests need git on PATH");
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let marker = dir.path().join("RAN");
    let script = dir.path().join("gpg.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\ntouch '{}'\nexit 0\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("a.txt"), "one\n").unwrap();
    git(&repo, &["add", "a.txt"]);
    git(&repo, &["commit", "-qm", "one"]);
    let tree = git(&repo, &["rev-parse", "HEAD^{tree}"]);
    let commit = format!(
        "tree {tree}\nauthor t <t@t> 0 +0000\ncommitter t <t@t> 0 +0000\ngpgsig {}\n \n U0lH\n {}\n\nsigned\n",
        armor.0, armor.1
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
    let allowed = dir.path().join("allowed_signers");
    std::fs::write(&allowed, "").unwrap();
    let script = script.display().to_string();
    for (k, v) in [
        ("gpg.program", script.as_str()),
        ("gpg.openpgp.program", script.as_str()),
        ("gpg.ssh.program", script.as_str()),
        ("gpg.x509.program", script.as_str()),
        ("gpg.ssh.allowedSignersFile", &allowed.display().to_string()),
        ("pretty.sig", "%h %G?"),
    ] {
        git(&repo, &["config", k, v]);
    }
    Signed {
        _dir: dir,
        repo,
        marker,
    }
}

const ARMORS: &[(&str, &str)] = &[
    (
        "-----BEGIN PGP SIGNATURE-----",
        "-----END PGP SIGNATURE-----",
    ),
    (
        "-----BEGIN SSH SIGNATURE-----",
        "-----END SSH SIGNATURE-----",
    ),
    (
        "-----BEGIN SIGNED MESSAGE-----",
        "-----END SIGNED MESSAGE-----",
    ),
];

/// Every way to make git verify a signature that a read-only command has.
const FORMS: &[&[&str]] = &[
    &["log", "-1", "--show-signature"],
    &["show", "-s", "--show-signature"],
    &["log", "-1", "--pretty=%GG"],
    &["log", "-1", "--format=%G?"],
    &["log", "-1", "--format=%+GK"],
    &["log", "-1", "--pretty=tformat:%GS"],
    &["log", "-1", "--pretty=sig"],
    &["for-each-ref", "--format=%(signature)"],
    &["verify-commit", "HEAD"],
];

fn run(repo: &Path, args: &[&str], guarded: bool) -> std::process::Output {
    let mut cmd = Command::new(git_program().unwrap());
    cmd.args(args).current_dir(repo);
    if guarded {
        guard_env(&[]).apply_to(&mut cmd);
    }
    cmd.output().unwrap()
}

#[test]
fn no_signature_program_runs_with_the_guarded_environment() {
    for armor in ARMORS {
        let s = signed(*armor);
        for args in FORMS {
            let out = run(&s.repo, args, true);
            assert!(!s.marker.exists(), "{armor:?} {args:?}: the program ran");
            if args[0] == "log" {
                assert!(out.status.success(), "{args:?} still answers: {out:?}");
            }
        }
        for (key, value) in [("log.showSignature", "true"), ("format.pretty", "%G?")] {
            git(&s.repo, &["config", key, value]);
            run(&s.repo, &["log", "-1"], true);
            run(&s.repo, &["show", "-s"], true);
            assert!(!s.marker.exists(), "{armor:?} {key}: the program ran");
            git(&s.repo, &["config", "--unset", key]);
        }
        // The control: the same repository without the guard runs it.
        run(&s.repo, &["log", "-1", "--show-signature"], false);
        assert!(s.marker.exists(), "{armor:?}: the planted program is live");
    }
}

#[test]
fn every_signature_program_setting_is_neutralised() {
    for key in [
        "gpg.program",
        "gpg.openpgp.program",
        "gpg.ssh.program",
        "gpg.x509.program",
    ] {
        assert!(
            NEUTRAL_CONFIG.contains(&(key, "/dev/null")),
            "{key} is not neutralised"
        );
        assert!(names_program(key), "{key} asks before a judged git command");
    }
}
