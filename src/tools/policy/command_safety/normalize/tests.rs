//! The normaliser as a table: each shell form and the programs it really runs, or why it is
//! opaque.

use super::*;

/// The runs' argvs (an open run ends with `…`), or the opaque reason.
fn runs(command: &str) -> Result<Vec<String>, String> {
    let n = normalize(command);
    if let Some(why) = n.opaque {
        return Err(why);
    }
    Ok(n.runs
        .iter()
        .map(|r| {
            let mut s = r.argv.join(" ");
            if r.open {
                s.push_str(" …");
            }
            s
        })
        .collect())
}

#[test]
fn wrappers_and_paths_are_seen_through() {
    let table: &[(&str, &[&str])] = &[
        ("rm x", &["rm x"]),
        ("/bin/rm x", &["rm x"]),
        ("./rm x", &["rm x"]),
        ("\\rm x", &["rm x"]),
        ("'r'm x", &["rm x"]),
        ("command rm x", &["rm x"]),
        ("command -p rm x", &["rm x"]),
        ("builtin rm x", &["rm x"]),
        ("command -v rm", &[]),
        ("exec rm x", &["rm x"]),
        ("exec -a name rm x", &["rm x"]),
        ("env rm x", &["rm x"]),
        ("env -i A=1 -u HOME rm x", &["rm x"]),
        ("env --unset=HOME -C /tmp rm x", &["cd /tmp", "rm x"]),
        ("env -S 'rm -f' x", &["rm -f x"]),
        ("/usr/bin/env -- rm x", &["rm x"]),
        ("LC_ALL=C rm x", &["rm x"]),
        ("A=1 B=2 /bin/rm x", &["rm x"]),
        ("nice -n 5 rm x", &["rm x"]),
        ("nice rm x", &["rm x"]),
        ("nohup rm x", &["rm x"]),
        ("time rm x", &["rm x"]),
        ("time -p rm x", &["rm x"]),
        ("timeout 5 rm x", &["rm x"]),
        ("timeout -s KILL -k 1 5s rm x", &["rm x"]),
        ("stdbuf -oL rm x", &["rm x"]),
        ("setsid rm x", &["rm x"]),
        ("busybox rm x", &["rm x"]),
        ("sudo rm x", &["rm x"]),
        ("sudo -u root -- rm x", &["rm x"]),
        ("doas -u root rm x", &["rm x"]),
        ("command env nice -n 1 nohup rm x", &["rm x"]),
        ("ls | xargs rm", &["ls", "rm …"]),
        ("ls | xargs -0 -n 1 rm -f", &["ls", "rm -f …"]),
        ("ls | xargs -I{} rm {}", &["ls", "rm {} …"]),
        ("sh -c 'rm x'", &["rm x"]),
        ("bash -c \"rm x\"", &["rm x"]),
        ("bash -ec 'rm x'", &["rm x"]),
        ("bash -o pipefail -c 'rm x' name", &["rm x"]),
        ("/bin/dash -c 'echo; rm x'", &["echo", "rm x"]),
        ("zsh -c 'sh -c \"env rm x\"'", &["rm x"]),
        ("su -c 'rm x'", &["rm x"]),
        ("flock /tmp/l rm x", &["rm x"]),
        ("flock -c 'rm x' /tmp/l", &["rm x"]),
        ("watch -n 1 rm x", &["rm x"]),
        (
            "find . -name x -delete",
            &["find . -name x -delete", "rm …"],
        ),
        ("find . -exec rm {} \\;", &["find . -exec rm {} ;", "rm {}"]),
        (
            "find . -execdir /bin/rm -f {} + -print",
            &["find . -execdir /bin/rm -f {} + -print", "rm -f {}"],
        ),
        ("git diff && rm -rf x", &["git diff", "rm -rf x"]),
        ("if true; then rm x; fi", &["true", "rm x"]),
        ("while true; do rm x; done", &["true", "rm x"]),
        ("! rm x", &["rm x"]),
        ("{ rm x; }", &["rm x"]),
        ("(rm x)", &["rm x"]),
        ("rm x > /dev/null", &["rm x > /dev/null"]),
        (">log rm x", &[": >log", "rm x"]),
        ("2> err rm x", &[": 2> err", "rm x"]),
        ("for f in a b; do rm $f; done", &["rm $f"]),
    ];
    for (command, want) in table {
        assert_eq!(
            runs(command),
            Ok(want.iter().map(|s| s.to_string()).collect()),
            "{command}"
        );
    }
}

#[test]
fn what_cannot_be_read_is_opaque() {
    for command in [
        "$(echo rm) x",
        "`echo rm` x",
        "echo $(rm x)",
        "ls \"$(rm x)\"",
        "cat <(rm x)",
        "$RM x",
        "${RM} x",
        "r* x",
        "eval 'rm x'",
        "source ./x.sh",
        ". ./x.sh",
        "sh x.sh",
        "bash",
        "echo rm x | sh",
        "sh -c",
        "sh -c 'eval rm x'",
        "bash -c '$(echo rm) x'",
        "env $(echo rm) x",
        "xargs",
        "ls | xargs -I% % x",
        "f() { rm x; }; f",
        "case x in x) rm x;; esac",
        "parallel rm ::: x",
        "sudo -s",
        "'unterminated",
        "su",
    ] {
        assert!(runs(command).is_err(), "{command}: {:?}", runs(command));
    }
    let deep = (0..=MAX_DEPTH).fold("rm x".to_owned(), |inner, _| {
        format!("sh -c {}", super::super::quote_arg(&inner))
    });
    assert!(runs(&deep).is_err(), "{deep}");
}

