//! The runner (SPEC §4.2): runs one command of a call — the IO half of the call lifecycle,
//! whose other half (which command, and what its result means) is [`crate::tools::lifecycle`].
//!
//! Shell commands run in their own process groups with the tool's timeout and without the
//! provider key variables, inside the chat's sandbox as the call's [`Confinement`] says: the
//! program's argv (a script is `sh -c SCRIPT`, as [`run_shell`] runs it) goes through
//! [`Sandbox::wrap`](crate::sandbox::Sandbox::wrap) — `None` runs it as it is, a wrapped argv
//! runs instead (same environment, directory, process group, timeout and output), an error
//! runs nothing and is the result. A confined command that fails is checked for the sandbox's
//! part ([`crate::sandbox::denial::attribute`], against the run's own policy), so the lifecycle
//! can offer a rerun outside; a failure that claims the sandbox could not be set up counts only
//! when setting the same sandbox up again for `true` fails too ([`setup_fails`]).
//! Functions ignore the confinement: they may answer through their return value or (once)
//! through `output_cb`, are stopped by a watchdog after the same timeout, and a panic inside
//! one is an error result. [`guarded`] runs a tool's output functions: one that panics
//! produces ``Internal error with `NAME` tool: MESSAGE``.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;

use crate::sandbox::denial::{attribute_run, setup_claimed, setup_denial};
use crate::sandbox::{Attribution, Confinement};
use crate::tools::exec::function::{FnArgs, OutputCb};
use crate::tools::exec::shell::{ChildEnv, Jobs, ShellOutcome, ShellProgram, ShellSpec, run_shell};
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

/// What one command did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    pub result: CmdResult,
    /// The sandbox's part in the failure of a command that ran confined, as sayso attributed
    /// it.
    pub sandbox: Option<Attribution>,
}

impl From<CmdResult> for Ran {
    fn from(result: CmdResult) -> Self {
        Self {
            result,
            sandbox: None,
        }
    }
}

/// How long setting the sandbox up again for `true` may take (it checks a setup failure).
const SETUP_CHECK: Duration = Duration::from_secs(10);

/// The result of a command the sandbox could not be set up for (it did not run).
pub fn sandbox_setup_error(e: &str) -> String {
    format!("the sandbox could not be set up: {e}")
}

/// Runs one command of a call: a shell command in its own process group (killed after
/// `timeout`), confined as `confine` says, or a function under a watchdog of the same length
/// (unconfined: it runs inside sayso). `None` when the user stopped (the command and whatever
/// it started are gone).
pub async fn run_command(
    command: &Command,
    inv: &Arc<Invocation>,
    input: Option<CmdResult>,
    timeout: Duration,
    confine: Confinement,
    cancel: &CancellationToken,
    jobs: &Jobs,
) -> Option<Ran> {
    let (program, env) = match command {
        Command::Script { script, env } => (ShellProgram::Script(script.clone()), env),
        Command::Argv { argv, env } => (ShellProgram::Argv(argv.clone()), env),
        Command::Function(f) => {
            return run_function(f, inv, timeout, input, cancel, jobs)
                .await
                .map(Ran::from);
        }
    };
    let wrapped = inv.ctx.sandbox.wrap(&program.argv(), &inv.cwd, confine);
    run_process(program, wrapped, env, inv, timeout, confine, cancel).await
}

/// Runs `program`, or the argv the sandbox `wrapped` it in; nothing when the sandbox could not
/// be set up.
async fn run_process(
    program: ShellProgram,
    wrapped: Result<Option<Vec<String>>, String>,
    child: &ChildEnv,
    inv: &Invocation,
    timeout: Duration,
    confine: Confinement,
    cancel: &CancellationToken,
) -> Option<Ran> {
    let command = match &program {
        ShellProgram::Script(script) => script.clone(),
        ShellProgram::Argv(argv) => shell_words::join(argv),
    };
    let (program, confined) = match wrapped {
        Ok(None) => (program, false),
        Ok(Some(argv)) => (ShellProgram::Argv(argv), true),
        Err(e) => return Some(CmdResult::err(sandbox_setup_error(&e)).into()),
    };
    let spec = ShellSpec {
        program,
        cwd: inv.cwd.clone(),
        env: inv.ctx.child_env().and(child),
        timeout: Some(timeout),
    };
    let outcome = match run_shell(&spec, cancel).await {
        Ok(o) => o,
        Err(e) => return Some(CmdResult::err(e).into()),
    };
    if outcome.cancelled {
        return None;
    }
    let sandbox = if confined && !outcome.success() && !outcome.timed_out {
        attributed(&command, &outcome, inv, confine, cancel).await
    } else {
        None
    };
    let result = process_result(&outcome, timeout);
    Some(Ran { result, sandbox })
}

