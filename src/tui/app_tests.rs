//! The app as the engine sees it: approval requests in, keys pressed, decisions out.

use crossterm::event::KeyCode;
use tokio::sync::oneshot::error::TryRecvError;

use super::app::{AppEvent, Effect};
use super::tests_support::*;
use crate::agent::task::Command;
use crate::agent::{Event, TurnEnd};
use crate::provider::StreamDelta;
use crate::tools::lifecycle::requests::{Remember, UserChoice};
use crate::tools::policy::approval::Mode;
use std::time::Instant;

/// Opens a modal, presses `keys`, returns what the engine was told (if anything).
fn decide(keys: &[AppEvent]) -> Result<UserChoice, TryRecvError> {
    let mut a = app();
    let (req, mut answer) = request(1, 1, None, None);
    a.update(AppEvent::Approval(req));
    for k in keys {
        let k = match k {
            AppEvent::Key(k) => AppEvent::Key(*k),
            _ => unreachable!(),
        };
        deliberate(&mut a, k);
    }
    answer.try_recv()
}

#[test]
fn every_choice_key_sends_its_decision() {
    assert_eq!(
        decide(&[key(KeyCode::Char('a'))]),
        Ok(UserChoice::AlwaysAccept)
    );
    assert_eq!(decide(&[key(KeyCode::Char('y'))]), Ok(UserChoice::Accept));
    assert_eq!(decide(&[key(KeyCode::Char('c'))]), Ok(UserChoice::Cancel));
    assert_eq!(decide(&[key(KeyCode::Esc)]), Ok(UserChoice::Cancel));
    assert_eq!(
        decide(&[key(KeyCode::Char('r')), key(KeyCode::Enter)]),
        Ok(UserChoice::Reject(None))
    );
}

#[test]
fn enter_takes_the_highlighted_choice_accept_first() {
    assert_eq!(decide(&[key(KeyCode::Enter)]), Ok(UserChoice::Accept));
    assert_eq!(
        decide(&[key(KeyCode::Left), key(KeyCode::Enter)]),
        Ok(UserChoice::AlwaysAccept)
    );
    assert_eq!(
        decide(&[
            key(KeyCode::Right),
            key(KeyCode::Right),
            key(KeyCode::Enter)
        ]),
        Ok(UserChoice::Cancel)
    );
    assert_eq!(
        decide(&[
            key(KeyCode::Right),
            key(KeyCode::Enter),
            key(KeyCode::Enter)
        ]),
        Ok(UserChoice::Reject(None)),
        "Enter on Reject opens the reason input; Enter again submits"
    );
    assert_eq!(
        decide(&[key(KeyCode::Left), key(KeyCode::Left), key(KeyCode::Enter)]),
        Ok(UserChoice::AlwaysAccept),
        "the highlight stops at the edge"
    );
}

#[test]
fn a_typed_reason_is_sent_with_the_rejection() {
    let mut keys = vec![key(KeyCode::Char('r'))];
    keys.extend("wrong dir".chars().map(|c| key(KeyCode::Char(c))));
    keys.push(key(KeyCode::Backspace));
    keys.push(key(KeyCode::Char('r')));
    keys.push(key(KeyCode::Enter));
    assert_eq!(
        decide(&keys),
        Ok(UserChoice::Reject(Some("wrong dir".into())))
    );
}

#[test]
fn esc_in_the_reason_input_returns_to_the_choices() {
    // Typing `c` in the reason input is text, not Cancel; Esc goes back, then `y` accepts.
    let keys = [
        key(KeyCode::Char('r')),
        key(KeyCode::Char('c')),
        key(KeyCode::Esc),
        key(KeyCode::Char('y')),
    ];
    assert_eq!(decide(&keys), Ok(UserChoice::Accept));
    let keys = [key(KeyCode::Char('r')), key(KeyCode::Esc)];
    assert_eq!(
        decide(&keys),
        Err(TryRecvError::Empty),
        "nothing decided yet"
    );
}

#[test]
fn only_bare_keys_choose_and_ctrl_c_cancels() {
    use crossterm::event::{KeyEvent, KeyModifiers};
    let chord = |c: char, m: KeyModifiers| AppEvent::Key(KeyEvent::new(KeyCode::Char(c), m));
    for (c, m) in [
        ('a', KeyModifiers::CONTROL),
        ('y', KeyModifiers::CONTROL),
        ('y', KeyModifiers::ALT),
        ('a', KeyModifiers::SUPER),
        ('r', KeyModifiers::CONTROL),
    ] {
        assert_eq!(
            decide(&[chord(c, m)]),
            Err(TryRecvError::Empty),
            "{m:?}+{c} decides nothing"
        );
    }
    assert_eq!(
        decide(&[chord('Y', KeyModifiers::SHIFT)]),
        Ok(UserChoice::Accept)
    );
    assert_eq!(
        decide(&[chord('c', KeyModifiers::CONTROL)]),
        Ok(UserChoice::Cancel)
    );
}

