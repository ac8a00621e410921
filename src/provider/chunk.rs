//! Lenient types for one streamed chat-completion chunk (and the non-streamed response).
//!
//! Every field is optional and every odd shape seen in the wild is accepted: missing
//! `id`/`created`/`model`, `finish_reason` as any string (`""` included) or null, tool-call
//! deltas without `index`, `content` as a string or an array of `{text}` parts, reasoning as
//! `reasoning_content` or `reasoning` (a string or `{text}`/`{content}`), `usage: {}`, numbers
//! sent as floats or strings. A value of the wrong type becomes `None` instead of failing the
//! whole chunk: one odd field must not lose a reply.
//!
//! Speed: the derived impls reach these rules by buffering each `choices` array into serde's
//! `Content` (`#[serde(untagged)]`) and round-tripping scalars through `serde_json::Value`. A
//! hand-written streaming twin was measured at ~1 ms per MB of stream faster and removed: the
//! goals are met without it (BENCHMARKS.md §1, "Without `chunk/fast.rs`").

use serde::de::{Deserializer, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One `data:` payload of a chat-completion stream.
#[derive(Debug, Default, Deserialize)]
pub struct Chunk {
    #[serde(default, deserialize_with = "seq_or_none")]
    pub choices: Vec<ChunkChoice>,
    #[serde(default, deserialize_with = "usage_or_none")]
    pub usage: Option<Usage>,
    /// An error delivered inside the stream: `data: {"error": …}`.
    #[serde(default, deserialize_with = "present_value")]
    pub error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ChunkChoice {
    #[serde(default, deserialize_with = "delta_or_none")]
    pub delta: Option<Delta>,
    /// Some servers put the whole message in the last chunk (or send non-streamed shapes).
    #[serde(default, deserialize_with = "delta_or_none")]
    pub message: Option<Delta>,
    #[serde(default, deserialize_with = "string_or_none")]
    pub finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Delta {
    #[serde(default, deserialize_with = "text_or_none")]
    pub content: Option<String>,
    #[serde(default, deserialize_with = "text_or_none")]
    pub reasoning_content: Option<String>,
    #[serde(default, deserialize_with = "text_or_none")]
    pub reasoning: Option<String>,
    #[serde(default, deserialize_with = "seq_or_none")]
    pub tool_calls: Vec<ToolCallDelta>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ToolCallDelta {
    #[serde(default, deserialize_with = "u64_or_none")]
    pub index: Option<u64>,
    #[serde(default, deserialize_with = "string_or_none")]
    pub id: Option<String>,
    #[serde(default)]
    pub function: Option<FunctionDelta>,
}

#[derive(Debug, Default, Deserialize)]
pub struct FunctionDelta {
    #[serde(default, deserialize_with = "string_or_none")]
    pub name: Option<String>,
    /// A string fragment; a server that sends a JSON object gets it re-serialised.
    #[serde(default, deserialize_with = "arguments_or_none")]
    pub arguments: Option<String>,
}

/// Token usage as reported by the server. Missing counts are `None`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub struct Usage {
    #[serde(default, deserialize_with = "u64_or_none")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "u64_or_none")]
    pub completion_tokens: Option<u64>,
    #[serde(default, deserialize_with = "u64_or_none")]
    pub total_tokens: Option<u64>,
}

fn present_value<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok((!v.is_null()).then_some(v))
}

fn string_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(string_from(Value::deserialize(d)?))
}

fn string_from(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn u64_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(u64_from(Value::deserialize(d)?))
}

fn u64_from(v: Value) -> Option<u64> {
    match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Text content: a string, an array of parts with `text`, or an object with `text`/`content`.
fn text_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text {
        Plain(String),
        Parts(Vec<Value>),
        Object(Value),
    }
    fn part_text(v: &Value) -> Option<&str> {
        match v {
            Value::String(s) => Some(s),
            Value::Object(o) => o
                .get("text")
                .or_else(|| o.get("content"))
                .and_then(Value::as_str),
            _ => None,
        }
    }
    Ok(match Option::<Text>::deserialize(d).unwrap_or(None) {
        Some(Text::Plain(s)) => Some(s),
        Some(Text::Parts(parts)) => {
            let joined: String = parts.iter().filter_map(part_text).collect();
            Some(joined)
        }
        Some(Text::Object(o)) => part_text(&o).map(str::to_owned),
        None => None,
    })
}

fn arguments_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(arguments_from(Value::deserialize(d)?))
}

fn arguments_from(v: Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}

fn seq_or_none<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum SeqOr<T> {
        Seq(Vec<T>),
        Other(IgnoredAny),
    }
    Ok(match SeqOr::<T>::deserialize(d)? {
        SeqOr::Seq(v) => v,
        SeqOr::Other(_) => Vec::new(),
    })
}

fn delta_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Delta>, D::Error> {
    Ok(Option::<Delta>::deserialize(d).unwrap_or(None))
}

fn usage_or_none<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Usage>, D::Error> {
    Ok(Option::<Usage>::deserialize(d).unwrap_or(None))
}

#[cfg(test)]
mod tests;