/// The sandbox's part in the failure of `command`, which ran confined as `confine` says.
async fn attributed(
    command: &str,
    outcome: &ShellOutcome,
    inv: &Invocation,
    confine: Confinement,
    cancel: &CancellationToken,
) -> Option<Attribution> {
    let output = format!("{}\n{}", outcome.stderr, outcome.stdout);
    if setup_claimed(&output).is_some()
        && let Some(line) = setup_fails(inv, confine, cancel).await
    {
        return Some(Attribution::Denied(setup_denial(&line)));
    }
    attribute_run(&inv.ctx.sandbox, &inv.cwd, confine, command, &output)
}

/// Sets the same sandbox up again, for `true`: the line saying why it cannot, when it cannot
/// (a command's own output may claim anything; this run is sayso's).
async fn setup_fails(
    inv: &Invocation,
    confine: Confinement,
    cancel: &CancellationToken,
) -> Option<String> {
    let argv = inv
        .ctx
        .sandbox
        .wrap(&["true".to_owned()], &inv.cwd, confine)
        .ok()??;
    let spec = ShellSpec {
        program: ShellProgram::Argv(argv),
        cwd: inv.cwd.clone(),
        env: inv.ctx.child_env(),
        timeout: Some(SETUP_CHECK),
    };
    let o = run_shell(&spec, cancel).await.ok()?;
    if o.success() || o.cancelled || o.timed_out {
        return None;
    }
    setup_claimed(&format!("{}\n{}", o.stderr, o.stdout))
}

