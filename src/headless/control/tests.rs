//! The controller's state: answers in and out of order, and every way an answer can go wrong.

use super::*;
use crate::tools::lifecycle::requests::Remember;

fn ask(call: &str, tool: &str) -> Ask {
    Ask {
        call_id: call.into(),
        tool: tool.into(),
        cmd_string: format!("{tool} x"),
        prompt: String::new(),
        args: json!({"cmd": "x"}),
        preview: None,
        judge_reason: None,
        caution: None,
        position: 1,
        total: 1,
        remember: Remember::Nothing,
        rerun: None,
    }
}

fn request(c: &mut Control, call: &str, tool: &str) -> (Out, oneshot::Receiver<UserChoice>) {
    let (tx, rx) = oneshot::channel();
    // The event stream has shown the call asking (the usual order; see the held test below).
    c.announced(call, Instant::now());
    let out = c.request(
        ApprovalRequest {
            ask: ask(call, tool),
            reply: tx,
        },
        Instant::now(),
    );
    (out, rx)
}

fn answer(id: &str, behavior: &str, extra: Value) -> String {
    let mut response = json!({"behavior": behavior});
    if let (Some(r), Some(e)) = (response.as_object_mut(), extra.as_object()) {
        r.extend(e.clone());
    }
    json!({"type": "control_response", "response": {"subtype": "tool_approval", "request_id": id, "response": response}}).to_string()
}

#[tokio::test]
async fn allow_deny_ask_and_remember() {
    let mut c = Control::new(DEFAULT_TIMEOUT);
    c.new_batch([("c1", "run_command"), ("c2", "run_command")]);
    let (out, mut rx) = request(&mut c, "c1", "run_command");
    let req = out.request.unwrap();
    assert_eq!(req["request_id"], "apr-c1");
    assert_eq!(req["request"]["subtype"], "can_use_tool");
    assert_eq!(req["request"]["tool_input"], json!({"cmd": "x"}));
    assert!(
        c.line(&answer("apr-c1", "allow", json!({"remember": true})))
            .notes
            .is_empty()
    );
    assert_eq!(rx.try_recv().unwrap(), UserChoice::AlwaysAccept);

    let (_, mut rx) = request(&mut c, "c2", "run_command");
    c.line(&answer(
        "apr-c2",
        "deny",
        json!({"message": "use make clean"}),
    ));
    assert_eq!(
        rx.try_recv().unwrap(),
        UserChoice::Reject(Some("use make clean".into()))
    );

    c.new_batch([("c3", "edit_file")]);
    let (_, mut rx) = request(&mut c, "c3", "edit_file");
    c.line(&answer("apr-c3", "ask", json!({})));
    let UserChoice::Reject(Some(why)) = rx.try_recv().unwrap() else {
        panic!()
    };
    assert!(
        why.contains("`edit_file`") && why.contains("no one is there to ask"),
        "{why}"
    );
}

#[tokio::test]
async fn answers_may_come_before_their_request_but_only_for_this_reply() {
    let mut c = Control::new(DEFAULT_TIMEOUT);
    c.new_batch([("c1", "a"), ("c2", "b")]);
    let (_, mut rx1) = request(&mut c, "c1", "a");
    // c2 answered first, then c1.
    assert!(
        c.line(&answer("apr-c2", "deny", json!({"message": "no"})))
            .notes
            .is_empty()
    );
    c.line(&answer("apr-c1", "allow", json!({})));
    assert_eq!(rx1.try_recv().unwrap(), UserChoice::Accept);
    let (out, mut rx2) = request(&mut c, "c2", "b");
    assert!(out.request.is_none(), "already answered: nothing to ask");
    assert_eq!(
        rx2.try_recv().unwrap(),
        UserChoice::Reject(Some("no".into()))
    );
    // A new reply forgets early answers.
    c.line(&answer("apr-c1", "allow", json!({})));
    c.new_batch([("c1", "a")]);
    let (out, _rx) = request(&mut c, "c1", "a");
    assert!(out.request.is_some());
}

