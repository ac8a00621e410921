//! Short renderings for the argument check's messages: a schema as a compact shape
//! (`{"filepath": string, "edits": [{"oldText": string, …}], "explanation"?: string}`), as a
//! noun phrase (`a list of {…}`, `one of "view", "create"`), and a given value
//! (`the string "abc"`). Pure; never panics; bounded output whatever the schema's size.

use serde_json::{Map, Value};

use super::{UNMODELLED, allows_null, enum_values, types};

/// The most enum values listed; the rest are `…`.
const MAX_MEMBERS: usize = 12;
/// The longest whole-schema shape a message carries.
const MAX_SHAPE_CHARS: usize = 600;
/// How deep a whole-schema shape goes at most.
const MAX_DEPTH: usize = 4;
/// The longest shape inside a noun (`a list of {…}`).
const MAX_NOUN_SHAPE_CHARS: usize = 300;
/// How much of a given string is quoted.
const MAX_GIVEN_CHARS: usize = 40;

/// The schema as a compact shape, objects nested `depth` deep (deeper ones are `{…}`).
pub fn shape(schema: &Value, depth: usize) -> String {
    let Some(obj) = schema.as_object() else {
        return "any".into();
    };
    if let Some(Value::String(r)) = obj.get("$ref") {
        return r.rsplit('/').next().unwrap_or("any").to_owned();
    }
    if UNMODELLED.iter().any(|k| obj.contains_key(*k)) {
        return "any".into();
    }
    if let Some(members) = enum_values(obj) {
        return members_text(&members, "|");
    }
    let branches: Vec<String> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| obj.get(*k).and_then(Value::as_array))
        .flatten()
        .map(|b| shape(b, depth))
        .filter(|s| s != "null")
        .collect();
    if !branches.is_empty() {
        return dedup(branches).join("|");
    }
    match types(obj) {
        Some(names) => {
            let parts: Vec<String> = names
                .iter()
                .filter(|t| **t != "null")
                .map(|t| match *t {
                    "object" => object_shape(obj, depth),
                    "array" => array_shape(obj, depth),
                    other => other.to_owned(),
                })
                .collect();
            if parts.is_empty() {
                "null".into()
            } else {
                dedup(parts).join("|")
            }
        }
        None if obj.contains_key("properties") => object_shape(obj, depth),
        None if obj.contains_key("items") => array_shape(obj, depth),
        None => "any".into(),
    }
}

/// The whole schema's shape, as deep as fits in a message.
pub fn fitting(schema: &Value) -> String {
    let mut depth = MAX_DEPTH;
    loop {
        let s = shape(schema, depth);
        if s.chars().count() <= MAX_SHAPE_CHARS || depth == 0 {
            return cut(&s, MAX_SHAPE_CHARS);
        }
        depth -= 1;
    }
}

/// What a value of `schema` is, as words: `a string`, `a list of {…}`, `one of "a", "b"`.
pub fn noun(schema: &Value) -> String {
    let Some(obj) = schema.as_object() else {
        return "any value".into();
    };
    if obj.contains_key("$ref") {
        return format!("a {}", shape(schema, 1));
    }
    if UNMODELLED.iter().any(|k| obj.contains_key(*k)) {
        return "any value".into();
    }
    if let Some(members) = enum_values(obj) {
        return match members.as_slice() {
            [one] => format!("exactly {one}"),
            _ => format!("one of {}", members_text(&members, ", ")),
        };
    }
    let branches: Vec<String> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| obj.get(*k).and_then(Value::as_array))
        .flatten()
        .map(noun)
        .collect();
    if !branches.is_empty() {
        return dedup(branches).join(" or ");
    }
    let names = match types(obj) {
        Some(names) => names,
        None if obj.contains_key("properties") => vec!["object"],
        None if obj.contains_key("items") => vec!["array"],
        None => return "any value".into(),
    };
    let words: Vec<String> = names
        .iter()
        .map(|t| match *t {
            "string" => "a string".to_owned(),
            "integer" => "a whole number".to_owned(),
            "number" => "a number".to_owned(),
            "boolean" => "true or false".to_owned(),
            "null" => "null".to_owned(),
            "array" => match obj.get("items").filter(|i| i.is_object()) {
                Some(items) => format!("a list of {}", short(|d| shape(items, d))),
                None => "a list".to_owned(),
            },
            "object" => match obj.get("properties").and_then(Value::as_object) {
                Some(p) if !p.is_empty() => {
                    format!("an object {}", short(|d| object_shape(obj, d)))
                }
                _ => "an object".to_owned(),
            },
            other => format!("a {other}"),
        })
        .collect();
    dedup(words).join(" or ")
}

