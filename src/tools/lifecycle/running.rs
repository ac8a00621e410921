//! The running half of a call's lifecycle: its commands one by one (each success calls
//! `on_success` with the data so far, the first error `on_error`), a stop while something is
//! outstanding, and the `on_exit` of runs that share their handlers (`use_handlers_once`).

use std::sync::Arc;
use std::time::Duration;

use super::rerun_offer::rerun_accepted;
use super::{Batch, Effect, Phase, Progress, caught};
use crate::events::{CallEnd, Event, TurnEnd, Unasked};
use crate::sandbox::Confinement;
use crate::tools::exec::runner::{guarded, panic_message, substitute};
use crate::tools::tool::{CmdResult, Command, Invocation, Output, Tool, ToolOutput};

impl Batch {
    pub(super) fn start_running(
        &mut self,
        tool: &dyn Tool,
        inv: &Arc<Invocation>,
        cmd_string: &str,
        confine: Confinement,
        unasked: Option<Unasked>,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::Emit(Event::ToolStarted {
            call_id: inv.function_call.id.clone(),
            name: inv.name.clone(),
            cmd_string: cmd_string.to_owned(),
            args: inv.args.clone(),
            unasked,
        }));
        let commands = match caught(|| tool.commands(inv)) {
            Ok(c) => c,
            Err(p) => {
                let errors = vec![Output::text(format!(
                    "Internal error with `{}` tool: {}",
                    inv.name,
                    panic_message(p.as_ref())
                ))];
                guarded(&inv.name, &mut self.out, |o| tool.on_error(inv, o, &errors));
                self.exit_after_run(tool, inv, false);
                self.finish_call(CallEnd::Error, fx);
                return;
            }
        };
        if commands.is_empty() {
            guarded(&inv.name, &mut self.out, |o| tool.on_success(inv, o, &[]));
            self.exit_after_run(tool, inv, true);
            self.finish_call(CallEnd::Success, fx);
            return;
        }
        self.phase = Phase::Running(Progress {
            commands,
            next: 0,
            data: Vec::new(),
            errors: Vec::new(),
            cmd_string: cmd_string.to_owned(),
            confine,
            outside: false,
            denied_first: None,
        });
        self.run_next(fx);
    }

    /// Emits the `Run` effect for the next command of the running call.
    pub(super) fn run_next(&mut self, fx: &mut Vec<Effect>) {
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        let Phase::Running(progress) = &self.phase else {
            return;
        };
        let env = caught(|| tool.env(&inv)).unwrap_or_default();
        let command = match progress.commands[progress.next].clone() {
            Command::Script { script, env: child } => Command::Script {
                script: substitute(&script, &env),
                env: child,
            },
            Command::Argv { argv, env: child } => Command::Argv {
                argv: argv.iter().map(|a| substitute(a, &env)).collect(),
                env: child,
            },
            f @ Command::Function(_) => f,
        };
        let input = progress.data.last().map(|d| CmdResult::Success(d.clone()));
        let timeout = Duration::from_millis(inv.opts.timeout_ms());
        fx.push(Effect::Run {
            inv,
            command,
            input,
            timeout,
            confine: progress.confinement(),
        });
    }

    pub(super) fn command_done(
        &mut self,
        mut progress: Progress,
        result: CmdResult,
        fx: &mut Vec<Effect>,
    ) {
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        match result {
            CmdResult::Success(d) => {
                progress.data.push(d);
                guarded(&inv.name, &mut self.out, |o| {
                    tool.on_success(&inv, o, &progress.data)
                });
                if progress.next + 1 < progress.commands.len() {
                    // A rerun outside was for the denied command only.
                    progress.next += 1;
                    progress.outside = false;
                    self.phase = Phase::Running(progress);
                    self.run_next(fx);
                    return;
                }
                if let Some(d) = progress.denied_first.take() {
                    self.out.note(rerun_accepted(&d));
                }
                self.exit_after_run(tool.as_ref(), &inv, true);
                self.finish_call(CallEnd::Success, fx);
            }
            CmdResult::Error(e) => self.command_failed(progress, e, None, fx),
        }
    }

    /// The running command failed: `on_error` with the errors so far, then `line` (what the
    /// sandbox had to do with it), and the call ends with an error.
    pub(super) fn command_failed(
        &mut self,
        mut progress: Progress,
        error: Output,
        line: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        progress.errors.push(error);
        guarded(&inv.name, &mut self.out, |o| {
            tool.on_error(&inv, o, &progress.errors)
        });
        if let Some(d) = progress.denied_first.take() {
            self.out.note(rerun_accepted(&d));
        }
        if let Some(line) = line {
            self.out.note(line);
        }
        self.exit_after_run(tool.as_ref(), &inv, false);
        self.finish_call(CallEnd::Error, fx);
    }

    /// The user stopped while `phase` was outstanding: the call at the cursor ends as a Cancel
    /// in the modal ends it — `on_cancelled`, then `on_exit` (its `setup` ran, or the run of
    /// shared handlers it continues had one) — whether it was waiting for the judge, the user
    /// (about the call, or about a rerun outside the sandbox) or its command.
    pub(super) fn stopped(&mut self, phase: Phase, fx: &mut Vec<Effect>) {
        self.ends_turn.get_or_insert(TurnEnd::Stopped);
        if let (
            Phase::AwaitJudge { .. }
            | Phase::AwaitUser { .. }
            | Phase::Running(_)
            | Phase::AwaitRerun { .. },
            Some(ready),
        ) = (&phase, self.ready())
        {
            let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
            self.cancel_current(tool.as_ref(), &inv);
            self.finish_call(CallEnd::Cancelled, fx);
        }
    }

    /// `on_cancelled` then `on_exit` for the call at the cursor, after its `setup`: the order
    /// of a Cancel in the modal and of a stop alike.
    pub(super) fn cancel_current(&mut self, tool: &dyn Tool, inv: &Invocation) {
        guarded(&inv.name, &mut self.out, |o| tool.on_cancelled(inv, o));
        guarded(&inv.name, &mut ToolOutput::default(), |_| tool.on_exit(inv));
        self.open_run = false;
    }

    /// `on_exit` after the call's commands, unless the next call continues its handlers.
    pub(super) fn exit_after_run(&mut self, tool: &dyn Tool, inv: &Invocation, success: bool) {
        let next_same = success && self.next_shares_handlers(inv);
        if !next_same {
            guarded(&inv.name, &mut ToolOutput::default(), |_| tool.on_exit(inv));
        }
        self.open_run = next_same;
    }

    /// A call that continued a run of shared handlers but did not run closes the run.
    pub(super) fn close_run(&mut self, tool: &dyn Tool, inv: &Invocation) {
        if self.continues_run {
            guarded(&inv.name, &mut ToolOutput::default(), |_| tool.on_exit(inv));
        }
        self.open_run = false;
    }

    pub(super) fn next_shares_handlers(&self, inv: &Invocation) -> bool {
        inv.opts.use_handlers_once()
            && self
                .calls
                .get(self.cursor + 1)
                .is_some_and(|c| c.name == inv.name && c.ready.is_ok())
    }
}