#[tokio::test]
async fn unreadable_lines_unknown_ids_closed_stdin_and_timeouts_reject() {
    let mut c = Control::new(Duration::from_secs(7));
    c.new_batch([("c1", "t"), ("c2", "t"), ("c3", "t"), ("c4", "t")]);
    let rejected = |rx: &mut oneshot::Receiver<UserChoice>| match rx.try_recv().unwrap() {
        UserChoice::Reject(Some(why)) => why,
        other => panic!("{other:?}"),
    };

    let (_, mut rx) = request(&mut c, "c1", "t");
    let out = c.line("{not json");
    assert!(
        out.notes[0].starts_with("control: unreadable line: not JSON"),
        "{:?}",
        out.notes
    );
    assert!(rejected(&mut rx).contains("an unreadable answer"));

    let (_, mut rx) = request(&mut c, "c2", "t");
    let out = c.line(&answer("apr-zzz", "allow", json!({})));
    assert_eq!(out.notes[0], "control: no call is waiting for `apr-zzz`");
    assert!(rejected(&mut rx).contains("unknown request"));

    let (_, mut rx) = request(&mut c, "c3", "t");
    assert!(c.deadline().is_some());
    c.timed_out();
    assert!(rejected(&mut rx).contains("no answer within 7 s"));

    let (_, mut rx) = request(&mut c, "c4", "t");
    let out = c.close();
    assert!(out.notes[0].contains("stdin is closed"));
    assert!(rejected(&mut rx).contains("stdin is closed"));
    // After stdin closed, a new request is rejected at once, never printed.
    let (out, mut rx) = request(&mut c, "c5", "t");
    assert!(out.request.is_none());
    assert!(rejected(&mut rx).contains("its input is closed"));
}

