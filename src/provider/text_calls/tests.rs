//! Each format's example is the one its family publishes (cited per row); the negatives hold
//! the "last block" rule and the offered-names rule.

use serde_json::{Value, json};

use super::{Recognised, TextCall, hermes_tools_prompt, recognise};
use crate::provider::request::ToolSpec;

fn tool(name: &str, props: Value) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("the {name} tool"),
        parameters: json!({"type": "object", "properties": props}),
        strict: None,
    }
}

fn tools() -> Vec<ToolSpec> {
    vec![
        tool(
            "get_current_temperature",
            json!({"location": {"type": "string"}, "unit": {"type": "string"}}),
        ),
        tool("get_weather", json!({"location": {"type": "string"}})),
        tool(
            "get_current_weather",
            json!({"location": {"type": "string"}, "format": {"type": "string"}}),
        ),
        tool(
            "get_current_conditions",
            json!({"location": {"type": "string"}, "unit": {"type": "string"}}),
        ),
        tool(
            "get_current_temperature_xml",
            json!({"location": {"type": "string"}, "days": {"type": "integer"}}),
        ),
    ]
}

fn call(name: &str, args: Value) -> TextCall {
    TextCall {
        name: name.into(),
        arguments: args.to_string(),
        broken: None,
    }
}

/// (what the case is and where its example comes from, the reply, the calls, the text left).
fn found(reply: &str) -> Option<(Vec<TextCall>, String)> {
    recognise(reply, &tools()).map(|Recognised { calls, text }| (calls, text))
}

fn args(c: &TextCall) -> Value {
    serde_json::from_str(&c.arguments).expect("arguments are JSON")
}

