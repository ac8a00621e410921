//! Tests of the parent module: a change in a tool block (coloured, folded, unfolded) and the
//! `/diff` block.

use std::time::Instant;

use pretty_assertions::assert_eq;
use ratatui::style::Style;
use serde_json::json;

use super::line_style;
use crate::events::{CallEnd, ChangeKind, Event, FileChange};
use crate::provider::{AssistantMessage, StreamDelta, ToolCall};
use crate::tools::builtin::create_file::unified_diff;
use crate::tui::app::AppEvent;
use crate::tui::entry_lines::{Facts, entry_lines};
use crate::tui::tests_support::{agent, app, render, send};
use crate::tui::theme::Theme;

/// A finished `create_file` call whose change is `content`'s lines.
fn created(a: &mut crate::tui::app::App, path: &str, content: &str) {
    let id = format!("c-{path}");
    agent(
        a,
        Event::Delta(StreamDelta::ToolCallStarted {
            index: 0,
            id: id.clone(),
            name: "create_file".into(),
        }),
    );
    agent(
        a,
        Event::ReplyDone(AssistantMessage {
            tool_calls: vec![ToolCall {
                id: id.clone(),
                name: "create_file".into(),
                arguments: "{}".into(),
            }],
            ..AssistantMessage::default()
        }),
    );
    agent(
        a,
        Event::ToolStarted {
            call_id: id.clone(),
            name: "create_file".into(),
            cmd_string: format!("create_file {path}"),
            args: json!({}),
            unasked: None,
        },
    );
    let lines = content.lines().count();
    agent(
        a,
        Event::ToolOutput {
            call_id: id.clone(),
            name: "create_file".into(),
            content: format!("Created {path} ({lines} lines)"),
            display: None,
        },
    );
    agent(
        a,
        Event::FileChanged {
            call_id: id.clone(),
            name: "create_file".into(),
            change: FileChange::new(
                path,
                &format!("/nowhere/{path}"),
                ChangeKind::Created,
                unified_diff(path, "", content),
            ),
        },
    );
    agent(
        a,
        Event::ToolFinished {
            call_id: id,
            name: "create_file".into(),
            end: CallEnd::Success,
        },
    );
}

#[test]
fn a_long_diff_is_folded_to_its_first_lines_and_unfolds() {
    let mut a = app();
    let body: String = (1..=30).map(|i| format!("row {i}\n")).collect();
    created(&mut a, "rows.txt", &body);
    a.update(AppEvent::Resize(80, 60));
    let now = Instant::now();
    let folded = render(&a, now);
    assert!(folded.contains("+row 11"), "{folded}");
    assert!(!folded.contains("+row 12"), "{folded}");
    // 12 lines shown: the hunk header and 11 rows; 19 more.
    assert!(
        folded.contains("… 19 more diff lines (Tab to expand)"),
        "{folded}"
    );
    send(&mut a, "/expand");
    let open = render(&a, now);
    assert!(open.contains("+row 30"), "{open}");
    assert!(!open.contains("more diff lines"), "{open}");
}

#[test]
fn a_short_diff_is_shown_whole_in_the_modals_colours() {
    let mut a = app();
    created(&mut a, "notes.md", "first line\nsecond line\n");
    let theme = Theme::dark();
    let facts = Facts {
        theme: &theme,
        width: 80,
        expanded: false,
        selected: false,
        elapsed: None,
        show_reasoning: true,
    };
    let lines: Vec<(String, Style)> = entry_lines(&a.entries()[0], &facts)
        .into_iter()
        .map(|l| {
            let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
            (text, l.spans.last().map(|s| s.style).unwrap_or_default())
        })
        .collect();
    let body: Vec<(&str, Style)> = lines[1..].iter().map(|(t, s)| (t.as_str(), *s)).collect();
    assert_eq!(
        body,
        [
            ("  Created notes.md (2 lines)", theme.text),
            ("  @@ -0,0 +1,2 @@", theme.diff_hunk),
            ("  +first line", theme.diff_add),
            ("  +second line", theme.diff_add),
            ("", Style::default()),
        ]
    );
    assert_eq!(line_style(&theme, "-gone"), theme.diff_del);
    assert_eq!(line_style(&theme, "--- a/x"), theme.diff_header);
}

#[test]
fn slash_diff_without_changes_says_so_and_with_one_shows_it_unfolded() {
    let mut a = app();
    send(&mut a, "/diff");
    let screen = render(&a, Instant::now());
    assert!(screen.contains("no changes yet"), "{screen}");
    let body: String = (1..=30).map(|i| format!("row {i}\n")).collect();
    created(&mut a, "rows.txt", &body);
    send(&mut a, "/diff");
    a.update(AppEvent::Resize(80, 80));
    let screen = render(&a, Instant::now());
    // The file is gone from disk since: the one change is shown as made.
    assert!(screen.contains("rows.txt — created (+30)"), "{screen}");
    assert!(screen.contains("+row 30"), "{screen}");
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_device_where_the_file_was_is_not_read() {
    use super::combine::Now;
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("edited.txt");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // Opening a FIFO for reading would wait for a writer: it must be refused at once.
    assert!(matches!(
        super::read_now(fifo.to_str().unwrap()),
        Now::Unreadable(_)
    ));
    let zero = dir.path().join("zero.txt");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    assert!(matches!(
        super::read_now(zero.to_str().unwrap()),
        Now::Unreadable(_)
    ));
    let text = dir.path().join("text.txt");
    std::fs::write(&text, "one\n").unwrap();
    assert!(matches!(super::read_now(text.to_str().unwrap()), Now::Text(t) if t == "one\n"));
}
