//! The call lifecycle as a table of input sequences: no tokio, no shell, no network. Each row
//! feeds inputs to a [`Batch`] of fake tools and compares what came out, summarised as words
//! ("ask c1", "run c1", "end c1 success", "done").

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::*;
use crate::config::opts::Opts;
use crate::provider::ToolSpec;
use crate::tools::exec::function::FnArgs;
use crate::tools::registry::Source;
use crate::tools::tool::{ApprovalBefore, Kind, Output, Policy, Preview};

/// A tool whose every answer the test sets, and which logs its hooks.
#[derive(Clone, Default)]
pub struct Fake {
    pub name: String,
    pub opts: Opts,
    /// Commands per call (each one a function the driver would run).
    pub commands: usize,
    pub must_ask: Option<String>,
    pub caution: Option<String>,
    pub safe: Option<bool>,
    pub judge: bool,
    /// The tool's condition for asking (read when `require_approval_before` is `Condition`).
    pub condition: bool,
    pub kind: Kind,
    /// `setup` fails with this.
    pub setup_error: Option<String>,
    /// Reports nothing on success (the stand-in result applies).
    pub silent: bool,
    /// The arguments' schema (`{"type": "object"}` when `None`).
    pub schema: Option<Value>,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Fake {
    pub fn new(name: &str) -> Self {
        Self {
            name: name.into(),
            commands: 1,
            condition: true,
            ..Self::default()
        }
    }

    pub fn asking(mut self) -> Self {
        self.opts.require_approval_before = Some(ApprovalBefore::Always);
        self
    }

    fn log(&self, what: &str, inv: &Invocation) {
        if let Ok(mut l) = self.log.lock() {
            l.push(format!("{} {what}", inv.function_call.id));
        }
    }
}

impl Tool for Fake {
    fn name(&self) -> &str {
        &self.name
    }
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: "fake".into(),
            parameters: self
                .schema
                .clone()
                .unwrap_or_else(|| json!({"type": "object"})),
            strict: None,
        }
    }
    fn kind(&self) -> Kind {
        self.kind
    }
    fn default_opts(&self) -> Opts {
        self.opts.clone()
    }
    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        let f: crate::tools::tool::FunctionCmd =
            Arc::new(|_inv, _args: FnArgs| Box::pin(async { None }));
        vec![Command::Function(f); self.commands]
    }
    fn setup(&self, inv: &Invocation) -> Result<(), String> {
        self.log("setup", inv);
        self.setup_error.clone().map_or(Ok(()), Err)
    }
    fn on_exit(&self, inv: &Invocation) {
        self.log("exit", inv);
    }
    fn policy(&self, inv: &Invocation) -> Policy {
        Policy {
            condition: self.condition,
            is_safe: self.safe,
            judge_context: self
                .judge
                .then(|| format!("{} {}", self.name, inv.arg_str("cmd"))),
            must_ask: self.must_ask.clone(),
            caution: self.caution.clone(),
            reads_outside: None,
        }
    }
    fn cmd_string(&self, inv: &Invocation) -> String {
        let cmd = inv.arg_str("cmd");
        if cmd.is_empty() {
            self.name.clone()
        } else {
            cmd.to_owned()
        }
    }
    fn preview(&self, _inv: &Invocation) -> Option<Preview> {
        Some(Preview::Text("preview".into()))
    }
    fn on_success(&self, inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        self.log("success", inv);
        if !self.silent {
            let data: Vec<&str> = data.iter().map(|d| d.content.as_str()).collect();
            out.add(data.join("+"), None);
        }
    }
    fn on_error(&self, inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        self.log("error", inv);
        let errors: Vec<&str> = errors.iter().map(|e| e.content.as_str()).collect();
        out.add(format!("failed: {}", errors.join("; ")), None);
    }
    fn on_cancelled(&self, inv: &Invocation, out: &mut ToolOutput) {
        self.log("cancelled", inv);
        out.add(format!("cancelled {}", inv.function_call.id), None);
    }
}

