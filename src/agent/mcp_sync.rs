//! The MCP servers' tools in the chat: before each turn (and at the start), servers still
//! starting are waited for (each bounded by its startup timeout), tool lists a server said
//! changed are fetched again, and the engine offers exactly the tools of the servers that are
//! ready — those the tool list names, when it names any (`--tools SERVER__TOOL`). Each server's
//! status is reported once per change (ready with N tools, tools skipped, failed and why), with
//! the named tools it does not have. What a sync reports and offers is decided by the pure
//! [`McpState::sync`]; [`Agent::sync_mcp`] waits for the servers and applies it.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::{Agent, Event, EventSink};
use crate::events::Notice;
use crate::mcp::servers::{Servers, Snapshot, Status};
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
        let Some(sync) = self.mcp.sync(servers.generation(), &servers.snapshots()) else {
            return;
        };
        super::window::emit_all(sink, sync.events);
        let (tools, allowed) = crate::mcp::tools_of(&servers);
        self.engine
            .replace_source(Source::Mcp, tools, &allowed, |n| sync.offered.contains(n));
    }
}

/// What one sync does: the notes to show, and the MCP tools to offer (by offered name).
#[derive(Debug, Default, PartialEq)]
pub struct Sync {
    pub events: Vec<Event>,
    pub offered: BTreeSet<String>,
}

