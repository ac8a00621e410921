//! The approval half of a call's lifecycle: the facts the decision reads, the decision's
//! effect (run, ask the judge, ask the user, reject), and the user's choice.

use super::{Batch, Effect, Phase, caught};
use crate::events::{CallEnd, Event, TurnEnd, Unasked, UserChoice};
use crate::sandbox::Confinement;
use crate::tools::exec::runner::{guarded, panic_message};
use crate::tools::lifecycle::requests::{Ask, Remember};
use crate::tools::policy::approval::{self, By, CallFacts, Decision, Grounds, Mode, call_key};
use crate::tools::policy::confinement::{Grant, confinement};
use crate::tools::policy::{Policy, requires_approval};
use crate::tools::tool::{Invocation, Kind, Preview, Tool};

impl Batch {
    /// How confined the call runs when it runs because of `grant`: as
    /// [`confinement`] says, and read-only whatever it says while plan mode is on
    /// ([`crate::tools::policy::plan::confined`]).
    fn confine(&self, facts: &CallFacts, grant: Grant) -> crate::sandbox::Confinement {
        crate::tools::policy::plan::confined(self.plan, confinement(facts, self.mode, grant))
    }

    /// The facts the decision reads, and what the judge would be told: the tool's
    /// [`Policy`] for the call (asked once; a panic in it is a policy that asks) with its opts.
    pub(super) fn facts(
        &self,
        tool: &dyn Tool,
        inv: &Invocation,
        cmd_string: &str,
    ) -> (CallFacts, Option<String>) {
        let policy = caught(|| tool.policy(inv))
            .unwrap_or_else(|p| Policy::failed(&panic_message(p.as_ref())));
        let kind = caught(|| tool.kind()).unwrap_or_default();
        let facts = CallFacts {
            tool: inv.name.clone(),
            cmd_string: cmd_string.to_owned(),
            call_key: call_key(&inv.name, kind, cmd_string, &inv.args),
            requires_approval: requires_approval(inv.opts.approval_before(), policy.condition),
            require_cmd_approval: inv.opts.require_cmd_approval(),
            protect: inv.opts.protect(),
            is_safe: policy.is_safe,
            judge_allowed: self.judge && inv.opts.judge() && policy.judge_context.is_some(),
            allowed: self.allowed.contains(&inv.name),
            force_ask: policy.must_ask,
            caution: policy.caution,
            kind,
            is_question: caught(|| tool.is_question()).unwrap_or(false),
            reads_outside: policy.reads_outside,
            rule: self.rules.check(inv, cmd_string, tool),
            sandboxed: inv.ctx.sandbox.mode() != crate::sandbox::Mode::Off,
        };
        (facts, policy.judge_context)
    }