/// What a batch needs, owned, so a test builds it in one line.
pub struct World {
    pub registry: Registry,
    pub active: BTreeSet<String>,
    pub allowed: BTreeSet<String>,
    pub mode: Mode,
    pub interaction: Interaction,
    pub judge: bool,
    pub rules: SharedRules,
    /// Plan mode is on.
    pub plan: bool,
}

impl World {
    pub fn new(tools: Vec<Fake>) -> Self {
        let mut registry = Registry::default();
        let mut active = BTreeSet::new();
        for t in tools {
            active.insert(t.name.clone());
            registry.register(Arc::new(t), Source::Library);
        }
        Self {
            registry,
            active,
            allowed: BTreeSet::new(),
            mode: Mode::Balanced,
            interaction: Interaction::Interactive,
            judge: true,
            rules: SharedRules::default(),
            plan: false,
        }
    }

    pub fn batch(&self, calls: &[ToolCall], memory: Approvals) -> Batch {
        let make_inv = |call: &ToolCall, args: Value, opts: Opts| Invocation {
            name: call.name.clone(),
            args,
            function_call: call.clone(),
            opts,
            cwd: std::path::PathBuf::from("/nonexistent"),
            ctx: Default::default(),
        };
        let ctx = BatchContext {
            registry: &self.registry,
            active: &self.active,
            allowed: &self.allowed,
            mode: self.mode,
            plan: self.plan,
            interaction: self.interaction,
            judge: self.judge,
            rules: &self.rules,
            make_inv: &make_inv,
        };
        Batch::new(calls, &ctx, memory)
    }
}

pub fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    }
}

/// The effects as words; most events are left out, the ones that matter are kept.
pub fn words(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Emit(Event::ToolFinished { call_id, end, .. }) => {
                Some(format!("end {call_id} {}", end.as_str()))
            }
            Effect::Emit(Event::ApprovalDecided {
                call_id, choice, ..
            }) => Some(format!("decided {call_id} {}", choice.as_str())),
            Effect::Emit(_) => None,
            Effect::AskJudge { context, .. } => Some(format!("judge {context}")),
            Effect::AskUser(a) if a.rerun.is_some() => Some(format!(
                "ask {} {}/{} rerun",
                a.call_id, a.position, a.total
            )),
            Effect::AskUser(a) => Some(format!(
                "ask {} {}/{}{}",
                a.call_id,
                a.position,
                a.total,
                a.caution
                    .as_ref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default()
            )),
            // How confined, unless as the policy says.
            Effect::Run { inv, confine, .. } => Some(match confine {
                Confinement::Policy => format!("run {}", inv.function_call.id),
                other => format!(
                    "run {} {}",
                    inv.function_call.id,
                    serde_json::to_value(other)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default()
                ),
            }),
            Effect::Finish(_) => Some("done".into()),
        })
        .collect()
}

pub fn finished(effects: &[Effect]) -> Option<&BatchResult> {
    effects.iter().find_map(|e| match e {
        Effect::Finish(r) => Some(r),
        _ => None,
    })
}

pub fn ok(data: &str) -> Input {
    Input::Command(CmdResult::ok(data))
}

pub fn accept() -> Input {
    Input::Choice(UserChoice::Accept)
}

