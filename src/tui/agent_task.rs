//! The agent's side of the TUI: a task that owns the [`Agent`] and runs one command at a time —
//! a turn, or a request that has to wait until no turn runs (switch model, list models, list or
//! clear remembered approvals, new chat). Everything it learns goes back as [`AppEvent`]s.

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::app::AppEvent;
use crate::agent::{Agent, AgentEvent};

#[derive(Debug)]
pub enum AgentCommand {
    Send {
        text: String,
        cancel: CancellationToken,
    },
    SetModel(String),
    ListModels,
    ListApprovals,
    ClearApprovals,
    ListTools,
    NewChat,
}

pub async fn run(
    mut agent: Agent,
    mut commands: mpsc::UnboundedReceiver<AgentCommand>,
    app: mpsc::UnboundedSender<AppEvent>,
) {
    while let Some(cmd) = commands.recv().await {
        match cmd {
            AgentCommand::Send { text, cancel } => {
                let (tx, mut rx) = mpsc::unbounded_channel::<AgentEvent>();
                let end = {
                    let send = agent.send(&text, &tx, &cancel);
                    let mut send = std::pin::pin!(send);
                    loop {
                        tokio::select! {
                            biased;
                            Some(ev) = rx.recv() => { let _ = app.send(AppEvent::Agent(ev)); }
                            end = &mut send => break end,
                        }
                    }
                };
                drop(tx);
                while let Ok(ev) = rx.try_recv() {
                    let _ = app.send(AppEvent::Agent(ev));
                }
                let _ = app.send(AppEvent::TurnEnded(end));
            }
            AgentCommand::SetModel(m) => agent.settings.model = m,
            AgentCommand::ListModels => {
                let r = agent
                    .client
                    .list_models()
                    .await
                    .map_err(|e| e.to_string())
                    .map(|ids| {
                        if ids.is_empty() {
                            "the server lists no models".to_owned()
                        } else {
                            format!("models (switch with /model NAME):\n{}", ids.join("\n"))
                        }
                    });
                let _ = app.send(AppEvent::Info(r));
            }
            AgentCommand::ListApprovals => {
                let (tools, commands) = agent.engine.approvals.list();
                let mut lines =
                    vec!["remembered approvals (/approvals clear forgets them):".to_owned()];
                lines.extend(tools.iter().map(|t| format!("  tool {t}")));
                lines.extend(commands.iter().map(|(t, c)| format!("  {t}: {c}")));
                if lines.len() == 1 {
                    lines = vec!["no approvals are remembered".to_owned()];
                }
                let _ = app.send(AppEvent::Info(Ok(lines.join("\n"))));
            }
            AgentCommand::ClearApprovals => {
                agent.engine.approvals.clear();
                let _ = app.send(AppEvent::Info(Ok("remembered approvals cleared".into())));
            }
            AgentCommand::ListTools => {
                let e = &agent.engine;
                let table = crate::tools::setup::describe_parts(
                    &e.registry,
                    &e.active,
                    &e.allowed_tools,
                    &agent.groups,
                    e.judge.is_some(),
                );
                let _ = app.send(AppEvent::Info(Ok(format!(
                    "tools (add one to the chat with @{{name}}):\n{}",
                    table.trim_end()
                ))));
            }
            AgentCommand::NewChat => agent.reset(),
        }
    }
}
