//! The TUI's look in the first hour, end to end through the real binary in tmux: a narrow
//! terminal keeps what matters on the status bar and in the approval modal, a long error wraps,
//! a new chat opens with a welcome, the waiting state counts seconds, a long turn that ends
//! unfocused is announced, and `NO_COLOR` draws no colour.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use tokio::sync::Notify;

use crate::support::fixture::sse::{self, tool_call_reply as calls};
use crate::support::fixture::{Fixture, Reply, Step};
use crate::support::tui::{Tui, WAIT, quote};

/// A config file of the test's own (the binary reads it with `-c`): the fixture as the
/// endpoint, `provider` lines added to `[provider]`, then `rest`.
fn config_file(dir: &Path, base_url: &str, provider: &str, rest: &str) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(
        &path,
        format!("model = \"m\"\n[provider]\nbase_url = \"{base_url}\"\n{provider}\n{rest}\n"),
    )
    .unwrap();
    path
}

/// The screen's text with every run of whitespace made one space (wrapping undone).
fn flat(screen: &str) -> String {
    screen.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The seconds shown after `label · ` on the screen, if shown.
/// The seconds in "waiting for the first token 37 s" (counted from the request).
fn seconds_waited(screen: &str) -> Option<u64> {
    let label = "waiting for the first token ";
    let rest = &screen[screen.find(label)? + label.len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    rest[digits.len()..]
        .starts_with(" s")
        .then(|| digits.parse().ok())?
}

fn seconds_after(screen: &str, label: &str) -> Option<u64> {
    let rest = &screen[screen.find(&format!("{label} · "))? + label.len() + " · ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    rest[digits.len()..]
        .starts_with('s')
        .then(|| digits.parse().ok())?
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_narrow_status_bar_keeps_the_mode_the_approval_and_the_gauge() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch narrow.txt", "flag": null}),
    )]));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.resize(50);
    tui.ready().await;
    tui.wait_until("the context gauge", |s| {
        s.lines().next().is_some_and(|l| l.contains("ctx"))
    })
    .await;
    tui.send("make a file").await;
    let screen = tui.wait_for_modal("Approval needed").await;
    let bar = screen.lines().next().unwrap_or_default();
    assert!(bar.starts_with(" BALANCED "), "{screen}");
    assert!(bar.contains("waiting for your approval"), "{screen}");
    assert!(bar.contains("ctx ~"), "the gauge went: {screen}");
    assert!(bar.chars().count() <= 50, "{screen}");
    tui.keys(&["c"]);
    tui.wait_for("cancelled").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_modal_wraps_its_lines_at_forty_columns() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch forty.txt", "flag": null}),
    )]));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.resize(40);
    tui.ready().await;
    tui.send("make a file").await;
    let screen = tui.wait_for_modal("Approval needed").await;
    let text = flat(&screen.replace('│', " "));
    for line in [
        "[s] save a rule to your config so it never asks again",
        "[a] remembers exactly `touch forty.txt`: it will not ask again for this command",
        "[a] Always accept [y] Accept [r] Reject [c] Cancel",
    ] {
        assert!(text.contains(line), "{line:?} is not all there:\n{screen}");
    }
    // The choices still answer it.
    tui.keys(&["y"]);
    // (Its block is on screen before the call runs, "awaiting approval": wait for it done.)
    tui.wait_for("run_command touch forty.txt · done").await;
    assert!(tui.work().join("forty.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_error_wraps_with_all_its_words_on_screen() {
    let fx = Fixture::start().await;
    let message = "the model is overloaded right now, please come back later: alpha beta gamma \
                   delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma \
                   tau upsilon phi chi psi omega THE-END";
    fx.push(Reply::Status {
        status: 503,
        headers: vec![],
        body: json!({"error": {"message": message}}).to_string(),
    });
    let dir = tempfile::tempdir().unwrap();
    // One retry, far off: its notice (with the error) stays on screen while it is read.
    let cfg = config_file(
        dir.path(),
        &fx.base_url(),
        "max_retries = 1\nretry_initial_delay_ms = 60000\nretry_max_delay_ms = 60000",
        "",
    );
    let tui = Tui::start_unconfigured(&[], &["-c", &cfg.display().to_string()]);
    tui.resize(50);
    tui.ready().await;
    tui.send("hi").await;
    let screen = tui.wait_for("retrying in").await;
    let text = flat(&screen);
    assert!(text.contains(&flat(message)), "the error is cut:\n{screen}");
    assert!(text.contains("(attempt 1/1)"), "{screen}");
    tui.keys(&["Escape"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_chat_opens_with_a_welcome_that_goes_with_the_first_message() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Hello there"])));
    let tui = Tui::start(&fx.base_url(), &[]);
    let screen = tui.wait_for("Welcome to sayso").await;
    assert!(screen.contains("AGENTS.md   none found"), "{screen}");
    std::fs::write(tui.work().join("AGENTS.md"), "Answer briefly.").unwrap();
    let tui = tui.restart(&[]);
    let screen = tui.wait_for("context window").await;
    for fact in [
        "Welcome to sayso",
        "model       m · context window",
        // The home is the test's root.
        "directory   ~/work",
        "AGENTS.md   read ./AGENTS.md",
        "/help",
        "@{name} + Tab",
        "--auto, /mode",
    ] {
        assert!(screen.contains(fact), "{fact:?} missing:\n{screen}");
    }
    tui.send("hi").await;
    let screen = tui.wait_for("Hello there").await;
    assert!(!screen.contains("Welcome to sayso"), "{screen}");
    // A resumed chat shows its history, not the welcome.
    let tui = tui.restart(&["--continue"]);
    let screen = tui.wait_for("Hello there").await;
    assert!(!screen.contains("Welcome to sayso"), "{screen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_waiting_state_counts_seconds_until_and_after_the_first_token() {
    let fx = Fixture::start().await;
    let (first, more) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let mut steps = vec![Step::Gate(first.clone())];
    let reply = sse::text_reply(&["Hel", "lo, world"]);
    steps.extend(reply[..2].iter().cloned());
    steps.push(Step::Gate(more.clone()));
    steps.extend(reply[2..].iter().cloned());
    fx.push(Reply::Stream(steps));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("hi").await;
    // The clock moves while the server holds the first token.
    tui.wait_until("a second of waiting for the first token", |s| {
        seconds_waited(s).is_some_and(|n| n >= 1)
    })
    .await;
    first.notify_one();
    let screen = tui
        .wait_until("writing with its seconds", |s| {
            seconds_after(s, "writing").is_some_and(|n| n >= 1)
        })
        .await;
    assert!(screen.contains("Hel"), "{screen}");
    assert!(!screen.contains("waiting for the first token"), "{screen}");
    more.notify_one();
    tui.wait_for("Hello, world").await;
    tui.wait_until("the clock gone with the turn", |s| !s.contains("writing"))
        .await;
}

/// The SGR parameter lists in `screen` (a `capture-pane -e` capture).
fn sgr_params(screen: &str) -> Vec<Vec<u16>> {
    let mut out = Vec::new();
    let mut rest = screen;
    while let Some(i) = rest.find("\x1b[") {
        rest = &rest[i + 2..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(rest.len());
        if rest[end..].starts_with('m') {
            out.push(
                rest[..end]
                    .split(';')
                    .map(|p| p.parse().unwrap_or(0))
                    .collect(),
            );
        }
        rest = &rest[end..];
    }
    out
}

/// A colour other than the terminal's default: 30–37, 40–47, 90–97, 100–107, 38/48 (extended).
fn is_colour(p: u16) -> bool {
    matches!(p, 30..=38 | 40..=48 | 90..=97 | 100..=107)
}

/// The screen, with its escapes, after a reply with a heading, bold text and code.
async fn coloured_screen(no_color: &str) -> String {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&[
        "## Plan\n\n**Read** the `config`:\n\n```rust\nfn main() {\n    let x = \"s\";\n}\n```\n",
    ])));
    let dir = tempfile::tempdir().unwrap();
    let cfg = config_file(dir.path(), &fx.base_url(), "max_retries = 0", "");
    let tui = Tui::start_unconfigured(
        &[("NO_COLOR", no_color)],
        &["-c", &cfg.display().to_string()],
    );
    tui.ready().await;
    tui.send("hi").await;
    tui.wait_for("let x").await;
    tui.wait_for("Ctrl+D quit").await;
    let out = tui.tmux(&["capture-pane", "-p", "-e", "-t", "e2e"]);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_color_draws_no_colour_but_keeps_bold_and_reverse() {
    // An empty NO_COLOR is no NO_COLOR: colours there (and this test can see them).
    let coloured = coloured_screen("").await;
    let params = sgr_params(&coloured);
    assert!(
        params.iter().flatten().any(|p| is_colour(*p)),
        "no colour without NO_COLOR:\n{coloured:?}"
    );
    let plain = coloured_screen("1").await;
    let params = sgr_params(&plain);
    let colours: Vec<&Vec<u16>> = params
        .iter()
        .filter(|p| p.iter().any(|c| is_colour(*c)))
        .collect();
    assert!(
        colours.is_empty(),
        "colour under NO_COLOR: {colours:?}\n{plain:?}"
    );
    let attrs: Vec<u16> = params.into_iter().flatten().collect();
    assert!(attrs.contains(&7), "no reverse (status bar):\n{plain:?}");
    assert!(attrs.contains(&1), "no bold:\n{plain:?}");
}

/// Polls `path` until it holds `needle`; its bytes.
async fn wait_for_bytes(path: &Path, needle: &[u8]) -> Vec<u8> {
    let start = std::time::Instant::now();
    loop {
        let bytes = std::fs::read(path).unwrap_or_default();
        if bytes.windows(needle.len()).any(|w| w == needle) {
            return bytes;
        }
        assert!(
            start.elapsed() < WAIT,
            "{:?} never written; the terminal got:\n{:?}",
            String::from_utf8_lossy(needle),
            String::from_utf8_lossy(&bytes)
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_turn_that_ends_unfocused_rings_and_notifies() {
    let fx = Fixture::start().await;
    let hold = Arc::new(Notify::new());
    let mut steps = vec![Step::Gate(hold.clone())];
    steps.extend(sse::text_reply(&["Done."]));
    fx.push(Reply::Stream(steps));
    let dir = tempfile::tempdir().unwrap();
    let cfg = config_file(
        dir.path(),
        &fx.base_url(),
        "max_retries = 0",
        "[ui]\nnotify = \"auto\"\nnotify_after_s = 1",
    );
    // WezTerm shows OSC 9 notifications.
    let tui = Tui::start_unconfigured(
        &[("TERM_PROGRAM", "WezTerm")],
        &["-c", &cfg.display().to_string()],
    );
    tui.ready().await;
    // Everything sayso writes to the terminal from now on.
    let written = dir.path().join("written.bin");
    let pipe = format!("cat >> {}", quote(written.display()));
    assert!(
        tui.tmux(&["pipe-pane", "-O", "-t", "e2e", &pipe])
            .status
            .success()
    );
    tui.send("take your time").await;
    tui.wait_until("the turn past its first second", |s| {
        seconds_waited(s).is_some_and(|n| n >= 1)
    })
    .await;
    // The user goes to another window: the terminal reports focus out (CSI O).
    assert!(
        tui.tmux(&["send-keys", "-t", "e2e", "-H", "1b", "5b", "4f"])
            .status
            .success()
    );
    // A key typed after it is on screen: the focus change was read before it.
    tui.type_text("x");
    tui.wait_until("the typed key", |s| !s.contains("Ask anything"))
        .await;
    hold.notify_one();
    tui.wait_for("Done.").await;
    let bytes = wait_for_bytes(&written, b"\x1b]9;sayso: the reply is ready (after ").await;
    let at = bytes
        .windows(4)
        .position(|w| w == b"\x1b]9;")
        .expect("OSC 9");
    let end = at
        + bytes[at..]
            .iter()
            .position(|b| *b == 0x07)
            .expect("BEL ends the OSC");
    assert_eq!(
        bytes.get(end + 1),
        Some(&0x07),
        "no bell after the notification: {:?}",
        String::from_utf8_lossy(&bytes[at..])
    );
    // Quitting turns focus reporting off again.
    tui.keys(&["BSpace"]);
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0);
    wait_for_bytes(&written, b"\x1b[?1004l").await;
    tui.assert_terminal_restored();
}

#[tokio::test]
async fn an_unknown_notify_setting_names_its_file_line_and_the_choices() {
    let home = tempfile::tempdir().unwrap();
    let cfg = home.path().join("config/sayso/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(
        &cfg,
        "model = \"m\"\n[provider]\nbase_url = \"http://127.0.0.1:1/v1\"\n[ui]\nnotify = \"loud\"\n",
    )
    .unwrap();
    let mut cmd = crate::support::sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = crate::support::run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("config.toml:5:")
            && out.stderr.contains("key `ui.notify`")
            && out
                .stderr
                .contains("`loud` is not one of auto, bell, osc9, osc777, osc99, off"),
        "{}",
        out.stderr
    );
}
