//! `!cmd` and `!!cmd` typed in the input: the user's own shell command, run in the project
//! directory inside the chat's sandbox (`Confinement::Policy`, the scrubbed tool environment,
//! [`TIMEOUT`]), its output shown as a block in the transcript.
//!
//! `!cmd` is the user's and the user's only: nothing of it reaches the model. `!!cmd` also
//! shares the command and its output (capped at [`SHARED_MAX`]) with the model: the block
//! waits in the app and goes at the head of the next message the user sends (so the model
//! reads it with that message, in the same request, and the transcript shows it there).
//! Either may run while a turn runs: it does not touch the turn.
//!
//! It refuses to ask for approval (the user typed the command) and to run the command
//! outside the sandbox or on the terminal (it has none: `run_shell` starts it in a session of
//! its own, stdin null).

use std::path::PathBuf;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::sandbox::{Confinement, Sandbox};
use crate::tools::exec::shell::{ChildEnv, ShellOutcome, ShellProgram, ShellSpec, run_shell};

/// A `!` command is stopped after this long.
pub const TIMEOUT: Duration = Duration::from_secs(120);
/// The most of a `!!` command's output the model gets, in bytes.
pub const SHARED_MAX: usize = 16 * 1024;
/// The most of a command's output the transcript block shows, in bytes.
const SHOWN_MAX: usize = 64 * 1024;

/// A line typed as `!cmd` or `!!cmd`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escape {
    pub command: String,
    /// `!!`: the command and its output go to the model too.
    pub share: bool,
}

/// What the line asks for: `None` when it is not a shell escape; `Err` for a `!` or `!!` with
/// no command after it.
pub fn parse(line: &str) -> Option<Result<Escape, &'static str>> {
    let rest = line.trim_start().strip_prefix('!')?;
    let (share, command) = match rest.strip_prefix('!') {
        Some(c) => (true, c),
        None => (false, rest),
    };
    let command = command.trim();
    if command.is_empty() {
        return Some(Err(
            "type a command after ! (or !! to share it with the model)",
        ));
    }
    Some(Ok(Escape {
        command: command.to_owned(),
        share,
    }))
}

/// How a command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done {
    pub escape: Escape,
    /// Its output (stdout then stderr) and how it ended, or why it did not run.
    pub result: Result<ShellOutcome, String>,
}

/// How it ended, in words: `exit 0`, `exit 2`, `timed out after 120s`, `killed by signal 9`.
fn ending(o: &ShellOutcome) -> String {
    if o.timed_out {
        format!("timed out after {}s", TIMEOUT.as_secs())
    } else if let Some(code) = o.exit_code {
        format!("exit {code}")
    } else if let Some(sig) = o.signal {
        format!("killed by signal {sig}")
    } else {
        "ended".to_owned()
    }
}

/// Stdout and stderr together, trailing newlines dropped.
fn output(o: &ShellOutcome) -> String {
    let mut out = o.stdout.trim_end_matches('\n').to_owned();
    let err = o.stderr.trim_end_matches('\n');
    if !err.is_empty() {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(err);
    }
    out
}

/// `text` cut to `max` bytes, saying so.
fn capped(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let kept = crate::text_cut::head(text, max);
    format!(
        "{kept}\n[… {} more bytes not shown]",
        text.len() - kept.len()
    )
}

impl Done {
    /// The transcript's block: `$ cmd`, the output, and how it ended (secrets scrubbed).
    pub fn block(&self) -> String {
        let who = if self.escape.share {
            "!! (shared with the model with your next message)"
        } else {
            "! (not sent to the model)"
        };
        let body = match &self.result {
            Ok(o) => {
                let out = capped(&output(o), SHOWN_MAX);
                let sep = if out.is_empty() { "" } else { "\n" };
                format!("{out}{sep}[{}]", ending(o))
            }
            Err(e) => format!("did not run: {e}"),
        };
        let text = format!("{who} $ {}\n{body}", self.escape.command);
        crate::secrets::scrub_owned(text)
    }

    /// What the model gets for a `!!` command (`None` for `!`): the command, its capped output,
    /// how it ended, secrets scrubbed.
    pub fn shared(&self) -> Option<String> {
        if !self.escape.share {
            return None;
        }
        let (out, end) = match &self.result {
            Ok(o) => (capped(&output(o), SHARED_MAX), ending(o)),
            Err(e) => (String::new(), format!("did not run: {e}")),
        };
        let text = format!(
            "I ran a shell command in the project directory:\n$ {}\n```\n{out}\n```\n({end})",
            self.escape.command
        );
        Some(crate::secrets::scrub_owned(text))
    }
}

/// `shared` blocks (from `!!`), then the user's message.
pub fn with_shared(shared: &[String], message: &str) -> String {
    if shared.is_empty() {
        return message.to_owned();
    }
    format!("{}\n\n{message}", shared.join("\n\n"))
}

/// What a `!` command runs with: the chat's sandbox, project directory and the tools'
/// environment (the secret variables removed).
#[derive(Debug, Clone)]
pub struct Runner {
    pub sandbox: std::sync::Arc<Sandbox>,
    pub cwd: PathBuf,
    pub env: ChildEnv,
}

impl Runner {
    /// Runs `escape` to its end (or [`TIMEOUT`], or `cancel`).
    pub async fn run(&self, escape: Escape, cancel: &CancellationToken) -> Done {
        let program = ShellProgram::Script(escape.command.clone());
        let result = match self
            .sandbox
            .wrap(&program.argv(), &self.cwd, Confinement::Policy)
        {
            Err(e) => Err(format!("the sandbox could not be set up: {e}")),
            Ok(wrapped) => {
                let spec = ShellSpec {
                    program: wrapped.map_or(program, ShellProgram::Argv),
                    cwd: self.cwd.clone(),
                    env: self.env.clone(),
                    timeout: Some(TIMEOUT),
                };
                run_shell(&spec, cancel).await
            }
        };
        Done { escape, result }
    }
}

#[cfg(test)]
mod tests;
