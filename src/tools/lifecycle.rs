//! One reply's tool calls as a pure state machine (SPEC §4.3–§4.5): [`Batch::step`] takes an
//! [`Input`] and returns the [`Effect`]s to perform. No IO, no async: the approval decision,
//! the judge round-trip, the user's choice, commands run one by one, stops, use_handlers_once
//! runs and the results are all decided here, so the whole lifecycle is tested as a table of
//! input sequences (`lifecycle/tests.rs`) and a property test (`lifecycle/props.rs`). The
//! driver ([`orchestrator`], the only part of this module that does IO) performs the
//! effects: it asks the judge, shows the modal ([`requests`]), runs a command, forwards events.
//!
//! Per call: resolve (an unknown tool, bad JSON or arguments that do not fit the tool's schema
//! ([`arguments`]) fail only that call, with one error result: no setup, judge or modal) → `setup` → facts →
//! [`approval::decide`] → run / judge / ask / reject → how confined it runs
//! ([`confinement`](crate::tools::policy::confinement)) → commands in order (each success calls
//! `on_success` with the data so far, the first error calls `on_error` and ends the call) →
//! `on_exit` → one result, capped, with a stand-in when the tool recorded nothing.
//!
//! A confined command that fails because the sandbox denied something ([`Input::Denied`]) does
//! not end the call at once: the user is asked ([`rerun`]) whether to run that same command
//! once more outside the sandbox. Accept runs it unconfined and its result is the call's;
//! Reject sends the failure with a line saying so; headless without an approver, the failure
//! goes back with a line saying no one can approve a rerun.
//!
//! Invariants (checked by the property test):
//! - a call is run only if the decision allowed it, the user accepted that very call, or the
//!   judge found it safe after the decision sent it there;
//! - every call id ends with exactly one result, and results are in call order;
//! - after Cancel or a stop, nothing else runs: the rest of the batch is cancelled;
//! - a command runs unconfined only if the confinement decision said so (an allow rule's
//!   `sandbox = false`) or the user accepted the rerun outside for that very call.
//!
//! The machine calls the tool's own synchronous hooks (`setup`, `cmd_string`, its `policy`,
//! `on_success`…, each guarded against panics): for a real tool they may touch the file system
//! (a file tool resolves its path), for the test tools they are pure.
//!
//! The transitions live in four parts: [`deciding`] (facts, decision, judge, the user's
//! choice), [`running`] (commands, stops, shared handlers), [`rerun`] (a denial and the rerun
//! outside the sandbox) and [`finishing`] (results).

use crate::tools::policy::rules::SharedRules;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::events::{CallEnd, Event, TurnEnd, UserChoice};
use crate::provider::ToolCall;
use crate::sandbox::{Confinement, Denial};
use crate::tools::exec::runner::{guarded, panic_message};
use crate::tools::lifecycle::requests::Ask;
use crate::tools::policy::approval::{self, Approvals, CallFacts, Interaction, Mode, Verdict};
use crate::tools::registry::Registry;
use crate::tools::tool::{CmdResult, Command, Invocation, Output, Tool, ToolOutput};

/// Runs one of the tool's own hooks, catching a panic (a tool's bug fails its call, not sayso).
fn caught<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
}

/// The stand-in result for a call whose tool recorded nothing (SPEC §4.4).
pub fn no_output_text(name: &str) -> String {
    format!("The `{name}` tool call did not complete: no output was recorded.")
}

/// The result of one call: what goes into its tool message.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub call_id: String,
    pub name: String,
    pub end: CallEnd,
    pub output: ToolOutput,
}

impl CallResult {
    pub fn content(&self) -> String {
        self.output.content()
    }
}

/// What a batch produced.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchResult {
    /// One per call, in the order the model made them.
    pub results: Vec<CallResult>,
    /// Some call failed (an error result).
    pub had_error: bool,
    /// The batch ended the turn: Cancel in the modal, or the user stopped.
    pub ends_turn: Option<TurnEnd>,
}

