//! The wrappers' own syntax, for [`super::normalize()`]: where the wrapped command starts after
//! their options (`env`, `sudo`/`doas`, `xargs`, `timeout` …), the script of a shell's `-c`,
//! and the commands `find` runs.

use super::{Normalized, Run, is_assignment, line, simple};

/// Whether the option word `a` takes the next word as its value, as `getopt_long` reads it:
/// `valued` are the options that take one (`-x`, `--name`). A short option may end a cluster
/// (`-tn 1` is `-t -n 1`; in `-n1` the value is attached), and a long one may be abbreviated
/// (`--sig KILL` is `--signal KILL`).
pub(super) fn takes_value(a: &str, valued: &[&str]) -> bool {
    if valued.contains(&a) {
        return true;
    }
    if let Some(long) = a.strip_prefix("--") {
        return !long.is_empty()
            && !long.contains('=')
            && valued
                .iter()
                .any(|v| v.strip_prefix("--").is_some_and(|v| v.starts_with(long)));
    }
    let Some(cluster) = a.strip_prefix('-') else {
        return false;
    };
    let chars: Vec<char> = cluster.chars().collect();
    for (j, c) in chars.iter().enumerate() {
        if valued.contains(&format!("-{c}").as_str()) {
            return j + 1 == chars.len();
        }
    }
    false
}

/// The words after a wrapper's options (`--` ends them); `valued` are the options that take
/// the next word as their value (also as `--name=value` or `-xVALUE`, see [`takes_value`]).
pub(super) fn skip_flags<'a>(args: &'a [String], valued: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            return &args[i + 1..];
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        i += if takes_value(a, valued) { 2 } else { 1 };
    }
    args.get(i..).unwrap_or_default()
}

/// The script of a `-c SCRIPT` (`-c` alone or ending a cluster such as `-ec`, `-lc`).
pub fn dash_c(args: &[String]) -> Option<&str> {
    let mut c = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if a == "--" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            if long == "command" {
                c = true;
            }
            continue;
        }
        let Some(cluster) = a.strip_prefix(['-', '+']) else {
            if c {
                return Some(a.as_str());
            }
            return None;
        };
        if cluster.contains('c') {
            c = true;
        }
        // Each `o`/`O` of a cluster takes one word (`-oc errexit SCRIPT`).
        i += cluster.chars().filter(|c| matches!(c, 'o' | 'O')).count();
    }
    if c {
        args.get(i).map(String::as_str)
    } else {
        None
    }
}

pub(super) fn shell(program: &str, args: &[String], depth: usize, n: &mut Normalized) {
    if let Some(script) = dash_c(args) {
        return line(script, depth + 1, n);
    }
    let file = args.iter().find(|a| !a.starts_with(['-', '+']));
    n.hide(match file {
        Some(f) => format!("`{program} {f}` runs a script that sayso does not read"),
        None => format!("`{program}` runs commands from its input"),
    });
}

