//! The formats, each read from its opener to the end of the reply: a sequence of calls, then
//! only whitespace and end tokens, or no match at all. Where a format's example comes from is
//! cited in `tests.rs`.

use serde_json::{Map, Value};

use super::TextCall;
use crate::provider::request::ToolSpec;

/// The tools offered in the request.
pub(super) struct Offered<'a>(pub &'a [ToolSpec]);

impl Offered<'_> {
    fn get(&self, name: &str) -> Option<&ToolSpec> {
        self.0.iter().find(|t| t.name == name)
    }

    fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The JSON Schema `type` of a tool's parameter, when it says one.
    fn param_type(&self, tool: &str, param: &str) -> Option<&str> {
        self.get(tool)?
            .parameters
            .get("properties")?
            .get(param)?
            .get("type")?
            .as_str()
    }
}

/// Tokens a model's reply may end with after its calls.
const END_TOKENS: &[&str] = &[
    "<|eom_id|>",
    "<|eot_id|>",
    "<|call|>",
    "<|end|>",
    "<|return|>",
    "<|im_end|>",
    "</s>",
    "<｜end▁of▁sentence｜>",
    "<｜tool▁calls▁end｜>",
];

/// A format's reader: the text from its opener, the tools, and whether the opener starts its
/// line (a `<tool_call>` never closed counts as a call only there, or when JSON follows it).
type Parse = fn(&str, &Offered, bool) -> Option<Vec<TextCall>>;

/// Each format's openers and the reader of its calls from there to the end.
const FORMATS: &[(&str, Parse)] = &[
    ("<tool_call>", hermes),
    ("<function=", hermes),
    ("[TOOL_CALLS]", mistral),
    ("<|python_tag|>", llama),
    ("to=functions.", harmony),
    ("<｜tool▁calls▁begin｜>", deepseek),
    ("<｜tool▁call▁begin｜>", deepseek),
];

/// The calls that end `text`, and where they begin: the earliest opener from which the rest
/// of the text is nothing but calls.
pub(super) fn tail(text: &str, offered: &Offered) -> Option<(usize, Vec<TextCall>)> {
    let mut best: Option<(usize, Vec<TextCall>)> = None;
    for (opener, parse) in FORMATS {
        for (at, _) in text.match_indices(opener) {
            if best.as_ref().is_some_and(|(b, _)| *b <= at) {
                break;
            }
            let before = text[..at].trim_end_matches([' ', '\t']);
            let line_start = before.is_empty() || before.ends_with('\n');
            if let Some(calls) = parse(&text[at..], offered, line_start) {
                let start = if *opener == "to=functions." {
                    harmony_start(&text[..at])
                } else {
                    at
                };
                best = Some((start, calls));
                break;
            }
        }
    }
    best.or_else(|| bare(text, offered).map(|c| (0, c)))
}

/// `text` is nothing but calls.
pub(super) fn whole(text: &str, offered: &Offered) -> Option<Vec<TextCall>> {
    tail(text, offered)
        .filter(|(start, _)| text[..*start].trim().is_empty())
        .map(|(_, calls)| calls)
}

/// What follows the calls: whitespace and end tokens only.
fn skip_end(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        match END_TOKENS.iter().find_map(|t| s.strip_prefix(t)) {
            Some(rest) => s = rest,
            None => return s,
        }
    }
}

/// `s` split at the first `pat` that begins within its first `limit` bytes (a marker that
/// must follow soon is not looked for through the whole reply).
fn split_near<'a>(s: &'a str, pat: &str, limit: usize) -> Option<(&'a str, &'a str)> {
    let mut end = (limit + pat.len()).min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let i = s[..end].find(pat)?;
    Some((&s[..i], &s[i + pat.len()..]))
}

/// One JSON value at the start of `s`, and what follows it.
fn json_prefix(s: &str) -> Option<(Value, &str)> {
    let mut values = serde_json::Deserializer::from_str(s).into_iter::<Value>();
    let v = values.next()?.ok()?;
    Some((v, &s[values.byte_offset()..]))
}

