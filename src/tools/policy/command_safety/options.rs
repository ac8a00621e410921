//! Argument-aware rules: options that make a listed program write, execute or reach out
//! (`find -exec`, `rg --pre`, `git -c`, `sed -i`, …), and the forms of git and sed that are read-only.

use super::*;

/// The options of one program that write, execute or reach out.
pub(super) struct OptionRules {
    /// Whole words, compared exactly (`find -exec`).
    words: &'static [&'static str],
    /// Long option names (`--name`, `--name=value`); an abbreviation (a prefix) matches too.
    long: &'static [&'static str],
    /// Real, harmless long options that happen to be prefixes of a name in `long`.
    long_ok: &'static [&'static str],
    /// Short option letters, also inside a cluster (`-iz`).
    short: &'static str,
    /// Short option letters that take a value: the rest of the cluster is that value. Only
    /// letters known to take one; a missing letter only over-rejects.
    short_with_value: &'static str,
}

impl OptionRules {
    pub(super) fn find_dangerous<'a>(&self, args: &'a [String]) -> Option<&'a str> {
        args.iter()
            .find(|arg| self.is_dangerous(arg))
            .map(String::as_str)
    }

    fn is_dangerous(&self, arg: &str) -> bool {
        if self.words.contains(&arg) {
            return true;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or_default();
            return !name.is_empty()
                && !self.long_ok.contains(&name)
                && self.long.iter().any(|d| d.starts_with(name));
        }
        if let Some(cluster) = arg.strip_prefix('-') {
            for c in cluster.chars() {
                if self.short.contains(c) {
                    return true;
                }
                if self.short_with_value.contains(c) {
                    break;
                }
            }
        }
        false
    }
}

pub(super) const FIND: OptionRules = OptionRules {
    words: &[
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf",
    ],
    long: &[],
    long_ok: &[],
    short: "",
    short_with_value: "",
};

pub(super) const RG: OptionRules = OptionRules {
    words: &[],
    long: &["pre", "pre-glob", "hostname-bin", "search-zip"],
    long_ok: &[],
    short: "z",
    short_with_value: "ABCEMTdefgjmrt",
};

pub(super) const SORT: OptionRules = OptionRules {
    words: &[],
    long: &["output", "compress-program"],
    long_ok: &[],
    short: "o",
    short_with_value: "STkt",
};

pub(super) const BASE64: OptionRules = OptionRules {
    words: &[],
    long: &["output"],
    long_ok: &[],
    short: "o",
    short_with_value: "w",
};

/// `tail -f` / `--follow` never ends by itself: it would hang until the command times out.
pub(super) const TAIL: OptionRules = OptionRules {
    words: &[],
    long: &["follow"],
    long_ok: &[],
    short: "fF",
    short_with_value: "cns",
};

/// Options git accepts before the subcommand that are harmless; every other one is unsafe.
pub(super) const GIT_SAFE_GLOBAL: &[&str] = &[
    "--no-pager",
    "-P",
    "--no-replace-objects",
    "--literal-pathspecs",
    "--glob-pathspecs",
    "--noglob-pathspecs",
    "--icase-pathspecs",
    "--no-optional-locks",
    "--no-lazy-fetch",
    "--no-advice",
];

/// Options after the subcommand.
pub(super) const GIT_SUBCOMMAND: OptionRules = OptionRules {
    words: &[],
    long: &[
        "output",
        "ext-diff",
        "textconv",
        "exec",
        "paginate",
        "open-files-in-pager",
        "upload-pack",
        "receive-pack",
        "config",
        "config-env",
        "template",
        "extcmd",
    ],
    // `git diff --text` is a real option and a prefix of `--textconv`.
    long_ok: &["text"],
    short: "",
    short_with_value: "",
};

/// `git grep -O` opens the matches in a pager.
pub(super) const GIT_GREP: OptionRules = OptionRules {
    words: &[],
    long: &[],
    long_ok: &[],
    short: "O",
    short_with_value: "ABCEefm",
};

/// `git branch` flags that only list.
pub(super) const GIT_BRANCH_READ_ONLY: &[&str] = &[
    "--list",
    "--all",
    "--remotes",
    "--verbose",
    "--show-current",
    "--ignore-case",
    "--omit-empty",
    "--no-abbrev",
    "--abbrev",
    "--color",
    "--no-color",
    "--column",
    "--no-column",
    "--format",
    "--sort",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
];