pub(super) fn env(args: &[String], loose: bool, open: bool, depth: usize, n: &mut Normalized) {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        // `-S STRING` / `--split-string=STRING`, also at the end of a cluster (`-iS STRING`)
        // or attached (`-S'rm -f'`, `-vSrm`).
        let split = if let Some(long) = a.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(k, v)| (k, Some(v)));
            if !name.is_empty() && "split-string".starts_with(name) {
                Some(value.map(str::to_owned))
            } else {
                None
            }
        } else if a.starts_with('-') && a != "-" {
            let short = &a[1..];
            // The first of `u`, `C`, `S` in a cluster takes the rest, or the next word.
            match short.find(['u', 'C', 'P', 'a', 'L', 'S']) {
                Some(p) if short[p..].starts_with('S') => {
                    let rest = &short[p + 1..];
                    Some((!rest.is_empty()).then(|| rest.to_owned()))
                }
                _ => None,
            }
        } else {
            None
        };
        if let Some(value) = split {
            let (split, next) = match value {
                Some(v) => (v, i + 1),
                None => (args.get(i + 1).cloned().unwrap_or_default(), i + 2),
            };
            // `env -S` has escapes and expansions of its own (`\_` is a blank, `${HOME}`).
            if split.contains(['\\', '$']) {
                return n.hide("`env -S` splits a string with escapes that sayso does not read");
            }
            let mut words = shell_words::split(&split).unwrap_or_else(|_| {
                n.hide("`env -S` splits a string that sayso cannot read");
                Vec::new()
            });
            words.extend(args.get(next..).unwrap_or_default().iter().cloned());
            return env(&words, loose, open, depth, n);
        }
        if let Some(dir) = option_value(args, i, 'C', "chdir", &["-u", "-P", "-a", "-L", "-S"]) {
            n.runs.push(chdir(dir));
        }
        if a.starts_with('-') && a != "-" {
            // `-a`/`--argv0` (coreutils 9.5), `-P`/`-L` (BSD) take a value too.
            i += if takes_value(
                a,
                &[
                    "-u", "-C", "-P", "-a", "-L", "--unset", "--chdir", "--argv0",
                ],
            ) {
                2
            } else {
                1
            };
        } else if is_assignment(a) {
            i += 1;
        } else {
            break;
        }
    }
    simple(args.get(i..).unwrap_or_default(), loose, open, depth, n);
}

/// The value of option `-short`/`--long` when `args[i]` is that option (`-C DIR`, `-CDIR`,
/// `-iC DIR`, `--chdir DIR`, `--ch=DIR`); `others` are the cluster's other valued options.
fn option_value<'a>(
    args: &'a [String],
    i: usize,
    short: char,
    long: &str,
    others: &[&str],
) -> Option<&'a str> {
    let a = args.get(i)?;
    if let Some(l) = a.strip_prefix("--") {
        let (name, value) = l.split_once('=').map_or((l, None), |(k, v)| (k, Some(v)));
        if name.is_empty() || !long.starts_with(name) {
            return None;
        }
        return value.or_else(|| args.get(i + 1).map(String::as_str));
    }
    let cluster = a.strip_prefix('-')?;
    for (j, c) in cluster.char_indices() {
        if c == short {
            let rest = &cluster[j + c.len_utf8()..];
            return if rest.is_empty() {
                args.get(i + 1).map(String::as_str)
            } else {
                Some(rest)
            };
        }
        if others.contains(&format!("-{c}").as_str()) {
            return None;
        }
    }
    None
}

/// The command runs in `dir` (`env -C`, `sudo -D`): a `cd` for the paths it names.
fn chdir(dir: &str) -> Run {
    Run {
        argv: vec!["cd".into(), dir.into()],
        wild: vec![false, false],
        open: false,
    }
}

pub(super) fn sudo(
    program: &str,
    args: &[String],
    loose: bool,
    open: bool,
    depth: usize,
    n: &mut Normalized,
) {
    let valued = [
        "-a",
        "-c",
        "-u",
        "-g",
        "-C",
        "-D",
        "-p",
        "-r",
        "-t",
        "-U",
        "-T",
        "-R",
        "--user",
        "--group",
        "--chdir",
        "--prompt",
        "--role",
        "--type",
        "--other-user",
        "--command-timeout",
    ];
    let mut shell_form = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        let short = a.strip_prefix('-').filter(|s| !s.starts_with('-'));
        let flags = short.map(|s| {
            s.split(|c: char| valued.contains(&format!("-{c}").as_str()))
                .next()
                .unwrap_or_default()
        });
        if flags.is_some_and(|f| f.contains(['s', 'i'])) || a == "--shell" || a == "--login" {
            shell_form = true;
        }
        let others: Vec<&str> = valued.iter().copied().filter(|v| *v != "-D").collect();
        if let Some(dir) = option_value(args, i, 'D', "chdir", &others) {
            n.runs.push(chdir(dir));
        }
        if flags.is_some_and(|f| f.contains('e')) || a == "--edit" {
            return n.hide(format!("`{program} -e` edits files as another user"));
        }
        i += if takes_value(a, &valued) { 2 } else { 1 };
    }
    let cmd = args.get(i..).unwrap_or_default();
    match (cmd.is_empty(), shell_form) {
        (true, true) => n.hide(format!("`{program}` opens a shell")),
        (true, false) => {}
        (false, true) => line(&cmd.join(" "), depth + 1, n),
        (false, false) => simple(cmd, loose, open, depth, n),
    }
}

