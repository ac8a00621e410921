//! MCP servers as tool sources (SPEC §8.4): each `[mcp_servers.NAME]` is started at launch
//! without blocking, its tools are offered as `NAME__TOOL`, and every call goes through the
//! engine's queue, approvals and gates like a built-in tool's.
//!
//! - [`client`]: one connection to one server (stdio or streamable HTTP), on the official Rust
//!   SDK (`rmcp`) behind our own small API: connect, list tools, call a tool with a timeout and
//!   cancellation, shut down (the server's whole process group).

//! - [`servers`]: the chat's servers — started in the background, their status and tools, calls
//!   routed (a crashed server restarted once), all ended with the chat.
//! - [`schema`]: which tools can be offered (`SERVER__TOOL`, an object schema of bounded size).
//! - [`tool`]: one MCP tool as an engine tool, with its kind and approval settings.

pub mod client;
pub mod schema;
pub mod servers;
pub mod tool;

mod offer {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::servers::{Servers, Status};
    use super::tool::McpTool;
    use crate::tools::tool::Tool;

    /// The tools of the servers that are ready, as engine tools, and those of them that never
    /// ask (`allowed_tools`), by their offered names.
    pub fn tools_of(servers: &Arc<Servers>) -> (Vec<Arc<dyn Tool>>, BTreeSet<String>) {
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        let mut allowed = BTreeSet::new();
        for snap in servers.snapshots() {
            let Some(server) = servers
                .server(&snap.name)
                .filter(|_| snap.status == Status::Ready)
            else {
                continue;
            };
            for info in snap.tools {
                let approval = server
                    .config
                    .approval_for(&info.name, info.destructive == Some(true));
                if server.config.allowed_tools.contains(&info.name) {
                    allowed.insert(super::schema::offered_name(&snap.name, &info.name));
                }
                tools.push(Arc::new(McpTool::new(
                    &snap.name,
                    info,
                    approval,
                    servers.clone(),
                )));
            }
        }
        (tools, allowed)
    }

    /// `/mcp` and `sayso mcp list`: each server, how it is reached, its status, and its tools
    /// with their kind and approval (and the tools not offered, with why).
    pub fn describe(servers: &Servers) -> String {
        let snaps = servers.snapshots();
        if snaps.is_empty() {
            return super::NONE_CONFIGURED.into();
        }
        let mut out = Vec::new();
        for snap in snaps {
            out.push(format!(
                "{} ({}) — {}",
                snap.name,
                snap.transport,
                snap.status.describe()
            ));
            let Some(server) = servers.server(&snap.name) else {
                continue;
            };
            for t in &snap.tools {
                let a = server
                    .config
                    .approval_for(&t.name, t.destructive == Some(true));
                let mut how = vec![if server.config.allowed_tools.contains(&t.name) {
                    "never asks (allowed)".to_owned()
                } else if a.require_approval_before {
                    "asks".to_owned()
                } else {
                    "no approval".to_owned()
                }];
                if a.protect {
                    how.push("protect".into());
                }
                if a.judge && t.read_only != Some(true) {
                    how.push("judge in auto mode".into());
                }
                let kind = if t.read_only == Some(true) {
                    "read_only"
                } else if t.open_world == Some(true) {
                    "network"
                } else {
                    "other"
                };
                out.push(format!(
                    "  {:<32} {:<9} {}",
                    super::schema::offered_name(&snap.name, &t.name),
                    kind,
                    how.join("; ")
                ));
            }
            for s in &snap.skipped {
                out.push(format!("  not offered: {s}"));
            }
        }
        out.join("\n")
    }
}
pub use offer::{describe, tools_of};

/// What `/mcp` says without servers.
pub const NONE_CONFIGURED: &str =
    "no MCP servers are configured ([mcp_servers.NAME] in your config adds one)";