struct Row {
    name: &'static str,
    world: World,
    calls: Vec<ToolCall>,
    memory: Approvals,
    /// Each input after Start, and the words expected from it (Start's first).
    steps: Vec<(Input, Vec<&'static str>)>,
}

fn run_row(row: Row) -> BatchResult {
    let mut batch = row.world.batch(&row.calls, row.memory);
    let mut last = None;
    for (i, (input, want)) in row.steps.into_iter().enumerate() {
        let fx = batch.step(input);
        assert_eq!(words(&fx), want, "{}: step {i}", row.name);
        if let Some(r) = finished(&fx) {
            last = Some(r.clone());
        }
    }
    last.unwrap_or_else(|| panic!("{}: the batch did not finish", row.name))
}

pub fn plain(name: &str) -> Fake {
    Fake::new(name)
}

pub fn shell_like() -> Fake {
    let mut t = Fake::new("sh").asking();
    t.opts.require_cmd_approval = Some(true);
    t.opts.judge = Some(true);
    t.safe = Some(false);
    t.judge = true;
    t
}

pub fn cmd(c: &str) -> String {
    json!({ "cmd": c }).to_string()
}

/// The schema of a tool that takes one string `cmd` and nothing else.
pub fn cmd_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"cmd": {"type": "string"}},
        "required": ["cmd"],
        "additionalProperties": false
    })
}

fn checked(t: Fake) -> Fake {
    Fake {
        schema: Some(cmd_schema()),
        ..t
    }
}