pub(super) fn xargs(args: &[String], loose: bool, depth: usize, n: &mut Normalized) {
    let valued = [
        "-a",
        "-d",
        "-E",
        "-I",
        "-L",
        "-n",
        "-P",
        "-s",
        "--arg-file",
        "--delimiter",
        "--max-args",
        "--max-procs",
        "--max-chars",
        "--process-slot-var",
    ];
    let mut replace: Option<String> = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, value) = long
                .split_once('=')
                .map_or((long, None), |(k, v)| (k, Some(v)));
            if !name.is_empty() && "replace".starts_with(name) {
                replace = Some(value.unwrap_or("{}").to_owned());
            }
        } else {
            // A short cluster: `-I` takes the rest or the next word, `-i` the rest or `{}`;
            // another valued option ends the cluster.
            let short = &a[1..];
            for (j, c) in short.char_indices() {
                let rest = &short[j + c.len_utf8()..];
                match c {
                    'I' if rest.is_empty() => replace = args.get(i + 1).cloned(),
                    'I' => replace = Some(rest.to_owned()),
                    'i' if rest.is_empty() => replace = Some("{}".into()),
                    'i' => replace = Some(rest.to_owned()),
                    'e' | 'l' => {}
                    _ if !valued.contains(&format!("-{c}").as_str()) => continue,
                    _ => {}
                }
                break;
            }
        }
        i += if takes_value(a, &valued) { 2 } else { 1 };
    }
    let cmd = args.get(i..).unwrap_or_default();
    if cmd.is_empty() {
        return n.hide("`xargs` without a command runs what its input says");
    }
    match replace {
        Some(r) => hidden_in_program(
            cmd,
            &r,
            (loose, true),
            depth,
            n,
            "`xargs` takes the command itself from its input",
        ),
        None => simple(cmd, loose, true, depth, n),
    }
}

/// Reads `cmd`, a command whose `marker` words are replaced by an input line or a file name
/// (`xargs -I`, `find -exec`): opaque when a program it runs is named by the marker
/// (`xargs -I% sh -c %`, `find -exec {} \;`), whatever wraps it.
fn hidden_in_program(
    cmd: &[String],
    marker: &str,
    (loose, open): (bool, bool),
    depth: usize,
    n: &mut Normalized,
    why: &str,
) {
    let mut sub = Normalized::default();
    simple(cmd, loose, open, depth, &mut sub);
    if sub.runs.iter().any(|r| r.argv[0].contains(marker)) {
        n.hide(why);
    }
    if let Some(o) = sub.opaque {
        n.hide(o);
    }
    n.runs.extend(sub.runs);
}

pub(super) fn find(args: &[String], loose: bool, depth: usize, n: &mut Normalized) {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        match a.as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                // `+` ends the command only right after `{}`.
                let end = (i..args.len())
                    .find(|&k| args[k] == ";" || (args[k] == "+" && k > i && args[k - 1] == "{}"))
                    .unwrap_or(args.len());
                hidden_in_program(
                    &args[i..end],
                    "{}",
                    (loose, false),
                    depth,
                    n,
                    "`find` runs a program named by a file it finds",
                );
                i = end + 1;
            }
            "-delete" => n.runs.push(Run {
                argv: vec!["rm".into()],
                wild: vec![false],
                open: true,
            }),
            _ => {}
        }
    }
}