impl McpState {
    /// What a sync at the servers' `generation`, which they are in as `snapshots` say, does:
    /// `None` when the engine already reflects that generation. A server's status is reported
    /// when it differs from what the user was last told of it; the tools offered are those of
    /// the ready servers that the tool list's selection offers.
    pub fn sync(&mut self, generation: u64, snapshots: &[Snapshot]) -> Option<Sync> {
        if self.synced == Some(generation) {
            return None;
        }
        self.synced = Some(generation);
        let mut out = Sync::default();
        for snap in snapshots {
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
            let offered: Vec<String> = snap
                .tools
                .iter()
                .map(|t| crate::mcp::schema::offered_name(&snap.name, &t.name))
                .collect();
            if snap.status == Status::Ready {
                let selection = &self.selection;
                out.offered
                    .extend(offered.iter().filter(|n| selection.offers(n)).cloned());
            }
            if self.reported.get(&snap.name) != Some(&notice) {
                self.reported.insert(snap.name.clone(), notice.clone());
                out.events.push(Event::Notice(notice));
                if snap.status == Status::Ready {
                    for missing in self.selection.missing(&snap.name, &offered) {
                        out.events
                            .push(Event::Notice(Notice::McpToolMissing(missing)));
                    }
                }
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::client::ToolInfo;

    fn snap(name: &str, status: Status, tools: &[&str]) -> Snapshot {
        Snapshot {
            name: name.into(),
            transport: "stdio".into(),
            status,
            tools: tools
                .iter()
                .map(|t| ToolInfo {
                    name: (*t).into(),
                    description: String::new(),
                    input_schema: serde_json::json!({"type": "object"}),
                    read_only: None,
                    destructive: None,
                    open_world: None,
                })
                .collect(),
            skipped: Vec::new(),
        }
    }

    /// The notes a sync shows, as `ok: …` / `err: …` (the one place that reads their form).
    fn notes(sync: &Sync) -> Vec<String> {
        sync.events
            .iter()
            .map(|e| match e {
                Event::Notice(Notice::McpReady {
                    server,
                    tools,
                    skipped,
                }) if skipped.is_empty() => format!("ok: MCP server `{server}`: {tools} tool(s)"),
                Event::Notice(Notice::McpReady {
                    server,
                    tools,
                    skipped,
                }) => format!(
                    "ok: MCP server `{server}`: {tools} tool(s); not offered: {}",
                    skipped.join("; ")
                ),
                Event::Notice(Notice::McpFailed { server, why }) => {
                    format!("err: MCP server `{server}`: {why}")
                }
                Event::Notice(Notice::McpToolMissing(t)) => format!("err: {t}"),
                other => format!("other: {other:?}"),
            })
            .collect()
    }

    fn names(sync: &Sync) -> Vec<&str> {
        sync.offered.iter().map(String::as_str).collect()
    }

    #[test]
    fn a_server_that_starts_adds_its_tools_and_is_reported_once() {
        let mut state = McpState::default();
        let s = state.sync(1, &[snap("fs", Status::Starting, &[])]).unwrap();
        assert!(notes(&s).is_empty() && s.offered.is_empty(), "{s:?}");

        let ready = [snap("fs", Status::Ready, &["read", "write"])];
        let s = state.sync(2, &ready).unwrap();
        assert_eq!(notes(&s), ["ok: MCP server `fs`: 2 tool(s)"]);
        assert_eq!(names(&s), ["fs__read", "fs__write"]);

        assert_eq!(
            state.sync(2, &ready),
            None,
            "the same generation: nothing to do"
        );
        let s = state.sync(3, &ready).unwrap();
        assert!(notes(&s).is_empty(), "told already: {s:?}");
        assert_eq!(names(&s), ["fs__read", "fs__write"], "still offered");
    }

    #[test]
    fn a_failure_is_reported_once_and_offers_nothing() {
        let mut state = McpState::default();
        let failed = || snap("web", Status::Failed("exited with 1".into()), &["get"]);
        let s = state.sync(1, &[failed()]).unwrap();
        assert_eq!(notes(&s), ["err: MCP server `web`: exited with 1"]);
        assert!(s.offered.is_empty());
        // Another server changes the generation: the failure is not told again.
        let s = state
            .sync(2, &[failed(), snap("fs", Status::Ready, &["read"])])
            .unwrap();
        assert_eq!(notes(&s), ["ok: MCP server `fs`: 1 tool(s)"]);
        assert_eq!(names(&s), ["fs__read"]);
    }

    #[test]
    fn a_changed_tool_list_replaces_the_old_one() {
        let mut state = McpState::default();
        state
            .sync(1, &[snap("fs", Status::Ready, &["read", "write"])])
            .unwrap();
        let s = state
            .sync(2, &[snap("fs", Status::Ready, &["list"])])
            .unwrap();
        assert_eq!(names(&s), ["fs__list"]);
        assert_eq!(notes(&s), ["ok: MCP server `fs`: 1 tool(s)"]);
    }

    #[test]
    fn skipped_tools_are_named_and_disabled_servers_are_not_reported() {
        let mut state = McpState::default();
        let mut fs = snap("fs", Status::Ready, &["read"]);
        fs.skipped = vec!["big: schema too large".into()];
        let s = state
            .sync(1, &[fs, snap("off", Status::Disabled, &["x"])])
            .unwrap();
        assert_eq!(
            notes(&s),
            ["ok: MCP server `fs`: 1 tool(s); not offered: big: schema too large"]
        );
        assert_eq!(names(&s), ["fs__read"]);
    }

    #[test]
    fn the_tool_list_selection_is_obeyed_and_missing_names_reported() {
        let mut state = McpState {
            selection: McpSelection::new(
                [
                    "fs__read".to_owned(),
                    "fs__gone".to_owned(),
                    "web__*".into(),
                ],
                "--tools",
            ),
            ..McpState::default()
        };
        let s = state
            .sync(
                1,
                &[
                    snap("fs", Status::Ready, &["read", "write"]),
                    snap("web", Status::Ready, &["get", "post"]),
                    snap("db", Status::Ready, &["query"]),
                ],
            )
            .unwrap();
        assert_eq!(names(&s), ["fs__read", "web__get", "web__post"]);
        assert_eq!(
            notes(&s),
            [
                "ok: MCP server `fs`: 2 tool(s)",
                "err: --tools names `fs__gone`, which the MCP server `fs` does not offer \
                 (it offers fs__read, fs__write)",
                "ok: MCP server `web`: 2 tool(s)",
                "ok: MCP server `db`: 1 tool(s)",
            ]
        );
    }
}