#[test]
fn the_draft_survives_the_modal_and_keys_go_to_the_modal_only() {
    let mut a = app();
    typed(&mut a, "my draft");
    let (req, mut answer) = request(1, 1, None, None);
    let effects = a.update(AppEvent::Approval(req));
    assert_eq!(effects, [Effect::Bell]);
    deliberate(&mut a, key(KeyCode::Char('y')));
    assert_eq!(answer.try_recv(), Ok(UserChoice::Accept));
    assert_eq!(a.input().text(), "my draft");
    assert!(a.modal().is_none());
}

#[test]
fn requests_that_arrive_while_a_modal_is_open_wait_their_turn() {
    let mut a = app();
    let (r1, mut a1) = request(1, 2, None, None);
    let (r2, mut a2) = request(2, 2, None, None);
    a.update(AppEvent::Approval(r1));
    a.update(AppEvent::Approval(r2));
    deliberate(&mut a, key(KeyCode::Char('y')));
    assert_eq!(a1.try_recv(), Ok(UserChoice::Accept));
    assert_eq!(a.modal().map(|m| m.position), Some(2));
    deliberate(&mut a, key(KeyCode::Char('c')));
    assert_eq!(a2.try_recv(), Ok(UserChoice::Cancel));
}

#[test]
fn enter_sends_and_esc_or_ctrl_c_stop_a_running_turn() {
    let mut a = app();
    typed(&mut a, "hello");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Send("hello".into())]
    );
    assert!(a.busy());
    assert_eq!(a.update(key(KeyCode::Esc)), [Effect::Stop]);
    assert_eq!(a.update(ctrl('c')), [Effect::Stop]);
    agent(
        &mut a,
        Event::Delta(StreamDelta::Text("partial answer".into())),
    );
    agent(
        &mut a,
        Event::ReplyInterrupted {
            partial: "partial answer".into(),
        },
    );
    agent(&mut a, Event::TurnEnded(TurnEnd::Stopped));
    assert!(!a.busy());
    assert!(matches!(
        a.entries().last(),
        Some(crate::tui::transcript::Entry::Assistant { interrupted: true, text }) if text == "partial answer"
    ));
}

#[test]
fn ctrl_c_when_idle_clears_then_quits_and_ctrl_d_quits_on_empty_input() {
    let mut a = app();
    typed(&mut a, "oops");
    assert!(a.update(ctrl('c')).is_empty());
    assert_eq!(a.input().text(), "");
    assert_eq!(a.update(ctrl('c')), [Effect::Quit]);
    let mut a = app();
    typed(&mut a, "x");
    assert!(
        a.update(ctrl('d')).is_empty(),
        "Ctrl+D with text does not quit"
    );
    a.update(ctrl('c'));
    assert_eq!(a.update(ctrl('d')), [Effect::Quit]);
}

#[test]
fn slash_commands_toggle_auto_and_reject_unknown_ones_without_sending() {
    let mut a = app();
    typed(&mut a, "/auto");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Agent(Command::SetMode(Mode::Auto))]
    );
    assert_eq!(a.status().mode, Mode::Auto);
    typed(&mut a, "/frobnicate");
    assert!(a.update(key(KeyCode::Enter)).is_empty());
    assert_eq!(
        a.flash(),
        Some("unknown command /frobnicate — /help lists them; //frobnicate sends it as a message")
    );
    assert!(!a.busy());
    assert_eq!(a.input().text(), "/frobnicate", "kept, to be fixed");
    a.input_mut().clear();
    typed(&mut a, "/approvals clear");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Agent(Command::ClearApprovals)]
    );
}

#[test]
fn copy_takes_the_last_reply_or_its_nth_code_block() {
    let mut a = app();
    agent(
        &mut a,
        Event::Delta(StreamDelta::Text(
            "Run:\n\n```sh\nmake\n```\n\nor\n\n```sh\nmake test\n```\n".into(),
        )),
    );
    typed(&mut a, "/copy 2");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Copy("make test\n".into())]
    );
    typed(&mut a, "/copy");
    assert!(
        matches!(a.update(key(KeyCode::Enter)).as_slice(), [Effect::Copy(t)] if t.starts_with("Run:"))
    );
}