    /// Acts on the decision (with the grounds of a run, which say how confined it runs).
    pub(super) fn apply(
        &mut self,
        (decision, grounds): (Decision, Option<Grounds>),
        facts: &CallFacts,
        cmd_string: String,
        judge_context: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        let (id, name) = (inv.function_call.id.clone(), inv.name.clone());
        match decision {
            Decision::Run => {
                // A run always has grounds; without them it runs as the policy says.
                let grounds = grounds.unwrap_or(Grounds::Mode);
                let confine = self.confine(facts, Grant::Decided(grounds));
                let unasked = approval::unasked(facts, grounds, self.mode);
                self.start_running(tool.as_ref(), &inv, &cmd_string, confine, unasked, fx)
            }
            Decision::RunAndRemember => {
                // Only the judge's verdict runs and remembers, and it applies in auto alone.
                self.memory
                    .remember(Mode::Auto, By::Judge, &name, &facts.call_key, true);
                fx.push(Effect::Emit(Event::Remembered {
                    tool: name.clone(),
                    command: Some(facts.call_key.clone()),
                    mode: Some(Mode::Auto),
                    judge: true,
                }));
                let confine = self.confine(facts, Grant::Judge);
                let reason = self.verdict_reason.take().unwrap_or_default();
                let unasked = Some(Unasked::Judge { reason });
                self.start_running(tool.as_ref(), &inv, &cmd_string, confine, unasked, fx);
            }
            Decision::Judge => {
                let context = judge_context.unwrap_or_default();
                fx.push(Effect::Emit(Event::JudgeStarted {
                    call_id: id,
                    name: name.clone(),
                    context: context.clone(),
                }));
                fx.push(Effect::AskJudge { name, context });
                self.phase = Phase::AwaitJudge {
                    facts: facts.clone(),
                    cmd_string,
                };
            }
            Decision::Ask {
                judge_reason,
                caution,
                once,
            } => {
                fx.push(Effect::Emit(Event::ApprovalRequested {
                    call_id: id,
                    name,
                    cmd_string: cmd_string.clone(),
                    judge_reason: judge_reason.clone(),
                    caution: caution.clone(),
                }));
                let forced = once;
                fx.push(Effect::AskUser(self.ask(
                    tool.as_ref(),
                    &inv,
                    facts,
                    judge_reason,
                    caution,
                    forced,
                )));
                self.phase = Phase::AwaitUser {
                    forced,
                    cmd_string,
                    call_key: facts.call_key.clone(),
                    confine: self.confine(facts, Grant::User),
                };
            }
            Decision::Reject { message } => {
                fx.push(Effect::Emit(Event::ApprovalRequested {
                    call_id: id.clone(),
                    name: name.clone(),
                    cmd_string,
                    judge_reason: None,
                    caution: facts.force_ask.clone().or(facts.caution.clone()),
                }));
                fx.push(Effect::Emit(Event::ApprovalDecided {
                    call_id: id,
                    name,
                    choice: UserChoice::Reject(Some(message.clone())),
                }));
                self.out.add(message, None);
                self.close_run(tool.as_ref(), &inv);
                self.finish_call(CallEnd::Rejected, fx);
            }
        }
    }

    pub(super) fn ask(
        &self,
        tool: &dyn Tool,
        inv: &Invocation,
        facts: &CallFacts,
        judge_reason: Option<String>,
        caution: Option<String>,
        forced: bool,
    ) -> Ask {
        let prompt = caught(|| tool.prompt(inv))
            .ok()
            .flatten()
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| format!("Run the \"{}\" tool?", inv.name));
        let remember = if forced {
            Remember::Nothing
        } else if !inv.opts.require_cmd_approval() {
            Remember::Tool(inv.name.clone())
        } else if facts.kind == Kind::Shell {
            Remember::Command(facts.call_key.clone())
        } else {
            Remember::Call {
                key: facts.call_key.clone(),
                display: facts.cmd_string.clone(),
            }
        };
        Ask {
            call_id: inv.function_call.id.clone(),
            tool: inv.name.clone(),
            cmd_string: facts.cmd_string.clone(),
            prompt,
            args: inv.args.clone(),
            preview: caught(|| tool.preview(inv))
                .ok()
                .flatten()
                .map(Preview::scrubbed),
            judge_reason,
            caution,
            position: self.cursor + 1,
            total: self.calls.len(),
            remember,
            rerun: None,
        }
    }

    pub(super) fn chosen(
        &mut self,
        choice: UserChoice,
        forced: bool,
        cmd_string: String,
        call_key: String,
        confine: Confinement,
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
            // A call that always asks is accepted once: remembering it would let the tool's
            // other calls run unasked.
            UserChoice::AlwaysAccept if !forced => {
                let by_command = inv.opts.require_cmd_approval();
                self.memory
                    .remember(self.mode, By::User, &inv.name, &call_key, by_command);
                fx.push(Effect::Emit(Event::Remembered {
                    tool: inv.name.clone(),
                    command: by_command.then_some(call_key),
                    mode: Some(self.mode),
                    judge: false,
                }));
                self.start_running(tool.as_ref(), &inv, &cmd_string, confine, None, fx);
            }
            UserChoice::AlwaysAccept | UserChoice::Accept => {
                self.start_running(tool.as_ref(), &inv, &cmd_string, confine, None, fx)
            }
            UserChoice::Reject(reason) => {
                guarded(&inv.name, &mut self.out, |o| {
                    tool.on_rejected(&inv, o, reason.as_deref())
                });
                self.close_run(tool.as_ref(), &inv);
                self.finish_call(CallEnd::Rejected, fx);
            }
            UserChoice::Cancel => {
                self.cancel_current(tool.as_ref(), &inv);
                self.ends_turn = Some(TurnEnd::Cancelled);
                self.finish_call(CallEnd::Cancelled, fx);
            }
        }
    }
}
