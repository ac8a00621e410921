//! `sayso acp` driven by a real ACP client written by others: the official TypeScript SDK
//! (`@agentclientprotocol/sdk`, pinned in tests/acp-client/package-lock.json, installed by
//! `scripts/test`), through tests/acp-client/driver.mjs, against the real binary whose model is
//! the fixture server. Checked at the boundary: what the client received (updates, permission
//! requests and their options, responses, stop reasons, fs calls), what ran (files on disk),
//! and what the model was sent (the fixture's request bodies). Without the SDK these tests skip
//! with a message; in CI they fail.

mod harness;

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::sessions::{id_of, session_files};
use crate::support::{shell, tool_messages};
use harness::{Editor, Log, prompt, start};

/// A fixture whose model makes `calls` (one reply each), then says `last`.
async fn model(replies: Vec<Reply>, last: &str) -> Fixture {
    let fx = Fixture::start().await;
    for r in replies {
        fx.push(r);
    }
    fx.push(Reply::Stream(sse::text_reply(&[last])));
    fx
}

/// One reply calling `run_command` with `cmd` as call `id`.
fn command(id: &str, cmd: &str) -> Reply {
    let (id, name, args) = shell(id, cmd);
    calls(&[(id.as_str(), name, args)])
}

/// The `edit_file` arguments replacing `old` with `new` in `path`.
fn edit(path: &str, old: &str, new: &str) -> Value {
    json!({"filepath": path, "edits": [{"oldText": old, "newText": new, "replaceAll": null}],
           "explanation": null})
}

/// The texts of the messages of `role` in a request body.
fn said(body: &Value, role: &str) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == role)
        .filter_map(|m| match &m["content"] {
            Value::String(s) => Some(s.clone()),
            Value::Array(parts) => Some(
                parts
                    .iter()
                    .filter_map(|p| p["text"].as_str())
                    .collect::<Vec<_>>()
                    .join(""),
            ),
            _ => None,
        })
        .collect()
}

/// The option kinds a permission request offered.
fn kinds(permission: &Value) -> Vec<&str> {
    permission["request"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["kind"].as_str())
        .collect()
}

fn steps(mut head: Vec<Value>, tail: Vec<Value>) -> Value {
    head.extend(tail);
    Value::Array(head)
}

#[tokio::test]
async fn a_prompt_streams_the_reply_in_order_and_ends_the_turn() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&[
        "Hel", "lo, ", "wor", "ld",
    ])));
    let Some(ed) = Editor::new("acp prompt", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({"steps": steps(start(&ed.cwd()), vec![prompt("say hello")])}),
        )
        .await;
    log.assert_clean();
    let init = log.result(0);
    assert_eq!(init["protocolVersion"], 1, "{}", log.dump());
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert!(log.result(1)["sessionId"].is_string());
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    let during = log.updates_during(2);
    assert_eq!(
        Log::chunks(&during, "agent_message_chunk").concat(),
        "Hello, world",
        "{}",
        log.dump()
    );
    // The prompt is not echoed back: the editor shows what it sent, and Zed appends a
    // `user_message_chunk` to the user message on screen (acp_thread's
    // push_user_content_block), so an echo would show the prompt twice.
    assert!(
        Log::chunks(&during, "user_message_chunk").is_empty(),
        "{}",
        log.dump()
    );
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(said(&reqs[0].body, "user").last().unwrap(), "say hello");
}

