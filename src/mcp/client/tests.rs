//! `format_result` on every content kind, `isError`, `structuredContent` and garbage; the error
//! wording. (Real servers are exercised in `tests/real_servers/mcp.rs`.)

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use std::sync::Arc;

use super::{CallOutput, McpError, ToolInfo, format_result};

fn out(v: Value) -> CallOutput {
    format_result("srv", &v)
}

#[test]
fn text_blocks_are_joined_with_newlines() {
    let o = out(json!({"content": [
        {"type": "text", "text": "first"},
        {"type": "text", "text": "second"}
    ]}));
    assert_eq!(o.content, "first\nsecond");
    assert_eq!(o.display, "first\nsecond");
    assert!(!o.is_error);
}

#[test]
fn image_and_audio_become_one_placeholder_line() {
    let o = out(json!({"content": [
        {"type": "text", "text": "Here:"},
        {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
        {"type": "image", "data": 7}
    ]}));
    assert_eq!(
        o.content,
        "Here:\n[image: image/png, 8 bytes of base64]\n[audio: audio/wav, 4 bytes of base64]\n\
         [image: unknown type, 0 bytes of base64]"
    );
}

#[test]
fn embedded_resources_give_their_text_or_a_placeholder() {
    let o = out(json!({"content": [
        {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "body"}},
        {"type": "resource", "resource": {"uri": "file:///b.bin", "mimeType": "application/zip", "blob": "UEsDBA=="}},
        {"type": "resource", "resource": {"uri": "file:///c"}},
        {"type": "resource"}
    ]}));
    assert_eq!(
        o.content,
        "body\n[resource: file:///b.bin, application/zip, 8 bytes of base64]\n\
         [resource: file:///c]\n[resource: no uri]"
    );
}

#[test]
fn resource_links_name_their_uri() {
    let o = out(json!({"content": [
        {"type": "resource_link", "uri": "test://static/resource/1", "name": "Resource 1"}
    ]}));
    assert_eq!(o.content, "[resource link: test://static/resource/1]");
}

#[test]
fn unknown_block_types_are_named() {
    let o = out(json!({"content": [
        {"type": "hologram", "data": "?"},
        {"no_type": true},
        "just a string",
        {"type": "text"}
    ]}));
    assert_eq!(
        o.content,
        "[unsupported content: hologram]\n[unsupported content: unknown]\n\
         [unsupported content: unknown]\n[unsupported content: text without text]"
    );
}

#[test]
fn is_error_is_kept() {
    let o = out(json!({"content": [{"type": "text", "text": "no such file"}], "isError": true}));
    assert!(o.is_error);
    assert_eq!(o.content, "no such file");
    assert!(!out(json!({"content": [], "isError": "yes"})).is_error);
}

