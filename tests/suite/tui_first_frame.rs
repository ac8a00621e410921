//! The first frame does not wait for the terminal: sayso asks whether the terminal has the
//! keyboard enhancement (a query and its answer, a network round trip over SSH) only once its
//! first frame is out, and turns the enhancement on when the answer says so. Driven in a PTY of
//! its own (tmux answers queries itself), with the bytes sayso writes checked in order.

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const BEGIN_SYNC: &[u8] = b"\x1b[?2026h";
const END_SYNC: &[u8] = b"\x1b[?2026l";
/// What crossterm sends to learn the keyboard enhancement flags: the kitty query, then DA1.
const QUERY: &[u8] = b"\x1b[?u\x1b[c";
const PUSH: &[u8] = b"\x1b[>1u";
const POP: &[u8] = b"\x1b[<1u";

/// `sayso --demo` on a 100x30 PTY in a private home; what it writes is collected.
struct Pty {
    child: Child,
    master: std::fs::File,
    out: mpsc::Receiver<Vec<u8>>,
    seen: Vec<u8>,
    _home: tempfile::TempDir,
}

impl Pty {
    fn start() -> Pty {
        let home = tempfile::tempdir().unwrap();
        let (mut m, mut s) = (-1, -1);
        let size = libc::winsize {
            ws_row: 30,
            ws_col: 100,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two fds into the locals; the size is read only.
        let rc = unsafe {
            libc::openpty(
                &mut m,
                &mut s,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both fds were just opened and are owned here alone.
        let (master, slave) = unsafe { (OwnedFd::from_raw_fd(m), OwnedFd::from_raw_fd(s)) };
        let r = home.path();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sayso"));
        cmd.arg("--demo")
            .env_clear()
            .env("HOME", r)
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("TERM", "xterm-256color")
            .env("LANG", "C.UTF-8")
            .env("XDG_CONFIG_HOME", r.join("config"))
            .env("XDG_STATE_HOME", r.join("state"))
            .env("XDG_DATA_HOME", r.join("data"))
            .env("XDG_CACHE_HOME", r.join("cache"))
            .current_dir(r)
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls between fork and exec: a new session, with the
        // PTY (stdin) as its controlling terminal.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("sayso starts");
        let master = std::fs::File::from(master);
        let mut reader = master.try_clone().unwrap();
        let (tx, out) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            // EIO once the child is gone and the slave closed.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                if tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Pty {
            child,
            master,
            out,
            seen: Vec::new(),
            _home: home,
        }
    }

    /// Reads until `done` holds for all that was written so far (a generous limit: this is
    /// not a timing test).
    fn read_until(&mut self, what: &str, done: impl Fn(&[u8]) -> bool) {
        let end = Instant::now() + Duration::from_secs(20);
        while !done(&self.seen) {
            let left = end.saturating_duration_since(Instant::now());
            match self.out.recv_timeout(left) {
                Ok(bytes) => self.seen.extend_from_slice(&bytes),
                Err(_) => panic!(
                    "never saw {what}; the last bytes: {:?}",
                    String::from_utf8_lossy(&self.seen[self.seen.len().saturating_sub(600)..])
                ),
            }
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).unwrap();
    }

    /// Quits with Ctrl+C twice and returns the exit code.
    fn quit(mut self) -> (i32, Vec<u8>) {
        self.send(b"\x03");
        std::thread::sleep(Duration::from_millis(100));
        self.send(b"\x03");
        let end = Instant::now() + Duration::from_secs(20);
        let code = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < end, "sayso did not quit");
            std::thread::sleep(Duration::from_millis(20));
        };
        while let Ok(bytes) = self.out.recv_timeout(Duration::from_millis(500)) {
            self.seen.extend_from_slice(&bytes);
        }
        (code, std::mem::take(&mut self.seen))
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Whether the screen `out` paints shows `text`.
fn shows(out: &[u8], text: &str) -> bool {
    let mut screen = vt100::Parser::new(30, 100, 0);
    screen.process(out);
    screen.screen().contents().contains(text)
}

/// Where the first whole frame that shows the status bar ends.
fn first_frame_end(out: &[u8]) -> Option<usize> {
    let begin = find(out, BEGIN_SYNC)?;
    let status = begin + find(&out[begin..], b"sayso-demo")?;
    Some(status + find(&out[status..], END_SYNC)? + END_SYNC.len())
}

#[test]
fn the_first_frame_is_out_before_the_terminal_is_asked_and_the_enhancement_follows_its_answer() {
    let mut pty = Pty::start();
    pty.read_until("the first frame", |out| first_frame_end(out).is_some());
    pty.read_until("the keyboard query", |out| find(out, QUERY).is_some());
    let frame = first_frame_end(&pty.seen).unwrap();
    let query = find(&pty.seen, QUERY).unwrap();
    assert!(
        frame <= query,
        "the keyboard query ({query}) went out before the first frame ended ({frame})"
    );
    // Keys typed while the answer is on its way are not lost.
    pty.send(b"zqxj");
    // A terminal with the kitty keyboard protocol: its flags, then the DA1 answer.
    pty.send(b"\x1b[?0u\x1b[?62;22c");
    pty.read_until("the enhancement pushed", |out| find(out, PUSH).is_some());
    pty.read_until("the typed keys in the input box", |out| shows(out, "zqxj"));
    let (code, out) = pty.quit();
    assert_eq!(code, 0, "Ctrl+C twice quits");
    let push = find(&out, PUSH).unwrap();
    let pop = find(&out, POP).expect("the enhancement is popped on the way out");
    assert!(query < push && push < pop, "query, push, pop in that order");
}

#[test]
fn a_terminal_without_the_keyboard_protocol_gets_no_enhancement() {
    let mut pty = Pty::start();
    pty.read_until("the keyboard query", |out| find(out, QUERY).is_some());
    // Only the DA1 answer: no kitty flags.
    pty.send(b"\x1b[?62;22c");
    pty.send(b"zqxj");
    pty.read_until("the typed keys", |out| shows(out, "zqxj"));
    let (code, out) = pty.quit();
    assert_eq!(code, 0);
    assert!(find(&out, PUSH).is_none(), "no enhancement pushed");
    assert!(find(&out, POP).is_none(), "nothing to pop");
}
