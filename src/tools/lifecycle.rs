//! One reply's tool calls as a pure state machine (SPEC §4.3–§4.5): [`Batch::step`] takes an
//! [`Input`] and returns the [`Effect`]s to perform. No IO, no async: the approval decision,
//! the judge round-trip, the user's choice, commands run one by one, stops, use_handlers_once
//! runs and the results are all decided here, so the whole lifecycle is tested as a table of
//! input sequences (`lifecycle/tests.rs`) and a property test (`lifecycle/props.rs`). The
//! driver ([`super::orchestrator`]) performs the effects: it asks the judge, shows the modal,
//! runs a command, forwards events.
//!
//! Per call: resolve (an unknown tool or bad JSON fails only that call) → `setup` → facts →
//! [`approval::decide`] → run / judge / ask / reject → commands in order (each success calls
//! `on_success` with the data so far, the first error calls `on_error` and ends the call) →
//! `on_exit` → one result, capped, with a stand-in when the tool recorded nothing.
//!
//! Invariants (checked by the property test):
//! - a call is run only if the decision allowed it, the user accepted that very call, or the
//!   judge found it safe after the decision sent it there;
//! - every call id ends with exactly one result, and results are in call order;
//! - after Cancel or a stop, nothing else runs: the rest of the batch is cancelled.
//!
//! The machine calls the tool's own synchronous hooks (`setup`, `cmd_string`, the facts,
//! `on_success`…, each guarded against panics): for a real tool they may touch the file system
//! (a file tool resolves its path), for the test tools they are pure.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::approval::{self, Approvals, CallFacts, Decision, Interaction, Mode, Verdict};
use super::registry::Registry;
use super::requests::{Ask, Remember};
use super::runner::{guarded, panic_message, substitute};
use super::tool::{CmdResult, Command, Invocation, Tool, ToolOutput};
use crate::config::opts::ApprovalSetting;
use crate::events::{CallEnd, Event, TurnEnd, UserChoice};
use crate::provider::ToolCall;

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
    /// result, and kill it after `timeout`.
    Run {
        inv: Arc<Invocation>,
        command: Command,
        input: Option<CmdResult>,
        timeout: Duration,
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
    pub interaction: Interaction,
    /// A judge is configured.
    pub judge: bool,
    /// Everything but the call itself, for a fresh invocation.
    pub make_inv: &'a dyn Fn(&ToolCall, Value, crate::config::opts::Opts) -> Invocation,
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
    },
    Running {
        commands: Vec<Command>,
        next: usize,
        data: Vec<String>,
        errors: Vec<String>,
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
    interaction: Interaction,
    allowed: BTreeSet<String>,
    judge: bool,
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
            interaction: ctx.interaction,
            allowed: ctx.allowed.clone(),
            judge: ctx.judge,
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

    /// The mode for the decisions still to come (a `/auto` toggle applies mid-batch).
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
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
                let decision = approval::after_judge(&facts, &v, self.interaction);
                self.apply(decision, &facts, cmd_string, &mut fx);
            }
            (Phase::AwaitUser { forced, cmd_string }, Input::Choice(choice)) => {
                self.chosen(choice, forced, cmd_string, &mut fx);
            }
            (
                Phase::Running {
                    commands,
                    next,
                    data,
                    errors,
                },
                Input::Command(result),
            ) => self.command_done(commands, next, data, errors, result, &mut fx),
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
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.setup(inv)))
                    .unwrap_or_else(|p| Err(panic_message(p.as_ref())))
        {
            guarded(&inv.name, &mut self.out, |o| tool.on_error(inv, o, &[e]));
            self.finish_call(CallEnd::Error, fx);
            return;
        }
        let cmd_string =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.cmd_string(inv)))
                .unwrap_or_else(|_| inv.name.clone());
        let facts = self.facts(tool, inv, &cmd_string);
        let decision = approval::decide(&facts, self.mode, &self.memory, self.interaction);
        self.apply(decision, &facts, cmd_string, fx);
    }

    fn facts(&self, tool: &dyn Tool, inv: &Invocation, cmd_string: &str) -> CallFacts {
        let hook = |f: &dyn Fn() -> bool| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(true)
        };
        let requires_approval = hook(&|| {
            tool.requires_approval(inv)
                .unwrap_or_else(|| match inv.opts.approval_setting() {
                    ApprovalSetting::Yes => true,
                    ApprovalSetting::No => false,
                    ApprovalSetting::PromptCondition => tool.prompt_condition(inv),
                })
        });
        let guard = |f: &dyn Fn() -> Option<String>| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|p| {
                Some(format!(
                    "the tool failed to check: {}",
                    panic_message(p.as_ref())
                ))
            })
        };
        CallFacts {
            tool: inv.name.clone(),
            cmd_string: cmd_string.to_owned(),
            requires_approval,
            require_cmd_approval: inv.opts.require_cmd_approval(),
            protect: inv.opts.protect(),
            is_safe: std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.is_safe(inv)))
                .unwrap_or(Some(false)),
            judge_allowed: self.judge
                && inv.opts.judge()
                && std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    tool.judge_context(inv).is_some()
                }))
                .unwrap_or(false),
            allowed: self.allowed.contains(&inv.name),
            force_ask: guard(&|| tool.must_ask(inv)),
            caution: guard(&|| tool.caution(inv)),
        }
    }

    fn apply(
        &mut self,
        decision: Decision,
        facts: &CallFacts,
        cmd_string: String,
        fx: &mut Vec<Effect>,
    ) {
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        let (id, name) = (inv.function_call.id.clone(), inv.name.clone());
        match decision {
            Decision::Run => self.start_running(tool.as_ref(), &inv, &cmd_string, fx),
            Decision::RunAndRemember => {
                self.memory.always(&name, &cmd_string, true);
                self.start_running(tool.as_ref(), &inv, &cmd_string, fx);
            }
            Decision::Judge => {
                let context = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    tool.judge_context(&inv)
                }))
                .ok()
                .flatten()
                .unwrap_or_default();
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
            } => {
                fx.push(Effect::Emit(Event::ApprovalRequested {
                    call_id: id,
                    name,
                    cmd_string: cmd_string.clone(),
                    judge_reason: judge_reason.clone(),
                    caution: caution.clone(),
                }));
                let forced = facts.force_ask.is_some();
                fx.push(Effect::AskUser(self.ask(
                    tool.as_ref(),
                    &inv,
                    &cmd_string,
                    judge_reason,
                    caution,
                    forced,
                )));
                self.phase = Phase::AwaitUser { forced, cmd_string };
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

    fn ask(
        &self,
        tool: &dyn Tool,
        inv: &Invocation,
        cmd_string: &str,
        judge_reason: Option<String>,
        caution: Option<String>,
        forced: bool,
    ) -> Ask {
        let prompt = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.prompt(inv)))
            .ok()
            .flatten()
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| format!("Run the \"{}\" tool?", inv.name));
        let remember = if forced {
            Remember::Nothing
        } else if inv.opts.require_cmd_approval() {
            Remember::Command(cmd_string.to_owned())
        } else {
            Remember::Tool(inv.name.clone())
        };
        Ask {
            call_id: inv.function_call.id.clone(),
            tool: inv.name.clone(),
            cmd_string: cmd_string.to_owned(),
            prompt,
            args: inv.args.clone(),
            preview: std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.preview(inv)))
                .ok()
                .flatten(),
            judge_reason,
            caution,
            position: self.cursor + 1,
            total: self.calls.len(),
            remember,
        }
    }

    fn chosen(
        &mut self,
        choice: UserChoice,
        forced: bool,
        cmd_string: String,
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
                self.memory
                    .always(&inv.name, &cmd_string, inv.opts.require_cmd_approval());
                self.start_running(tool.as_ref(), &inv, &cmd_string, fx);
            }
            UserChoice::AlwaysAccept | UserChoice::Accept => {
                self.start_running(tool.as_ref(), &inv, &cmd_string, fx)
            }
            UserChoice::Reject(reason) => {
                guarded(&inv.name, &mut self.out, |o| {
                    tool.on_rejected(&inv, o, reason.as_deref())
                });
                self.close_run(tool.as_ref(), &inv);
                self.finish_call(CallEnd::Rejected, fx);
            }
            UserChoice::Cancel => {
                guarded(&inv.name, &mut self.out, |o| tool.on_cancelled(&inv, o));
                guarded(&inv.name, &mut ToolOutput::default(), |_| {
                    tool.on_exit(&inv)
                });
                self.ends_turn = Some(TurnEnd::Cancelled);
                self.finish_call(CallEnd::Cancelled, fx);
            }
        }
    }

    fn start_running(
        &mut self,
        tool: &dyn Tool,
        inv: &Arc<Invocation>,
        cmd_string: &str,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::Emit(Event::ToolStarted {
            call_id: inv.function_call.id.clone(),
            name: inv.name.clone(),
            cmd_string: cmd_string.to_owned(),
            args: inv.args.clone(),
        }));
        let commands =
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.commands(inv))) {
                Ok(c) => c,
                Err(p) => {
                    let errors = vec![format!(
                        "Internal error with `{}` tool: {}",
                        inv.name,
                        panic_message(p.as_ref())
                    )];
                    guarded(&inv.name, &mut self.out, |o| tool.on_error(inv, o, &errors));
                    self.exit_after_run(tool, inv, false);
                    self.finish_call(CallEnd::Error, fx);
                    return;
                }
            };
        if commands.is_empty() {
            guarded(&inv.name, &mut self.out, |o| tool.on_success(inv, o, None));
            self.exit_after_run(tool, inv, true);
            self.finish_call(CallEnd::Success, fx);
            return;
        }
        self.phase = Phase::Running {
            commands,
            next: 0,
            data: Vec::new(),
            errors: Vec::new(),
        };
        self.run_next(fx);
    }

    /// Emits the `Run` effect for the next command of the running call.
    fn run_next(&mut self, fx: &mut Vec<Effect>) {
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        let Phase::Running {
            commands,
            next,
            data,
            ..
        } = &self.phase
        else {
            return;
        };
        let env = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.env(&inv)))
            .unwrap_or_default();
        let command = match commands[*next].clone() {
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
        let input = data.last().map(|d| CmdResult::Success(d.clone()));
        let timeout = Duration::from_millis(inv.opts.timeout_ms());
        fx.push(Effect::Run {
            inv,
            command,
            input,
            timeout,
        });
    }

    fn command_done(
        &mut self,
        commands: Vec<Command>,
        next: usize,
        mut data: Vec<String>,
        mut errors: Vec<String>,
        result: CmdResult,
        fx: &mut Vec<Effect>,
    ) {
        let Some(ready) = self.ready() else {
            return;
        };
        let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
        match result {
            CmdResult::Success(d) => {
                data.push(d);
                guarded(&inv.name, &mut self.out, |o| {
                    tool.on_success(&inv, o, Some(&data))
                });
                if next + 1 < commands.len() {
                    self.phase = Phase::Running {
                        commands,
                        next: next + 1,
                        data,
                        errors,
                    };
                    self.run_next(fx);
                    return;
                }
                self.exit_after_run(tool.as_ref(), &inv, true);
                self.finish_call(CallEnd::Success, fx);
            }
            CmdResult::Error(e) => {
                errors.push(e);
                guarded(&inv.name, &mut self.out, |o| {
                    tool.on_error(&inv, o, &errors)
                });
                self.exit_after_run(tool.as_ref(), &inv, false);
                self.finish_call(CallEnd::Error, fx);
            }
        }
    }

    /// The user stopped while `phase` was outstanding.
    fn stopped(&mut self, phase: Phase, fx: &mut Vec<Effect>) {
        self.ends_turn.get_or_insert(TurnEnd::Stopped);
        if let (
            Phase::AwaitJudge { .. } | Phase::AwaitUser { .. } | Phase::Running { .. },
            Some(ready),
        ) = (&phase, self.ready())
        {
            let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
            if matches!(phase, Phase::Running { .. }) {
                guarded(&inv.name, &mut ToolOutput::default(), |_| {
                    tool.on_exit(&inv)
                });
            } else {
                self.close_run(tool.as_ref(), &inv);
            }
            guarded(&inv.name, &mut self.out, |o| tool.on_cancelled(&inv, o));
            self.finish_call(CallEnd::Cancelled, fx);
        }
    }

    /// `on_exit` after the call's commands, unless the next call continues its handlers.
    fn exit_after_run(&mut self, tool: &dyn Tool, inv: &Invocation, success: bool) {
        let next_same = success && self.next_shares_handlers(inv);
        if !next_same {
            guarded(&inv.name, &mut ToolOutput::default(), |_| tool.on_exit(inv));
        }
        self.open_run = next_same;
    }

    /// A call that continued a run of shared handlers but did not run closes the run.
    fn close_run(&mut self, tool: &dyn Tool, inv: &Invocation) {
        if self.continues_run {
            guarded(&inv.name, &mut ToolOutput::default(), |_| tool.on_exit(inv));
        }
        self.open_run = false;
    }

    fn next_shares_handlers(&self, inv: &Invocation) -> bool {
        inv.opts.use_handlers_once()
            && self
                .calls
                .get(self.cursor + 1)
                .is_some_and(|c| c.name == inv.name && c.ready.is_ok())
    }

    /// Records the call at the cursor with the output collected so far, and moves on.
    fn finish_call(&mut self, end: CallEnd, fx: &mut Vec<Effect>) {
        let call = &self.calls[self.cursor];
        let limit = call
            .ready
            .as_ref()
            .map_or(super::output_cap::DEFAULT_LIMIT, |r| {
                r.inv.opts.output_limit()
            });
        let mut out = std::mem::take(&mut self.out).capped(limit);
        if out.is_empty() {
            out.add(no_output_text(&call.name), None);
        }
        for (content, display) in out.parts() {
            fx.push(Effect::Emit(Event::ToolOutput {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: content.clone(),
                display: display.clone(),
            }));
        }
        fx.push(Effect::Emit(Event::ToolFinished {
            call_id: call.id.clone(),
            name: call.name.clone(),
            end,
        }));
        if end == CallEnd::Error {
            self.had_error = true;
        }
        if end != CallEnd::Success {
            self.open_run = false;
        }
        let result = CallResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            end,
            output: out,
        };
        self.calls[self.cursor].result = Some(result);
        self.cursor += 1;
        self.phase = Phase::Next;
    }

    /// A call the batch never reached because it was cancelled or stopped.
    fn cancel_unreached(&mut self, fx: &mut Vec<Effect>) {
        match self.calls[self.cursor].ready.as_ref() {
            Ok(ready) => {
                let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
                // A run of shared handlers left open by the previous call is closed.
                if std::mem::take(&mut self.open_run) {
                    guarded(&inv.name, &mut ToolOutput::default(), |_| {
                        tool.on_exit(&inv)
                    });
                }
                guarded(&inv.name, &mut self.out, |o| tool.on_cancelled(&inv, o));
                self.finish_call(CallEnd::Cancelled, fx);
            }
            Err(text) => {
                self.out.add(text.clone(), None);
                self.finish_call(CallEnd::Error, fx);
            }
        }
    }

    fn finish_batch(&mut self, fx: &mut Vec<Effect>) {
        fx.push(Effect::Emit(Event::ToolsFinished));
        let results = self
            .calls
            .iter_mut()
            .map(|c| {
                c.result.take().unwrap_or_else(|| {
                    let mut output = ToolOutput::default();
                    output.add(no_output_text(&c.name), None);
                    CallResult {
                        call_id: c.id.clone(),
                        name: c.name.clone(),
                        end: CallEnd::Error,
                        output,
                    }
                })
            })
            .collect();
        fx.push(Effect::Finish(BatchResult {
            results,
            had_error: self.had_error,
            ends_turn: self.ends_turn.clone(),
        }));
        self.phase = Phase::Finished;
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod props;