/// What the batch is told.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// Begin (the first step).
    Start,
    /// The judge's verdict on the call it was asked about.
    Verdict(Verdict),
    /// The user's answer to the approval request.
    Choice(UserChoice),
    /// The running command's result (a timeout or a crash is an error result).
    Command(CmdResult),
    /// The running command failed inside the sandbox, and the runner attributed the failure
    /// to it (`crate::sandbox::denial::attribute`).
    Denied { error: Output, denial: Denial },
    /// The running command failed inside the sandbox, which sayso cannot tie to the failure
    /// (it may have caused it) or which kept it from sayso's own files: `note` says so after
    /// the failure, and no rerun is offered.
    Failed { error: Output, note: String },
    /// The user stopped the turn.
    Stop,
}

/// What the driver must do. At most one of `AskJudge`, `AskUser`, `Run` per step, always
/// last; the next step is its answer.
#[derive(Debug)]
pub enum Effect {
    Emit(Event),
    AskJudge {
        name: String,
        context: String,
    },
    AskUser(Ask),
    /// Run one command (placeholders already filled) with `input`, the previous command's
    /// result, confined as `confine` says, and kill it after `timeout`.
    Run {
        inv: Arc<Invocation>,
        command: Command,
        input: Option<CmdResult>,
        timeout: Duration,
        confine: Confinement,
    },
    Finish(BatchResult),
}

/// What the batch needs from the engine.
pub struct BatchContext<'a> {
    pub registry: &'a Registry,
    /// The tools offered in this chat (others are "not found").
    pub active: &'a BTreeSet<String>,
    pub allowed: &'a BTreeSet<String>,
    pub mode: Mode,
    /// Plan mode is on: only read-only calls reach the decision (`policy::plan`).
    pub plan: bool,
    pub interaction: Interaction,
    /// A judge is configured.
    pub judge: bool,
    /// The approval rules (`[[approvals.rules]]`).
    pub rules: &'a SharedRules,
    /// Everything but the call itself, for a fresh invocation.
    pub make_inv: &'a dyn Fn(&ToolCall, Value, crate::config::opts::Opts) -> Invocation,
}

/// The running call's commands and what they produced so far.
struct Progress {
    commands: Vec<Command>,
    next: usize,
    data: Vec<Output>,
    errors: Vec<Output>,
    cmd_string: String,
    /// How confined the call's commands run.
    confine: Confinement,
    /// The command at `next` is the rerun outside the sandbox the user accepted.
    outside: bool,
    /// What the sandbox denied the first run of a command the user then let run outside: said
    /// after the call's result.
    denied_first: Option<Box<Denial>>,
}

impl Progress {
    /// How confined the command at `next` runs.
    fn confinement(&self) -> Confinement {
        if self.outside {
            Confinement::Unconfined
        } else {
            self.confine
        }
    }
}

struct Ready {
    tool: Arc<dyn Tool>,
    inv: Arc<Invocation>,
}

struct Call {
    id: String,
    name: String,
    /// The tool and invocation, or the error text of a call that could not be resolved.
    ready: Result<Ready, String>,
    result: Option<CallResult>,
}

/// Where the call at the cursor is.
enum Phase {
    /// Nothing outstanding: resolve the next call.
    Next,
    AwaitJudge {
        facts: CallFacts,
        cmd_string: String,
    },
    AwaitUser {
        forced: bool,
        cmd_string: String,
        /// What "Always accept" remembers ([`approval::call_key`]).
        call_key: String,
        /// How confined the call runs if the user accepts it.
        confine: Confinement,
    },
    Running(Progress),
    /// A command was denied by the sandbox: the user is asked about a rerun outside.
    AwaitRerun {
        progress: Progress,
        /// The denied command's error, the call's result unless it is rerun.
        failure: Output,
        denial: Box<Denial>,
    },
    Finished,
}

