//! The engine and its driver (SPEC §4.3): one reply's tool calls in, one result per call id
//! out, in call order. What happens to each call is decided by the pure state machine in
//! [`crate::tools::lifecycle`]; this module performs its effects — emit an event, ask the judge, put
//! an approval request before the user, run a command — and feeds the answers back. Stopping
//! (the cancellation token) interrupts whatever is outstanding.
//!
//! [`Engine`] is the per-chat state behind it: the tools, the ones offered in this chat, the
//! remembered approvals, the mode and who can answer. Its fields are private; the agent talks to
//! it through methods. The engine does no terminal IO.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::checkpoint::{Pending, Recorder};
use crate::events::{Event, EventSink};
use crate::provider::ToolCall;
use crate::sandbox::Attribution;
use crate::tools::context::ToolContext;
use crate::tools::exec::runner::{Ran, run_command};
use crate::tools::exec::shell::Jobs;
use crate::tools::lifecycle::requests::{ApprovalRequest, ApprovalSender, Ask, UserChoice};
use crate::tools::lifecycle::{Batch, BatchContext, BatchResult, Effect, Input};
use crate::tools::policy::approval::{Approvals, Interaction, SharedMode, Verdict};
use crate::tools::policy::judge::Judge;
use crate::tools::policy::rules::SharedRules;
use crate::tools::registry::Registry;
use crate::tools::tool::CmdResult;
use crate::tools::tool::Invocation;

pub use crate::tools::lifecycle::{CallResult, no_output_text};

/// What an engine is made of.
pub struct EngineSetup {
    pub registry: Arc<Registry>,
    /// Tools offered to the model at the start of a chat.
    pub active: BTreeSet<String>,
    pub allowed: BTreeSet<String>,
    pub mode: SharedMode,
    pub interaction: Interaction,
    pub judge: Option<Arc<Judge>>,
    pub cwd: PathBuf,
    /// Where approval requests go when interactive.
    pub approver: Option<ApprovalSender>,
    /// The approval rules (`[[approvals.rules]]`).
    pub rules: SharedRules,
    /// Shared with every call (file ledger, question channel, memory directory…).
    pub ctx: Arc<ToolContext>,
}

/// The engine's per-chat state.
pub struct Engine {
    registry: Arc<Registry>,
    defaults: BTreeSet<String>,
    active: BTreeSet<String>,
    allowed: BTreeSet<String>,
    approvals: Approvals,
    /// The [`SharedMode::epoch`] `approvals` were kept under: once the mode has changed since,
    /// they are forgotten.
    approvals_epoch: u64,
    mode: SharedMode,
    interaction: Interaction,
    judge: Option<Arc<Judge>>,
    cwd: PathBuf,
    approver: Option<ApprovalSender>,
    ctx: Arc<ToolContext>,
    rules: SharedRules,
    /// Undo's capture around each call that can change files (`None`: undo is off).
    checkpoints: Option<Arc<Recorder>>,
}

/// What the machine is told of a command that ran: a failure the sandbox caused is
/// [`Input::Denied`], one it may have caused or that touched sayso's own files
/// [`Input::Failed`] with its note, anything else its result.
fn ran_input(ran: Ran) -> Input {
    match ran {
        Ran {
            result: CmdResult::Error(error),
            sandbox: Some(attribution),
        } => match attribution {
            Attribution::Denied(denial) => Input::Denied { error, denial },
            Attribution::OwnFiles(note) | Attribution::Unsure(note) => {
                Input::Failed { error, note }
            }
        },
        Ran { result, .. } => Input::Command(result),
    }
}

impl Engine {
    pub fn new(s: EngineSetup) -> Self {
        Self {
            registry: s.registry,
            defaults: s.active.clone(),
            active: s.active,
            allowed: s.allowed,
            approvals: Approvals::default(),
            approvals_epoch: s.mode.epoch(),
            mode: s.mode,
            interaction: s.interaction,
            judge: s.judge,
            cwd: s.cwd,
            approver: s.approver,
            // One set of rules: the tools read the engine's (path denials in results).
            ctx: Arc::new(ToolContext {
                rules: s.rules.clone(),
                ..(*s.ctx).clone()
            }),
            rules: s.rules,
            checkpoints: None,
        }
    }

    /// Records checkpoints for undo from now on (`crate::checkpoint`).
    pub fn set_checkpoints(&mut self, recorder: Arc<Recorder>) {
        self.checkpoints = Some(recorder);
    }

    /// The chat's checkpoint recorder, when undo is on.
    pub fn checkpoints(&self) -> Option<&Arc<Recorder>> {
        self.checkpoints.as_ref()
    }

    /// Where approval requests go from now on (the TUI's modal, a test's script).
    pub fn set_approver(&mut self, approver: ApprovalSender) {
        self.approver = Some(approver);
    }

    /// Whether someone can answer (the TUI, `--approvals stdio`) or not (`-p`).
    pub fn interaction(&self) -> Interaction {
        self.interaction
    }

    pub fn cwd(&self) -> &std::path::Path {
        &self.cwd
    }

