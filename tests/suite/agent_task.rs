//! The agent as a task, driven only by commands and observed only through events (as the TUI
//! drives it), against the fixture server: a model change asked during a turn applies from the
//! next request (and the judge follows it), a new chat drops the tools `@{…}` added, and the
//! answers to commands come back as events.

use std::collections::HashMap;
use std::sync::Arc;

use sayso::agent::saving::Saving;
use sayso::agent::task::{self, Command};
use sayso::agent::{Event, EventSink, Frontend, TurnEnd};
use sayso::config::{Config, Overrides};
use sayso::events::{Answer, Mode};
use sayso::tools::policy::approval::Interaction;
use serde_json::json;
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, Step, sse};

struct Running {
    commands: mpsc::UnboundedSender<Command>,
    events: mpsc::UnboundedReceiver<Event>,
    _home: tempfile::TempDir,
}

impl Running {
    fn send(&self, text: &str) {
        let _ = self.commands.send(Command::Send {
            text: text.into(),
            cancel: CancellationToken::new(),
        });
    }

    /// Events up to and including the first that matches.
    async fn until(&mut self, want: impl Fn(&Event) -> bool) -> Vec<Event> {
        let mut seen = Vec::new();
        loop {
            let e = self.events.recv().await.expect("the agent task is running");
            let done = want(&e);
            seen.push(e);
            if done {
                return seen;
            }
        }
    }
}

/// An agent task configured from a user config (plus `extra` TOML), tools run in a temp dir.
fn start(fx: &Fixture, extra: &str) -> Running {
    let home = tempfile::tempdir().unwrap();
    let config_path = home.path().join("config.toml");
    std::fs::write(
        &config_path,
        format!(
            "model = \"first-model\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 0\n{extra}",
            fx.base_url()
        ),
    )
    .unwrap();
    let env: HashMap<String, String> = [(
        "XDG_DATA_HOME".to_owned(),
        home.path().join("data").display().to_string(),
    )]
    .into();
    let overrides = Overrides {
        config_file: Some(config_path),
        cwd: home.path().to_path_buf(),
        ..Overrides::default()
    };
    let config = Config::load(&overrides, &env).expect("config");
    let client = sayso::provider::Client::new(config.provider.clone()).expect("client");
    let setup = sayso::tools::configured::build(&config).expect("tools");
    let agent = sayso::agent::build(
        &config,
        client,
        setup,
        home.path().to_path_buf(),
        Frontend {
            interaction: Interaction::Headless,
            approver: None,
            questions: None,
        },
    );
    let (sink, events) = EventSink::channel();
    let (commands, rx) = mpsc::unbounded_channel();
    let saving = Saving::new(Some(home.path().join("data")), &agent);
    tokio::spawn(task::run(agent, rx, sink, saving));
    Running {
        commands,
        events,
        _home: home,
    }
}

fn turn_ended(e: &Event) -> bool {
    matches!(e, Event::TurnEnded(_))
}

#[tokio::test]
async fn a_model_change_during_a_turn_applies_from_the_next_request_and_the_judge_follows() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    // Turn 1, request 1: held at a gate, then a command the judge must vet (auto mode).
    let mut held = vec![Step::Gate(gate.clone())];
    if let Reply::Stream(steps) = call_reply(&[("c1", "run_command", json!({"cmd": "make build"}))])
    {
        held.extend(steps);
    }
    fx.push(Reply::Stream(held));
    fx.push(Reply::Json(
        json!({"choices": [{"message": {"content": "{\"safe\": false, \"reason\": \"no\"}"}}]}),
    ));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let mut agent = start(&fx, "[chat]\nauto = true\n");
    agent.send("build it");
    // The first request is in flight (held at the gate) when the model changes.
    while fx.requests().is_empty() {
        tokio::task::yield_now().await;
    }
    let _ = agent
        .commands
        .send(Command::SetModel("second-model".into()));
    let seen = agent
        .until(|e| matches!(e, Event::ModelChanged { .. }))
        .await;
    assert!(
        !seen.iter().any(turn_ended),
        "the change is applied during the turn"
    );
    gate.notify_one();
    let seen = agent.until(turn_ended).await;
    assert!(matches!(
        seen.last(),
        Some(Event::TurnEnded(TurnEnd::Completed))
    ));
    let models: Vec<String> = fx
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        models,
        ["first-model", "second-model", "second-model"],
        "request 1 was already sent; the judge and request 2 use the new model"
    );
}

