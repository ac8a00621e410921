//! Command tools defined without code (SPEC §4.7): `extends = "cmd_tool"` in config, and
//! `run_command`, which is one too.
//!
//! A template such as `bd {action} {task_id?} {args?}` becomes one shell script per call:
//! `{name}` is replaced by the argument **quoted for the shell** (so `; rm -rf ~` stays one
//! word), `{name?}` is dropped when the argument is absent or null. The schema is wrapped into a
//! full strict function schema: every property is listed in `required`, the optional ones made
//! nullable, and no other properties are allowed unless the config says so.

use serde_json::{Map, Value, json};

use crate::config::opts::Opts;
use crate::provider::ToolSpec;
use crate::tools::exec::shell::ChildEnv;
use crate::tools::policy::command_safety::is_safe;
use crate::tools::tool::report;
use crate::tools::tool::{
    ApprovalBefore, Command, Invocation, Kind, Output, Policy, Tool, ToolOutput,
};

pub mod template;
pub mod unattended;

pub use template::{fill as fill_template, validate as validate_template};

/// How a call's arguments become the command.
#[derive(Debug, Clone, PartialEq)]
pub enum BuildCmd {
    /// A template with `{name}` / `{name?}` placeholders; arguments are quoted.
    Template(String),
    /// The named argument *is* the shell command (run_command).
    Raw(String),
}

#[derive(Debug, Clone)]
pub struct CmdTool {
    pub name: String,
    pub description: String,
    pub properties: Map<String, Value>,
    pub required: Vec<String>,
    pub additional_properties: bool,
    pub build: BuildCmd,
    pub system_prompt: Option<String>,
    pub opts: Opts,
    /// Arguments the schema marks `option = true`: their value may start with `-`.
    pub options: Vec<String>,
}

/// The schema key that marks an argument as an option (kept out of what the model sees).
pub const OPTION_MARK: &str = "option";

/// The default list of commands `run_command` may run unasked in auto mode.
pub fn default_safe_commands() -> Vec<String> {
    [
        "ls",
        "cat",
        "pwd",
        "git status",
        "git diff",
        "git log",
        "rg",
        "grep",
        "head",
        "tail",
        "wc",
    ]
    .map(String::from)
    .to_vec()
}

/// `run_command`: run a shell command.
pub fn run_command() -> CmdTool {
    let mut properties = Map::new();
    properties.insert("cmd".into(), json!({"type": "string"}));
    CmdTool {
        name: "run_command".into(),
        description: "Run a shell command in the working directory and return its output.".into(),
        properties,
        required: vec!["cmd".into()],
        additional_properties: false,
        build: BuildCmd::Raw("cmd".into()),
        system_prompt: None,
        opts: Opts {
            require_approval_before: Some(ApprovalBefore::Always),
            require_cmd_approval: Some(true),
            judge: Some(true),
            timeout: Some(300_000),
            safe_commands: Some(default_safe_commands()),
            ..Opts::default()
        },
        options: Vec::new(),
    }
}

impl CmdTool {
    /// The command for this call, or why it cannot be built.
    pub fn build_command(&self, args: &Value) -> Result<String, String> {
        match &self.build {
            BuildCmd::Raw(key) => match args.get(key).and_then(Value::as_str) {
                Some(cmd) if !cmd.trim().is_empty() => Ok(cmd.to_owned()),
                _ => Err(format!("the `{key}` argument is missing or empty")),
            },
            BuildCmd::Template(t) => fill_template(t, args, &self.options),
        }
    }

    /// The text gate's answer for this call's command (None when the tool has no safe list).
    fn text_safe(&self, inv: &Invocation) -> Option<bool> {
        let list = inv.opts.safe_commands.as_deref()?;
        Some(
            self.build_command(&inv.args)
                .is_ok_and(|c| is_safe(&c, list)),
        )
    }
}

