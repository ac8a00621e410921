//! Issue 37, item 4 (the mechanism): `[sandbox] allow_loopback = true` keeps this machine's
//! loopback reachable from sandboxed commands while the rest of the network stays off — through
//! the real binary, with each Linux backend forced, against real servers the test starts: one
//! on 127.0.0.1 (the user's dev server), one on this machine's own non-loopback address (the
//! address a command might try instead; traffic to it never leaves the machine).
//!
//! The command is plain bash (`/dev/tcp`), so nothing but bash is needed; it prints what the
//! server answered, or `no-connection`.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, result_of, run, sayso};

/// A server that answers every connection with `word` and closes; stopped on drop.
struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Server {
    fn start(ip: IpAddr, word: &'static str) -> Self {
        let listener = TcpListener::bind(SocketAddr::new(ip, 0)).unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(mut c) = conn {
                    let mut buf = [0u8; 256];
                    let _ = c.set_read_timeout(Some(std::time::Duration::from_secs(2)));
                    let _ = c.read(&mut buf);
                    let _ = c.write_all(word.as_bytes());
                }
            }
        });
        Self { addr, stop }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

/// This machine's own address on the interface its default route uses (found without sending
/// anything: a UDP socket's `connect` only picks the route).
fn own_address() -> IpAddr {
    let probe = std::net::UdpSocket::bind("0.0.0.0:0").unwrap();
    probe
        .connect("10.254.254.254:9")
        .expect("a route off loopback: these tests need a non-loopback interface");
    let ip = probe.local_addr().unwrap().ip();
    assert!(!ip.is_loopback(), "{ip}");
    ip
}

/// A bash line that sends a line to `addr` and prints the answer, or `no-connection`.
fn dial(addr: SocketAddr) -> String {
    format!(
        "bash -c 'exec 3<>/dev/tcp/{}/{} && echo hi >&3 && cat <&3' 2>/dev/null || echo no-connection",
        addr.ip(),
        addr.port()
    )
}

/// How many dials printed `no-connection` (on a line of its own: the result may quote the
/// command, which holds the word too).
fn refused(result: &str) -> usize {
    result
        .lines()
        .filter(|l| l.trim_start_matches("hello-from-the-dev-server").trim() == "no-connection")
        .count()
}

