//! The deterministic `is_safe` gate for shell commands (SPEC §5.4 step 3), plus [`quote_arg`],
//! which `cmd_tool` templates use to pass an argument as exactly one shell word (SPEC §4.7).
//!
//! This module owns the answer to "may this `run_command` string run in auto mode without
//! asking?". It is a pure function of the command text and the `safe_commands` list: no IO, no
//! environment, no cache.
//!
//! # Invariants
//!
//! - **Fail closed.** Anything the gate does not fully understand is unsafe: unbalanced quotes,
//!   a trailing backslash, a NUL byte, any shell syntax beyond plain words joined by `;`, `&&`,
//!   `||`, `|` or newlines, and any command or option not known to be harmless. The gate may
//!   reject a harmless command; it must never accept a harmful one.
//! - **Parse, never search.** The command is read by a quote-aware lexer that follows POSIX `sh`
//!   (and bash, which the same rules cover): inside single quotes nothing is special; inside
//!   double quotes `$`, backticks and backslash still are; outside quotes a backslash escapes one
//!   character and `#` at the start of a word begins a comment. Each segment's words are then
//!   produced by [`shell_words::split`], a POSIX word parser, and compared word by word with the
//!   list entries (so `l"s"` is `ls`, and `ls` does not match `lsblk`).
//! - **Every segment must pass.** A command is safe only if every segment (split on `;`, `&&`,
//!   `||`, `|`, newlines, quote-aware) starts with an entry of `safe_commands` by argv prefix and
//!   passes the argument checks below. An empty entry in `safe_commands` matches nothing.
//!
//! # Decisions
//!
//! Rejected anywhere outside single quotes (each one makes the *whole* command unsafe):
//!
//! - redirection: any unquoted `<` or `>` (so `>`, `>>`, `<`, `<<`, `<<<`, `2>`, `&>`, `>|`,
//!   `>&`) and `|&`;
//! - command and process substitution `$(`, `<(`, `>(`, and backticks (also inside double quotes);
//! - every `$` (variables, `${…}`, `$((…))`, `$'…'`, even a lone `$`), also inside double quotes:
//!   `grep "$HOME" f` is unsafe, `grep '$HOME' f` and `grep \$HOME f` are safe;
//! - tilde expansion: an unquoted `~` at the start of a word or after an unquoted `=` or `:`
//!   (`ls ~`, `--file=~/x`); it reads `$HOME`, so it is treated like a variable. A `~` inside a
//!   word stays allowed, so `git diff HEAD~1` is safe;
//! - filename patterns: any unquoted `*`, `?` or `[`. A pattern can expand to a file whose name
//!   is an option (a file called `--pre=evil` turns `rg x *` into `rg x --pre=evil …`), which
//!   the option checks below could not see. Quote the pattern to pass it literally;
//! - background `&`, subshells and groups `( … )`, `{ … }` (any unquoted brace, which also
//!   covers brace expansion such as `{a,b}`).
//!
//! A `#` comment is dropped with its text (the shell never runs it). A backslash-newline outside
//! single quotes joins lines, as in the shell.
//!
//! Commands that run another command are unsafe **even when listed**, because the gate would have
//! to judge the wrapped command and does not: `env sudo doas su nohup time timeout nice ionice
//! stdbuf setsid command builtin exec eval source . xargs parallel watch chroot strace ltrace
//! flock runuser unbuffer script busybox`, the shells (`sh bash zsh dash ksh mksh fish csh tcsh`)
//! and `awk` (`gawk mawk nawk busybox`), whose scripts can call `system()` or write files yet
//! which people list as a "read-only" text tool. Other interpreters (`python`, `perl`, `node`, …)
//! follow the list like any command: listing one makes all its scripts safe, so do not.
//!
//! Argument-aware checks (after Codex's list), on the program's base name, scanning *every*
//! argument (also after `--` and values of other options; this only over-rejects). Long options
//! are matched by prefix, because GNU `getopt_long` and git accept unambiguous abbreviations
//! (`sort --out=x` is `--output=x`):
//!
//! - `find`: `-exec -execdir -ok -okdir -delete -fls -fprint -fprint0 -fprintf`;
//! - `rg`: `--pre`, `--pre-glob`, `--hostname-bin`, `--search-zip`, `-z` (also in a cluster
//!   such as `-iz`);
//! - `git`: before the subcommand only these options are allowed: `--no-pager -P
//!   --no-replace-objects --literal-pathspecs --glob-pathspecs --noglob-pathspecs
//!   --icase-pathspecs --no-optional-locks --no-lazy-fetch --no-advice`. So `-c`,
//!   `--config-env`, `--git-dir`, `--work-tree`, `--exec-path`, `-p/--paginate` and also `-C`
//!   are unsafe: `-C` moves git into another repository whose `.git/config` may set
//!   `core.pager`, `core.fsmonitor` or `diff.external` — code git runs. After the subcommand:
//!   `--output`, `--ext-diff`, `--textconv`, `--exec`, `--paginate`, `--open-files-in-pager`
//!   (and `-O` for `git grep`), `--upload-pack`, `--receive-pack`, `--config`, `--config-env`,
//!   `--template`, `--extcmd`; `rebase -x`, `difftool -x`, `clone -u`/`-c`, `submodule foreach`,
//!   `bisect run`, `filter-branch`; and anything that can verify a signature
//!   (`--show-signature`, a `%G` placeholder, a `pretty.<name>` alias, `verify-commit`, …: see
//!   `signatures.rs`).
//!   `git diff --no-index` is allowed: it only reads two files, which `cat` may
//!   do too. `git branch` is allowed only for listing (read-only flags; names only as patterns
//!   with `--list`, `--contains`, `--merged`, …). With an entry such as `git status` the global
//!   options cannot appear at all (they would break the argv prefix).
//! - `sed`: only `sed -n 'N[,M]p' [FILE…]` (N, M numbers or `$`; no file may start with `-`), as
//!   in Codex; sed scripts can write (`w`, `s///w`) and execute (`e`). An in-place flag (`-i`,
//!   `-i.bak`, `-ni`, `--in-place`) is reported as a dangerous option.
//! - `sort`: `-o`, `--output`, `--compress-program` (runs a program);
//! - `base64`: `-o`, `--output`;
//! - `tail`: `-f`, `-F`, `--follow` (it never ends by itself, so it would hang until the timeout).
//! - recursive searches that follow symlinks (`grep -R`/`--dereference-recursive`, `rg
//!   -L`/`--follow`, `find -L`/`-follow`): a committed link such as `procfs -> /proc` would take
//!   them out of the project, and only the paths on the command line are resolved and checked
//!   (see `symlinks.rs`). `grep -r` follows only links named on the command line.
//!
//! The same per-program knowledge, without the list membership, is [`argv_refusal`]: what an
//! `allow` rule never covers. [`normalize`] reads a command line into the programs it really
//! runs (through `/bin/rm`, `env`, `sh -c`, `find -exec` …) for `deny` rules.
//!
//! The gate assumes the command runs under a POSIX `sh` or bash (`sh -c`); zsh-only syntax such
//! as `=cmd` is not modelled.

