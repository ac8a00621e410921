//! The tools sayso knows: built-ins, user command tools from config, and library tools, each
//! with the `opts` its config entry sets (merged over the tool's own on lookup).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::config::opts::Opts;
use crate::tools::tool::Tool;

/// Where a tool came from, for `sayso tools`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Builtin,
    Config,
    Library,
    /// A tool of an MCP server (`SERVER__TOOL`).
    Mcp,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Builtin => "built-in",
            Source::Config => "config",
            Source::Library => "library",
            Source::Mcp => "mcp",
        }
    }
}

#[derive(Clone)]
pub struct Entry {
    pub tool: Arc<dyn Tool>,
    pub source: Source,
    /// The config entry's `opts` (not yet merged).
    pub config_opts: Opts,
}

impl Entry {
    /// The tool's own opts with the config entry's merged over them.
    pub fn opts(&self) -> Opts {
        self.tool.default_opts().merged(&self.config_opts)
    }
}

#[derive(Clone, Default)]
pub struct Registry {
    tools: BTreeMap<String, Entry>,
}

impl Registry {
    /// Adds or replaces a tool.
    pub fn register(&mut self, tool: Arc<dyn Tool>, source: Source) {
        let name = tool.name().to_owned();
        let config_opts = self
            .tools
            .remove(&name)
            .map(|e| e.config_opts)
            .unwrap_or_default();
        self.tools.insert(
            name,
            Entry {
                tool,
                source,
                config_opts,
            },
        );
    }

    /// Sets the config entry's opts for a registered tool; false if there is no such tool.
    pub fn set_config_opts(&mut self, name: &str, opts: Opts) -> bool {
        match self.tools.get_mut(name) {
            Some(e) => {
                e.config_opts = opts;
                true
            }
            None => false,
        }
    }

    /// Removes every tool from `source`; returns their names.
    pub fn remove_source(&mut self, source: Source) -> Vec<String> {
        let names: Vec<String> = self
            .tools
            .iter()
            .filter(|(_, e)| e.source == source)
            .map(|(n, _)| n.clone())
            .collect();
        for n in &names {
            self.tools.remove(n);
        }
        names
    }

    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.tools.get(name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.tools.contains_key(name)
    }

    /// Every tool, sorted by name.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.tools.iter().map(|(k, v)| (k.as_str(), v))
    }
}