/// The arguments as JSON text: an object as it is, a string holding one, or none.
fn arguments(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => "{}".into(),
        Some(Value::String(s)) if serde_json::from_str::<Map<String, Value>>(s).is_ok() => {
            s.clone()
        }
        Some(v) => v.to_string(),
    }
}

/// `{"name": …, "arguments"|"parameters": …}` naming an offered tool.
fn named_object(v: &Value, offered: &Offered) -> Option<TextCall> {
    let obj = v.as_object()?;
    let name = obj.get("name")?.as_str()?;
    if !offered.has(name) {
        return None;
    }
    let args = obj.get("arguments").or_else(|| obj.get("parameters"));
    Some(TextCall {
        name: name.to_owned(),
        arguments: arguments(args),
        broken: None,
    })
}

/// A call that opened with its marker but cannot be read: the offered tool it seems to name
/// (else `tool_call`, the marker the model wrote, so the engine's "not found" error lists the
/// tools there are), its text as the arguments.
fn broken(raw: &str, offered: &Offered, why: String) -> TextCall {
    let name = raw
        .split("\"name\"")
        .nth(1)
        .and_then(|r| r.trim_start().strip_prefix(':'))
        .and_then(|r| r.trim_start().strip_prefix('"'))
        .and_then(|r| r.split('"').next())
        .filter(|n| offered.has(n))
        .unwrap_or("tool_call");
    TextCall {
        name: name.to_owned(),
        arguments: raw.trim().to_owned(),
        broken: Some(why),
    }
}

/// Hermes/Qwen `<tool_call>{json}</tool_call>`, and Qwen3-Coder's
/// `<tool_call><function=NAME><parameter=P>v</parameter></function></tool_call>`.
fn hermes(mut s: &str, offered: &Offered, line_start: bool) -> Option<Vec<TextCall>> {
    let mut calls = Vec::new();
    loop {
        s = skip_end(s);
        if let Some(r) = s.strip_prefix("<tool_call>") {
            // The body ends at its closing tag, which comes before the next opener; a call
            // never closed must be the last thing in the reply.
            let next = r.find("<tool_call>").unwrap_or(r.len());
            let (body, rest, closed) = match r[..next].find("</tool_call>") {
                Some(i) => (&r[..i], &r[i + "</tool_call>".len()..], true),
                None if next == r.len() => (r, "", false),
                None => return None,
            };
            calls.push(hermes_body(body, closed || line_start, offered)?);
            s = rest;
        } else if s.starts_with("<function=") {
            let next = s[1..].find("<function=").map_or(s.len(), |i| i + 1);
            let (body, rest) = match s[..next].find("</function>") {
                Some(i) => s.split_at(i + "</function>".len()),
                None if next == s.len() => (s, ""),
                None => return None,
            };
            calls.push(qwen_xml(body, offered)?);
            s = rest;
        } else if s.is_empty() && !calls.is_empty() {
            return Some(calls);
        } else {
            return None;
        }
    }
}

/// `marked`: closed, or opened at the start of a line — a call even when what follows is not
/// JSON (a tiny model without the server's grammar writes `<tool_call>` and then anything).
fn hermes_body(body: &str, marked: bool, offered: &Offered) -> Option<TextCall> {
    let t = body.trim();
    if t.starts_with("<function=") {
        return qwen_xml(t, offered);
    }
    match serde_json::from_str::<Value>(t) {
        Ok(v) => named_object(&v, offered),
        // Never closed, inside a line, and not even JSON-looking: prose that mentions the tag.
        Err(_) if !marked && !t.starts_with('{') => None,
        Err(e) => Some(broken(
            t,
            offered,
            format!("the <tool_call> is not valid JSON: {e}"),
        )),
    }
}

