//! The argument check as tables: each rule with the path it reports, the lenient cases (what
//! sayso's tools read today must pass), MCP-style schemas, every built-in tool's real calls,
//! and the words the model gets.

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

/// The problems as `path: fault` words.
fn faults(schema: &Value, args: &Value) -> Vec<String> {
    check(schema, args)
        .iter()
        .map(|p| {
            let what = match &p.fault {
                Fault::Missing => "missing".to_owned(),
                Fault::WrongType { .. } => "type".to_owned(),
                Fault::NotAllowed { .. } => "enum".to_owned(),
                Fault::Unknown { .. } => "unknown".to_owned(),
            };
            format!("{}: {what}", p.path)
        })
        .collect()
}

fn edit_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "filepath": {"type": "string"},
            "edits": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "oldText": {"type": "string"},
                        "newText": {"type": "string"},
                        "replaceAll": {"type": ["boolean", "null"]}
                    },
                    "required": ["oldText", "newText", "replaceAll"],
                    "additionalProperties": false
                }
            },
            "explanation": {"type": ["string", "null"]}
        },
        "required": ["filepath", "edits", "explanation"],
        "additionalProperties": false
    })
}

#[test]
fn each_rule_reports_its_path() {
    let edit = edit_schema();
    let one = |e: Value| json!({"filepath": "a.rs", "edits": [e]});
    let rows: Vec<(&str, Value, Value, Vec<&str>)> = vec![
        (
            "a whole call passes",
            edit.clone(),
            json!({"filepath": "a.rs", "edits": [{"oldText": "a", "newText": "b", "replaceAll": null}], "explanation": null}),
            vec![],
        ),
        (
            "a required field is missing",
            edit.clone(),
            json!({"edits": []}),
            vec!["filepath: missing"],
        ),
        (
            "a required field is null",
            edit.clone(),
            json!({"filepath": null, "edits": []}),
            vec!["filepath: missing"],
        ),
        (
            "a nested required field, with its index",
            edit.clone(),
            json!({"filepath": "a", "edits": [
                {"oldText": "a", "newText": "b"},
                {"oldText": "c", "newText": "d"},
                {"newText": "e"}
            ]}),
            vec!["edits[2].oldText: missing"],
        ),
        (
            "a wrong type",
            edit.clone(),
            json!({"filepath": "a", "edits": {"oldText": "a"}}),
            vec!["edits: type"],
        ),
        (
            "a nested wrong type",
            edit.clone(),
            one(json!({"oldText": ["a"], "newText": "b"})),
            vec!["edits[0].oldText: type"],
        ),
        (
            "an unknown field where the schema forbids it",
            edit.clone(),
            one(json!({"old_text": "a", "oldText": "a", "newText": "b"})),
            vec!["edits[0].old_text: unknown"],
        ),
        (
            "a misnamed field is both unknown and missing",
            edit.clone(),
            json!({"path": "a.rs", "edits": []}),
            vec!["filepath: missing", "path: unknown"],
        ),
        (
            "a list item of the wrong type",
            edit.clone(),
            json!({"filepath": "a", "edits": ["replace a with b"]}),
            vec!["edits[0]: type"],
        ),
        (
            "a field whose name is not a plain word",
            json!({"type": "object", "properties": {"a b": {"type": "integer"}}}),
            json!({"a b": "x"}),
            vec!["[\"a b\"]: type"],
        ),
        (
            "an enum",
            json!({"type": "object", "properties": {"command": {"type": "string", "enum": ["view", "create"]}}}),
            json!({"command": "list"}),
            vec!["command: enum"],
        ),
        (
            "an enum of list items",
            json!({"type": "object", "properties": {"s": {"type": ["array", "null"], "items": {"type": "string", "enum": ["staged", "unstaged"]}}}}),
            json!({"s": ["staged", "all"]}),
            vec!["s[1]: enum"],
        ),
        (
            "an integer is a whole number",
            json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            json!({"n": 1.5}),
            vec!["n: type"],
        ),
        (
            "a nested object",
            json!({"type": "object", "properties": {"o": {"type": "object", "properties": {"p": {"type": "object", "required": ["q"]}}}}}),
            json!({"o": {"p": {}}}),
            vec!["o.p.q: missing"],
        ),
        (
            "every problem is listed",
            edit.clone(),
            json!({"edits": [{"oldText": 1, "newText": []}], "x": 1}),
            vec!["filepath: missing", "edits[0].newText: type", "x: unknown"],
        ),
        (
            "additionalProperties as a schema checks the extra fields",
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            json!({"a": 1, "b": "two"}),
            vec!["b: type"],
        ),
        (
            "a required field the properties do not describe",
            json!({"type": "object", "required": ["q"]}),
            json!({}),
            vec!["q: missing"],
        ),
        (
            "const",
            json!({"type": "object", "properties": {"v": {"const": 2}}}),
            json!({"v": 3}),
            vec!["v: enum"],
        ),
    ];
    for (name, schema, args, want) in rows {
        assert_eq!(faults(&schema, &args), want, "{name}");
    }
}

