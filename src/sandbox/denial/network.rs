//! A denied connection, told from an output line, in a run without the network: sayso knows
//! nothing is reachable from inside (bubblewrap's network namespace is empty; under both
//! backends the seccomp filter refuses every socket but `AF_UNIX` with `EPERM`, and Landlock
//! refuses TCP connect with `EACCES`), so a failed connection or name lookup the output shows
//! is the sandbox's doing — whatever the address, this machine's loopback included. The
//! address is read from the line (curl, wget, Node, ssh, git, Python and pip's wording), else
//! from a URL in the output, else from one in the command.

use std::net::IpAddr;

use super::{Denial, DenialKind};

/// Phrases of a failed connection or name lookup.
const PHRASES: [&str; 18] = [
    "Could not resolve host",
    "Couldn't resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "No address associated with hostname",
    "getaddrinfo",
    "EAI_AGAIN",
    "ENOTFOUND",
    "unable to resolve host address",
    "Network is unreachable",
    "ENETUNREACH",
    "Couldn't connect to server",
    "Failed to connect to",
    "Connection refused",
    "ECONNREFUSED",
    "Failed to establish a new connection",
    "connect EPERM",
    "connect EACCES",
];

/// Phrases of a refused system call (lowercase).
const REFUSED: [&str; 6] = [
    "operation not permitted",
    "permission denied",
    "eperm",
    "eacces",
    "[errno 1]",
    "[errno 13]",
];

/// Phrases of a name lookup (the rest are connections).
const LOOKUP: [&str; 8] = [
    "resolve host",
    "name resolution",
    "Name or service not known",
    "No address associated",
    "getaddrinfo",
    "EAI_AGAIN",
    "ENOTFOUND",
    "unable to resolve",
];

/// The output mentions sockets or connections (a traceback's frames), so a bare `EPERM` in it
/// may be a refused socket.
pub fn sockets_named(output: &str) -> bool {
    let lower = output.to_lowercase();
    lower.contains("socket") || lower.contains("connect")
}

/// `line` is a refused system call (`EPERM`, `EACCES`) that is about a socket: it says so
/// itself (`nc: socket: Operation not permitted`), or the output does (`sockets_named`).
pub fn socket_refusal(line: &str, sockets_named: bool) -> bool {
    let lower = line.to_lowercase();
    REFUSED.iter().any(|r| lower.contains(r)) && (socket_word(line) || sockets_named)
}

/// The line has `socket` or `connect` as a word of its own (not `/tmp/connect.log`).
fn socket_word(line: &str) -> bool {
    line.split_whitespace().any(|w| {
        let w = w.trim_end_matches([':', ',']).trim_end_matches("()");
        w.eq_ignore_ascii_case("socket") || w.eq_ignore_ascii_case("connect")
    })
}

/// The denial `line` shows, if it is a failed connection or lookup (a UNIX socket's is not).
pub fn denial(line: &str, sockets_named: bool, output: &str, command: &str) -> Option<Denial> {
    let lower = line.to_lowercase();
    if lower.contains("unix") || lower.contains(".sock") {
        return None;
    }
    let wget = line.contains("Connecting to") && line.contains("failed");
    let phrase = PHRASES.iter().any(|p| line.contains(p));
    let refused = socket_word(line) && socket_refusal(line, sockets_named);
    if !(phrase || wget || refused) {
        return None;
    }
    let lookup = LOOKUP.iter().any(|p| line.contains(p));
    let address = address_in_line(line).or_else(|| address_elsewhere(output, command));
    Some(made(address, lookup))
}

/// The denial of a refused socket whose line names nothing: the address from another line of
/// the output, or the command's URL.
pub fn denial_without_phrase(output: &str, command: &str) -> Option<Denial> {
    Some(made(address_elsewhere(output, command), false))
}

/// The first address another line of the output names, else a URL in the command.
fn address_elsewhere(output: &str, command: &str) -> Option<String> {
    output
        .lines()
        .find_map(address_in_line)
        .or_else(|| url_in(command))
}

fn made(address: Option<String>, lookup: bool) -> Denial {
    // Shown in the modal and sent to programs: nothing a terminal would act on, nothing long.
    let address = address.filter(|a| {
        !a.is_empty() && a.len() <= 260 && !a.chars().any(|c| c.is_control() || c.is_whitespace())
    });
    let what = match &address {
        Some(a) if lookup && !loopback(a) => {
            format!("a name lookup of {a} (the sandbox has no network)")
        }
        Some(a) if loopback(a) => format!(
            "a connection to {a} (the sandbox has no network, not even this machine's loopback)"
        ),
        Some(a) => format!("a connection to {a} (the sandbox has no network)"),
        None => "a network connection (the sandbox has no network)".to_owned(),
    };
    Denial {
        what,
        kind: DenialKind::Network,
        path: None,
        address,
    }
}

