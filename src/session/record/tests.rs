use std::time::Duration;

use serde_json::json;

use super::*;
use crate::events::{CallEnd, ChangeKind, FileChange, TurnEnd, UserChoice};
use crate::provider::{AssistantMessage, ProviderError, Retry, ToolCall};

/// One event of every saved kind, each with what a real chat puts in it.
fn saved_events() -> Vec<Event> {
    vec![
        Event::UserMessage {
            text: "hi @{notes}".into(),
            sent: "hi notes".into(),
        },
        Event::ToolsAdded {
            names: vec!["notes__write".into()],
        },
        Event::Retrying(Retry {
            retry: 2,
            max_retries: 4,
            delay: Duration::from_millis(1500),
            error: ProviderError::Status {
                status: 503,
                message: "busy".into(),
                retry_after: Some(Duration::from_secs(1)),
            },
        }),
        Event::ReplyDone(AssistantMessage {
            content: "ok".into(),
            tool_calls: vec![ToolCall {
                id: "c1".into(),
                name: "run_command".into(),
                arguments: "{}".into(),
            }],
            ..AssistantMessage::default()
        }),
        Event::ReplyInterrupted {
            partial: "Hel".into(),
        },
        Event::ApprovalDecided {
            call_id: "c1".into(),
            name: "run_command".into(),
            choice: UserChoice::Reject(Some("use make".into())),
        },
        Event::JudgeFinished {
            call_id: "c1".into(),
            name: "run_command".into(),
            safe: true,
            reason: "reads only".into(),
        },
        Event::ToolStarted {
            call_id: "c1".into(),
            name: "run_command".into(),
            cmd_string: "ls".into(),
            args: serde_json::Value::Null,
            unasked: None,
        },
        Event::ToolOutput {
            call_id: "c1".into(),
            name: "read_file".into(),
            content: "the file".into(),
            display: Some("Read a (3 lines)".into()),
        },
        Event::FileChanged {
            call_id: "c1".into(),
            name: "edit_file".into(),
            change: FileChange::new(
                "a.txt",
                "/w/a.txt",
                ChangeKind::Edited,
                "@@ -1 +1 @@\n-a\n+b\n".into(),
            ),
        },
        Event::Checkpoint(crate::checkpoint::Checkpoint {
            turn: 1,
            call_id: "c1".into(),
            manifest: crate::checkpoint::ObjectId::of(b"manifest"),
            paths: vec!["a.txt".into()],
            pending: false,
            unrecoverable: vec![],
            cap_reached: false,
        }),
        Event::Undo(crate::checkpoint::Undo {
            action: crate::checkpoint::UndoAction::Undo,
            turns: vec![1],
            restored: vec!["a.txt".into()],
            conflicts: vec![],
        }),
        Event::ToolFinished {
            call_id: "c1".into(),
            name: "run_command".into(),
            end: CallEnd::Rejected,
        },
        Event::Remembered {
            tool: "run_command".into(),
            command: Some("ls".into()),
            mode: Some(Mode::Balanced),
            judge: true,
        },
        Event::ModelChanged { model: "m2".into() },
        Event::ModeChanged { mode: Mode::Auto },
        Event::Context {
            used: 10,
            window: 100,
            source: "config".into(),
            estimated: true,
            ratio: 3.5,
        },
        Event::Compacted {
            summary: "we talked".into(),
            before: 90,
            after: 10,
            tail: 2,
        },
        Event::TurnEnded(TurnEnd::MaxTurns(3)),
    ]
}

fn line(r: &Record) -> String {
    serde_json::to_string(r).unwrap()
}

fn read(line: &str) -> Record {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"))
}

#[test]
fn every_saved_event_reads_back_as_itself_under_a_known_tag() {
    let mut tags = vec!["session", "text", "reasoning"];
    for e in saved_events() {
        let r = Record::from_event(&e).unwrap_or_else(|| panic!("not saved: {e:?}"));
        let l = line(&r);
        let v: serde_json::Value = serde_json::from_str(&l).unwrap();
        let tag = v["t"].as_str().unwrap().to_owned();
        assert!(KINDS.contains(&tag.as_str()), "{tag} not in KINDS");
        tags.push(KINDS[KINDS.iter().position(|k| *k == tag).unwrap()]);
        assert_eq!(read(&l), r, "{l}");
    }
    tags.sort_unstable();
    let mut kinds = KINDS.to_vec();
    kinds.sort_unstable();
    assert_eq!(tags, kinds, "KINDS is exactly the tags written");
}

