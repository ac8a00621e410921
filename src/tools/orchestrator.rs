//! The queue and the orchestrator (SPEC §4.3–§4.5): one model reply's tool calls in, exactly one
//! result per call id out, in call order.
//!
//! Calls are resolved first (an unknown tool or invalid JSON fails only that call), then run one
//! at a time in the order the model emitted them: `setup` → approval → commands → `on_exit`.
//! Approval follows [`approval::decide`]; the user is asked through an [`ApprovalRequest`] with
//! a reply channel. Cancel at approval cancels the rest of the batch; stopping (the
//! cancellation token) also kills running commands. Every call that ends without output gets
//! the stand-in result. The engine does no terminal IO.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::approval::{self, Approvals, CallFacts, Decision, Interaction, SharedMode};
use super::events::{
    ApprovalRequest, ApprovalSender, EngineEvent, EventSender, Remember, ToolStatus, UserChoice,
};
use super::judge::Judge;
use super::opts::ApprovalSetting;
use super::registry::{Entry, Registry};
use super::runner::{RunEnd, Runner, guarded, panic_message};
use super::shell::Jobs;
use super::tool::{Invocation, Tool, ToolOutput};
use crate::provider::ToolCall;

/// The result of one call: what goes into its tool message.
#[derive(Debug, Clone, PartialEq)]
pub struct CallResult {
    pub call_id: String,
    pub name: String,
    pub status: ToolStatus,
    pub output: ToolOutput,
}

impl CallResult {
    pub fn content(&self) -> String {
        self.output.content()
    }
}

/// How a batch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchOutcome {
    /// Every call ran, failed or was rejected; `had_error` when any failed.
    Completed { had_error: bool },
    /// The user chose Cancel in the approval modal: no resubmit.
    Cancelled,
    /// The user stopped the run: no resubmit.
    Stopped,
}

impl BatchOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            BatchOutcome::Completed { had_error: false } => "success",
            BatchOutcome::Completed { had_error: true } => "error",
            BatchOutcome::Cancelled => "cancelled",
            BatchOutcome::Stopped => "stopped",
        }
    }
}

#[derive(Debug, Clone)]
pub struct BatchResult {
    /// One per call, in the order the model made them.
    pub results: Vec<CallResult>,
    pub outcome: BatchOutcome,
}

/// The stand-in result for a call whose tool recorded nothing (SPEC §4.4).
pub fn no_output_text(name: &str) -> String {
    format!("The `{name}` tool call did not complete: no output was recorded.")
}

/// The engine's per-chat state.
pub struct Engine {
    pub registry: Arc<Registry>,
    /// Tools offered to the model in this chat (the names the "not found" message lists).
    pub active: BTreeSet<String>,
    pub approvals: Approvals,
    pub flags: HashMap<String, bool>,
    pub mode: SharedMode,
    pub interaction: Interaction,
    pub allowed_tools: BTreeSet<String>,
    pub judge: Option<Arc<Judge>>,
    pub cwd: PathBuf,
    /// Where approval requests go when interactive.
    pub approver: Option<ApprovalSender>,
    /// Shared with every call (file ledger, question channel, memory directory).
    pub ctx: Arc<super::context::ToolContext>,
}

enum Prepared {
    Ready { entry: Entry, inv: Arc<Invocation> },
    Failed(CallResult),
}

fn failed(call: &ToolCall, content: String) -> CallResult {
    let mut output = ToolOutput::default();
    output.add(content, None);
    CallResult {
        call_id: call.id.clone(),
        name: call.name.clone(),
        status: ToolStatus::Error,
        output,
    }
}