/// What sayso's tools read today, or what a model commonly sends that does no harm, passes.
#[test]
fn lenient_cases_pass() {
    let edit = edit_schema();
    let typed = |t: Value| json!({"type": "object", "properties": {"v": {"type": t}}});
    let rows: Vec<(&str, Value, Value)> = vec![
        (
            "required but nullable fields left out (strict schemas)",
            edit.clone(),
            json!({"filepath": "a", "edits": [{"oldText": "a", "newText": "b"}]}),
        ),
        (
            "edits as a JSON text",
            edit.clone(),
            json!({"filepath": "a", "edits": "[{\"oldText\": \"a\", \"newText\": \"b\"}]"}),
        ),
        (
            "a boolean as a string",
            edit.clone(),
            json!({"filepath": "a", "edits": [{"oldText": "a", "newText": "b", "replaceAll": "true"}]}),
        ),
        (
            "an unknown field set to null",
            edit.clone(),
            json!({"filepath": "a", "edits": [], "flag": null}),
        ),
        (
            "null for a field that is not required",
            typed(json!("integer")),
            json!({"v": null}),
        ),
        (
            "an integer as a string",
            typed(json!("integer")),
            json!({"v": " 12 "}),
        ),
        (
            "an integer written 12.0",
            typed(json!("integer")),
            json!({"v": 12.0}),
        ),
        (
            "a number as a string",
            typed(json!("number")),
            json!({"v": "1.5"}),
        ),
        (
            "an integer is a number",
            typed(json!("number")),
            json!({"v": 3}),
        ),
        (
            "a boolean in capitals",
            typed(json!("boolean")),
            json!({"v": "False"}),
        ),
        (
            "a number for a string",
            typed(json!("string")),
            json!({"v": 42}),
        ),
        (
            "a boolean for a string",
            typed(json!("string")),
            json!({"v": true}),
        ),
        (
            "null written as text",
            typed(json!(["integer", "null"])),
            json!({"v": "null"}),
        ),
        (
            "an object as a JSON text",
            typed(json!("object")),
            json!({"v": "{\"a\": 1}"}),
        ),
        (
            "a type this checker does not know",
            typed(json!("file")),
            json!({"v": [1]}),
        ),
        (
            "a list of types",
            typed(json!(["string", "integer"])),
            json!({"v": 3}),
        ),
        (
            "an enum member given as text",
            json!({"type": "object", "properties": {"v": {"enum": [1, 2]}}}),
            json!({"v": "2"}),
        ),
        (
            "an enum member given as a number",
            json!({"type": "object", "properties": {"v": {"type": "string", "enum": ["1", "2"]}}}),
            json!({"v": 1}),
        ),
        (
            "an enum member 2.0",
            json!({"type": "object", "properties": {"v": {"enum": [1, 2]}}}),
            json!({"v": 2.0}),
        ),
        (
            "extra fields where the schema does not forbid them",
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"a": "x", "b": 1}),
        ),
        (
            "additionalProperties true",
            json!({"type": "object", "properties": {}, "additionalProperties": true}),
            json!({"b": 1}),
        ),
        (
            "patternProperties turns the unknown check off",
            json!({"type": "object", "properties": {}, "patternProperties": {"^x": {}}, "additionalProperties": false}),
            json!({"xa": 1, "other": 2}),
        ),
        (
            "limits are the tool's to check",
            json!({"type": "object", "properties": {"q": {"type": "array", "minItems": 1, "maxItems": 1}, "s": {"type": "string", "maxLength": 1, "pattern": "^a$"}}}),
            json!({"q": [1, 2, 3], "s": "bbb"}),
        ),
        (
            "a tuple form of items",
            json!({"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "string"}]}}}),
            json!({"t": [1]}),
        ),
        (
            "a schema that is not an object",
            json!(true),
            json!({"a": 1}),
        ),
        ("no schema at all", Value::Null, json!({"a": 1})),
        ("an empty schema", json!({}), json!({"a": [1, {"b": null}]})),
        (
            "properties that are not an object",
            json!({"type": "object", "properties": [1], "required": "a"}),
            json!({"a": 1}),
        ),
    ];
    for (name, schema, args) in rows {
        assert_eq!(faults(&schema, &args), Vec::<String>::new(), "{name}");
    }
}

