//! Sending from the input box, as the app sees it: what Enter does with commands, paths and
//! `//`, the `/` popup's keys, and the popup on screen.

use std::time::Instant;

use crossterm::event::KeyCode;

use crate::tui::app::{AppEvent, Effect};
use crate::tui::tests_support::*;

fn enter(a: &mut crate::tui::app::App, text: &str) -> Vec<Effect> {
    typed(a, text);
    a.update(key(KeyCode::Enter))
}

#[test]
fn a_message_that_starts_with_a_path_is_sent_and_double_slash_sends_a_slash() {
    let mut a = app();
    assert_eq!(
        enter(&mut a, "/tmp/proj/build.log explain this"),
        [Effect::Send("/tmp/proj/build.log explain this".into())]
    );
    assert_eq!(a.input().text(), "");
    let mut a = app();
    assert_eq!(enter(&mut a, "//help"), [Effect::Send("/help".into())]);
}

#[test]
fn an_unknown_or_ambiguous_command_keeps_the_input() {
    let mut a = app();
    assert!(enter(&mut a, "/frobnicate now").is_empty());
    assert_eq!(a.input().text(), "/frobnicate now");
    assert!(
        a.flash()
            .is_some_and(|f| f.contains("unknown command /frobnicate"))
    );
    let mut a = app();
    typed(&mut a, "/co");
    a.update(key(KeyCode::Esc));
    assert!(!a.input().menu_open(), "Esc closed the popup");
    assert!(a.update(key(KeyCode::Enter)).is_empty());
    assert_eq!(a.input().text(), "/co");
    assert_eq!(
        a.flash(),
        Some("/co could be /copy, /collapse, /context, /compact — type more of it")
    );
}

#[test]
fn esc_closes_the_popup_before_it_stops_a_turn() {
    let mut a = app();
    send(&mut a, "work");
    typed(&mut a, "/mo");
    assert!(a.update(key(KeyCode::Esc)).is_empty(), "not a Stop");
    assert!(!a.input().menu_open());
    assert_eq!(a.update(key(KeyCode::Esc)), [Effect::Stop]);
}

#[test]
fn the_popup_shows_the_matching_commands_with_their_help() {
    let mut a = app();
    typed(&mut a, "/co");
    let screen = render(&a, Instant::now());
    assert!(screen.contains("Commands"), "{screen}");
    assert!(
        screen.contains("/copy [N]") && screen.contains("copy the last reply, or its Nth"),
        "{screen}"
    );
    assert!(screen.contains("/compact [FOCUS]"), "{screen}");
    assert!(!screen.contains("/help "), "only what matches:\n{screen}");
    assert!(
        screen.contains("Tab complete"),
        "the footer says its keys:\n{screen}"
    );
    a.update(key(KeyCode::Down));
    a.update(key(KeyCode::Tab));
    assert_eq!(a.input().text(), "/collapse");
    a.update(AppEvent::Key(crossterm::event::KeyEvent::from(
        KeyCode::Enter,
    )));
    assert!(!render(&a, Instant::now()).contains("Commands"));
}

/// Ctrl+T hides the reasoning (one line says how much) and shows it again; the setting picks
/// where it starts.
#[test]
fn ctrl_t_hides_and_shows_the_reasoning() {
    use crate::events::Event;
    use crate::provider::StreamDelta;
    use crate::tui::strings;

    let thought = "First I read the file.\nThen I run the tests.";
    for start in [true, false] {
        let mut a = app();
        a.set_show_reasoning(start);
        send(&mut a, "go");
        agent(&mut a, Event::Delta(StreamDelta::Reasoning(thought.into())));
        agent(&mut a, Event::Delta(StreamDelta::Text("Answer.".into())));
        let hidden = strings::reasoning_hidden(2);
        for shown in [start, !start, start] {
            assert_eq!(a.show_reasoning(), shown);
            let screen = render(&a, Instant::now());
            assert_eq!(screen.contains("Then I run the tests."), shown, "{screen}");
            assert_eq!(screen.contains(&hidden), !shown, "{screen}");
            assert!(screen.contains("Answer."), "{screen}");
            assert!(a.update(ctrl('t')).is_empty());
            let said = if shown {
                strings::REASONING_HIDDEN
            } else {
                strings::REASONING_SHOWN
            };
            assert_eq!(a.flash(), Some(said));
        }
        // Tab selects the reasoning block only while it is shown.
        a.set_show_reasoning(false);
        a.update(key(KeyCode::Tab));
        assert_eq!(a.flash(), Some(strings::NO_BLOCKS));
        a.set_show_reasoning(true);
        a.update(key(KeyCode::Tab));
        assert!(a.has_selection());
    }
}
