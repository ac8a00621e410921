//! A tool (SPEC §4.1): the [`Tool`] trait, whose default methods give the default behaviour and
//! messages of SPEC §4.6, the per-call [`Invocation`] (the "fresh copy" carrying `args` and the
//! raw `function_call`) and commands. Its pieces live beside it and are re-exported here: the
//! typed outputs ([`output`]), the approval policy of a call ([`crate::tools::policy::Policy`]),
//! the shared output handlers ([`report`]) and the [`SimpleTool`] helper ([`simple_tool`]).
//!
//! A tool definition is shared and immutable; everything that belongs to one call lives in its
//! `Invocation`. Output functions report through [`ToolOutput::add`] (SPEC §4.4).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

pub mod output;
pub mod report;
pub mod simple_tool;

pub use output::{CmdResult, Output, ToolOutput};
pub use simple_tool::SimpleTool;

use crate::config::opts::Opts;
use crate::provider::{ToolCall, ToolSpec};
use crate::tools::exec::function::FnArgs;
use crate::tools::exec::shell::ChildEnv;
pub use crate::tools::policy::{ApprovalBefore, Policy};

/// What a tool does, for display and defaults.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    ReadOnly,
    FileEdit,
    Shell,
    Network,
    #[default]
    Other,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::ReadOnly => "read_only",
            Kind::FileEdit => "file_edit",
            Kind::Shell => "shell",
            Kind::Network => "network",
            Kind::Other => "other",
        }
    }
}

/// One call of a tool: the tool's "fresh copy" with the decoded `args` and the raw call.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub name: String,
    /// Decoded arguments (`{}` when the model sent none).
    pub args: Value,
    /// The call exactly as the model made it.
    pub function_call: ToolCall,
    /// The tool's own opts with the config entry's opts merged over them.
    pub opts: Opts,
    /// The session's working directory.
    pub cwd: PathBuf,
    /// The chat's shared tool context (file ledger, question channel, memory directory).
    pub ctx: std::sync::Arc<crate::tools::context::ToolContext>,
}

impl Invocation {
    /// A string argument, or `""`.
    pub fn arg_str(&self, key: &str) -> &str {
        self.args
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

/// A function command: receives the invocation and `(input, output_cb, register_job)`.
/// Returns `Some(result)`, or `None` and delivers the result later through `output_cb`.
pub type FunctionCmd =
    Arc<dyn Fn(Arc<Invocation>, FnArgs) -> BoxFuture<'static, Option<CmdResult>> + Send + Sync>;

/// One entry of a tool's `cmds`.
#[derive(Clone)]
pub enum Command {
    /// A script for `sh -c` (`${key}` placeholders filled from the tool's env).
    Script {
        script: String,
        /// Changes to the process environment (the provider keys are always removed).
        env: ChildEnv,
    },
    /// A program and its arguments, run without a shell.
    Argv {
        argv: Vec<String>,
        env: ChildEnv,
    },
    Function(FunctionCmd),
}

impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Script { script, .. } => write!(f, "Script({script:?})"),
            Command::Argv { argv, .. } => write!(f, "Argv({argv:?})"),
            Command::Function(_) => write!(f, "Function"),
        }
    }
}

/// What the approval modal shows besides the arguments (SPEC §6.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preview {
    /// A unified diff of a file change.
    Diff { path: String, diff: String },
    /// Free text (a file's size and first lines…).
    Text(String),
}

impl Preview {
    /// Every secret value (`crate::secrets`) replaced by its marker: a preview shows file text.
    pub fn scrubbed(self) -> Self {
        use crate::secrets::scrub_owned;
        match self {
            Preview::Diff { path, diff } => Preview::Diff {
                path,
                diff: scrub_owned(diff),
            },
            Preview::Text(t) => Preview::Text(scrub_owned(t)),
        }
    }
}

/// A tool. Only [`Tool::name`], [`Tool::spec`] and [`Tool::commands`] are required; every other
/// method has the default behaviour of SPEC §4.6.
pub trait Tool: Send + Sync {
    fn name(&self) -> &str;

    /// The function schema offered to the model.
    fn spec(&self) -> ToolSpec;

    fn kind(&self) -> Kind {
        Kind::Other
    }