impl Engine {
    fn prepare(&self, call: &ToolCall) -> Prepared {
        let entry = match self
            .registry
            .get(&call.name)
            .filter(|_| self.active.contains(&call.name))
        {
            Some(e) => e.clone(),
            None => {
                let names: Vec<String> = self.active.iter().map(|n| format!("`{n}`")).collect();
                let text = if names.is_empty() {
                    format!("Tool `{}` not found. No tools are available", call.name)
                } else {
                    format!(
                        "Tool `{}` not found. The available tools are: {}",
                        call.name,
                        names.join(", ")
                    )
                };
                return Prepared::Failed(failed(call, text));
            }
        };
        let raw = call.arguments.trim();
        let args = if raw.is_empty() {
            Ok(Value::Object(Default::default()))
        } else {
            serde_json::from_str::<Value>(raw)
                .map_err(|e| e.to_string())
                .and_then(|v| match v {
                    Value::Object(_) => Ok(v),
                    Value::Null => Ok(Value::Object(Default::default())),
                    other => Err(format!("the arguments must be a JSON object, not {other}")),
                })
        };
        match args {
            Ok(args) => Prepared::Ready {
                inv: Arc::new(Invocation {
                    name: call.name.clone(),
                    args,
                    function_call: call.clone(),
                    opts: entry.opts(),
                    cwd: self.cwd.clone(),
                    ctx: self.ctx.clone(),
                }),
                entry,
            },
            Err(e) => Prepared::Failed(failed(
                call,
                format!("You made an error in calling the {} tool: {e}", call.name),
            )),
        }
    }

    fn facts(&self, tool: &dyn Tool, inv: &Invocation, cmd_string: &str) -> CallFacts {
        let requires_approval =
            tool.requires_approval(inv)
                .unwrap_or_else(|| match inv.opts.approval_setting() {
                    ApprovalSetting::Yes => true,
                    ApprovalSetting::No => false,
                    ApprovalSetting::PromptCondition => tool.prompt_condition(inv),
                });
        let judge_enabled = self.judge.is_some() && inv.opts.judge();
        CallFacts {
            tool: inv.name.clone(),
            cmd_string: cmd_string.to_owned(),
            requires_approval,
            require_cmd_approval: inv.opts.require_cmd_approval(),
            protect: inv.opts.protect(),
            is_safe: tool.is_safe(inv),
            judge_allowed: judge_enabled && tool.judge_context(inv).is_some(),
            allowed: self.allowed_tools.contains(&inv.name),
            force_ask: tool.must_ask(inv),
            caution: tool.caution(inv),
        }
    }

