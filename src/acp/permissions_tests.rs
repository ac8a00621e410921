use agent_client_protocol::v1::schema::{
    PermissionOptionKind, RequestPermissionOutcome, RequestPermissionResponse,
    SelectedPermissionOutcome,
};
use serde_json::{Value, json};

use super::*;
use crate::sandbox::Denial;

fn ask(remember: Remember, rerun: bool) -> Ask {
    Ask {
        call_id: "c1".into(),
        tool: "run_command".into(),
        cmd_string: "touch made".into(),
        prompt: "Run?".into(),
        args: Value::Null,
        preview: None,
        judge_reason: None,
        caution: None,
        position: 1,
        total: 1,
        remember,
        rerun: rerun.then(|| Denial {
            what: "a network connection".into(),
            kind: crate::sandbox::DenialKind::Network,
            path: None,
            address: None,
        }),
    }
}

fn ids(ask: &Ask) -> Vec<(String, String, PermissionOptionKind)> {
    options(ask)
        .into_iter()
        .map(|o| (o.option_id.0.to_string(), o.name, o.kind))
        .collect()
}

#[test]
fn the_options_say_what_always_remembers_and_are_offered_only_where_it_does() {
    use PermissionOptionKind::*;
    let row = |id: &str, name: &str, kind| (id.to_owned(), name.to_owned(), kind);
    assert_eq!(
        ids(&ask(Remember::Command("touch made".into()), false)),
        [
            row(ALLOW_ONCE, "Allow once", AllowOnce),
            row(
                ALLOW_ALWAYS,
                "Always allow the command `touch made` in this chat",
                AllowAlways
            ),
            row(REJECT, "Reject", RejectOnce),
        ]
    );
    assert_eq!(
        ids(&ask(Remember::Tool("fetch_webpage".into()), false))[1].1,
        "Always allow `fetch_webpage` in this chat"
    );
    assert_eq!(
        ids(&ask(
            Remember::Call {
                key: "k".into(),
                display: "edit a.rs".into()
            },
            false
        ))[1]
            .1,
        "Always allow `edit a.rs` in this chat"
    );
    // A protected path asks every time: no "always".
    assert_eq!(
        ids(&ask(Remember::Nothing, false)),
        [
            row(ALLOW_ONCE, "Allow once", AllowOnce),
            row(REJECT, "Reject", RejectOnce),
        ]
    );
    // The rerun outside the sandbox is once or not at all.
    assert_eq!(
        ids(&ask(Remember::Nothing, true)),
        [
            row(ALLOW_ONCE, "Rerun once outside the sandbox", AllowOnce),
            row(REJECT, "Keep the failure", RejectOnce),
        ]
    );
}

#[test]
fn a_command_cannot_lay_out_a_label_that_reads_like_another_option() {
    let label = |c: &str| ids(&ask(Remember::Command(c.into()), false))[1].1.clone();
    // A newline (or a carriage return) would put "Reject" on a line of its own.
    assert_eq!(
        label("ls\n\nReject"),
        "Always allow the command `ls\\n\\nReject` in this chat"
    );
    assert_eq!(
        label("a\rb\tc"),
        "Always allow the command `a\\rb\\tc` in this chat"
    );
    // Bidi controls and other controls are shown, not applied.
    assert_eq!(
        label("rm \u{202E}fdp.exe\u{1b}[2J"),
        "Always allow the command `rm ⟨U+202E⟩fdp.exe⟨U+001B⟩[2J` in this chat"
    );
    // A long command is cut, so the label stays one short line that starts with its kind.
    let long = "x".repeat(500);
    let got = label(&long);
    assert!(got.starts_with("Always allow the command `xxx"), "{got}");
    assert!(got.contains(&format!("{}…`", "x".repeat(80))), "{got}");
    assert!(got.chars().count() <= 121, "{got}");
}

fn selected(id: &str, meta: Option<Value>) -> Outcome {
    let mut s = SelectedPermissionOutcome::new(id.to_owned());
    s.meta = meta.and_then(|m| m.as_object().cloned());
    Outcome::Answered(RequestPermissionResponse::new(
        RequestPermissionOutcome::Selected(s),
    ))
}

#[test]
fn only_an_offered_allow_approves() {
    let always = options(&ask(Remember::Command("x".into()), false));
    let once_only = options(&ask(Remember::Nothing, false));
    let cancelled = Outcome::Answered(RequestPermissionResponse::new(
        RequestPermissionOutcome::Cancelled,
    ));
    // (outcome, offered, choice)
    let rows = [
        (selected(ALLOW_ONCE, None), &always, UserChoice::Accept),
        (
            selected(ALLOW_ALWAYS, None),
            &always,
            UserChoice::AlwaysAccept,
        ),
        (selected(REJECT, None), &always, UserChoice::Reject(None)),
        (
            selected(REJECT, Some(json!({"reason": " use ls "}))),
            &always,
            UserChoice::Reject(Some("use ls".into())),
        ),
        (
            selected(REJECT, Some(json!({"reason": "  "}))),
            &always,
            UserChoice::Reject(None),
        ),
        (
            selected(ALLOW_ALWAYS, None),
            &once_only,
            UserChoice::Reject(Some(
                "the editor chose `allow_always`, which was not offered".into(),
            )),
        ),
        (
            selected("yes", None),
            &always,
            UserChoice::Reject(Some("the editor chose `yes`, which was not offered".into())),
        ),
        (cancelled, &always, UserChoice::Cancel),
        (Outcome::Closed, &always, UserChoice::Cancel),
        (
            Outcome::Error("Internal error".into()),
            &always,
            UserChoice::Reject(Some(
                "the editor did not answer the permission request (Internal error)".into(),
            )),
        ),
    ];
    for (outcome, offered, want) in rows {
        assert_eq!(choice(&outcome, offered), want, "{outcome:?}");
    }
}

#[test]
fn a_reason_in_the_response_meta_counts_too() {
    let offered = options(&ask(Remember::Nothing, false));
    let mut r = RequestPermissionResponse::new(RequestPermissionOutcome::Selected(
        SelectedPermissionOutcome::new(REJECT),
    ));
    r.meta = json!({"reason": "not now"}).as_object().cloned();
    assert_eq!(
        choice(&Outcome::Answered(r), &offered),
        UserChoice::Reject(Some("not now".into()))
    );
}
