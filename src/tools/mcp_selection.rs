//! Which MCP tools the tool list (`--tools`, `chat.default_tools`) offers.
//!
//! An MCP tool (`SERVER__TOOL`) is known only once its server runs, so the list is checked in
//! two steps: when the config loads, a name with the `SERVER__` prefix of a configured server
//! is taken as named (any other unknown name is an error); when the servers list their tools,
//! only the named ones are offered — and a named tool that a ready server does not have is
//! reported once. `SERVER__*` names all of a server's tools. A list that names no MCP tool
//! leaves every MCP tool offered, as without `--tools` (the list then chooses the built-ins).
//!
//! Pure data and functions: no IO, and nothing of `mcp` (which sits beside `tools`).

use std::collections::BTreeSet;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct McpSelection {
    /// The MCP names the list gave (`SERVER__TOOL`, `SERVER__*`); empty: every tool.
    names: BTreeSet<String>,
    /// Where the list came from (`--tools`, `chat.default_tools`), for messages.
    origin: String,
}

/// Whether `name` is a tool name of one of `servers` (`SERVER__…`).
pub fn is_mcp_name<'a>(name: &str, mut servers: impl Iterator<Item = &'a str>) -> bool {
    servers.any(|s| server_of(name, s))
}

fn server_of(name: &str, server: &str) -> bool {
    name.strip_prefix(server)
        .is_some_and(|rest| rest.len() > 2 && rest.starts_with("__"))
}

impl McpSelection {
    pub fn new(names: impl IntoIterator<Item = String>, origin: &str) -> Self {
        Self {
            names: names.into_iter().collect(),
            origin: origin.to_owned(),
        }
    }

    /// Whether the MCP tool `name` is offered.
    pub fn offers(&self, name: &str) -> bool {
        self.names.is_empty()
            || self.names.contains(name)
            || self.names.iter().any(|n| {
                n.strip_suffix("__*")
                    .is_some_and(|server| server_of(name, server))
            })
    }

    /// The named tools of `server` that its tool list (`offered`: full `SERVER__TOOL` names)
    /// does not have, as a message each.
    pub fn missing(&self, server: &str, offered: &[String]) -> Vec<String> {
        self.names
            .iter()
            .filter(|n| server_of(n, server) && !n.ends_with("__*"))
            .filter(|n| !offered.contains(n))
            .map(|n| {
                let has = if offered.is_empty() {
                    "it offers no tools".to_owned()
                } else {
                    format!("it offers {}", offered.join(", "))
                };
                format!(
                    "{} names `{n}`, which the MCP server `{server}` does not offer ({has})",
                    self.origin
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_configured_servers_are_mcp_names() {
        let servers = ["fs", "web"];
        assert!(is_mcp_name("fs__read", servers.into_iter()));
        assert!(is_mcp_name("fs__*", servers.into_iter()));
        assert!(!is_mcp_name("fs__", servers.into_iter()));
        assert!(!is_mcp_name("db__read", servers.into_iter()));
        assert!(!is_mcp_name("fsx__read", servers.into_iter()));
        assert!(!is_mcp_name("read_file", servers.into_iter()));
    }

    #[test]
    fn an_empty_selection_offers_every_tool_a_named_one_only_those_named() {
        assert!(McpSelection::default().offers("fs__read"));
        let s = McpSelection::new(["fs__read".into(), "web__*".into()], "--tools");
        assert!(s.offers("fs__read"));
        assert!(!s.offers("fs__write"));
        assert!(s.offers("web__search"));
        assert!(!s.offers("webx__search"));
    }

    #[test]
    fn a_named_tool_the_server_lacks_is_reported() {
        let s = McpSelection::new(
            ["fs__read".into(), "fs__nope".into(), "fs__*".into()],
            "--tools",
        );
        assert_eq!(
            s.missing("fs", &["fs__read".into(), "fs__write".into()]),
            [
                "--tools names `fs__nope`, which the MCP server `fs` does not offer (it offers fs__read, fs__write)"
            ]
        );
        assert!(s.missing("web", &[]).is_empty());
    }
}
