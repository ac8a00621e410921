//! The agent as a task: [`Command`]s in, [`Event`]s out — all a front-end needs to drive a chat
//! (the TUI runs it; headless calls [`Agent::send`] directly).
//!
//! Commands run one at a time. While a turn runs, a model or mode change applies at once (the
//! model from the next request, the mode from the next decision) and is reported with an
//! event; any other command waits until the turn is over. Every turn is saved to the chat's
//! session ([`Saving`]); `Resume` continues a saved one.

use std::collections::VecDeque;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::Agent;
use super::saving::Saving;
use crate::events::{Answer, Event, EventSink, Mode, ModelRow};
use crate::provider::SharedModel;
use crate::tools::policy::approval::SharedMode;

#[derive(Debug, Clone)]
pub enum Command {
    /// Run one user message; `cancel` stops it.
    Send {
        text: String,
        cancel: CancellationToken,
    },
    /// Switch the model (during a turn: from the next request).
    SetModel(String),
    /// Switch the approval mode (during a turn: from the next decision).
    SetMode(Mode),
    /// Plan mode on or off (during a turn: from the next decision; `tools::policy::plan`).
    SetPlan(bool),
    ListModels,
    ListApprovals,
    ClearApprovals,
    ListTools,
    /// Start a new chat.
    NewChat,
    /// The saved sessions, as an event.
    ListSessions,
    /// Continue a saved session (`None`: the latest of this directory).
    Resume(Option<String>),
    /// What fills the context window, as an event.
    Context,
    /// The MCP servers, their status and tools, as an event.
    ListMcp,
    /// The sandbox in force (`/sandbox`), as an event.
    ShowSandbox,
    /// Save an approval rule to the user's config and apply it from the next call (also
    /// during a turn).
    SaveRule(crate::config::approvals::RuleSpec),
    /// Summarise the older conversation now (`/compact [focus]`); ends with `TurnEnded`.
    Compact {
        focus: Option<String>,
        cancel: CancellationToken,
    },
    /// `/undo` (`/redo`: `redo`): the preview of taking back the last turn's file changes
    /// (re-applying the last undo's), as an event; nothing is written yet.
    Undo {
        redo: bool,
    },
    /// `/rewind` to before a user message: the conversation forked at once, or first the
    /// preview of its code ([`crate::agent::undoing`]).
    Rewind(crate::events::answer::RewindTo),
    /// The user's yes to a preview: applied if planning again gives the same plan, with the
    /// conflicts left alone when `rest` ("apply the rest"), else not at all.
    ApplyUndo {
        preview: crate::events::answer::UndoPreview,
        rest: bool,
    },
}

/// Commands are equal when they ask for the same thing (a turn's cancellation token is not
/// compared).
impl PartialEq for Command {
    fn eq(&self, other: &Self) -> bool {
        use Command::*;
        match (self, other) {
            (Send { text: a, .. }, Send { text: b, .. }) => a == b,
            (SetModel(a), SetModel(b)) => a == b,
            (SetMode(a), SetMode(b)) => a == b,
            (SetPlan(a), SetPlan(b)) => a == b,
            (ListModels, ListModels)
            | (ListApprovals, ListApprovals)
            | (ClearApprovals, ClearApprovals)
            | (ListTools, ListTools)
            | (NewChat, NewChat)
            | (ListSessions, ListSessions) => true,
            (Resume(a), Resume(b)) => a == b,
            (Context, Context) | (ListMcp, ListMcp) | (ShowSandbox, ShowSandbox) => true,
            (SaveRule(a), SaveRule(b)) => a == b,
            (Compact { focus: a, .. }, Compact { focus: b, .. }) => a == b,
            (Undo { redo: a }, Undo { redo: b }) => a == b,
            (Rewind(a), Rewind(b)) => a == b,
            (
                ApplyUndo {
                    preview: a,
                    rest: x,
                },
                ApplyUndo {
                    preview: b,
                    rest: y,
                },
            ) => a == b && x == y,
            _ => false,
        }
    }
}

fn set_model(handle: &SharedModel, model: String, sink: &EventSink) {
    handle.set(model.clone());
    sink.emit(Event::ModelChanged { model });
}

fn set_plan(handle: &crate::tools::policy::plan::SharedPlan, on: bool, sink: &EventSink) {
    handle.set(on);
    sink.emit(Event::PlanMode { on });
}

fn set_mode(handle: &SharedMode, mode: Mode, sink: &EventSink) {
    handle.set(mode);
    sink.emit(Event::ModeChanged { mode });
}

