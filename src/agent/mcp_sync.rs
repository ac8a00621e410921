//! The MCP servers' tools in the chat: before each turn (and at the start), servers still
//! starting are waited for (each bounded by its startup timeout), tool lists a server said
//! changed are fetched again, and the engine offers exactly the tools of the servers that are
//! ready — those the tool list names, when it names any (`--tools SERVER__TOOL`). Each server's
//! status is reported once per change (ready with N tools, tools skipped, failed and why), with
//! the named tools it does not have.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Agent, Event, EventSink};
use crate::events::Notice;
use crate::mcp::servers::{Servers, Status};
use crate::tools::mcp_selection::McpSelection;
use crate::tools::registry::Source;

#[derive(Default)]
pub struct McpState {
    pub servers: Option<Arc<Servers>>,
    /// The servers' generation the engine's tools reflect.
    synced: Option<u64>,
    /// What the user was last told of each server.
    reported: HashMap<String, Notice>,
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
            let notice = match &snap.status {
                Status::Ready => Notice::McpReady {
                    server: snap.name.clone(),
                    tools: snap.tools.len(),
                    skipped: snap.skipped.clone(),
                },
                Status::Failed(why) => Notice::McpFailed {
                    server: snap.name.clone(),
                    why: why.clone(),
                },
                Status::Disabled | Status::Starting => continue,
            };
            if self.mcp.reported.get(&snap.name) != Some(&notice) {
                self.mcp.reported.insert(snap.name.clone(), notice.clone());
                sink.emit(Event::Notice(notice));
                if snap.status == Status::Ready {
                    let offered: Vec<String> = snap
                        .tools
                        .iter()
                        .map(|t| crate::mcp::schema::offered_name(&snap.name, &t.name))
                        .collect();
                    for missing in self.mcp.selection.missing(&snap.name, &offered) {
                        sink.emit(Event::Notice(Notice::McpToolMissing(missing)));
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