#[tokio::test]
async fn run_command_allowed_once_runs_and_a_rejected_one_reaches_the_model_refused() {
    let fx = model(
        vec![
            command("c1", "echo ran-ok | tee allowed.txt"),
            command("c2", "touch rejected.txt"),
        ],
        "done",
    )
    .await;
    let Some(ed) = Editor::new("acp allow/reject", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({
                "permissions": ["allow_once", {"kind": "reject_once", "reason": "use make clean instead"}],
                "steps": steps(start(&ed.cwd()), vec![prompt("make files")]),
            }),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    let asked = log.permissions();
    assert_eq!(asked.len(), 2, "{}", log.dump());
    for p in &asked {
        let k = kinds(p);
        for want in ["allow_once", "allow_always", "reject_once"] {
            assert!(k.contains(&want), "{want} offered: {k:?}");
        }
    }
    assert!(
        asked[0]["request"].to_string().contains("echo ran-ok"),
        "the request shows the command: {}",
        asked[0]
    );
    // Allowed: it ran, and its output went to the model with the next request.
    assert_eq!(
        std::fs::read_to_string(ed.file("allowed.txt")).unwrap(),
        "ran-ok\n"
    );
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 3, "{}", log.dump());
    let first = tool_messages(&reqs[1].body);
    assert_eq!(first[0].0, "c1");
    assert!(first[0].1.contains("ran-ok"), "{first:?}");
    // Rejected: nothing ran, and the model is told the user refused, with the reason the
    // editor gave (in the selected outcome's `_meta.reason`).
    assert!(!ed.file("rejected.txt").exists());
    let second = tool_messages(&reqs[2].body);
    let c2 = &second.iter().find(|(id, _)| id == "c2").unwrap().1;
    assert!(c2.contains("rejected"), "{c2}");
    assert!(c2.contains("use make clean instead"), "{c2}");
    // The client saw both calls as execute calls, the first completed, the second not.
    let tools = log.tool_calls();
    assert_eq!(tools.len(), 2, "{}", log.dump());
    assert!(tools.iter().all(|t| t["kind"] == "execute"), "{tools:?}");
    assert_eq!(tools[0]["status"], "completed", "{tools:?}");
    assert_eq!(tools[1]["status"], "failed", "{tools:?}");
}

#[tokio::test]
async fn allow_always_remembers_the_exact_command_only() {
    let fx = model(
        vec![
            command("c1", "echo one | tee -a log.txt"),
            command("c2", "echo one | tee -a log.txt"),
            command("c3", "echo two | tee -a log.txt"),
        ],
        "done",
    )
    .await;
    let Some(ed) = Editor::new("acp allow_always", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({
                "permissions": ["allow_always", "allow_once"],
                "steps": steps(start(&ed.cwd()), vec![prompt("log")]),
            }),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    // The same command again ran unasked; another command asked.
    let asked = log.permissions();
    assert_eq!(asked.len(), 2, "{}", log.dump());
    assert!(asked[1]["request"].to_string().contains("echo two"));
    assert_eq!(
        std::fs::read_to_string(ed.file("log.txt")).unwrap(),
        "one\none\ntwo\n"
    );
}

#[tokio::test]
async fn cancel_mid_stream_hangs_up_and_does_not_resubmit() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(vec![
        Step::Bytes(sse::data(&sse::chunk(
            json!({"role": "assistant", "content": ""}),
            None,
        ))),
        Step::Bytes(sse::text("partial ")),
        Step::Stall,
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["after"])));
    let Some(ed) = Editor::new("acp cancel", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({"steps": steps(start(&ed.cwd()), vec![
                json!({"op": "prompt", "text": "go", "cancel_on": {"update": "agent_message_chunk"}}),
                prompt("again"),
            ])}),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.of("cancel_sent").len(), 1, "{}", log.dump());
    assert_eq!(log.stop_reason(2), "cancelled", "{}", log.dump());
    tokio::time::timeout(Duration::from_secs(10), fx.client_hung_up())
        .await
        .expect("sayso hung up on the cancelled stream");
    // One request per prompt: the cancelled turn was not sent again.
    assert_eq!(log.stop_reason(3), "end_turn", "{}", log.dump());
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 2, "{}", log.dump());
    let users = said(&reqs[1].body, "user");
    assert_eq!(
        users[users.len() - 2..],
        ["go".to_owned(), "again".to_owned()]
    );
}