/// Writes `spec` to the user's config file and adds it to the chat's rules.
fn save_rule(
    rules: &crate::tools::policy::rules::SharedRules,
    path: &std::path::Path,
    mut spec: crate::config::approvals::RuleSpec,
    sink: &EventSink,
) {
    match crate::config::approvals::append_rule(path, &spec) {
        Ok(line) => {
            spec.source = format!("{}:{line}", path.display());
            rules.add(&spec);
            sink.emit(Event::Answer(Answer::RuleSaved {
                rule: spec.describe(),
                source: spec.source,
            }));
        }
        Err(e) => sink.emit(Event::Answer(Answer::RuleNotSaved {
            error: e.to_string(),
        })),
    }
}

/// Runs commands until the sender is dropped, then closes the session.
/// Runs until the commands end; gives back the id of the session the chat was saved as
/// (`None`: nothing was saved).
pub async fn run(
    mut agent: Agent,
    mut commands: mpsc::UnboundedReceiver<Command>,
    front: EventSink,
    mut saving: Saving,
) -> Option<String> {
    let mut waiting: VecDeque<Command> = VecDeque::new();
    // The window first: the gauge, and a small window's tools, before the first message; then
    // the MCP servers' tools as they come up.
    agent.learn_window(&front).await;
    agent.sync_mcp(&front).await;
    loop {
        let command = match waiting.pop_front() {
            Some(c) => c,
            None => match commands.recv().await {
                Some(c) => c,
                None => break,
            },
        };
        match command {
            Command::Send { text, cancel } => {
                let (model, mode, plan) = (agent.model_handle(), agent.mode(), agent.plan());
                let (rules, user_config) = (
                    agent.engine.rules().clone(),
                    agent.settings.user_config.clone(),
                );
                let sink = saving.sink(&front, &agent);
                let turn = agent.send(&text, &sink, &cancel);
                let mut turn = std::pin::pin!(turn);
                loop {
                    tokio::select! {
                        biased;
                        _ = &mut turn => break,
                        Some(c) = commands.recv() => match c {
                            Command::SetModel(m) => set_model(&model, m, &sink),
                            Command::SetMode(m) => set_mode(&mode, m, &sink),
                            Command::SetPlan(on) => set_plan(&plan, on, &sink),
                            Command::SaveRule(spec) => save_rule(&rules, &user_config, spec, &sink),
                            other => waiting.push_back(other),
                        },
                    }
                }
            }
            Command::SetModel(m) => {
                let sink = saving.sink_between_turns(&front, &agent);
                set_model(&agent.model, m.clone(), &sink);
                if let Some(listed) = agent.unlisted_model(&m).await {
                    front.emit(Event::Answer(Answer::UnlistedModel { model: m, listed }));
                }
                agent.learn_window(&front).await;
            }
            Command::SetMode(m) => {
                let sink = saving.sink_between_turns(&front, &agent);
                set_mode(agent.engine.mode(), m, &sink);
            }
            Command::SetPlan(on) => set_plan(&agent.plan(), on, &front),
            Command::ListModels => {
                front.emit(Event::Answer(Answer::Models(agent.list_models().await)))
            }
            Command::ListApprovals => front.emit(Event::Answer(agent.approvals_answer())),
            Command::ClearApprovals => {
                agent.engine.clear_approvals();
                front.emit(Event::Answer(Answer::ApprovalsCleared));
            }
            Command::ListTools => front.emit(Event::Answer(Answer::Tools {
                table: agent.tools_table(),
            })),
            Command::NewChat => {
                // A new chat starts with the project's files as they are now.
                agent.refresh_project_files(&front);
                agent.reset();
                agent.report_estimate(&front);
                saving.new_chat(&agent).await;
            }
            Command::ListSessions => front.emit(saving.list()),
            Command::Context => {
                // What is in force is what the next request sends.
                agent.refresh_project_files(&front);
                front.emit(Event::Answer(Answer::Context(agent.context_report())));
            }
            Command::ListMcp => {
                agent.sync_mcp(&front).await;
                front.emit(Event::Answer(Answer::Mcp {
                    servers: agent.mcp().map(|s| crate::mcp::describe(s)),
                }));
            }
            Command::ShowSandbox => front.emit(Event::Answer(Answer::Sandbox(
                crate::events::SandboxReport::of(agent.engine.sandbox()),
            ))),
            Command::SaveRule(spec) => {
                let path = agent.settings.user_config.clone();
                save_rule(agent.engine.rules(), &path, spec, &front);
            }
            Command::Compact { focus, cancel } => {
                let sink = saving.sink_between_turns(&front, &agent);
                agent.compact_now(focus.as_deref(), &sink, &cancel).await;
            }
            Command::Undo { redo } => {
                super::undoing::undo(&mut agent, &mut saving, redo, &front).await
            }
            Command::Rewind(to) => {
                super::undoing::rewind(&mut agent, &mut saving, to, &front).await
            }
            Command::ApplyUndo { preview, rest } => {
                super::undoing::apply(&mut agent, &mut saving, preview, rest, &front).await
            }
            Command::Resume(id) => {
                if let Err(error) = saving.resume(&mut agent, id.as_deref(), &front).await {
                    front.emit(Event::Answer(Answer::ResumeFailed { error }));
                }
            }
        }
    }
    if let Some(servers) = agent.mcp() {
        servers.shutdown().await;
    }
    let saved = saving.saved_id().map(str::to_owned);
    if let Some(e) = saving.close().await {
        tracing::warn!("{e}");
    }
    saved
}

