//! The MCP servers' tools in the chat: before each turn (and at the start), servers still
//! starting are waited for (each bounded by its startup timeout), tool lists a server said
//! changed are fetched again, and the engine offers exactly the tools of the servers that are
//! ready — those the tool list names, when it names any (`--tools SERVER__TOOL`). Each server's
//! status is reported once per change (ready with N tools, tools skipped, failed and why), with
//! the named tools it does not have.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Agent, Event, EventSink};
use crate::mcp::servers::{Servers, Status};
use crate::tools::mcp_selection::McpSelection;
use crate::tools::registry::Source;

#[derive(Default)]
pub struct McpState {
    pub servers: Option<Arc<Servers>>,
    /// The servers' generation the engine's tools reflect.
    synced: Option<u64>,
    /// What the user was last told of each server.
    reported: HashMap<String, String>,
    /// The MCP tools the tool list offers (`--tools SERVER__TOOL`).
    pub selection: McpSelection,
}

impl Agent {
    /// The chat's MCP servers (started by whoever launched the chat).
    pub fn set_mcp(&mut self, servers: Arc<Servers>) {
        self.mcp.servers = Some(servers);
    }

    pub fn mcp(&self) -> Option<&Arc<Servers>> {
        self.mcp.servers.as_ref()
    }

    /// Offers the servers' current tools; reports what changed.
    pub async fn sync_mcp(&mut self, sink: &EventSink) {
        let Some(servers) = self.mcp.servers.clone().filter(|s| !s.is_empty()) else {
            return;
        };
        servers.wait_started().await;
        servers.refresh_changed().await;
        let generation = servers.generation();
        if self.mcp.synced == Some(generation) {
            return;
        }
        self.mcp.synced = Some(generation);
        for snap in servers.snapshots() {
            let note = match &snap.status {
                Status::Ready => {
                    let mut n = format!("MCP server `{}`: {} tool(s)", snap.name, snap.tools.len());
                    if !snap.skipped.is_empty() {
                        n.push_str(&format!("; not offered: {}", snap.skipped.join("; ")));
                    }
                    Ok(n)
                }
                Status::Failed(why) => Err(format!("MCP server `{}`: {why}", snap.name)),
                Status::Disabled | Status::Starting => continue,
            };
            let text = match &note {
                Ok(t) | Err(t) => t.clone(),
            };
            if self.mcp.reported.get(&snap.name) != Some(&text) {
                self.mcp.reported.insert(snap.name.clone(), text);
                sink.emit(Event::Info(note));
                if snap.status == Status::Ready {
                    let offered: Vec<String> = snap
                        .tools
                        .iter()
                        .map(|t| crate::mcp::schema::offered_name(&snap.name, &t.name))
                        .collect();
                    for missing in self.mcp.selection.missing(&snap.name, &offered) {
                        sink.emit(Event::Info(Err(missing)));
                    }
                }
            }
        }
        let (tools, allowed) = crate::mcp::tools_of(&servers);
        let selection = &self.mcp.selection;
        self.engine
            .replace_source(Source::Mcp, tools, &allowed, |n| selection.offers(n));
    }
}