#[tokio::test]
async fn a_new_chat_drops_tools_added_with_a_mention_and_their_prompts() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["one"])));
    fx.push(Reply::Stream(sse::text_reply(&["two"])));
    let mut agent = start(&fx, "");
    agent.send("use @{memory} please");
    agent.until(turn_ended).await;
    let _ = agent.commands.send(Command::NewChat);
    agent.send("hello again");
    agent.until(turn_ended).await;
    let tools = |i: usize| -> Vec<String> {
        fx.requests()[i].body["tools"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|t| {
                        t["function"]["name"]
                            .as_str()
                            .unwrap_or_default()
                            .to_owned()
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(tools(0).contains(&"memory".to_owned()));
    assert!(!tools(1).contains(&"memory".to_owned()), "{:?}", tools(1));
    let messages = fx.requests()[1].body["messages"].clone();
    assert_eq!(
        messages.as_array().map(Vec::len),
        Some(2),
        "the system prompt and the new message only: {messages}"
    );
}

#[tokio::test]
async fn commands_are_answered_with_events_and_wait_for_the_turn() {
    let fx = Fixture::start().await;
    let gate = Arc::new(Notify::new());
    let mut held = vec![Step::Gate(gate.clone())];
    held.extend(sse::text_reply(&["hi"]));
    fx.push(Reply::Stream(held));
    let mut agent = start(&fx, "");
    agent.send("hello");
    while fx.requests().is_empty() {
        tokio::task::yield_now().await;
    }
    let _ = agent.commands.send(Command::ListTools);
    let _ = agent.commands.send(Command::SetMode(Mode::Auto));
    let seen = agent
        .until(|e| matches!(e, Event::ModeChanged { .. }))
        .await;
    assert!(
        !seen.iter().any(|e| matches!(e, Event::Answer(_))),
        "the tool list waits for the turn"
    );
    gate.notify_one();
    let seen = agent.until(|e| matches!(e, Event::Answer(_))).await;
    let turn_end = seen
        .iter()
        .position(turn_ended)
        .expect("the turn ended first");
    match seen.last() {
        Some(Event::Answer(Answer::Tools { table: text })) => {
            assert!(text.contains("run_command"), "{text}")
        }
        other => panic!("{other:?}"),
    }
    assert!(turn_end < seen.len() - 1);
}

#[tokio::test]
async fn a_session_file_starts_with_the_first_message_and_its_header_has_the_mode_then() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["hi"])));
    let mut agent = start(&fx, "");
    let sessions = agent._home.path().join("data/sessions");
    let _ = agent.commands.send(Command::SetMode(Mode::Auto));
    agent
        .until(|e| matches!(e, Event::ModeChanged { .. }))
        .await;
    let files = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(&sessions)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    };
    assert!(files().is_empty(), "nothing is saved before a message");
    agent.send("hello");
    agent.until(turn_ended).await;
    // The writer is its own task: wait for its first line.
    let started = std::time::Instant::now();
    let (saved, first) = loop {
        let saved = files();
        if let Some(text) = saved
            .first()
            .and_then(|f| std::fs::read_to_string(f).ok())
            .filter(|t| t.contains('\n'))
        {
            break (saved, text);
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert_eq!(saved.len(), 1);
    let header: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    assert_eq!(header["t"], "session");
    assert_eq!(header["mode"], "auto");
    assert_eq!(header["model"], "first-model");
}