    /// Runs one reply's tool calls. Every call gets exactly one result.
    pub async fn run_batch(
        &mut self,
        calls: &[ToolCall],
        events: &EventSender,
        cancel: &CancellationToken,
    ) -> BatchResult {
        let emit = |e: EngineEvent| events.send(e);
        emit(EngineEvent::ToolsStarted { count: calls.len() });
        let prepared: Vec<Prepared> = calls.iter().map(|c| self.prepare(c)).collect();
        let mut results: Vec<Option<CallResult>> = vec![None; calls.len()];
        let mut outcome = BatchOutcome::Completed { had_error: false };
        let jobs = Jobs::default();
        // The previous call ran and shares its handlers with this one (use_handlers_once).
        let mut shared_run: Option<String> = None;

        for (i, p) in prepared.iter().enumerate() {
            if !matches!(outcome, BatchOutcome::Completed { .. }) || cancel.is_cancelled() {
                if matches!(outcome, BatchOutcome::Completed { .. }) {
                    outcome = BatchOutcome::Stopped;
                }
                // A run of shared handlers left open by the previous call is closed.
                if let (Some(_), Prepared::Ready { entry, inv }) = (shared_run.take(), p) {
                    guarded(&inv.name, &mut ToolOutput::default(), |_| {
                        entry.tool.on_exit(inv)
                    });
                }
                let r = self.cancelled_result(&calls[i], p);
                // Report it like any other call, so every view shows it cancelled.
                for (content, display) in r.output.parts() {
                    emit(EngineEvent::ToolOutput {
                        call_id: r.call_id.clone(),
                        name: r.name.clone(),
                        content: content.clone(),
                        display: display.clone(),
                    });
                }
                emit(EngineEvent::ToolFinished {
                    call_id: r.call_id.clone(),
                    name: r.name.clone(),
                    status: r.status,
                });
                results[i] = Some(r);
                continue;
            }
            let (entry, inv) = match p {
                Prepared::Failed(r) => {
                    emit(EngineEvent::ToolOutput {
                        call_id: r.call_id.clone(),
                        name: r.name.clone(),
                        content: r.content(),
                        display: None,
                    });
                    emit(EngineEvent::ToolFinished {
                        call_id: r.call_id.clone(),
                        name: r.name.clone(),
                        status: r.status,
                    });
                    results[i] = Some(r.clone());
                    outcome = BatchOutcome::Completed { had_error: true };
                    continue;
                }
                Prepared::Ready { entry, inv } => (entry, inv),
            };
            let tool = entry.tool.as_ref();
            let continues_run = shared_run.as_deref() == Some(inv.name.as_str());
            let next_same = inv.opts.use_handlers_once()
                && calls.get(i + 1).is_some_and(|c| c.name == inv.name)
                && matches!(prepared.get(i + 1), Some(Prepared::Ready { .. }));
            let (result, end) = self
                .run_call(
                    tool,
                    inv,
                    continues_run,
                    next_same,
                    i,
                    calls.len(),
                    events,
                    cancel,
                    &jobs,
                )
                .await;
            // The run goes on only while its calls succeed (it ends at the first error).
            shared_run = (next_same && end == CallEnd::Ran && result.status == ToolStatus::Success)
                .then(|| inv.name.clone());
            if result.status == ToolStatus::Error {
                outcome = BatchOutcome::Completed { had_error: true };
            }
            results[i] = Some(result);
            match end {
                CallEnd::Cancelled => outcome = BatchOutcome::Cancelled,
                CallEnd::Stopped => outcome = BatchOutcome::Stopped,
                CallEnd::Ran | CallEnd::Rejected => {}
            }
        }
        emit(EngineEvent::ToolsFinished {
            outcome: outcome.as_str(),
        });
        let results = results
            .into_iter()
            .zip(calls)
            .map(|(r, c)| r.unwrap_or_else(|| failed(c, no_output_text(&c.name))))
            .collect();
        BatchResult { results, outcome }
    }