#[test]
fn scrolled_up_views_are_not_yanked_down_by_new_output() {
    let mut a = app();
    for i in 0..40 {
        a.transcript_mut().push_user(&format!("message {i}"));
    }
    a.refresh();
    a.update(key(KeyCode::PageUp));
    assert!(!a.chat().following());
    agent(&mut a, Event::Delta(StreamDelta::Text("new text".into())));
    assert!(!a.chat().following());
    assert!(a.chat().new_output);
    a.update(key(KeyCode::End));
    assert!(a.chat().following() && !a.chat().new_output);
}

#[test]
fn only_key_presses_count() {
    let mut a = app();
    let mut release = match key(KeyCode::Char('x')) {
        AppEvent::Key(k) => k,
        _ => unreachable!(),
    };
    release.kind = crossterm::event::KeyEventKind::Release;
    a.update(AppEvent::Key(release));
    assert_eq!(a.input().text(), "");
}

#[test]
fn tab_selects_any_block_on_screen_and_enter_folds_it() {
    let mut a = app();
    a.update(AppEvent::Resize(80, 80));
    finished_tool(&mut a, "c1", 12);
    finished_tool(&mut a, "c2", 12);
    let (first, last) = (0, a.entries().len() - 1);
    assert!(
        a.update(key(KeyCode::Enter)).is_empty(),
        "nothing selected yet"
    );
    a.update(key(KeyCode::Tab));
    assert!(a.has_selection());
    assert!(
        a.update(key(KeyCode::Enter)).is_empty(),
        "Enter folds, sends nothing"
    );
    assert!(a.expanded().contains(&last));
    a.update(key(KeyCode::Tab));
    a.update(key(KeyCode::Enter));
    assert!(
        a.expanded().contains(&first),
        "Tab moved up to the first block"
    );
    a.update(key(KeyCode::BackTab));
    a.update(key(KeyCode::Enter));
    assert!(
        !a.expanded().contains(&last),
        "Shift+Tab back down; Enter folds again"
    );
    let frame = render(&a, std::time::Instant::now());
    assert!(frame.contains("▶ ✓ run_command"), "{frame}");
    a.update(key(KeyCode::Esc));
    assert!(!a.has_selection());
    typed(&mut a, "hi");
    assert_eq!(a.update(key(KeyCode::Enter)), [Effect::Send("hi".into())]);
}

#[test]
fn model_changes_reach_the_agent_also_during_a_turn() {
    let mut a = app();
    send(&mut a, "work");
    assert!(a.busy());
    typed(&mut a, "/model big-model");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Agent(Command::SetModel("big-model".into()))]
    );
    agent(
        &mut a,
        Event::ModelChanged {
            model: "big-model".into(),
        },
    );
    assert_eq!(a.status().model, "big-model");
    typed(&mut a, "/tools");
    assert!(
        a.update(key(KeyCode::Enter)).is_empty(),
        "waits for the turn"
    );
    assert_eq!(a.input().text(), "/tools", "kept, to send again");
    agent(&mut a, Event::TurnEnded(TurnEnd::Completed));
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Agent(Command::ListTools)]
    );
    typed(&mut a, "/clear");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Agent(Command::NewChat)]
    );
    assert!(a.entries().is_empty());
}

#[test]
fn a_reply_that_comes_back_after_a_retry_says_the_retry_worked() {
    let mut a = app();
    agent(
        &mut a,
        Event::Retrying(crate::provider::Retry {
            retry: 1,
            max_retries: 3,
            delay: std::time::Duration::ZERO,
            error: crate::provider::ProviderError::Dropped("cut off".into()),
        }),
    );
    agent(&mut a, Event::Delta(StreamDelta::Text("again".into())));
    assert!(
        a.entries().iter().any(|e| matches!(
            e,
            crate::tui::transcript::Entry::Notice { text } if text.contains("retried (attempt 1/3)")
        )),
        "{:?}",
        a.entries()
    );
}

