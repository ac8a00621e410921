//! The attribution as a table: an output, the run it came from, and what sayso makes of it.

use std::path::{Path, PathBuf};

use super::*;

/// A machine where `/home/u`, `/tmp` and `/p` are the user's to write, `/p/link` is a symlink
/// to `/home/u`, and the rest (`/etc`, `/var`, `/usr`) is not writable.
struct Fake;

impl Host for Fake {
    fn resolve(&self, path: &Path) -> PathBuf {
        let lexical = host::normalized(path);
        match lexical.strip_prefix("/p/link") {
            Ok(rest) => Path::new("/home/u").join(rest),
            Err(_) => lexical,
        }
    }

    fn writable(&self, path: &Path) -> bool {
        ["/home/u", "/tmp", "/p"]
            .iter()
            .any(|w| path.starts_with(w))
    }
}

fn policy(writes: bool, network: bool) -> RunPolicy {
    RunPolicy {
        writable: if writes {
            vec!["/p".into(), "/tmp".into()]
        } else {
            vec![]
        },
        protected: vec!["/p/.git".into()],
        protected_dirs: vec!["/p".into()],
        hidden: vec!["/home/u/.config/sayso".into(), "/p/.sayso/own".into()],
        network,
        own_pid: 1,
        ..RunPolicy::default()
    }
}

