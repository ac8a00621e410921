//! JSON Lines events on stdout, one object per line with a `type` (SPEC §7). The contract is
//! `docs/json-events.md`, pinned by a test that compares it with what real runs print; every
//! field name is spelled here, and [`SCHEMA`] (in `session_started`) changes when a field is
//! renamed or removed, or changes meaning.

use std::io::Write;

use serde_json::{Value, json};

use super::{Printer, notices};
use crate::events::{Event, Mode, TurnEnd};
use crate::provider::{Retry, StreamDelta};

/// The version of the events' shape, in `session_started`. Adding an event or a field keeps it.
pub const SCHEMA: u32 = 1;

/// The one line a run that cannot start prints (bad usage, a config error, no endpoint):
/// before any `session_started`, and nothing follows it.
pub fn startup_error(message: &str) -> Value {
    json!({"type": "error", "message": message, "will_retry": false, "startup": true})
}

pub struct JsonPrinter<O: Write> {
    out: O,
    /// The context gauge for the next `turn_completed`.
    context: Option<Value>,
    /// The MCP servers: a tool event of `SERVER__TOOL` also names its `server`.
    mcp_servers: Vec<String>,
}

impl<O: Write> JsonPrinter<O> {
    pub fn new(out: O) -> Self {
        Self {
            out,
            context: None,
            mcp_servers: Vec::new(),
        }
    }

    /// Tool events of these servers' tools carry `"server"`.
    pub fn with_mcp_servers(mut self, names: Vec<String>) -> Self {
        self.mcp_servers = names;
        self
    }

    /// Adds `server` to an event about an MCP tool.
    fn mark_server(&self, mut v: Value) -> Value {
        let server = v["name"].as_str().and_then(|name| {
            self.mcp_servers
                .iter()
                .find(|s| name.starts_with(&format!("{s}__")))
                .cloned()
        });
        if let (Some(server), Some(obj)) = (server, v.as_object_mut()) {
            obj.insert("server".into(), Value::String(server));
        }
        v
    }

    fn emit(&mut self, v: Value) {
        let _ = serde_json::to_writer(&mut self.out, &v);
        let _ = self.out.write_all(b"\n");
    }

    /// The JSON of a stream event, `None` for those not reported.
    fn stream(&mut self, ev: &Event) -> Option<Value> {
        Some(match ev {
            Event::Delta(StreamDelta::Text(t)) => json!({"type": "message_delta", "text": t}),
            Event::Delta(StreamDelta::Reasoning(r)) => {
                json!({"type": "reasoning_delta", "text": r})
            }
            Event::Delta(StreamDelta::ToolCallStarted { index, id, name }) => {
                json!({"type": "tool_use_begin", "index": index, "call_id": id, "name": name})
            }
            Event::Delta(StreamDelta::ToolCallArguments { index, fragment }) => {
                json!({"type": "tool_use_delta", "index": index, "arguments": fragment})
            }
            Event::Retrying(Retry {
                retry,
                max_retries,
                delay,
                error,
            }) => json!({
                "type": "error",
                "message": error.to_string(),
                "will_retry": true,
                "retry": retry,
                "max_retries": max_retries,
                "delay_ms": delay.as_millis() as u64,
                "discard_partial": true,
            }),
            Event::ReplyDone(m) => {
                for (index, c) in m.tool_calls.iter().enumerate() {
                    let v = self.mark_server(json!({
                        "type": "tool_use_end", "index": index, "call_id": c.id, "name": c.name, "arguments": c.arguments,
                    }));
                    self.emit(v);
                }
                json!({
                    "type": "turn_completed", "usage": m.usage, "finish_reason": m.finish_reason,
                    "context": self.context.take(),
                })
            }
            Event::Context {
                used,
                window,
                source,
                estimated,
                ..
            } => {
                self.context = Some(json!({
                    "used": used, "window": window, "source": source, "estimated": estimated,
                    "percent": (*used as f64 * 100.0 / (*window).max(1) as f64).round(),
                }));
                return None;
            }
            Event::Pruned { outputs, chars } => {
                json!({"type": "context_pruned", "outputs": outputs, "chars": chars})
            }
            Event::Compacted {
                summary,
                before,
                after,
                ..
            } => json!({"type": "compacted", "before": before, "after": after, "summary": summary}),
            // What sayso says along the way: overflow recovery, a small window, a warning.
            Event::Notice(n) => {
                let message = notices::message(n)?;
                if n.is_error() {
                    json!({"type": "notice", "message": message, "error": true})
                } else {
                    json!({"type": "notice", "message": message})
                }
            }
            _ => return None,
        })
    }

