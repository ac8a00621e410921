//! The commands a shell command line will really run, for approval rules: what a `deny` rule
//! must see through, and what it cannot see at all.
//!
//! From each simple command (the quote-aware [`super::lexer`] split on `;`, `&&`, `||`, `|`,
//! `&`, newlines) [`normalize`] takes away what hides the program from a pattern:
//!
//! - a directory: `/bin/rm` and `./rm` are `rm`;
//! - `NAME=value` assignments, reserved words (`if`, `then`, `do`, `!`, `{`, `(` …), and
//!   redirections (`>f`, `2> f`), which are kept as a run of their own (`: >f`) for the paths
//!   they name;
//! - wrappers, with their own options: `command`, `builtin`, `exec`, `env` (`-i`, `-u NAME`,
//!   `-C DIR`, `-S STRING`, assignments), `nice`, `nohup`, `time`, `timeout`, `stdbuf`,
//!   `ionice`, `setsid`, `chroot`, `busybox`, `sudo`/`doas`, `xargs` (whose command gets more
//!   arguments from its input: an *open* run), `flock`, `watch`;
//! - shells: `sh|bash|zsh|dash|ksh|… -c 'SCRIPT'` and `su -c`, read again as a command line,
//!   nested up to [`MAX_DEPTH`];
//! - `find`: the command of each `-exec`/`-execdir`/`-ok`/`-okdir … ;` and, for `-delete`, an
//!   open `rm` (so a deny on `rm *` stops it).
//!
//! What it cannot see through makes the command **opaque** ([`Normalized::opaque`], the first
//! reason): command substitution (`$(…)`, backticks, `<(…)`), `eval`, `source`/`.`, a command
//! word that is an expansion (`$X`, a glob), a shell reading a script file or its input, `xargs`
//! with no command or with the command taken from its input (`-I{} {}`), a function definition,
//! `case`, and programs that run commands in their own syntax (`parallel`, `strace`, `script`).
//! Words of a command that an expansion or a pattern may change are marked *wild*: a rule can
//! only say they *may* match.
//!
//! What this can never see: a program that runs another on its own terms — an interpreter
//! (`python -c`, `perl -e`, `node -e`, `awk 'BEGIN{system(…)}'`), a build tool (`make`, `npm
//! run`), git aliases, a script the model wrote and then runs. A deny rule is a seat belt
//! against a model's slips, not a sandbox; only a mode that asks (`balanced`, `strict`) stops
//! an arbitrary command.

use super::lexer::lex;

/// How deep `sh -c 'sh -c …'` is read before the command counts as opaque.
pub const MAX_DEPTH: usize = 8;

/// One program that will run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The program's base name, then its arguments.
    pub argv: Vec<String>,
    /// Per word of `argv`: an expansion or a pattern may make it other words (or none).
    pub wild: Vec<bool>,
    /// It gets more arguments than `argv` (from `xargs`' input; `find -delete`'s files).
    pub open: bool,
}

impl Run {
    /// The words before the first wild one: what the command certainly starts with.
    pub fn fixed(&self) -> &[String] {
        let n = self.wild.iter().position(|w| *w).unwrap_or(self.argv.len());
        &self.argv[..n]
    }

    /// Every word is certain and nothing more comes.
    pub fn is_exact(&self) -> bool {
        !self.open && !self.wild.iter().any(|w| *w)
    }
}

/// The commands a command line runs, as far as they can be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Normalized {
    pub runs: Vec<Run>,
    /// Why some command that will run cannot be read (the first reason), if so.
    pub opaque: Option<String>,
}

impl Normalized {
    pub(super) fn hide(&mut self, why: impl Into<String>) {
        if self.opaque.is_none() {
            self.opaque = Some(why.into());
        }
    }
}

/// The commands `command` will run (see the module doc).
pub fn normalize(command: &str) -> Normalized {
    let mut n = Normalized::default();
    line(command, 0, &mut n);
    n
}

/// One command line (the whole command, or a shell's `-c` script).
pub(super) fn line(text: &str, depth: usize, n: &mut Normalized) {
    if depth > MAX_DEPTH {
        n.hide(format!("shells are nested more than {MAX_DEPTH} deep"));
        return;
    }
    let lexed = match lex(text) {
        Ok(l) => l,
        Err(e) => {
            n.hide(e.to_string());
            let words: Vec<String> = text.split_whitespace().map(Into::into).collect();
            simple(&words, true, false, depth, n);
            return;
        }
    };
    if let Some(h) = &lexed.substitution {
        n.hide(h.to_string());
    }
    let loose = lexed.hazard.is_some();
    for segment in &lexed.segments {
        match shell_words::split(segment) {
            Ok(words) => simple(&words, loose, false, depth, n),
            Err(e) => n.hide(format!("`{segment}` cannot be read: {e}")),
        }
    }
}