#[test]
fn s_offers_rules_and_saving_one_accepts_and_asks_the_agent_to_write_it() {
    let mut a = app();
    let (req, mut answer) = request(1, 1, None, None);
    a.update(AppEvent::Approval(req));
    assert!(deliberate(&mut a, key(KeyCode::Char('s'))).is_empty());
    assert_eq!(
        answer.try_recv(),
        Err(TryRecvError::Empty),
        "nothing decided yet"
    );
    // Esc goes back to the four choices; s again, then 2: the prefix rule.
    deliberate(&mut a, key(KeyCode::Esc));
    assert_eq!(
        answer.try_recv(),
        Err(TryRecvError::Empty),
        "Esc only left the rules"
    );
    deliberate(&mut a, key(KeyCode::Char('s')));
    let effects = deliberate(&mut a, key(KeyCode::Char('2')));
    assert_eq!(answer.try_recv(), Ok(UserChoice::AlwaysAccept));
    let [Effect::Agent(Command::SaveRule(spec))] = effects.as_slice() else {
        panic!("{effects:?}")
    };
    assert_eq!(
        spec.describe(),
        "`run_command match \"cargo test *\" → allow`"
    );
}

/// The rerun outside the sandbox offers `s` too: the rules lift what was denied (the sandbox
/// for a write, the network for a connection), the exact command first; saving one accepts
/// the rerun (which remembers nothing itself).
#[test]
fn s_on_a_rerun_offers_the_rule_that_would_have_run_the_command() {
    use crate::sandbox::{Denial, DenialKind};
    for (kind, words) in [
        (DenialKind::Write, ", sandbox = false"),
        (DenialKind::Network, ", network = true"),
    ] {
        let mut a = app();
        let (mut req, mut answer) = request(1, 1, None, None);
        req.ask.remember = Remember::Nothing;
        req.ask.rerun = Some(Denial {
            what: "a write to /elsewhere/x".into(),
            kind,
            path: None,
            address: None,
        });
        a.update(AppEvent::Approval(req));
        let text = render(&a, Instant::now());
        assert!(text.contains("[s] save a rule"), "{text}");
        deliberate(&mut a, key(KeyCode::Char('s')));
        let text = render(&a, Instant::now());
        assert!(text.contains("then run it again outside the"), "{text}");
        let effects = deliberate(&mut a, key(KeyCode::Enter));
        assert_eq!(answer.try_recv(), Ok(UserChoice::AlwaysAccept));
        let [Effect::Agent(Command::SaveRule(spec))] = effects.as_slice() else {
            panic!("{effects:?}")
        };
        assert_eq!(
            spec.describe(),
            format!("`run_command match \"cargo test --workspace\" → allow{words}`")
        );
    }
}

#[test]
fn mode_switches_and_auto_returns_to_the_mode_before() {
    let mut a = app();
    typed(&mut a, "/mode strict");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Agent(Command::SetMode(Mode::Strict))]
    );
    assert_eq!(a.mode_label(), " STRICT ");
    typed(&mut a, "/auto");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Agent(Command::SetMode(Mode::Auto))]
    );
    typed(&mut a, "/auto");
    assert_eq!(
        a.update(key(KeyCode::Enter)),
        [Effect::Agent(Command::SetMode(Mode::Strict))],
        "back to strict, not balanced"
    );
    typed(&mut a, "/mode YOLO");
    assert!(a.update(key(KeyCode::Enter)).is_empty());
    assert_eq!(
        a.flash(),
        Some("no mode `YOLO`: trust, auto, balanced, suggest or strict")
    );
    assert_eq!(a.status().mode, Mode::Strict);
    // Without a name: the modes, the current one marked.
    typed(&mut a, "/mode");
    assert!(a.update(key(KeyCode::Enter)).is_empty());
}

#[test]
fn the_render_cache_keeps_a_few_screens_and_renders_forgotten_entries_again() {
    let mut a = app();
    a.update(AppEvent::Resize(100, 30));
    for i in 0..3000 {
        a.transcript_mut()
            .push_user(&format!("message {i}\nsecond line of {i}"));
    }
    a.refresh();
    let now = std::time::Instant::now();
    render(&a, now);
    // Scroll from the end to the top a page at a time: every entry is drawn once.
    let mut pages = 0;
    while !render(&a, now).contains("› message 0 ") {
        a.update(key(KeyCode::PageUp));
        pages += 1;
        assert!(pages < 3000, "never reached the top");
    }
    let budget = (super::chat_view::CACHE_SCREENS * 30).max(2_000);
    assert!(
        a.chat().cached_lines() <= budget,
        "{} lines cached after scrolling through 3,000 entries (budget {budget})",
        a.chat().cached_lines()
    );
    // The end was forgotten on the way up; it is drawn again, the same.
    let first = render(&a, now);
    a.update(key(KeyCode::End));
    let end = render(&a, now);
    assert!(end.contains("message 2999"), "{end}");
    assert!(end.contains("second line of 2999"), "{end}");
    a.update(key(KeyCode::Home));
    assert_eq!(render(&a, now), first);
}