    /// sayso's own directories and config files, which no tool (nor an `@` attachment) reads.
    pub fn own_paths(&self) -> &[std::path::PathBuf] {
        &self.ctx.own_paths
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Replaces the tools from `source` with `tools`, those that `offer` accepts offered from
    /// now on (and in a new chat), `allowed` among them never asking (added to the allow-list,
    /// which may already name them: `--allowed-tools SERVER__TOOL`): the MCP servers' tools as
    /// they change.
    pub fn replace_source(
        &mut self,
        source: crate::tools::registry::Source,
        tools: Vec<Arc<dyn crate::tools::tool::Tool>>,
        allowed: &BTreeSet<String>,
        offer: impl Fn(&str) -> bool,
    ) {
        let mut registry = (*self.registry).clone();
        for gone in registry.remove_source(source) {
            self.active.remove(&gone);
            self.defaults.remove(&gone);
        }
        for tool in tools {
            let name = tool.name().to_owned();
            registry.register(tool, source);
            if offer(&name) {
                self.active.insert(name.clone());
                self.defaults.insert(name.clone());
            }
            if allowed.contains(&name) {
                self.allowed.insert(name);
            }
        }
        self.registry = Arc::new(registry);
    }

    /// The tools offered to the model in this chat.
    pub fn active(&self) -> &BTreeSet<String> {
        &self.active
    }

    /// Offers one more tool for the rest of the chat; false when it was already offered.
    pub fn activate(&mut self, name: &str) -> bool {
        self.active.insert(name.to_owned())
    }

    pub fn allowed(&self) -> &BTreeSet<String> {
        &self.allowed
    }

    /// What is remembered and applies now: nothing once the mode has changed since it was
    /// remembered.
    pub fn approvals(&self) -> Approvals {
        if self.mode.epoch() == self.approvals_epoch {
            self.approvals.clone().in_mode(self.mode.get())
        } else {
            Approvals::default()
        }
    }

    pub fn clear_approvals(&mut self) {
        self.approvals.clear();
    }

    /// Approvals remembered in an earlier run of this chat (a resumed session), kept only
    /// when they were given in the mode in force now.
    pub fn restore_approvals(&mut self, approvals: Approvals) {
        let (mode, epoch) = self.mode.snapshot();
        self.approvals = approvals.in_mode(mode);
        self.approvals_epoch = epoch;
    }

    /// The mode handle (shared with whoever toggles it).
    pub fn mode(&self) -> &SharedMode {
        &self.mode
    }

    /// The plan-mode handle (shared with whoever toggles it).
    pub fn plan(&self) -> &crate::tools::policy::plan::SharedPlan {
        &self.ctx.plan
    }

    pub fn judge(&self) -> Option<&Judge> {
        self.judge.as_deref()
    }

    /// A new chat: the default tools again, nothing remembered.
    /// The tools a new chat offers.
    pub fn defaults(&self) -> &BTreeSet<String> {
        &self.defaults
    }

    /// Stops offering `name` (the chat goes on without it).
    pub fn deactivate(&mut self, name: &str) {
        self.active.remove(name);
    }

    /// The approval rules in force.
    pub fn rules(&self) -> &SharedRules {
        &self.rules
    }

    /// The sandbox the chat's commands run in.
    pub fn sandbox(&self) -> &crate::sandbox::Sandbox {
        &self.ctx.sandbox
    }

    /// Where the file tools read and write: the disk, or an editor's buffers (`crate::acp`).
    pub fn files(&self) -> &crate::tools::context::FileAccess {
        &self.ctx.files
    }

    /// The chat's sandbox, shared (the TUI runs the user's `!` commands in it).
    pub fn sandbox_shared(&self) -> std::sync::Arc<crate::sandbox::Sandbox> {
        self.ctx.sandbox.clone()
    }

    /// The environment changes every tool process gets (the secret variables removed).
    pub fn child_env(&self) -> crate::tools::exec::shell::ChildEnv {
        self.ctx.child_env()
    }

    /// Offers `tools` by default from now on (a new chat included).
    pub fn set_defaults(&mut self, tools: BTreeSet<String>) {
        self.defaults = tools;
    }

    /// The skills the `skill` tool loads and `read_file` treats as inside, from the next call
    /// on (the project's files read again between turns: `agent::live_files`).
    pub fn set_skills(&mut self, skills: crate::skills::Catalog) {
        self.ctx = Arc::new(ToolContext {
            skills,
            ..(*self.ctx).clone()
        });
    }

    /// The skills calls see now.
    pub fn skills(&self) -> &crate::skills::Catalog {
        &self.ctx.skills
    }

    pub fn reset(&mut self) {
        self.active = self.defaults.clone();
        self.approvals.clear();
        if let Some(r) = &self.checkpoints {
            r.set_turn(0);
        }
    }

    /// Runs one reply's tool calls. Every call gets exactly one result.
    pub async fn run_batch(
        &mut self,
        calls: &[ToolCall],
        sink: &EventSink,
        cancel: &CancellationToken,
    ) -> BatchResult {
        let (mode, mut epoch) = self.mode.snapshot();
        if epoch != self.approvals_epoch {
            self.approvals.clear();
        }
        let mut batch = {
            let make_inv = |call: &ToolCall, args, opts| Invocation {
                name: call.name.clone(),
                args,
                function_call: call.clone(),
                opts,
                cwd: self.cwd.clone(),
                ctx: self.ctx.clone(),
            };
            let ctx = BatchContext {
                registry: &self.registry,
                active: &self.active,
                allowed: &self.allowed,
                mode,
                plan: self.ctx.plan.get(),
                interaction: self.interaction,
                judge: self.judge.is_some(),
                rules: &self.rules,
                make_inv: &make_inv,
            };
            Batch::new(calls, &ctx, std::mem::take(&mut self.approvals))
        };
        let jobs = Jobs::default();
        let mut input = Input::Start;
        loop {
            let (mode, now) = self.mode.snapshot();
            if now != epoch {
                batch.forget();
                epoch = now;
            }
            batch.set_mode(mode);
            batch.set_plan(self.ctx.plan.get());
            let mut next = None;
            for effect in batch.step(input) {
                match effect {
                    Effect::Emit(e) => sink.emit(e),
                    Effect::AskJudge { name, context } => {
                        next = Some(self.verdict(&name, &context, cancel).await)
                    }
                    Effect::AskUser(ask) => next = Some(self.ask_user(ask, cancel).await),
                    Effect::Run {
                        inv,
                        command,
                        input,
                        timeout,
                        confine,
                    } => {
                        let pending = self.checkpoint_before(&inv, sink).await;
                        let ran =
                            run_command(&command, &inv, input, timeout, confine, cancel, &jobs)
                                .await;
                        self.checkpoint_after(pending, sink).await;
                        next = Some(ran.map_or(Input::Stop, ran_input));
                    }
                    Effect::Finish(result) => {
                        self.approvals = batch.into_memory();
                        self.approvals_epoch = epoch;
                        return result;
                    }
                }
            }
            // Every step that does not finish asks for something; if one did not, stopping is
            // the safe way out (nothing more runs, every call still gets its result).
            input = next.unwrap_or(Input::Stop);
        }
    }

    /// Undo's before-state of a call about to run, its pending record saved first; `None` when
    /// undo is off, the call changes nothing in the project, or the capture failed (logged:
    /// the call runs anyway, without a checkpoint).
    async fn checkpoint_before(&self, inv: &Arc<Invocation>, sink: &EventSink) -> Option<Pending> {
        let recorder = self.checkpoints.clone()?;
        let tool = self.registry.get(&inv.name)?.tool.clone();
        let scope = crate::tools::tool::checkpoint_scope(tool.as_ref(), inv)?;
        let call_id = inv.function_call.id.clone();
        let taken = tokio::task::spawn_blocking(move || recorder.before(&call_id, &scope)).await;
        match taken {
            Ok(Ok((pending, record))) => {
                sink.emit(Event::Checkpoint(record));
                self.cap_notice(sink);
                Some(pending)
            }
            Ok(Err(e)) => {
                tracing::warn!(%e, call = %inv.function_call.id, "no checkpoint for the call");
                None
            }
            Err(e) => {
                tracing::warn!(%e, "the checkpoint task failed");
                None
            }
        }
    }

    /// The after-state of a call that ran: its complete checkpoint record.
    async fn checkpoint_after(&self, pending: Option<Pending>, sink: &EventSink) {
        let (Some(pending), Some(recorder)) = (pending, self.checkpoints.clone()) else {
            return;
        };
        match tokio::task::spawn_blocking(move || recorder.after(pending)).await {
            Ok(Ok(record)) => {
                sink.emit(Event::Checkpoint(record));
                self.cap_notice(sink);
            }
            Ok(Err(e)) => tracing::warn!(%e, "the checkpoint after a call failed"),
            Err(e) => tracing::warn!(%e, "the checkpoint task failed"),
        }
    }

    fn cap_notice(&self, sink: &EventSink) {
        if let Some(cap) = self.checkpoints.as_ref().and_then(|r| r.cap_notice()) {
            sink.emit(Event::Notice(crate::events::Notice::UndoCapReached { cap }));
        }
    }

    async fn verdict(&self, name: &str, context: &str, cancel: &CancellationToken) -> Input {
        let Some(judge) = &self.judge else {
            return Input::Verdict(Verdict {
                safe: false,
                reason: "no judge is configured".into(),
            });
        };
        tokio::select! {
            v = judge.verdict(name, context) => Input::Verdict(v),
            () = cancel.cancelled() => Input::Stop,
        }
    }

    async fn ask_user(&self, ask: Ask, cancel: &CancellationToken) -> Input {
        let Some(approver) = &self.approver else {
            return Input::Choice(UserChoice::Cancel);
        };
        let (reply, answer) = oneshot::channel();
        if approver.send(ApprovalRequest { ask, reply }).is_err() {
            return Input::Choice(UserChoice::Cancel);
        }
        tokio::select! {
            c = answer => Input::Choice(c.unwrap_or(UserChoice::Cancel)),
            () = cancel.cancelled() => Input::Stop,
        }
    }
}