#[test]
fn each_published_format_is_recognised() {
    let sf = json!({"location": "San Francisco, CA, USA"});
    let rows: &[(&str, &str, Vec<TextCall>, &str)] = &[
        (
            // https://qwen.readthedocs.io/en/latest/framework/function_call.html (Qwen2.5's
            // chat_template, Hermes style): the assistant turn after "<|im_start|>assistant".
            "hermes/qwen2.5",
            "<tool_call>\n{\"name\": \"get_current_temperature\", \"arguments\": {\"location\": \"San Francisco, CA, USA\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_current_temperature\", \"arguments\": {\"location\": \"San Francisco, CA, USA\", \"unit\": \"celsius\"}}\n</tool_call>",
            vec![
                call("get_current_temperature", sf.clone()),
                call(
                    "get_current_temperature",
                    json!({"location": "San Francisco, CA, USA", "unit": "celsius"}),
                ),
            ],
            "",
        ),
        (
            // Qwen3-Coder-30B-A3B-Instruct's chat_template.jinja (huggingface.co/Qwen/
            // Qwen3-Coder-30B-A3B-Instruct): "<tool_call>\n<function=NAME>\n<parameter=P>\n
            // VALUE\n</parameter>\n</function>\n</tool_call>"; an integer typed by the schema.
            "qwen3-coder xml",
            "I'll check.\n<tool_call>\n<function=get_current_temperature_xml>\n<parameter=location>\nSan Francisco, CA, USA\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
            vec![call(
                "get_current_temperature_xml",
                json!({"location": "San Francisco, CA, USA", "days": 3}),
            )],
            "I'll check.",
        ),
        (
            // mistral-common tokenizer v3 (docs.mistral.ai, "Tokenization": tool calls are
            // "[TOOL_CALLS] [{"name": …, "arguments": …}]"), as Mistral-7B-Instruct-v0.3 writes.
            "mistral v3 list",
            "[TOOL_CALLS] [{\"name\": \"get_current_weather\", \"arguments\": {\"location\": \"Paris, France\", \"format\": \"celsius\"}}]</s>",
            vec![call(
                "get_current_weather",
                json!({"location": "Paris, France", "format": "celsius"}),
            )],
            "",
        ),
        (
            // mistral-common tokenizer v11 (Mistral-Small-3.2 / Magistral chat templates):
            // "[TOOL_CALLS]NAME[ARGS]{json}" per call.
            "mistral v11 name[ARGS]",
            "[TOOL_CALLS]get_weather[ARGS]{\"location\": \"Paris\"}[TOOL_CALLS]get_current_weather[ARGS]{\"location\": \"Lyon\", \"format\": \"celsius\"}",
            vec![
                call("get_weather", json!({"location": "Paris"})),
                call(
                    "get_current_weather",
                    json!({"location": "Lyon", "format": "celsius"}),
                ),
            ],
            "",
        ),
        (
            // Llama 3.1 prompt format (llama.com/docs/model-cards-and-prompt-formats/llama3_1,
            // "JSON based tool calling"), written after <|python_tag|>, ending <|eom_id|>.
            "llama python_tag",
            "<|python_tag|>{\"name\": \"get_current_conditions\", \"parameters\": {\"location\": \"San Francisco, CA\", \"unit\": \"Fahrenheit\"}}<|eom_id|>",
            vec![call(
                "get_current_conditions",
                json!({"location": "San Francisco, CA", "unit": "Fahrenheit"}),
            )],
            "",
        ),
        (
            // The same page: the reply that is only the JSON object.
            "llama bare json",
            "{\"name\": \"get_current_conditions\", \"parameters\": {\"location\": \"San Francisco, CA\", \"unit\": \"Fahrenheit\"}}",
            vec![call(
                "get_current_conditions",
                json!({"location": "San Francisco, CA", "unit": "Fahrenheit"}),
            )],
            "",
        ),
        (
            // The harmony response format (cookbook.openai.com/articles/openai-harmony,
            // "Function calling"): the assistant's call message leaking into the content.
            "gpt-oss harmony",
            "Let me look.<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"location\":\"San Francisco\"}<|call|>",
            vec![call("get_weather", json!({"location": "San Francisco"}))],
            "Let me look.",
        ),
        (
            // DeepSeek-V3's chat_template (huggingface.co/deepseek-ai/DeepSeek-V3-0324,
            // tokenizer_config.json): "function<｜tool▁sep｜>NAME\n```json\n…\n```".
            "deepseek v3",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"location\": \"Tokyo\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
            vec![call("get_weather", json!({"location": "Tokyo"}))],
            "",
        ),
        (
            // DeepSeek-V3.1's chat_template (huggingface.co/deepseek-ai/DeepSeek-V3.1):
            // "<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{json}<｜tool▁call▁end｜>".
            "deepseek v3.1",
            "Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"location\": \"Tokyo\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            vec![call("get_weather", json!({"location": "Tokyo"}))],
            "Checking.",
        ),
        (
            // The Qwen2.5 example above, fenced as models without the template's grammar do.
            "fenced hermes",
            "Sure:\n```xml\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Oslo\"}}\n</tool_call>\n```\n",
            vec![call("get_weather", json!({"location": "Oslo"}))],
            "Sure:",
        ),
        (
            // The Llama 3.1 bare object, fenced.
            "fenced bare json",
            "```json\n{\"name\": \"get_weather\", \"parameters\": {\"location\": \"Oslo\"}}\n```",
            vec![call("get_weather", json!({"location": "Oslo"}))],
            "",
        ),
    ];
    for (case, reply, calls, text) in rows {
        let (got, left) = found(reply).unwrap_or_else(|| panic!("{case}: not recognised"));
        assert_eq!(got.len(), calls.len(), "{case}: {got:?}");
        for (g, c) in got.iter().zip(calls) {
            assert_eq!(
                (g.name.as_str(), args(g)),
                (c.name.as_str(), args(c)),
                "{case}"
            );
            assert_eq!(g.broken, None, "{case}");
        }
        assert_eq!(left, *text, "{case}");
    }
}

#[test]
fn quoted_examples_and_unoffered_names_are_left_alone() {
    let rows: &[(&str, &str)] = &[
        (
            "a call followed by prose is an example",
            "To call a tool write <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call> and wait for the answer.",
        ),
        (
            "a fenced example followed by prose",
            "Example:\n```json\n{\"name\": \"get_weather\", \"parameters\": {}}\n```\nThat is how it looks.",
        ),
        (
            "a name not offered",
            "<tool_call>\n{\"name\": \"rm_rf\", \"arguments\": {}}\n</tool_call>",
        ),
        (
            "bare json naming no offered tool",
            "{\"name\": \"Ada\", \"parameters\": {}}",
        ),
        (
            "bare json that is data, not a call",
            "{\"name\": \"get_weather\"}",
        ),
        (
            "json inside prose",
            "The call {\"name\": \"get_weather\", \"parameters\": {}} is wrong.",
        ),
        (
            "the tag mentioned, never closed",
            "Models write <tool_call> tags; I do not.",
        ),
        (
            "mistral with prose after",
            "[TOOL_CALLS]get_weather[ARGS]{\"location\": \"Paris\"} is what Mistral writes.",
        ),
        (
            "harmony naming an unoffered tool",
            "<|channel|>commentary to=functions.shell <|constrain|>json<|message|>{}<|call|>",
        ),
        (
            "deepseek naming an unoffered tool",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>shell<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        ),
        ("plain text", "The weather in Paris is mild."),
        (
            "a fence with prose in its info line",
            "```this is not a call\n{\"name\": \"get_weather\", \"parameters\": {}}\n```",
        ),
    ];
    for (case, reply) in rows {
        assert_eq!(found(reply), None, "{case}");
    }
    assert_eq!(
        recognise(
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {}}\n</tool_call>",
            &[]
        ),
        None,
        "no tools offered"
    );
}