#[test]
fn every_turn_end_and_choice_is_typed_in_the_file() {
    let ends = [
        TurnEnd::Completed,
        TurnEnd::Cancelled,
        TurnEnd::Stopped,
        TurnEnd::MaxTurns(7),
        TurnEnd::LengthLimit,
        TurnEnd::Failed(ProviderError::Dropped("eof".into())),
        TurnEnd::Repeated {
            tool: "t".into(),
            times: 3,
        },
    ];
    for end in ends {
        let r = Record::Event(Event::TurnEnded(end));
        assert_eq!(read(&line(&r)), r);
    }
    assert_eq!(
        line(&Record::Event(Event::TurnEnded(TurnEnd::MaxTurns(7)))),
        r#"{"t":"turn_end","end":"max_turns","detail":7}"#
    );
    for choice in [
        UserChoice::AlwaysAccept,
        UserChoice::Accept,
        UserChoice::Reject(None),
        UserChoice::Reject(Some("no".into())),
        UserChoice::Cancel,
    ] {
        let r = Record::Event(Event::ApprovalDecided {
            call_id: "c".into(),
            name: "n".into(),
            choice,
        });
        assert_eq!(read(&line(&r)), r);
    }
}

/// The lines sayso wrote in format 1 (the record spellings before this one), read as the
/// events they were.
#[test]
fn format_1_lines_read_as_the_events_they_were() {
    let rows: Vec<(serde_json::Value, Event)> = vec![
        (
            json!({"t": "approval", "call_id": "c1", "name": "run_command", "choice": "reject", "reason": "use make"}),
            Event::ApprovalDecided {
                call_id: "c1".into(),
                name: "run_command".into(),
                choice: UserChoice::Reject(Some("use make".into())),
            },
        ),
        (
            json!({"t": "approval", "call_id": "c1", "name": "run_command", "choice": "always_accept", "reason": null}),
            Event::ApprovalDecided {
                call_id: "c1".into(),
                name: "run_command".into(),
                choice: UserChoice::AlwaysAccept,
            },
        ),
        (
            json!({"t": "turn_end", "end": "completed", "message": null}),
            Event::TurnEnded(TurnEnd::Completed),
        ),
        (
            json!({"t": "turn_end", "end": "interrupted", "message": "interrupted"}),
            Event::TurnEnded(TurnEnd::Stopped),
        ),
        (
            json!({"t": "turn_end", "end": "failed", "message": "stopped after 2 model round-trips (--max-turns) without a final answer"}),
            Event::TurnEnded(TurnEnd::MaxTurns(2)),
        ),
        (
            json!({"t": "turn_end", "end": "failed", "message": "the tool calls were cancelled"}),
            Event::TurnEnded(TurnEnd::Cancelled),
        ),
        (
            json!({"t": "retry", "error": "the server answered 503: busy"}),
            Event::Retrying(Retry {
                retry: 0,
                max_retries: 0,
                delay: Duration::ZERO,
                error: ProviderError::Recorded("the server answered 503: busy".into()),
            }),
        ),
        (
            json!({"t": "tool_started", "call_id": "c1", "name": "run_command", "cmd_string": "ls"}),
            Event::ToolStarted {
                call_id: "c1".into(),
                name: "run_command".into(),
                cmd_string: "ls".into(),
                args: serde_json::Value::Null,
                unasked: None,
            },
        ),
    ];
    for (old, event) in rows {
        assert_eq!(read(&old.to_string()), Record::Event(event), "{old}");
    }
}

#[test]
fn an_unknown_kind_is_kept_apart_and_a_broken_known_one_is_an_error() {
    assert_eq!(read(r#"{"t":"hologram","x":1}"#), Record::Unknown);
    assert!(serde_json::from_str::<Record>(r#"{"t":"user","text":1}"#).is_err());
    assert!(serde_json::from_str::<Record>(r#"{"t":"turn_end","end":"sideways"}"#).is_err());
    assert!(serde_json::from_str::<Record>(r#"{"x":1}"#).is_err());
}

#[test]
fn a_reply_replays_its_calls_then_itself_and_deltas_are_text_records() {
    let reply = saved_events().swap_remove(3);
    let events = Record::from_event(&reply).unwrap().into_events();
    assert!(matches!(
        &events[..],
        [Event::Delta(StreamDelta::ToolCallStarted { index: 0, id, .. }), Event::ReplyDone(_)] if id == "c1"
    ));
    assert_eq!(
        Record::from_event(&Event::Delta(StreamDelta::Text("a".into()))),
        Some(Record::Text { s: "a".into() })
    );
    assert_eq!(Record::from_event(&Event::ToolsFinished), None);
    assert_eq!(
        Record::from_event(&Event::Notice(crate::events::Notice::Banner("x".into()))),
        None
    );
}
