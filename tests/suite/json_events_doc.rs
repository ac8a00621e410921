//! `docs/json-events.md` is the contract of `sayso -p --json`: real runs of the binary — a tool
//! call answered over `--approvals stdio`, auto mode with the judge and a retry, a long session
//! that prunes and compacts, auto mode's file edits, a run that cannot start — must print only
//! events and fields the page documents, and every event and field the page documents must
//! appear in them. The one exception is a field the page marks "(MCP tools only)" (`server`),
//! which needs an MCP server (`mcp_e2e.rs` checks it).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::support::context_limit::Overflow;
use crate::support::controller::{Script, drive, response};
use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, Step, sse};
use crate::support::json_lines;
use crate::support::{home_with, run, sayso};

/// Each documented event with its fields (`usage.prompt_tokens` for a field of an object), and
/// the fields marked "(MCP tools only)".
struct Doc {
    events: BTreeMap<String, BTreeSet<String>>,
    mcp_only: BTreeSet<(String, String)>,
}

fn doc() -> Doc {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json-events.md"))
        .expect("docs/json-events.md");
    let section = text
        .split("\n## Events\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("an Events section");
    let mut doc = Doc {
        events: BTreeMap::new(),
        mcp_only: BTreeSet::new(),
    };
    let mut current: Option<String> = None;
    for line in section.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            let name = heading.trim().trim_matches('`').to_owned();
            doc.events.entry(name.clone()).or_default();
            current = Some(name);
        } else if let (Some(event), Some(row)) = (&current, line.strip_prefix("| `")) {
            let field = row.split('`').next().unwrap().to_owned();
            if line.contains("(MCP tools only)") {
                doc.mcp_only.insert((event.clone(), field.clone()));
            }
            doc.events.get_mut(event).unwrap().insert(field);
        }
    }
    doc
}

/// The fields of `v` (not `type`), descending into an object where the page documents its
/// fields (`prefix.key`); other objects (a call's arguments) are values.
fn fields(v: &Value, prefix: &str, documented: &BTreeSet<String>, out: &mut BTreeSet<String>) {
    let Some(obj) = v.as_object() else { return };
    for (k, val) in obj {
        if prefix.is_empty() && k == "type" {
            continue;
        }
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        let dotted = format!("{path}.");
        if val.is_object() && documented.iter().any(|d| d.starts_with(&dotted)) {
            fields(val, &path, documented, out);
        }
        out.insert(path);
    }
}

fn reasoning(text: &str) -> Step {
    Step::Bytes(sse::data(&sse::chunk(
        json!({"reasoning_content": text}),
        None,
    )))
}

/// A tool call answered by a program over `--approvals stdio`, after some reasoning.
async fn controlled_run() -> Vec<Value> {
    let fx = Fixture::start().await;
    let Reply::Stream(mut steps) = call_reply(&[("c1", "run_command", json!({"cmd": "echo hi"}))])
    else {
        unreachable!()
    };
    steps.insert(1, reasoning("I will run it."));
    fx.push(Reply::Stream(steps));
    fx.push(Reply::Stream(sse::text_reply(&["It said ", "hi."])));
    let home = home_with(&fx.base_url(), "");
    let script: Script = Box::new(|v: &Value| {
        if v["type"] == "control_request" {
            vec![response(
                v["request_id"].as_str().unwrap(),
                "allow",
                json!({}),
            )]
        } else {
            vec![]
        }
    });
    let run = drive(home.path(), &["--approvals", "stdio"], script, false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.events
}

/// Auto mode: a retried request, a command the judge finds unsafe (headless: rejected), and an
/// MCP server that cannot start.
async fn auto_run() -> Vec<Value> {
    let fx = Fixture::start().await;
    fx.push(Reply::Status {
        status: 503,
        headers: vec![],
        body: r#"{"error":{"message":"overloaded"}}"#.into(),
    });
    fx.push(call_reply(&[(
        "c1",
        "run_command",
        json!({"cmd": "touch judged"}),
    )]));
    fx.push(Reply::Json(json!({"choices": [{"message": {"content": "{\"safe\": false, \"reason\": \"writes a file\"}"}}]})));
    fx.push(Reply::Stream(sse::text_reply(&["Not run."])));
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("config/sayso")).unwrap();
    std::fs::write(
        home.path().join("config/sayso/config.toml"),
        format!(
            "model = \"m\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 1\nretry_initial_delay_ms = 20\n\
             [mcp_servers.gone]\ncommand = \"/nonexistent/server\"\nstartup_timeout = 2\n",
            fx.base_url()
        ),
    )
    .unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "--auto", "go"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    json_lines(&out.stdout)
}

