//! The runner (SPEC §4.2): runs one command of a call — the IO half of the call lifecycle,
//! whose other half (which command, and what its result means) is [`crate::tools::lifecycle`].
//!
//! Shell commands run in their own process groups with the tool's timeout and without the
//! provider key variables; functions may answer through their return value or (once) through
//! `output_cb`, are stopped by a watchdog after the same timeout, and a panic inside one is an
//! error result. [`guarded`] runs a tool's output functions: one that panics produces
//! ``Internal error with `NAME` tool: MESSAGE``.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;

use crate::tools::exec::function::{FnArgs, OutputCb};
use crate::tools::exec::shell::{ChildEnv, Jobs, ShellProgram, ShellSpec, run_shell};
use crate::tools::tool::{CmdResult, Command, Invocation, ToolOutput};

/// The text of a caught panic.
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panicked".to_owned()
    }
}

/// Runs an output function, turning a panic into the internal-error message.
pub fn guarded(name: &str, out: &mut ToolOutput, f: impl FnOnce(&mut ToolOutput)) {
    let mut scratch = std::mem::take(out);
    let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
        f(&mut scratch);
        scratch
    }));
    match result {
        Ok(done) => *out = done,
        Err(p) => {
            // What was added before the panic is lost with the unwound closure; the note
            // says what happened.
            out.add(
                format!(
                    "Internal error with `{name}` tool: {}",
                    panic_message(p.as_ref())
                ),
                None,
            );
        }
    }
}

/// `${key}` placeholders replaced by `env` values; unknown keys are left as written.
pub fn substitute(text: &str, env: &HashMap<String, String>) -> String {
    if env.is_empty() || !text.contains("${") {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find('}') {
            Some(end) if env.contains_key(&after[..end]) => {
                out.push_str(&env[&after[..end]]);
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str("${");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Runs one command of a call: a shell command in its own process group (killed after
/// `timeout`), or a function under a watchdog of the same length. `None` when the user
/// stopped (the command and whatever it started are gone).
pub async fn run_command(
    command: &Command,
    inv: &Arc<Invocation>,
    input: Option<CmdResult>,
    timeout: Duration,
    cancel: &CancellationToken,
    jobs: &Jobs,
) -> Option<CmdResult> {
    match command {
        Command::Script { script, env } => {
            let program = ShellProgram::Script(script.clone());
            run_process(program, env, inv, timeout, cancel).await
        }
        Command::Argv { argv, env } => {
            let program = ShellProgram::Argv(argv.clone());
            run_process(program, env, inv, timeout, cancel).await
        }
        Command::Function(f) => run_function(f, inv, timeout, input, cancel, jobs).await,
    }
}

async fn run_process(
    program: ShellProgram,
    child: &ChildEnv,
    inv: &Invocation,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Option<CmdResult> {
    let spec = ShellSpec {
        program,
        cwd: inv.cwd.clone(),
        env: inv.ctx.child_env().and(child),
        timeout: Some(timeout),
    };
    let outcome = match run_shell(&spec, cancel).await {
        Ok(o) => o,
        Err(e) => return Some(CmdResult::err(e)),
    };
    if outcome.cancelled {
        return None;
    }
    if outcome.timed_out {
        let mut msg = format!("Command timed out after {} ms", timeout.as_millis());
        for part in [&outcome.stderr, &outcome.stdout] {
            if !part.trim().is_empty() {
                msg.push('\n');
                msg.push_str(part.trim_end());
            }
        }
        return Some(CmdResult::err(msg));
    }
    if outcome.success() {
        return Some(CmdResult::ok(outcome.stdout));
    }
    let mut msg = String::new();
    for part in [&outcome.stderr, &outcome.stdout] {
        if !part.trim().is_empty() {
            if !msg.is_empty() {
                msg.push('\n');
            }
            msg.push_str(part.trim_end());
        }
    }
    let status = match outcome.exit_code {
        Some(c) => format!("exit status {c}"),
        None => "killed by a signal".to_owned(),
    };
    if msg.is_empty() {
        msg = format!("The command printed nothing ({status})");
    } else {
        msg.push_str(&format!("\n({status})"));
    }
    Some(CmdResult::err(msg))
}

async fn run_function(
    f: &crate::tools::tool::FunctionCmd,
    inv: &Arc<Invocation>,
    timeout: Duration,
    input: Option<CmdResult>,
    cancel: &CancellationToken,
    jobs: &Jobs,
) -> Option<CmdResult> {
    let (output_cb, mut later) = OutputCb::new();
    let args = FnArgs {
        input,
        output_cb: output_cb.clone(),
        jobs: jobs.clone(),
    };
    let fut = AssertUnwindSafe(f(inv.clone(), args)).catch_unwind();
    let name = inv.name.clone();
    let work = async move {
        let returned = match fut.await {
            Ok(r) => r,
            Err(p) => {
                return CmdResult::err(format!(
                    "The `{name}` tool failed: {}",
                    panic_message(p.as_ref())
                ));
            }
        };
        // A result delivered through output_cb before returning wins over the return value.
        if let Ok(early) = later.try_recv() {
            return early;
        }
        if let Some(r) = returned {
            output_cb.call(r.clone());
            return r;
        }
        match (&mut later).await {
            Ok(r) => r,
            Err(_) => CmdResult::err(format!("The `{name}` tool ended without a result")),
        }
    };
    tokio::select! {
        r = tokio::time::timeout(timeout, work) => match r {
            Ok(r) => Some(r),
            Err(_) => {
                // The watchdog fired: whatever the function started goes too.
                jobs.kill_all().await;
                Some(CmdResult::err(format!(
                    "The `{}` tool did not finish within {} ms and was stopped",
                    inv.name,
                    timeout.as_millis()
                )))
            }
        },
        () = cancel.cancelled() => {
            jobs.kill_all().await;
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_from_env() {
        let env: HashMap<String, String> = [("dir".to_owned(), "/tmp".to_owned())].into();
        assert_eq!(
            substitute("ls ${dir} ${other} $HOME", &env),
            "ls /tmp ${other} $HOME"
        );
        assert_eq!(substitute("${dir", &env), "${dir");
    }
}
