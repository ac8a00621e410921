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

/// The derived path, as `Chunk` read `choices` before `mod fast`: the reference.
#[derive(Debug, Deserialize)]
struct Reference {
    #[serde(default, deserialize_with = "seq_or_none")]
    choices: Vec<ChunkChoice>,
    #[serde(default, deserialize_with = "usage_or_none")]
    usage: Option<Usage>,
    #[serde(default, deserialize_with = "present_value")]
    error: Option<Value>,
}

/// Both paths accept the same payloads and read them the same.
fn same_as_reference(json: &str) -> Result<(), String> {
    let fast = serde_json::from_str::<Chunk>(json)
        .map(|c| format!("{:?} {:?} {:?}", c.choices, c.usage, c.error));
    let reference = serde_json::from_str::<Reference>(json)
        .map(|c| format!("{:?} {:?} {:?}", c.choices, c.usage, c.error));
    match (&fast, &reference) {
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (Err(_), Err(_)) => Ok(()),
        _ => Err(format!("{json}\n fast: {fast:?}\n  ref: {reference:?}")),
    }
}

#[test]
fn fast_path_matches_the_derived_rules_on_odd_shapes() {
    for json in [
        r#"{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"},"delta":{}}]}"#,
        r#"{"choices":[[{"content":"a"},null,"stop"]]}"#,
        r#"{"choices":[[{"content":"a"},null,"stop",1]]}"#,
        r#"{"choices":[{"d\u0065lta":{"cont\u0065nt":"\u00e9\n"}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":"f"}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":null},[1,"x",["n","{}"]]]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"a","name":"b"}}]}}]}"#,
        r#"{"choices":[{"delta":{"content":[{"text":1,"content":"c"},{"content":"d"},"e",[1]]}}]}"#,
        r#"{"choices":[{"delta":{"content":{"text":"a","text":"b"}},"finish_reason":1.50}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":" 3 ","function":{"arguments":[1,{"b":2,"a":1}]}}]}}]}"#,
        r#"{"choices":[{"logprobs":1e400}]}"#,
        r#"{"choices":{"delta":{}}}"#,
        r#"{"choices":null,"usage":null}"#,
        r#"{"choices":[null]}"#,
        r#"{"choices":[{"delta":"x","message":{"content":"m"}}]}"#,
    ] {
        same_as_reference(json).unwrap();
    }
}

/// JSON with repeated keys and raw number spellings, which `Value` cannot express.
#[derive(Debug, Clone)]
enum J {
    Raw(&'static str),
    Str(&'static str),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
}

impl J {
    fn render(&self, out: &mut String) {
        match self {
            J::Raw(r) => out.push_str(r),
            J::Str(s) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            J::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.render(out);
                }
                out.push(']');
            }
            J::Obj(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\":");
                    v.render(out);
                }
                out.push('}');
            }
        }
    }
}

mod differential {
    use super::*;
    use proptest::prelude::*;

    const KEYS: &[&str] = &[
        "choices",
        "delta",
        "message",
        "finish_reason",
        "content",
        "reasoning_content",
        "reasoning",
        "tool_calls",
        "index",
        "id",
        "function",
        "name",
        "arguments",
        "text",
        "type",
        "role",
        "usage",
        "x",
        "d\\u0065lta",
    ];

    fn leaf() -> BoxedStrategy<J> {
        prop_oneof![
            40 => prop::sample::select(vec![
                "null", "true", "false", "0", "-0", "1", "7", "-3", "1.0", "1.5", "-2.5",
                "1e2", "3E-5", "1e20", "18446744073709551616",
            ])
            .prop_map(J::Raw),
            // Out of range: the whole payload is rejected, by both paths.
            1 => Just(J::Raw("1e400")),
            40 => prop::sample::select(vec![
                "", "a", " 7 ", "stop", "x\\\"y", "\\n", "\\u00e9", "é", "<think>", "{}",
                "\\ud83d\\ude00",
            ])
            .prop_map(J::Str),
        ]
        .boxed()
    }