/// One reply's tool calls.
pub struct Batch {
    calls: Vec<Call>,
    cursor: usize,
    phase: Phase,
    out: ToolOutput,
    memory: Approvals,
    mode: Mode,
    plan: bool,
    interaction: Interaction,
    allowed: BTreeSet<String>,
    judge: bool,
    rules: SharedRules,
    /// The reason of the judge's safe verdict on the call at the cursor, for its tool block.
    verdict_reason: Option<String>,
    /// The call at the cursor continues a run of shared handlers (`use_handlers_once`).
    continues_run: bool,
    /// The previous call ran successfully and shares its handlers with the next one.
    open_run: bool,
    had_error: bool,
    ends_turn: Option<TurnEnd>,
}

fn resolve(call: &ToolCall, ctx: &BatchContext) -> Result<Ready, String> {
    let entry = ctx
        .registry
        .get(&call.name)
        .filter(|_| ctx.active.contains(&call.name))
        .ok_or_else(|| {
            let names: Vec<String> = ctx.active.iter().map(|n| format!("`{n}`")).collect();
            if names.is_empty() {
                format!("Tool `{}` not found. No tools are available", call.name)
            } else {
                format!(
                    "Tool `{}` not found. The available tools are: {}",
                    call.name,
                    names.join(", ")
                )
            }
        })?;
    let raw = call.arguments.trim();
    let args = if raw.is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str::<Value>(raw)
            .map_err(|e| e.to_string())
            .and_then(|v| match v {
                Value::Object(_) => Ok(v),
                Value::Null => Ok(Value::Object(Default::default())),
                other => Err(format!("the arguments must be a JSON object, not {other}")),
            })
            .map_err(|e| format!("You made an error in calling the {} tool: {e}", call.name))?
    };
    // Checked against the schema the model was offered, before setup or approval.
    let schema = caught(|| entry.tool.spec().parameters).unwrap_or(Value::Null);
    let problems = arguments::check(&schema, &args);
    if !problems.is_empty() {
        return Err(arguments::message(&call.name, &schema, &problems));
    }
    Ok(Ready {
        tool: entry.tool.clone(),
        inv: Arc::new((ctx.make_inv)(call, args, entry.opts())),
    })
}

impl Batch {
    pub fn new(calls: &[ToolCall], ctx: &BatchContext, memory: Approvals) -> Self {
        Self {
            calls: calls
                .iter()
                .map(|c| Call {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    ready: resolve(c, ctx),
                    result: None,
                })
                .collect(),
            cursor: 0,
            phase: Phase::Next,
            out: ToolOutput::default(),
            memory,
            mode: ctx.mode,
            plan: ctx.plan,
            interaction: ctx.interaction,
            allowed: ctx.allowed.clone(),
            judge: ctx.judge,
            rules: ctx.rules.clone(),
            verdict_reason: None,
            continues_run: false,
            open_run: false,
            had_error: false,
            ends_turn: None,
        }
    }

    /// The remembered approvals, with what this batch added (give them back to the engine).
    pub fn into_memory(self) -> Approvals {
        self.memory
    }

    /// The mode for the decisions still to come (a `/auto` toggle applies mid-batch). A
    /// change of mode forgets what was remembered: approvals belong to the mode that gave them.
    pub fn set_mode(&mut self, mode: Mode) {
        if mode != self.mode {
            self.memory.clear();
        }
        self.mode = mode;
    }

    /// The mode changed (and maybe back) since the last step: forget what was remembered.
    pub fn forget(&mut self) {
        self.memory.clear();
    }

    /// Plan mode for the decisions still to come (switched mid-batch, it applies at once).
    pub fn set_plan(&mut self, plan: bool) {
        self.plan = plan;
    }

