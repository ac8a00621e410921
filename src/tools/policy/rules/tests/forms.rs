//! Shell forms per rule kind: what a deny sees through, what asks because it cannot be read,
//! what an allow does not cover, and what path rules decide about commands and searches.

use super::*;

fn shell_in(rules: &Rules, command: &str, dir: &Path) -> Option<RuleDecision> {
    let tool = Fake("run_command", Kind::Shell);
    rules
        .check(
            &inv("run_command", json!({"cmd": command}), dir),
            command,
            &tool,
        )
        .map(|m| m.decision)
}

fn deny(pattern: &str) -> Rules {
    Rules::new(&[rule("run_command", cmd(pattern), Deny, false)])
}

#[test]
fn a_deny_rule_sees_through_paths_wrappers_shells_and_find() {
    let rules = deny("rm *");
    for command in [
        "rm x",
        "/bin/rm x",
        "command rm x",
        "builtin rm x",
        "exec rm x",
        "env rm x",
        "env -i PATH=/bin rm x",
        "LC_ALL=C rm x",
        "nice -n 5 rm x",
        "nohup rm x",
        "time rm x",
        "timeout 5 rm x",
        "sudo rm x",
        "ls | xargs rm",
        "sh -c 'rm x'",
        "bash -c 'sh -c \"env /bin/rm x\"'",
        "find . -name x -delete",
        "find . -exec rm {} +",
        "true && { rm x; }",
        "if true; then rm x; fi",
        "flock /tmp/l -c 'rm x'",
        "timeout -vs KILL 5 rm x",
        "sudo -Eu root rm x",
        "env --chdir /tmp rm x",
        "2>&1 rm x",
        "ls | xargs -tn 1 rm",
    ] {
        assert_eq!(shell(&rules, command), Some(Deny), "{command}");
    }
    for command in [
        "echo rm | xargs -I% sh -c %",
        "find /bin -name rm -exec '{}' -rf x \\;",
        "{rm,-rf,x}",
        "trap 'rm x' EXIT",
        "echo $HOME $(rm -rf x)",
    ] {
        assert_eq!(shell(&rules, command), Some(Ask), "{command}");
    }
    for command in ["ls -la", "echo rm x", "git rm --cached x", "grep rm x"] {
        assert_eq!(shell(&rules, command), None, "{command}");
    }
}

#[test]
fn a_command_the_deny_rule_cannot_be_checked_against_asks() {
    let rules = deny("rm *");
    for command in [
        "$(echo rm) x",
        "`echo rm` x",
        "$RM x",
        "eval 'rm x'",
        "source ./s.sh",
        "sh ./s.sh",
        "echo 'rm x' | sh",
        "ls | xargs",
        "ls | xargs -I{} {} x",
        "echo $(rm x)",
        "sh -c '$(echo rm) x'",
    ] {
        assert_eq!(shell(&rules, command), Some(Ask), "{command}");
    }
    let tool = Fake("run_command", Kind::Shell);
    let m = rules
        .check(
            &inv(
                "run_command",
                json!({"cmd": "$(echo rm) x"}),
                Path::new("/x"),
            ),
            "$(echo rm) x",
            &tool,
        )
        .unwrap();
    assert!(
        m.rule
            .contains("which sayso cannot check this command against"),
        "{}",
        m.rule
    );
}

#[test]
fn a_deny_that_may_match_once_expanded_asks() {
    let rules = deny("rm -rf *");
    assert_eq!(shell(&rules, "rm -rf x"), Some(Deny));
    assert_eq!(shell(&rules, "rm $FLAGS x"), Some(Ask), "$FLAGS may be -rf");
    assert_eq!(shell(&rules, "ls | xargs rm -rf"), Some(Deny));
    assert_eq!(
        shell(&rules, "ls | xargs rm"),
        Some(Ask),
        "the input may add -rf"
    );
    assert_eq!(shell(&rules, "find . -delete"), Some(Ask));
    assert_eq!(shell(&rules, "rm -f x"), None);
    assert_eq!(
        shell(&rules, "rm '$FLAGS' x"),
        None,
        "a quoted `$` is a letter"
    );
}

