//! Delta assembly: folds lenient chunks into one assistant message, emitting display deltas.
//!
//! Tool-call fragments are matched to a call by `index`, then by `id`, then — when a fragment
//! carries neither — appended to the last call. A new `id` at an index whose call already has a
//! different id starts a new call (Ollama sends `index: 0` for every call), and so does a known
//! `id` at another index (a server repeating one id for several calls; the agent makes such
//! ids unique, `agent::call_ids`). The first name and
//! id seen win: servers that repeat the name on every fragment do not get it doubled. Calls
//! that never got a name are dropped; calls without an id get `call_<n>`.
//!
//! Reasoning comes from `reasoning_content`, `reasoning`, or a leading `<think>` block in
//! `content` (see `think.rs`); the first of these it came in is kept with it, to send it back
//! there (`reasoning.rs`).

use serde::{Deserialize, Serialize};

use super::chunk::{Chunk, Delta, ToolCallDelta, Usage};
use super::reasoning::{Reasoning, ReasoningField};
use super::think::ThinkSplitter;

/// A complete tool call as the model made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The raw JSON text of the arguments, exactly as streamed.
    pub arguments: String,
}

/// The assembled reply of one model round-trip.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssistantMessage {
    pub content: String,
    pub reasoning: String,
    /// Where the server put `reasoning` (the first field it came in), to send it back there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_field: Option<ReasoningField>,
    pub tool_calls: Vec<ToolCall>,
    pub finish_reason: Option<String>,
    pub usage: Option<Usage>,
}

impl AssistantMessage {
    /// The server stopped because it hit its output token limit.
    pub fn hit_length_limit(&self) -> bool {
        self.finish_reason.as_deref() == Some("length")
    }

    /// The reasoning as the history keeps it: `None` when there was none.
    pub fn kept_reasoning(&self) -> Option<Reasoning> {
        let field = self.reasoning_field?;
        (!self.reasoning.is_empty()).then(|| Reasoning {
            text: self.reasoning.clone(),
            field,
        })
    }
}

/// What changed, in display order, as chunks arrive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamDelta {
    Text(String),
    Reasoning(String),
    /// A tool call got its name; `index` is its position in the final message.
    ToolCallStarted {
        index: usize,
        id: String,
        name: String,
    },
    ToolCallArguments {
        index: usize,
        fragment: String,
    },
    Usage(Usage),
}

#[derive(Debug, Default)]
struct PartialCall {
    wire_index: Option<u64>,
    id: Option<String>,
    name: String,
    arguments: String,
    /// Position among started calls, once it has a name.
    started: Option<usize>,
}

#[derive(Debug, Default)]
pub struct Assembler {
    content: String,
    reasoning: String,
    reasoning_field: Option<ReasoningField>,
    think: ThinkSplitter,
    calls: Vec<PartialCall>,
    started: usize,
    finish_reason: Option<String>,
    usage: Option<Usage>,
}

impl Assembler {
    pub fn push(&mut self, chunk: Chunk, out: &mut Vec<StreamDelta>) {
        for choice in chunk.choices {
            for delta in [choice.delta, choice.message].into_iter().flatten() {
                self.push_delta(delta, out);
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.finish_reason = Some(reason);
            }
        }
        if let Some(usage) = chunk.usage.filter(|u| *u != Usage::default()) {
            self.usage = Some(usage);
            out.push(StreamDelta::Usage(usage));
        }
    }

    /// A `finish_reason` has been seen: the reply is complete even if `[DONE]` never comes.
    pub fn has_finished(&self) -> bool {
        self.finish_reason.is_some()
    }

