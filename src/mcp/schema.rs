//! Which of a server's tools can be offered to the model, and as what: `SERVER__TOOL` (a
//! function name the OpenAI API accepts: letters, digits, `_`, `-`, at most 64), its
//! description, and its input schema — an object schema of at most [`MAX_SCHEMA_BYTES`]; a tool
//! that does not qualify is skipped with the reason (`/mcp` shows it).

use serde_json::{Value, json};

use super::client::ToolInfo;
use crate::provider::ToolSpec;

/// A tool schema bigger than this (as JSON) is not offered: it would crowd the window.
pub const MAX_SCHEMA_BYTES: usize = 16 * 1024;
/// Descriptions are cut here.
const MAX_DESCRIPTION: usize = 1024;

/// The name a server's tool is offered as.
pub fn offered_name(server: &str, tool: &str) -> String {
    format!("{server}__{tool}")
}

/// Whether a tool is offered, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offered {
    pub name: String,
    pub skipped: Option<String>,
}

pub fn offer(server: &str, t: &ToolInfo) -> Offered {
    let name = offered_name(server, &t.name);
    let skipped = if name.len() > 64
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        Some(format!(
            "`{}`: its name cannot be a function name (letters, digits, _ and -, at most 64 with the server's)",
            t.name
        ))
    } else if let Err(why) = parameters(&t.input_schema) {
        Some(format!("`{}`: {why}", t.name))
    } else {
        None
    };
    Offered { name, skipped }
}

/// The schema as the request's `parameters`: an object schema (a missing `type` is taken as
/// `object`); `Err` when it is anything else or too big.
pub fn parameters(schema: &Value) -> Result<Value, String> {
    let Some(obj) = schema.as_object() else {
        return Err("its input schema is not a JSON object".into());
    };
    match obj.get("type") {
        None => {}
        Some(t) if t == "object" => {}
        Some(t) => return Err(format!("its input schema's type is {t}, not \"object\"")),
    }
    let size = schema.to_string().len();
    if size > MAX_SCHEMA_BYTES {
        return Err(format!(
            "its input schema is {size} bytes, more than {MAX_SCHEMA_BYTES}"
        ));
    }
    let mut out = obj.clone();
    out.entry("type").or_insert_with(|| json!("object"));
    out.entry("properties").or_insert_with(|| json!({}));
    Ok(Value::Object(out))
}

/// The function offered to the model for `t` of `server`.
pub fn spec(server: &str, t: &ToolInfo) -> ToolSpec {
    let mut description = crate::text_cut::head_chars(&t.description, MAX_DESCRIPTION).to_owned();
    if description.trim().is_empty() {
        description = format!("The `{}` tool of the MCP server `{server}`.", t.name);
    }
    ToolSpec {
        name: offered_name(server, &t.name),
        description,
        parameters: parameters(&t.input_schema).unwrap_or_else(|_| json!({"type": "object"})),
        strict: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, schema: Value) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            description: "d".into(),
            input_schema: schema,
            read_only: None,
            destructive: None,
            open_world: None,
        }
    }

    #[test]
    fn good_tools_are_offered_and_bad_ones_say_why() {
        let ok = offer(
            "gh",
            &tool("search", json!({"type": "object", "properties": {}})),
        );
        assert_eq!((ok.name.as_str(), ok.skipped), ("gh__search", None));
        assert!(
            offer("gh", &tool("no type", json!({})))
                .skipped
                .unwrap()
                .contains("function name")
        );
        assert_eq!(offer("gh", &tool("untyped", json!({}))).skipped, None);
        assert!(
            offer("gh", &tool("arr", json!({"type": "array"})))
                .skipped
                .unwrap()
                .contains("not \"object\"")
        );
        let huge = json!({"type": "object", "description": "x".repeat(MAX_SCHEMA_BYTES)});
        assert!(
            offer("gh", &tool("big", huge))
                .skipped
                .unwrap()
                .contains("bytes")
        );
        assert!(
            offer("gh", &tool(&"n".repeat(70), json!({})))
                .skipped
                .is_some()
        );
        assert!(offer("gh", &tool("s", json!("string"))).skipped.is_some());
    }

    #[test]
    fn a_spec_has_an_object_schema_and_a_description() {
        let mut t = tool("untyped", json!({"required": []}));
        t.description = String::new();
        let s = spec("db", &t);
        assert_eq!(s.name, "db__untyped");
        assert_eq!(
            s.parameters,
            json!({"type": "object", "properties": {}, "required": []})
        );
        assert_eq!(s.description, "The `untyped` tool of the MCP server `db`.");
    }
}
