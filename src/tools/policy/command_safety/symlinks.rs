//! Recursive searches that follow symlinks: not safe, because a committed link such as
//! `procfs -> /proc` takes them out of the project (to `/proc/<pid>/environ`, the user's
//! home…), and only the paths named on the command line are resolved and checked.
//!
//! Refused: `grep -R` / `--dereference-recursive` (also `egrep`, `fgrep`; and `-S`, with which
//! BSD grep follows every link), `rg -L` /
//! `--follow`, `find -L` / `-follow`. Allowed: `grep -r` (GNU grep follows only links named on
//! the command line, which are resolved and checked), `rg` and `find` without those options,
//! `find -H` (the same, for its starting points).

/// The option of `program` (a base name) that makes it follow symlinks while it recurses.
pub(super) fn following_option<'a>(program: &str, args: &'a [String]) -> Option<&'a str> {
    let found = |pred: &dyn Fn(&str) -> bool| args.iter().find(|a| pred(a)).map(String::as_str);
    match program {
        "grep" | "egrep" | "fgrep" | "ggrep" => found(&|a| {
            long_prefix(a, "dereference-recursive", 3)
                || short_in_cluster(a, 'R', "ABCDdefm")
                || short_in_cluster(a, 'S', "ABCDdefm")
        }),
        "rg" => {
            found(&|a| long_prefix(a, "follow", 3) || short_in_cluster(a, 'L', "ABCEMTdefgjmrt"))
        }
        "find" | "gfind" => found(&|a| a == "-L" || a == "-follow"),
        _ => None,
    }
}

/// `--NAME` or an abbreviation of it at least `min` letters long (GNU getopt_long's rule).
fn long_prefix(arg: &str, name: &str, min: usize) -> bool {
    arg.strip_prefix("--")
        .map(|a| a.split('=').next().unwrap_or_default())
        .is_some_and(|a| a.len() >= min && name.starts_with(a))
}

/// `-…L…` before any letter that takes a value (the rest of the cluster is that value).
fn short_in_cluster(arg: &str, letter: char, with_value: &str) -> bool {
    let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
        return false;
    };
    for c in cluster.chars() {
        if c == letter {
            return true;
        }
        if with_value.contains(c) {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opt(program: &str, command: &str) -> Option<String> {
        let args = shell_words::split(command).unwrap();
        following_option(program, &args).map(Into::into)
    }

    #[test]
    fn the_safe_list_refuses_a_following_search() {
        let list: Vec<String> = ["grep", "rg", "find"].map(String::from).to_vec();
        assert!(!super::super::is_safe("grep -R KEY .", &list));
        assert!(!super::super::is_safe("rg --follow KEY", &list));
        assert!(!super::super::is_safe("find -L . -name x", &list));
        assert!(super::super::is_safe("grep -r KEY .", &list));
        let why = super::super::check("grep -R KEY .", &list).unwrap_err();
        assert_eq!(
            why.to_string(),
            "`grep -R KEY .` uses `-R`, which follows symlinks out of the project"
        );
    }

    #[test]
    fn following_forms_are_found_and_plain_recursion_is_not() {
        for (p, c) in [
            ("grep", "-R x ."),
            ("grep", "-iR x ."),
            ("grep", "-rS x ."),
            ("grep", "--dereference-recursive x ."),
            ("grep", "--derefer x ."),
            ("egrep", "-nR x"),
            ("rg", "-L x"),
            ("rg", "--follow x"),
            ("rg", "-iL x"),
            ("find", ". -L -name x"),
            ("find", "-L ."),
            ("find", ". -follow"),
        ] {
            assert!(opt(p, c).is_some(), "{p} {c}");
        }
        for (p, c) in [
            ("grep", "-r x ."),
            ("grep", "-e R -r ."),
            ("grep", "-eR ."),
            ("grep", "--recursive x"),
            ("rg", "x ."),
            ("rg", "-e L x"),
            ("find", "-H . -name x"),
            ("find", ". -name L"),
            ("cat", "-R"),
        ] {
            assert_eq!(opt(p, c), None, "{p} {c}");
        }
    }
}
