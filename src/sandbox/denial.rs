//! Recognising the sandbox's part in a confined command's failure from its output: a pure
//! table of phrases, so the engine can offer a rerun outside the sandbox.
//!
//! Only a failed command (exit ≠ 0, or killed) is looked at, and only these phrases: the
//! helper's own `sayso sandbox:` line and bubblewrap's `bwrap:` line (the sandbox could not
//! be set up); network errors ("Network is unreachable", name
//! resolution failures, "Operation not permitted" on a socket or connect); "Read-only file
//! system"; "Permission denied" / "Operation not permitted" on a write or an open of a path.
//! It does not decide that the sandbox was the cause beyond that: a command denied the same
//! way outside the sandbox is recognised too, and the offer to rerun it is harmless.

use super::Denial;
use super::exec::FAILURE_PREFIX;

/// How long the quoted line may be, in characters.
const QUOTE_MAX: usize = 160;

/// The phrases of each kind of denial, strongest first.
const NETWORK: [&str; 6] = [
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Could not resolve hostname",
    "getaddrinfo",
    "Name or service not known",
];
const PERMISSION: [&str; 2] = ["Permission denied", "Operation not permitted"];
const SOCKET_WORDS: [&str; 3] = ["socket", "connect", "network"];
const FILE_WORDS: [&str; 14] = [
    "create", "open", "write", "touch", "remove", "mkdir", "rename", "move", "unlink", "delete",
    "save", "read", "copy", "/",
];

/// The sandbox's part in a confined command's failure (`exit` `None`: killed by a signal),
/// if its output shows one.
pub fn denial(stdout: &str, stderr: &str, exit: Option<i32>) -> Option<Denial> {
    if exit == Some(0) {
        return None;
    }
    let lines = || stderr.lines().chain(stdout.lines()).map(str::trim);
    let found = |kind: &str, line: &str| {
        let kept = crate::text_cut::head_chars(line, QUOTE_MAX);
        Some(Denial {
            what: format!("{kind}: {}", crate::text_cut::ellipsized(line, kept)),
        })
    };
    let setup = |l: &str| l.starts_with(FAILURE_PREFIX.trim_end()) || l.starts_with("bwrap: ");
    if let Some(line) = lines().find(|l| setup(l)) {
        return found("the sandbox could not be set up", line);
    }
    let about_sockets = |text: &str| {
        let text = text.to_lowercase();
        SOCKET_WORDS.iter().any(|w| text.contains(w))
    };
    // A socket refused (seccomp's EPERM) shows as "Operation not permitted", with the socket
    // named on that line or elsewhere in the output (a traceback's frames).
    let sockets_named = about_sockets(stderr) || about_sockets(stdout);
    let network = |l: &str| {
        NETWORK.iter().any(|p| l.contains(p))
            || (l.contains(PERMISSION[1]) && (about_sockets(l) || sockets_named))
    };
    if let Some(line) = lines().find(|l| network(l)) {
        return found("a network connection", line);
    }
    if let Some(line) = lines().find(|l| l.contains("Read-only file system")) {
        return found("a write outside what the sandbox allows", line);
    }
    let file = |l: &str| {
        PERMISSION.iter().any(|p| l.contains(p))
            && FILE_WORDS.iter().any(|w| l.to_lowercase().contains(w))
    };
    if let Some(line) = lines().find(|l| file(l)) {
        return found("an access the sandbox denied", line);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table() {
        // (stdout, stderr, exit, the start of `what`, or None)
        let rows: &[(&str, &str, Option<i32>, Option<&str>)] = &[
            (
                "",
                "sh: 1: cannot create /etc/x: Read-only file system",
                Some(2),
                Some("a write outside what the sandbox allows: sh: 1: cannot create /etc/x"),
            ),
            (
                "",
                "touch: cannot touch '/home/u/f': Permission denied",
                Some(1),
                Some("an access the sandbox denied: touch: cannot touch"),
            ),
            (
                "",
                "cat: /home/u/.config/sayso/config.toml: Permission denied",
                Some(1),
                Some("an access the sandbox denied: cat: /home"),
            ),
            (
                "",
                "curl: (6) Could not resolve host: example.com",
                Some(6),
                Some("a network connection: curl: (6)"),
            ),
            (
                "",
                "ping: connect: Network is unreachable",
                Some(2),
                Some("a network connection"),
            ),
            (
                "",
                "  File \"/usr/lib/python3/socket.py\", line 232, in __init__\n\
                 PermissionError: [Errno 1] Operation not permitted",
                Some(1),
                Some("a network connection: PermissionError"),
            ),
            (
                "",
                "PermissionError: [Errno 1] Operation not permitted: '/etc/x'",
                Some(1),
                Some("an access the sandbox denied: PermissionError"),
            ),
            (
                "",
                "nc: socket: Operation not permitted",
                Some(1),
                Some("a network connection"),
            ),
            (
                "",
                "sayso sandbox: Landlock: bad",
                Some(125),
                Some("the sandbox could not be set up: sayso sandbox: Landlock"),
            ),
            (
                "",
                "fatal: could not open '.git/config': Read-only file system",
                None,
                Some("a write outside"),
            ),
            // A success is never a denial, whatever it printed.
            (
                "",
                "sh: cannot create /x: Read-only file system",
                Some(0),
                None,
            ),
            // Ordinary failures are not denials.
            (
                "",
                "error[E0425]: cannot find value `x` in this scope",
                Some(101),
                None,
            ),
            (
                "",
                "ls: cannot access 'nope': No such file or directory",
                Some(2),
                None,
            ),
            ("3 passed; 1 failed", "", Some(1), None),
            ("", "Permission denied", Some(1), None),
        ];
        for (out, err, exit, want) in rows {
            let got = denial(out, err, *exit).map(|d| d.what);
            match (want, &got) {
                (None, None) => {}
                (Some(w), Some(g)) if g.starts_with(w) => {}
                _ => panic!("{out:?} {err:?} {exit:?}: want {want:?}, got {got:?}"),
            }
        }
    }

    #[test]
    fn the_quoted_line_is_cut() {
        let long = format!(
            "sh: cannot create /{}: Read-only file system",
            "a".repeat(400)
        );
        let what = denial("", &long, Some(1)).unwrap().what;
        assert!(what.chars().count() < 220 && what.ends_with('…'), "{what}");
    }
}