/// MCP servers send any JSON Schema: what is modelled is checked, the rest passes.
#[test]
fn mcp_style_schemas() {
    let rows: Vec<(&str, Value, Value, Vec<&str>)> = vec![
        (
            "pydantic's Optional: anyOf with null, left out",
            json!({"type": "object", "properties": {"limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null}}}),
            json!({}),
            vec![],
        ),
        (
            "anyOf: a branch fits",
            json!({"type": "object", "properties": {"id": {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"type": "integer"}}]}}}),
            json!({"id": [1, 2]}),
            vec![],
        ),
        (
            "anyOf: no branch fits",
            json!({"type": "object", "properties": {"id": {"anyOf": [{"type": "integer"}, {"type": "null"}]}}}),
            json!({"id": {"a": 1}}),
            vec!["id: type"],
        ),
        (
            "a required anyOf without null",
            json!({"type": "object", "properties": {"id": {"oneOf": [{"type": "integer"}, {"type": "string"}]}}, "required": ["id"]}),
            json!({}),
            vec!["id: missing"],
        ),
        (
            "nullable: true (OpenAPI)",
            json!({"type": "object", "properties": {"q": {"type": "string", "nullable": true}}, "required": ["q"]}),
            json!({}),
            vec![],
        ),
        (
            "a $ref is not followed",
            json!({"type": "object", "$defs": {"P": {"type": "object", "required": ["x"]}}, "properties": {"p": {"$ref": "#/$defs/P"}}, "required": ["p"]}),
            json!({"p": 7}),
            vec![],
        ),
        (
            "a required $ref may be left out",
            json!({"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "required": ["p"]}),
            json!({}),
            vec![],
        ),
        (
            "allOf is not checked",
            json!({"type": "object", "allOf": [{"required": ["a"]}], "additionalProperties": false}),
            json!({"b": 1}),
            vec![],
        ),
        (
            "a typical server schema",
            json!({"type": "object", "properties": {
                "owner": {"type": "string"}, "repo": {"type": "string"},
                "state": {"type": "string", "enum": ["open", "closed", "all"]},
                "labels": {"type": "array", "items": {"type": "string"}},
                "perPage": {"type": "number", "minimum": 1}
            }, "required": ["owner", "repo"], "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"}),
            json!({"owner": "o", "state": "opened", "labels": ["bug", 3], "perPage": "ten"}),
            vec!["repo: missing", "state: enum", "perPage: type"],
        ),
        (
            "no type, only properties",
            json!({"properties": {"a": {"type": "boolean"}}, "required": ["a"]}),
            json!({"a": "yes"}),
            vec!["a: type"],
        ),
    ];
    for (name, schema, args, want) in rows {
        assert_eq!(faults(&schema, &args), want, "{name}");
    }
}

/// Calls every built-in tool reads today pass; calls none can run fail, naming the field.
#[test]
fn builtin_tools_calls() {
    let registry = crate::tools::builtin::registry();
    let schema = |name: &str| {
        registry
            .get(name)
            .map(|e| e.tool.spec().parameters)
            .unwrap_or_else(|| panic!("no {name}"))
    };
    let passing: Vec<(&str, Value)> = vec![
        ("read_file", json!({"filepath": "a"})),
        (
            "read_file",
            json!({"filepath": "a", "start_line": "3", "end_line": 9}),
        ),
        ("create_file", json!({"filepath": "a", "content": ""})),
        ("delete_file", json!({"filepath": "a"})),
        (
            "edit_file",
            json!({"filepath": "a", "edits": [{"oldText": "x", "newText": ""}]}),
        ),
        (
            "edit_file",
            json!({"filepath": "a", "edits": "[{\"oldText\":\"x\",\"newText\":\"y\",\"replaceAll\":\"false\"}]", "explanation": "why"}),
        ),
        ("file_search", json!({"query": "*.rs"})),
        ("file_search", json!({"query": "*.rs", "max_results": "5"})),
        (
            "grep_search",
            json!({"query": "fn", "is_regexp": "TRUE", "include_pattern": null}),
        ),
        ("get_changed_files", json!({})),
        (
            "get_changed_files",
            json!({"source_control_state": ["staged"]}),
        ),
        ("fetch_webpage", json!({"url": "https://example.com"})),
        ("run_command", json!({"cmd": "ls", "flag": null})),
        ("memory", json!({"command": "view"})),
        (
            "memory",
            json!({"command": "view", "path": "/memories", "view_range": [1, 5]}),
        ),
        (
            "memory",
            json!({"command": "insert", "path": "/memories/a", "insert_line": "2", "insert_text": "x"}),
        ),
        (
            "ask_questions",
            json!({"questions": [{"header": "H", "question": "Q?"}]}),
        ),
        (
            "ask_questions",
            json!({"questions": [{"header": "H", "question": "Q?", "options": [{"label": "a", "description": "d"}], "multiSelect": false}]}),
        ),
    ];
    for (name, args) in passing {
        assert_eq!(
            faults(&schema(name), &args),
            Vec::<String>::new(),
            "{name} {args}"
        );
    }
    let failing: Vec<(&str, Value, Vec<&str>)> = vec![
        (
            "edit_file",
            json!({"filepath": "a", "edits": [{"old_text": "x", "new_text": "y"}]}),
            vec![
                "edits[0].oldText: missing",
                "edits[0].newText: missing",
                "edits[0].old_text: unknown",
                "edits[0].new_text: unknown",
            ],
        ),
        (
            "edit_file",
            json!({"filepath": "a"}),
            vec!["edits: missing"],
        ),
        (
            "edit_file",
            json!({"filepath": "a", "edits": "not json"}),
            vec!["edits: type"],
        ),
        (
            "run_command",
            json!({"command": "ls"}),
            vec!["cmd: missing", "command: unknown"],
        ),
        (
            "run_command",
            json!({"cmd": ["ls", "-la"]}),
            vec!["cmd: type"],
        ),
        (
            "read_file",
            json!({"filepath": "a", "start_line": "ten"}),
            vec!["start_line: type"],
        ),
        ("memory", json!({"command": "list"}), vec!["command: enum"]),
        (
            "get_changed_files",
            json!({"source_control_state": ["all"]}),
            vec!["source_control_state[0]: enum"],
        ),
        (
            "grep_search",
            json!({"query": "x", "is_regexp": "yes"}),
            vec!["is_regexp: type"],
        ),
        (
            "create_file",
            json!({"filepath": "a"}),
            vec!["content: missing"],
        ),
        (
            "ask_questions",
            json!({"questions": [{"question": "Q?"}]}),
            vec!["questions[0].header: missing"],
        ),
    ];
    for (name, args, want) in failing {
        assert_eq!(faults(&schema(name), &args), want, "{name} {args}");
    }
}

#[test]
fn the_message_names_the_field_what_was_given_and_the_shape() {
    let schema = edit_schema();
    let args = json!({"filepath": "a", "edits": [{"newText": "b"}]});
    assert_eq!(
        message("edit_file", &schema, &check(&schema, &args)),
        "You made an error in calling the edit_file tool, so it did not run:\n\
         - `edits[0].oldText` is missing: give a string.\n\
         Call edit_file again with arguments of this shape (`?` marks what may be left out): \
         {\"filepath\": string, \"edits\": [{\"oldText\": string, \"newText\": string, \"replaceAll\"?: boolean}], \"explanation\"?: string}"
    );
    let args = json!({"filepath": "a", "edits": "replace a with b", "why": "x"});
    let text = message("edit_file", &schema, &check(&schema, &args));
    assert!(
        text.contains(
            "- `edits` must be a list of {\"oldText\": string, \"newText\": string, \"replaceAll\"?: boolean}, but the string \"replace a with b\" was given."
        ),
        "{text}"
    );
    assert!(
        text.contains("- `why` is not an argument of edit_file here; the ones it takes are `filepath`, `edits`, `explanation`."),
        "{text}"
    );
    let memory = json!({"type": "object", "properties": {"command": {"type": "string", "enum": ["view", "create"]}}, "required": ["command"]});
    let text = message(
        "memory",
        &memory,
        &check(&memory, &json!({"command": "list"})),
    );
    assert!(
        text.contains(
            "- `command` must be one of \"view\", \"create\", but the string \"list\" was given."
        ),
        "{text}"
    );
    assert!(
        text.ends_with("arguments of this shape: {\"command\": \"view\"|\"create\"}"),
        "{text}"
    );
}

#[test]
fn words_for_values_and_schemas() {
    let rows: Vec<(Value, &str)> = vec![
        (json!(null), "null"),
        (json!(true), "the boolean true"),
        (json!(4), "the number 4"),
        (json!("abc"), "the string \"abc\""),
        (
            json!("x".repeat(50)),
            "the string \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…\"",
        ),
        (json!([]), "an empty list"),
        (json!([1]), "a list of 1 item"),
        (json!([1, 2]), "a list of 2 items"),
        (json!({}), "an empty object"),
        (json!({"a": 1, "b": 2}), "an object with `a`, `b`"),
    ];
    for (v, want) in rows {
        assert_eq!(given(&v), want, "{v}");
    }
    let nouns: Vec<(Value, &str)> = vec![
        (json!({"type": "string"}), "a string"),
        (
            json!({"type": ["integer", "null"]}),
            "a whole number or null",
        ),
        (
            json!({"type": "string", "nullable": true}),
            "a string or null",
        ),
        (json!({"type": "boolean"}), "true or false"),
        (json!({"type": "array"}), "a list"),
        (
            json!({"type": "array", "items": {"type": "integer"}}),
            "a list of integer",
        ),
        (json!({"type": "object"}), "an object"),
        (json!({"enum": ["a"]}), "exactly \"a\""),
        (
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
            "a string or null",
        ),
        (json!({"$ref": "#/$defs/Point"}), "a Point"),
        (json!({"allOf": []}), "any value"),
        (json!(7), "any value"),
    ];
    for (s, want) in nouns {
        assert_eq!(noun(&s), want, "{s}");
    }
    let shapes: Vec<(Value, usize, &str)> = vec![
        (
            json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {}}}}}),
            1,
            "{\"a\"?: {…}}",
        ),
        (
            json!({"type": "array", "items": {"type": "string"}}),
            0,
            "[…]",
        ),
        (
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            3,
            "{}",
        ),
        (
            json!({"enum": (0..20).collect::<Vec<_>>()}),
            1,
            "0|1|2|3|4|5|6|7|8|9|10|11|…",
        ),
    ];
    for (s, depth, want) in shapes {
        assert_eq!(shape(&s, depth), want, "{s}");
    }
}

