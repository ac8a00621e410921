//! A session's task: runs its prompts one at a time through [`Agent::send`] (the one entry
//! the TUI and headless use), streams the turn's events to the editor as `session/update`s,
//! sends each approval the TUI would show as a `session/request_permission`, and answers the
//! prompt with its stop reason.
//!
//! A permission answer goes back through the modal's reply channel, so the engine decides with
//! it exactly as with the modal's. Whatever is not an answer rejects: an error response, the
//! connection closing (then nothing more runs), a prompt cancelled meanwhile (the engine stops
//! waiting; the request's late answer is applied to nothing).

use std::collections::HashMap;
use std::sync::Arc;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentChunk, RequestPermissionRequest, SessionNotification, SessionUpdate, StopReason,
    ToolCallContent, ToolCallUpdate, ToolCallUpdateFields,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::permissions::{self, Outcome};
use super::session::{Command, Session};
use super::updates::Updates;
use crate::agent::Agent;
use crate::events::{Event, EventSink, TurnEnd};
use crate::tools::lifecycle::requests::ApprovalRequest;
use crate::tools::tool::{Kind, Preview};

/// How a prompt ended, for its response.
pub type Ended = Result<StopReason, String>;

/// The stop reason of a turn that ended so (`cancelled`: the editor sent `session/cancel`).
/// `Err`: the endpoint failed, answered as an error with its message.
pub fn stop_reason(end: &TurnEnd, cancelled: bool) -> Ended {
    if cancelled {
        return Ok(StopReason::Cancelled);
    }
    match end {
        TurnEnd::Completed | TurnEnd::Repeated { .. } => Ok(StopReason::EndTurn),
        TurnEnd::Cancelled | TurnEnd::Stopped => Ok(StopReason::Cancelled),
        TurnEnd::MaxTurns(_) => Ok(StopReason::MaxTurnRequests),
        TurnEnd::LengthLimit => Ok(StopReason::MaxTokens),
        TurnEnd::Failed(e) => Err(e.to_string()),
    }
}

/// Each tool's kind by its name, as the agent's registry has it now.
pub fn kinds(agent: &Agent) -> impl Fn(&str) -> Kind + use<> {
    let map: HashMap<String, Kind> = agent
        .engine()
        .registry()
        .entries()
        .map(|(n, e)| (n.to_owned(), e.tool.kind()))
        .collect();
    move |name| map.get(name).copied().unwrap_or_default()
}

/// Runs the session until its commands end (the connection closed), then closes its file.
pub async fn run(
    mut session: Session,
    mut commands: mpsc::UnboundedReceiver<Command>,
    cancel: Arc<std::sync::Mutex<CancellationToken>>,
    cx: ConnectionTo<Client>,
) {
    while let Some(command) = commands.recv().await {
        match command {
            Command::SetMode(mode) => {
                let sink = session
                    .saving
                    .sink_between_turns(&EventSink::channel().0, &session.agent);
                session.agent.mode().set(mode);
                sink.emit(Event::ModeChanged { mode });
            }
            Command::SetModel(model) => {
                let sink = session
                    .saving
                    .sink_between_turns(&EventSink::channel().0, &session.agent);
                session.agent.model_handle().set(model.clone());
                sink.emit(Event::ModelChanged { model });
            }
            Command::Prompt {
                text,
                images,
                reply,
            } => {
                session.agent.attach_images(images);
                let token = CancellationToken::new();
                if let Ok(mut t) = cancel.lock() {
                    *t = token.clone();
                }
                let ended = prompt(&mut session, &text, &mut commands, &token, &cx).await;
                let _ = reply.send(ended);
            }
        }
    }
    if let Some(servers) = session.agent.mcp() {
        servers.shutdown().await;
    }
    if let Some(e) = session.saving.close().await {
        tracing::warn!("{e}");
    }
}

/// Sends one update of the session.
fn notify(cx: &ConnectionTo<Client>, id: &str, update: SessionUpdate) {
    if let Err(e) = cx.send_notification(SessionNotification::new(id.to_owned(), update)) {
        tracing::debug!("session/update not sent: {e}");
    }
}