use std::fmt;

mod lexer;
pub mod normalize;
mod options;
mod signatures;
mod symlinks;
use lexer::lex;
use options::*;

/// Why a command is not safe, for logs and the approval modal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsafe {
    /// Nothing to run (only blanks, comments or separators).
    Empty,
    /// The command cannot be parsed (unbalanced quote, trailing backslash, NUL byte).
    Syntax(String),
    /// `<`, `>`, `>>`, `2>`, `&>`, `|&`, here-documents… outside quotes.
    Redirection,
    /// `$(…)`, `<(…)` or `>(…)`.
    Substitution,
    /// `` `…` `` command substitution.
    Backticks,
    /// A `$` expansion: `$VAR`, `${…}`, `$((…))`, `$'…'`.
    Expansion,
    /// A `~` that the shell would expand to a home directory.
    Tilde,
    /// An unquoted `*`, `?` or `[` (pathname expansion).
    Glob,
    /// A command run in the background with `&`.
    Background,
    /// `( … )`, `{ … }` or brace expansion.
    Grouping,
    /// A segment that starts with no entry of the safe-command list.
    NotAllowed { segment: String },
    /// A segment whose program runs another command (`env`, `xargs`, `sudo`, `sh`, …).
    Wrapper { segment: String, program: String },
    /// A segment that uses an option known to write, execute or reach out.
    DangerousOption { segment: String, option: String },
    /// A recursive search that follows symlinks, which can lead out of the project.
    FollowsSymlinks { segment: String, option: String },
    /// A command allowed only in a restricted form (`sed`, `git branch`).
    RestrictedForm {
        segment: String,
        allowed: &'static str,
    },
}