#[tokio::test]
async fn cancel_during_a_permission_request_answers_the_call_without_running_it() {
    let fx = model(vec![command("c1", "touch canary")], "ok").await;
    let Some(ed) = Editor::new("acp cancel permission", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({
                "permissions": ["cancel_prompt"],
                "steps": steps(start(&ed.cwd()), vec![prompt("touch it"), prompt("go on")]),
            }),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.stop_reason(2), "cancelled", "{}", log.dump());
    assert!(!ed.file("canary").exists());
    let reqs = fx.requests();
    // No resubmit after the cancel: the second request is the next prompt's, and it answers c1.
    assert_eq!(reqs.len(), 2, "{}", log.dump());
    assert_eq!(said(&reqs[1].body, "user").last().unwrap(), "go on");
    let answered = tool_messages(&reqs[1].body);
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert_eq!(answered[0].0, "c1");
    assert_eq!(log.stop_reason(3), "end_turn", "{}", log.dump());
}

#[tokio::test]
async fn a_cancelled_outcome_is_the_modals_cancel_nothing_runs_and_the_turn_stops() {
    let fx = model(vec![command("c1", "touch canary")], "never sent").await;
    let Some(ed) = Editor::new("acp cancelled outcome", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({
                "permissions": ["cancelled"],
                "steps": steps(start(&ed.cwd()), vec![prompt("touch it")]),
            }),
        )
        .await;
    log.assert_clean();
    assert!(log.of("cancel_sent").is_empty());
    assert_eq!(log.stop_reason(2), "cancelled", "{}", log.dump());
    assert!(!ed.file("canary").exists());
    assert_eq!(fx.requests().len(), 1, "the turn stopped: {}", log.dump());
}

#[tokio::test]
async fn an_edit_arrives_as_a_diff_and_is_written_through_the_editor() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "e1",
        "edit_file",
        edit("src/lib.rs", "a + b", "a - b"),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["edited"])));
    let Some(ed) = Editor::new("acp edit fs", &fx.base_url(), "") else {
        return;
    };
    let on_disk = "pub fn f(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
    let in_buffer = format!("{on_disk}// unsaved in the editor\n");
    std::fs::create_dir_all(ed.file("src")).unwrap();
    std::fs::write(ed.file("src/lib.rs"), on_disk).unwrap();
    let path = ed.file("src/lib.rs").to_string_lossy().into_owned();
    let log = ed
        .run(
            &[],
            json!({
                "client": {"fs": {"read": true, "write": true}},
                "buffers": {&path: in_buffer},
                "permissions": ["allow_once"],
                "steps": steps(start(&ed.cwd()), vec![prompt("subtract")]),
            }),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    // The edit was made on the editor's buffer (its unsaved line kept), written back through
    // fs/write_text_file; the file on disk is untouched.
    let writes = log.of("fs_write");
    assert_eq!(writes.len(), 1, "{}", log.dump());
    assert_eq!(writes[0]["params"]["path"], path.as_str());
    assert_eq!(
        writes[0]["params"]["content"],
        in_buffer.replace("a + b", "a - b")
    );
    assert_eq!(
        std::fs::read_to_string(ed.file("src/lib.rs")).unwrap(),
        on_disk
    );
    assert!(
        log.of("fs_read")
            .iter()
            .any(|r| r["params"]["path"] == path.as_str()),
        "read through the editor: {}",
        log.dump()
    );
    // The client was shown the change as ACP diff content.
    let tools = log.tool_calls();
    let perm = log.permissions();
    let diffs: Vec<&Value> = tools
        .iter()
        .flat_map(|t| t["all_content"].as_array().unwrap())
        .chain(
            perm.iter()
                .filter_map(|p| p["request"]["toolCall"]["content"].as_array())
                .flatten(),
        )
        .filter(|c| c["type"] == "diff")
        .collect();
    assert!(!diffs.is_empty(), "a diff: {}", log.dump());
    for d in &diffs {
        assert_eq!(d["path"], path.as_str(), "{d}");
        assert!(
            d["oldText"].as_str().unwrap_or_default().contains("a + b"),
            "{d}"
        );
        assert!(d["newText"].as_str().unwrap().contains("a - b"), "{d}");
    }
    assert_eq!(tools[0]["kind"], "edit", "{tools:?}");
    let told = &tool_messages(&fx.requests()[1].body)[0].1;
    assert!(!told.contains("rejected"), "{told}");
}

