//! A call's arguments checked against its tool's JSON Schema before anything else looks at
//! the call (SPEC §4.3, issue 21 item 7): [`check`] lists what is wrong, each problem with its
//! path (`edits[2].oldText`) and the expected shape; [`message`] words them for the model. A
//! call that fails ends with that one error result: no setup, no judge, no modal.
//!
//! The subset checked is what sayso's tools and MCP servers' input schemas use: `type` (a name
//! or a list, `integer` vs `number`, `nullable: true`), `required`, `properties`,
//! `additionalProperties` (`false` or a schema), `enum`/`const`, `items`, nested objects, and
//! `anyOf`/`oneOf` (any branch that fits is enough).
//!
//! It is lenient on purpose, because a rejected call that would have worked costs a round and
//! teaches the model nothing. It never rejects:
//! - anything a keyword it does not model governs: a node with `$ref`, `allOf`, `not`,
//!   `if`, `dependentSchemas`… is not checked at all, and `patternProperties` turns off the
//!   unknown-property check of its object;
//! - a missing or `null` property that is not required, or required but nullable (strict
//!   schemas list every property in `required` and make the optional ones nullable; models
//!   leave them out), and a `null` property that is not in the schema at all;
//! - a value a tool reads today although its JSON type differs: a number or boolean where a
//!   string is expected, `"12"` for a number, `"true"`/`"False"` for a boolean, a JSON text
//!   for an array or an object (its content is then checked), `12.0` for an integer;
//! - `minItems`, `maxLength`, `pattern`, `format` and other limits: the tool says why.
//!
//! Pure: no IO, never panics on any schema or value.

use serde_json::{Map, Value};

mod shape;

pub use shape::{given, noun, shape};

/// Keywords whose meaning this checker does not model: a node carrying one is not checked.
const UNMODELLED: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "dependencies",
    "unevaluatedProperties",
];

/// What is wrong with one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// A required property is absent (or `null` where `null` is not allowed).
    Missing,
    /// The value has none of the allowed types (`given` describes it).
    WrongType { given: String },
    /// The value is not one of the `enum` values.
    NotAllowed { given: String },
    /// A property the schema does not allow (`additionalProperties: false`).
    Unknown { known: Vec<String> },
}

/// One problem: where, what, and what was expected there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// `filepath`, `edits[2].oldText`; empty for the arguments as a whole.
    pub path: String,
    pub fault: Fault,
    /// What the value should be, worded for the model (`a string`, `one of "a", "b"`).
    pub expected: String,
}

/// Every problem of `args` against `schema`: per object, its missing required fields first,
/// then the given fields by name, depth first.
pub fn check(schema: &Value, args: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    node(schema, args, "", &mut out);
    out
}

/// The most problems a message lists.
const MAX_LISTED: usize = 5;
/// The most property names an unknown-field problem lists.
const MAX_NAMES: usize = 20;

/// What the model is told about a call of `tool` whose arguments have `problems` (not empty).
pub fn message(tool: &str, schema: &Value, problems: &[Problem]) -> String {
    let mut lines = vec![format!(
        "You made an error in calling the {tool} tool, so it did not run:"
    )];
    for p in problems.iter().take(MAX_LISTED) {
        lines.push(format!("- {}", sentence(tool, p)));
    }
    if problems.len() > MAX_LISTED {
        lines.push(format!(
            "- and {} more problem(s)",
            problems.len() - MAX_LISTED
        ));
    }
    let whole = shape::fitting(schema);
    let optional = if whole.contains("?:") {
        " (`?` marks what may be left out)"
    } else {
        ""
    };
    lines.push(format!(
        "Call {tool} again with arguments of this shape{optional}: {whole}"
    ));
    lines.join("\n")
}

fn sentence(tool: &str, p: &Problem) -> String {
    let at = if p.path.is_empty() {
        "The arguments".to_owned()
    } else {
        format!("`{}`", p.path)
    };
    match &p.fault {
        Fault::Missing => format!("{at} is missing: give {}.", p.expected),
        Fault::WrongType { given } | Fault::NotAllowed { given } => {
            format!("{at} must be {}, but {given} was given.", p.expected)
        }
        Fault::Unknown { known } if known.is_empty() => {
            format!("{at} is not an argument of {tool}, which takes none here.")
        }
        Fault::Unknown { known } => {
            let mut names: Vec<String> = known
                .iter()
                .take(MAX_NAMES)
                .map(|k| format!("`{k}`"))
                .collect();
            if known.len() > MAX_NAMES {
                names.push("…".into());
            }
            format!(
                "{at} is not an argument of {tool} here; the ones it takes are {}.",
                names.join(", ")
            )
        }
    }
}

/// `parent.key`, or `parent["odd key"]` for a key that is not a plain name.
fn join(parent: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '$');
    match (parent.is_empty(), plain) {
        (true, true) => key.to_owned(),
        (false, true) => format!("{parent}.{key}"),
        (_, false) => format!("{parent}[{}]", Value::String(key.to_owned())),
    }
}

/// The allowed type names of a node (`None`: any type; `nullable: true` adds `null`).
pub(super) fn types(schema: &Map<String, Value>) -> Option<Vec<&str>> {
    let nullable = schema.get("nullable") == Some(&Value::Bool(true));
    let mut list: Option<Vec<&str>> = match schema.get("type") {
        Some(Value::String(t)) => Some(vec![t.as_str()]),
        Some(Value::Array(ts)) => {
            let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            // A list with something other than names is not understood: any type.
            (names.len() == ts.len() && !names.is_empty()).then_some(names)
        }
        _ => None,
    };
    if let Some(l) = list.as_mut()
        && nullable
        && !l.contains(&"null")
    {
        l.push("null");
    }
    list
}

