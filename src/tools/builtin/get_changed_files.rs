//! `get_changed_files`: the git diff of staged, unstaged and conflicted changes.
//!
//! It runs without approval, so it must not run what a hostile repository names (SPEC §8.3):
//! every git it starts gets the guarded environment of [`crate::tools::git_guard`] (with the
//! repository's filter drivers blanked by name) and `--no-ext-diff --no-textconv
//! --ignore-submodules=all --submodule=short`, in its own process group through the shell
//! runner, and inside the chat's sandbox read-only (a second wall: whatever git would still run
//! can write nothing; a sandbox that cannot be set up fails the call). What cannot be neutralised — a repository `core.worktree` (git would read another
//! directory), or a git too old to turn lazy fetching off — makes the call ask the user.
//!
//! A change to a path a `deny` path rule covers (the tool's or `*`'s) is left out of every
//! diff (git `:(exclude,glob)` pathspecs), and the result says how many files were.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::sandbox::Sandbox;
use crate::tools::exec::shell::{ChildEnv, ShellProgram, ShellSpec, run_shell};
use crate::tools::git_guard::confined::confined_git;
use crate::tools::git_guard::{self, Inspection};

use crate::provider::ToolSpec;
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Policy, Tool, ToolOutput};

pub struct GetChangedFiles;

const STATES: [&str; 3] = ["unstaged", "staged", "merge-conflicts"];

/// Runs one git command, hardened (see the module doc), in its own process group, inside the
/// chat's sandbox read-only.
async fn git(
    sandbox: &Sandbox,
    cwd: &Path,
    env: &ChildEnv,
    args: &[&str],
) -> Result<String, String> {
    let program = git_guard::git_program().ok_or("git was not found on PATH")?;
    let mut argv = vec![
        program.display().to_string(),
        "--no-pager".to_owned(),
        "--no-optional-locks".to_owned(),
    ];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let spec = ShellSpec {
        program: ShellProgram::Argv(confined_git(sandbox, argv, cwd)?),
        cwd: cwd.to_path_buf(),
        env: env.clone(),
        // The function watchdog (opts.timeout) bounds the whole tool; dropping this future
        // (cancel, watchdog) kills the group.
        timeout: None,
    };
    let out = run_shell(&spec, &CancellationToken::new()).await?;
    if !out.success() {
        let err = out.stderr.trim().to_owned();
        return Err(
            if err.to_ascii_lowercase().contains("not a git repository") {
                "the working directory is not inside a git repository".to_owned()
            } else {
                format!("git {} failed: {err}", args.join(" "))
            },
        );
    }
    Ok(out.stdout)
}

/// The flags that keep `git diff` from running what the repository names.
const DIFF: [&str; 5] = [
    "diff",
    "--no-ext-diff",
    "--no-textconv",
    "--ignore-submodules=all",
    "--submodule=short",
];

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
    let cwd = inv.cwd.clone();
    let sandbox = inv.ctx.sandbox.clone();
    let filters = tokio::task::spawn_blocking(move || Inspection::run(&cwd, &sandbox))
        .await
        .map_err(|e| format!("get_changed_files stopped: {e}"))??
        .filters;
    let env = inv.ctx.child_env().and(&git_guard::guard_env(&filters));
    let denied = inv.ctx.rules.path_denials(&inv.name);
    let excludes = exclude_pathspecs(&denied.patterns());
    let run_git = |args: Vec<&'static str>, excluding: bool| {
        let env = env.clone();
        let cwd = inv.cwd.clone();
        let sandbox = inv.ctx.sandbox.clone();
        let excludes = if excluding {
            excludes.clone()
        } else {
            Vec::new()
        };
        async move {
            let mut args: Vec<&str> = DIFF.iter().copied().chain(args).collect();
            if !excludes.is_empty() {
                args.push("--");
                args.extend(excludes.iter().map(String::as_str));
            }
            git(&sandbox, &cwd, &env, &args).await
        }
    };
    let git = |args: Vec<&'static str>| run_git(args, true);
    let mut left_out = 0;
    let mut blocks = Vec::new();
    let mut counts = Vec::new();
    for state in states {
        let (body, n) = match state {
            "unstaged" => {
                let d = git(vec!["--no-color"]).await?;
                let n = git(vec!["--name-only"]).await?.lines().count();
                (d, n)
            }
            "staged" => {
                let d = git(vec!["--cached", "--no-color"]).await?;
                let n = git(vec!["--cached", "--name-only"]).await?.lines().count();
                (d, n)
            }
            _ => {
                let names = git(vec!["--name-only", "--diff-filter=U"]).await?;
                let n = names.lines().count();
                (names.lines().map(|l| format!("- {l}\n")).collect(), n)
            }
        };
        if !excludes.is_empty() {
            let mut all = vec!["--name-only"];
            if state == "staged" {
                all.push("--cached");
            } else if state == "merge-conflicts" {
                all.push("--diff-filter=U");
            }
            left_out += run_git(all, false).await?.lines().count().saturating_sub(n);
        }
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
    let note = denied.note(left_out);
    if blocks.is_empty() {
        let text = match &note {
            Some(n) => format!("No changed files found. {n}"),
            None => "No changed files found.".into(),
        };
        return Ok((text, "No changed files".into()));
    }
    if let Some(n) = note {
        blocks.push(n);
    }
    Ok((
        blocks.join("\n\n"),
        format!("Changed files: {}", counts.join(", ")),
    ))
}

