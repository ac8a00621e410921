//! A tool (SPEC §4.1): the [`Tool`] trait, whose default methods give the default behaviour and
//! messages of SPEC §4.6, the per-call [`Invocation`] (the "fresh copy" carrying `args` and the
//! raw `function_call`), commands, and the [`SimpleTool`] helper.
//!
//! A tool definition is shared and immutable; everything that belongs to one call lives in its
//! `Invocation`. Output functions report through [`ToolOutput::add`] (SPEC §4.4).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::function::FnArgs;
use super::shell::ChildEnv;
use crate::config::opts::Opts;
use crate::provider::{ToolCall, ToolSpec};

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
    pub ctx: std::sync::Arc<super::context::ToolContext>,
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

/// The result of one command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CmdResult {
    Success(String),
    Error(String),
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

/// Collects what one call reports (SPEC §4.4): `content` for the model, `display` for the user,
/// and the files it changed (shown, never sent to the model).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolOutput {
    parts: Vec<(String, Option<String>)>,
    changes: Vec<crate::events::FileChange>,
}

impl ToolOutput {
    /// Adds a result. `display: None` shows `content`; `Some("")` shows nothing.
    pub fn add(&mut self, content: impl Into<String>, display: Option<String>) {
        self.parts.push((content.into(), display));
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The tool message content: every part, separated by a blank line.
    pub fn content(&self) -> String {
        self.parts
            .iter()
            .map(|(c, _)| c.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// What the chat pane shows: `None` when nothing is to be shown.
    pub fn display(&self) -> Option<String> {
        let shown: Vec<&str> = self
            .parts
            .iter()
            .map(|(c, d)| d.as_deref().unwrap_or(c))
            .filter(|s| !s.is_empty())
            .collect();
        (!shown.is_empty()).then(|| shown.join("\n\n"))
    }

    pub fn parts(&self) -> &[(String, Option<String>)] {
        &self.parts
    }

    /// Records a file the call changed.
    pub fn add_change(&mut self, change: crate::events::FileChange) {
        self.changes.push(change);
    }

    pub fn changes(&self) -> &[crate::events::FileChange] {
        &self.changes
    }

    /// Every secret value (`crate::secrets`) replaced by its marker, in content, display and
    /// the changes' diffs.
    pub fn scrubbed(self) -> Self {
        Self {
            changes: self.changes.into_iter().map(|c| c.scrubbed()).collect(),
            parts: self
                .parts
                .into_iter()
                .map(|(c, d)| {
                    (
                        crate::secrets::scrub_owned(c),
                        d.map(crate::secrets::scrub_owned),
                    )
                })
                .collect(),
        }
    }

    /// Every part's content capped to `limit` characters (SPEC §8.3); display texts are kept.
    pub fn capped(self, limit: usize) -> Self {
        Self {
            changes: self.changes,
            parts: self
                .parts
                .into_iter()
                .map(|(c, d)| (super::output_cap::cap(&c, limit), d))
                .collect(),
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

    /// Runs after the commands (or the failing one), and after a Cancel at approval.
    fn on_exit(&self, _inv: &Invocation) {}

    /// `require_approval_before` as a predicate of the args; `None` defers to the opts value.
    fn requires_approval(&self, _inv: &Invocation) -> Option<bool> {
        None
    }

    /// Decides when `require_approval_before` is neither a bool nor a predicate.
    fn prompt_condition(&self, _inv: &Invocation) -> bool {
        true
    }

    /// The deterministic safety gate used in auto mode; `None` = no gate.
    fn is_safe(&self, _inv: &Invocation) -> Option<bool> {
        None
    }

    /// What the judge is told this call does; `None` = the judge cannot vet it.
    fn judge_context(&self, _inv: &Invocation) -> Option<String> {
        None
    }

    /// A call that must be confirmed whatever the mode and memory (a write outside the
    /// working directory or to a protected path), and why.
    fn must_ask(&self, _inv: &Invocation) -> Option<String> {
        None
    }

    /// In the modes that would run this call unasked (auto, trust, an allow rule) it asks the
    /// user instead, and why (a per-call `protect`); remembered approvals still apply.
    fn caution(&self, _inv: &Invocation) -> Option<String> {
        None
    }

    /// A read outside the working directory, and what it reads: strict mode asks.
    fn reads_outside(&self, _inv: &Invocation) -> Option<String> {
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

    /// After every successful command, with the data of this tool's successful commands so far
    /// (`None` when there is none).
    fn on_success(&self, inv: &Invocation, out: &mut ToolOutput, _data: Option<&[String]>) {
        out.add(format!("Executed `{}`", inv.name), None);
    }

    /// Once, on the failing command, with this tool's errors (latest last).
    fn on_error(&self, inv: &Invocation, out: &mut ToolOutput, errors: &[String]) {
        out.add(
            format!("Error calling `{}`\n{}", inv.name, errors.join("\n")),
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

/// Function commands that compute both texts pass them through the runner as one string — the
/// short display line first, then the content for the model. [`display_and_content`] splits it.
pub fn pack_display(display: &str, content: &str) -> String {
    format!("{display}\n{content}")
}

/// The (display, content) of the latest successful command's [`pack_display`]ed data.
pub fn display_and_content(data: Option<&[String]>) -> (String, String) {
    let data = data
        .and_then(<[String]>::last)
        .map(String::as_str)
        .unwrap_or_default();
    match data.split_once('\n') {
        Some((d, c)) => (d.to_owned(), c.to_owned()),
        None => (data.to_owned(), String::new()),
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

type SimpleFn =
    Arc<dyn Fn(Arc<Invocation>) -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// The common case: a description, flat arguments and one async function returning a string.
///
/// ```
/// use sayso::tools::tool::{Kind, SimpleTool};
/// let echo = SimpleTool::new("echo", "Repeat the text", Kind::ReadOnly)
///     .arg("text", "string", "What to repeat", true)
///     .run(|inv| async move { Ok(inv.arg_str("text").to_owned()) });
/// ```
#[derive(Clone)]
pub struct SimpleTool {
    name: String,
    description: String,
    kind: Kind,
    properties: serde_json::Map<String, Value>,
    required: Vec<String>,
    opts: Opts,
    func: Option<SimpleFn>,
}

impl SimpleTool {
    pub fn new(name: impl Into<String>, description: impl Into<String>, kind: Kind) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            kind,
            properties: serde_json::Map::new(),
            required: Vec::new(),
            opts: Opts::default(),
            func: None,
        }
    }

    /// Adds an argument of JSON type `ty`.
    pub fn arg(mut self, name: &str, ty: &str, description: &str, required: bool) -> Self {
        self.properties.insert(
            name.into(),
            serde_json::json!({"type": ty, "description": description}),
        );
        if required {
            self.required.push(name.into());
        }
        self
    }

    pub fn opts(mut self, opts: Opts) -> Self {
        self.opts = opts;
        self
    }

    pub fn run<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Arc<Invocation>) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<String, String>> + Send + 'static,
    {
        self.func = Some(Arc::new(move |inv| Box::pin(f(inv))));
        self
    }
}

impl Tool for SimpleTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": self.properties,
                "required": self.required,
            }),
            strict: None,
        }
    }

    fn kind(&self) -> Kind {
        self.kind
    }

    fn default_opts(&self) -> Opts {
        self.opts.clone()
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        let Some(func) = self.func.clone() else {
            return Vec::new();
        };
        vec![Command::Function(Arc::new(move |inv, _args| {
            let func = func.clone();
            Box::pin(async move {
                Some(match func(inv).await {
                    Ok(s) => CmdResult::Success(s),
                    Err(e) => CmdResult::Error(e),
                })
            })
        }))]
    }

    fn on_success(&self, inv: &Invocation, out: &mut ToolOutput, data: Option<&[String]>) {
        match data.and_then(<[String]>::last) {
            Some(d) => out.add(d.clone(), None),
            None => out.add(format!("Executed `{}`", inv.name), None),
        }
    }
}