fn base(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

pub(super) fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// `Some(true)` for a redirection operator alone (its target is the next word), `Some(false)`
/// for one with its target attached (`>out`, `2>&1`).
fn redirection(word: &str) -> Option<bool> {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let op_len = [
        "&>>", ">>", "<<<", "<<", "<>", ">&", "<&", "&>", ">|", ">", "<",
    ]
    .iter()
    .find(|op| rest.starts_with(**op))?
    .len();
    if rest.starts_with("&") && word.len() != rest.len() {
        return None;
    }
    Some(rest.len() == op_len)
}

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "{", "(", "fi", "done", "esac", "}",
    ")",
];

/// Characters that make a word an expansion or a pattern when the line has such hazards.
fn looks_wild(word: &str) -> bool {
    word.contains(['$', '`', '*', '?', '[', '{', '~'])
}

/// One simple command's words: strips what hides the program, then records the run(s).
pub(super) fn simple(words: &[String], loose: bool, open: bool, depth: usize, n: &mut Normalized) {
    let mut w: Vec<String> = words.to_vec();
    // A subshell's parentheses stick to words: `(rm x)` is `(rm`, `x)`. A brace does not
    // (`{` and `}` are words of their own): `{rm,-rf,x}` is a brace expansion, `{}` a word.
    let grouped = w.first().is_some_and(|f| f.starts_with('('));
    if let Some(first) = w.first_mut() {
        *first = first.trim_start_matches('(').to_owned();
    }
    if grouped && let Some(last) = w.last_mut() {
        *last = last.trim_end_matches(')').to_owned();
    }
    w.retain(|x| !x.is_empty());
    let mut i = 0;
    // Redirections before the command still open their files: `< .env cat` reads `.env`.
    let mut redirections = Vec::new();
    while i < w.len() {
        let word = w[i].as_str();
        if let Some(alone) = redirection(word) {
            let n = if alone { 2 } else { 1 };
            redirections.extend(w[i..(i + n).min(w.len())].iter().cloned());
            i += n;
        } else if is_assignment(word) || KEYWORDS.contains(&word) {
            i += 1;
        } else {
            break;
        }
    }
    if !redirections.is_empty() {
        record(":", &redirections, loose, false, n);
    }
    let w = &w[i.min(w.len())..];
    let Some(first) = w.first() else {
        return;
    };
    if loose && looks_wild(first) {
        n.hide(format!(
            "the command word `{first}` is an expansion: sayso cannot tell which program runs"
        ));
        return;
    }
    if first.contains(['(', ')']) {
        n.hide(format!("`{first}` defines a function or opens a subshell"));
        return;
    }
    // GNU tools as Homebrew installs them (`genv`, `gxargs`, `gtimeout` …) are the same tools.
    let program = match base(first) {
        "genv" | "gnice" | "gnohup" | "gtimeout" | "gstdbuf" | "gchroot" | "gxargs" | "gtime" => {
            &base(first)[1..]
        }
        p => p,
    };
    let rest = &w[1..];
    match program {
        "for" | "select" => {}
        "case" | "function" | "coproc" => n.hide(format!("`{program}` is not read by sayso")),
        // `trap ACTION SIGNAL` runs ACTION as a script later; an alias changes what a word
        // of the next line runs (`sh` expands aliases).
        "trap"
            if rest
                .first()
                .is_some_and(|a| !matches!(a.as_str(), "-" | "" | "-l" | "-p")) =>
        {
            n.hide("`trap` runs text that sayso does not read");
        }
        "alias" if rest.iter().any(|a| a.contains('=')) => {
            n.hide("`alias` changes what a command word runs");
        }
        "eval" | "source" | "." => {
            n.hide(format!("`{program}` runs text that sayso does not read"));
        }
        "parallel" | "strace" | "ltrace" | "script" | "runuser" => n.hide(format!(
            "`{program}` runs commands in a syntax that sayso does not read"
        )),
        // Programs that run a command after options of their own, which sayso does not read.
        "taskset" | "chrt" | "prlimit" | "unshare" | "nsenter" | "setpriv" | "fakeroot"
        | "faketime" | "nocache" | "chronic" | "ifne" | "sg" | "pkexec" | "systemd-run"
        | "firejail" | "cpulimit" | "trickle" | "rlwrap" | "catchsegv" | "valgrind"
        | "dbus-run-session" | "xvfb-run" | "systemd-inhibit" | "proxychains" | "proxychains4"
        | "torsocks" | "numactl" | "caffeinate" | "run-one" | "ssh" => {
            n.hide(format!(
                "`{program}` runs a command that sayso does not read"
            ));
        }
        // `command -v NAME` only says where NAME is.
        "command" if rest.first().is_some_and(|a| a == "-v" || a == "-V") => {}
        "command" | "builtin" => simple(skip_flags(rest, &[]), loose, open, depth, n),
        "nohup" | "setsid" | "busybox" | "unbuffer" => {
            simple(skip_flags(rest, &[]), loose, open, depth, n)
        }
        "exec" => simple(skip_flags(rest, &["-a"]), loose, open, depth, n),
        "nice" => simple(
            skip_flags(rest, &["-n", "--adjustment"]),
            loose,
            open,
            depth,
            n,
        ),
        "time" => simple(
            skip_flags(rest, &["-f", "-o", "--format", "--output"]),
            loose,
            open,
            depth,
            n,
        ),
        "timeout" => {
            let after = skip_flags(rest, &["-s", "-k", "--signal", "--kill-after"]);
            simple(after.get(1..).unwrap_or_default(), loose, open, depth, n);
        }
        "stdbuf" => simple(
            skip_flags(rest, &["-i", "-o", "-e", "--input", "--output", "--error"]),
            loose,
            open,
            depth,
            n,
        ),
        "ionice" => simple(
            skip_flags(
                rest,
                &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
            ),
            loose,
            open,
            depth,
            n,
        ),
        "chroot" => {
            let after = skip_flags(rest, &["--userspec", "--groups"]);
            match after.get(1..) {
                Some(cmd) if !cmd.is_empty() => simple(cmd, loose, open, depth, n),
                _ => n.hide("`chroot` runs a shell"),
            }
        }
        "env" => env(rest, loose, open, depth, n),
        "sudo" | "doas" => sudo(program, rest, loose, open, depth, n),
        "xargs" => xargs(rest, loose, depth, n),
        "flock" => match dash_c(rest) {
            Some(script) => line(script, depth + 1, n),
            None => {
                let after = skip_flags(
                    rest,
                    &["-w", "-E", "--timeout", "--wait", "--conflict-exit-code"],
                );
                // `flock FILE -c COMMAND` (the documented form) or `flock FILE COMMAND…`.
                match after.get(1).map(String::as_str) {
                    Some("-c" | "--command") => match after.get(2) {
                        Some(script) => line(script, depth + 1, n),
                        None => n.hide("`flock -c` runs a shell"),
                    },
                    _ => simple(after.get(1..).unwrap_or_default(), loose, open, depth, n),
                }
            }
        },
        "watch" => {
            // `-d`/`--differences` take an attached value only (`-d=permanent`).
            let after = skip_flags(rest, &["-n", "--interval", "-q", "--equexit"]);
            line(&after.join(" "), depth + 1, n);
        }
        "su" => match dash_c(rest) {
            Some(script) => line(script, depth + 1, n),
            None => n.hide("`su` runs a shell"),
        },
        p if is_shell(p) => shell(program, rest, depth, n),
        "find" | "gfind" => {
            record(program, rest, loose, open, n);
            find(rest, loose, depth, n);
        }
        _ => record(program, rest, loose, open, n),
    }
}

/// The shells whose `-c SCRIPT` is read (the normaliser here, the git guard's targets).
pub const SHELLS: &[&str] = &[
    "sh", "bash", "rbash", "zsh", "dash", "ksh", "ksh93", "pdksh", "oksh", "loksh", "lksh", "mksh",
    "ash", "yash", "posh", "fish", "csh", "tcsh", "nu", "elvish", "xonsh", "pwsh",
];

/// Whether `program` (a base name) is one of [`SHELLS`].
pub fn is_shell(program: &str) -> bool {
    SHELLS.contains(&program)
}

pub(super) fn record(program: &str, args: &[String], loose: bool, open: bool, n: &mut Normalized) {
    let mut argv = vec![program.to_owned()];
    argv.extend(args.iter().cloned());
    let wild = argv.iter().map(|w| loose && looks_wild(w)).collect();
    n.runs.push(Run { argv, wild, open });
}

mod wrappers;
pub use wrappers::dash_c;
use wrappers::{env, find, shell, skip_flags, sudo, xargs};

#[cfg(test)]
mod tests;