/// The address is this machine's loopback: `localhost` (and `*.localhost`), `127.0.0.0/8`,
/// `::1`, or the unspecified address (which connects to the machine itself). A bare IPv6
/// address may carry a port after it, as Node prints them (`::1:3000`).
pub fn loopback(address: &str) -> bool {
    let bracketed = address
        .strip_prefix('[')
        .map(|rest| rest.split(']').next().unwrap_or(rest));
    let without_port = match address.rsplit_once(':') {
        Some((host, port)) if !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) => {
            Some(host)
        }
        _ => None,
    };
    [bracketed, Some(address), without_port]
        .into_iter()
        .flatten()
        .any(loopback_host)
}

fn loopback_host(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if host == "localhost" || host.ends_with(".localhost") {
        return true;
    }
    host.parse::<IpAddr>()
        .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified())
}

/// The address a failure line names.
fn address_in_line(line: &str) -> Option<String> {
    // curl: "Failed to connect to HOST port N after …"
    if let Some(rest) = after(line, "Failed to connect to ") {
        let mut words = rest.split_whitespace();
        let host = words.next()?;
        return Some(match (words.next(), words.next()) {
            (Some("port"), Some(port)) => join(host, digits(port)),
            _ => clean(host).to_owned(),
        });
    }
    // wget: "Connecting to NAME (NAME)|IP|:PORT... failed" or "Connecting to IP:PORT... failed"
    if let Some(rest) = after(line, "Connecting to ") {
        if let Some((_, tail)) = rest.split_once('|')
            && let Some((ip, port)) = tail.split_once("|:")
        {
            return Some(join(ip, digits(port)));
        }
        let host = rest.split("...").next().unwrap_or(rest);
        return Some(clean(host).to_owned());
    }
    // Node: "connect EPERM 127.0.0.1:3000", "getaddrinfo ENOTFOUND host"
    for key in ["connect E", "getaddrinfo E"] {
        if let Some(rest) = after(line, key) {
            let mut words = rest.split_whitespace();
            words.next();
            if let Some(a) = words.next() {
                return Some(clean(a).to_owned());
            }
        }
    }
    // bash: "/dev/tcp/HOST/PORT: Operation not permitted"
    for key in ["/dev/tcp/", "/dev/udp/"] {
        if let Some(rest) = after(line, key)
            && let Some((host, port)) = rest.split_once('/')
        {
            return Some(join(host, digits(port)));
        }
    }
    // curl, git: "Could not resolve host: HOST"; ssh: "Could not resolve hostname HOST: …"
    for key in ["resolve host: ", "resolve hostname "] {
        if let Some(rest) = after(line, key)
            && let Some(host) = rest.split_whitespace().next()
        {
            return Some(clean(host).to_owned());
        }
    }
    // wget: "unable to resolve host address ‘HOST’"
    if let Some(rest) = after(line, "unable to resolve host address ") {
        return Some(clean(rest.split_whitespace().next().unwrap_or(rest)).to_owned());
    }
    url_in(line)
}

/// The authority (`host[:port]`) of the first URL in `text`.
fn url_in(text: &str) -> Option<String> {
    let at = text.find("://")?;
    let scheme = &text[..at];
    let scheme_ok = scheme
        .chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphabetic());
    let rest = &text[at + 3..];
    // A bracketed IPv6 host keeps its brackets (and the port after them).
    let stops = if rest.starts_with('[') {
        "/?#'\"` \t\n,"
    } else {
        "/?#'\"`<>)]} \t\n,"
    };
    let end = rest.find(|c: char| stops.contains(c)).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit('@').next().unwrap_or(authority);
    (scheme_ok && !host.is_empty()).then(|| host.to_owned())
}

fn after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    line.find(key).map(|i| &line[i + key.len()..])
}

fn digits(word: &str) -> &str {
    let end = word
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(word.len());
    &word[..end]
}

/// `host:port`, with brackets around an IPv6 host.
fn join(host: &str, port: &str) -> String {
    let host = clean(host);
    if port.is_empty() {
        host.to_owned()
    } else if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A word without the quotes and punctuation around it.
fn clean(word: &str) -> &str {
    word.trim_matches(['\'', '"', '‘', '’', '`', '(', ')', ',', ';', '.', '…'])
        .trim_end_matches(':')
}