    /// Takes one input; returns what to do.
    pub fn step(&mut self, input: Input) -> Vec<Effect> {
        let mut fx = Vec::new();
        match (std::mem::replace(&mut self.phase, Phase::Next), input) {
            (Phase::Next, Input::Start) => {
                fx.push(Effect::Emit(Event::ToolsStarted {
                    count: self.calls.len(),
                }));
            }
            (Phase::AwaitJudge { facts, cmd_string }, Input::Verdict(v)) => {
                let call = &self.calls[self.cursor];
                fx.push(Effect::Emit(Event::JudgeFinished {
                    call_id: call.id.clone(),
                    name: call.name.clone(),
                    safe: v.safe,
                    reason: v.reason.clone(),
                }));
                // A verdict applies in auto alone: when the mode changed while the judge
                // looked, the call is decided afresh as the mode now in force says.
                let ruling = if self.mode == Mode::Auto {
                    self.verdict_reason = v.safe.then(|| v.reason.clone());
                    (approval::after_judge(&facts, &v, self.interaction), None)
                } else {
                    approval::decide_on(&facts, self.mode, &self.memory, self.interaction)
                };
                self.apply(ruling, &facts, cmd_string, None, &mut fx);
            }
            (
                Phase::AwaitUser {
                    forced,
                    cmd_string,
                    call_key,
                    confine,
                },
                Input::Choice(choice),
            ) => {
                self.chosen(choice, forced, cmd_string, call_key, confine, &mut fx);
            }
            (Phase::Running(progress), Input::Command(result)) => {
                self.command_done(progress, result, &mut fx)
            }
            (Phase::Running(progress), Input::Denied { error, denial }) => {
                self.command_denied(progress, error, denial, &mut fx)
            }
            (Phase::Running(progress), Input::Failed { error, note }) => {
                self.command_failed(progress, error, Some(note), &mut fx)
            }
            (
                Phase::AwaitRerun {
                    progress,
                    failure,
                    denial,
                },
                Input::Choice(choice),
            ) => self.rerun_chosen(progress, failure, denial, choice, &mut fx),
            (Phase::Finished, _) => {
                self.phase = Phase::Finished;
                return fx;
            }
            (phase, Input::Stop) => self.stopped(phase, &mut fx),
            // An answer to a question that was not asked: ignore it, keep waiting.
            (phase, _) => {
                self.phase = phase;
                return fx;
            }
        }
        self.advance(&mut fx);
        fx
    }

    fn ready(&self) -> Option<&Ready> {
        self.calls[self.cursor].ready.as_ref().ok()
    }

    /// Works through calls until one needs an answer from outside, or the batch is done.
    fn advance(&mut self, fx: &mut Vec<Effect>) {
        while matches!(self.phase, Phase::Next) {
            if self.cursor >= self.calls.len() {
                self.finish_batch(fx);
                return;
            }
            if self.ends_turn.is_some() {
                self.cancel_unreached(fx);
                continue;
            }
            let Some(ready) = self.ready() else {
                let text = self.calls[self.cursor]
                    .ready
                    .as_ref()
                    .err()
                    .cloned()
                    .unwrap_or_default();
                self.out.add(text, None);
                self.open_run = false;
                self.finish_call(CallEnd::Error, fx);
                continue;
            };
            let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
            self.begin(tool.as_ref(), &inv, fx);
        }
    }

    /// Setup, facts and the decision for the call at the cursor.
    fn begin(&mut self, tool: &dyn Tool, inv: &Arc<Invocation>, fx: &mut Vec<Effect>) {
        self.continues_run = std::mem::take(&mut self.open_run);
        if !self.continues_run
            && let Err(e) =
                caught(|| tool.setup(inv)).unwrap_or_else(|p| Err(panic_message(p.as_ref())))
        {
            guarded(&inv.name, &mut self.out, |o| {
                tool.on_error(inv, o, &[Output::text(e)])
            });
            self.finish_call(CallEnd::Error, fx);
            return;
        }
        let cmd_string = caught(|| tool.cmd_string(inv)).unwrap_or_else(|_| inv.name.clone());
        let (facts, judge_context) = self.facts(tool, inv, &cmd_string);
        let ruling = match crate::tools::policy::plan::refusal(self.plan, &facts) {
            Some(message) => (approval::Decision::Reject { message }, None),
            None => approval::decide_on(&facts, self.mode, &self.memory, self.interaction),
        };
        self.apply(ruling, &facts, cmd_string, judge_context, fx);
    }
}

pub mod arguments;
mod deciding;
mod finishing;
pub mod orchestrator;
pub mod requests;
mod rerun;
pub mod rerun_offer;
mod running;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod props;

#[cfg(test)]
mod mode_tests;

#[cfg(test)]
mod rerun_tests;