    /// A call that never ran because the batch was cancelled or stopped.
    fn cancelled_result(&self, call: &ToolCall, p: &Prepared) -> CallResult {
        let mut output = ToolOutput::default();
        match p {
            Prepared::Ready { entry, inv } => {
                guarded(&inv.name, &mut output, |o| entry.tool.on_cancelled(inv, o));
            }
            Prepared::Failed(r) => return r.clone(),
        }
        if output.is_empty() {
            output.add(no_output_text(&call.name), None);
        }
        CallResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            status: ToolStatus::Cancelled,
            output,
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn run_call(
        &mut self,
        tool: &dyn Tool,
        inv: &Arc<Invocation>,
        continues_run: bool,
        next_same: bool,
        index: usize,
        total: usize,
        events: &EventSender,
        cancel: &CancellationToken,
        jobs: &Jobs,
    ) -> (CallResult, CallEnd) {
        let emit = |e: EngineEvent| events.send(e);
        let id = inv.function_call.id.clone();
        let name = inv.name.clone();
        let mut out = ToolOutput::default();
        let limit = inv.opts.output_limit();
        let finish = |out: ToolOutput, status: ToolStatus| {
            let mut out = out.capped(limit);
            if out.is_empty() {
                out.add(no_output_text(&name), None);
            }
            for (content, display) in out.parts() {
                emit(EngineEvent::ToolOutput {
                    call_id: id.clone(),
                    name: name.clone(),
                    content: content.clone(),
                    display: display.clone(),
                });
            }
            emit(EngineEvent::ToolFinished {
                call_id: id.clone(),
                name: name.clone(),
                status,
            });
            CallResult {
                call_id: id.clone(),
                name: name.clone(),
                status,
                output: out,
            }
        };

        if !continues_run
            && let Err(e) =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.setup(inv)))
                    .unwrap_or_else(|p| Err(panic_message(p.as_ref())))
        {
            guarded(&name, &mut out, |o| tool.on_error(inv, o, &[e]));
            return (finish(out, ToolStatus::Error), CallEnd::Ran);
        }
        let cmd_string =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool.cmd_string(inv)))
                .unwrap_or_else(|_| name.clone());

        // Every call passes the approval decision, also within a run of shared handlers:
        // sharing `setup`/`on_exit` never widens an approval (SPEC §4.3.3).
        let close_run = |out: &mut ToolOutput| {
            if continues_run {
                guarded(&name, out, |_| tool.on_exit(inv));
            }
        };
        {
            let facts = self.facts(tool, inv, &cmd_string);
            let mut decision =
                approval::decide(&facts, self.mode.get(), &self.approvals, self.interaction);
            loop {
                match decision {
                    Decision::Run => break,
                    Decision::RunAndRemember => {
                        self.approvals.always(&name, &cmd_string, true);
                        break;
                    }
                    Decision::Judge => {
                        let context = tool.judge_context(inv).unwrap_or_default();
                        emit(EngineEvent::ToolsJudgeStarted {
                            call_id: id.clone(),
                            name: name.clone(),
                            context: context.clone(),
                        });
                        let Some(judge) = self.judge.clone() else {
                            decision = Decision::Ask {
                                judge_reason: None,
                                caution: None,
                            };
                            continue;
                        };
                        let verdict = tokio::select! {
                            v = judge.verdict(&name, &context) => v,
                            () = cancel.cancelled() => {
                                guarded(&name, &mut out, |o| tool.on_cancelled(inv, o));
                                close_run(&mut ToolOutput::default());
                                return (finish(out, ToolStatus::Cancelled), CallEnd::Stopped);
                            }
                        };
                        emit(EngineEvent::ToolsJudgeFinished {
                            call_id: id.clone(),
                            name: name.clone(),
                            safe: verdict.safe,
                            reason: verdict.reason.clone(),
                        });
                        decision = approval::after_judge(&facts, &verdict, self.interaction);
                    }
                    Decision::Reject { message } => {
                        emit(EngineEvent::ToolApprovalRequested {
                            call_id: id.clone(),
                            name: name.clone(),
                            cmd_string: cmd_string.clone(),
                            judge_reason: None,
                            caution: None,
                        });
                        emit(EngineEvent::ToolApprovalFinished {
                            call_id: id.clone(),
                            name: name.clone(),
                            choice: "reject".into(),
                            reason: Some(message.clone()),
                        });
                        out.add(message, None);
                        close_run(&mut ToolOutput::default());
                        return (finish(out, ToolStatus::Rejected), CallEnd::Rejected);
                    }
                    Decision::Ask {
                        judge_reason,
                        caution,
                    } => {
                        emit(EngineEvent::ToolApprovalRequested {
                            call_id: id.clone(),
                            name: name.clone(),
                            cmd_string: cmd_string.clone(),
                            judge_reason: judge_reason.clone(),
                            caution: caution.clone(),
                        });
                        let asked = Asked {
                            judge_reason,
                            caution,
                            forced: facts.force_ask.is_some(),
                            index,
                            total,
                        };
                        let choice = tokio::select! {
                            c = self.ask_user(tool, inv, &cmd_string, asked) => c,
                            () = cancel.cancelled() => {
                                guarded(&name, &mut out, |o| tool.on_cancelled(inv, o));
                                close_run(&mut ToolOutput::default());
                                return (finish(out, ToolStatus::Cancelled), CallEnd::Stopped);
                            }
                        };
                        let reason = match &choice {
                            UserChoice::Reject(r) => r.clone(),
                            _ => None,
                        };
                        emit(EngineEvent::ToolApprovalFinished {
                            call_id: id.clone(),
                            name: name.clone(),
                            choice: choice.label().into(),
                            reason: reason.clone(),
                        });
                        match choice {
                            // A call that always asks is accepted once: remembering it would
                            // let the tool's other calls run unasked.
                            UserChoice::AlwaysAccept if facts.force_ask.is_some() => break,
                            UserChoice::AlwaysAccept => {
                                self.approvals.always(
                                    &name,
                                    &cmd_string,
                                    inv.opts.require_cmd_approval(),
                                );
                                break;
                            }
                            UserChoice::Accept => break,
                            UserChoice::Reject(_) => {
                                guarded(&name, &mut out, |o| {
                                    tool.on_rejected(inv, o, reason.as_deref())
                                });
                                close_run(&mut ToolOutput::default());
                                return (finish(out, ToolStatus::Rejected), CallEnd::Rejected);
                            }
                            UserChoice::Cancel => {
                                guarded(&name, &mut out, |o| tool.on_cancelled(inv, o));
                                guarded(&name, &mut ToolOutput::default(), |_| tool.on_exit(inv));
                                return (finish(out, ToolStatus::Cancelled), CallEnd::Cancelled);
                            }
                        }
                    }
                }
            }
        }

        emit(EngineEvent::ToolStarted {
            call_id: id.clone(),
            name: name.clone(),
            cmd_string: cmd_string.clone(),
            args: inv.args.clone(),
        });
        let mut runner = Runner {
            cancel,
            jobs,
            flags: &mut self.flags,
        };
        let end = runner.run(tool, inv, &mut out).await;
        if !next_same || end != RunEnd::Success {
            guarded(&name, &mut ToolOutput::default(), |_| tool.on_exit(inv));
        }
        match end {
            RunEnd::Success => (finish(out, ToolStatus::Success), CallEnd::Ran),
            RunEnd::Error => (finish(out, ToolStatus::Error), CallEnd::Ran),
            RunEnd::Stopped => {
                guarded(&name, &mut out, |o| tool.on_cancelled(inv, o));
                (finish(out, ToolStatus::Cancelled), CallEnd::Stopped)
            }
        }
    }

    async fn ask_user(
        &self,
        tool: &dyn Tool,
        inv: &Arc<Invocation>,
        cmd_string: &str,
        asked: Asked,
    ) -> UserChoice {
        let Some(approver) = &self.approver else {
            return UserChoice::Cancel;
        };
        let prompt = tool
            .prompt(inv)
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| format!("Run the \"{}\" tool?", inv.name));
        let remember = if asked.forced {
            Remember::Nothing
        } else if inv.opts.require_cmd_approval() {
            Remember::Command(cmd_string.to_owned())
        } else {
            Remember::Tool(inv.name.clone())
        };
        let (reply, answer) = oneshot::channel();
        let request = ApprovalRequest {
            call_id: inv.function_call.id.clone(),
            tool: inv.name.clone(),
            cmd_string: cmd_string.to_owned(),
            prompt,
            args: inv.args.clone(),
            preview: tool.preview(inv),
            judge_reason: asked.judge_reason,
            caution: asked.caution,
            position: asked.index + 1,
            total: asked.total,
            remember,
            reply,
        };
        if approver.send(request).is_err() {
            return UserChoice::Cancel;
        }
        answer.await.unwrap_or(UserChoice::Cancel)
    }
}

/// Why and where a call is put before the user.
struct Asked {
    judge_reason: Option<String>,
    caution: Option<String>,
    /// The call must be confirmed every time: nothing is remembered.
    forced: bool,
    index: usize,
    total: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CallEnd {
    Ran,
    Rejected,
    Cancelled,
    Stopped,
}