#[test]
fn structured_content_alone_is_compact_json() {
    let o = out(json!({"content": [], "structuredContent": {"sum": 3, "ok": true}}));
    assert_eq!(o.content, r#"{"sum":3,"ok":true}"#);
    let o = out(json!({"structuredContent": [1, 2]}));
    assert_eq!(o.content, "[1,2]");
}

#[test]
fn structured_content_repeating_the_text_is_not_appended() {
    // As JSON text (what most SDKs do for compatibility) …
    let o = out(json!({
        "content": [{"type": "text", "text": "{\n  \"temperature\": 22.5,\n  \"conditions\": \"Partly cloudy\"\n}"}],
        "structuredContent": {"temperature": 22.5, "conditions": "Partly cloudy"}
    }));
    assert!(!o.content.contains(r#"{"conditions""#), "{}", o.content);
    // … or as a text holding every value (server-filesystem's `{content: text}`).
    let o = out(json!({
        "content": [{"type": "text", "text": "[DIR] a\n[FILE] b"}],
        "structuredContent": {"content": "[DIR] a\n[FILE] b"}
    }));
    assert_eq!(o.content, "[DIR] a\n[FILE] b");
}

#[test]
fn structured_content_adding_information_is_appended() {
    let o = out(json!({
        "content": [{"type": "text", "text": "Done."}],
        "structuredContent": {"id": 42}
    }));
    assert_eq!(o.content, "Done.\n{\"id\":42}");
    // An explicit null adds nothing.
    let o = out(json!({"content": [{"type": "text", "text": "x"}], "structuredContent": null}));
    assert_eq!(o.content, "x");
}

#[test]
fn display_is_the_first_three_non_blank_lines_within_300_chars() {
    let o = out(json!({"content": [{"type": "text", "text": "\n\none\n  \ntwo\nthree\nfour"}]}));
    assert_eq!(o.display, "one\ntwo\nthree");
    assert_eq!(o.content, "\n\none\n  \ntwo\nthree\nfour");
    let long = "é".repeat(500);
    let o = out(json!({"content": [{"type": "text", "text": long}]}));
    assert_eq!(o.display.chars().count(), 300);
    assert!(o.display.ends_with('…'));
}

#[test]
fn an_empty_result_is_empty() {
    assert_eq!(
        out(json!({})),
        CallOutput {
            content: String::new(),
            display: String::new(),
            is_error: false
        }
    );
    assert_eq!(out(json!({"content": null})).content, "");
}

#[test]
fn garbage_never_panics_and_says_which_server() {
    for garbage in [
        json!(null),
        json!(42),
        json!("text"),
        json!([1, 2, 3]),
        json!(true),
        json!({"content": "not a list"}),
        json!({"content": {"type": "text"}}),
        json!({"content": [null, 1, [], {"type": 5}, {"type": "image", "mimeType": ["x"]}]}),
        json!({"content": [{"type": "resource", "resource": "nope"}], "structuredContent": "s"}),
    ] {
        let o = out(garbage.clone());
        assert!(o.display.chars().count() <= 300, "{garbage}: {o:?}");
        if !garbage.is_object() {
            assert!(o.is_error, "{garbage}");
            assert!(o.content.contains("MCP server `srv`"), "{o:?}");
        }
    }
    let o = out(json!({"content": "not a list"}));
    assert_eq!(o.content, "[unsupported content: not a list of blocks]");
}

#[test]
fn deep_or_wide_structured_content_is_shown_without_checking_every_value() {
    let wide: Vec<Value> = (0..1000).map(|i| json!(i)).collect();
    let o = out(json!({"content": [{"type": "text", "text": "many"}], "structuredContent": wide}));
    assert!(
        o.content.starts_with("many\n[0,1,2"),
        "{}",
        &o.content[..20]
    );
}

#[test]
fn errors_say_it_in_one_sentence_naming_the_server() {
    let cases = [
        (
            McpError::Start {
                server: "fs".into(),
                reason: "cannot run `nope`: No such file or directory (os error 2)".into(),
            },
            "MCP server `fs` could not start: cannot run `nope`: No such file or directory (os error 2)",
        ),
        (
            McpError::Timeout {
                server: "fs".into(),
                after: Duration::from_millis(1500),
            },
            "MCP server `fs` did not answer within 1.5s",
        ),
        (
            McpError::Timeout {
                server: "fs".into(),
                after: Duration::from_millis(250),
            },
            "MCP server `fs` did not answer within 250ms",
        ),
        (
            McpError::Closed {
                server: "fs".into(),
                reason: "it was shut down".into(),
            },
            "the connection to MCP server `fs` is closed: it was shut down",
        ),
        (
            McpError::Protocol {
                server: "fs".into(),
                reason: "it answered with error -32602: bad arguments".into(),
            },
            "MCP server `fs` failed the request: it answered with error -32602: bad arguments",
        ),
        (
            McpError::Cancelled {
                server: "fs".into(),
            },
            "the call to MCP server `fs` was cancelled",
        ),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
    }
}

/// The engine keeps connections in `Arc`s and runs calls in spawned tasks: the type and its
/// futures must be `Send + Sync` / `Send`. (Compiles or not; never runs a server.)
#[test]
fn connections_and_their_futures_can_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>(_: &T) {}
    send_sync::<super::Connection>();
    send_sync::<McpError>();
    #[allow(dead_code)]
    async fn futures(conn: &super::Connection, spec: &super::ServerSpec) {
        let cancel = tokio_util::sync::CancellationToken::new();
        send(&super::Connection::connect(spec));
        send(&conn.list_tools());
        send(&conn.call_tool("t", serde_json::Map::new(), Duration::ZERO, &cancel));
        send(&conn.shutdown());
    }
}

/// A server that holds a secret (its `secret_env`, its `headers_env` token) cannot hand it to
/// the model in a tool's description or schema.
#[test]
fn a_tool_description_and_schema_are_scrubbed_of_secrets() {
    let secret = "mcp-desc-secret-7788990011";
    crate::secrets::register(
        &[crate::secrets::Secret::new(
            "mcp_servers.t.env.TOKEN",
            secret,
        )],
        &[],
    );
    let schema = serde_json::json!({
        "type": "object",
        "properties": {secret: {"type": "string", "description": format!("use {secret}")}},
        "default": [secret],
    });
    let serde_json::Value::Object(schema) = schema else {
        unreachable!()
    };
    let tool = rmcp::model::Tool::new("t", format!("Token: {secret}"), Arc::new(schema));
    let info = ToolInfo::from(tool);
    assert_eq!(
        info.description,
        "Token: [secret mcp_servers.t.env.TOKEN removed]"
    );
    let shown = info.input_schema.to_string();
    assert!(!shown.contains(secret), "{shown}");
    assert!(
        shown.contains("[secret mcp_servers.t.env.TOKEN removed]"),
        "{shown}"
    );
}

/// The display (and a quote of a result sayso cannot read) is cut to a length: never through
/// a secret value.
#[test]
fn cut_parts_of_a_result_never_hold_part_of_a_secret() {
    let secret = "mcp-cut-secret-5544332211";
    crate::secrets::register(&[crate::secrets::Secret::new("$MCP_CUT", secret)], &[]);
    let pad = "p".repeat(290);
    for result in [
        json!({"content": [{"type": "text", "text": format!("{pad}{secret}")}]}),
        json!([format!("{}{secret}", "q".repeat(190))]),
    ] {
        let o = format_result("srv", &result);
        for text in [&o.display, &o.content] {
            let shown = crate::secrets::scrub(text);
            assert!(!shown.contains(&secret[..8]), "{shown}");
        }
    }
}
