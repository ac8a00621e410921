//! Typing during a turn, as the app sees it: Enter queues, Alt+Enter queues for the turn's
//! end, Up takes the last back, Esc and Ctrl+U drop a taken-back one (and only then does Esc
//! not stop the turn), the turn's end sends the next, a stop puts them back into the input.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};

use crate::agent::steer::{Delivery, Queued, Steer};
use crate::events::{Event, TurnEnd};
use crate::tui::app::{App, AppEvent, Effect};
use crate::tui::tests_support::*;

fn alt_enter() -> AppEvent {
    AppEvent::Key(KeyEvent {
        code: KeyCode::Enter,
        modifiers: KeyModifiers::ALT,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    })
}

/// An app busy with a turn, sharing `steer`.
fn busy(default: Delivery) -> (App, Steer) {
    let mut a = app();
    let steer = Steer::default();
    a.set_steer(steer.clone(), default);
    send(&mut a, "work");
    assert!(a.busy());
    (a, steer)
}

fn q(text: &str, delivery: Delivery) -> Queued {
    Queued {
        text: text.into(),
        delivery,
    }
}

#[test]
fn enter_during_a_turn_queues_and_alt_enter_queues_for_the_turn_end() {
    use Delivery::*;
    // (setting, Enter's delivery, Alt+Enter's)
    for (default, enter, alt) in [
        (NextRequest, NextRequest, TurnEnd),
        (TurnEnd, TurnEnd, NextRequest),
    ] {
        let (mut a, steer) = busy(default);
        typed(&mut a, "also check the docs");
        assert!(a.update(key(KeyCode::Enter)).is_empty(), "nothing sent yet");
        typed(&mut a, "then commit");
        assert!(a.update(alt_enter()).is_empty());
        assert_eq!(a.input().text(), "", "the input is free again");
        assert_eq!(a.flash(), None, "no refusal");
        assert_eq!(
            steer.snapshot(),
            [q("also check the docs", enter), q("then commit", alt)]
        );
        assert_eq!(a.queue().rows(), 3, "two lines and the hint");
    }
}

#[test]
fn when_idle_alt_enter_is_still_a_newline() {
    let mut a = app();
    typed(&mut a, "one");
    assert!(a.update(alt_enter()).is_empty());
    assert_eq!(a.input().text(), "one\n");
}

#[test]
fn up_takes_the_last_back_and_esc_or_ctrl_u_drops_it_before_esc_stops_the_turn() {
    for (name, drop) in [("Esc", key(KeyCode::Esc)), ("Ctrl+U", ctrl('u'))] {
        let (mut a, steer) = busy(Delivery::NextRequest);
        for t in ["first", "second"] {
            typed(&mut a, t);
            a.update(key(KeyCode::Enter));
        }
        a.update(key(KeyCode::Up));
        assert_eq!(a.input().text(), "second", "taken back to edit");
        assert_eq!(steer.snapshot(), [q("first", Delivery::NextRequest)]);
        assert!(a.update(drop).is_empty(), "{name} drops, it does not stop");
        assert_eq!(a.input().text(), "");
        assert_eq!(steer.snapshot(), [q("first", Delivery::NextRequest)]);
        assert_eq!(a.update(key(KeyCode::Esc)), [Effect::Stop], "now Esc stops");
    }
}

#[test]
fn an_edited_message_goes_back_to_the_end_of_the_queue() {
    let (mut a, steer) = busy(Delivery::NextRequest);
    typed(&mut a, "teh fix");
    a.update(alt_enter());
    a.update(key(KeyCode::Up));
    a.update(key(KeyCode::Home));
    a.update(ctrl('k'));
    typed(&mut a, "the fix");
    a.update(key(KeyCode::Enter));
    assert_eq!(steer.snapshot(), [q("the fix", Delivery::TurnEnd)]);
}

#[test]
fn the_turn_end_sends_the_next_and_a_stop_puts_them_back_into_the_input() {
    let (mut a, steer) = busy(Delivery::NextRequest);
    for t in ["one", "two"] {
        typed(&mut a, t);
        a.update(key(KeyCode::Enter));
    }
    let fx = a.update(AppEvent::Agent(Event::TurnEnded(TurnEnd::Completed)));
    assert!(fx.contains(&Effect::Send("one".into())), "{fx:?}");
    assert!(a.busy(), "the next turn runs");
    assert_eq!(
        steer.for_request(),
        ["two"],
        "joins that turn's first request"
    );

    let (mut a, steer) = busy(Delivery::NextRequest);
    for t in ["one", "two"] {
        typed(&mut a, t);
        a.update(key(KeyCode::Enter));
    }
    typed(&mut a, "half typed");
    assert_eq!(a.update(key(KeyCode::Esc)), [Effect::Stop]);
    let fx = a.update(AppEvent::Agent(Event::TurnEnded(TurnEnd::Stopped)));
    assert!(!fx.iter().any(|e| matches!(e, Effect::Send(_))), "{fx:?}");
    assert_eq!(a.input().text(), "one\ntwo\nhalf typed");
    assert!(steer.is_empty());
    assert!(!a.busy());
}

#[test]
fn the_queue_shows_above_the_input_dim_with_its_hint() {
    let (mut a, _steer) = busy(Delivery::NextRequest);
    typed(&mut a, "also run clippy");
    a.update(key(KeyCode::Enter));
    typed(&mut a, "then commit\nwith a message");
    a.update(alt_enter());
    insta::assert_snapshot!(render(&a, std::time::Instant::now()));
}
