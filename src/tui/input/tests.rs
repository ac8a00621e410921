//! The input box's keys: sending, newlines, history, completion, the popup, readline editing.

use super::*;
use crossterm::event::{KeyEventKind, KeyEventState};
use ratatui_textarea::CursorMove;

fn key(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
    KeyEvent {
        code,
        modifiers: mods,
        kind: KeyEventKind::Press,
        state: KeyEventState::NONE,
    }
}

fn typed(c: &mut Composer, s: &str) {
    for ch in s.chars() {
        c.handle_key(key(KeyCode::Char(ch), KeyModifiers::NONE));
    }
}

#[test]
fn enter_sends_and_modified_enters_insert_newlines() {
    let mut c = Composer::new();
    typed(&mut c, "a");
    assert_eq!(
        c.handle_key(key(KeyCode::Enter, KeyModifiers::ALT)),
        InputOutcome::Edited
    );
    typed(&mut c, "b");
    c.handle_key(key(KeyCode::Enter, KeyModifiers::SHIFT));
    typed(&mut c, "c");
    c.handle_key(key(KeyCode::Char('j'), KeyModifiers::CONTROL));
    typed(&mut c, "d");
    assert_eq!(
        c.handle_key(key(KeyCode::Enter, KeyModifiers::NONE)),
        InputOutcome::Submit("a\nb\nc\nd".into())
    );
}

#[test]
fn paste_inserts_newlines_without_sending() {
    let mut c = Composer::new();
    c.paste("line one\r\nline two\rthree");
    assert_eq!(c.text(), "line one\nline two\nthree");
}

#[test]
fn up_and_down_walk_the_history_only_from_an_empty_or_recalled_input() {
    let mut c = Composer::new();
    c.remember("first");
    c.remember("second");
    c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
    assert_eq!(c.text(), "second");
    c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
    assert_eq!(c.text(), "first");
    c.handle_key(key(KeyCode::Down, KeyModifiers::NONE));
    assert_eq!(c.text(), "second");
    c.handle_key(key(KeyCode::Down, KeyModifiers::NONE));
    assert_eq!(c.text(), "");
    typed(&mut c, "draft");
    c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
    assert_eq!(c.text(), "draft", "a draft is not replaced by history");
}

#[test]
fn tab_completes_mentions() {
    let mut c = Composer::new();
    c.mentions = vec!["read_file".into(), "run_command".into(), "files".into()];
    typed(&mut c, "please @{ru");
    c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(c.text(), "please @{run_command}");
    let mut c = Composer::new();
    c.mentions = vec!["read_file".into(), "run_command".into()];
    typed(&mut c, "@{r");
    c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(c.text(), "@{r", "ambiguous, no longer common prefix");
}