    /// The JSON of a tool event, `None` for those not reported.
    fn tool(ev: &Event) -> Option<Value> {
        Some(match ev {
            Event::ApprovalRequested {
                call_id,
                name,
                cmd_string,
                judge_reason,
                caution,
            } => json!({
                "type": "approval_requested", "call_id": call_id, "name": name,
                "cmd_string": cmd_string, "judge_reason": judge_reason, "caution": caution,
            }),
            Event::ApprovalDecided {
                call_id,
                name,
                choice,
            } => json!({
                "type": "approval_decided", "call_id": call_id, "name": name,
                "choice": choice.as_str(), "reason": choice.reason(),
            }),
            Event::JudgeStarted {
                call_id,
                name,
                context,
            } => json!({
                "type": "judge_started", "call_id": call_id, "name": name, "context": context,
            }),
            Event::JudgeFinished {
                call_id,
                name,
                safe,
                reason,
            } => json!({
                "type": "judge_finished", "call_id": call_id, "name": name, "safe": safe, "reason": reason,
            }),
            Event::ToolStarted {
                call_id,
                name,
                cmd_string,
                args,
                unasked,
            } => json!({
                "type": "tool_started", "call_id": call_id, "name": name, "cmd_string": cmd_string, "args": args,
                "unasked": unasked.as_ref().map(|u| json!({"why": u.as_str(), "text": u.describe()})),
            }),
            Event::ToolOutput {
                call_id,
                name,
                content,
                display,
            } => json!({
                "type": "tool_output", "call_id": call_id, "name": name, "content": content, "display": display,
            }),
            Event::FileChanged {
                call_id,
                name,
                change,
            } => json!({
                "type": "file_changed", "call_id": call_id, "name": name, "path": change.path,
                "kind": change.kind.as_str(), "diff": change.diff, "added": change.added,
                "removed": change.removed, "truncated": change.truncated,
            }),
            Event::Checkpoint(c) => json!({
                "type": "checkpoint", "call_id": c.call_id, "turn": c.turn,
                "checkpoint": c.manifest.as_str(), "paths": c.paths, "pending": c.pending,
                "unrecoverable": c.unrecoverable, "cap_reached": c.cap_reached,
            }),
            Event::Todo { call_id, items } => json!({
                "type": "todo", "call_id": call_id, "items": items,
            }),
            Event::ToolFinished { call_id, name, end } => json!({
                "type": "tool_finished", "call_id": call_id, "name": name, "status": end.as_str(),
            }),
            _ => return None,
        })
    }
}

impl<O: Write> Printer for JsonPrinter<O> {
    fn session_started(&mut self, model: &str, provider: &str, mode: Mode, session: Option<&str>) {
        self.emit(json!({
            "type": "session_started", "schema": SCHEMA, "model": model, "provider": provider,
            "auto": mode == Mode::Auto, "approval_mode": mode.as_str(), "session_id": session,
        }));
    }

    fn event(&mut self, ev: &Event) {
        if let Some(v) = self.stream(ev).or_else(|| Self::tool(ev)) {
            let v = self.mark_server(v);
            self.emit(v);
        }
    }

    fn control_request(&mut self, request: &Value) {
        self.emit(request.clone());
        let _ = self.out.flush();
    }

    fn session_finished(&mut self, end: &TurnEnd, text: &str) {
        if let Some(message) = end.message() {
            self.emit(json!({"type": "error", "message": message, "will_retry": false}));
        }
        self.emit(json!({"type": "session_finished", "status": end.status(), "text": text}));
    }

    fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Notice;

    /// A notice is a `notice` event, `"error": true` only on a problem; one a headless run
    /// does not show prints nothing.
    #[test]
    fn notices_are_notice_events() {
        let mut out = Vec::new();
        {
            let mut p = JsonPrinter::new(&mut out);
            for n in [
                Notice::Overflow { window: 8192 },
                Notice::SkippedLines(1),
                Notice::ReplayedMode(Mode::Auto),
            ] {
                p.event(&Event::Notice(n));
            }
        }
        let lines: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            lines,
            [
                json!({"type": "notice", "message": "the request did not fit the model's context window (8192 tokens): making room and trying once more"}),
                json!({"type": "notice", "message": "1 unreadable line(s) of the session file were skipped (a crash while it was written)", "error": true}),
            ]
        );
    }
}