#[test]
fn lifecycle_table() {
    let auto = |mut w: World| {
        w.mode = Mode::Auto;
        w
    };
    let headless = |mut w: World| {
        w.interaction = Interaction::Headless;
        w
    };
    let rows = vec![
        Row {
            name: "a call that needs no approval runs",
            world: World::new(vec![plain("read")]),
            calls: vec![call("c1", "read", "{}")],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (ok("data"), vec!["end c1 success", "done"]),
            ],
        },
        Row {
            name: "approval asked, accepted, run",
            world: World::new(vec![plain("edit").asking()]),
            calls: vec![call("c1", "edit", "{}")],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["ask c1 1/1"]),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (ok("x"), vec!["end c1 success", "done"]),
            ],
        },
        Row {
            name: "rejected with a reason, the next call still runs",
            world: World::new(vec![plain("edit").asking(), plain("read")]),
            calls: vec![call("c1", "edit", "{}"), call("c2", "read", "{}")],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["ask c1 1/2"]),
                (
                    Input::Choice(UserChoice::Reject(Some("not now".into()))),
                    vec!["decided c1 reject", "end c1 rejected", "run c2"],
                ),
                (ok("y"), vec!["end c2 success", "done"]),
            ],
        },
        Row {
            name: "Cancel cancels the rest of the batch",
            world: World::new(vec![plain("edit").asking(), plain("read")]),
            calls: vec![
                call("c1", "edit", "{}"),
                call("c2", "read", "{}"),
                call("c3", "edit", "{}"),
            ],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["ask c1 1/3"]),
                (
                    Input::Choice(UserChoice::Cancel),
                    vec![
                        "decided c1 cancel",
                        "end c1 cancelled",
                        "end c2 cancelled",
                        "end c3 cancelled",
                        "done",
                    ],
                ),
            ],
        },
        Row {
            name: "Always accept releases the queued calls of the same tool",
            world: World::new(vec![plain("edit").asking()]),
            calls: vec![
                call("c1", "edit", "{}"),
                call("c2", "edit", "{}"),
                call("c3", "edit", "{}"),
            ],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["ask c1 1/3"]),
                (
                    Input::Choice(UserChoice::AlwaysAccept),
                    vec!["decided c1 always_accept", "run c1"],
                ),
                (ok("1"), vec!["end c1 success", "run c2"]),
                (ok("2"), vec!["end c2 success", "run c3"]),
                (ok("3"), vec!["end c3 success", "done"]),
            ],
        },
        Row {
            name: "exact-command memory: another command still asks",
            world: World::new(vec![shell_like()]),
            calls: vec![
                call("c1", "sh", &cmd("make")),
                call("c2", "sh", &cmd("make")),
                call("c3", "sh", &cmd("make && rm -rf x")),
            ],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["ask c1 1/3"]),
                (
                    Input::Choice(UserChoice::AlwaysAccept),
                    vec!["decided c1 always_accept", "run c1"],
                ),
                (ok("1"), vec!["end c1 success", "run c2"]),
                (ok("2"), vec!["end c2 success", "ask c3 3/3"]),
                (
                    Input::Choice(UserChoice::Reject(None)),
                    vec!["decided c3 reject", "end c3 rejected", "done"],
                ),
            ],
        },
        Row {
            name: "auto: the judge's unsafe verdict goes to the user, a safe one runs",
            world: auto(World::new(vec![shell_like()])),
            calls: vec![
                call("c1", "sh", &cmd("deploy")),
                call("c2", "sh", &cmd("build")),
            ],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["judge sh deploy"]),
                (
                    Input::Verdict(Verdict {
                        safe: false,
                        reason: "deploys".into(),
                    }),
                    vec!["ask c1 1/2"],
                ),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (ok("d"), vec!["end c1 success", "judge sh build"]),
                (
                    Input::Verdict(Verdict {
                        safe: true,
                        reason: "builds".into(),
                    }),
                    vec!["run c2"],
                ),
                (ok("b"), vec!["end c2 success", "done"]),
            ],
        },
        Row {
            name: "auto headless: the judge fails closed and nobody can be asked",
            world: headless(auto(World::new(vec![shell_like()]))),
            calls: vec![call("c1", "sh", &cmd("curl x | sh"))],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["judge sh curl x | sh"]),
                (
                    Input::Verdict(Verdict {
                        safe: false,
                        reason: "The judge request failed".into(),
                    }),
                    vec!["decided c1 reject", "end c1 rejected", "done"],
                ),
            ],
        },
        Row {
            name: "a forced ask beats the allow-list, memory and auto mode",
            world: {
                let mut w = auto(World::new(vec![Fake {
                    must_ask: Some("outside".into()),
                    ..plain("write")
                }]));
                w.allowed.insert("write".into());
                w
            },
            calls: vec![call("c1", "write", "{}")],
            memory: {
                let mut m = Approvals::default();
                m.always("write", "", false);
                m
            },
            steps: vec![
                (Input::Start, vec!["ask c1 1/1 (outside)"]),
                (
                    Input::Choice(UserChoice::AlwaysAccept),
                    vec!["decided c1 always_accept", "run c1"],
                ),
                (ok("w"), vec!["end c1 success", "done"]),
            ],
        },
        Row {
            name: "a caution asks in auto mode instead of passing the safe gate",
            world: auto(World::new(vec![Fake {
                safe: Some(true),
                caution: Some("hooks".into()),
                ..shell_like()
            }])),
            calls: vec![call("c1", "sh", &cmd("git status"))],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["ask c1 1/1 (hooks)"]),
                (
                    Input::Choice(UserChoice::Reject(None)),
                    vec!["decided c1 reject", "end c1 rejected", "done"],
                ),
            ],
        },
        Row {
            name: "unknown tools and bad JSON fail alone",
            world: World::new(vec![plain("read")]),
            calls: vec![
                call("c1", "nope", "{}"),
                call("c2", "read", "{broken"),
                call("c3", "read", ""),
            ],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["end c1 error", "end c2 error", "run c3"]),
                (ok("r"), vec!["end c3 success", "done"]),
            ],
        },
        Row {
            name: "arguments that do not fit the schema fail alone: no judge, no modal",
            world: auto(World::new(vec![
                checked(shell_like()),
                checked(plain("edit").asking()),
            ])),
            calls: vec![
                call("c1", "sh", r#"{"command": "ls"}"#),
                call("c2", "edit", r#"{"cmd": ["a"]}"#),
                call("c3", "sh", &cmd("deploy")),
                call("c4", "edit", r#"{"cmd": "x", "extra": 1}"#),
            ],
            memory: Approvals::default(),
            steps: vec![
                (
                    Input::Start,
                    vec!["end c1 error", "end c2 error", "judge sh deploy"],
                ),
                (
                    Input::Verdict(Verdict {
                        safe: true,
                        reason: "fine".into(),
                    }),
                    vec!["run c3"],
                ),
                (ok("d"), vec!["end c3 success", "end c4 error", "done"]),
            ],
        },
        Row {
            name: "a call failing the check asks nobody, even when the tool always asks",
            world: World::new(vec![checked(plain("edit").asking())]),
            calls: vec![call("c1", "edit", "{}"), call("c2", "edit", &cmd("ok"))],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["end c1 error", "ask c2 2/2"]),
                (accept(), vec!["decided c2 accept", "run c2"]),
                (ok("x"), vec!["end c2 success", "done"]),
            ],
        },
        Row {
            name: "the first failing command ends the call; the rest are skipped",
            world: World::new(vec![Fake {
                commands: 3,
                ..plain("multi")
            }]),
            calls: vec![call("c1", "multi", "{}")],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (ok("a"), vec!["run c1"]),
                (
                    Input::Command(CmdResult::err("boom")),
                    vec!["end c1 error", "done"],
                ),
            ],
        },
        Row {
            name: "a stop while the user is asked cancels everything, nothing runs",
            world: World::new(vec![plain("edit").asking(), plain("read")]),
            calls: vec![call("c1", "edit", "{}"), call("c2", "read", "{}")],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["ask c1 1/2"]),
                (
                    Input::Stop,
                    vec!["end c1 cancelled", "end c2 cancelled", "done"],
                ),
            ],
        },
        Row {
            name: "a stop while a command runs cancels it and the rest",
            world: World::new(vec![plain("read")]),
            calls: vec![call("c1", "read", "{}"), call("c2", "read", "{}")],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (
                    Input::Stop,
                    vec!["end c1 cancelled", "end c2 cancelled", "done"],
                ),
            ],
        },
        Row {
            name: "answers to questions not asked are ignored",
            world: World::new(vec![plain("edit").asking()]),
            calls: vec![call("c1", "edit", "{}")],
            memory: Approvals::default(),
            steps: vec![
                (Input::Start, vec!["ask c1 1/1"]),
                (ok("sneaky"), vec![]),
                (
                    Input::Verdict(Verdict {
                        safe: true,
                        reason: "?".into(),
                    }),
                    vec![],
                ),
                (
                    Input::Choice(UserChoice::Reject(None)),
                    vec!["decided c1 reject", "end c1 rejected", "done"],
                ),
            ],
        },
    ];
    for row in rows {
        let r = run_row(row);
        assert!(r.results.windows(2).all(|w| w[0].call_id < w[1].call_id));
    }
}

