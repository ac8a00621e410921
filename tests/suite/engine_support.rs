//! Test tools and a scripted approver for engine tests.

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

use sayso::config::opts::Opts;
use sayso::events::{Event, EventSink};
use sayso::provider::{ToolCall, ToolSpec};
use sayso::tools::lifecycle::BatchResult;
use sayso::tools::lifecycle::orchestrator::{Engine, EngineSetup};
use sayso::tools::lifecycle::requests::{ApprovalRequest, UserChoice};
use sayso::tools::policy::approval::{Interaction, Mode};
use sayso::tools::registry::{Registry, Source};
use sayso::tools::tool::{CmdResult, Command, Invocation, Output, Tool, ToolOutput};

use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub type Log = Arc<Mutex<Vec<String>>>;

/// The outputs' contents (what the recorder logs and reports).
fn texts(outputs: &[Output]) -> Vec<&str> {
    outputs.iter().map(|o| o.content.as_str()).collect()
}

/// What one command of a [`Recorder`] does.
#[derive(Clone)]
pub enum Step {
    Ok(&'static str),
    Err(&'static str),
    Panic,
    /// Returns nothing, answers later through output_cb (twice: only the first counts).
    Later(&'static str),
    /// Returns nothing and never answers.
    Never,
    /// Succeeds with the previous command's data, prefixed.
    EchoInput,
    Shell(&'static str),
}

/// A tool that records its lifecycle in a shared log.
pub struct Recorder {
    pub name: String,
    pub steps: Vec<Step>,
    pub opts: Opts,
    pub log: Log,
    /// Report nothing at all (no add_tool_output).
    pub silent: bool,
}

impl Recorder {
    pub fn new(name: &str, steps: Vec<Step>, log: &Log) -> Self {
        Self {
            name: name.into(),
            steps,
            opts: Opts::default(),
            log: log.clone(),
            silent: false,
        }
    }

    pub fn asking(mut self) -> Self {
        self.opts.require_approval_before = Some(true.into());
        self
    }

    fn log(&self, s: String) {
        self.log.lock().unwrap().push(s);
    }
}

impl Tool for Recorder {
    fn name(&self) -> &str {
        &self.name
    }
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: "test".into(),
            parameters: json!({"type": "object"}),
            strict: None,
        }
    }
    fn default_opts(&self) -> Opts {
        self.opts.clone()
    }
    fn setup(&self, _inv: &Invocation) -> Result<(), String> {
        self.log(format!("{}:Setup", self.name));
        Ok(())
    }
    fn on_exit(&self, _inv: &Invocation) {
        self.log(format!("{}:Exit", self.name));
    }
    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        self.steps
            .iter()
            .cloned()
            .map(|s| match s {
                Step::Shell(script) => Command::Script {
                    script: script.into(),
                    env: Default::default(),
                },
                step => Command::Function(Arc::new(move |_inv, args| {
                    let step = step.clone();
                    Box::pin(async move {
                        match step {
                            Step::Ok(d) => Some(CmdResult::ok(d)),
                            Step::Err(e) => Some(CmdResult::err(e)),
                            Step::Panic => panic!("Something went wrong"),
                            Step::Later(d) => {
                                let cb = args.output_cb.clone();
                                tokio::spawn(async move {
                                    tokio::task::yield_now().await;
                                    cb.call(CmdResult::ok(d));
                                    cb.call(CmdResult::ok("too late"));
                                });
                                None
                            }
                            Step::Never => None,
                            Step::EchoInput => Some(CmdResult::ok(match args.input {
                                Some(CmdResult::Success(d)) => format!("got {}", d.content),
                                other => format!("got {other:?}"),
                            })),
                            Step::Shell(_) => unreachable!(),
                        }
                    })
                })),
            })
            .collect()
    }
    fn on_success(&self, inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        let data = texts(data);
        self.log(format!("{}:Success{:?}", self.name, data));
        if !self.silent {
            out.add(format!("{} ok: {}", inv.name, data.join(",")), None);
        }
    }
    fn on_error(&self, inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        let errors = texts(errors);
        self.log(format!("{}:Error{errors:?}", self.name));
        if !self.silent {
            out.add(format!("{} failed: {}", inv.name, errors.join(",")), None);
        }
    }
    fn on_rejected(&self, inv: &Invocation, out: &mut ToolOutput, reason: Option<&str>) {
        self.log(format!("{}:Rejected({reason:?})", self.name));
        out.add(
            sayso::tools::tool::default_rejection(&inv.name, reason),
            None,
        );
    }
    fn on_cancelled(&self, inv: &Invocation, out: &mut ToolOutput) {
        self.log(format!("{}:Cancelled", self.name));
        out.add(
            format!("The user cancelled the execution of the {} tool", inv.name),
            None,
        );
    }
}

pub fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    }
}

/// An engine with these tools, all active.
pub fn engine(tools: Vec<Arc<dyn Tool>>, mode: Mode, cwd: &Path) -> Engine {
    engine_in(tools, mode, Interaction::Interactive, cwd)
}

/// The same, headless or interactive.
pub fn engine_in(
    tools: Vec<Arc<dyn Tool>>,
    mode: Mode,
    interaction: Interaction,
    cwd: &Path,
) -> Engine {
    let mut registry = Registry::default();
    let mut active = BTreeSet::new();
    for t in tools {
        active.insert(t.name().to_owned());
        registry.register(t, Source::Library);
    }
    Engine::new(EngineSetup {
        registry: Arc::new(registry),
        active,
        allowed: BTreeSet::new(),
        mode: mode.into(),
        interaction,
        judge: None,
        cwd: cwd.to_path_buf(),
        approver: None,
        rules: Default::default(),
        ctx: Default::default(),
    })
}

/// Answers approval requests from a script, recording each request as "tool cmd_string (i of n)".
pub fn approver(engine: &mut Engine, choices: Vec<UserChoice>) -> Arc<Mutex<Vec<String>>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<ApprovalRequest>();
    engine.set_approver(tx);
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let record = asked.clone();
    let mut choices: VecDeque<UserChoice> = choices.into();
    tokio::spawn(async move {
        while let Some(req) = rx.recv().await {
            let a = &req.ask;
            record.lock().unwrap().push(format!(
                "{} {} ({} of {})",
                a.tool, a.cmd_string, a.position, a.total
            ));
            let _ = req
                .reply
                .send(choices.pop_front().unwrap_or(UserChoice::Cancel));
        }
    });
    asked
}

pub async fn run(engine: &mut Engine, calls: &[ToolCall]) -> (BatchResult, Vec<Event>) {
    run_with(engine, calls, &CancellationToken::new()).await
}

pub async fn run_with(
    engine: &mut Engine,
    calls: &[ToolCall],
    cancel: &CancellationToken,
) -> (BatchResult, Vec<Event>) {
    let (sink, mut rx) = EventSink::channel();
    let result = engine.run_batch(calls, &sink, cancel).await;
    let mut events = Vec::new();
    while let Ok(e) = rx.try_recv() {
        events.push(e);
    }
    (result, events)
}

pub fn contents(r: &BatchResult) -> Vec<(String, String)> {
    r.results
        .iter()
        .map(|c| (c.call_id.clone(), c.content()))
        .collect()
}

/// The process is gone: no such process, or only a zombie left for its parent to reap.
pub fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.trim_start().chars().next())
                == Some('Z')
        }
    }
}
