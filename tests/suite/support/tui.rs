//! The real binary in a real terminal: a private tmux server per test, a fixed-size pane, keys
//! typed with `send-keys`, the screen read with `capture-pane`.
//!
//! Each test has its own fixture, its own temp directory (config, state, data, working
//! directory) and its own tmux server (`-L <unique socket>`), killed on drop. The binary runs
//! under `env -i` so nothing from the developer's environment (keys, endpoints, `SAYSO_*`)
//! leaks in. Waits poll the screen with a generous bound: they are liveness bounds, not timing
//! assertions.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;

/// How long any one wait may take before the test fails with the screen it last saw.
pub const WAIT: Duration = Duration::from_secs(20);
pub const POLL: Duration = Duration::from_millis(50);
/// How long a test lets the approval modal be read before answering it: a key answers only
/// once the modal has been on screen 0.5 s and the keyboard has been quiet 0.3 s (keys before
/// are swallowed), so a test waits past both, with room for a slow frame.
pub const MODAL_READ: Duration = Duration::from_millis(800);
pub const WIDTH: u16 = 100;
pub const HEIGHT: u16 = 30;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// `s` single-quoted for `sh`.
/// The footer: the screen's last line that is not blank, without its trailing spaces.
pub fn footer(screen: &str) -> &str {
    screen
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .trim_end()
}

/// Whether a line of the screen holds exactly `text` (the input box's line), trimmed.
pub fn has_line(screen: &str, text: &str) -> bool {
    screen.lines().any(|l| l.trim() == text)
}

/// The number after `marker` on `screen` (thousands separators skipped).
pub fn number_after(screen: &str, marker: &str) -> u64 {
    let at = screen
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker:?} on screen:\n{screen}"))
        + marker.len();
    let digits: String = screen[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {marker:?}:\n{screen}"))
}

pub fn quote(s: impl std::fmt::Display) -> String {
    format!("'{}'", s.to_string().replace('\'', r"'\''"))
}

/// The real `sayso` in a private tmux server.
pub struct Tui {
    socket: String,
    /// `None` only while a restart moves it to the next `Tui`.
    root: Option<tempfile::TempDir>,
    base_url: String,
}

impl Tui {
    /// Starts `sayso -C <work>` (plus `args`) in a 100x30 pane, pointed at `base_url` by its
    /// config file. When sayso exits, the pane's shell records `stty -a` in `stty.txt` and
    /// prints `EXITED:<code>`, then stays open so the screen can still be read.
    pub fn start(base_url: &str, args: &[&str]) -> Tui {
        Self::start_in(tempfile::tempdir().unwrap(), base_url, args)
    }

    /// Starts `sayso -C <work>` with no config file at all, with `env` added to its (otherwise
    /// empty) environment: a first run on a fresh machine.
    pub fn start_unconfigured(env: &[(&str, &str)], args: &[&str]) -> Tui {
        Self::launch(tempfile::tempdir().unwrap(), None, env, args)
    }

    /// Ends this sayso (and its tmux server) and starts a new one in the same home.
    pub fn restart(mut self, args: &[&str]) -> Tui {
        let _ = self.tmux(&["kill-server"]);
        let root = self.root.take().expect("a home");
        Self::start_in(root, &self.base_url.clone(), args)
    }

    /// The test's home: config, state, data and the working directory.
    pub fn root_path(&self) -> &Path {
        self.root.as_ref().expect("a home").path()
    }

    fn start_in(root: tempfile::TempDir, base_url: &str, args: &[&str]) -> Tui {
        Self::launch(root, Some(base_url), &[], args)
    }

    /// `base_url`: the config file points at it; `None`: no config file.
    fn launch(
        root: tempfile::TempDir,
        base_url: Option<&str>,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Tui {
        let r = root.path();
        for d in ["config/sayso", "state", "data", "work"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        if let Some(base_url) = base_url {
            std::fs::write(
                r.join("config/sayso/config.toml"),
                format!("model = \"m\"\n[provider]\nbase_url = \"{base_url}\"\nmax_retries = 0\n"),
            )
            .unwrap();
        }
        let path = quote(std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()));
        let extra: String = env
            .iter()
            .map(|(k, v)| format!(" {k}={}", quote(v)))
            .collect();
        let mut cmd = format!(
            "env -i HOME={home} PATH={path} TERM=xterm-256color LANG=C.UTF-8 \
             XDG_CONFIG_HOME={config} XDG_STATE_HOME={state} XDG_DATA_HOME={data}{extra} {bin} -C {work}",
            home = quote(r.display()),
            config = quote(r.join("config").display()),
            state = quote(r.join("state").display()),
            data = quote(r.join("data").display()),
            bin = quote(Path::new(env!("CARGO_BIN_EXE_sayso")).display()),
            work = quote(r.join("work").display()),
        );
        for a in args {
            cmd.push(' ');
            cmd.push_str(&quote(a));
        }
        let script = format!(
            "cd {work} || exit 1\n{cmd}\ncode=$?\nstty -a > {stty}\necho \"EXITED:$code\"\nexec sleep 3600\n",
            work = quote(r.join("work").display()),
            stty = quote(r.join("stty.txt").display()),
        );
        std::fs::write(r.join("run.sh"), script).unwrap();
        let socket = format!(
            "sayso-e2e-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let tui = Tui {
            socket,
            root: Some(root),
            base_url: base_url.unwrap_or_default().to_owned(),
        };
        let (w, h) = (WIDTH.to_string(), HEIGHT.to_string());
        let run = format!("sh {}", quote(tui.root_path().join("run.sh").display()));
        let out = tui.tmux(&["new-session", "-d", "-s", "e2e", "-x", &w, "-y", &h, &run]);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        tui
    }

    pub fn tmux(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-u", "-f", "/dev/null", "-L", &self.socket])
            .args(args)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root_path())
            .env("LANG", "C.UTF-8")
            .output()
            .expect("tmux is needed for these tests (apt-get install tmux)")
    }

