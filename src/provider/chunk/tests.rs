//! Tests of the parent module.

use super::*;

#[test]
fn accepts_a_minimal_chunk_without_ids() {
    let c: Chunk = serde_json::from_str(r#"{"choices":[{"delta":{"content":"hi"}}]}"#).unwrap();
    assert_eq!(
        c.choices[0].delta.as_ref().unwrap().content.as_deref(),
        Some("hi")
    );
}

#[test]
fn odd_field_types_do_not_fail_the_chunk() {
    let c: Chunk = serde_json::from_str(
        r#"{"id":5,"created":"x","choices":[{"index":"0","finish_reason":7,"delta":{"role":null,
            "content":[{"type":"text","text":"a"},{"text":"b"}],"reasoning":{"text":"r"},
            "tool_calls":[{"index":1.0,"function":{"arguments":{"x":1}}}]}}],"usage":{}}"#,
    )
    .unwrap();
    let d = c.choices[0].delta.as_ref().unwrap();
    assert_eq!(d.content.as_deref(), Some("ab"));
    assert_eq!(d.reasoning.as_deref(), Some("r"));
    assert_eq!(d.tool_calls[0].index, Some(1));
    assert_eq!(
        d.tool_calls[0]
            .function
            .as_ref()
            .unwrap()
            .arguments
            .as_deref(),
        Some(r#"{"x":1}"#)
    );
    assert_eq!(c.choices[0].finish_reason.as_deref(), Some("7"));
    assert_eq!(c.usage, Some(Usage::default()));
}

#[test]
fn usage_only_chunk_with_empty_choices() {
    let c: Chunk = serde_json::from_str(
        r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}"#,
    )
    .unwrap();
    assert!(c.choices.is_empty());
    assert_eq!(c.usage.unwrap().total_tokens, Some(7));
}

/// A chunk's choices in short: per choice its delta's content (`c`), the message's content
/// (`m`), the finish reason (`f`) and tool calls (`t`: index/id/name/arguments), set ones only.
fn summary(json: &str) -> String {
    let Ok(chunk) = serde_json::from_str::<Chunk>(json) else {
        return "error".into();
    };
    let opt = |o: &Option<String>| o.clone().unwrap_or_default();
    let choices: Vec<String> = chunk
        .choices
        .iter()
        .map(|c| {
            let mut parts = Vec::new();
            if let Some(d) = &c.delta {
                parts.push(format!("c={}", opt(&d.content)));
                for t in &d.tool_calls {
                    let f = t.function.as_ref();
                    parts.push(format!(
                        "t={}/{}/{}/{}",
                        t.index.map_or(String::new(), |i| i.to_string()),
                        opt(&t.id),
                        f.map_or(String::new(), |f| opt(&f.name)),
                        f.map_or(String::new(), |f| opt(&f.arguments)),
                    ));
                }
            }
            if let Some(m) = &c.message {
                parts.push(format!("m={}", opt(&m.content)));
            }
            if let Some(f) = &c.finish_reason {
                parts.push(format!("f={f}"));
            }
            parts.join(" ")
        })
        .collect();
    format!("[{}]", choices.join("; "))
}

/// The leniency rules on odd shapes: a struct may be an object or an array of its fields in
/// order; a repeated key or one element too many makes it invalid; an invalid element empties
/// its whole list; a `delta` that is not an object is `None`; scalars are converted.
#[test]
fn odd_shapes_read_by_the_leniency_rules() {
    let rows = [
        (
            r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"},"delta":{}}]}"#,
            "[]",
        ),
        (
            r#"{"choices":[[{"content":"a"},null,"stop"]]}"#,
            "[c=a f=stop]",
        ),
        (r#"{"choices":[[{"content":"a"},null,"stop",1]]}"#, "[]"),
        (
            r#"{"choices":[{"d\u0065lta":{"cont\u0065nt":"\u00e9\n"}}]}"#,
            "[c=é\n]",
        ),
        (
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":"f"}]}}]}"#,
            "[c=]",
        ),
        (
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":null},[1,"x",["n","{}"]]]}}]}"#,
            "[c= t=0/// t=1/x/n/{}]",
        ),
        (
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"a","name":"b"}}]}}]}"#,
            "[c=]",
        ),
        (
            r#"{"choices":[{"delta":{"content":[{"text":1,"content":"c"},{"content":"d"},"e",[1]]}}]}"#,
            "[c=de]",
        ),
        (
            r#"{"choices":[{"delta":{"content":{"text":"a","text":"b"}},"finish_reason":1.50}]}"#,
            "[c=b f=1.5]",
        ),
        (
            r#"{"choices":[{"delta":{"tool_calls":[{"index":" 3 ","function":{"arguments":[1,{"b":2,"a":1}]}}]}}]}"#,
            r#"[c= t=3///[1,{"b":2,"a":1}]]"#,
        ),
        (r#"{"choices":[{"logprobs":1e400}]}"#, "error"),
        (r#"{"choices":{"delta":{}}}"#, "[]"),
        (r#"{"choices":null,"usage":null}"#, "[]"),
        (r#"{"choices":[null]}"#, "[]"),
        (
            r#"{"choices":[{"delta":"x","message":{"content":"m"}}]}"#,
            "[m=m]",
        ),
    ];
    for (json, want) in rows {
        assert_eq!(summary(json), want, "{json}");
    }
}