#[test]
fn results_carry_the_rejection_reason_the_stand_in_and_the_cap() {
    let mut capped = plain("big");
    capped.opts.output_limit = Some(50);
    let world = World::new(vec![
        plain("edit").asking(),
        Fake {
            silent: true,
            ..plain("quiet")
        },
        capped,
    ]);
    let calls = [
        call("c1", "edit", "{}"),
        call("c2", "quiet", "{}"),
        call("c3", "big", "{}"),
    ];
    let mut b = world.batch(&calls, Approvals::default());
    b.step(Input::Start);
    b.step(Input::Choice(UserChoice::Reject(Some("use make".into()))));
    b.step(ok("ignored"));
    let fx = b.step(ok(&"x".repeat(500)));
    let r = finished(&fx).unwrap();
    assert_eq!(
        r.results[0].content(),
        "The user rejected the execution of the edit tool, with the reason: \"use make\""
    );
    assert_eq!(r.results[1].content(), no_output_text("quiet"));
    assert!(r.results[2].content().chars().count() < 200, "capped");
    assert!(!r.had_error);
    assert_eq!(r.ends_turn, None);
}

#[test]
fn headless_approval_is_a_rejection_with_the_reason() {
    let mut world = World::new(vec![
        plain("edit").asking(),
        Fake {
            must_ask: Some("`x` is OUTSIDE the working directory".into()),
            ..plain("write")
        },
    ]);
    world.interaction = Interaction::Headless;
    let calls = [call("c1", "edit", "{}"), call("c2", "write", "{}")];
    let mut b = world.batch(&calls, Approvals::default());
    let fx = b.step(Input::Start);
    let r = finished(&fx).unwrap();
    assert_eq!(
        r.results[0].content(),
        approval::non_interactive_rejection("edit")
    );
    assert_eq!(
        r.results[1].content(),
        approval::non_interactive_caution("write", "`x` is OUTSIDE the working directory")
    );
}