impl fmt::Display for Unsafe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsafe::Empty => f.write_str("the command is empty"),
            Unsafe::Syntax(why) => write!(f, "the command cannot be parsed: {why}"),
            Unsafe::Redirection => f.write_str("the command redirects input or output"),
            Unsafe::Substitution => f.write_str("the command uses command or process substitution"),
            Unsafe::Backticks => f.write_str("the command uses backtick command substitution"),
            Unsafe::Expansion => f.write_str("the command expands a variable (`$`)"),
            Unsafe::Tilde => f.write_str("the command expands `~` to a home directory"),
            Unsafe::Glob => f.write_str("the command uses a filename pattern (`*`, `?` or `[`)"),
            Unsafe::Background => f.write_str("the command runs something in the background"),
            Unsafe::Grouping => {
                f.write_str("the command uses a subshell, group or brace expansion")
            }
            Unsafe::NotAllowed { segment } => {
                write!(f, "`{segment}` is not on the safe-command list")
            }
            Unsafe::Wrapper { segment, program } => {
                write!(f, "`{segment}` uses `{program}`, which runs other commands")
            }
            Unsafe::DangerousOption { segment, option } => write!(
                f,
                "`{segment}` uses `{option}`, which can write files, run programs or reach the network"
            ),
            Unsafe::FollowsSymlinks { segment, option } => write!(
                f,
                "`{segment}` uses `{option}`, which follows symlinks out of the project"
            ),
            Unsafe::RestrictedForm { segment, allowed } => {
                write!(f, "`{segment}` is only auto-approved as {allowed}")
            }
        }
    }
}

impl std::error::Error for Unsafe {}

/// Checks `command` against `safe_commands` (entries such as `"ls"` or `"git status"`).
/// `Ok(())` means it may run without asking; otherwise the first reason found.
pub fn check(command: &str, safe_commands: &[String]) -> Result<(), Unsafe> {
    let lexed = lex(command)?;
    if let Some(hazard) = lexed.hazard {
        return Err(hazard);
    }
    if lexed.segments.is_empty() {
        return Err(Unsafe::Empty);
    }
    let entries: Vec<Vec<String>> = safe_commands
        .iter()
        .filter_map(|entry| shell_words::split(entry).ok())
        .filter(|words| !words.is_empty())
        .collect();
    for segment in &lexed.segments {
        check_segment(segment, &entries)?;
    }
    Ok(())
}

/// True when [`check`] finds nothing unsafe.
pub fn is_safe(command: &str, safe_commands: &[String]) -> bool {
    check(command, safe_commands).is_ok()
}

/// Splits `command` into its simple commands on `;`, `&&`, `||`, `|`, `&` and newlines,
/// respecting quotes and backslashes (an operator inside quotes is not a separator).
///
/// Each segment is its source text with comments and line continuations removed and blanks
/// trimmed; empty segments are dropped. Only unparseable input is an error; the segments of a
/// command that uses substitutions or groups are a best effort (such a command is unsafe anyway).
pub fn split_segments(command: &str) -> Result<Vec<String>, Unsafe> {
    lex(command).map(|lexed| lexed.segments)
}