/// `git branch` flags after which other words are patterns or commits, never new branches.
pub(super) const GIT_BRANCH_LISTING: &[&str] = &[
    "--list",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
];

pub(super) fn check_git(segment: &str, args: &[String]) -> Result<(), Unsafe> {
    let dangerous = |option: &str| Unsafe::DangerousOption {
        segment: segment.to_string(),
        option: option.to_string(),
    };
    let mut rest = args;
    while let Some((first, tail)) = rest.split_first() {
        if !first.starts_with('-') {
            break;
        }
        if !GIT_SAFE_GLOBAL.contains(&first.as_str()) {
            return Err(dangerous(first));
        }
        rest = tail;
    }
    let Some((subcommand, sub_args)) = rest.split_first() else {
        return Ok(());
    };
    if let Some(option) = GIT_SUBCOMMAND.find_dangerous(sub_args) {
        return Err(dangerous(option));
    }
    if let Some(word) = super::signatures::signature_word(subcommand, sub_args) {
        return Err(dangerous(word));
    }
    // Short options and words of one subcommand that run a command or set a configuration.
    let (shorts, words): (&str, &[&str]) = match subcommand.as_str() {
        "rebase" => ("x", &[]),
        "difftool" | "mergetool" => ("x", &[]),
        "clone" => ("uc", &[]),
        "submodule" => ("", &["foreach"]),
        "bisect" => ("", &["run"]),
        "filter-branch" => return Err(dangerous(subcommand)),
        _ => ("", &[]),
    };
    if let Some(word) = sub_args.iter().find(|a| {
        words.contains(&a.as_str())
            || a.strip_prefix('-')
                .is_some_and(|c| !c.starts_with('-') && c.contains(|ch| shorts.contains(ch)))
    }) {
        return Err(dangerous(word));
    }
    match subcommand.as_str() {
        "grep" => match GIT_GREP.find_dangerous(sub_args) {
            Some(option) => Err(dangerous(option)),
            None => Ok(()),
        },
        "branch" => check_git_branch(segment, sub_args),
        _ => Ok(()),
    }
}

pub(super) fn check_git_branch(segment: &str, args: &[String]) -> Result<(), Unsafe> {
    let mut listing = false;
    let mut names = false;
    for arg in args {
        if let Some(long) = arg.strip_prefix("--") {
            let name = format!("--{}", long.split('=').next().unwrap_or_default());
            if !GIT_BRANCH_READ_ONLY.contains(&name.as_str()) {
                return Err(Unsafe::DangerousOption {
                    segment: segment.to_string(),
                    option: arg.clone(),
                });
            }
            listing |= GIT_BRANCH_LISTING.contains(&name.as_str());
        } else if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            if !cluster.chars().all(|c| "alrviq".contains(c)) {
                return Err(Unsafe::DangerousOption {
                    segment: segment.to_string(),
                    option: arg.clone(),
                });
            }
            listing |= cluster.contains('l');
        } else {
            names = true;
        }
    }
    if names && !listing {
        return Err(Unsafe::RestrictedForm {
            segment: segment.to_string(),
            allowed: "`git branch` with listing flags only",
        });
    }
    Ok(())
}

pub(super) const SED_IN_PLACE: OptionRules = OptionRules {
    words: &[],
    long: &["in-place"],
    long_ok: &[],
    short: "i",
    short_with_value: "efl",
};

pub(super) fn check_sed(segment: &str, args: &[String]) -> Result<(), Unsafe> {
    if let Some(option) = SED_IN_PLACE.find_dangerous(args) {
        return Err(Unsafe::DangerousOption {
            segment: segment.to_string(),
            option: option.to_string(),
        });
    }
    let simple_print = match args {
        [n, script, files @ ..] => {
            n == "-n" && is_sed_print(script) && files.iter().all(|f| !f.starts_with('-'))
        }
        _ => false,
    };
    if simple_print {
        Ok(())
    } else {
        Err(Unsafe::RestrictedForm {
            segment: segment.to_string(),
            allowed: "`sed -n 'N,Mp' [FILE…]`",
        })
    }
}

/// `Np` or `N,Mp`, where N and M are line numbers or `$`.
pub(super) fn is_sed_print(script: &str) -> bool {
    let address = |a: &str| a == "$" || (!a.is_empty() && a.chars().all(|c| c.is_ascii_digit()));
    let Some(range) = script.strip_suffix('p') else {
        return false;
    };
    match range.split_once(',') {
        Some((from, to)) => address(from) && address(to),
        None => address(range),
    }
}