/// A value as the message names it: `the string "abc"`, `the number 4`, `a list of 2 items`.
pub fn given(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            format!("the string {}", Value::String(cut(s, MAX_GIVEN_CHARS)))
        }
        Value::Array(a) if a.is_empty() => "an empty list".into(),
        Value::Array(a) if a.len() == 1 => "a list of 1 item".into(),
        Value::Array(a) => format!("a list of {} items", a.len()),
        Value::Object(m) if m.is_empty() => "an empty object".into(),
        Value::Object(m) => {
            let keys: Vec<String> = m.keys().take(5).map(|k| format!("`{k}`")).collect();
            let more = if m.len() > 5 { ", …" } else { "" };
            format!("an object with {}{more}", keys.join(", "))
        }
    }
}

/// `s`, or its first `max` characters and `…`.
fn cut(s: &str, max: usize) -> String {
    let head = crate::text_cut::head_chars(s, max);
    if head.len() < s.len() {
        format!("{head}…")
    } else {
        s.to_owned()
    }
}

/// A shape two levels deep, or one when that is too long, cut to fit a sentence.
fn short(render: impl Fn(usize) -> String) -> String {
    let two = render(2);
    if two.chars().count() <= MAX_NOUN_SHAPE_CHARS {
        return two;
    }
    cut(&render(1), MAX_NOUN_SHAPE_CHARS)
}

fn members_text(members: &[Value], sep: &str) -> String {
    let mut parts: Vec<String> = members
        .iter()
        .take(MAX_MEMBERS)
        .map(Value::to_string)
        .collect();
    if members.len() > MAX_MEMBERS {
        parts.push("…".into());
    }
    parts.join(sep)
}

fn dedup(parts: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(parts.len());
    for p in parts {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

fn array_shape(obj: &Map<String, Value>, depth: usize) -> String {
    match obj.get("items").filter(|i| i.is_object()) {
        Some(_) if depth == 0 => "[…]".into(),
        Some(items) => format!("[{}]", shape(items, depth - 1)),
        None => "[any]".into(),
    }
}

/// `{"a": T, "b"?: U}`: the required properties first (in `required` order), then the others
/// by name; `?` marks one that may be left out (not required, or nullable).
fn object_shape(obj: &Map<String, Value>, depth: usize) -> String {
    let Some(properties) = obj.get("properties").and_then(Value::as_object) else {
        return "object".into();
    };
    if properties.is_empty() {
        return if obj.get("additionalProperties") == Some(&Value::Bool(false)) {
            "{}".into()
        } else {
            "object".into()
        };
    }
    if depth == 0 {
        return "{…}".into();
    }
    let required: Vec<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let needed = |k: &str, v: &Value| required.contains(&k) && !allows_null(v);
    let mut keys: Vec<&String> = required
        .iter()
        .filter_map(|r| properties.get_key_value(*r))
        .filter(|(k, v)| needed(k, v))
        .map(|(k, _)| k)
        .collect();
    keys.extend(
        properties
            .iter()
            .filter(|(k, v)| !needed(k, v))
            .map(|(k, _)| k),
    );
    let fields: Vec<String> = keys
        .iter()
        .map(|k| {
            let v = properties.get(k.as_str()).unwrap_or(&Value::Null);
            let mark = if needed(k, v) { "" } else { "?" };
            format!(
                "{}{mark}: {}",
                Value::String((*k).clone()),
                shape(v, depth - 1)
            )
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}
