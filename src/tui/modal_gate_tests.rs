//! The approval modal answers only to deliberate keys (issue 18, case 17), with time injected:
//! keys typed ahead are swallowed, reach neither the modal nor the input, and the footer says
//! so; after a pause the same keys answer as before.

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use tokio::sync::oneshot::error::TryRecvError;

use super::app::AppEvent;
use super::strings;
use super::tests_support::*;
use crate::tools::lifecycle::requests::UserChoice;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn thank_you_typed_as_the_modal_appears_chooses_nothing() {
    let mut a = app();
    let t = Instant::now();
    // The user starts typing a reply just before the approval request arrives.
    a.update_at(key(KeyCode::Char('t')), t);
    let (req, mut answer) = request(1, 1, None, None);
    a.update_at(AppEvent::Approval(req), t + ms(30));
    a.frame_drawn(t + ms(40));
    let mut at = t + ms(80);
    for c in "hank you".chars() {
        a.update_at(key(KeyCode::Char(c)), at);
        at += ms(90);
    }
    a.update_at(key(KeyCode::Enter), at);
    assert_eq!(answer.try_recv(), Err(TryRecvError::Empty), "`a` chose");
    assert!(a.modal().is_some());
    assert_eq!(a.input().text(), "t", "swallowed keys went to the input");
    let frame = render(&a, at);
    assert!(frame.contains(strings::KEYS_IGNORED), "{frame}");

    // A pause, then `a` answers as before.
    a.update_at(key(KeyCode::Char('a')), at + ms(300));
    assert_eq!(answer.try_recv(), Ok(UserChoice::AlwaysAccept));
    assert!(a.modal().is_none());
}

#[test]
fn a_key_waits_for_half_a_second_on_screen_and_a_quiet_keyboard() {
    let mut a = app();
    let t = Instant::now();
    let (req, mut answer) = request(1, 1, None, None);
    a.update_at(AppEvent::Approval(req), t);
    // Not drawn yet: not on screen at all.
    a.update_at(key(KeyCode::Char('y')), t + ms(2_000));
    assert_eq!(answer.try_recv(), Err(TryRecvError::Empty));
    a.frame_drawn(t + ms(2_010));
    // On screen 490 ms: too early. Then quiet for only 100 ms: too early again.
    a.update_at(key(KeyCode::Char('y')), t + ms(2_500));
    a.update_at(key(KeyCode::Char('y')), t + ms(2_600));
    assert_eq!(answer.try_recv(), Err(TryRecvError::Empty));
    let frame = render(&a, t + ms(2_600));
    assert!(frame.contains(strings::KEYS_IGNORED), "{frame}");
    // Quiet for 300 ms, on screen for 890 ms: Enter takes the highlighted Accept.
    a.update_at(key(KeyCode::Enter), t + ms(2_900));
    assert_eq!(answer.try_recv(), Ok(UserChoice::Accept));
}

#[test]
fn scrolling_and_moving_the_highlight_are_not_gated_and_typing_a_reason_is_not_either() {
    let mut a = app();
    let t = Instant::now();
    let (req, mut answer) = request(1, 1, None, None);
    a.update_at(AppEvent::Approval(req), t);
    a.frame_drawn(t);
    a.update_at(key(KeyCode::Right), t + ms(10));
    assert_eq!(
        a.modal().map(|m| m.selected),
        Some(2),
        "Right moved to Reject"
    );
    let frame = render(&a, t + ms(10));
    assert!(!frame.contains(strings::KEYS_IGNORED), "{frame}");
    // Enter on Reject, after a pause, opens the reason input; the reason is typed fast.
    a.update_at(key(KeyCode::Enter), t + ms(600));
    let mut at = t + ms(620);
    for c in "no".chars() {
        a.update_at(key(KeyCode::Char(c)), at);
        at += ms(20);
    }
    a.update_at(key(KeyCode::Enter), at);
    assert_eq!(answer.try_recv(), Ok(UserChoice::Reject(Some("no".into()))));
}

#[test]
fn the_next_modal_of_a_batch_starts_its_own_time_on_screen() {
    let mut a = app();
    let t = Instant::now();
    let (r1, mut a1) = request(1, 2, None, None);
    let (r2, mut a2) = request(2, 2, None, None);
    a.update_at(AppEvent::Approval(r1), t);
    a.update_at(AppEvent::Approval(r2), t);
    a.frame_drawn(t);
    a.update_at(key(KeyCode::Char('y')), t + ms(600));
    assert_eq!(a1.try_recv(), Ok(UserChoice::Accept));
    a.frame_drawn(t + ms(616));
    // A `c` 400 ms after the second modal appeared (and 400 ms after the `y`): swallowed.
    a.update_at(key(KeyCode::Char('c')), t + ms(1_000));
    assert_eq!(a2.try_recv(), Err(TryRecvError::Empty));
    a.update_at(key(KeyCode::Char('c')), t + ms(1_400));
    assert_eq!(a2.try_recv(), Ok(UserChoice::Cancel));
}
