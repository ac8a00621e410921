//! The target table: shell forms and the directories (and repositories) their gits use.

use super::*;

const CWD: &str = "/p/w";

fn targets(command: &str) -> Vec<GitTarget> {
    git_targets(
        command,
        Context {
            cwd: Path::new(CWD),
            cdpath: false,
        },
    )
}

fn at(dir: &str) -> GitTarget {
    GitTarget::Known(Target::at(Path::new(dir)))
}

fn explicit(dir: &str, git_dir: Option<&str>, work_tree: Option<&str>) -> GitTarget {
    GitTarget::Known(Target {
        dir: dir.into(),
        git_dir: git_dir.map(PathBuf::from),
        work_tree: work_tree.map(PathBuf::from),
    })
}

#[test]
fn commands_without_git_have_no_target() {
    for command in [
        "ls -la",
        "cd sub && make",
        "cat .gitignore",
        "grep -r gitx .",
        "echo 'not a git command'x",
        "command -v git",
    ] {
        assert_eq!(targets(command), [], "{command}");
    }
}

#[test]
fn directory_changes_are_followed() {
    let table: &[(&str, &[GitTarget])] = &[
        ("git status", &[at("/p/w")]),
        ("/usr/bin/git status", &[at("/p/w")]),
        ("git -C sub status", &[at("/p/w/sub")]),
        ("git -C sub -C deeper log", &[at("/p/w/sub/deeper")]),
        ("git -C /abs status", &[at("/abs")]),
        ("git -C '' status", &[at("/p/w")]),
        ("git --no-pager -C sub diff", &[at("/p/w/sub")]),
        // A `cd` may fail or not apply: git may start in either directory.
        ("cd sub && git status", &[at("/p/w"), at("/p/w/sub")]),
        ("cd sub; git status", &[at("/p/w"), at("/p/w/sub")]),
        ("cd sub || git status", &[at("/p/w"), at("/p/w/sub")]),
        (
            "cd a && cd b && git status",
            &[at("/p/w"), at("/p/w/a"), at("/p/w/b"), at("/p/w/a/b")],
        ),
        ("cd ../other && git log", &[at("/p/w"), at("/p/other")]),
        ("cd -P sub && git status", &[at("/p/w"), at("/p/w/sub")]),
        (
            "cd /tmp/x && git -C y status",
            &[at("/p/w/y"), at("/tmp/x/y")],
        ),
        ("cd sub\ngit status", &[at("/p/w"), at("/p/w/sub")]),
        (
            "if cd sub; then git status; fi",
            &[at("/p/w"), at("/p/w/sub")],
        ),
        ("! git -C sub diff --quiet", &[at("/p/w/sub")]),
        ("time git -C sub status", &[at("/p/w/sub")]),
        ("command git -C sub status", &[at("/p/w/sub")]),
        // Every shell the normaliser reads, not only `sh` and `bash`.
        ("rbash -c 'git -C sub status'", &[at("/p/w/sub")]),
        ("ksh93 -c 'git -C sub status'", &[at("/p/w/sub")]),
        ("sh --command 'git -C sub status'", &[at("/p/w/sub")]),
        ("exec git -C sub status", &[at("/p/w/sub")]),
        (
            "sh -c 'cd sub && git status'",
            &[at("/p/w"), at("/p/w/sub")],
        ),
        (
            "bash -ec \"git -C vendor/x status\"",
            &[at("/p/w/vendor/x")],
        ),
        ("sh -c \"sh -c 'git -C a status'\"", &[at("/p/w/a")]),
    ];
    for (command, want) in table {
        assert_eq!(targets(command), *want, "{command}");
    }
}

#[test]
fn explicit_repositories_are_followed() {
    let table: &[(&str, &[GitTarget])] = &[
        (
            "git --git-dir=other/.git status",
            &[explicit("/p/w", Some("/p/w/other/.git"), None)],
        ),
        (
            "git --git-dir other/.git --work-tree other status",
            &[explicit(
                "/p/w",
                Some("/p/w/other/.git"),
                Some("/p/w/other"),
            )],
        ),
        (
            "git -C sub --git-dir=.git log",
            &[explicit("/p/w/sub", Some("/p/w/sub/.git"), None)],
        ),
        (
            "GIT_DIR=/r/.git git status",
            &[explicit("/p/w", Some("/r/.git"), None)],
        ),
        (
            "GIT_DIR=x GIT_WORK_TREE=y git status",
            &[explicit("/p/w", Some("/p/w/x"), Some("/p/w/y"))],
        ),
        (
            "env GIT_DIR=/r git log",
            &[explicit("/p/w", Some("/r"), None)],
        ),
        ("env -C sub git status", &[at("/p/w/sub")]),
        ("env -u GIT_DIR git status", &[at("/p/w")]),
        (
            "export GIT_DIR=/r; git status",
            &[at("/p/w"), explicit("/p/w", Some("/r"), None)],
        ),
        (
            "GIT_WORK_TREE=/t; git status",
            &[at("/p/w"), explicit("/p/w", None, Some("/t"))],
        ),
        (
            "git --bare -C b log",
            &[explicit("/p/w/b", Some("/p/w/b/."), None)],
        ),
        ("GIT_PAGER=cat git -C a log", &[at("/p/w/a")]),
        ("GIT_AUTHOR_NAME=x git -C a log", &[at("/p/w/a")]),
        ("git -c color.ui=never -C a log", &[at("/p/w/a")]),
    ];
    for (command, want) in table {
        assert_eq!(targets(command), *want, "{command}");
    }
}