#[test]
fn an_allow_pattern_never_covers_what_the_safe_list_refuses() {
    let rules = Rules::new(&[
        rule("run_command", cmd("git diff *"), Allow, false),
        rule("run_command", cmd("git log *"), Allow, false),
        rule("run_command", cmd("git *"), Allow, false),
        rule("run_command", cmd("cat *"), Allow, false),
        rule("run_command", cmd("grep *"), Allow, false),
        rule("run_command", cmd("find *"), Allow, false),
        rule("run_command", cmd("rg *"), Allow, false),
        rule("run_command", cmd("env *"), Allow, false),
        rule("run_command", cmd("sort *"), Allow, false),
    ]);
    for command in [
        "git diff --stat",
        "git log --oneline",
        "cat README.md",
        "grep -r x .",
        "find . -name x",
        "rg x",
        "sort f",
    ] {
        assert_eq!(shell(&rules, command), Some(Allow), "{command}");
    }
    for command in [
        "git diff --output=.git/config",
        "git diff --out=/tmp/x",
        "git log --output=x",
        "git log --ext-diff",
        "git -C sub status",
        "git -c core.pager=x log",
        "cat /proc/1/environ",
        "cat /proc/self/environ",
        "cat /dev/mem",
        "grep -r KEY /",
        "grep -R x .",
        "rg --follow x",
        "rg --pre ./x y",
        "find -L . -name x",
        "find . -exec rm {} ;",
        "find . -delete",
        "env rm x",
        "sort -o f f",
        "git rebase -x 'rm -rf x' HEAD~1",
        "git difftool -x evil",
        "git difftool --extcmd=evil",
        "git clone -u evil x",
        "git clone -c core.fsmonitor=evil x",
        "git submodule foreach 'rm -rf x'",
        "git bisect run ./evil",
        "git filter-branch --tree-filter 'rm x'",
    ] {
        assert_eq!(shell(&rules, command), None, "{command}");
    }
}

#[test]
fn no_allow_covers_sayso_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let own = dir.path().join("config/sayso");
    std::fs::create_dir_all(&own).unwrap();
    let rules = Rules::new(&[rule("run_command", RuleTarget::Any, Allow, false)]);
    let tool = Fake("run_command", Kind::Shell);
    let mut call = inv("run_command", json!({}), dir.path());
    call.ctx = std::sync::Arc::new(crate::tools::context::ToolContext {
        own_paths: vec![own],
        ..Default::default()
    });
    let check = |command: &str| {
        let mut call = call.clone();
        call.args = json!({ "cmd": command });
        rules.check(&call, command, &tool).map(|m| m.decision)
    };
    assert_eq!(check("cat config/sayso/config.toml"), None);
    // A directory holding them: a recursive read reaches the config.
    assert_eq!(check("grep -r -o . config"), None);
    assert_eq!(check("cat notes.txt"), Some(Allow));
}

#[cfg(unix)]
#[test]
fn a_path_deny_rule_decides_the_commands_that_name_or_search_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(".env"), "KEY=1").unwrap();
    std::fs::create_dir_all(d.join("secrets")).unwrap();
    std::fs::write(d.join("secrets/key"), "k").unwrap();
    std::fs::create_dir_all(d.join("src")).unwrap();
    std::fs::write(d.join("src/a.rs"), "fn a() {}").unwrap();
    std::os::unix::fs::symlink(d.join(".env"), d.join("innocent")).unwrap();
    let rules = Rules::new(&[
        rule("*", RuleTarget::Path(".env".into()), Deny, false),
        rule("*", RuleTarget::Path("secrets/**".into()), Deny, false),
        rule("run_command", cmd("cat *"), Allow, false),
        rule("run_command", cmd("grep *"), Allow, false),
    ]);
    let check = |c: &str| shell_in(&rules, c, d);
    for command in [
        "cat .env",
        "cat ./src/../.env",
        "cat innocent",
        "cat secrets/key",
        "cd src && cat ../.env",
        "sh -c 'cat .env'",
        "grep -e x --file=.env",
    ] {
        assert_eq!(check(command), Some(Deny), "{command}");
    }
    for command in [
        "grep -r X secrets",
        "grep -r X .",
        "rg X",
        "git grep X",
        "git diff",
        "cat $F",
        "ls | xargs cat",
        "tar cf - secrets",
    ] {
        assert_eq!(check(command), Some(Ask), "{command}");
    }
    assert_eq!(check("cat src/a.rs"), Some(Allow));
    assert_eq!(check("grep -r X src"), Some(Allow));
    assert_eq!(check("ls"), None);
    let denials = rules.path_denials("grep_search");
    assert!(denials.denies(d, &d.join(".env")));
    assert!(denials.denies(d, &d.join("innocent")), "a symlink to it");
    assert!(denials.denies(d, &d.join("secrets/key")));
    assert!(!denials.denies(d, &d.join("src/a.rs")));
    assert!(rules.path_denials("x").patterns().len() == 2);
}

