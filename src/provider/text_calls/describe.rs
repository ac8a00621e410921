//! The tools described in the system message, for a server that refuses the `tools`
//! parameter: the Hermes block Qwen2.5's and Hermes' chat templates write (a `<tools>` list of
//! the function schemas and the `<tool_call>` instruction), which [`super::recognise`] reads
//! back.

use serde_json::json;

use crate::provider::request::ToolSpec;

/// The block to append to the system message.
pub fn hermes_tools_prompt(tools: &[ToolSpec]) -> String {
    let mut out = String::from(
        "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n\
         You are provided with function signatures within <tools></tools> XML tags:\n<tools>",
    );
    for t in tools {
        let f = json!({
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        });
        out.push('\n');
        out.push_str(&f.to_string());
    }
    out.push_str(
        "\n</tools>\n\nFor each function call, return a json object with function name and \
         arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n\
         {\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>",
    );
    out
}