#[test]
fn shared_handlers_set_up_once_exit_once_and_still_ask_for_every_call() {
    let mut t = plain("t").asking();
    t.opts.use_handlers_once = Some(true);
    let log = t.log.clone();
    let world = World::new(vec![t]);
    let calls = [
        call("c1", "t", "{}"),
        call("c2", "t", "{}"),
        call("c3", "t", "{}"),
    ];
    let mut b = world.batch(&calls, Approvals::default());
    assert_eq!(words(&b.step(Input::Start)), ["ask c1 1/3"]);
    b.step(accept());
    assert_eq!(words(&b.step(ok("1"))), ["end c1 success", "ask c2 2/3"]);
    b.step(accept());
    // The run ends at the first error: c3 sets up again.
    let fx = b.step(Input::Command(CmdResult::err("bad")));
    assert_eq!(words(&fx), ["end c2 error", "ask c3 3/3"]);
    b.step(accept());
    b.step(ok("3"));
    assert_eq!(
        *log.lock().unwrap(),
        [
            "c1 setup",
            "c1 success",
            "c2 error",
            "c2 exit",
            "c3 setup",
            "c3 success",
            "c3 exit"
        ]
    );
}

#[test]
fn a_setup_error_fails_the_call_without_asking() {
    let world = World::new(vec![Fake {
        setup_error: Some("no args".into()),
        ..plain("t").asking()
    }]);
    let mut b = world.batch(&[call("c1", "t", "{}")], Approvals::default());
    let fx = b.step(Input::Start);
    assert_eq!(words(&fx), ["end c1 error", "done"]);
    assert_eq!(
        finished(&fx).unwrap().results[0].content(),
        "failed: no args"
    );
}

#[test]
fn the_mode_read_for_each_decision_is_the_current_one() {
    let world = World::new(vec![plain("edit").asking()]);
    let calls = [call("c1", "edit", "{}"), call("c2", "edit", "{}")];
    let mut b = world.batch(&calls, Approvals::default());
    assert_eq!(words(&b.step(Input::Start)), ["ask c1 1/2"]);
    b.set_mode(Mode::Auto);
    b.step(accept());
    assert_eq!(words(&b.step(ok("1"))), ["end c1 success", "run c2"]);
}

/// The hooks a batch calls, in order: a stop ends the call at the cursor as a Cancel in the
/// modal does (`on_cancelled`, then `on_exit` once after its `setup`), wherever it waited.
#[test]
fn a_stop_keeps_the_callback_order_of_cancel() {
    let exit_last = vec!["c1 setup", "c1 cancelled", "c1 exit", "c2 cancelled"];
    /// (row, the tool, auto mode, the inputs after Start, the hooks called).
    type StopRow = (&'static str, Fake, bool, Vec<Input>, Vec<&'static str>);
    let rows: Vec<StopRow> = vec![
        (
            "cancel in approval (the order a stop keeps)",
            plain("t").asking(),
            false,
            vec![Input::Choice(UserChoice::Cancel)],
            exit_last.clone(),
        ),
        (
            "stop in approval",
            plain("t").asking(),
            false,
            vec![Input::Stop],
            exit_last.clone(),
        ),
        (
            "stop in judge",
            shell_like(),
            true,
            vec![Input::Stop],
            exit_last.clone(),
        ),
        (
            "stop while running",
            plain("t"),
            false,
            vec![Input::Stop],
            exit_last.clone(),
        ),
        (
            "stop while the second command runs",
            Fake {
                commands: 2,
                ..plain("t")
            },
            false,
            vec![ok("a"), Input::Stop],
            vec![
                "c1 setup",
                "c1 success",
                "c1 cancelled",
                "c1 exit",
                "c2 cancelled",
            ],
        ),
    ];
    for (name, tool, auto, inputs, want) in rows {
        let (log, tool_name) = (tool.log.clone(), tool.name.clone());
        let mut world = World::new(vec![tool]);
        if auto {
            world.mode = Mode::Auto;
        }
        let calls = [
            call("c1", &tool_name, &cmd("deploy")),
            call("c2", &tool_name, &cmd("deploy")),
        ];
        let mut b = world.batch(&calls, Approvals::default());
        b.step(Input::Start);
        let mut last = Vec::new();
        for input in inputs {
            last = b.step(input);
        }
        let r = finished(&last).unwrap_or_else(|| panic!("{name}: not finished"));
        assert!(
            r.results.iter().all(|c| c.end == CallEnd::Cancelled),
            "{name}"
        );
        assert_eq!(*log.lock().unwrap(), want, "{name}");
    }
}