#[tokio::test]
async fn an_edit_without_the_editors_fs_lands_on_disk() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "e1",
        "edit_file",
        edit("src/lib.rs", "a + b", "a - b"),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["edited"])));
    let Some(ed) = Editor::new("acp edit disk", &fx.base_url(), "") else {
        return;
    };
    std::fs::create_dir_all(ed.file("src")).unwrap();
    std::fs::write(ed.file("src/lib.rs"), "fn f() -> i32 { a + b }\n").unwrap();
    let log = ed
        .run(
            &[],
            json!({
                "permissions": ["allow_once"],
                "steps": steps(start(&ed.cwd()), vec![prompt("subtract")]),
            }),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    assert!(log.of("fs_write").is_empty() && log.of("fs_read").is_empty());
    assert_eq!(
        std::fs::read_to_string(ed.file("src/lib.rs")).unwrap(),
        "fn f() -> i32 { a - b }\n"
    );
}

#[tokio::test]
async fn session_load_replays_the_session_and_the_next_request_carries_its_history() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["noted"])));
    fx.push(Reply::Stream(sse::text_reply(&["kiwi"])));
    let Some(ed) = Editor::new("acp load", &fx.base_url(), "") else {
        return;
    };
    let first = ed
        .run(
            &[],
            json!({"steps": steps(start(&ed.cwd()), vec![prompt("remember the word kiwi")])}),
        )
        .await;
    first.assert_clean();
    let id = first.result(1)["sessionId"].as_str().unwrap().to_owned();
    // Every ACP session is a sayso session: its file, and `sayso sessions` lists it.
    let ids: Vec<String> = session_files(ed.home.path())
        .iter()
        .map(|p| id_of(p))
        .collect();
    assert_eq!(ids, std::slice::from_ref(&id), "{}", first.dump());
    let mut list = crate::support::sayso(ed.home.path());
    list.args(["sessions"]);
    let listed = crate::support::run(list).await;
    assert!(listed.stdout.contains(&id), "{}", listed.stdout);

    // A new `sayso acp` (the editor restarted) loads it.
    let second = ed
        .run(
            &[],
            json!({"steps": [
                {"op": "initialize"},
                {"op": "load_session", "sessionId": id, "cwd": ed.cwd()},
                prompt("which word?"),
            ]}),
        )
        .await;
    second.assert_clean();
    assert!(
        second.result(0)["agentCapabilities"]["loadSession"] == true,
        "session/load is advertised"
    );
    let replay = second.updates_during(1);
    assert_eq!(
        Log::chunks(&replay, "user_message_chunk").concat(),
        "remember the word kiwi",
        "{}",
        second.dump()
    );
    assert_eq!(
        Log::chunks(&replay, "agent_message_chunk").concat(),
        "noted"
    );
    assert_eq!(second.stop_reason(2), "end_turn", "{}", second.dump());
    let reqs = fx.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(
        said(&reqs[1].body, "user"),
        ["remember the word kiwi", "which word?"]
    );
    assert_eq!(said(&reqs[1].body, "assistant"), ["noted"]);
}

#[tokio::test]
async fn set_mode_decides_the_next_call_under_the_new_mode() {
    let fx = model(vec![command("c1", "touch asked.txt")], "first done").await;
    fx.push(command("c2", "touch unasked.txt"));
    fx.push(Reply::Stream(sse::text_reply(&["second done"])));
    let Some(ed) = Editor::new("acp set_mode", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({
                "permissions": ["allow_once"],
                "steps": steps(start(&ed.cwd()), vec![
                    prompt("first"),
                    json!({"op": "set_mode", "modeId": "trust"}),
                    prompt("second"),
                ]),
            }),
        )
        .await;
    log.assert_clean();
    let modes = &log.result(1)["modes"];
    let mut ids: Vec<&str> = modes["availableModes"]
        .as_array()
        .unwrap_or_else(|| panic!("session/new offers modes: {}", log.dump()))
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["auto", "balanced", "strict", "suggest", "trust"]);
    assert_eq!(modes["currentModeId"], "balanced");
    // In balanced the command asked; after set_mode trust the next one ran unasked.
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    assert!(log.result(3).is_object() || log.result(3).is_null());
    assert_eq!(log.stop_reason(4), "end_turn", "{}", log.dump());
    assert_eq!(log.permissions().len(), 1, "{}", log.dump());
    assert!(ed.file("asked.txt").exists() && ed.file("unasked.txt").exists());
}

