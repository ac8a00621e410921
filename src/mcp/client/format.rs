//! A `tools/call` result, read as plain JSON, into a [`CallOutput`]: what the model receives
//! (`content`), a few lines for the user (`display`), and the server's `isError`.
//!
//! Rules, block by block, in order, one per line:
//! - `text`: the text; text blocks are joined with newlines;
//! - `image` / `audio`: `[image: MIME, N bytes of base64]` — the model gets no pixels;
//! - `resource` (embedded): its text, or `[resource: URI, MIME, N bytes of base64]` for a blob;
//! - `resource_link`: `[resource link: URI]`;
//! - anything else: `[unsupported content: TYPE]`.
//!
//! `structuredContent` is appended as compact JSON when there is no text, or when the text does
//! not already say it (servers often send the same data both ways: as JSON text, or as a text
//! holding every value of the object).
//!
//! Pure and total: any JSON at all gives an output, never a panic.

use serde_json::Value;

use super::CallOutput;

/// How many lines of the result `display` shows.
const DISPLAY_LINES: usize = 3;
/// How many characters `display` holds at most (an ellipsis included).
const DISPLAY_CHARS: usize = 300;
/// How much of an unreadable result is quoted.
const QUOTE_CHARS: usize = 200;
/// Structured content with more values than this is always shown (checking is not worth it).
const MAX_LEAVES: usize = 256;

/// Turns an MCP `CallToolResult` (as JSON) into a [`CallOutput`]. See the module docs.
///
/// The result is scrubbed of secret values (`crate::secrets`) first: the display, a quote of
/// an unreadable result and other parts are cut to a length, and a cut secret would escape
/// the scrub every tool's output gets at the end.
pub fn format_result(server: &str, result: &Value) -> CallOutput {
    let result = &crate::secrets::scrub_json(result.clone());
    let Some(object) = result.as_object() else {
        let content = format!(
            "MCP server `{server}` sent a tool result sayso cannot read: {}",
            cut(&compact(result), QUOTE_CHARS)
        );
        return CallOutput {
            display: display_of(&content),
            content,
            is_error: true,
        };
    };
    let is_error = object.get("isError").and_then(Value::as_bool) == Some(true);
    let mut parts: Vec<String> = Vec::new();
    let mut texts: Vec<&str> = Vec::new();
    match object.get("content") {
        None | Some(Value::Null) => {}
        Some(Value::Array(blocks)) => {
            for block in blocks {
                parts.push(format_block(block, &mut texts));
            }
        }
        Some(_) => parts.push("[unsupported content: not a list of blocks]".to_owned()),
    }
    if let Some(structured) = object.get("structuredContent").filter(|v| !v.is_null())
        && (texts.is_empty() || !already_said(&texts, structured))
    {
        parts.push(compact(structured));
    }
    let content = parts.join("\n");
    CallOutput {
        display: display_of(&content),
        content,
        is_error,
    }
}

fn format_block<'a>(block: &'a Value, texts: &mut Vec<&'a str>) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    let field = |name: &str| block.get(name).and_then(Value::as_str);
    match kind {
        "text" => match field("text") {
            Some(text) => {
                texts.push(text);
                text.to_owned()
            }
            None => "[unsupported content: text without text]".to_owned(),
        },
        "image" | "audio" => format!(
            "[{kind}: {}, {} bytes of base64]",
            label(field("mimeType"), "unknown type"),
            field("data").map_or(0, str::len)
        ),
        "resource" => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let get = |name: &str| resource.get(name).and_then(Value::as_str);
            let uri = label(get("uri"), "no uri");
            match (get("text"), get("blob")) {
                (Some(text), _) => {
                    texts.push(text);
                    text.to_owned()
                }
                (None, Some(blob)) => format!(
                    "[resource: {uri}, {}, {} bytes of base64]",
                    label(get("mimeType"), "unknown type"),
                    blob.len()
                ),
                (None, None) => format!("[resource: {uri}]"),
            }
        }
        "resource_link" => format!("[resource link: {}]", label(field("uri"), "no uri")),
        "" => "[unsupported content: unknown]".to_owned(),
        other => format!("[unsupported content: {}]", label(Some(other), "unknown")),
    }
}

/// A server-given name for a placeholder: one line, not too long.
fn label(value: Option<&str>, missing: &str) -> String {
    let value = value.map(str::trim).filter(|v| !v.is_empty());
    match value {
        Some(v) => cut(&v.replace(['\n', '\r'], " "), 200),
        None => missing.to_owned(),
    }
}

/// Whether the text blocks already carry `structured`: one of them is that very JSON, or the
/// text holds every value (string, number, bool) in it.
fn already_said(texts: &[&str], structured: &Value) -> bool {
    let same_json = texts
        .iter()
        .any(|t| serde_json::from_str::<Value>(t.trim()).is_ok_and(|v| &v == structured));
    if same_json {
        return true;
    }
    let mut leaves = Vec::new();
    if !collect_leaves(structured, &mut leaves) {
        return false;
    }
    let text = texts.join("\n");
    leaves.iter().all(|leaf| text.contains(leaf.as_str()))
}

/// The scalar values in `value`, as text; false when there are more than [`MAX_LEAVES`].
fn collect_leaves(value: &Value, out: &mut Vec<String>) -> bool {
    match value {
        Value::Null => {}
        Value::String(s) if s.is_empty() => {}
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Bool(b) => out.push(b.to_string()),
        Value::Array(items) => {
            if !items.iter().all(|v| collect_leaves(v, out)) {
                return false;
            }
        }
        Value::Object(map) => {
            if !map.values().all(|v| collect_leaves(v, out)) {
                return false;
            }
        }
    }
    out.len() <= MAX_LEAVES
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The first non-blank lines of `content`, at most [`DISPLAY_LINES`] and [`DISPLAY_CHARS`].
fn display_of(content: &str) -> String {
    let lines: Vec<&str> = content
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(DISPLAY_LINES)
        .collect();
    cut(&lines.join("\n"), DISPLAY_CHARS)
}

/// `text` cut to at most `max` characters, the last one an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    if crate::text_cut::head_chars(text, max).len() == text.len() {
        return text.to_owned();
    }
    format!(
        "{}…",
        crate::text_cut::head_chars(text, max.saturating_sub(1))
    )
}
