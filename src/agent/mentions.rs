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

    /// `files` as above; `quiet` with no prompt and a member no registry has; `read_file` is
    /// both a tool and a group.
    fn more_groups() -> BTreeMap<String, Group> {
        let mut g = groups();
        g.insert(
            "quiet".into(),
            Group {
                tools: vec!["run_command".into(), "no_such_tool".into()],
                prompt: None,
            },
        );
        g.insert(
            "read_file".into(),
            Group {
                tools: vec!["create_file".into()],
                prompt: Some("never used".into()),
            },
        );
        g
    }

    #[test]
    fn mentions_table() {
        // (what the user typed, the tools already active, the text sent, the tools added)
        let rows: &[(&str, &[&str], &str, &[&str])] = &[
            ("no mentions at all", &[], "no mentions at all", &[]),
            (
                "@{nope} and @{ also nope }",
                &[],
                "@{nope} and @{ also nope }",
                &[],
            ),
            (
                "an active tool: @{run_command}",
                &["run_command"],
                "an active tool: the run_command tool",
                &[],
            ),
            (
                "@{ run_command } trimmed",
                &[],
                "the run_command tool trimmed",
                &["run_command"],
            ),
            (
                "a group whose tools are active: @{files}",
                &["read_file", "create_file"],
                "a group whose tools are active: I'm giving you access to read_file, create_file tools to help me out",
                &[],
            ),
            (
                "no prompt: [@{quiet}]",
                &[],
                "no prompt: []",
                &["run_command"],
            ),
            (
                "both: @{read_file}",
                &[],
                "both: the read_file tool",
                &["create_file", "read_file"],
            ),
            (
                "@{files} then @{create_file}",
                &[],
                "I'm giving you access to read_file, create_file tools to help me out then the create_file tool",
                &["read_file", "create_file"],
            ),
            // Braces in code are text.
            ("fn f() { g(@{x}) }", &[], "fn f() { g(@{x}) }", &[]),
            (
                "let s = \"${tools}\"; {@{read_file}}",
                &[],
                "let s = \"${tools}\"; {the read_file tool}",
                &["create_file", "read_file"],
            ),
            (
                "unclosed @{read_file and more",
                &[],
                "unclosed @{read_file and more",
                &[],
            ),
            (
                "@{@{run_command}}",
                &[],
                "@{the run_command tool}",
                &["run_command"],
            ),
            ("@{} @{ }", &[], "@{} @{ }", &[]),
            (
                "a@{run_command}@{run_command}b",
                &[],
                "athe run_command toolthe run_command toolb",
                &["run_command"],
            ),
            (
                "non-ASCII: é@{run_command}ü",
                &[],
                "non-ASCII: éthe run_command toolü",
                &["run_command"],
            ),
        ];
        let reg = builtin::registry();
        for (typed, active, text, added) in rows {
            let active: BTreeSet<String> = active.iter().map(|s| (*s).to_owned()).collect();
            let e = expand(typed, &reg, &more_groups(), &active);
            assert_eq!(e.text, *text, "{typed}");
            assert_eq!(e.added, *added, "{typed}");
        }
    }
}