/// One prompt's turn.
async fn prompt(
    session: &mut Session,
    text: &str,
    commands: &mut mpsc::UnboundedReceiver<Command>,
    cancel: &CancellationToken,
    cx: &ConnectionTo<Client>,
) -> Ended {
    let kind_of = kinds(&session.agent);
    let mut updates = Updates::new(session.cwd.clone());
    let (mode, model) = (session.agent.mode(), session.agent.model_handle());
    let (front, mut rx) = EventSink::channel();
    let sink = session.saving.sink(&front, &session.agent);
    drop(front);
    let id = session.id.clone();
    let approvals = &mut session.approvals;
    let send = session.agent.send(text, &sink, cancel);
    let mut send = Box::pin(send);
    let forward = |ev: Event, updates: &mut Updates| {
        // The prompt itself is not echoed: the editor shows what it sent, and Zed appends a
        // `user_message_chunk` to the user message on screen (it would show twice). A
        // replay (`session/load`) sends the user's messages, through `replay_updates`.
        if matches!(ev, Event::UserMessage { .. }) {
            return;
        }
        for u in updates.map(&ev, &kind_of) {
            notify(cx, &id, u);
        }
    };
    let end = loop {
        tokio::select! {
            biased;
            Some(ev) = rx.recv() => forward(ev, &mut updates),
            end = &mut send => break end,
            Some(req) = approvals.recv() => {
                // What the turn said before it asked goes first (the tool call it names).
                while let Ok(ev) = rx.try_recv() {
                    forward(ev, &mut updates);
                }
                ask(req, &id, &session.cwd, cx);
            }
            Some(c) = commands.recv() => match c {
                Command::SetMode(m) => {
                    mode.set(m);
                    sink.emit(Event::ModeChanged { mode: m });
                }
                Command::SetModel(m) => {
                    model.set(m.clone());
                    sink.emit(Event::ModelChanged { model: m });
                }
                Command::Prompt { reply, .. } => {
                    let busy = "a prompt is already running in this session: cancel it first";
                    let _ = reply.send(Err(busy.into()));
                }
            },
        }
    };
    drop(send);
    drop(sink);
    while let Ok(ev) = rx.try_recv() {
        forward(ev, &mut updates);
    }
    // How the turn ended, when that is news to the reader (a failure is the prompt's error; a
    // stop is the editor's own doing).
    let said = !cancel.is_cancelled() && !matches!(end, TurnEnd::Stopped | TurnEnd::Failed(_));
    if let Some(message) = end.message().filter(|_| said) {
        let text = format!("\n\n(sayso: {message})");
        notify(
            cx,
            &id,
            SessionUpdate::AgentMessageChunk(ContentChunk::new(text.into())),
        );
    }
    stop_reason(&end, cancel.is_cancelled())
}

/// The tool call a permission request is about: its title (what the modal shows), arguments,
/// and the preview (a diff, or text).
pub fn asked_call(
    req: &crate::tools::lifecycle::requests::Ask,
    cwd: &std::path::Path,
) -> ToolCallUpdate {
    let mut content = Vec::new();
    match &req.preview {
        Some(Preview::Diff { path, diff }) => {
            content.push(super::updates::diff_text(&cwd.join(path), diff));
        }
        Some(Preview::Text(t)) => content.push(ToolCallContent::from(t.clone())),
        None => {}
    }
    let mut notes = Vec::new();
    if let Some(c) = &req.caution {
        notes.push(format!("Caution: {c}"));
    }
    if let Some(j) = &req.judge_reason {
        notes.push(format!("The judge: {j}"));
    }
    if let Some(d) = &req.rerun {
        notes.push(format!(
            "The sandbox denied it ({}); rerun it once outside the sandbox?",
            d.what
        ));
    }
    if !notes.is_empty() {
        content.insert(0, ToolCallContent::from(notes.join("\n")));
    }
    ToolCallUpdate::new(
        req.call_id.clone(),
        ToolCallUpdateFields::new()
            .title(req.cmd_string.clone())
            .raw_input(req.args.clone())
            .content(content),
    )
}

/// Sends the permission request for `req` and answers the engine when the editor does.
fn ask(req: ApprovalRequest, id: &str, cwd: &std::path::Path, cx: &ConnectionTo<Client>) {
    let ApprovalRequest { ask, mut reply } = req;
    let offered = permissions::options(&ask);
    let request =
        RequestPermissionRequest::new(id.to_owned(), asked_call(&ask, cwd), offered.clone());
    let cx = cx.clone();
    tokio::spawn(async move {
        let outcome = tokio::select! {
            r = cx.send_request(request).block_task() => match r {
                Ok(response) => Outcome::Answered(response),
                // The SDK marks the errors it makes for a closed connection (a peer cannot
                // forge the mark); `is_incoming_closed` turns true only after the close ends,
                // too late for the request it failed on the way.
                Err(e)
                    if agent_client_protocol::is_incoming_transport_closed(&e)
                        || agent_client_protocol::is_connection_terminated(&e)
                        || cx.is_incoming_closed() =>
                {
                    Outcome::Closed
                }
                Err(e) => Outcome::Error(e.to_string()),
            },
            // The engine stopped waiting (the prompt was cancelled): nothing to answer.
            () = reply.closed() => return,
        };
        let choice = permissions::choice(&outcome, &offered);
        tracing::info!(call = %ask.call_id, choice = choice.as_str(), "permission answered");
        let _ = reply.send(choice);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_ends_are_stop_reasons() {
        // (end, cancelled by session/cancel, reason)
        let rows = [
            (TurnEnd::Completed, false, Ok(StopReason::EndTurn)),
            (TurnEnd::Completed, true, Ok(StopReason::Cancelled)),
            (TurnEnd::Stopped, true, Ok(StopReason::Cancelled)),
            (TurnEnd::Cancelled, false, Ok(StopReason::Cancelled)),
            (TurnEnd::MaxTurns(3), false, Ok(StopReason::MaxTurnRequests)),
            (TurnEnd::LengthLimit, false, Ok(StopReason::MaxTokens)),
            (
                TurnEnd::Repeated {
                    tool: "t".into(),
                    times: 3,
                },
                false,
                Ok(StopReason::EndTurn),
            ),
        ];
        for (end, cancelled, reason) in rows {
            assert_eq!(stop_reason(&end, cancelled), reason, "{end:?} {cancelled}");
        }
    }
}