    /// The working directory sayso runs in.
    /// Makes the pane `width` columns wide (30 rows), as a user resizing the terminal.
    pub fn resize(&self, width: u16) {
        let out = self.tmux(&[
            "resize-window",
            "-t",
            "e2e",
            "-x",
            &width.to_string(),
            "-y",
            "30",
        ]);
        assert!(out.status.success(), "resize-window failed");
    }

    pub fn work(&self) -> PathBuf {
        self.root_path().join("work")
    }

    pub fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", "e2e"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// A pane format such as `#{alternate_on}`.
    pub fn pane(&self, format: &str) -> String {
        let out = self.tmux(&["display-message", "-p", "-t", "e2e", format]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Keys by tmux name (`Enter`, `C-d`, `y`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend(keys);
        let out = self.tmux(&args);
        assert!(out.status.success(), "send-keys {keys:?} failed");
    }

    /// Text typed literally.
    pub fn type_text(&self, text: &str) {
        let out = self.tmux(&["send-keys", "-t", "e2e", "-l", text]);
        assert!(out.status.success(), "send-keys -l {text:?} failed");
    }

    /// Polls the screen until `ok` holds; fails with the last screen after [`WAIT`].
    pub async fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > WAIT {
                panic!("timed out waiting for {what}; the screen was:\n{screen}");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    pub async fn wait_for(&self, text: &str) -> String {
        self.wait_until(&format!("{text:?}"), |s| s.contains(text))
            .await
    }

    /// Waits for `text` on the approval modal, then [`MODAL_READ`], so that the next key
    /// answers it (what a user who reads it first does).
    pub async fn wait_for_modal(&self, text: &str) -> String {
        let screen = self.wait_for(text).await;
        tokio::time::sleep(MODAL_READ).await;
        screen
    }

    /// The UI is up and waiting for input.
    pub async fn ready(&self) {
        self.wait_for("Ask anything").await;
    }

    /// Types a message and sends it.
    pub async fn send(&self, text: &str) {
        self.type_text(text);
        self.wait_for(text).await;
        self.keys(&["Enter"]);
    }

    /// Waits for sayso to exit; its exit code.
    pub async fn exit_code(&self) -> i32 {
        let screen = self.wait_for("EXITED:").await;
        let rest = &screen[screen.find("EXITED:").unwrap() + "EXITED:".len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits
            .parse()
            .unwrap_or_else(|_| panic!("no exit code after EXITED:\n{screen}"))
    }

    /// sayso's pid: the child of the pane's shell (`env` execs it).
    pub fn sayso_pid(&self) -> u32 {
        let shell = self.pane("#{pane_pid}");
        let out = Command::new("pgrep")
            .args(["-P", &shell])
            .output()
            .expect("pgrep");
        let pids: Vec<u32> = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
        let found: Vec<u32> = pids
            .into_iter()
            .filter(|p| {
                std::fs::read_to_string(format!("/proc/{p}/comm"))
                    .is_ok_and(|c| c.trim() == "sayso")
            })
            .collect();
        assert_eq!(found.len(), 1, "sayso under the pane's shell {shell}");
        found[0]
    }

    /// The terminal is back as the shell had it: line editing and echo on (`stty -a` after
    /// sayso exited), the main screen shown, the cursor visible, no mouse reporting.
    pub fn assert_terminal_restored(&self) {
        let stty = std::fs::read_to_string(self.root_path().join("stty.txt")).unwrap();
        let flags: Vec<&str> = stty
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|w| !w.is_empty())
            .collect();
        for flag in ["echo", "icanon", "isig", "icrnl", "opost"] {
            assert!(flags.contains(&flag), "{flag} is off after sayso:\n{stty}");
            assert!(
                !flags.contains(&format!("-{flag}").as_str()),
                "-{flag} after sayso:\n{stty}"
            );
        }
        let screen = self.screen();
        assert_eq!(
            self.pane("#{alternate_on}"),
            "0",
            "still on the alternate screen:\n{screen}"
        );
        assert_eq!(self.pane("#{cursor_flag}"), "1", "the cursor is hidden");
        assert_eq!(
            self.pane("#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}"),
            "000",
            "mouse reporting is still on"
        );
        assert!(
            !screen.contains("Ask anything") && !screen.contains("Ctrl+D"),
            "the UI is still on the screen:\n{screen}"
        );
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        if self.root.is_none() {
            return;
        }
        // Ends the pane's processes (SIGHUP) and the server, and removes its socket file.
        let socket = self.pane("#{socket_path}");
        let _ = self.tmux(&["kill-server"]);
        if socket.ends_with(&self.socket) {
            let _ = std::fs::remove_file(socket);
        }
    }
}
