//! The connection: ACP protocol v1 on stdin/stdout through the `agent-client-protocol` crate,
//! one handler per method, each handing its work to the session's task and returning at once
//! (a handler holds the crate's dispatch loop, which must keep reading for permission answers).
//!
//! `initialize` records what the editor can do and answers what sayso can; `session/new` and
//! `session/load` open a session's task; `session/prompt`, `session/set_mode` and
//! `session/cancel` go to it. Methods without a handler are answered `-32601` by the crate.
//! It refuses to print anything but the protocol on stdout.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ClientCapabilities, Implementation, InitializeRequest,
    InitializeResponse, LoadSessionRequest, LoadSessionResponse, McpCapabilities,
    NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest, PromptResponse,
    SessionNotification, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse,
    SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, ByteStreams, Client, Error};
use tokio::task::JoinHandle;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};
use tokio_util::sync::CancellationToken;

use super::session::{self, Command, Handle, Options};
use crate::events::Mode;

/// What the handlers share.
struct State {
    options: Options,
    client: Mutex<ClientCapabilities>,
    sessions: Mutex<HashMap<String, Handle>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

fn error(message: impl Into<String>) -> Error {
    Error::invalid_params().data(serde_json::Value::String(message.into()))
}

impl State {
    fn handle(&self, id: &str) -> Result<Handle, Error> {
        self.sessions
            .lock()
            .ok()
            .and_then(|s| s.get(id).cloned())
            .ok_or_else(|| error(format!("no session `{id}` in this process")))
    }