impl Agent {
    /// The endpoint's models when it lists them and `model` is not among them (a typo would
    /// otherwise surface only as the next request's error). `None` too when the list cannot
    /// be had within a few seconds: the switch stands either way.
    async fn unlisted_model(&self, model: &str) -> Option<Vec<String>> {
        let list = tokio::time::timeout(Duration::from_secs(3), self.client.list_models())
            .await
            .ok()?
            .ok()?;
        if list.is_empty() || list.iter().any(|id| id == model) {
            return None;
        }
        Some(list)
    }

    /// The endpoint's models with the window the server's list gives each (the one in use:
    /// the window the gauge and /context show, wherever it came from).
    async fn list_models(&self) -> Result<Vec<ModelRow>, String> {
        let list = self
            .client
            .list_models_detailed()
            .await
            .map_err(|e| e.to_string())?;
        let current = self.model();
        Ok(list
            .into_iter()
            .map(|m| {
                let is_current = m.id == current;
                let window = match is_current {
                    true => Some(self.window().tokens),
                    false => self.client.window_without_asking(&m.id, m.context_window),
                };
                ModelRow {
                    id: m.id,
                    window,
                    current: is_current,
                }
            })
            .collect())
    }

    /// The policy in force, then what "Always accept" remembered in this chat.
    fn approvals_answer(&self) -> Answer {
        let e = &self.engine;
        let policy = crate::tools::policy::rules::describe_policy(
            e.mode().get(),
            &e.rules().get(),
            e.allowed(),
        );
        let memory = e.approvals();
        let (tools, commands) = memory.list();
        Answer::Approvals {
            policy,
            tools: tools.into_iter().map(str::to_owned).collect(),
            commands: commands
                .into_iter()
                .map(|(t, c)| (t.to_owned(), c.to_owned()))
                .collect(),
        }
    }

    /// The tools table, as `sayso tools` prints it.
    fn tools_table(&self) -> String {
        let e = &self.engine;
        let rules = e.rules().get();
        let policy = crate::tools::configured::PolicyView {
            mode: e.mode().get(),
            rules: &rules,
            judge_enabled: e.judge().is_some(),
            sandboxed: e.sandbox().mode() != crate::sandbox::Mode::Off,
        };
        crate::tools::configured::describe_parts(
            e.registry(),
            e.active(),
            e.allowed(),
            &self.groups,
            &policy,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_equal_when_they_ask_for_the_same_thing_whatever_their_token() {
        let send = |t: &str| Command::Send {
            text: t.into(),
            cancel: CancellationToken::new(),
        };
        let compact = |f: Option<&str>| Command::Compact {
            focus: f.map(str::to_owned),
            cancel: CancellationToken::new(),
        };
        // (a, b, equal)
        let rows = [
            (send("hi"), send("hi"), true),
            (send("hi"), send("ho"), false),
            (compact(Some("tests")), compact(Some("tests")), true),
            (compact(Some("tests")), compact(None), false),
            (
                Command::SetModel("a".into()),
                Command::SetModel("a".into()),
                true,
            ),
            (
                Command::SetModel("a".into()),
                Command::SetModel("b".into()),
                false,
            ),
            (Command::Resume(None), Command::Resume(None), true),
            (
                Command::Resume(None),
                Command::Resume(Some("x".into())),
                false,
            ),
            (Command::ListTools, Command::ListTools, true),
            (Command::Context, Command::ListMcp, false),
            (Command::NewChat, send("hi"), false),
        ];
        for (a, b, equal) in rows {
            assert_eq!(a == b, equal, "{a:?} == {b:?}");
        }
    }
}