#[test]
fn what_cannot_be_told_is_unknown() {
    for command in [
        "cd && git status",
        "cd - && git status",
        "cd ~/x && git status",
        "cd \"$DIR\" && git status",
        "cd $HOME && git status",
        "cd su* && git status",
        "cd a b && git status",
        "pushd sub && git status",
        "popd; git status",
        "git -C \"$D\" status",
        "git -C ~ status",
        "git --git-dir=$G status",
        "git -C",
        "GIT_DIR=$X git status",
        "GIT_CONFIG_GLOBAL=/tmp/c git status",
        "GIT_CONFIG_COUNT=1 git status",
        "GIT_COMMON_DIR=/x git status",
        "GIT_CEILING_DIRECTORIES=/ git status",
        "export GIT_EXEC_PATH=/tmp; git status",
        "env GIT_CONFIG_PARAMETERS=x git status",
        "env -S 'git status'",
        "CDPATH=/elsewhere; cd sub && git status",
        "source env.sh; git status",
        ". ./env.sh && git status",
        "eval 'git status'",
        "$GIT status",
        "G=git; $G status",
        "$(which git) status",
        "`which git` status",
        "(cd sub && git status)",
        "{ cd sub; git status; }",
        "sudo git -C sub status",
        "xargs git status",
        "find . -name .git -execdir git status ';'",
        "timeout 5 git status",
        "nice -n 5 git status",
        "watch 'git status'",
        "echo 'git status' | sh",
        "bash < script-that-runs-git",
        "for d in a b; do cd $d; git status; done",
        "while true; do cd sub; git status; done",
        "git --exec-path=/tmp status",
        "ls 'unterminated && git status",
    ] {
        let t = targets(command);
        assert!(
            t.iter().any(|t| matches!(t, GitTarget::Unknown(_))),
            "{command}: {t:?}"
        );
    }
}

#[test]
fn cdpath_makes_a_relative_cd_unknown() {
    let ctx = Context {
        cwd: Path::new(CWD),
        cdpath: true,
    };
    assert!(
        git_targets("cd sub && git status", ctx)
            .iter()
            .any(|t| matches!(t, GitTarget::Unknown(_)))
    );
    assert_eq!(
        git_targets("cd ./sub && git status", ctx),
        [at("/p/w"), at("/p/w/sub")]
    );
}

#[test]
fn many_directory_changes_are_unknown_rather_than_endless() {
    let command = (0..6)
        .map(|i| format!("cd d{i}"))
        .collect::<Vec<_>>()
        .join("; ")
        + "; git status";
    assert!(
        targets(&command)
            .iter()
            .any(|t| matches!(t, GitTarget::Unknown(_)))
    );
}

#[test]
fn forms_that_move_git_or_run_it_later_are_read_or_unknown() {
    for command in [
        "sh -oc errexit 'git -C /evil status'",
        "time -p git -C /evil status",
        "coproc git -C /evil status",
    ] {
        assert_eq!(targets(command), [at("/evil")], "{command}");
    }
    let unknown = |t: &[GitTarget]| t.iter().any(|t| matches!(t, GitTarget::Unknown(_)));
    for command in [
        "trap 'git -C /evil status' EXIT",
        "alias git='git -C /evil'\ngit status",
        "read -r GIT_DIR < f; export GIT_DIR; git status",
        "set -a; read GIT_DIR < f; git status",
        "printf -v GIT_DIR /evil; export GIT_DIR; git status",
        "declare -n r=GIT_DIR; r=/evil; export GIT_DIR; git status",
        "cd -P link/.. && git status",
        "set -P; cd link/.. && git status",
        "prlimit git status",
        "fakeroot git status",
        "ssh h 'git status'",
        "HOME=. git status",
        "XDG_CONFIG_HOME=. git status",
        "export HOME=.; git status",
    ] {
        assert!(
            unknown(&targets(command)),
            "{command}: {:?}",
            targets(command)
        );
    }
}