/// Whether a property's schema lets it be left out or `null` (a non-object schema: yes).
pub(super) fn allows_null(schema: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return true;
    };
    if obj.get("nullable") == Some(&Value::Bool(true))
        || UNMODELLED.iter().any(|k| obj.contains_key(*k))
    {
        return true;
    }
    if let Some(members) = enum_values(obj) {
        return members.contains(&Value::Null);
    }
    let branches: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| obj.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    let list = types(obj);
    match list {
        Some(names) if names.contains(&"null") => true,
        Some(_) => branches.iter().any(|b| allows_null(b)),
        None => branches.is_empty() || branches.iter().any(|b| allows_null(b)),
    }
}

pub(super) fn enum_values(schema: &Map<String, Value>) -> Option<Vec<Value>> {
    match (schema.get("enum"), schema.get("const")) {
        (Some(Value::Array(e)), _) => Some(e.clone()),
        (_, Some(c)) => Some(vec![c.clone()]),
        _ => None,
    }
}

/// `value` read as the type `t`, where sayso's tools read it so: the value to check further
/// (a JSON text parsed), or `None` when it is not of that type.
fn as_type(t: &str, value: &Value) -> Option<Value> {
    let text = value.as_str().map(str::trim);
    let parsed = || text.and_then(|s| serde_json::from_str::<Value>(s).ok());
    let fits = match t {
        "string" => matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_)),
        "integer" => is_whole(value) || parsed().is_some_and(|v| is_whole(&v)),
        "number" => value.is_number() || parsed().is_some_and(|v| v.is_number()),
        "boolean" => {
            value.is_boolean()
                || text.is_some_and(|s| {
                    s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("false")
                })
        }
        "null" => value.is_null() || text == Some("null"),
        "array" => {
            return match value {
                Value::Array(_) => Some(value.clone()),
                _ => parsed().filter(Value::is_array),
            };
        }
        "object" => {
            return match value {
                Value::Object(_) => Some(value.clone()),
                _ => parsed().filter(Value::is_object),
            };
        }
        // A type name this checker does not know: anything fits.
        _ => true,
    };
    fits.then(|| value.clone())
}

fn is_whole(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// Whether `value` is the enum member `member`, as the tools would read it.
fn same(member: &Value, value: &Value) -> bool {
    if member == value {
        return true;
    }
    match (member, value) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::String(m), Value::Number(_) | Value::Bool(_)) => {
            m.as_str() == value.to_string().as_str()
        }
        (_, Value::String(s)) => serde_json::from_str::<Value>(s.trim())
            .is_ok_and(|v| !v.is_string() && same(member, &v)),
        _ => false,
    }
}

fn node(schema: &Value, value: &Value, path: &str, out: &mut Vec<Problem>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    if UNMODELLED.iter().any(|k| obj.contains_key(*k)) {
        return;
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get(key)
            && !branches.is_empty()
            && !branches.iter().any(|b| check(b, value).is_empty())
        {
            out.push(Problem {
                path: path.to_owned(),
                fault: Fault::WrongType {
                    given: given(value),
                },
                expected: noun(schema),
            });
            return;
        }
    }
    let value = match types(obj) {
        None => value.clone(),
        Some(names) => match names.iter().find_map(|t| as_type(t, value)) {
            Some(v) => v,
            None => {
                out.push(Problem {
                    path: path.to_owned(),
                    fault: Fault::WrongType {
                        given: given(value),
                    },
                    expected: noun(schema),
                });
                return;
            }
        },
    };
    if let Some(members) = enum_values(obj)
        && !members.iter().any(|m| same(m, &value))
    {
        out.push(Problem {
            path: path.to_owned(),
            fault: Fault::NotAllowed {
                given: given(&value),
            },
            expected: noun(schema),
        });
        return;
    }
    match &value {
        Value::Object(fields) => object(obj, fields, path, out),
        Value::Array(items) => {
            if let Some(item) = obj.get("items").filter(|i| i.is_object()) {
                for (i, v) in items.iter().enumerate() {
                    node(item, v, &format!("{path}[{i}]"), out);
                }
            }
        }
        _ => {}
    }
}

fn object(
    schema: &Map<String, Value>,
    fields: &Map<String, Value>,
    path: &str,
    out: &mut Vec<Problem>,
) {
    let empty = Map::new();
    let properties = match schema.get("properties") {
        Some(Value::Object(p)) => p,
        _ => &empty,
    };
    let required: Vec<&str> = match schema.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for name in required {
        if !fields.get(name).is_none_or(Value::is_null) {
            continue;
        }
        let expected = match properties.get(name) {
            Some(prop) if allows_null(prop) => continue,
            Some(prop) => noun(prop),
            None => noun(&Value::Bool(true)),
        };
        out.push(Problem {
            path: join(path, name),
            fault: Fault::Missing,
            expected,
        });
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false))
        && !schema.contains_key("patternProperties");
    for (key, v) in fields {
        if v.is_null() {
            // Left out, as far as the tools go; a required one was reported above.
            continue;
        }
        match properties.get(key) {
            Some(prop) => node(prop, v, &join(path, key), out),
            None if closed => out.push(Problem {
                path: join(path, key),
                fault: Fault::Unknown {
                    known: properties.keys().cloned().collect(),
                },
                expected: "left out".into(),
            }),
            None => {
                if let Some(extra) = schema.get("additionalProperties").filter(|a| a.is_object()) {
                    node(extra, v, &join(path, key), out);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