#[test]
fn bad_answers_say_what_is_wrong() {
    let tool = |_: &str| "t".to_owned();
    for (line, why) in [
        (r#"{"type":"other"}"#, "not a control_response"),
        (
            r#"{"type":"control_response","response":{"subtype":"x"}}"#,
            "subtype",
        ),
        (
            r#"{"type":"control_response","response":{"subtype":"tool_approval"}}"#,
            "request_id",
        ),
        (
            r#"{"type":"control_response","response":{"subtype":"tool_approval","request_id":"a","response":{"behavior":"maybe"}}}"#,
            "allow, deny or ask, not \"maybe\"",
        ),
    ] {
        let e = parse_line(line, tool).unwrap_err();
        assert!(e.contains(why), "{e}");
    }
}

#[tokio::test]
async fn a_request_waits_for_its_approval_requested_event() {
    let mut c = Control::new(DEFAULT_TIMEOUT);
    c.new_batch([("c1", "t")]);
    let (tx, mut rx) = oneshot::channel();
    let out = c.request(
        ApprovalRequest {
            ask: ask("c1", "t"),
            reply: tx,
        },
        Instant::now(),
    );
    assert!(
        out.request.is_none(),
        "held until the event stream shows the call"
    );
    assert!(c.deadline().is_none(), "no clock before it is printed");
    let out = c.announced("c1", Instant::now());
    assert_eq!(out.request.unwrap()["request_id"], "apr-c1");
    assert!(c.deadline().is_some());
    c.line(&answer("apr-c1", "allow", json!({})));
    assert_eq!(rx.try_recv().unwrap(), UserChoice::Accept);
}

#[tokio::test]
async fn a_late_answer_is_refused_and_never_reaches_the_next_call() {
    let mut c = Control::new(DEFAULT_TIMEOUT);
    c.new_batch([("call_0", "run_command")]);
    let (_, mut first) = request(&mut c, "call_0", "run_command");
    let out = c.timed_out();
    assert!(out.notes[0].contains("no answer within"), "{:?}", out.notes);
    assert!(matches!(first.try_recv().unwrap(), UserChoice::Reject(_)));
    // The next reply: the same call id, should a server send it again.
    c.new_batch([("call_0", "run_command")]);
    let (out, mut second) = request(&mut c, "call_0", "run_command");
    let id = out.request.unwrap()["request_id"].clone();
    assert_ne!(id, "apr-call_0", "a request id is never given out twice");
    let out = c.line(&answer("apr-call_0", "allow", json!({})));
    assert_eq!(out.notes.len(), 1, "{:?}", out.notes);
    assert!(
        out.notes[0]
            .starts_with("control: request `apr-call_0` is over (rejected: no answer within"),
        "{:?}",
        out.notes
    );
    assert!(
        second.try_recv().is_err(),
        "the late allow approved another call"
    );
    // Its own answer still decides it.
    c.line(&answer(id.as_str().unwrap(), "deny", json!({})));
    assert_eq!(second.try_recv().unwrap(), UserChoice::Reject(None));
}

#[tokio::test]
async fn an_answer_counts_once() {
    let mut c = Control::new(DEFAULT_TIMEOUT);
    c.new_batch([("c1", "run_command"), ("c2", "run_command")]);
    let (_, mut rx) = request(&mut c, "c1", "run_command");
    c.line(&answer("apr-c1", "deny", json!({})));
    assert_eq!(rx.try_recv().unwrap(), UserChoice::Reject(None));
    let (_, mut rx2) = request(&mut c, "c2", "run_command");
    let out = c.line(&answer("apr-c1", "allow", json!({})));
    assert!(
        out.notes[0].contains("is over (answered)"),
        "{:?}",
        out.notes
    );
    assert!(rx2.try_recv().is_err());
    // Two early answers for one call: the first stands.
    c.new_batch([("c3", "run_command")]);
    c.line(&answer("apr-c3", "deny", json!({})));
    let out = c.line(&answer("apr-c3", "allow", json!({})));
    assert!(out.notes[0].contains("already answered"), "{:?}", out.notes);
    let (_, mut rx3) = request(&mut c, "c3", "run_command");
    assert_eq!(rx3.try_recv().unwrap(), UserChoice::Reject(None));
}

#[tokio::test]
async fn a_rerun_outside_the_sandbox_is_a_second_request_with_its_denial() {
    let mut c = Control::new(DEFAULT_TIMEOUT);
    c.new_batch([("c1", "run_command")]);
    let (out, mut rx) = request(&mut c, "c1", "run_command");
    assert_eq!(out.request.unwrap()["request"]["rerun"], Value::Null);
    c.line(&answer("apr-c1", "allow", json!({})));
    assert_eq!(rx.try_recv().unwrap(), UserChoice::Accept);
    // The command was denied: the rerun is asked about anew, once announced again.
    let (tx, mut rx) = oneshot::channel();
    let mut rerun = ask("c1", "run_command");
    rerun.rerun = Some(write_denial());
    rerun.caution = Some("the sandbox denied a write to /x".into());
    let out = c.request(
        ApprovalRequest {
            ask: rerun,
            reply: tx,
        },
        Instant::now(),
    );
    assert!(out.request.is_none(), "held until its own announcement");
    let req = c.announced("c1", Instant::now()).request.unwrap();
    assert_eq!(req["request_id"], "rerun-1-c1");
    assert_eq!(
        req["request"]["rerun"],
        json!({"what": "a write to /x", "kind": "write", "path": "/x"})
    );
    assert_eq!(req["request"]["call_id"], "c1");
    // The first request's id does not answer the rerun.
    let out = c.line(&answer("apr-c1", "allow", json!({})));
    assert!(
        out.notes[0].contains("is over (answered)"),
        "{:?}",
        out.notes
    );
    assert!(rx.try_recv().is_err());
    c.line(&answer("rerun-1-c1", "deny", json!({"message": "no"})));
    assert_eq!(
        rx.try_recv().unwrap(),
        UserChoice::Reject(Some("no".into()))
    );
}

fn write_denial() -> crate::sandbox::Denial {
    crate::sandbox::Denial {
        what: "a write to /x".into(),
        kind: crate::sandbox::DenialKind::Write,
        path: Some("/x".into()),
        address: None,
    }
}

/// A rerun request for `call`, sent to the controller (not yet announced).
fn rerun_request(c: &mut Control, call: &str) -> (Out, oneshot::Receiver<UserChoice>) {
    let (tx, rx) = oneshot::channel();
    let mut rerun = ask(call, "run_command");
    rerun.rerun = Some(write_denial());
    let out = c.request(
        ApprovalRequest {
            ask: rerun,
            reply: tx,
        },
        Instant::now(),
    );
    (out, rx)
}

/// Issue 36 item 4: calls `c1` and `c1.2`; the program answers `apr-c1.2` early (for the
/// `ls` call, as the protocol allows); `c1` is denied by the sandbox. Its rerun request used
/// to be `apr-c1.2`, took that early answer and ran outside. Now it is `rerun-1-c1`, printed
/// and waiting: the early answer is still `c1.2`'s.
#[tokio::test]
async fn an_early_answer_for_another_call_never_decides_a_rerun() {
    let mut c = Control::new(DEFAULT_TIMEOUT);
    c.new_batch([("c1", "run_command"), ("c1.2", "run_command")]);
    assert!(
        c.line(&answer("apr-c1.2", "allow", json!({})))
            .notes
            .is_empty()
    );
    let (_, mut rx) = request(&mut c, "c1", "run_command");
    c.line(&answer("apr-c1", "allow", json!({})));
    assert_eq!(rx.try_recv().unwrap(), UserChoice::Accept);
    let (out, mut rerun) = rerun_request(&mut c, "c1");
    assert!(out.request.is_none());
    assert!(rerun.try_recv().is_err(), "decided by an early answer");
    let printed = c.announced("c1", Instant::now()).request.unwrap();
    assert_eq!(printed["request_id"], "rerun-1-c1");
    assert!(rerun.try_recv().is_err(), "decided without an answer");
    c.line(&answer("rerun-1-c1", "deny", json!({})));
    assert_eq!(rerun.try_recv().unwrap(), UserChoice::Reject(None));
    // The early answer is still there for `c1.2` itself.
    let (out, mut rx) = request(&mut c, "c1.2", "run_command");
    assert!(out.request.is_none());
    assert_eq!(rx.try_recv().unwrap(), UserChoice::Accept);
}

/// A rerun's id can be guessed, but an answer sent before the request is printed is refused;
/// only the answer to the printed request decides it. A second rerun of the same call gets
/// the next number.
#[tokio::test]
async fn a_rerun_is_decided_only_after_it_is_printed() {
    let mut c = Control::new(DEFAULT_TIMEOUT);
    c.new_batch([("c1", "run_command")]);
    let (_, mut rx) = request(&mut c, "c1", "run_command");
    c.line(&answer("apr-c1", "allow", json!({})));
    assert_eq!(rx.try_recv().unwrap(), UserChoice::Accept);
    // Answered before it exists: an answer for no request (the usual refusal).
    let out = c.line(&answer("rerun-1-c1", "allow", json!({})));
    assert!(
        out.notes[0].contains("no call is waiting"),
        "{:?}",
        out.notes
    );
    let (_, mut rerun) = rerun_request(&mut c, "c1");
    // Asked, not yet printed: refused, and the request still waits.
    let out = c.line(&answer("rerun-1-c1", "allow", json!({})));
    assert!(
        out.notes[0].contains("has not been printed yet"),
        "{:?}",
        out.notes
    );
    assert!(rerun.try_recv().is_err());
    let printed = c.announced("c1", Instant::now()).request.unwrap();
    assert_eq!(printed["request_id"], "rerun-1-c1");
    assert!(
        c.line(&answer("rerun-1-c1", "allow", json!({})))
            .notes
            .is_empty()
    );
    assert_eq!(rerun.try_recv().unwrap(), UserChoice::Accept);
    // The call's next command denied too: its own, second rerun id.
    c.announced("c1", Instant::now());
    let (out, _rx) = rerun_request(&mut c, "c1");
    assert_eq!(out.request.unwrap()["request_id"], "rerun-2-c1");
}

#[test]
fn no_call_id_makes_a_rerun_id_and_reruns_of_two_calls_differ() {
    for call in ["c1", "c1.2", "rerun-1-c1", "1-c1", "", "apr-x"] {
        let id = request_id(call);
        assert!(id.starts_with("apr-"), "{id}");
        assert!(!id.starts_with("rerun-"), "{id}");
    }
    // Two calls whose reruns would be `rerun-1-c1` if the number came after the id.
    assert_ne!(rerun_request_id("c1", 1), rerun_request_id("1-c1", 1));
    assert_ne!(rerun_request_id("c1", 2), rerun_request_id("c1.2", 1));
    assert_ne!(rerun_request_id("1-c1", 1), rerun_request_id("c1", 11));
}

#[tokio::test]
async fn a_user_message_line_steers_and_answers_no_request() {
    // (line, steers with, the note)
    let rows: &[(&str, Option<&str>, Option<&str>)] = &[
        (
            r#"{"type":"user_message","text":"also run the tests"}"#,
            Some("also run the tests"),
            None,
        ),
        (
            r#"{"type":"user_message"}"#,
            None,
            Some("control: unreadable line: a user_message needs `text`, a non-empty string"),
        ),
        (
            r#"{"type":"user_message","text":"  "}"#,
            None,
            Some("control: unreadable line: a user_message needs `text`, a non-empty string"),
        ),
        (
            r#"{"type":"user_message","text":7}"#,
            None,
            Some("control: unreadable line: a user_message needs `text`, a non-empty string"),
        ),
    ];
    for (line, steers, note) in rows {
        let mut c = Control::new(Duration::from_secs(7));
        c.new_batch([("c1", "t")]);
        let (_, mut rx) = request(&mut c, "c1", "t");
        let out = c.line(line);
        assert_eq!(out.steer.as_deref(), *steers, "{line}");
        assert_eq!(out.notes.first().map(String::as_str), *note, "{line}");
        match steers {
            // The pending call still waits for its own answer.
            Some(_) => assert!(rx.try_recv().is_err(), "{line}"),
            None => assert!(matches!(rx.try_recv(), Ok(UserChoice::Reject(_))), "{line}"),
        }
    }
}