/// For approval rules: the words of each simple command of `command`, and the first construct
/// that makes it more than a list of simple commands (redirection, substitution, expansion,
/// globbing, background, grouping), which an `allow` rule never covers. `Err` when the command
/// cannot be parsed, or a segment's words cannot be read.
pub fn rule_segments(command: &str) -> Result<(Vec<Vec<String>>, Option<Unsafe>), Unsafe> {
    let lexed = lex(command)?;
    let argvs = lexed
        .segments
        .iter()
        .map(|s| shell_words::split(s).map_err(|e| Unsafe::Syntax(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((argvs, lexed.hazard))
}

/// The words of each simple command of `command` (see [`split_segments`]), as the shell would
/// pass them; segments the word parser cannot read are left out.
pub fn segment_argvs(command: &str) -> Result<Vec<Vec<String>>, Unsafe> {
    Ok(split_segments(command)?
        .iter()
        .filter_map(|s| shell_words::split(s).ok())
        .filter(|argv| !argv.is_empty())
        .collect())
}

/// Quotes one argument for POSIX `sh` so that it is always exactly one word with exactly this
/// text: `; rm -rf ~` becomes `'; rm -rf ~'`, `it's` becomes `'it'\''s'`, the empty string `''`.
/// Plain words (ASCII letters, digits and `_-./,:@+`) are returned as they are.
pub fn quote_arg(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./,:@+".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        return arg.to_string();
    }
    let mut quoted = String::with_capacity(arg.len() + 2);
    quoted.push('\'');
    for c in arg.chars() {
        if c == '\'' {
            quoted.push_str("'\\''");
        } else {
            quoted.push(c);
        }
    }
    quoted.push('\'');
    quoted
}

// ---------------------------------------------------------------------------------------------
// One segment: the list, wrappers, options.

/// Programs that run another command given in their arguments; unsafe even when listed.
const WRAPPERS: &[&str] = &[
    "env", "sudo", "doas", "su", "nohup", "time", "timeout", "nice", "ionice", "stdbuf", "setsid",
    "command", "builtin", "exec", "eval", "source", ".", "xargs", "parallel", "watch", "chroot",
    "strace", "ltrace", "flock", "runuser", "unbuffer", "script", "busybox", "sh", "bash", "zsh",
    "dash", "ksh", "mksh", "fish", "csh", "tcsh", "awk", "gawk", "mawk", "nawk",
];

fn check_segment(segment: &str, entries: &[Vec<String>]) -> Result<(), Unsafe> {
    let argv = shell_words::split(segment).map_err(|e| Unsafe::Syntax(e.to_string()))?;
    if argv.is_empty() {
        return Err(Unsafe::Empty);
    }
    let listed = entries
        .iter()
        .any(|entry| argv.len() >= entry.len() && argv[..entry.len()] == entry[..]);
    if !listed {
        return Err(Unsafe::NotAllowed {
            segment: segment.to_string(),
        });
    }
    check_argv(segment, &argv)
}

/// What the safe list knows about one simple command's words, without asking whether it is
/// listed: a wrapper, an option that writes, executes, reaches out or follows symlinks out of
/// the project, a form allowed only restricted. An `allow` rule never covers what this refuses.
pub fn argv_refusal(argv: &[String]) -> Option<Unsafe> {
    let segment = shell_words::join(argv);
    check_argv(&segment, argv).err()
}

fn check_argv(segment: &str, argv: &[String]) -> Result<(), Unsafe> {
    let Some(first) = argv.first() else {
        return Err(Unsafe::Empty);
    };
    let program = first.rsplit('/').next().unwrap_or_default();
    if let Some(option) = symlinks::following_option(program, &argv[1..]) {
        return Err(Unsafe::FollowsSymlinks {
            segment: segment.to_string(),
            option: option.to_string(),
        });
    }
    if WRAPPERS.contains(&program) {
        return Err(Unsafe::Wrapper {
            segment: segment.to_string(),
            program: argv[0].clone(),
        });
    }
    let args = &argv[1..];
    let dangerous = |option: &str| Unsafe::DangerousOption {
        segment: segment.to_string(),
        option: option.to_string(),
    };
    match program {
        "git" => return check_git(segment, args),
        "sed" | "gsed" => return check_sed(segment, args),
        _ => {}
    }
    let rules = match program {
        "find" | "gfind" => &FIND,
        "rg" => &RG,
        "sort" | "gsort" => &SORT,
        "base64" | "gbase64" => &BASE64,
        "tail" | "gtail" => &TAIL,
        _ => return Ok(()),
    };
    match rules.find_dangerous(args) {
        Some(option) => Err(dangerous(option)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests;