/// Qwen3-Coder's `<function=NAME>` with its `<parameter=P>` values: a parameter the schema
/// types as a string (or does not know) stays a string, any other is read as JSON when it is.
fn qwen_xml(body: &str, offered: &Offered) -> Option<TextCall> {
    let r = body.strip_prefix("<function=")?;
    let (name, mut r) = r.split_once('>')?;
    let name = name.trim();
    if !offered.has(name) {
        return None;
    }
    let mut args = Map::new();
    while let Some(i) = r.find("<parameter=") {
        let (param, rest) = r[i + "<parameter=".len()..].split_once('>')?;
        let end = ["</parameter>", "<parameter=", "</function>"]
            .iter()
            .filter_map(|t| rest.find(t))
            .min()
            .unwrap_or(rest.len());
        let raw = &rest[..end];
        let raw = raw.strip_prefix('\n').unwrap_or(raw);
        let raw = raw.strip_suffix('\n').unwrap_or(raw);
        let value = match offered.param_type(name, param.trim()) {
            Some("string") | None => Value::String(raw.to_owned()),
            Some(_) => serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned())),
        };
        args.insert(param.trim().to_owned(), value);
        r = rest[end..]
            .strip_prefix("</parameter>")
            .unwrap_or(&rest[end..]);
    }
    Some(TextCall {
        name: name.to_owned(),
        arguments: Value::Object(args).to_string(),
        broken: None,
    })
}

/// Mistral `[TOOL_CALLS][{"name":…,"arguments":…}]` (tokenizer v3) and
/// `[TOOL_CALLS]NAME[ARGS]{…}` (v11; `[CALL_ID]id` before `[ARGS]` in some versions).
fn mistral(mut s: &str, offered: &Offered, _: bool) -> Option<Vec<TextCall>> {
    let mut calls = Vec::new();
    loop {
        s = skip_end(s);
        if s.is_empty() && !calls.is_empty() {
            return Some(calls);
        }
        let r = s.strip_prefix("[TOOL_CALLS]")?.trim_start();
        if r.starts_with('[') {
            let (list, rest) = json_prefix(r)?;
            for v in list.as_array()? {
                calls.push(named_object(v, offered)?);
            }
            s = rest;
            continue;
        }
        let (head, after) = split_near(r, "[ARGS]", 256)?;
        let name = head.split_once("[CALL_ID]").map_or(head, |(n, _)| n).trim();
        if !offered.has(name) {
            return None;
        }
        match json_prefix(after) {
            Some((v, rest)) => {
                calls.push(TextCall {
                    name: name.to_owned(),
                    arguments: arguments(Some(&v)),
                    broken: None,
                });
                s = rest;
            }
            None => {
                let mut call = broken(after, offered, "the [ARGS] are not valid JSON".into());
                call.name = name.to_owned();
                calls.push(call);
                return Some(calls);
            }
        }
    }
}

/// Llama 3.x `<|python_tag|>{"name":…,"parameters":…}` (several separated by `;`).
fn llama(s: &str, offered: &Offered, _: bool) -> Option<Vec<TextCall>> {
    let mut calls = Vec::new();
    let mut s = s.strip_prefix("<|python_tag|>")?;
    loop {
        s = skip_end(s.trim_start().trim_start_matches(';'));
        if let Some(r) = s.strip_prefix("<|python_tag|>") {
            s = r.trim_start();
        }
        if s.is_empty() && !calls.is_empty() {
            return Some(calls);
        }
        let (v, rest) = json_prefix(s)?;
        calls.push(named_object(&v, offered)?);
        s = rest;
    }
}

/// A reply that is only `{"name":…, "parameters"|"arguments":…}` (Llama 3.x's JSON tool
/// calling; many others when they are not prompted for a format).
fn bare(text: &str, offered: &Offered) -> Option<Vec<TextCall>> {
    let t = skip_end(text);
    if !t.starts_with('{') {
        return None;
    }
    let (v, rest) = json_prefix(t)?;
    let obj = v.as_object()?;
    if !skip_end(rest).is_empty()
        || !(obj.contains_key("parameters") || obj.contains_key("arguments"))
    {
        return None;
    }
    Some(vec![named_object(&v, offered)?])
}