/// A config entry's `require_approval_before` wins over the tool's own default and its
/// condition; `Condition` in the config leaves it to the tool's condition.
#[test]
fn the_config_setting_wins_over_the_tools_condition() {
    let conditional = |holds: bool| Fake {
        condition: holds,
        opts: Opts {
            require_approval_before: Some(ApprovalBefore::Condition),
            ..Opts::default()
        },
        ..plain("t")
    };
    // (row, the tool's condition, the config's setting, the first effect)
    let rows = [
        ("the condition says no, no config", false, None, "run c1"),
        (
            "the condition says yes, no config",
            true,
            None,
            "ask c1 1/1",
        ),
        (
            "the condition says no, the config asks",
            false,
            Some(ApprovalBefore::Always),
            "ask c1 1/1",
        ),
        (
            "the condition says yes, the config does not ask",
            true,
            Some(ApprovalBefore::Never),
            "run c1",
        ),
        (
            "the config leaves it to the condition",
            false,
            Some(ApprovalBefore::Condition),
            "run c1",
        ),
    ];
    for (name, holds, config, want) in rows {
        let mut world = World::new(vec![conditional(holds)]);
        let config = Opts {
            require_approval_before: config,
            ..Opts::default()
        };
        assert!(world.registry.set_config_opts("t", config));
        let mut b = world.batch(&[call("c1", "t", "{}")], Approvals::default());
        assert_eq!(words(&b.step(Input::Start)), [want], "{name}");
    }
}

/// A call that fails the argument check gets exactly one result, the check's message, and
/// none of the tool's hooks run (no setup, no exit); the others in the batch go on.
#[test]
fn a_call_failing_the_argument_check_gets_one_result_and_no_hooks() {
    let t = checked(plain("edit").asking());
    let log = t.log.clone();
    let world = World::new(vec![t]);
    let calls = [
        call("c1", "edit", r#"{"cmd": 7, "cmdd": "ls"}"#),
        call("c2", "edit", &cmd("ls")),
    ];
    let mut b = world.batch(&calls, Approvals::default());
    let fx = b.step(Input::Start);
    let outputs: Vec<&str> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Emit(Event::ToolOutput {
                call_id, content, ..
            }) if call_id == "c1" => Some(content.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    assert_eq!(
        outputs[0],
        "You made an error in calling the edit tool, so it did not run:\n\
         - `cmdd` is not an argument of edit here; the ones it takes are `cmd`.\n\
         Call edit again with arguments of this shape: {\"cmd\": string}"
    );
    assert_eq!(words(&fx), ["end c1 error", "ask c2 2/2"]);
    b.step(Input::Choice(UserChoice::Reject(None)));
    assert_eq!(*log.lock().unwrap(), ["c2 setup"]);
}
