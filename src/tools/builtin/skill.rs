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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ToolCall;
    use crate::tools::context::ToolContext;

    fn inv(
        tool: &str,
        args: serde_json::Value,
        cwd: &std::path::Path,
        ctx: ToolContext,
    ) -> Invocation {
        Invocation {
            name: tool.into(),
            args: args.clone(),
            function_call: ToolCall {
                id: "c1".into(),
                name: tool.into(),
                arguments: args.to_string(),
            },
            opts: Default::default(),
            cwd: cwd.to_path_buf(),
            ctx: Arc::new(ctx),
        }
    }

    /// `read_file` of a listed skill file is a read inside (strict mode does not ask); the
    /// rest of sayso's config directory stays outside.
    #[test]
    fn read_file_treats_a_skills_folder_and_only_it_as_inside() {
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join("config/sayso");
        let folder = crate::skills::user_dir(&config).join("pdf");
        std::fs::create_dir_all(folder.join("scripts")).unwrap();
        std::fs::write(folder.join("SKILL.md"), "---\ndescription: d\n---\nx").unwrap();
        std::fs::write(folder.join("scripts/fill.py"), "1").unwrap();
        std::fs::write(config.join("config.toml"), "").unwrap();
        let cwd = home.path().join("work");
        std::fs::create_dir_all(&cwd).unwrap();
        let skills = crate::skills::discover(&config, &cwd);
        assert_eq!(skills.skills.len(), 1);
        let ctx = ToolContext {
            skills,
            ..ToolContext::default()
        };
        let read = |path: &std::path::Path| {
            let args = json!({"filepath": path.display().to_string(), "start_line": null, "end_line": null});
            crate::tools::builtin::read_file::ReadFile
                .policy(&inv("read_file", args, &cwd, ctx.clone()))
                .reads_outside
        };
        assert_eq!(read(&folder.join("scripts/fill.py")), None);
        assert!(read(&config.join("config.toml")).is_some());
        assert!(
            read(&config.join("skills")).is_some(),
            "the folder, not the directory above"
        );
    }
}
