//! `@{name}` in a user message (SPEC §4.8): adds that tool, or that group's tools, to the chat
//! for the rest of the conversation, and replaces the mention in the text the model receives —
//! a tool with `the NAME tool`, a group with its `prompt` (`${tools}` = the member names). When a
//! name is both a tool and a group, the tool's wording is used and both are added. Unknown names
//! are left as typed.

use std::collections::{BTreeMap, BTreeSet};

use crate::tools::configured::Group;
use crate::tools::registry::Registry;

/// The outcome of expanding a message's mentions.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The text for the model.
    pub text: String,
    /// Tools that were not active before, in the order first mentioned.
    pub added: Vec<String>,
}

pub fn expand(
    text: &str,
    registry: &Registry,
    groups: &BTreeMap<String, Group>,
    active: &BTreeSet<String>,
) -> Expanded {
    let mut out = String::with_capacity(text.len());
    let mut added: Vec<String> = Vec::new();
    let add = |name: &str, added: &mut Vec<String>| {
        if !active.contains(name) && !added.iter().any(|a| a == name) && registry.contains(name) {
            added.push(name.to_owned());
        }
    };
    let mut rest = text;
    while let Some(start) = rest.find("@{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        let name = after[..end].trim();
        let is_tool = registry.contains(name);
        let group = groups.get(name);
        if !is_tool && group.is_none() {
            out.push_str(&rest[..start + 2]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..start]);
        if let Some(g) = group {
            for t in &g.tools {
                add(t, &mut added);
            }
        }
        if is_tool {
            add(name, &mut added);
            out.push_str(&format!("the {name} tool"));
        } else if let Some(g) = group {
            let tools = format!("{} tools", g.tools.join(", "));
            out.push_str(
                &g.prompt
                    .clone()
                    .unwrap_or_default()
                    .replace("${tools}", &tools),
            );
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Expanded { text: out, added }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::builtin;

    fn groups() -> BTreeMap<String, Group> {
        [(
            "files".to_owned(),
            Group {
                tools: vec!["read_file".into(), "create_file".into()],
                prompt: Some("I'm giving you access to ${tools} to help me out".into()),
            },
        )]
        .into()
    }

    #[test]
    fn tools_and_groups_are_added_and_replaced() {
        let reg = builtin::registry();
        let active: BTreeSet<String> = ["read_file".to_owned()].into();
        let e = expand(
            "run @{run_command}, please. Also @{files}. And @{nope}!",
            &reg,
            &groups(),
            &active,
        );
        assert_eq!(
            e.text,
            "run the run_command tool, please. Also I'm giving you access to read_file, create_file tools to help me out. And @{nope}!"
        );
        assert_eq!(e.added, ["run_command", "create_file"]);
    }

    #[test]
    fn glued_text_repeats_and_trailing_newlines() {
        let reg = builtin::registry();
        let e = expand(
            "x@{read_file}y @{read_file}\n",
            &reg,
            &groups(),
            &BTreeSet::new(),
        );
        assert_eq!(
            e.text, "xthe read_file tooly the read_file tool\n",
            "the rest of the text is untouched"
        );
        assert_eq!(e.added, ["read_file"]);
    }
}