#[test]
fn a_quoted_example_then_a_real_call_takes_only_the_call() {
    let reply = "Like <tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call> here.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Rome\"}}\n</tool_call>";
    let (calls, text) = found(reply).expect("recognised");
    assert_eq!(calls.len(), 1);
    assert_eq!(args(&calls[0]), json!({"location": "Rome"}));
    assert!(text.ends_with("here."), "{text}");
}

#[test]
fn a_tag_mentioned_in_prose_does_not_swallow_the_call_after_it() {
    let reply = "Models write <tool_call> tags around their calls.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"location\": \"Rome\"}}\n</tool_call>";
    let (calls, text) = found(reply).expect("recognised");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].broken, None);
    assert_eq!(text, "Models write <tool_call> tags around their calls.");
    let broken_then_prose = "<tool_call>{\"name\": \"get_weather\", oops <tool_call> is the tag.";
    assert_eq!(
        found(broken_then_prose),
        None,
        "an unclosed call must end the reply"
    );
}

#[test]
fn a_broken_call_is_a_call_with_its_text_and_why() {
    let rows: &[(&str, &str, &str)] = &[
        // What a tiny model writes without llama.cpp's grammar (issue 21): the opener, then no JSON.
        (
            "unclosed, bad json",
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {location: Paris",
            "get_weather",
        ),
        (
            "closed, bad json, no name",
            "<tool_call>\n{get the weather}\n</tool_call>",
            "tool_call",
        ),
        // What the tiny model behind llama-server without --jinja really wrote (issue 21's
        // real-server run, by hand): the opener on its own line, then quotes to the length limit.
        (
            "unclosed at a line start, not json",
            "<tool_call>\n\"\"\"\"\"\"he\"\"\"b\"\"",
            "tool_call",
        ),
        (
            "mistral bad args",
            "[TOOL_CALLS]get_weather[ARGS]{location",
            "get_weather",
        ),
        (
            "harmony bad message",
            "to=functions.get_weather <|constrain|>json<|message|>{oops<|call|>",
            "get_weather",
        ),
        (
            "deepseek bad json",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{x<｜tool▁call▁end｜>",
            "get_weather",
        ),
    ];
    for (case, reply, name) in rows {
        let (calls, _) = found(reply).unwrap_or_else(|| panic!("{case}: not recognised"));
        assert_eq!(calls.len(), 1, "{case}");
        assert_eq!(calls[0].name, *name, "{case}");
        assert!(calls[0].broken.is_some(), "{case}");
        assert!(
            serde_json::from_str::<Value>(&calls[0].arguments).is_err(),
            "{case}: the engine reports the JSON error"
        );
    }
}

#[test]
fn string_arguments_holding_json_are_read_as_the_object() {
    let reply = "<tool_call>{\"name\": \"get_weather\", \"arguments\": \"{\\\"location\\\": \\\"Oslo\\\"}\"}</tool_call>";
    let (calls, _) = found(reply).expect("recognised");
    assert_eq!(args(&calls[0]), json!({"location": "Oslo"}));
}

#[test]
fn the_hermes_prompt_lists_each_tool_and_is_read_back() {
    let p = hermes_tools_prompt(&tools());
    assert!(
        p.contains("<tools>\n{\"function\"") || p.contains("<tools>\n{\"type\""),
        "{p}"
    );
    for t in tools() {
        assert!(
            p.contains(&format!("\"name\":\"{}\"", t.name)),
            "{}",
            t.name
        );
    }
    assert!(p.contains("<tool_call></tool_call>"));
}

proptest::proptest! {
    #[test]
    fn never_panics_on_any_text(s in "(<tool_call>|</tool_call>|\\{|\\}|\"name\"|:|get_weather|\\[TOOL_CALLS\\]|\\[ARGS\\]|to=functions\\.|<\\|message\\|>|```|<｜tool▁call▁begin｜>|<｜tool▁sep｜>|<function=|<parameter=|>|\n| |é|x){0,40}") {
        let _ = recognise(&s, &tools());
    }
}
