//! Git commands that can verify a signature, and so run the repository's `gpg.program`,
//! `gpg.openpgp.program`, `gpg.ssh.program` or `gpg.x509.program` (issue 18, case 1): never
//! safe, whatever the safe list says.
//!
//! The words are checked after shell splitting, so every quoting of a placeholder (`'%G?'`,
//! `%G\?`, `"%GG"`) looks the same here. A command can verify a signature when it has:
//!
//! - a signature option: `--show-signature`, `--verify-signatures` (and abbreviations of
//!   them, which only over-reject);
//! - a signature placeholder in a format: `%G` with any of git's modifiers (`%+G?`, `%-GG`,
//!   `% GK`), in `--format=`, `--pretty=`, `format:`/`tformat:` or any other word; and the
//!   ref-filter atom `%(signature…)` (`for-each-ref`, `branch --format`);
//! - a format *name* that is not one of git's own (`--pretty=NAME`, `--format=NAME`): git
//!   looks it up as a `pretty.NAME` alias in the config, which the repository can define as
//!   `%G?`;
//! - a verifying subcommand: `verify-commit`, `verify-tag`, `tag -v` / `tag --verify`.
//!
//! What this does not cover: a repository's `log.showSignature` or `format.pretty` make a
//! plain `git log` verify. No text check can see those; the guarded environment points every
//! signature program at `/dev/null` instead ([`crate::tools::git_guard::NEUTRAL_CONFIG`]).

/// git's own format names (`git log --pretty=NAME`); any other name is a config alias.
const BUILTIN_FORMATS: &[&str] = &[
    "oneline",
    "short",
    "medium",
    "full",
    "fuller",
    "reference",
    "email",
    "mboxrd",
    "raw",
];

/// Long options that verify signatures (matched as abbreviations too).
const SIGNATURE_OPTIONS: &[&str] = &["show-signature", "verify-signatures"];

/// The first word of `git SUBCOMMAND ARGS…` that can make git verify a signature.
pub(super) fn signature_word<'a>(subcommand: &'a str, args: &'a [String]) -> Option<&'a str> {
    if matches!(subcommand, "verify-commit" | "verify-tag") {
        return Some(subcommand);
    }
    if subcommand == "tag"
        && let Some(verify) = args.iter().find(|a| is_tag_verify(a))
    {
        return Some(verify);
    }
    std::iter::once(subcommand)
        .chain(args.iter().map(String::as_str))
        .find(|w| verifies(w))
}

/// Whether one word can make git verify a signature (see the module doc).
pub(super) fn verifies(word: &str) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        let name = long.split('=').next().unwrap_or_default();
        if !name.is_empty() && SIGNATURE_OPTIONS.iter().any(|o| o.starts_with(name)) {
            return true;
        }
        for key in ["pretty=", "format="] {
            if let Some(value) = long.strip_prefix(key)
                && is_alias_name(value)
            {
                return true;
            }
        }
    }
    has_signature_placeholder(word)
}

/// `%G…` (with an optional `+`, `-` or space modifier) or `%(signature`. A `%%` before it is
/// not treated specially: that only over-rejects.
fn has_signature_placeholder(word: &str) -> bool {
    let bytes = word.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        if b != b'%' {
            return false;
        }
        let rest = &bytes[i + 1..];
        let rest = match rest.first() {
            Some(b'+' | b'-' | b' ') => &rest[1..],
            _ => rest,
        };
        rest.first() == Some(&b'G') || rest.starts_with(b"(signature")
    })
}

/// A `--pretty=`/`--format=` value that git resolves through `pretty.<name>` in the config.
fn is_alias_name(value: &str) -> bool {
    !value.is_empty()
        && !value.contains('%')
        && !value.starts_with("format:")
        && !value.starts_with("tformat:")
        && !BUILTIN_FORMATS.contains(&value)
}