    fn any_json() -> BoxedStrategy<J> {
        leaf()
            .prop_recursive(4, 24, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(J::Arr),
                    prop::collection::vec((prop::sample::select(KEYS), inner), 0..4)
                        .prop_map(J::Obj),
                ]
            })
            .boxed()
    }

    fn odd() -> BoxedStrategy<J> {
        prop_oneof![3 => leaf(), 1 => any_json()].boxed()
    }

    /// A struct-like value: an object of some of its fields in any order; less often one
    /// with repeated or unknown keys; its fields positionally; or anything at all.
    fn shaped(fields: Vec<(&'static str, BoxedStrategy<J>)>) -> BoxedStrategy<J> {
        let n = fields.len();
        let entry = |(k, s): &(&'static str, BoxedStrategy<J>)| {
            let k = *k;
            s.clone().prop_map(move |v| (k, v)).boxed()
        };
        let distinct = fields
            .iter()
            .map(|f| prop::option::weighted(0.6, entry(f)))
            .collect::<Vec<_>>()
            .prop_map(|v| v.into_iter().flatten().collect::<Vec<_>>())
            .prop_shuffle()
            .prop_map(J::Obj);
        let mut entries: Vec<BoxedStrategy<(&'static str, J)>> = fields.iter().map(entry).collect();
        entries.push((prop::sample::select(KEYS), odd()).boxed());
        let repeated =
            prop::collection::vec(proptest::strategy::Union::new(entries), 0..5).prop_map(J::Obj);
        let positional = (
            fields.into_iter().map(|(_, s)| s).collect::<Vec<_>>(),
            0..=n,
            prop::option::weighted(0.2, odd()),
        )
            .prop_map(|(mut v, len, extra)| {
                v.truncate(len);
                v.extend(extra);
                J::Arr(v)
            });
        prop_oneof![10 => distinct, 2 => repeated, 1 => positional, 1 => odd()].boxed()
    }

    fn text() -> BoxedStrategy<J> {
        let part = prop_oneof![
            leaf(),
            shaped(vec![
                ("text", leaf()),
                ("content", leaf()),
                ("type", leaf())
            ]),
        ];
        prop_oneof![
            6 => leaf(),
            2 => prop::collection::vec(part, 0..4).prop_map(J::Arr),
            1 => shaped(vec![("text", leaf()), ("content", leaf())]),
        ]
        .boxed()
    }

    fn tool_call() -> BoxedStrategy<J> {
        let function = shaped(vec![("name", leaf()), ("arguments", odd())]);
        shaped(vec![
            ("index", leaf()),
            ("id", leaf()),
            ("function", prop_oneof![4 => function, 1 => odd()].boxed()),
            ("type", leaf()),
        ])
    }

    fn list(item: BoxedStrategy<J>) -> BoxedStrategy<J> {
        prop_oneof![
            6 => prop::collection::vec(item, 1..3).prop_map(J::Arr),
            1 => Just(J::Arr(Vec::new())),
            1 => odd(),
        ]
        .boxed()
    }

    fn chunk() -> BoxedStrategy<J> {
        let delta = shaped(vec![
            ("content", text()),
            ("reasoning_content", text()),
            ("reasoning", text()),
            ("tool_calls", list(tool_call())),
            ("role", leaf()),
        ]);
        let choice = shaped(vec![
            ("delta", delta.clone()),
            ("message", delta),
            ("finish_reason", leaf()),
            ("index", leaf()),
            ("logprobs", odd()),
        ]);
        (
            list(choice),
            prop::collection::vec((prop::sample::select(KEYS), odd()), 0..2),
            any::<bool>(),
        )
            .prop_map(|(choices, mut extra, first)| {
                let at = if first { 0 } else { extra.len() };
                extra.insert(at, ("choices", choices));
                J::Obj(extra)
            })
            .boxed()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn fast_path_matches_the_derived_path(j in chunk()) {
            let mut json = String::new();
            j.render(&mut json);
            let result = same_as_reference(&json);
            prop_assert!(result.is_ok(), "{}", result.unwrap_err());
        }
    }
}
