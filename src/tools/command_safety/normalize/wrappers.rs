//! The wrappers' own syntax, for [`super::normalize()`]: where the wrapped command starts after
//! their options (`env`, `sudo`/`doas`, `xargs`, `timeout` …), the script of a shell's `-c`,
//! and the commands `find` runs.

use super::{Normalized, Run, is_assignment, line, simple};

/// The words after a wrapper's options (`--` ends them); `valued` are the options that take
/// the next word as their value (also as `--name=value` or `-xVALUE`).
pub(super) fn skip_flags<'a>(args: &'a [String], valued: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            return &args[i + 1..];
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        let takes_value = valued.contains(&a.as_str());
        i += if takes_value { 2 } else { 1 };
    }
    args.get(i..).unwrap_or_default()
}

/// The script of a `-c SCRIPT` (`-c` alone or ending a cluster such as `-ec`, `-lc`).
pub(super) fn dash_c(args: &[String]) -> Option<&str> {
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
        if cluster.ends_with('o') || cluster.ends_with('O') {
            i += 1;
        }
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
        let (name, value) = match a.split_once('=') {
            Some((k, v)) if a.starts_with("--") => (k, Some(v)),
            _ => (a.as_str(), None),
        };
        match name {
            "--" => {
                i += 1;
                break;
            }
            "-S" | "--split-string" => {
                let (split, next) = match value {
                    Some(v) => (v.to_owned(), i + 1),
                    None => (args.get(i + 1).cloned().unwrap_or_default(), i + 2),
                };
                let mut words = shell_words::split(&split).unwrap_or_else(|_| {
                    n.hide("`env -S` splits a string that sayso cannot read");
                    Vec::new()
                });
                words.extend(args.get(next..).unwrap_or_default().iter().cloned());
                return env(&words, loose, open, depth, n);
            }
            "-u" | "-C" | "-P" if value.is_none() => i += 2,
            _ if a.starts_with("-S") && a.len() > 2 => {
                let mut words = vec!["-S".to_owned(), a[2..].to_owned()];
                words.extend(args[i + 1..].iter().cloned());
                return env(&words, loose, open, depth, n);
            }
            _ if a.starts_with('-') && a != "-" => i += 1,
            _ if is_assignment(a) => i += 1,
            _ => break,
        }
    }
    simple(args.get(i..).unwrap_or_default(), loose, open, depth, n);
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
        "-u",
        "-g",
        "-C",
        "-D",
        "-h",
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
        if a == "-s" || a == "-i" || a == "--shell" || a == "--login" {
            shell_form = true;
        }
        if a == "-e" || a == "--edit" {
            return n.hide(format!("`{program} -e` edits files as another user"));
        }
        i += if valued.contains(&a.as_str()) { 2 } else { 1 };
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
        "--eof",
        "--replace",
        "--max-lines",
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
        let name = a.split_once('=').map_or(a.as_str(), |(k, _)| k);
        if name == "-I" {
            replace = args.get(i + 1).cloned();
        } else if let Some(r) = a.strip_prefix("-I") {
            replace = Some(r.to_owned());
        } else if name == "--replace" || a.starts_with("-i") {
            replace = Some(
                a.split_once('=')
                    .map(|(_, v)| v.to_owned())
                    .or_else(|| {
                        a.strip_prefix("-i")
                            .filter(|v| !v.is_empty())
                            .map(Into::into)
                    })
                    .unwrap_or_else(|| "{}".into()),
            );
        }
        i += if valued.contains(&a.as_str()) { 2 } else { 1 };
    }
    let cmd = args.get(i..).unwrap_or_default();
    match cmd.first() {
        None => n.hide("`xargs` without a command runs what its input says"),
        Some(c) if replace.as_ref().is_some_and(|r| c.contains(r.as_str())) => {
            n.hide("`xargs` takes the command itself from its input")
        }
        Some(_) => simple(cmd, loose, true, depth, n),
    }
}

pub(super) fn find(args: &[String], loose: bool, depth: usize, n: &mut Normalized) {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        match a.as_str() {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = args[i..]
                    .iter()
                    .position(|w| w == ";" || w == "+")
                    .map_or(args.len(), |p| i + p);
                simple(&args[i..end], loose, false, depth, n);
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