#[test]
fn the_popup_completes_the_highlighted_command_and_enter_runs_it() {
    let mut c = Composer::new();
    typed(&mut c, "/res");
    let menu = c.menu().expect("open on a command prefix");
    assert_eq!(menu.items[0].name, "/resume");
    c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(c.text(), "/resume ", "it takes an argument: a space for it");
    assert!(c.menu().is_none(), "closed once an argument follows");

    let mut c = Composer::new();
    typed(&mut c, "/mo");
    c.handle_key(key(KeyCode::Down, KeyModifiers::NONE));
    assert_eq!(c.text(), "/mo", "Down moves the highlight, not the history");
    c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(c.text(), "/mode ", "the second match, highlighted");

    let mut c = Composer::new();
    typed(&mut c, "/he");
    assert_eq!(
        c.handle_key(key(KeyCode::Enter, KeyModifiers::NONE)),
        InputOutcome::Submit("/help".into())
    );

    // Closed (Esc), Tab falls back to the common prefix.
    let mut c = Composer::new();
    typed(&mut c, "/mo");
    c.close_menu();
    assert!(c.menu().is_none());
    c.handle_key(key(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(c.text(), "/mode", "the common prefix of /mode and /model");
    typed(&mut c, "l");
    assert!(c.menu().is_some(), "an edit opens it again");
}

#[test]
fn a_recalled_command_does_not_open_the_popup() {
    let mut c = Composer::new();
    c.remember("older");
    c.remember("/help");
    c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
    assert_eq!(c.text(), "/help");
    assert!(c.menu().is_none());
    c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
    assert_eq!(c.text(), "older", "Up still walks the history");
}

fn ctrl(c: &mut Composer, ch: char) -> InputOutcome {
    c.handle_key(key(KeyCode::Char(ch), KeyModifiers::CONTROL))
}

fn alt(c: &mut Composer, code: KeyCode) -> InputOutcome {
    c.handle_key(key(code, KeyModifiers::ALT))
}

fn cursor(c: &Composer) -> (usize, usize) {
    (c.area.cursor().0, c.area.cursor().1)
}

#[test]
fn ctrl_u_and_ctrl_k_kill_within_the_cursors_line_and_ctrl_y_yanks() {
    let mut c = Composer::new();
    c.set_text("first line\nsecond line");
    c.area.move_cursor(CursorMove::Jump(1, 6));
    assert_eq!(ctrl(&mut c, 'u'), InputOutcome::Edited);
    assert_eq!(c.text(), "first line\n line");
    assert_eq!(cursor(&c), (1, 0));
    assert_eq!(
        ctrl(&mut c, 'u'),
        InputOutcome::Ignored,
        "at the line start"
    );
    assert_eq!(c.text(), "first line\n line", "the line above stays");
    c.handle_key(key(KeyCode::Up, KeyModifiers::NONE));
    ctrl(&mut c, 'e');
    assert_eq!(cursor(&c), (0, 10));
    assert_eq!(ctrl(&mut c, 'k'), InputOutcome::Ignored, "at the line end");
    ctrl(&mut c, 'a');
    assert_eq!(cursor(&c), (0, 0));
    alt(&mut c, KeyCode::Char('f'));
    assert_eq!(cursor(&c), (0, 5));
    ctrl(&mut c, 'k');
    assert_eq!(c.text(), "first\n line");
    ctrl(&mut c, 'a');
    ctrl(&mut c, 'y');
    assert_eq!(c.text(), " linefirst\n line", "the last kill: \" line\"");
}

#[test]
fn kills_in_a_row_add_up_and_undo_goes_back_one_edit() {
    let mut c = Composer::new();
    typed(&mut c, "explain /tmp/proj/build.log now");
    ctrl(&mut c, 'w');
    assert_eq!(c.text(), "explain /tmp/proj/build.log ");
    ctrl(&mut c, 'w');
    assert_eq!(c.text(), "explain ", "Ctrl+W takes the whole path");
    ctrl(&mut c, 'y');
    assert_eq!(c.text(), "explain /tmp/proj/build.log now", "both kills");
    // Ctrl+Z and the forms of Ctrl+_ undo: the yank, then each kill.
    ctrl(&mut c, 'z');
    assert_eq!(c.text(), "explain ");
    ctrl(&mut c, '7');
    assert_eq!(c.text(), "explain /tmp/proj/build.log ");
    c.handle_key(key(KeyCode::Char('/'), KeyModifiers::CONTROL));
    assert_eq!(c.text(), "explain /tmp/proj/build.log now");

    let mut c = Composer::new();
    typed(&mut c, "one two three");
    alt(&mut c, KeyCode::Char('b'));
    alt(&mut c, KeyCode::Char('b'));
    assert_eq!(cursor(&c), (0, 4));
    alt(&mut c, KeyCode::Char('d'));
    assert_eq!(c.text(), "one  three");
    c.handle_key(key(KeyCode::End, KeyModifiers::NONE));
    alt(&mut c, KeyCode::Backspace);
    assert_eq!(c.text(), "one  ");
    ctrl(&mut c, 'a');
    ctrl(&mut c, 'y');
    assert_eq!(
        c.text(),
        "threeone  ",
        "a move in between: the last kill alone"
    );
}