#[test]
fn an_ask_path_rule_asks_for_a_named_path_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cargo.lock"), "x").unwrap();
    let rules = Rules::new(&[rule("*", RuleTarget::Path("*.lock".into()), Ask, false)]);
    assert_eq!(shell_in(&rules, "cat Cargo.lock", dir.path()), Some(Ask));
    assert_eq!(shell_in(&rules, "git diff", dir.path()), None);
    assert_eq!(shell_in(&rules, "grep -r x .", dir.path()), None);
    assert_eq!(shell_in(&rules, "echo $HOME", dir.path()), None);
}

#[test]
fn the_modal_offers_nothing_for_a_command_no_allow_would_cover() {
    let offered = |c: &str| {
        candidates_in(
            "run_command",
            &Remember::Command(c.into()),
            Path::new("/nonexistent"),
        )
    };
    for command in [
        "git diff --output=x",
        "git log --output=/tmp/x",
        "cat /proc/1/environ",
        "grep -R x .",
        "env ls",
        "find . -delete",
        "sh -c 'ls'",
    ] {
        assert!(offered(command).is_empty(), "{command}");
    }
    let saved = offered("git diff --stat");
    assert_eq!(
        saved[1].describe(),
        "`run_command match \"git diff *\" → allow`"
    );
    let rules = Rules::new(&saved);
    assert_eq!(shell(&rules, "git diff HEAD"), Some(Allow));
    assert_eq!(shell(&rules, "git diff --output=.git/config"), None);
    let cat = Rules::new(&offered("cat README"));
    assert_eq!(shell(&cat, "cat /proc/1/environ"), None);
}

#[cfg(unix)]
#[test]
fn a_path_deny_rule_sees_attached_values_revisions_and_a_wrapper_s_directory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(".env"), "KEY=1").unwrap();
    std::fs::create_dir_all(d.join("secrets")).unwrap();
    std::fs::write(d.join("secrets/key"), "k").unwrap();
    std::fs::create_dir_all(d.join("src")).unwrap();
    let rules = Rules::new(&[
        rule("*", RuleTarget::Path(".env".into()), Deny, false),
        rule("*", RuleTarget::Path("secrets/**".into()), Deny, false),
        // Only in history: no file in the tree for a search to find.
        rule("*", RuleTarget::Path("gone/**".into()), Deny, false),
        rule("run_command", cmd("rg *"), Allow, false),
        rule("run_command", cmd("grep *"), Allow, false),
        rule("run_command", cmd("git *"), Allow, false),
    ]);
    for command in [
        "rg -f.env x src",
        "grep -if.env -r src",
        "git show HEAD:gone/key",
        "git log -L1,2:.env",
        "env -C secrets cat key",
        "env --chdir=secrets cat key",
        "sudo -D secrets cat key",
        "cd -P secrets && cat key",
        "cd -- secrets && cat key",
    ] {
        assert_eq!(shell_in(&rules, command, d), Some(Deny), "{command}");
    }
    // No allow covers per-process data named in an attached value, or through a link whose
    // name looks like an option.
    assert_eq!(shell_in(&rules, "rg -f/proc/1/environ x src", d), None);
    std::os::unix::fs::symlink("/proc", d.join("-p")).unwrap();
    assert_eq!(shell_in(&rules, "grep -r x -- -p/1", d), None);
    assert_eq!(shell_in(&rules, "grep -n5 x src", d), Some(Allow));
}

#[test]
fn a_path_deny_rule_sees_redirections() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join(".env"), "KEY=1").unwrap();
    let rules = Rules::new(&[rule("*", RuleTarget::Path(".env".into()), Deny, false)]);
    for command in [
        "cat <.env",
        "< .env cat",
        "<.env cat",
        "0<.env cat",
        "while read l; do echo \"$l\"; done <.env",
        "echo x >.env",
        "> .env echo x",
    ] {
        assert_eq!(shell_in(&rules, command, d), Some(Deny), "{command}");
    }
    // `find` with no starting point searches the working directory, which holds `.env`.
    assert_eq!(
        shell_in(&rules, "find -type f -exec cat '{}' +", d),
        Some(Ask)
    );
}