#[tokio::test]
async fn a_client_gone_during_a_permission_request_runs_nothing_and_sayso_exits() {
    let fx = model(vec![command("c1", "touch canary")], "never").await;
    let Some(ed) = Editor::new("acp disconnect", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({
                "permissions": ["disconnect"],
                "steps": steps(start(&ed.cwd()), vec![prompt("touch it")]),
            }),
        )
        .await;
    // The driver waited for sayso to exit on its own (a kill would log a timeout).
    log.assert_clean();
    assert_eq!(log.of("disconnected").len(), 1, "{}", log.dump());
    assert!(!ed.file("canary").exists());
    assert_eq!(fx.requests().len(), 1, "nothing more was sent");
}

#[tokio::test]
async fn required_methods_are_answered_and_unknown_ones_get_method_not_found() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["hi"])));
    let Some(ed) = Editor::new("acp conformance", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({"steps": [
                {"op": "initialize"},
                {"op": "request", "method": "sayso/no_such_method", "params": {}},
                {"op": "notify", "method": "sayso/no_such_notification", "params": {}},
                {"op": "new_session", "as": "s", "cwd": ed.cwd()},
                {"op": "cancel"},
                prompt("hello"),
                {"op": "request", "method": "session/prompt",
                 "params": {"sessionId": "no-such-session", "prompt": [{"type": "text", "text": "x"}]}},
                {"op": "request", "method": "session/new", "params": {"mcpServers": []}},
                {"op": "close"},
            ]}),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.result(0)["protocolVersion"], 1);
    assert_eq!(log.error(1)["code"], -32601, "{}", log.dump());
    assert!(log.result(3)["sessionId"].is_string());
    // A cancel with nothing running is ignored; the session still works.
    assert_eq!(log.stop_reason(5), "end_turn", "{}", log.dump());
    assert!(log.error(6)["code"].is_i64(), "{}", log.dump());
    assert_eq!(log.error(7)["code"], -32602, "{}", log.dump());
    // stdin closed: sayso exits by itself, successfully.
    assert_eq!(log.result(8)["code"], 0, "{}", log.dump());
    // Every request the client sent got exactly one response.
    let sent: Vec<&Value> = log
        .of("sent")
        .into_iter()
        .map(|e| &e["message"])
        .filter(|m| m["method"].is_string() && m.get("id").is_some())
        .collect();
    for req in sent {
        let answers = log
            .of("recv")
            .into_iter()
            .filter(|e| e["message"]["id"] == req["id"] && e["message"].get("method").is_none())
            .count();
        assert_eq!(answers, 1, "{req}: {}", log.dump());
    }
}