    fn client(&self) -> ClientCapabilities {
        self.client.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Starts the task of an opened session; its replayed events go out first.
    fn start(
        &self,
        opened: session::Session,
        replay: &[crate::events::Event],
        cx: &ConnectionTo<Client>,
    ) -> String {
        let id = opened.id.clone();
        if let Some(files) = super::fs::EditorFs::offered(&opened.client, cx, &id) {
            opened.agent.engine().files().set(Arc::new(files));
        }
        for update in session::replay_updates(&opened, replay) {
            let _ = cx.send_notification(SessionNotification::new(id.clone(), update));
        }
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let cancel = Arc::new(Mutex::new(CancellationToken::new()));
        let handle = Handle {
            models: Arc::new(Mutex::new(opened.models.clone())),
            cwd: opened.cwd.clone(),
            commands: tx,
            cancel: cancel.clone(),
        };
        if let Ok(mut s) = self.sessions.lock() {
            s.insert(id.clone(), handle);
        }
        let task = tokio::spawn(super::turn::run(opened, rx, cancel, cx.clone()));
        if let Ok(mut t) = self.tasks.lock() {
            t.push(task);
        }
        id
    }

    /// Ends every session: their prompts cancelled, their tasks given their last command.
    async fn shut_down(&self) {
        let handles: Vec<Handle> = self
            .sessions
            .lock()
            .map(|mut s| s.drain().map(|(_, h)| h).collect())
            .unwrap_or_default();
        for h in &handles {
            h.cancel();
        }
        drop(handles);
        let tasks: Vec<JoinHandle<()>> = self
            .tasks
            .lock()
            .map(|mut t| t.drain(..).collect())
            .unwrap_or_default();
        for t in tasks {
            let _ = t.await;
        }
    }
}

/// What sayso answers to `initialize`: protocol v1, sessions it can load, prompts with
/// embedded context (text files the editor sends), images (sent as image parts; a model that
/// refuses them gets the message without, `agent::turn::images`), MCP servers over stdio; no audio.
/// The version is always 1: the one sayso speaks, which is the requested one or, for any
/// other, the latest it supports (the spec's negotiation; the editor decides whether to go on).
pub fn initialize_response(_request: &InitializeRequest) -> InitializeResponse {
    InitializeResponse::new(ProtocolVersion::V1)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(PromptCapabilities::new().embedded_context(true).image(true))
                .mcp_capabilities(McpCapabilities::new()),
        )
        .agent_info(Implementation::new("sayso", env!("CARGO_PKG_VERSION")).title("sayso"))
}

/// Serves the protocol until stdin closes; the exit code.
pub async fn serve(options: Options) -> u8 {
    let state = Arc::new(State {
        options,
        client: Mutex::new(ClientCapabilities::default()),
        sessions: Mutex::new(HashMap::new()),
        tasks: Mutex::new(Vec::new()),
    });
    let transport = ByteStreams::new(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    );
    let (s1, s2, s3, s4, s5, s6, s7) = (
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
    );
    let served = Agent
        .v1()
        .name("sayso")
        .on_receive_request(
            async move |req: InitializeRequest, responder: Responder<InitializeResponse>, _cx| {
                if let Ok(mut c) = s1.client.lock() {
                    *c = req.client_capabilities.clone();
                }
                responder.respond(initialize_response(&req))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: NewSessionRequest, responder: Responder<NewSessionResponse>, cx| {
                let opened =
                    session::open(&s2.options, &req.cwd, &req.mcp_servers, s2.client(), None).await;
                match opened {
                    Ok((s, _)) => {
                        let mode = s.agent.mode().get();
                        let options = s.models.options();
                        let id = s2.start(s, &[], &cx);
                        responder.respond(
                            NewSessionResponse::new(id)
                                .modes(session::modes(mode))
                                .config_options(options),
                        )
                    }
                    Err(e) => responder.respond_with_error(error(e)),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: LoadSessionRequest, responder: Responder<LoadSessionResponse>, cx| {
                let id = req.session_id.0.to_string();
                if s3.handle(&id).is_ok() {
                    return responder.respond_with_error(error(format!(
                        "session `{id}` is already open in this process"
                    )));
                }
                let opened = session::open(
                    &s3.options,
                    &req.cwd,
                    &req.mcp_servers,
                    s3.client(),
                    Some(&id),
                )
                .await;
                match opened {
                    Ok((s, replay)) => {
                        let mode = s.agent.mode().get();
                        let options = s.models.options();
                        s3.start(s, &replay, &cx);
                        responder.respond(
                            LoadSessionResponse::new()
                                .modes(session::modes(mode))
                                .config_options(options),
                        )
                    }
                    Err(e) => responder.respond_with_error(error(e)),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: PromptRequest, responder: Responder<PromptResponse>, _cx| {
                let handle = match s4.handle(&req.session_id.0) {
                    Ok(h) => h,
                    Err(e) => return responder.respond_with_error(e),
                };
                let text = super::prompt::message(&req.prompt, &handle.cwd);
                let images = super::prompt::images(&req.prompt);
                let (tx, rx) = tokio::sync::oneshot::channel();
                if handle
                    .commands
                    .send(Command::Prompt {
                        text,
                        images,
                        reply: tx,
                    })
                    .is_err()
                {
                    return responder.respond_with_error(error("the session has ended"));
                }
                tokio::spawn(async move {
                    let answer = match rx.await {
                        Ok(Ok(reason)) => responder.respond(PromptResponse::new(reason)),
                        Ok(Err(message)) => responder.respond_with_error(
                            Error::internal_error().data(serde_json::Value::String(message)),
                        ),
                        Err(_) => responder.respond_with_error(error("the session has ended")),
                    };
                    if let Err(e) = answer {
                        tracing::debug!("prompt response not sent: {e}");
                    }
                });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionModeRequest,
                        responder: Responder<SetSessionModeResponse>,
                        _cx| {
                let handle = match s5.handle(&req.session_id.0) {
                    Ok(h) => h,
                    Err(e) => return responder.respond_with_error(e),
                };
                let Some(mode) = Mode::parse(&req.mode_id.0) else {
                    return responder.respond_with_error(error(format!(
                        "no mode `{}`: the modes are trust, auto, balanced, suggest, strict",
                        req.mode_id.0
                    )));
                };
                let _ = handle.commands.send(Command::SetMode(mode));
                responder.respond(SetSessionModeResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: SetSessionConfigOptionRequest,
                        responder: Responder<SetSessionConfigOptionResponse>,
                        _cx| {
                let handle = match s7.handle(&req.session_id.0) {
                    Ok(h) => h,
                    Err(e) => return responder.respond_with_error(e),
                };
                let chosen = handle.models.lock().map(|mut m| {
                    let value = req.value.as_value_id().map(|v| v.0.to_string());
                    m.choose(&req.config_id.0, value.as_deref())
                        .map(|model| (model, m.options()))
                });
                match chosen {
                    Ok(Ok((model, options))) => {
                        let _ = handle.commands.send(Command::SetModel(model));
                        responder.respond(SetSessionConfigOptionResponse::new(options))
                    }
                    Ok(Err(e)) => responder.respond_with_error(error(e)),
                    Err(_) => responder.respond_with_error(Error::internal_error()),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |n: CancelNotification, _cx| {
                if let Ok(h) = s6.handle(&n.session_id.0) {
                    h.cancel();
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(transport)
        .await;
    state.shut_down().await;
    match served {
        Ok(()) => crate::exit::OK,
        Err(e) => {
            tracing::warn!("acp connection: {e}");
            eprintln!("sayso: acp: {e}");
            crate::exit::FAILED
        }
    }
}
