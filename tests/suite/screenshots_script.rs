//! `scripts/screenshots.sh` keeps working: it drives the real binary through the README's four
//! screenshots in tmux (the demo's tour, its safe-list command run unasked and its approvals, the
//! diff modal, auto mode with the judge, a long chat scrolled up). Here it writes the captured screens instead of PNGs (no
//! renderer to install, no network), and each screen must show what its picture is about.

use std::path::Path;

#[tokio::test]
async fn the_screenshot_script_drives_every_screen_it_promises() {
    let out = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = tokio::process::Command::new("bash")
        .arg(repo.join("scripts/screenshots.sh"))
        .env("SAYSO_BIN", env!("CARGO_BIN_EXE_sayso"))
        .env("SCREENSHOT_DIR", out.path())
        .env("SCREENSHOT_ANSI_ONLY", "1")
        .env("SCREENSHOT_SCROLL_PAGES", "2")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("run scripts/screenshots.sh");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "the script failed:\n{stderr}");
    let screen = |name: &str| {
        let raw = std::fs::read_to_string(out.path().join(format!("{name}.ans")))
            .unwrap_or_else(|e| panic!("{name}.ans was not written ({e}):\n{stderr}"));
        strip_escapes(&raw)
    };
    let chat = screen("chat");
    for text in [
        " BALANCED ",
        "run_command ls -la · done",
        "ran unasked: the safe list (balanced mode), in a read-only sandbox",
        "+# Hello from sayso",
        "rejected",
    ] {
        assert!(chat.contains(text), "chat: no {text:?}:\n{chat}");
    }
    let diff = screen("approval-diff");
    for text in ["Approval needed — 2 of 3", "+++ b/hello.md", "[y] Accept"] {
        assert!(diff.contains(text), "approval-diff: no {text:?}:\n{diff}");
    }
    let auto = screen("auto-judge");
    for text in [" AUTO ", "ran unasked: the judge found it safe"] {
        assert!(auto.contains(text), "auto-judge: no {text:?}:\n{auto}");
    }
    let scrolled = screen("scrolled");
    assert!(
        scrolled.contains("›"),
        "scrolled: no user message:\n{scrolled}"
    );
}

/// The text of a screen captured with its escapes (`tmux capture-pane -e`).
fn strip_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                // CSI: parameters until a final byte in @..~
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}
