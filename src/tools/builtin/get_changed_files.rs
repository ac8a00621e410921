//! `get_changed_files`: the git diff of staged, unstaged and conflicted changes.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};

use crate::provider::ToolSpec;
use crate::tools::tool::{
    CmdResult, Command, Invocation, Kind, Tool, ToolOutput, display_and_content, pack_display,
};

pub struct GetChangedFiles;

const STATES: [&str; 3] = ["unstaged", "staged", "merge-conflicts"];

async fn git(cwd: &Path, args: &[&str]) -> Result<String, String> {
    let out = tokio::process::Command::new("git")
        .args(args)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr).trim().to_owned();
        return Err(
            if err.to_ascii_lowercase().contains("not a git repository") {
                "the working directory is not inside a git repository".to_owned()
            } else {
                format!("git {} failed: {err}", args.join(" "))
            },
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn requested(args: &Value) -> Result<Vec<&'static str>, String> {
    match args.get("source_control_state") {
        None | Some(Value::Null) => Ok(STATES.to_vec()),
        Some(Value::Array(list)) => {
            let mut out = Vec::new();
            for v in list {
                let s = v.as_str().unwrap_or_default();
                match STATES.iter().find(|k| **k == s) {
                    Some(k) if !out.contains(k) => out.push(*k),
                    Some(_) => {}
                    None => {
                        return Err(format!(
                            "unknown state `{v}`; use any of unstaged, staged, merge-conflicts"
                        ));
                    }
                }
            }
            Ok(if out.is_empty() { STATES.to_vec() } else { out })
        }
        Some(other) => Err(format!(
            "`source_control_state` must be a list, not {other}"
        )),
    }
}

async fn changed(inv: &Invocation) -> Result<(String, String), String> {
    let states = requested(&inv.args)?;
    let mut blocks = Vec::new();
    let mut counts = Vec::new();
    for state in states {
        let (body, n) = match state {
            "unstaged" => {
                let d = git(&inv.cwd, &["diff", "--no-color", "--no-ext-diff"]).await?;
                let n = git(&inv.cwd, &["diff", "--name-only"])
                    .await?
                    .lines()
                    .count();
                (d, n)
            }
            "staged" => {
                let d = git(
                    &inv.cwd,
                    &["diff", "--cached", "--no-color", "--no-ext-diff"],
                )
                .await?;
                let n = git(&inv.cwd, &["diff", "--cached", "--name-only"])
                    .await?
                    .lines()
                    .count();
                (d, n)
            }
            _ => {
                let names = git(&inv.cwd, &["diff", "--name-only", "--diff-filter=U"]).await?;
                let n = names.lines().count();
                (names.lines().map(|l| format!("- {l}\n")).collect(), n)
            }
        };
        if n > 0 {
            counts.push(format!("{n} {state}"));
            let fence = if state == "merge-conflicts" {
                ""
            } else {
                "diff"
            };
            blocks.push(format!(
                "<getChangedFiles type=\"{state}\">\n```{fence}\n{}\n```\n</getChangedFiles>",
                body.trim_end()
            ));
        }
    }
    if blocks.is_empty() {
        return Ok(("No changed files found.".into(), "No changed files".into()));
    }
    Ok((
        blocks.join("\n\n"),
        format!("Changed files: {}", counts.join(", ")),
    ))
}

impl Tool for GetChangedFiles {
    fn name(&self) -> &str {
        "get_changed_files"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "get_changed_files".into(),
            description: "Get the git diff of the project's changes: unstaged, staged, and files with merge conflicts.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "source_control_state": {
                        "type": ["array", "null"],
                        "items": {"type": "string", "enum": STATES},
                        "description": "Which changes to show; null for all"
                    }
                },
                "required": ["source_control_state"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    fn kind(&self) -> Kind {
        Kind::ReadOnly
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                Some(match changed(&inv).await {
                    Ok((content, summary)) => CmdResult::Success(pack_display(&summary, &content)),
                    Err(e) => CmdResult::Error(e),
                })
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: Option<&[String]>) {
        let (summary, content) = display_and_content(data);
        out.add(content, Some(summary));
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[String]) {
        out.add(errors.join("\n"), None);
    }
}