/// `git tag -v` (also in a cluster such as `-lv`) or `--verify` (or an abbreviation).
fn is_tag_verify(arg: &str) -> bool {
    match arg.strip_prefix("--") {
        Some(long) => {
            let name = long.split('=').next().unwrap_or_default();
            name.len() >= 2 && "verify".starts_with(name)
        }
        None => arg.strip_prefix('-').is_some_and(|c| c.contains('v')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::policy::command_safety::{Unsafe, check};

    fn list() -> Vec<String> {
        [
            "git log",
            "git show",
            "git status",
            "git diff",
            "git verify-commit",
            "git verify-tag",
            "git tag",
            "git for-each-ref",
            "git branch",
            "git merge",
            "git pull",
            "git whatchanged",
            "git",
        ]
        .map(String::from)
        .to_vec()
    }

    /// Every form that can run a signature program, as the model would write it, and the word
    /// the check reports.
    #[test]
    fn every_signature_form_is_not_safe() {
        let table = [
            ("git log --show-signature", "--show-signature"),
            ("git log -1 --show-signature -p", "--show-signature"),
            ("git show --show-signature HEAD", "--show-signature"),
            ("git whatchanged --show-signature", "--show-signature"),
            ("git log --pretty=%GG", "--pretty=%GG"),
            ("git log '--format=%G?'", "--format=%G?"),
            ("git log --format=%G\\?", "--format=%G?"),
            ("git log \"--format=%GK\"", "--format=%GK"),
            ("git log --format='%h %G?'", "--format=%h %G?"),
            ("git log --format=%+G\\?", "--format=%+G?"),
            ("git log '--format=%-GS'", "--format=%-GS"),
            ("git log '--format=% GF'", "--format=% GF"),
            ("git log --pretty=format:%GP", "--pretty=format:%GP"),
            ("git log '--pretty=tformat:%GT'", "--pretty=tformat:%GT"),
            ("git show -s --format=%GG HEAD", "--format=%GG"),
            ("git log --pretty=sig", "--pretty=sig"),
            ("git log --format=mine", "--format=mine"),
            ("git show --pretty=audit HEAD", "--pretty=audit"),
            ("git verify-commit HEAD", "verify-commit"),
            ("git verify-tag v1", "verify-tag"),
            ("git tag -v v1", "-v"),
            ("git tag --verify v1", "--verify"),
            ("git tag -lv", "-lv"),
            ("git merge --verify-signatures x", "--verify-signatures"),
            ("git pull --verify-sig", "--verify-sig"),
            (
                "git for-each-ref '--format=%(signature)'",
                "--format=%(signature)",
            ),
            (
                "git branch '--format=%(signature:grade)'",
                "--format=%(signature:grade)",
            ),
            ("git --no-pager log --show-signature", "--show-signature"),
        ];
        for (command, word) in table {
            assert_eq!(
                check(command, &list()),
                Err(Unsafe::DangerousOption {
                    segment: command.to_owned(),
                    option: word.to_owned(),
                }),
                "{command}"
            );
        }
    }

    #[test]
    fn formats_without_signatures_stay_safe() {
        for command in [
            "git log --oneline",
            "git log --pretty=oneline",
            "git log --pretty=fuller -3",
            "git log --format=raw",
            "git log --format=%H",
            "git log '--format=%h %an %s'",
            "git log --pretty=format:%h",
            "git log --pretty",
            "git log --no-show-signature",
            "git log '--format=%x25G?'",
            "git log -Gneedle",
            "git show HEAD",
            "git tag",
            "git tag -l 'v*'",
            "git for-each-ref '--format=%(refname)'",
        ] {
            assert_eq!(check(command, &list()), Ok(()), "{command}");
        }
    }

    #[test]
    fn a_hex_escaped_percent_is_not_a_placeholder() {
        assert!(!verifies("--format=%x25G?"));
        assert!(verifies("--format=%%G?"), "over-rejects, never under");
    }
}
