//! Arguments checked against the tool's schema before approval (issue 21 item 7), through the
//! real binary: a call that cannot run never reaches the approval request (`-p --json
//! --approvals stdio` gets none for it), the tool message sent back to the model names the
//! field, what was given and the expected shape, and the other calls of the batch go on.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::controller::{self, Run, Script, response};
use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, tool_messages};

/// Runs `sayso -p --json --approvals stdio go`, allowing every request it gets.
async fn drive_allowing(home: &std::path::Path) -> Run {
    let script: Script = Box::new(|v| {
        if v["type"] == "control_request" {
            vec![response(
                v["request_id"].as_str().unwrap_or_default(),
                "allow",
                json!({}),
            )]
        } else {
            Vec::new()
        }
    });
    controller::drive(home, &["--approvals", "stdio"], script, false).await
}

/// The call ids sayso asked about, in order.
fn asked(run: &Run) -> Vec<String> {
    run.events
        .iter()
        .filter(|e| e["type"] == "control_request")
        .filter_map(|e| e["request"]["call_id"].as_str().map(str::to_owned))
        .collect()
}

fn events_for<'a>(run: &'a Run, call_id: &str) -> Vec<&'a str> {
    run.events
        .iter()
        .filter(|e| e["call_id"] == call_id)
        .filter_map(|e| e["type"].as_str())
        .collect()
}

async fn model(calls: &[(&str, &str, Value)]) -> Fixture {
    let fx = Fixture::start().await;
    fx.push(call_reply(calls));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    fx
}

#[tokio::test]
async fn an_edit_missing_a_field_asks_nobody_and_tells_the_model_the_field_and_the_shape() {
    let fx = model(&[
        (
            "c1",
            "edit_file",
            json!({"filepath": "notes.txt", "edits": [{"newText": "bye"}]}),
        ),
        (
            "c2",
            "edit_file",
            json!({"filepath": "notes.txt", "edits": [{"oldText": "hello", "newText": "bye"}]}),
        ),
    ])
    .await;
    let h = home_with(&fx.base_url(), "");
    std::fs::write(h.path().join("notes.txt"), "hello\n").unwrap();
    let run = drive_allowing(h.path()).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Only the call that can run was put to the user; it ran.
    assert_eq!(asked(&run), ["c2"]);
    assert!(
        !events_for(&run, "c1").contains(&"approval_requested"),
        "{:?}",
        events_for(&run, "c1")
    );
    assert_eq!(
        std::fs::read_to_string(h.path().join("notes.txt")).unwrap(),
        "bye\n"
    );
    let messages = tool_messages(&fx.requests()[1].body);
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0].0, "c1");
    assert_eq!(
        messages[0].1,
        "You made an error in calling the edit_file tool, so it did not run:\n\
         - `edits[0].oldText` is missing: give a string.\n\
         Call edit_file again with arguments of this shape (`?` marks what may be left out): \
         {\"filepath\": string, \"edits\": [{\"oldText\": string, \"newText\": string, \"replaceAll\"?: boolean}], \"explanation\"?: string}"
    );
}

#[tokio::test]
async fn a_value_outside_the_enum_asks_nobody_and_lists_the_allowed_values() {
    let fx = model(&[
        ("c1", "deploy", json!({"env": "production"})),
        ("c2", "deploy", json!({"env": "staging", "dry": "true"})),
    ])
    .await;
    let extra = r#"
[chat]
default_tools = ["deploy"]
[tools.deploy]
extends = "cmd_tool"
description = "Deploy to an environment"
build_cmd = "touch deployed-{env}"
schema = { properties = { env = { type = "string", enum = ["staging", "prod"] }, dry = { type = "boolean" } }, required = ["env"] }
"#;
    let h = home_with(&fx.base_url(), extra);
    let run = drive_allowing(h.path()).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(asked(&run), ["c2"]);
    assert!(!h.path().join("deployed-production").exists());
    assert!(h.path().join("deployed-staging").exists());
    let messages = tool_messages(&fx.requests()[1].body);
    assert_eq!(
        messages[0].1,
        "You made an error in calling the deploy tool, so it did not run:\n\
         - `env` must be one of \"staging\", \"prod\", but the string \"production\" was given.\n\
         Call deploy again with arguments of this shape (`?` marks what may be left out): \
         {\"env\": \"staging\"|\"prod\", \"dry\"?: boolean}"
    );
}

/// An MCP server's own schema is checked too: the misnamed call never reaches the user or the
/// server, the right one does.
#[tokio::test]
async fn an_mcp_call_off_the_servers_schema_asks_nobody_and_names_the_field() {
    let Some(dir) = crate::support::mcp_dir("an_mcp_call_off_the_servers_schema_asks_nobody")
    else {
        return;
    };
    let fx = model(&[
        ("c1", "everything__echo", json!({"text": "hi"})),
        ("c2", "everything__echo", json!({"message": "hi"})),
    ])
    .await;
    let server = format!(
        "\n[mcp_servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\nstartup_timeout = 30\n",
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
            .display()
            .to_string()
    );
    let h = home_with(&fx.base_url(), &server);
    let run = drive_allowing(h.path()).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(asked(&run), ["c2"]);
    let messages = tool_messages(&fx.requests()[1].body);
    assert!(
        messages[0]
            .1
            .contains("- `message` is missing: give a string."),
        "{messages:?}"
    );
    assert!(
        messages[0]
            .1
            .contains("Call everything__echo again with arguments of this shape"),
        "{messages:?}"
    );
    assert_eq!(messages[1].1, "Echo: hi");
}