/// Git pathspecs that leave out what the deny path rules cover (relative ones: the rules'
/// globs are relative to the working directory, where git runs).
/// A rule's `{a,b}` alternatives, which git's glob pathspecs do not know, are expanded.
fn exclude_pathspecs(patterns: &[&str]) -> Vec<String> {
    patterns
        .iter()
        .filter(|p| !p.starts_with('/'))
        .flat_map(|p| expand_braces(p))
        .map(|p| {
            let icase = if cfg!(any(target_os = "macos", windows)) {
                ",icase"
            } else {
                ""
            };
            format!(":(exclude,glob{icase}){p}")
        })
        .collect()
}

/// `{a,b}` alternatives (nested too) expanded as the rules' globs read them; a `{` without
/// its `}` or after a backslash is a letter.
fn expand_braces(pattern: &str) -> Vec<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 2,
            '{' => {
                let mut depth = 0;
                let mut cuts = vec![i];
                let mut j = i;
                let mut end = None;
                while j < chars.len() {
                    match chars[j] {
                        '\\' => j += 1,
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(j);
                                break;
                            }
                        }
                        ',' if depth == 1 => cuts.push(j),
                        _ => {}
                    }
                    j += 1;
                }
                let Some(end) = end else {
                    return vec![pattern.to_owned()];
                };
                cuts.push(end);
                let prefix: String = chars[..i].iter().collect();
                let suffix: String = chars[end + 1..].iter().collect();
                return cuts
                    .windows(2)
                    .flat_map(|w| {
                        let alt: String = chars[w[0] + 1..w[1]].iter().collect();
                        expand_braces(&format!("{prefix}{alt}{suffix}"))
                    })
                    .take(256)
                    .collect();
            }
            _ => i += 1,
        }
    }
    vec![pattern.to_owned()]
}

/// Why git cannot be trusted to read this working tree's own files (its version, or a config
/// that points it at another directory): such a call is the user's to confirm.
fn worktree_refusal(cwd: &Path, sandbox: &Sandbox) -> Option<String> {
    if let Some(why) = git_guard::version_refusal() {
        return Some(why);
    }
    let inspection = Inspection::run(cwd, sandbox).ok()?;
    inspection.worktree_override().map(|k| {
        format!(
            "this repository's git config sets `{}` ({}), so git would read files of another directory",
            k.key, k.origin
        )
    })
}

impl Tool for GetChangedFiles {
    fn name(&self) -> &str {
        "get_changed_files"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "get_changed_files".into(),
            description: "Get the git diff of the project's uncommitted changes.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "source_control_state": {
                        "type": ["array", "null"],
                        "items": {"type": "string", "enum": STATES},
                        "description": "null: all"
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

    fn policy(&self, inv: &Invocation) -> Policy {
        Policy {
            must_ask: worktree_refusal(&inv.cwd, &inv.ctx.sandbox),
            ..Policy::default()
        }
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                Some(match changed(&inv).await {
                    Ok((content, summary)) => CmdResult::ok(Output::shown(content, summary)),
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
mod brace_tests {
    use super::*;

    #[test]
    fn a_rule_s_alternatives_become_pathspecs_git_understands() {
        let specs: Vec<String> = exclude_pathspecs(&["{.env,.env.local}", "secrets/**", "/abs/x"])
            .iter()
            .map(|s| s.replace(",icase", ""))
            .collect();
        assert_eq!(
            specs,
            [
                ":(exclude,glob).env",
                ":(exclude,glob).env.local",
                ":(exclude,glob)secrets/**"
            ]
        );
        assert_eq!(
            expand_braces("a/{b,c{d,e}}/*.{pem,key}").len(),
            6,
            "{:?}",
            expand_braces("a/{b,c{d,e}}/*.{pem,key}")
        );
        assert_eq!(expand_braces("x{y"), ["x{y"]);
    }
}
