//! One MCP tool as an engine [`Tool`]: offered as `SERVER__TOOL` with the server's schema, its
//! kind from the server's annotations (`readOnlyHint` → read_only, `openWorldHint` → network,
//! else other), its approval settings from the config (default: ask; a `destructiveHint` tool is
//! protected), and one function command that calls the server. So every MCP call passes the same
//! queue, approvals, rules, auto-mode gates and judge as a built-in's.
//!
//! In auto mode a tool that is not read-only goes through the gates (`require_cmd_approval`):
//! it has no safe list, so the judge vets it (when allowed) or the user is asked; "Always
//! accept" and the judge's safe verdict remember the exact call — its name and every argument
//! (`approval::call_key`). The call's text (`cmd_string`: what the modal and the transcript
//! show, and what approval rules match) is that same whole call, never cut, so a rule or the
//! user reads every argument. The judge reads every argument too; a call whose arguments are
//! too long to show it is not judged (it asks).

use std::sync::Arc;

use futures_util::FutureExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::client::ToolInfo;
use super::schema;
use super::servers::Servers;
use crate::config::mcp::McpApproval;
use crate::config::opts::Opts;
use crate::provider::ToolSpec;
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Policy, Tool, ToolOutput};

pub struct McpTool {
    /// `SERVER__TOOL`.
    name: String,
    server: String,
    info: ToolInfo,
    approval: McpApproval,
    servers: Arc<Servers>,
}

impl McpTool {
    pub fn new(server: &str, info: ToolInfo, approval: McpApproval, servers: Arc<Servers>) -> Self {
        Self {
            name: schema::offered_name(server, &info.name),
            server: server.to_owned(),
            info,
            approval,
            servers,
        }
    }

    /// What the judge is told: every argument it vouches for, or it is not asked.
    fn judge_context(&self, inv: &Invocation) -> Option<String> {
        let args = inv.args.to_string();
        if args.len() > JUDGE_ARGS_MAX {
            return None;
        }
        Some(format!(
            "The tool `{}` of the MCP server `{}` ({}), called with the arguments {}.{}",
            self.info.name,
            self.server,
            crate::text_cut::head_chars(&self.info.description, 300),
            args,
            match self.info.destructive {
                Some(true) => " The server marks it destructive.",
                _ => "",
            }
        ))
    }

    fn read_only(&self) -> bool {
        self.info.read_only == Some(true)
    }

    /// The server this tool belongs to.
    pub fn server(&self) -> &str {
        &self.server
    }
}

/// Arguments longer than this are not sent to the judge: the call asks instead.
const JUDGE_ARGS_MAX: usize = 16 * 1024;

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn spec(&self) -> ToolSpec {
        schema::spec(&self.server, &self.info)
    }

    fn kind(&self) -> Kind {
        if self.read_only() {
            Kind::ReadOnly
        } else if self.info.open_world == Some(true) {
            Kind::Network
        } else {
            Kind::Other
        }
    }

    fn default_opts(&self) -> Opts {
        Opts {
            require_approval_before: Some(self.approval.require_approval_before.into()),
            require_cmd_approval: Some(!self.read_only()),
            protect: Some(self.approval.protect),
            judge: Some(self.approval.judge),
            ..Opts::default()
        }
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        crate::tools::policy::approval::call_key(&inv.name, Kind::Other, "", &inv.args)
    }

    fn policy(&self, inv: &Invocation) -> Policy {
        Policy {
            judge_context: self.judge_context(inv),
            ..Policy::default()
        }
    }

    fn prompt(&self, _inv: &Invocation) -> Option<String> {
        Some(format!(
            "Call `{}` on the MCP server `{}`?",
            self.info.name, self.server
        ))
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        let (servers, server, tool) = (
            self.servers.clone(),
            self.server.clone(),
            self.info.name.clone(),
        );
        vec![Command::Function(Arc::new(move |inv, _args| {
            let (servers, server, tool) = (servers.clone(), server.clone(), tool.clone());
            async move {
                let arguments = match &inv.args {
                    Value::Object(m) => m.clone(),
                    _ => Default::default(),
                };
                // Dropping this future (the user stopped) cancels the call on the server too.
                let cancel = CancellationToken::new();
                let _guard = cancel.clone().drop_guard();
                Some(
                    match servers.call(&server, &tool, arguments, &cancel).await {
                        Ok(out) if out.is_error => {
                            CmdResult::err(Output::shown(out.content, first_line(&out.display)))
                        }
                        Ok(out) => {
                            CmdResult::ok(Output::shown(out.content, first_line(&out.display)))
                        }
                        Err(why) => CmdResult::err(why),
                    },
                )
            }
            .boxed()
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        report::last_output(data, out);
    }

    fn on_error(&self, inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        let last = errors.last().cloned().unwrap_or_default();
        // An error without a display of its own (the client's, the watchdog's) shows its
        // first line.
        let display = last.display.unwrap_or_else(|| first_line(&last.content));
        out.add(
            format!("The `{}` tool failed:\n{}", inv.name, last.content),
            Some(format!("failed: {display}")),
        );
    }
}

/// The display text on one line (a packed display is one line).
fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_owned()
}