/// The model's one call runs `cmd`, headless in trust mode, with `sandbox` as the user's
/// `[sandbox]` table (in `workspace-write` unless it says a mode); the call's result.
async fn headless(sandbox: &str, cmd: &str) -> String {
    let fx = Fixture::start().await;
    fx.push(calls(&[("c1", "run_command", json!({ "cmd": cmd }))]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let mode = if sandbox.contains("mode =") {
        ""
    } else {
        "mode = \"workspace-write\"\n"
    };
    let home = home_with(
        &fx.base_url(),
        &format!("[judge]\nenabled = false\n[sandbox]\n{mode}{sandbox}"),
    );
    let mut c = sayso(home.path());
    c.args(["--approval-mode", "trust", "-p", "go"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    result_of(&fx, "c1")
}

/// With `allow_loopback = true` under `backend`: the dev server on 127.0.0.1 answers (and
/// through `localhost`), the server on this machine's own LAN address does not; without the
/// setting neither does. Unconfined, both answer (so the failures are the sandbox's).
async fn loopback_is_reachable_only_when_allowed(backend: &str) {
    let dev = Server::start("127.0.0.1".parse().unwrap(), "hello-from-the-dev-server");
    let lan = Server::start(own_address(), "hello-from-the-lan-address");
    let cmd = format!(
        "{}; {}; {}",
        dial(dev.addr),
        dial(SocketAddr::new(
            "127.0.0.1".parse().unwrap(),
            dev.addr.port()
        ))
        .replace("127.0.0.1", "localhost"),
        dial(lan.addr)
    );

    let open = headless(
        &format!("backend = \"{backend}\"\nallow_loopback = true\n"),
        &cmd,
    )
    .await;
    assert_eq!(
        open.matches("hello-from-the-dev-server").count(),
        2,
        "{backend}: the dev server, by address and by name: {open}"
    );
    assert!(
        !open.contains("hello-from-the-lan-address") && refused(&open) == 1,
        "{backend}: a non-loopback address stays unreachable: {open}"
    );

    let closed = headless(&format!("backend = \"{backend}\"\n"), &cmd).await;
    assert!(
        !closed.contains("hello-from") && refused(&closed) == 3,
        "{backend}: without allow_loopback: {closed}"
    );

    let unconfined = headless("mode = \"off\"\n", &cmd).await;
    assert!(
        unconfined.contains("hello-from-the-dev-server")
            && unconfined.contains("hello-from-the-lan-address"),
        "unconfined, both answer: {unconfined}"
    );
}

/// With `allow_loopback = true` under `backend`, a command can still run its own server and
/// talk to it (a test suite's), and no UDP leaves: a datagram to the dev server's port on
/// this machine's own LAN address is not sent.
async fn a_command_runs_its_own_server_and_sends_no_datagram(backend: &str) {
    let lan = own_address();
    let udp = std::net::UdpSocket::bind(SocketAddr::new(lan, 0)).unwrap();
    udp.set_nonblocking(true).unwrap();
    let udp_addr = udp.local_addr().unwrap();
    let script = format!(
        "python3 - <<'EOF'\n\
import socket, threading\n\
srv = socket.socket(); srv.bind(('0.0.0.0', 0)); srv.listen()\n\
port = srv.getsockname()[1]\n\
def answer():\n\
    c, _ = srv.accept(); c.sendall(b'own-server-answered'); c.close()\n\
threading.Thread(target=answer).start()\n\
c = socket.create_connection(('127.0.0.1', port)); print(c.recv(64).decode())\n\
try:\n\
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.sendto(b'leak', ('{ip}', {port}))\n\
    print('datagram-sent')\n\
except OSError as e:\n\
    print('datagram-refused', e.errno)\n\
EOF",
        ip = udp_addr.ip(),
        port = udp_addr.port()
    );
    let said = headless(
        &format!("backend = \"{backend}\"\nallow_loopback = true\n"),
        &script,
    )
    .await;
    assert!(said.contains("own-server-answered"), "{backend}: {said}");
    let mut buf = [0u8; 16];
    assert!(
        udp.recv_from(&mut buf).is_err(),
        "{backend}: a datagram reached the LAN address: {said}"
    );
}

macro_rules! each_backend {
    ($($name:ident),* $(,)?) => {
        mod bubblewrap {
            $(#[tokio::test] async fn $name() { super::$name("bubblewrap").await })*
        }
        mod landlock {
            $(#[tokio::test] async fn $name() { super::$name("landlock").await })*
        }
    };
}

each_backend!(
    loopback_is_reachable_only_when_allowed,
    a_command_runs_its_own_server_and_sends_no_datagram,
);

/// `/sandbox` says what is in force: the loopback reachable and how, or unreachable and the
/// setting that opens it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slash_sandbox_says_whether_the_loopback_is_reachable() {
    use crate::support::tui::Tui;
    for (setting, want) in [
        (
            "allow_loopback = true\n",
            "loopback:         reachable: the TCP ports listening on this machine's loopback",
        ),
        (
            "",
            "loopback:         unreachable too (`[sandbox] allow_loopback = true`",
        ),
    ] {
        let fx = Fixture::start().await;
        let aside = tempfile::tempdir().unwrap();
        let file = aside.path().join("config.toml");
        std::fs::write(
            &file,
            format!(
                "model = \"m\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 0\n[sandbox]\nbackend = \"bubblewrap\"\n{setting}",
                fx.base_url()
            ),
        )
        .unwrap();
        let file = file.display().to_string();
        let tui = Tui::start_unconfigured(&[], &["-c", &file]);
        tui.ready().await;
        tui.send("/sandbox").await;
        let screen = tui.wait_for("hidden (sayso's):").await;
        assert!(screen.contains(want), "{want}\n{screen}");
        tui.keys(&["C-d"]);
        assert_eq!(tui.exit_code().await, 0, "{}", tui.screen());
    }
}

/// `sayso config check` says what is in force: the loopback allowed and how, per backend.
#[tokio::test]
async fn config_check_says_how_the_loopback_is_reached() {
    for (backend, how) in [
        ("bubblewrap", "relayed into its network namespace"),
        ("landlock", "TCP to 127.0.0.0/8 and ::1 only"),
    ] {
        let home = home_with(
            "http://127.0.0.1:9/v1",
            &format!("[sandbox]\nbackend = \"{backend}\"\nallow_loopback = true\n"),
        );
        let mut c = sayso(home.path());
        c.args(["config", "check"]);
        let out = run(c).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
        assert!(
            out.stdout.contains("network denied, loopback allowed"),
            "{backend}: {}",
            out.stdout
        );
        assert!(
            out.stdout.contains("  loopback:   ") && out.stdout.contains(how),
            "{backend}: {}",
            out.stdout
        );
    }
}
