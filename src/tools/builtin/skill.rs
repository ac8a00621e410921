//! `skill`: loads one of the skills listed in the system message (`crate::skills`): the full
//! text of its `SKILL.md` and the paths of its other files, which the model reads with
//! `read_file` (under that tool's rules) when the skill says to. Read-only; it reads nothing
//! but the `SKILL.md` of a skill found at the start of the chat, and runs nothing.

use std::sync::Arc;

use serde_json::json;

use crate::provider::ToolSpec;
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Tool, ToolOutput};

pub struct Skill;

/// The tool's name.
pub const NAME: &str = "skill";

impl Tool for Skill {
    fn name(&self) -> &str {
        NAME
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: NAME.into(),
            description: "Load a skill from the skills list in your instructions: its full instructions and the paths of its other files (read those with read_file when needed). Load a skill before doing a task its description matches.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "the skill's name, as listed"}
                },
                "required": ["name"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    fn kind(&self) -> Kind {
        Kind::ReadOnly
    }

    fn cmd_string(&self, inv: &Invocation) -> String {
        format!("skill {}", inv.arg_str("name"))
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                let name = inv.arg_str("name").to_owned();
                Some(match crate::skills::load(&inv.ctx.skills, &name) {
                    Ok(text) => CmdResult::ok(Output::shown(text, format!("Loaded skill {name}"))),
                    Err(e) => CmdResult::err(e),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        report::last_output(data, out);
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        report::errors(errors, out);
    }
}