/// What a row expects.
#[derive(Debug)]
enum Want {
    /// A write denial whose `what` starts with this.
    Write(&'static str),
    /// A network denial: the address, and the start of `what`.
    Net(Option<&'static str>, &'static str),
    Own,
    Unsure,
    Nothing,
}

/// How the run went: (writes, network, bubblewrap — else Landlock).
type How = (bool, bool, bool);
const WORKSPACE: How = (true, false, true);
const LANDLOCK: How = (true, false, false);
const READ_ONLY: How = (false, false, true);
const NETWORK: How = (true, true, true);

#[test]
fn the_table() {
    use Want::*;
    let py_socket = "Traceback (most recent call last):\n  File \"/usr/lib/python3.11/socket.py\", line 232, in __init__\n    _socket.socket.__init__(self, family, type, proto, fileno)\nPermissionError: [Errno 1] Operation not permitted";
    // (output, how, command, want)
    let rows: &[(&str, How, &str, Want)] = &[
        // Writes: the path is named, the policy does not let the run write it, and the user
        // could write it outside.
        (
            "sh: 1: cannot create /home/u/x: Read-only file system",
            WORKSPACE,
            "",
            Write("a write to /home/u/x (outside the places this command may write)"),
        ),
        (
            "touch: cannot touch '/home/u/f': Permission denied",
            LANDLOCK,
            "",
            Write("a write to /home/u/f (outside"),
        ),
        (
            "mkdir: cannot create directory ‘/home/u/new dir’: Read-only file system",
            WORKSPACE,
            "",
            Write("a write to /home/u/new dir ("),
        ),
        (
            "PermissionError: [Errno 13] Permission denied: '/home/u/x'",
            LANDLOCK,
            "",
            Write("a write to /home/u/x"),
        ),
        (
            "Error: EROFS: read-only file system, open '/home/u/x.json'",
            WORKSPACE,
            "",
            Write("a write to /home/u/x.json"),
        ),
        (
            "error: could not lock config file .git/config: Read-only file system",
            WORKSPACE,
            "",
            Write("a write to /p/.git/config (a protected path"),
        ),
        (
            "fatal: Unable to create '/p/sub/.gitmodules': Read-only file system",
            WORKSPACE,
            "",
            Nothing,
        ),
        (
            "sh: 1: cannot create .gitattributes: Read-only file system",
            WORKSPACE,
            "",
            Write("a write to /p/.gitattributes (a protected path"),
        ),
        (
            "touch: cannot touch 'marker': Read-only file system",
            READ_ONLY,
            "",
            Write("a write to /p/marker (this command runs read-only)"),
        ),
        (
            "bash: line 1: /p/link/out.txt: Read-only file system",
            WORKSPACE,
            "",
            Write("a write to /home/u/out.txt"),
        ),
        (
            "cp: cannot create regular file '/p/../home/u/a': Permission denied",
            LANDLOCK,
            "",
            Write("a write to /home/u/a"),
        ),
        // Landlock cannot keep `.git` read-only inside the project: a refusal there is not its.
        (
            "error: could not lock config file .git/config: Permission denied",
            LANDLOCK,
            "",
            Nothing,
        ),
        // Paths the run could write, or the user could not write outside either.
        (
            "touch: cannot touch '/p/src/x': Permission denied",
            WORKSPACE,
            "",
            Nothing,
        ),
        (
            "touch: cannot touch '/etc/shadow': Permission denied",
            WORKSPACE,
            "",
            Nothing,
        ),
        (
            "sh: 1: cannot create /dev/x: Read-only file system",
            WORKSPACE,
            "",
            Nothing,
        ),
        (
            "touch: cannot touch '/tmp/x': Permission denied",
            WORKSPACE,
            "",
            Nothing,
        ),
        // sayso's own files: said, never offered.
        (
            "cat: /home/u/.config/sayso/config.toml: Permission denied",
            WORKSPACE,
            "",
            Own,
        ),
        (
            "sh: 1: cannot create /home/u/.config/sayso/config.toml: Read-only file system",
            LANDLOCK,
            "",
            Own,
        ),
        // Landlock cannot hide a sayso path inside the project: not its doing there.
        (
            "touch: cannot touch '/p/.sayso/own/x': Permission denied",
            LANDLOCK,
            "",
            Nothing,
        ),
        (
            "touch: cannot touch '/p/.sayso/own/x': Read-only file system",
            WORKSPACE,
            "",
            Own,
        ),
        // The phrase alone: sayso cannot tell.
        ("Read-only file system", WORKSPACE, "", Unsure),
        ("Permission denied", WORKSPACE, "", Unsure),
        ("write error: Read-only file system", READ_ONLY, "", Unsure),
        ("Error: EPERM", READ_ONLY, "", Unsure),
        (
            "all good, but I say: Read-only file system",
            WORKSPACE,
            "echo",
            Unsure,
        ),
        // The network, in a run without it: any address, loopback included.
        (
            "curl: (7) Failed to connect to 127.0.0.1 port 18777 after 0 ms: Couldn't connect to server",
            WORKSPACE,
            "curl http://127.0.0.1:18777/",
            Net(
                Some("127.0.0.1:18777"),
                "a connection to 127.0.0.1:18777 (the sandbox has no network, not even",
            ),
        ),
        (
            "curl: (7) Failed to connect to ::1 port 8080 after 0 ms: Couldn't connect to server",
            LANDLOCK,
            "",
            Net(Some("[::1]:8080"), "a connection to [::1]:8080"),
        ),
        (
            "curl: (6) Could not resolve host: example.com",
            WORKSPACE,
            "",
            Net(Some("example.com"), "a name lookup of example.com"),
        ),
        (
            "ssh: Could not resolve hostname github.com: Temporary failure in name resolution",
            LANDLOCK,
            "",
            Net(Some("github.com"), "a name lookup of github.com"),
        ),
        (
            "fatal: unable to access 'https://github.com/x/y/': Could not resolve host: github.com",
            WORKSPACE,
            "",
            Net(Some("github.com"), "a name lookup of github.com"),
        ),
        (
            "Connecting to localhost (localhost)|127.0.0.1|:18777... failed: Operation not permitted.",
            WORKSPACE,
            "",
            Net(Some("127.0.0.1:18777"), "a connection to 127.0.0.1:18777"),
        ),
        (
            "Error: connect EPERM 127.0.0.1:3000 - Local (undefined:undefined)",
            WORKSPACE,
            "",
            Net(Some("127.0.0.1:3000"), "a connection to 127.0.0.1:3000"),
        ),
        (
            "Error: connect EACCES ::1:3000",
            LANDLOCK,
            "",
            Net(
                Some("::1:3000"),
                "a connection to ::1:3000 (the sandbox has no network, not even",
            ),
        ),
        (
            py_socket,
            WORKSPACE,
            "python3 -c \"import urllib.request as u; u.urlopen('http://localhost:8000/x')\"",
            Net(Some("localhost:8000"), "a connection to localhost:8000"),
        ),
        (
            "bash: connect: Operation not permitted\nbash: line 1: /dev/tcp/127.0.0.1/9/: Operation not permitted",
            LANDLOCK,
            "bash -c 'exec 3<>/dev/tcp/127.0.0.1/9'",
            Net(
                Some("127.0.0.1:9"),
                "a connection to 127.0.0.1:9 (the sandbox has no network, not even",
            ),
        ),
        // Landlock's TCP rule refuses connect with EACCES; an empty namespace refuses it.
        (
            "  File \"/usr/lib/python3.11/socket.py\", line 850, in create_connection\n    sock.connect(sa)\nPermissionError: [Errno 13] Permission denied",
            LANDLOCK,
            "python3 -c \"import urllib.request as u; u.urlopen('http://127.0.0.1:5000/')\"",
            Net(Some("127.0.0.1:5000"), "a connection to 127.0.0.1:5000"),
        ),
        (
            "ConnectionRefusedError: [Errno 111] Connection refused",
            WORKSPACE,
            "python3 manage.py check --url http://localhost:8000",
            Net(Some("localhost:8000"), "a connection to localhost:8000"),
        ),
        (
            "nc: socket: Operation not permitted",
            WORKSPACE,
            "nc -z 10.0.0.1 80",
            Net(None, "a network connection (the sandbox has no network)"),
        ),
        (
            "WARNING: Retrying … NewConnectionError('<HTTPSConnection object>: Failed to establish a new connection: [Errno 1] Operation not permitted')': /simple/requests/",
            WORKSPACE,
            "pip install requests",
            Net(None, "a network connection"),
        ),
        // An address with a control character is not repeated.
        (
            "curl: (6) Could not resolve host: evil\u{7}\u{9b}31m.example",
            WORKSPACE,
            "",
            Net(None, "a network connection (the sandbox has no network)"),
        ),
        // With the network, a failed connection is not the sandbox's.
        (
            "curl: (7) Failed to connect to 127.0.0.1 port 18777 after 0 ms: Couldn't connect to server",
            NETWORK,
            "",
            Nothing,
        ),
        (
            "curl: (6) Could not resolve host: example.com",
            NETWORK,
            "",
            Nothing,
        ),
        // A UNIX socket is not the network.
        (
            "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
            WORKSPACE,
            "",
            Nothing,
        ),
        (
            "dial unix /var/run/docker.sock: connect: permission denied",
            WORKSPACE,
            "",
            Nothing,
        ),
        // A path on an EPERM line is a file, not a socket, even in a traceback about sockets.
        (
            "socket.py\nPermissionError: [Errno 1] Operation not permitted: '/home/u/x'",
            WORKSPACE,
            "",
            Write("a write to /home/u/x"),
        ),
        // A write and the network both denied: the write (a rerun outside covers both).
        (
            "curl: (6) Could not resolve host: x.org\nsh: 1: cannot create /home/u/out: Read-only file system",
            WORKSPACE,
            "",
            Write("a write to /home/u/out"),
        ),
        // Ordinary failures.
        (
            "error[E0425]: cannot find value `x` in this scope",
            WORKSPACE,
            "",
            Nothing,
        ),
        (
            "ls: cannot access 'nope': No such file or directory",
            WORKSPACE,
            "",
            Nothing,
        ),
        ("3 passed; 1 failed", WORKSPACE, "", Nothing),
        (
            "git@github.com: Permission denied (publickey).\nfatal: Could not read from remote repository.",
            NETWORK,
            "git push",
            Nothing,
        ),
        ("", WORKSPACE, "", Nothing),
        // The sandbox's own setup line is the runner's to confirm, not a denial here.
        ("sayso sandbox: Landlock: bad", WORKSPACE, "", Nothing),
    ];
    for (output, (writes, network, bwrap), command, want) in rows {
        let policy = policy(*writes, *network);
        let run = Run {
            policy: &policy,
            inner_paths: *bwrap,
            cwd: Path::new("/p"),
            command,
        };
        let got = attribute(output, &run, &Fake);
        let ok = match (want, &got) {
            (Write(w), Some(Attribution::Denied(d))) => {
                d.kind == DenialKind::Write && d.what.starts_with(w) && d.address.is_none()
            }
            (Net(a, w), Some(Attribution::Denied(d))) => {
                d.kind == DenialKind::Network
                    && d.address.as_deref() == *a
                    && d.what.starts_with(w)
                    && d.path.is_none()
            }
            (Own, Some(Attribution::OwnFiles(line))) => line.contains("sayso's own files"),
            (Unsure, Some(Attribution::Unsure(line))) => line.contains("may have caused"),
            (Nothing, None) => true,
            _ => false,
        };
        assert!(
            ok,
            "{output:?} ({writes}, {network}, {bwrap}): want {want:?}, got {got:?}"
        );
    }
}

#[test]
fn a_loopback_address_is_explained_with_the_setting_that_keeps_it_reachable() {
    let policy = policy(true, false);
    let run = Run {
        policy: &policy,
        inner_paths: true,
        cwd: Path::new("/p"),
        command: "curl http://localhost:5173/",
    };
    let out =
        "curl: (7) Failed to connect to localhost port 5173 after 0 ms: Couldn't connect to server";
    let Some(Attribution::Denied(d)) = attribute(out, &run, &Fake) else {
        panic!("not attributed")
    };
    assert!(d.loopback());
    let text = d.explanation().unwrap_or_default();
    assert!(
        text.contains("the sandbox has no network: localhost:5173 is not reachable from inside")
            || text.contains(
                "The sandbox has no network: localhost:5173 is not reachable from inside"
            ),
        "{text}"
    );
    assert!(text.contains("`[sandbox] allow_loopback = true`"), "{text}");
    let remote = attribute("curl: (6) Could not resolve host: example.com", &run, &Fake);
    let Some(Attribution::Denied(d)) = remote else {
        panic!("not attributed")
    };
    assert!(!d.loopback() && d.explanation().is_none());
}

#[test]
fn loopback_addresses() {
    for a in [
        "127.0.0.1",
        "127.0.0.1:8000",
        "127.1.2.3:80",
        "localhost",
        "localhost:3000",
        "app.localhost:80",
        "[::1]:8080",
        "::1",
        "::1:3000",
        "0.0.0.0:8000",
    ] {
        assert!(network::loopback(a), "{a}");
    }
    for a in [
        "example.com",
        "10.0.0.1:80",
        "[2001:db8::1]:443",
        "localhost.example.com",
    ] {
        assert!(!network::loopback(a), "{a}");
    }
}

#[test]
fn a_setup_claim_is_only_a_claim() {
    assert_eq!(
        setup_claimed("sayso sandbox: Landlock: bad\n").as_deref(),
        Some("sayso sandbox: Landlock: bad")
    );
    assert!(setup_claimed("bwrap: Can't mount proc on /newroot/proc").is_some());
    assert!(setup_claimed("the sayso sandbox: is fine").is_none());
    let d = setup_denial(&format!("bwrap: {}", "x".repeat(400)));
    assert_eq!(d.kind, DenialKind::Setup);
    assert!(
        d.what.chars().count() < 260 && d.what.contains('…'),
        "{}",
        d.what
    );
}

#[test]
fn the_denial_serialises_what_a_program_keys_on() {
    let d = Denial {
        what: "a connection to 127.0.0.1:1 (the sandbox has no network)".into(),
        kind: DenialKind::Network,
        path: None,
        address: Some("127.0.0.1:1".into()),
    };
    let v = serde_json::to_value(&d).unwrap();
    assert_eq!(v["kind"], "network");
    assert_eq!(v["address"], "127.0.0.1:1");
    assert!(v.get("path").is_none());
    // An older record without `kind` still reads.
    let old: Denial = serde_json::from_str(r#"{"what":"a write"}"#).unwrap();
    assert_eq!(old.kind, DenialKind::Write);
}

#[test]
fn with_allow_loopback_a_failed_loopback_connection_is_the_servers() {
    let run_policy = RunPolicy {
        loopback: true,
        ..policy(true, false)
    };
    let run = Run {
        policy: &run_policy,
        inner_paths: true,
        cwd: Path::new("/p"),
        command: "curl http://127.0.0.1:8000/",
    };
    let refused =
        "curl: (7) Failed to connect to 127.0.0.1 port 8000 after 0 ms: Couldn't connect to server";
    assert_eq!(attribute(refused, &run, &Fake), None);
    // Anything else is still outside the sandbox's reach.
    let remote =
        "curl: (7) Failed to connect to 192.0.2.7 port 80 after 0 ms: Couldn't connect to server";
    let Some(Attribution::Denied(d)) = attribute(remote, &run, &Fake) else {
        panic!("a remote address stays the sandbox's doing");
    };
    assert_eq!(d.address.as_deref(), Some("192.0.2.7:80"));
    // Without the setting, loopback is the sandbox's doing too.
    let closed = policy(true, false);
    let run = Run {
        policy: &closed,
        ..run
    };
    assert!(matches!(
        attribute(refused, &run, &Fake),
        Some(Attribution::Denied(_))
    ));
}