/// Twelve big files read in one turn against a 6,000-token window: pruning, then compaction.
async fn long_run() -> Vec<Value> {
    let fx = Fixture::start().await;
    fx.context_limit(6000, Overflow::LlamaCpp);
    fx.route_not_streamed(Reply::Json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "SUMMARY: files read."}, "finish_reason": "stop"}],
    })));
    let home = home_with(&fx.base_url(), "");
    for i in 0..12 {
        let body: String = (0..100)
            .map(|l| format!("file {i:02} line {l:03}: {}\n", "x".repeat(28)))
            .collect();
        std::fs::write(home.path().join(format!("f{i:02}.txt")), body).unwrap();
        let Reply::Stream(mut steps) = call_reply(&[(
            format!("r{i}").as_str(),
            "read_file",
            json!({"filepath": format!("f{i:02}.txt"), "start_line": null, "end_line": null}),
        )]) else {
            unreachable!()
        };
        let thought = format!("Now file {i}. {}", "I keep notes. ".repeat(80));
        steps.insert(1, Step::Bytes(sse::text(&thought)));
        fx.push(Reply::Stream(steps));
    }
    fx.push(Reply::Stream(sse::text_reply(&["All read."])));
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "Read f00.txt to f11.txt, one at a time."]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    json_lines(&out.stdout)
}

/// Auto mode: `create_file` and `edit_file` run without asking, each followed by its
/// `file_changed`; a `todo` call is followed by its `todo`.
async fn edit_run() -> Vec<Value> {
    let fx = Fixture::start().await;
    fx.push(call_reply(&[
        (
            "c1",
            "create_file",
            json!({"filepath": "hello.md", "content": "# Hello\n"}),
        ),
        (
            "c2",
            "edit_file",
            json!({"filepath": "notes.txt", "edits": [{"oldText": "old\n", "newText": "new\n", "replaceAll": null}], "explanation": null}),
        ),
        (
            "c3",
            "todo",
            json!({"items": [{"content": "write hello.md", "status": "done"}, {"content": "fix notes.txt", "status": "in_progress"}]}),
        ),
    ]));
    fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    let home = home_with(&fx.base_url(), "");
    std::fs::write(home.path().join("notes.txt"), "keep\nold\n").unwrap();
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "--auto", "write hello.md and fix notes.txt"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(home.path().join("hello.md")).unwrap(),
        "# Hello\n"
    );
    assert_eq!(
        std::fs::read_to_string(home.path().join("notes.txt")).unwrap(),
        "keep\nnew\n"
    );
    let events = json_lines(&out.stdout);
    let changed: Vec<(&str, &str)> = events
        .iter()
        .filter(|e| e["type"] == "file_changed")
        .map(|e| (e["path"].as_str().unwrap(), e["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(changed, [("hello.md", "created"), ("notes.txt", "edited")]);
    let todo: Vec<&Value> = events.iter().filter(|e| e["type"] == "todo").collect();
    assert_eq!(todo.len(), 1, "{events:?}");
    assert_eq!(todo[0]["items"][1]["status"], "in_progress");
    events
}

/// A config error: the one startup `error` event.
async fn startup_error_run() -> Vec<Value> {
    let home = home_with(
        "http://127.0.0.1:9/v1",
        "[chat]\napproval_mode = \"sometimes\"\n",
    );
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "--json", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2, "{}", out.stderr);
    json_lines(&out.stdout)
}

#[tokio::test]
async fn the_json_events_page_documents_exactly_what_runs_print() {
    let doc = doc();
    assert!(doc.events.len() >= 20, "{:?}", doc.events.keys());
    let mut events = controlled_run().await;
    events.extend(auto_run().await);
    events.extend(long_run().await);
    events.extend(edit_run().await);
    events.extend(startup_error_run().await);

    let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for e in &events {
        let kind = e["type"].as_str().unwrap_or_else(|| panic!("no type: {e}"));
        let documented = doc
            .events
            .get(kind)
            .unwrap_or_else(|| panic!("`{kind}` is not in docs/json-events.md: {e}"));
        let mut f = BTreeSet::new();
        fields(e, "", documented, &mut f);
        for field in &f {
            assert!(
                documented.contains(field),
                "`{kind}` has `{field}`, which docs/json-events.md does not list: {e}"
            );
        }
        seen.entry(kind.to_owned()).or_default().extend(f);
    }
    for (kind, documented) in &doc.events {
        let got = seen
            .get(kind)
            .unwrap_or_else(|| panic!("docs/json-events.md lists `{kind}`, which no run printed"));
        for field in documented {
            if doc.mcp_only.contains(&(kind.clone(), field.clone())) {
                continue;
            }
            assert!(
                got.contains(field),
                "docs/json-events.md lists `{kind}.{field}`, which no run printed (seen: {got:?})"
            );
        }
    }
}
