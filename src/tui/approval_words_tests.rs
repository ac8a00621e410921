//! What the TUI says about approvals beyond the four choices: the modal's `s` for a command of
//! several parts (a rule for every part, saved together) or for one no rule may cover (why not,
//! issue 37.11), and the dim line under a tool block that ran unasked (issue 36.7).

use std::time::Instant;

use crossterm::event::KeyCode;
use serde_json::json;

use super::app::{AppEvent, Effect};
use super::tests_support::*;
use crate::agent::task::Command;
use crate::events::{Event, Mode, Unasked};
use crate::provider::{AssistantMessage, StreamDelta, ToolCall};
use crate::tools::lifecycle::requests::{Remember, UserChoice};

/// The frame's text without the modal's borders, blanks collapsed: wrapped lines read as one.
fn flat(a: &super::app::App) -> String {
    render(a, Instant::now())
        .replace(['│', '\n'], " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// An approval request for the shell command `cmd`.
fn asking(
    cmd: &str,
) -> (
    crate::tools::lifecycle::requests::ApprovalRequest,
    tokio::sync::oneshot::Receiver<UserChoice>,
) {
    let (mut req, answer) = request(1, 1, None, None);
    req.ask.cmd_string = cmd.into();
    req.ask.prompt = format!("Run the command `{cmd}`?");
    req.ask.args = json!({ "cmd": cmd });
    req.ask.remember = Remember::Command(cmd.into());
    (req, answer)
}

#[test]
fn s_on_a_compound_command_saves_a_rule_for_every_part() {
    let mut a = app();
    let (req, mut answer) = asking("git diff --stat && cargo test --workspace");
    a.update(AppEvent::Approval(req));
    let shown = flat(&a);
    assert!(
        shown.contains("[s] save a rule for each part of the command"),
        "{shown}"
    );
    deliberate(&mut a, key(KeyCode::Char('s')));
    let shown = flat(&a);
    assert!(shown.contains("this command has 2 parts"), "{shown}");
    let effects = deliberate(&mut a, key(KeyCode::Char('2')));
    assert_eq!(answer.try_recv(), Ok(UserChoice::AlwaysAccept));
    let saved: Vec<String> = effects
        .iter()
        .map(|e| match e {
            Effect::Agent(Command::SaveRule(spec)) => spec.describe(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        saved,
        [
            "`run_command match \"git diff *\" → allow`",
            "`run_command match \"cargo test *\" → allow`"
        ]
    );
}

#[test]
fn s_says_why_no_rule_can_be_saved() {
    for (cmd, why) in [
        ("git diff > out.txt", "redirects input or output"),
        ("make && sh -c 'rm x'", "runs other commands"),
    ] {
        let mut a = app();
        let (req, mut answer) = asking(cmd);
        a.update(AppEvent::Approval(req));
        let shown = flat(&a);
        assert!(
            shown.contains("[s] no rule can be saved for this command"),
            "{cmd}: {shown}"
        );
        assert!(shown.contains(why), "{cmd}: {shown}");
        assert!(deliberate(&mut a, key(KeyCode::Char('s'))).is_empty());
        assert!(answer.try_recv().is_err(), "{cmd}: `s` decided nothing");
    }
}

/// A tool block of a call that ran on `unasked`.
fn ran(a: &mut super::app::App, id: &str, unasked: Option<Unasked>) {
    agent(
        a,
        Event::Delta(StreamDelta::ToolCallStarted {
            index: 0,
            id: id.into(),
            name: "run_command".into(),
        }),
    );
    agent(
        a,
        Event::ReplyDone(AssistantMessage {
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "run_command".into(),
                arguments: "{}".into(),
            }],
            ..AssistantMessage::default()
        }),
    );
    agent(
        a,
        Event::ToolStarted {
            call_id: id.into(),
            name: "run_command".into(),
            cmd_string: "git log -3".into(),
            args: json!({}),
            unasked,
        },
    );
}

#[test]
fn a_tool_block_that_ran_unasked_says_why_in_one_dim_line() {
    let mut a = app();
    ran(
        &mut a,
        "c1",
        Some(Unasked::SafeList {
            mode: Mode::Balanced,
        }),
    );
    let shown = render(&a, Instant::now());
    assert!(
        shown.contains("ran unasked: the safe list (balanced mode), in a read-only sandbox"),
        "{shown}"
    );
    let mut a = app();
    ran(&mut a, "c1", None);
    let shown = render(&a, Instant::now());
    assert!(!shown.contains("ran unasked"), "an accepted call: {shown}");
}