    /// Flushes held-back text and returns the message.
    pub fn finish(mut self, out: &mut Vec<StreamDelta>) -> AssistantMessage {
        let rest = self.think.finish();
        self.emit_split(rest, out);
        let tool_calls = self
            .calls
            .into_iter()
            .filter(|c| c.started.is_some())
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: c.id.unwrap_or_else(|| format!("call_{i}")),
                name: c.name,
                arguments: c.arguments,
            })
            .collect();
        AssistantMessage {
            content: self.content,
            reasoning: self.reasoning,
            reasoning_field: self.reasoning_field,
            tool_calls,
            finish_reason: self.finish_reason,
            usage: self.usage,
        }
    }

    fn push_delta(&mut self, delta: Delta, out: &mut Vec<StreamDelta>) {
        let mut fields = [
            (ReasoningField::ReasoningContent, delta.reasoning_content),
            (ReasoningField::Reasoning, delta.reasoning),
        ];
        // A server sending both fields with the same text (an alias kept for old clients)
        // means it once.
        if fields[0].1.is_some() && fields[0].1 == fields[1].1 {
            fields[1].1 = None;
        }
        for (field, r) in fields {
            if let Some(r) = r.filter(|r| !r.is_empty()) {
                self.reasoning_field.get_or_insert(field);
                self.reasoning.push_str(&r);
                out.push(StreamDelta::Reasoning(r));
            }
        }
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            let split = self.think.push(&text);
            self.emit_split(split, out);
        }
        for call in delta.tool_calls {
            self.push_call(call, out);
        }
    }

    fn emit_split(&mut self, split: super::think::Split, out: &mut Vec<StreamDelta>) {
        if !split.reasoning.is_empty() {
            self.reasoning_field
                .get_or_insert(ReasoningField::ThinkTags);
            self.reasoning.push_str(&split.reasoning);
            out.push(StreamDelta::Reasoning(split.reasoning));
        }
        if !split.text.is_empty() {
            self.content.push_str(&split.text);
            out.push(StreamDelta::Text(split.text));
        }
    }

    fn locate(&mut self, d: &ToolCallDelta) -> usize {
        let id = d.id.as_deref().filter(|s| !s.is_empty());
        if let Some(id) = id {
            // The same id at another index is another call (a server that repeats ids).
            if let Some(i) = self.calls.iter().position(|c| {
                c.id.as_deref() == Some(id)
                    && !matches!((c.wire_index, d.index), (Some(a), Some(b)) if a != b)
            }) {
                return i;
            }
            if let Some(idx) = d.index
                && let Some(i) = self
                    .calls
                    .iter()
                    .rposition(|c| c.wire_index == Some(idx) && c.id.is_none())
            {
                return i;
            }
            if d.index.is_none()
                && let Some(last) = self.calls.last()
                && last.id.is_none()
            {
                return self.calls.len() - 1;
            }
        } else if let Some(idx) = d.index {
            if let Some(i) = self.calls.iter().rposition(|c| c.wire_index == Some(idx)) {
                return i;
            }
        } else if !self.calls.is_empty() {
            return self.calls.len() - 1;
        }
        self.calls.push(PartialCall {
            wire_index: d.index,
            ..PartialCall::default()
        });
        self.calls.len() - 1
    }

    fn push_call(&mut self, d: ToolCallDelta, out: &mut Vec<StreamDelta>) {
        let i = self.locate(&d);
        let call = &mut self.calls[i];
        if call.id.is_none() {
            call.id = d.id.filter(|s| !s.is_empty());
        }
        let (name, args) = match d.function {
            Some(f) => (f.name, f.arguments),
            None => (None, None),
        };
        if call.name.is_empty()
            && let Some(name) = name.filter(|n| !n.is_empty())
        {
            call.name = name;
        }
        if call.started.is_none() && !call.name.is_empty() {
            let index = self.started;
            self.started += 1;
            call.started = Some(index);
            out.push(StreamDelta::ToolCallStarted {
                index,
                id: call.id.clone().unwrap_or_else(|| format!("call_{index}")),
                name: call.name.clone(),
            });
            if !call.arguments.is_empty() {
                out.push(StreamDelta::ToolCallArguments {
                    index,
                    fragment: call.arguments.clone(),
                });
            }
        }
        if let Some(fragment) = args.filter(|a| !a.is_empty()) {
            call.arguments.push_str(&fragment);
            if let Some(index) = call.started {
                out.push(StreamDelta::ToolCallArguments { index, fragment });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assemble(chunks: &[&str]) -> AssistantMessage {
        let mut a = Assembler::default();
        let mut out = Vec::new();
        for c in chunks {
            a.push(serde_json::from_str(c).unwrap(), &mut out);
        }
        a.finish(&mut out)
    }

    fn calls(m: &AssistantMessage) -> Vec<(&str, &str, &str)> {
        m.tool_calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.as_str()))
            .collect()
    }

    #[test]
    fn fragments_join_by_index() {
        let m = assemble(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"g","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]}}]}"#,
        ]);
        assert_eq!(calls(&m), [("a", "f", r#"{"x":1}"#), ("b", "g", "{}")]);
    }

    #[test]
    fn index_always_zero_with_distinct_ids_makes_separate_calls() {
        let m = assemble(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"f","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"g","arguments":"{\"y\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":2}"}}]}}]}"#,
        ]);
        assert_eq!(calls(&m), [("a", "f", "{}"), ("b", "g", r#"{"y":2}"#)]);
    }

    #[test]
    fn one_id_at_two_indexes_is_two_calls() {
        let m = assemble(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"dup","function":{"name":"f","arguments":"{\"a\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"dup","function":{"arguments":":1}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"dup","function":{"name":"g","arguments":"{}"}}]}}]}"#,
        ]);
        assert_eq!(calls(&m), [("dup", "f", r#"{"a":1}"#), ("dup", "g", "{}")]);
    }

    #[test]
    fn missing_index_matches_by_id_then_appends_to_last() {
        let m = assemble(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"arguments":"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"}"}}]}}]}"#,
        ]);
        assert_eq!(calls(&m), [("a", "f", "{}"), ("b", "g", "{}")]);
    }

    #[test]
    fn repeated_names_are_not_doubled_and_missing_ids_are_made_up() {
        let m = assemble(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"read","arguments":"{"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"read","arguments":"}"}}]}}]}"#,
        ]);
        assert_eq!(calls(&m), [("call_0", "read", "{}")]);
    }

    #[test]
    fn reasoning_fields_think_tags_usage_and_finish() {
        let m = assemble(&[
            r#"{"choices":[{"delta":{"reasoning_content":"a"}}]}"#,
            r#"{"choices":[{"delta":{"reasoning":"b","content":"<think>c</think>"}}]}"#,
            r#"{"choices":[{"delta":{"content":"done"},"finish_reason":""}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}"#,
        ]);
        assert_eq!(m.reasoning, "abc");
        assert_eq!(m.reasoning_field, Some(ReasoningField::ReasoningContent));
        assert_eq!(m.content, "done");
        assert_eq!(m.finish_reason.as_deref(), Some("stop"));
        assert_eq!(m.usage.unwrap().total_tokens, Some(3));
    }

    /// The field the server used is the first one reasoning came in; the same text under
    /// both names is taken once.
    #[test]
    fn reasoning_field_is_the_one_the_server_used() {
        let rows: [(&[&str], Option<ReasoningField>, &str); 5] = [
            (
                &[r#"{"choices":[{"delta":{"reasoning_content":"a"}}]}"#],
                Some(ReasoningField::ReasoningContent),
                "a",
            ),
            (
                &[
                    r#"{"choices":[{"delta":{"reasoning":"a"}}]}"#,
                    r#"{"choices":[{"delta":{"reasoning":"b"}}]}"#,
                ],
                Some(ReasoningField::Reasoning),
                "ab",
            ),
            (
                &[r#"{"choices":[{"delta":{"content":"<think>a</think>b"}}]}"#],
                Some(ReasoningField::ThinkTags),
                "a",
            ),
            (
                &[r#"{"choices":[{"delta":{"reasoning_content":"a","reasoning":"a"}}]}"#],
                Some(ReasoningField::ReasoningContent),
                "a",
            ),
            (
                &[r#"{"choices":[{"delta":{"content":"no thoughts"}}]}"#],
                None,
                "",
            ),
        ];
        for (chunks, field, text) in rows {
            let m = assemble(chunks);
            assert_eq!(m.reasoning_field, field, "{chunks:?}");
            assert_eq!(m.reasoning, text, "{chunks:?}");
            assert_eq!(m.kept_reasoning().is_some(), field.is_some(), "{chunks:?}");
        }
    }

    #[test]
    fn nameless_call_is_dropped() {
        let m = assemble(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}"#,
        ]);
        assert!(m.tool_calls.is_empty());
    }
}
