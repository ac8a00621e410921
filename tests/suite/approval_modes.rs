//! Approvals scoped to the mode that gave them (issue 36.7), and the modal's `s` on a command
//! of several parts (issue 37.11), through the real binary and the fixture model:
//!
//! - a judge's safe verdict given in `--auto` comes back when the chat is resumed in auto, not
//!   when it is resumed in balanced — and once the chat went on in balanced, not at all;
//! - in the TUI, a verdict given in auto does not approve the same command after `/mode
//!   balanced`; each tool block that ran unasked says why in a dim line;
//! - strict means strict: an allow rule runs nothing unasked there;
//! - `s` on `a && b` offers a rule for every part, saves both, and the next such command runs
//!   unasked, naming both rules.

use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::sessions::{id_of, session_files};
use crate::support::tui::Tui;
use crate::support::{home_with, json_lines, result_of, run, sayso};

/// A screen's text without the modal's borders, blanks collapsed: wrapped lines read as one.
fn flat(screen: &str) -> String {
    screen
        .replace(['│', '\n'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn judge_says(safe: bool, reason: &str) -> Reply {
    let verdict = json!({"safe": safe, "reason": reason}).to_string();
    Reply::Json(json!({"choices": [{"message": {"content": verdict}}]}))
}

fn is_judge(body: &Value) -> bool {
    body["response_format"]["type"] == "json_schema"
}

fn touch(id: &str) -> Reply {
    call_reply(&[(id, "run_command", &json!({"cmd": "touch made"}))])
}

#[tokio::test]
async fn a_judge_verdict_comes_back_on_resume_only_in_auto() {
    let fx = Fixture::start().await;
    let h = home_with(&fx.base_url(), "");
    let made = h.path().join("made");

    // In auto, the judge finds `touch made` safe: it runs, and is remembered.
    fx.push(touch("c1"));
    fx.push(judge_says(true, "creates an empty file"));
    fx.push(Reply::Stream(sse::text_reply(&["made it"])));
    let mut c = sayso(h.path());
    c.args(["-p", "--auto", "make it"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(made.exists());
    assert!(
        out.stderr
            .contains("ran unasked: the judge found it safe — creates an empty file"),
        "{}",
        out.stderr
    );
    let id = id_of(&session_files(h.path())[0]);
    std::fs::remove_file(&made).unwrap();

    // Resumed in auto (`--auto`): the verdict applies again; no judge is asked.
    let before = fx.requests().len();
    fx.push(touch("c2"));
    fx.push(Reply::Stream(sse::text_reply(&["made again"])));
    let mut c = sayso(h.path());
    c.args(["-p", "--auto", "--resume", &id, "again"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(made.exists(), "{}", result_of(&fx, "c2"));
    assert!(fx.requests()[before..].iter().all(|r| !is_judge(&r.body)));
    assert!(
        out.stderr.contains(
            "ran unasked: remembered: the judge found this exact call safe earlier in this chat (auto mode)"
        ),
        "{}",
        out.stderr
    );
    std::fs::remove_file(&made).unwrap();

    // Resumed in balanced (the config's mode: auto is looser, so it is not restored): the
    // verdict does not apply, so the same command asks — headless, it is rejected.
    let before = fx.requests().len();
    fx.push(touch("c3"));
    fx.push(Reply::Stream(sse::text_reply(&["could not"])));
    let mut c = sayso(h.path());
    c.args(["-p", "--resume", &id, "and again"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        result_of(&fx, "c3").starts_with("Approval required for `run_command`"),
        "{}",
        result_of(&fx, "c3")
    );
    assert!(!made.exists(), "the auto verdict ran it in balanced mode");
    assert!(
        fx.requests()[before..].iter().all(|r| !is_judge(&r.body)),
        "balanced never asks the judge"
    );

    // The chat went on in balanced, which forgot the verdict for good: back in auto, the
    // judge is asked again (and this time says no).
    let before = fx.requests().len();
    fx.push(touch("c4"));
    fx.push(judge_says(false, "not again"));
    fx.push(Reply::Stream(sse::text_reply(&["refused"])));
    let mut c = sayso(h.path());
    c.args(["-p", "--auto", "--resume", &id, "once more"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        fx.requests()[before..]
            .iter()
            .filter(|r| is_judge(&r.body))
            .count(),
        1
    );
    assert!(!made.exists());
}

#[tokio::test]
async fn strict_mode_runs_nothing_on_an_allow_rule_but_still_denies() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[
        ("c1", "run_command", &json!({"cmd": "touch made"})),
        ("c2", "run_command", &json!({"cmd": "rm -f keep"})),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let rules = "[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"touch *\"\ndecision = \"allow\"\n\
                 [[approvals.rules]]\ntool = \"run_command\"\nmatch = \"rm *\"\ndecision = \"deny\"\n";
    let h = home_with(&fx.base_url(), rules);
    std::fs::write(h.path().join("keep"), "x").unwrap();
    let mut c = sayso(h.path());
    c.args(["-p", "--approval-mode", "strict", "--json", "go"]);
    let out = run(c).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !h.path().join("made").exists(),
        "the allow rule ran it in strict mode"
    );
    assert!(
        result_of(&fx, "c1").starts_with("Approval required for `run_command`"),
        "{}",
        result_of(&fx, "c1")
    );
    assert!(result_of(&fx, "c2").contains("denied by the approval rule"));
    assert!(h.path().join("keep").exists());
    let started = json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["type"] == "tool_started")
        .count();
    assert_eq!(started, 0);
}

/// The TUI with the judge on: `--auto`, the judge finds `touch made` safe and it runs (the
/// block says the judge let it); after `/mode balanced` the same command asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_tui_a_verdict_from_auto_does_not_approve_after_switching_to_balanced() {
    let fx = Fixture::start().await;
    fx.push(touch("c1"));
    fx.push(judge_says(true, "creates an empty file"));
    fx.push(Reply::Stream(sse::text_reply(&["Made it."])));
    fx.push(touch("c2"));
    fx.push(Reply::Stream(sse::text_reply(&["Made it again."])));
    let tui = Tui::start(&fx.base_url(), &["--auto"]);
    tui.ready().await;
    tui.send("make the file").await;
    let screen = tui.wait_for("Made it.").await;
    assert!(
        screen.contains("ran unasked: the judge found it safe — creates an empty file"),
        "{screen}"
    );
    tui.send("/mode balanced").await;
    tui.wait_for("BALANCED").await;
    tui.send("once more").await;
    let screen = tui.wait_for_modal("Run the command `touch made`?").await;
    assert!(screen.contains("[a]"), "{screen}");
    tui.keys(&["c"]);
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0);
}

/// `s` on a command of two parts: a rule for each, saved together; the same command then runs
/// unasked, and its block names both rules and where they were written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_tui_s_on_a_compound_command_saves_a_rule_for_every_part() {
    let fx = Fixture::start().await;
    let both = "touch one && mkdir -p two";
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        &json!({ "cmd": both }),
    )]));
    fx.push(call_reply(&[(
        "c2",
        "run_command",
        &json!({ "cmd": both }),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["Both done."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("make them").await;
    tui.wait_for_modal("[s] save a rule for each part").await;
    tui.keys(&["s"]);
    let screen = tui.wait_for_modal("this command has 2 parts").await;
    let shown = flat(&screen);
    assert!(
        shown.contains("[1] `run_command match \"touch one\" → allow` and `run_command match \"mkdir -p two\" → allow`"),
        "{screen}"
    );
    tui.keys(&["1"]);
    let screen = tui.wait_for("Both done.").await;
    let config = std::fs::read_to_string(tui.root_path().join("config/sayso/config.toml")).unwrap();
    assert!(
        config.contains("match = \"touch one\"") && config.contains("match = \"mkdir -p two\""),
        "{config}"
    );
    assert!(
        screen.contains("ran unasked: the rule `run_command match \"touch one\" → allow`"),
        "the second run names the rules: {screen}"
    );
    assert_eq!(
        fx.requests().len(),
        3,
        "one modal for two runs of the same compound command"
    );
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0);
}

/// `s` on a command no rule may cover says why, and saves nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_tui_s_says_why_no_rule_can_be_saved() {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        &json!({"cmd": "echo hi > out.txt"}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("write it").await;
    let screen = tui
        .wait_for_modal("[s] no rule can be saved for this command")
        .await;
    assert!(
        flat(&screen)
            .contains("the command redirects input or output, and no allow rule covers that"),
        "{screen}"
    );
    tui.keys(&["c"]);
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0);
}