/// gpt-oss harmony leaking into the text: `to=functions.NAME … <|message|>{…}<|call|>`.
fn harmony(mut s: &str, offered: &Offered, _: bool) -> Option<Vec<TextCall>> {
    let mut calls = Vec::new();
    loop {
        s = skip_end(s);
        if s.is_empty() && !calls.is_empty() {
            return Some(calls);
        }
        // The header of the next message, up to its recipient.
        let (before, r) = split_near(s, "to=functions.", 80)?;
        if !is_header(before) {
            return None;
        }
        let end = r
            .find(|c: char| c.is_whitespace() || c == '<')
            .unwrap_or(r.len());
        let name = &r[..end];
        if !offered.has(name) {
            return None;
        }
        let (header, body) = split_near(&r[end..], "<|message|>", 80)?;
        if !is_header(header) {
            return None;
        }
        match json_prefix(body) {
            Some((v, rest)) => {
                calls.push(TextCall {
                    name: name.to_owned(),
                    arguments: arguments(Some(&v)),
                    broken: None,
                });
                s = rest;
            }
            None => {
                let raw = body.split("<|call|>").next().unwrap_or(body);
                let mut call = broken(raw, offered, "the message is not valid JSON".into());
                call.name = name.to_owned();
                calls.push(call);
                return Some(calls);
            }
        }
    }
}

/// Harmony header tokens only (`<|start|>assistant`, `<|channel|>commentary`,
/// `<|constrain|>json`): short, on one line.
fn is_header(s: &str) -> bool {
    s.len() <= 80 && !s.contains('\n')
}

/// Where a harmony call's header begins, before its `to=`.
fn harmony_start(before: &str) -> usize {
    let mut s = before.trim_end();
    for token in ["commentary", "<|channel|>", "assistant", "<|start|>"] {
        s = s.strip_suffix(token).unwrap_or(s).trim_end();
    }
    s.len()
}

/// DeepSeek V3 `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>`
/// and V3.1 `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`.
fn deepseek(s: &str, offered: &Offered, _: bool) -> Option<Vec<TextCall>> {
    const BEGIN: &str = "<｜tool▁call▁begin｜>";
    const SEP: &str = "<｜tool▁sep｜>";
    const END: &str = "<｜tool▁call▁end｜>";
    let mut calls = Vec::new();
    let mut s = s.strip_prefix("<｜tool▁calls▁begin｜>").unwrap_or(s);
    loop {
        s = skip_end(s);
        if s.is_empty() && !calls.is_empty() {
            return Some(calls);
        }
        let (head, r) = split_near(s.strip_prefix(BEGIN)?, SEP, 256)?;
        let next = r.find(BEGIN).unwrap_or(r.len());
        let (body, rest) = match r[..next].find(END) {
            Some(i) => (&r[..i], &r[i + END.len()..]),
            None if next == r.len() => (r, ""),
            None => return None,
        };
        let (name, json) = if head.trim() == "function" {
            let (name, json) = body.split_once('\n')?;
            let json = json.trim().strip_prefix("```json").unwrap_or(json.trim());
            (name.trim(), json.strip_suffix("```").unwrap_or(json).trim())
        } else {
            (head.trim(), body.trim())
        };
        if !offered.has(name) {
            return None;
        }
        let call = match serde_json::from_str::<Value>(json) {
            Ok(v) => TextCall {
                name: name.to_owned(),
                arguments: arguments(Some(&v)),
                broken: None,
            },
            Err(e) => {
                let mut call = broken(json, offered, format!("the call is not valid JSON: {e}"));
                call.name = name.to_owned();
                call
            }
        };
        calls.push(call);
        s = rest;
    }
}
