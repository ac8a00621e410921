//! The inspection on a command's real target: a vendored repository below the working
//! directory, an explicit git directory, a `.git` file, an embedded bare repository.

use std::path::Path;
use std::process::Command;

use super::*;

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.email=t@t", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {out:?}");
}

fn project() -> tempfile::TempDir {
    assert!(git_program().is_some(), "these tests need git on PATH");
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]);
    dir
}

#[test]
fn a_vendored_repository_is_inspected_where_git_runs() {
    let dir = project();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    git(&sub, &["init", "-q"]);
    git(&sub, &["config", "core.fsmonitor", "/x/evil"]);
    assert_eq!(
        Inspection::run(dir.path(), &Sandbox::off())
            .unwrap()
            .unattended_refusal(),
        None
    );
    let why = Inspection::run_target(&Target::at(&sub), &Sandbox::off())
        .unwrap()
        .unattended_refusal()
        .unwrap();
    assert!(why.contains("core.fsmonitor"), "{why}");
    // From a directory inside it, git finds the same repository.
    std::fs::create_dir(sub.join("src")).unwrap();
    assert!(
        Inspection::run_target(&Target::at(&sub.join("src")), &Sandbox::off())
            .unwrap()
            .unattended_refusal()
            .is_some()
    );
    let explicit = Target {
        dir: dir.path().to_path_buf(),
        git_dir: Some(sub.join(".git")),
        work_tree: Some(sub.clone()),
    };
    assert!(
        Inspection::run_target(&explicit, &Sandbox::off())
            .unwrap()
            .unattended_refusal()
            .is_some()
    );
}

#[test]
fn a_git_file_is_followed_to_its_repository() {
    let dir = project();
    let elsewhere = tempfile::tempdir().unwrap();
    git(elsewhere.path(), &["init", "-q", "--bare", "r.git"]);
    let gitdir = elsewhere.path().join("r.git");
    git(&gitdir, &["config", "core.bare", "false"]);
    git(&gitdir, &["config", "core.pager", "/x/evil"]);
    let sub = dir.path().join("linked");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
    let why = Inspection::run_target(&Target::at(&sub), &Sandbox::off())
        .unwrap()
        .unattended_refusal()
        .unwrap();
    assert!(why.contains("core.pager"), "{why}");
}

#[test]
fn an_embedded_bare_repository_and_a_missing_directory_are_errors() {
    let dir = project();
    git(dir.path(), &["init", "-q", "--bare", "fixtures/repo.git"]);
    let bare = dir.path().join("fixtures/repo.git");
    let err = Inspection::run_target(&Target::at(&bare), &Sandbox::off()).unwrap_err();
    assert!(err.contains("safe.bareRepository"), "{err}");
    let err = Inspection::run_target(&Target::at(&dir.path().join("not-yet")), &Sandbox::off())
        .unwrap_err();
    assert!(err.contains("not a directory"), "{err}");
}

#[test]
fn every_git_sayso_starts_refuses_implicit_bare_repositories() {
    let env = guard_env(&[]);
    let count: usize = env
        .set
        .iter()
        .find(|(k, _)| k == "GIT_CONFIG_COUNT")
        .map(|(_, v)| v.parse().unwrap())
        .unwrap();
    let pairs: Vec<(String, String)> = (0..count)
        .map(|i| {
            let get = |k: String| env.set.iter().find(|(n, _)| *n == k).unwrap().1.clone();
            (
                get(format!("GIT_CONFIG_KEY_{i}")),
                get(format!("GIT_CONFIG_VALUE_{i}")),
            )
        })
        .collect();
    assert!(pairs.contains(&("safe.bareRepository".into(), "explicit".into())));
}

#[test]
fn a_linked_worktree_reports_the_hooks_of_its_repository() {
    let dir = project();
    std::fs::write(dir.path().join("a"), "a").unwrap();
    git(dir.path(), &["add", "a"]);
    git(dir.path(), &["commit", "-qm", "a"]);
    git(dir.path(), &["worktree", "add", "-q", "wt"]);
    let hook = dir.path().join(".git/hooks/post-checkout");
    std::fs::write(&hook, "#!/bin/sh\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let i = Inspection::run_target(&Target::at(&dir.path().join("wt")), &Sandbox::off()).unwrap();
    assert_eq!(i.hooks, ["post-checkout"]);
}
