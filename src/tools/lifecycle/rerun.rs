//! A command the sandbox denied, and the rerun outside it (README "Sandbox"): the failure of a
//! confined command that sayso attributes to its sandbox ([`Input::Denied`](super::Input): a
//! path or a connection it denied, `crate::sandbox::denial`) does not end the call at once.
//! The user is asked, through the normal approval flow, whether to run that same command once
//! more outside the sandbox:
//!
//! - Accept (and Always accept, which remembers nothing) → the command runs once unconfined,
//!   and what it does is the call's result, with a line saying the first run was denied;
//! - `s` in the modal saves the narrowest rule that would have run it
//!   ([`rerun_offer::rules`](super::rerun_offer::rules)) and accepts, as the approval modal's
//!   `s` does;
//! - Reject → the original failure, with a line saying the sandbox denied it and the user
//!   declined a rerun outside (and their reason);
//! - Cancel, or a stop → as a Cancel of the call itself.
//!
//! Headless without an approver, nobody is asked: the failure goes back with a line saying no
//! one can approve a rerun outside, and the rule the user can add. Every outcome is one
//! result (one `tool_output`): the lines join the failure's or the rerun's output. What it
//! refuses to do: rerun anything on its own — not in auto or trust, not on the judge's word,
//! not from memory or a rule (a rule that wants a command unconfined says `sandbox = false`,
//! and the command then runs unconfined the first time); a run that was already unconfined is
//! never offered again.

use super::{Batch, Effect, Phase, Progress, caught};
use crate::events::{CallEnd, Event, TurnEnd, UserChoice};
use crate::sandbox::{Confinement, Denial};
use crate::tools::lifecycle::requests::{Ask, Remember};
use crate::tools::lifecycle::rerun_offer::{
    RERUN_PROMPT, rerun_caution, rerun_declined, rerun_unavailable, rules,
};
use crate::tools::policy::approval::Interaction;
use crate::tools::tool::{CmdResult, Invocation, Output, Preview, Tool};

impl Batch {
    /// The running command failed and the sandbox denied something: offer the rerun, or say
    /// why there is none.
    pub(super) fn command_denied(
        &mut self,
        progress: Progress,
        error: Output,
        denial: Denial,
        fx: &mut Vec<Effect>,
    ) {
        if progress.confinement() == Confinement::Unconfined {
            // Nothing confined it: an ordinary failure.
            return self.command_done(progress, CmdResult::Error(error), fx);
        }
        if self.interaction == Interaction::Headless {
            let name = &self.calls[self.cursor].name;
            let offer = rules(name, &progress.cmd_string, &denial);
            let line = rerun_unavailable(&denial, offer.choices.first().map(Vec::as_slice));
            return self.command_failed(progress, error, Some(line), fx);
        }
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        let ask = self.rerun_ask(tool.as_ref(), &inv, &progress.cmd_string, &denial);
        fx.push(Effect::Emit(Event::ApprovalRequested {
            call_id: ask.call_id.clone(),
            name: ask.tool.clone(),
            cmd_string: ask.cmd_string.clone(),
            judge_reason: None,
            caution: ask.caution.clone(),
        }));
        fx.push(Effect::AskUser(ask));
        self.phase = Phase::AwaitRerun {
            progress,
            failure: error,
            denial: Box::new(denial),
        };
    }

    fn rerun_ask(&self, tool: &dyn Tool, inv: &Invocation, cmd_string: &str, d: &Denial) -> Ask {
        Ask {
            call_id: inv.function_call.id.clone(),
            tool: inv.name.clone(),
            cmd_string: cmd_string.to_owned(),
            prompt: RERUN_PROMPT.to_owned(),
            args: inv.args.clone(),
            preview: caught(|| tool.preview(inv))
                .ok()
                .flatten()
                .map(Preview::scrubbed),
            judge_reason: None,
            caution: Some(rerun_caution(d)),
            position: self.cursor + 1,
            total: self.calls.len(),
            remember: Remember::Nothing,
            rerun: Some(d.clone()),
        }
    }

    /// The user's answer to the rerun ask.
    pub(super) fn rerun_chosen(
        &mut self,
        mut progress: Progress,
        failure: Output,
        denial: Box<Denial>,
        choice: UserChoice,
        fx: &mut Vec<Effect>,
    ) {
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        fx.push(Effect::Emit(Event::ApprovalDecided {
            call_id: inv.function_call.id.clone(),
            name: inv.name.clone(),
            choice: choice.clone(),
        }));
        match choice {
            // Always accept is Accept: a rerun outside is never remembered.
            UserChoice::Accept | UserChoice::AlwaysAccept => {
                // Started again: the front-ends show it running (outside, this time).
                fx.push(Effect::Emit(Event::ToolStarted {
                    call_id: inv.function_call.id.clone(),
                    name: inv.name.clone(),
                    cmd_string: progress.cmd_string.clone(),
                    args: inv.args.clone(),
                    unasked: None,
                }));
                progress.outside = true;
                progress.denied_first = Some(denial);
                self.phase = Phase::Running(progress);
                self.run_next(fx);
            }
            UserChoice::Reject(reason) => {
                let line = rerun_declined(&denial, reason.as_deref());
                self.command_failed(progress, failure, Some(line), fx);
            }
            UserChoice::Cancel => {
                self.cancel_current(tool.as_ref(), &inv);
                self.ends_turn = Some(TurnEnd::Cancelled);
                self.finish_call(CallEnd::Cancelled, fx);
            }
        }
    }
}