#[tokio::test]
async fn the_session_works_in_the_editors_directory_not_the_process_one() {
    let fx = model(vec![command("c1", "pwd | tee where.txt")], "done").await;
    let Some(ed) = Editor::new("acp cwd", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run_in(
            ed.home.path(),
            &["--approval-mode", "trust"],
            json!({"steps": steps(start(&ed.cwd()), vec![prompt("where?")])}),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    assert!(
        log.permissions().is_empty(),
        "--approval-mode trust: {}",
        log.dump()
    );
    assert_eq!(
        std::fs::read_to_string(ed.file("where.txt"))
            .unwrap()
            .trim(),
        ed.cwd()
    );
    assert!(!ed.home.path().join("where.txt").exists());
}

#[tokio::test]
async fn embedded_resources_and_links_reach_the_model() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["seen"])));
    let Some(ed) = Editor::new("acp resources", &fx.base_url(), "") else {
        return;
    };
    let notes = ed.file("notes.md").to_string_lossy().into_owned();
    std::fs::write(ed.file("linked.rs"), "// LINKED-FILE-CONTENT\n").unwrap();
    let linked = ed.file("linked.rs").to_string_lossy().into_owned();
    let log = ed
        .run(
            &[],
            json!({"steps": steps(start(&ed.cwd()), vec![json!({"op": "prompt", "prompt": [
                {"type": "text", "text": "look at these"},
                {"type": "resource", "resource": {"uri": format!("file://{notes}"),
                 "mimeType": "text/markdown", "text": "EMBEDDED-BUFFER-TEXT"}},
                {"type": "resource_link", "uri": format!("file://{linked}"), "name": "linked.rs"},
            ]})])}),
        )
        .await;
    log.assert_clean();
    assert_eq!(
        log.result(0)["agentCapabilities"]["promptCapabilities"]["embeddedContext"],
        true,
        "{}",
        log.dump()
    );
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    let body = fx.requests()[0].body.to_string();
    // The embedded text as sent, the linked file's contents attached from disk.
    for want in [
        "look at these",
        "EMBEDDED-BUFFER-TEXT",
        "LINKED-FILE-CONTENT",
    ] {
        assert!(body.contains(want), "{want} in {body}");
    }
}

#[tokio::test]
async fn reasoning_streams_as_thought_chunks_before_the_answer() {
    let fx = Fixture::start().await;
    let role = sse::data(&sse::chunk(
        json!({"role": "assistant", "content": ""}),
        None,
    ));
    let think = |t: &str| {
        Step::Bytes(sse::data(&sse::chunk(
            json!({"reasoning_content": t}),
            None,
        )))
    };
    fx.push(Reply::Stream(vec![
        Step::Bytes(role),
        think("weigh "),
        think("it"),
        Step::Bytes(sse::text("the answer")),
        Step::Bytes(sse::finish("stop")),
        Step::Bytes(sse::done()),
    ]));
    let Some(ed) = Editor::new("acp reasoning", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({"steps": steps(start(&ed.cwd()), vec![prompt("think")])}),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    let during = log.updates_during(2);
    assert_eq!(
        Log::chunks(&during, "agent_thought_chunk").concat(),
        "weigh it",
        "{}",
        log.dump()
    );
    assert_eq!(
        Log::chunks(&during, "agent_message_chunk").concat(),
        "the answer"
    );
    let first = |kind: &str| during.iter().position(|u| u["sessionUpdate"] == kind);
    assert!(first("agent_thought_chunk") < first("agent_message_chunk"));
}

#[tokio::test]
async fn the_todo_list_is_an_acp_plan() {
    let fx = Fixture::start().await;
    fx.push(calls(&[(
        "t1",
        "todo",
        json!({"items": [
            {"content": "read the code", "status": "done"},
            {"content": "edit the code", "status": "in_progress"},
            {"content": "run the tests", "status": "pending"},
        ]}),
    )]));
    fx.push(Reply::Stream(sse::text_reply(&["planned"])));
    let Some(ed) = Editor::new("acp plan", &fx.base_url(), "") else {
        return;
    };
    let log = ed
        .run(
            &[],
            json!({"steps": steps(start(&ed.cwd()), vec![prompt("plan it")])}),
        )
        .await;
    log.assert_clean();
    assert_eq!(log.stop_reason(2), "end_turn", "{}", log.dump());
    assert!(
        log.permissions().is_empty(),
        "todo never asks: {}",
        log.dump()
    );
    let plans: Vec<&Value> = log
        .updates()
        .into_iter()
        .filter(|u| u["sessionUpdate"] == "plan")
        .collect();
    assert_eq!(plans.len(), 1, "{}", log.dump());
    let entries: Vec<(&str, &str)> = plans[0]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["content"].as_str().unwrap(),
                e["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("read the code", "completed"),
            ("edit the code", "in_progress"),
            ("run the tests", "pending"),
        ]
    );
}