#[test]
fn expanded_words_are_wild_and_the_rest_is_fixed() {
    let n = normalize("rm -rf $DIR/x");
    assert_eq!(n.opaque, None);
    let run = &n.runs[0];
    assert_eq!(run.wild, [false, false, true]);
    assert_eq!(run.fixed(), ["rm", "-rf"]);
    assert!(!run.is_exact());
    let quoted = normalize("rm -rf '$DIR'");
    assert!(quoted.runs[0].is_exact(), "a quoted `$` is a letter");
}

#[test]
fn options_read_as_getopt_reads_them() {
    // Clusters, abbreviations, long options with their value in the next word, and the
    // wrappers' other documented forms: each must still show the `rm` that runs.
    let table: &[(&str, &[&str])] = &[
        ("xargs -tn 1 rm -rf x", &["rm -rf x …"]),
        ("timeout -vs KILL 5 rm x", &["rm x"]),
        ("timeout --sig KILL 5 rm x", &["rm x"]),
        ("ionice -tc 3 rm x", &["rm x"]),
        ("sudo -Eu root rm x", &["rm x"]),
        ("sudo --us root rm x", &["rm x"]),
        ("sudo -c default rm x", &["rm x"]),
        ("sudo -a bsdauth rm x", &["rm x"]),
        ("env -iu HOME rm x", &["rm x"]),
        ("env --chdir /tmp rm x", &["rm x"]),
        ("env --unset HOME rm x", &["rm x"]),
        ("env -vS 'rm -rf x'", &["rm -rf x"]),
        ("env -a name rm x", &["rm x"]),
        ("env --argv0 name rm x", &["rm x"]),
        ("env -iS'rm -rf' x", &["rm -rf x"]),
        ("flock /tmp/l -c 'rm x'", &["rm x"]),
        ("flock -w 5 /tmp/l --command 'rm x'", &["rm x"]),
        ("flock --wait 5 /tmp/l rm x", &["rm x"]),
        ("watch -tn 1 rm x", &["rm x"]),
        ("rbash -c 'rm x'", &["rm x"]),
        ("gtimeout 5 rm x", &["rm x"]),
        ("genv -i rm x", &["rm x"]),
        ("ls | gxargs rm", &["rm …"]),
        ("watch -d rm x", &["rm x"]),
        ("xargs --max-lines rm x", &["rm x …"]),
        ("xargs --eof rm x", &["rm x …"]),
        ("exec -la name rm x", &["rm x"]),
        ("nice --adj 5 rm x", &["rm x"]),
        ("sh -oc errexit 'rm x'", &["rm x"]),
        ("2>&1 rm x", &["rm x"]),
        (">&2 rm x", &["rm x"]),
        (">|out rm x", &["rm x"]),
        ("<&0 rm x", &["rm x"]),
        (
            "find . -exec rm -- + -rf x \\;",
            &["find . -exec rm -- + -rf x ;", "rm -- + -rf x"],
        ),
    ];
    for (command, want) in table {
        let got = runs(command).map(|r| r.into_iter().filter(|s| s.starts_with("rm")).collect());
        let want: Vec<String> = want
            .iter()
            .filter(|s| s.starts_with("rm"))
            .map(|s| s.to_string())
            .collect();
        assert_eq!(got, Ok(want), "{command}");
    }
}

#[test]
fn a_program_named_by_input_or_by_the_shell_later_is_opaque() {
    for command in [
        "echo rm | xargs -I% sh -c %",
        "echo rm | xargs -I{} sh -c '{}'",
        "echo rm | xargs -0I{} {} -rf x",
        "echo rm | xargs -rI {} {} -rf x",
        "echo rm | xargs --rep=X X -rf x",
        "echo rm | xargs --replace '{}' -rf x",
        "echo rm | xargs -I% env %",
        "find /bin -name rm -exec '{}' -rf x \\;",
        "find /bin -name rm -exec {} -rf x \\;",
        "find /bin -name rm -exec env {} -rf x +",
        "{rm,-rf,x}",
        "sudo {rm,-rf,x}",
        "alias r=rm\nr -rf x",
        "trap 'rm -rf x' EXIT",
        "taskset -c 0 rm x",
        "prlimit --nofile=1 rm x",
        "unshare -r rm x",
        "fakeroot rm x",
        "ssh localhost rm x",
        "env -S 'rm\\_-rf\\_x'",
        "env -S '${RM} x'",
    ] {
        assert!(runs(command).is_err(), "{command}: {:?}", runs(command));
    }
}

#[test]
fn a_substitution_after_another_hazard_is_still_opaque() {
    for command in [
        "echo $HOME $(rm -rf x)",
        "echo ${x:-$(rm -rf x)}",
        "echo $(( $(rm -rf x) ))",
        "bash -c 'echo $((rm -rf x) )'",
        "echo $HOME `rm -rf x`",
        "echo * $(rm x)",
        "ls > f $(rm x)",
        "echo \"$HOME $(rm x)\"",
        "echo ~ <(rm x)",
    ] {
        assert!(runs(command).is_err(), "{command}: {:?}", runs(command));
    }
}
