//! The TUI's footprint, end to end in tmux: the syntax tables load only with the first code block
//! (and still colour it), and a reply streamed into a full pane reaches the terminal as scrolls
//! plus new text — bytes counted on the pty with `pipe-pane`, the picture checked with
//! `capture-pane`. No clock: the byte bound holds even if every delta gets its own frame, and
//! the UI thread's wake-ups (from /proc) are counted against the frames it drew.

use std::time::Duration;

use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::tui::Tui;

fn vm_kib(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find(|l| l.starts_with(key))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {key} for {pid}"))
}

/// `s` without its SGR sequences (`ESC [ … m`).
fn strip_sgr(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("\x1b[") {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        rest = rest.find('m').map_or("", |j| &rest[j + 1..]);
    }
    out.push_str(rest);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_syntax_tables_load_with_the_first_code_block_and_colour_it() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&[
        "No code here, just words.",
    ])));
    fx.push(Reply::Stream(sse::text_reply(&[
        "Here:\n\n```rust\nfn main() {\n    let answer = 42;\n}\n```\n",
    ])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("first").await;
    tui.wait_for("just words.").await;
    tui.wait_for("Ctrl+D quit").await;
    let pid = tui.sayso_pid();
    // Prose never needs the highlighter: nothing loaded it.
    let before = vm_kib(pid, "VmRSS");

    tui.send("second").await;
    tui.wait_for("let answer = 42;").await;
    // Once loaded (off the UI thread), the block is drawn again in colour: `fn` is styled.
    let start = std::time::Instant::now();
    let coloured = loop {
        let out = tui.tmux(&["capture-pane", "-p", "-e", "-t", "e2e"]);
        let screen = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = screen
            .lines()
            .find(|l| strip_sgr(l).contains("fn main() {"))
            .unwrap_or_default()
            .to_owned();
        // Plain, the line is one run of one style; highlighted, `fn`, `main` and the
        // punctuation each get theirs.
        if line.matches("\x1b[").count() >= 3 {
            break line;
        }
        assert!(
            start.elapsed() < crate::support::tui::WAIT,
            "the code block was never coloured:\n{screen}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(strip_sgr(&coloured).trim(), "fn main() {", "{coloured:?}");
    let after = vm_kib(pid, "VmRSS");
    // Loading them and compiling Rust's grammar (Oniguruma) takes ~5 MiB; the second reply
    // itself well under 1 MiB.
    assert!(
        after > before + 3 * 1024,
        "the syntax tables (~5 MiB with Rust's grammar) were already loaded before the first \
         code block: {before} KiB before, {after} KiB after"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_streamed_into_a_full_pane_is_written_as_scrolls_and_new_text() {
    let fx = Fixture::start().await;
    // 300 numbered lines in 1,200 deltas, paced a little so that frames see partial lines.
    let parts: Vec<String> = (0..300)
        .flat_map(|i| {
            [
                format!("Line {i:03} "),
                "of the ".into(),
                "long ".into(),
                "reply.\n\n".into(),
            ]
        })
        .collect();
    let text_bytes: usize = parts.iter().map(String::len).sum();
    fx.push(Reply::Stream(sse::paced_text_reply(
        parts,
        Duration::from_millis(2),
    )));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    let log = log_output(&tui);
    tui.send("go").await;
    let screen = tui.wait_for("Line 299 of the long reply.").await;
    tui.wait_for("Ctrl+D quit").await;
    // The pane shows the end of the reply in order, every line whole.
    let shown: Vec<&str> = screen.lines().filter(|l| l.starts_with("Line ")).collect();
    assert!(shown.len() >= 8, "{screen}");
    for pair in shown.windows(2) {
        let n = |l: &str| l[5..8].parse::<u32>().unwrap();
        assert_eq!(n(pair[1]), n(pair[0]) + 1, "{screen}");
        assert!(pair[0].ends_with("of the long reply."), "{screen}");
    }
    // Scrolled up, the earlier lines are there too (drawn by the terminal's scroll and by
    // ratatui's diff together).
    tui.keys(&["PageUp"]);
    let up = tui
        .wait_until("the view to scroll up", |s| !s.contains("Line 299"))
        .await;
    let earlier: Vec<&str> = up.lines().filter(|l| l.starts_with("Line ")).collect();
    assert!(earlier.len() >= 8, "{up}");
    assert!(
        earlier.iter().all(|l| l.ends_with("of the long reply.")),
        "{up}"
    );

    tokio::time::sleep(Duration::from_millis(300)).await;
    let written = std::fs::read(&log).unwrap();
    let scrolls = written.windows(4).filter(|w| w == b"M\x1b[r").count();
    assert!(scrolls > 0, "the terminal was never asked to scroll");
    // The whole session's output (first frame, the typed message, the reply, PageUp) against
    // the reply's text: with every pane row rewritten per new line it would be ~30x.
    let per_byte = written.len() as f64 / text_bytes as f64;
    assert!(
        per_byte < 6.0,
        "{} bytes to the terminal for {text_bytes} bytes of reply ({per_byte:.1} per byte)",
        written.len()
    );
}

/// Where what sayso writes to its pty from now on is copied (tmux `pipe-pane -O`).
fn log_output(tui: &Tui) -> std::path::PathBuf {
    let log = tui.root_path().join("pane.out");
    let pipe = format!("cat >> '{}'", log.display());
    assert!(
        tui.tmux(&["pipe-pane", "-O", "-t", "e2e", &pipe])
            .status
            .success()
    );
    log
}

/// The numbered lines on screen are whole and consecutive.
fn assert_whole_and_in_order(screen: &str) -> Vec<u32> {
    let shown: Vec<&str> = screen.lines().filter(|l| l.starts_with("Line ")).collect();
    assert!(shown.len() >= 5, "{screen}");
    let numbers: Vec<u32> = shown.iter().map(|l| l[5..8].parse().unwrap()).collect();
    for (pair, line) in numbers.windows(2).zip(&shown) {
        assert_eq!(pair[1], pair[0] + 1, "{screen}");
        assert!(line.trim_end().ends_with("of the long reply."), "{screen}");
    }
    numbers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resizing_while_a_reply_scrolls_in_leaves_a_whole_picture() {
    let fx = Fixture::start().await;
    let gate = std::sync::Arc::new(tokio::sync::Notify::new());
    let mut steps = vec![Step::Bytes(sse::data(&sse::chunk(
        serde_json::json!({"role": "assistant", "content": ""}),
        None,
    )))];
    for i in 0..160 {
        if i == 80 {
            steps.push(Step::Gate(gate.clone()));
        }
        steps.push(Step::Bytes(sse::text(&format!(
            "Line {i:03} of the long reply.\n\n"
        ))));
        steps.push(Step::Sleep(Duration::from_millis(3)));
    }
    steps.push(Step::Bytes(sse::finish("stop")));
    steps.push(Step::Bytes(sse::done()));
    fx.push(Reply::Stream(steps));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("go").await;
    let half = tui.wait_for("Line 079 of the long reply.").await;
    assert_whole_and_in_order(&half);
    // Narrower and shorter mid-stream, then the rest of the reply scrolls in.
    assert!(
        tui.tmux(&["resize-window", "-t", "e2e", "-x", "70", "-y", "20"])
            .status
            .success()
    );
    gate.notify_one();
    tui.wait_for("Line 159 of the long reply.").await;
    // The idle footer (narrow: its first hint).
    let end = tui
        .wait_until("the turn to end", |s| {
            s.contains("Line 159") && s.contains("Enter send")
        })
        .await;
    assert!(end.lines().count() <= 20, "{end}");
    assert_eq!(assert_whole_and_in_order(&end).last(), Some(&159));
    // Wider again: the same end, reflowed.
    assert!(
        tui.tmux(&["resize-window", "-t", "e2e", "-x", "100", "-y", "30"])
            .status
            .success()
    );
    let wide = tui
        .wait_until("the wider frame", |s| {
            s.lines().count() > 20 && s.contains("Ctrl+D quit")
        })
        .await;
    assert_eq!(assert_whole_and_in_order(&wide).last(), Some(&159));
}

/// Wake-ups of the threads named `sayso-ui` (the UI loop, and the key reader it starts, which
/// sleeps while no key comes): their voluntary context switches.
fn ui_wakeups(pid: u32) -> u64 {
    let mut sum = 0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
        let dir = task.unwrap().path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if comm.trim() != "sayso-ui" {
            continue;
        }
        let status = std::fs::read_to_string(dir.join("status")).unwrap_or_default();
        sum += status
            .lines()
            .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
            .and_then(|n| n.trim().parse::<u64>().ok())
            .unwrap_or(0);
    }
    sum
}

/// While a reply streams, the UI thread wakes once a frame (and for the keys typed and the
/// turn's clock) — not also between frames for its own timers (tokio's timer wheel woke it at
/// each 64 ms boundary to move a frame's deadline down a level: ~1.6 wake-ups a frame). Frames
/// are counted on the pty (one synchronized update each), wake-ups in /proc: no clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_a_reply_streams_the_ui_wakes_once_a_frame() {
    let fx = Fixture::start().await;
    // ~4 s of reply at a slow model's pace: a delta every 20 ms.
    let words = (0..200).map(|i| format!("word{i:03} "));
    fx.push(Reply::Stream(sse::paced_text_reply(
        words.chain(["the end.".to_owned()]),
        Duration::from_millis(20),
    )));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    let pid = tui.sayso_pid();
    let log = log_output(&tui);
    let before = ui_wakeups(pid);
    assert!(before > 0, "no sayso-ui thread in /proc/{pid}/task");
    tui.send("go").await;
    tui.wait_for("word199 the end.").await;
    tui.wait_for("Ctrl+D quit").await;
    let wakeups = ui_wakeups(pid) - before;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let written = std::fs::read(&log).unwrap();
    let frames = written.windows(8).filter(|w| w == b"\x1b[?2026h").count() as u64;
    assert!(frames >= 40, "{frames} frames for a 4 s reply");
    // Slack for the keys typed, the turn's clock (once a second) and its start and end.
    assert!(
        wakeups <= frames + frames / 5 + 15,
        "{wakeups} wake-ups of the UI for {frames} frames"
    );
}