#[test]
fn a_long_list_of_problems_is_cut_and_a_huge_schema_fits() {
    let properties: serde_json::Map<String, Value> = (0..40)
        .map(|i| {
            (
                format!("field_number_{i}"),
                json!({"type": "object", "properties": {"inner": {"type": "string"}}}),
            )
        })
        .collect();
    let required: Vec<String> = properties.keys().cloned().collect();
    let schema = json!({"type": "object", "properties": properties, "required": required});
    let problems = check(&schema, &json!({}));
    assert_eq!(problems.len(), 40);
    let text = message("big", &schema, &problems);
    assert!(text.contains("- and 35 more problem(s)"), "{text}");
    assert!(text.lines().count() == 8, "{text}");
    assert!(text.chars().count() < 1200, "{}", text.chars().count());

    // Wide nested objects, long enums and many names: every part of the message stays short.
    let wide: serde_json::Map<String, Value> = (0..60)
        .map(|i| {
            (
                format!("property_{i}"),
                json!({"enum": (0..40).map(|n| format!("value-{n}")).collect::<Vec<_>>()}),
            )
        })
        .collect();
    let item = json!({"type": "object", "properties": wide, "additionalProperties": false});
    let schema = json!({"type": "object", "properties": {"list": {"type": "array", "items": item}, "one": item}, "additionalProperties": false});
    let args = json!({"list": 5, "one": {"x": 1, "property_1": "value-99"}, "two": 2});
    let problems = check(&schema, &args);
    assert_eq!(problems.len(), 4, "{problems:?}");
    let text = message("wide", &schema, &problems);
    assert!(
        text.contains("the ones it takes are `property_0`"),
        "{text}"
    );
    assert!(
        text.chars().count() < 2500,
        "{}: {text}",
        text.chars().count()
    );
    assert!(text.lines().all(|l| l.chars().count() < 800), "{text}");
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        prop::sample::select(vec![
            "string", "integer", "number", "boolean", "array", "object", "null", "12", "true",
            "[1]", "{}"
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "type",
                    "properties",
                    "required",
                    "items",
                    "enum",
                    "anyOf",
                    "additionalProperties",
                    "nullable",
                    "a",
                    "const"
                ]),
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

proptest! {
    /// Any schema and any arguments: no panic, and every problem can be worded.
    #[test]
    fn never_panics_on_any_schema(schema in json_value(), args in json_value()) {
        let problems = check(&schema, &args);
        if !problems.is_empty() {
            let text = message("t", &schema, &problems);
            prop_assert!(text.starts_with("You made an error in calling the t tool"));
        }
    }

    /// A schema with no constraints accepts everything.
    #[test]
    fn an_empty_schema_accepts_everything(args in json_value()) {
        let (empty, object) = (json!({}), json!({"type": "object"}));
        prop_assert!(check(&empty, &args).is_empty());
        let wrapped = json!({"a": args});
        prop_assert!(check(&object, &wrapped).is_empty());
    }
}