impl Tool for CmdTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn spec(&self) -> ToolSpec {
        // Strict mode: every property required, optional ones nullable.
        let mut properties = Map::new();
        for (k, v) in &self.properties {
            let mut v = v.clone();
            if let Some(obj) = v.as_object_mut() {
                obj.remove(OPTION_MARK);
            }
            if !self.required.contains(k)
                && let Some(obj) = v.as_object_mut()
                && let Some(ty) = obj.get("type").cloned()
            {
                let nullable = match ty {
                    Value::String(t) => json!([t, "null"]),
                    Value::Array(mut ts) => {
                        if !ts.contains(&json!("null")) {
                            ts.push(json!("null"));
                        }
                        Value::Array(ts)
                    }
                    other => other,
                };
                obj.insert("type".into(), nullable);
            }
            properties.insert(k.clone(), v);
        }
        let strict = !self.additional_properties;
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: json!({
                "type": "object",
                "properties": properties,
                "required": if strict { self.properties.keys().cloned().collect::<Vec<_>>() } else { self.required.clone() },
                "additionalProperties": self.additional_properties,
            }),
            strict: Some(strict),
        }
    }

    fn kind(&self) -> Kind {
        Kind::Shell
    }

    fn system_prompt(&self) -> Option<String> {
        self.system_prompt.clone()
    }

    fn default_opts(&self) -> Opts {
        self.opts.clone()
    }

    fn setup(&self, inv: &Invocation) -> Result<(), String> {
        self.build_command(&inv.args).map(|_| ())
    }

    fn commands(&self, inv: &Invocation) -> Vec<Command> {
        let Ok(script) = self.build_command(&inv.args) else {
            return Vec::new();
        };
        // A command the safe list would run unasked runs hardened, however it was approved.
        let env = if self.text_safe(inv) == Some(true) {
            unattended::safe_list_env(&script, &inv.cwd, &inv.ctx.sandbox)
        } else {
            ChildEnv::default()
        };
        vec![Command::Script { script, env }]
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        self.build_command(&inv.args)
            .unwrap_or_else(|_| self.name.clone())
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        Some(format!("Run the command `{}`?", self.cmd_string(inv)))
    }

    fn policy(&self, inv: &Invocation) -> Policy {
        Policy {
            is_safe: self.is_safe(inv),
            judge_context: self.build_command(&inv.args).ok(),
            caution: self.caution(inv),
            ..Policy::default()
        }
    }

    fn on_success(&self, inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        let cmd = self.cmd_string(inv);
        let text = data
            .last()
            .map(|s| s.content.trim_end())
            .unwrap_or_default();
        if text.is_empty() {
            out.add(
                format!("`{cmd}` succeeded with no output"),
                Some("(no output)".into()),
            );
        } else {
            out.add(
                format!("`{cmd}`\n````\n{text}\n````"),
                Some(text.to_owned()),
            );
        }
    }

    fn on_error(&self, inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        let cmd = self.cmd_string(inv);
        let errors = report::joined(errors);
        out.add(
            format!("There was an error running the `{cmd}` command:\n```txt\n{errors}\n```"),
            Some(format!("`{cmd}` failed\n{errors}")),
        );
    }

    fn on_rejected(&self, inv: &Invocation, out: &mut ToolOutput, reason: Option<&str>) {
        let cmd = self.cmd_string(inv);
        let mut text = format!("The user rejected the execution of the `{cmd}` command");
        if let Some(r) = reason.filter(|r| !r.trim().is_empty()) {
            text.push_str(&format!(", with the reason: \"{}\"", r.trim()));
        }
        out.add(text, None);
    }
}

impl CmdTool {
    /// The `is_safe` gate: the text gate, and no system path or git the safe list cannot vouch
    /// for (None when the tool has no safe list).
    fn is_safe(&self, inv: &Invocation) -> Option<bool> {
        if !self.text_safe(inv)? {
            return Some(false);
        }
        let Ok(cmd) = self.build_command(&inv.args) else {
            return Some(false);
        };
        Some(
            unattended::system_path_refusal(&cmd, &inv.cwd, &inv.ctx.own_paths).is_none()
                && unattended::safe_list_git_refusal(&cmd, &inv.cwd, &inv.ctx.sandbox).is_none(),
        )
    }

    /// A repository that git cannot be guarded against is the user's to decide, not the
    /// judge's: the judge sees only the command.
    fn caution(&self, inv: &Invocation) -> Option<String> {
        let cmd = self.build_command(&inv.args).ok()?;
        // Nor is a read of sayso's own files or another process's data: the judge sees only
        // the text, and a command can reshape what it reads past the scrubber.
        if let Some(why) = unattended::secret_read_refusal(&cmd, &inv.cwd, &inv.ctx.own_paths) {
            return Some(why);
        }
        if self.text_safe(inv) == Some(true)
            && unattended::system_path_refusal(&cmd, &inv.cwd, &inv.ctx.own_paths).is_none()
        {
            return unattended::safe_list_git_refusal(&cmd, &inv.cwd, &inv.ctx.sandbox);
        }
        unattended::judged_git_refusal(&cmd, &inv.cwd, &inv.ctx.sandbox)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_schema_lists_every_property_and_makes_optionals_nullable() {
        let spec = run_command().spec();
        assert_eq!(spec.strict, Some(true));
        assert_eq!(spec.parameters["required"], json!(["cmd"]));
        let optional = CmdTool {
            properties: [("n".to_owned(), json!({"type": "string", "option": true}))]
                .into_iter()
                .collect(),
            required: vec![],
            ..run_command()
        }
        .spec();
        assert_eq!(
            optional.parameters["properties"]["n"],
            json!({"type": ["string", "null"]}),
            "optional arguments are nullable; the `option` mark is not sent"
        );
        assert_eq!(
            spec.parameters["properties"]["cmd"]["type"],
            json!("string")
        );
        assert_eq!(spec.parameters["additionalProperties"], json!(false));
    }
}