    /// Hidden system prompt added when the tool joins a chat.
    fn system_prompt(&self) -> Option<String> {
        None
    }

    /// The tool's own opts; the config entry's `opts` are merged over them.
    fn default_opts(&self) -> Opts {
        Opts::default()
    }

    /// Values for `${key}` placeholders in shell commands.
    fn env(&self, _inv: &Invocation) -> HashMap<String, String> {
        HashMap::new()
    }

    /// The commands of this call, run in order.
    fn commands(&self, inv: &Invocation) -> Vec<Command>;

    /// Runs first for each call, before the approval decision. An error fails the call.
    fn setup(&self, _inv: &Invocation) -> Result<(), String> {
        Ok(())
    }

    /// Runs once after `setup`: after the commands (or the failing one), or after
    /// `on_cancelled` when a Cancel or a stop ends the call (waiting for the judge, the user or
    /// its command). A rejected call gets none (as in the seed).
    fn on_exit(&self, _inv: &Invocation) {}

    /// What the tool says about this call before the approval decision: its condition for
    /// asking, the `is_safe` gate, the judge's context, a forced ask, a caution, a read outside
    /// the project (SPEC §5). Called once per call, after `setup`.
    fn policy(&self, _inv: &Invocation) -> Policy {
        Policy::default()
    }

    /// The paths this call can change, for undo's checkpoints (`crate::checkpoint`): before it
    /// runs their images are kept, after it what differs. `None`: the tool cannot say (a
    /// command), so the project is snapshotted before and after — unless its kind is
    /// read-only. `Some(vec![])`: it changes nothing in the project.
    fn touches(&self, _inv: &Invocation) -> Option<Vec<PathBuf>> {
        None
    }

    /// The tool is itself a question to the user (`ask_questions`): it never needs approval.
    fn is_question(&self) -> bool {
        false
    }

    /// The approval modal's preview.
    fn preview(&self, _inv: &Invocation) -> Option<Preview> {
        None
    }

    /// The approval question; `None` gives ``Run the "NAME" tool?``.
    fn prompt(&self, _inv: &Invocation) -> Option<String> {
        None
    }

    /// The string shown for the call and remembered by "Always accept" with
    /// `require_cmd_approval`.
    fn cmd_string(&self, inv: &Invocation) -> String {
        inv.name.clone()
    }

    /// After every successful command, with the outputs of this tool's successful commands
    /// so far (empty when it has none).
    fn on_success(&self, inv: &Invocation, out: &mut ToolOutput, _data: &[Output]) {
        out.add(format!("Executed `{}`", inv.name), None);
    }

    /// Once, on the failing command, with this tool's errors (latest last).
    fn on_error(&self, inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        out.add(
            format!("Error calling `{}`\n{}", inv.name, report::joined(errors)),
            None,
        );
    }

    fn on_rejected(&self, inv: &Invocation, out: &mut ToolOutput, reason: Option<&str>) {
        out.add(default_rejection(&inv.name, reason), None);
    }

    fn on_cancelled(&self, inv: &Invocation, out: &mut ToolOutput) {
        out.add(
            format!("The user cancelled the execution of the {} tool", inv.name),
            Some(format!("Cancelled `{}`", inv.name)),
        );
    }
}

/// What undo's capture takes around a call of `tool` (`Tool::touches`, else the project
/// unless the tool is read-only); `None`: nothing.
pub fn checkpoint_scope(tool: &dyn Tool, inv: &Invocation) -> Option<crate::checkpoint::Scope> {
    use crate::checkpoint::Scope;
    match tool.touches(inv) {
        Some(paths) if paths.is_empty() => None,
        Some(paths) => Some(Scope::Paths(paths)),
        None if tool.kind() == Kind::ReadOnly => None,
        None => Some(Scope::Project),
    }
}

/// ``The user rejected the execution of the NAME tool`` + the reason, when given.
pub fn default_rejection(name: &str, reason: Option<&str>) -> String {
    let mut s = format!("The user rejected the execution of the {name} tool");
    if let Some(r) = reason.filter(|r| !r.trim().is_empty()) {
        s.push_str(&format!(", with the reason: \"{}\"", r.trim()));
    }
    s
}