/// A finished process's result: its stdout on success, else its output and how it ended.
fn process_result(outcome: &ShellOutcome, timeout: Duration) -> CmdResult {
    if outcome.timed_out {
        let mut msg = format!("Command timed out after {} ms", timeout.as_millis());
        for part in [&outcome.stderr, &outcome.stdout] {
            if !part.trim().is_empty() {
                msg.push('\n');
                msg.push_str(part.trim_end());
            }
        }
        return CmdResult::err(msg);
    }
    if outcome.success() {
        return CmdResult::ok(outcome.stdout.clone());
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
    CmdResult::err(msg)
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
    use crate::provider::ToolCall;

    fn inv(cwd: &std::path::Path) -> Invocation {
        Invocation {
            name: "run_command".into(),
            args: serde_json::json!({}),
            function_call: ToolCall {
                id: "c1".into(),
                name: "run_command".into(),
                arguments: "{}".into(),
            },
            opts: Default::default(),
            cwd: cwd.to_path_buf(),
            ctx: Default::default(),
        }
    }

    /// Runs `script` in `dir` as the sandbox's answer `wrapped` says.
    async fn run(
        dir: &std::path::Path,
        script: &str,
        wrapped: Result<Option<Vec<String>>, String>,
    ) -> Ran {
        let program = ShellProgram::Script(script.into());
        let cancel = CancellationToken::new();
        let timeout = Duration::from_secs(30);
        run_process(
            program,
            wrapped,
            &ChildEnv::default(),
            &inv(dir),
            timeout,
            Confinement::Policy,
            &cancel,
        )
        .await
        .expect("not stopped")
    }

    #[tokio::test]
    async fn a_sandbox_that_cannot_be_set_up_runs_nothing() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let ran = run(dir.path(), "touch marker", Err("bwrap is missing".into())).await;
        assert_eq!(
            ran.result,
            CmdResult::err("the sandbox could not be set up: bwrap is missing")
        );
        assert_eq!(ran.sandbox, None);
        assert!(!dir.path().join("marker").exists(), "the command ran");
    }

    #[tokio::test]
    async fn the_wrapped_argv_runs_instead_and_none_runs_the_program_as_it_is() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let wrapped = vec!["sh".into(), "-c".into(), "touch wrapped".into()];
        let ran = run(dir.path(), "touch plain", Ok(Some(wrapped))).await;
        assert_eq!(ran.result, CmdResult::ok(""));
        assert!(dir.path().join("wrapped").exists());
        assert!(!dir.path().join("plain").exists());
        let ran = run(dir.path(), "touch plain", Ok(None)).await;
        assert_eq!(ran.result, CmdResult::ok(""));
        assert!(dir.path().join("plain").exists());
    }

    /// A "sandbox" whose helper is `helper` (a script standing in for `sayso __sandbox-exec`).
    #[cfg(unix)]
    fn fake_helper_inv(dir: &std::path::Path, helper: &str) -> Arc<Invocation> {
        use crate::sandbox::{Backend, Places, Sandbox};
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("helper.sh");
        std::fs::write(&path, format!("#!/bin/sh\n{helper}\n")).expect("a helper");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let sandbox = Sandbox {
            settings: Default::default(),
            places: Places {
                project: dir.to_path_buf(),
                temp: dir.to_path_buf(),
                helper: path,
                ..Places::default()
            },
            backend: Backend::Landlock(4),
            limits: Vec::new(),
        };
        let mut inv = inv(dir);
        inv.ctx = Arc::new(crate::tools::context::ToolContext {
            sandbox: Arc::new(sandbox),
            ..Default::default()
        });
        Arc::new(inv)
    }

    /// A setup failure counts only when sayso, setting the same sandbox up again for `true`,
    /// fails too: a command that prints the helper's line itself is not one.
    #[cfg(unix)]
    #[tokio::test]
    async fn a_setup_failure_is_confirmed_by_setting_the_sandbox_up_again() {
        use crate::sandbox::DenialKind;
        let dir = tempfile::tempdir().expect("a temp dir");
        let cancel = CancellationToken::new();
        let jobs = Jobs::default();
        let command = Command::Script {
            script: "true".into(),
            env: ChildEnv::default(),
        };
        let timeout = Duration::from_secs(30);
        // The helper itself cannot set the sandbox up, for this command and for `true`.
        let broken = fake_helper_inv(
            dir.path(),
            "echo 'sayso sandbox: Landlock: broken' >&2; exit 125",
        );
        let ran = run_command(
            &command,
            &broken,
            None,
            timeout,
            Confinement::Policy,
            &cancel,
            &jobs,
        )
        .await
        .expect("not stopped");
        let Some(Attribution::Denied(d)) = ran.sandbox else {
            panic!("not attributed: {ran:?}")
        };
        assert_eq!(d.kind, DenialKind::Setup);
        assert!(
            d.what.contains("sayso sandbox: Landlock: broken"),
            "{}",
            d.what
        );
        // The helper works (it runs what it is given); the command prints the same line.
        let working = fake_helper_inv(dir.path(), "shift 3; exec \"$@\"");
        let forged = Command::Script {
            script: "echo 'sayso sandbox: Landlock: broken' >&2; exit 125".into(),
            env: ChildEnv::default(),
        };
        let ran = run_command(
            &forged,
            &working,
            None,
            timeout,
            Confinement::Policy,
            &cancel,
            &jobs,
        )
        .await
        .expect("not stopped");
        assert!(matches!(ran.result, CmdResult::Error(_)), "{ran:?}");
        assert_eq!(ran.sandbox, None, "a printed claim is not a setup failure");
    }

    #[test]
    fn a_script_is_wrapped_as_run_shell_runs_it() {
        let script = ShellProgram::Script("echo hi | wc -c".into());
        if cfg!(unix) {
            assert_eq!(script.argv(), ["sh", "-c", "echo hi | wc -c"]);
        }
        let argv = ShellProgram::Argv(vec!["git".into(), "status".into()]);
        assert_eq!(argv.argv(), ["git", "status"]);
    }

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
