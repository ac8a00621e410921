//! The lifecycle's promises over random batches: random tools (settings, gates, forced asks,
//! cautions), calls (some to unknown tools), modes, remembered approvals, allow-lists, judge
//! verdicts, user choices, command errors and stops.
//!
//! - A call reaches "run" only if the decision allowed it (by the pure decision table, with the
//!   memory as it stood), the user accepted that very call, or the judge found it safe after
//!   the decision sent it there; a forced call only after the user accepted it.
//! - Every call id ends with exactly one result, in call order, and one `ToolFinished` event.
//! - After Cancel or a stop, nothing runs any more.
//! - A command runs as confined as [`confinement`] says for how the call came to run (an allow
//!   rule's `sandbox = false` / `network = true`, the safe list, the judge, the user), and
//!   unconfined only if that said so or the user accepted the rerun outside the sandbox for
//!   that very call, right after the sandbox denied it; a rerun is offered only then, never
//!   headless, and Always accept on it remembers nothing.
//! - A call whose arguments do not fit its tool's schema is never set up, judged, asked about
//!   or run: it ends with one error result.
//! - A call whose `setup` ran and that was not rejected gets exactly one `on_exit`, after its
//!   `setup` and after its `on_cancelled` (a Cancel and a stop alike); a call never set up, none.

use proptest::prelude::*;

use super::tests::{Fake, World, call, cmd_schema};
use super::*;
use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};
use crate::tools::lifecycle::requests::Remember;
use crate::tools::policy::approval::{CallFacts, Decision, Grounds, call_key};
use crate::tools::policy::confinement::{Grant, confinement};
use crate::tools::policy::rules::Rules;
use crate::tools::tool::Kind;

#[derive(Debug, Clone)]
struct ToolPlan {
    asking: bool,
    cmd_approval: bool,
    protect: bool,
    safe: Option<bool>,
    judge: bool,
    forced: bool,
    caution: bool,
    kind: Kind,
    /// A tool-wide allow rule, and its `sandbox = false` and `network = true`.
    rule: Option<(bool, bool)>,
}

fn tool_plan() -> impl Strategy<Value = ToolPlan> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(any::<bool>()),
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
        prop::sample::select(vec![
            Kind::ReadOnly,
            Kind::FileEdit,
            Kind::Shell,
            Kind::Shell,
            Kind::Network,
            Kind::Other,
        ]),
        prop::option::weighted(0.3, (any::<bool>(), any::<bool>())),
    )
        .prop_map(
            |(asking, cmd_approval, protect, safe, judge, forced, caution, kind, rule)| ToolPlan {
                asking,
                cmd_approval,
                protect,
                safe,
                judge,
                forced,
                caution,
                kind,
                rule,
            },
        )
}

fn fake(i: usize, p: &ToolPlan) -> Fake {
    let mut t = Fake::new(&format!("t{i}"));
    t.schema = Some(cmd_schema());
    t.opts.require_approval_before = Some(p.asking.into());
    t.opts.require_cmd_approval = Some(p.cmd_approval);
    t.opts.protect = Some(p.protect);
    t.opts.judge = Some(p.judge);
    t.safe = p.safe;
    t.judge = p.judge;
    t.must_ask = p.forced.then(|| "forced".to_owned());
    t.caution = p.caution.then(|| "caution".to_owned());
    t.kind = p.kind;
    t
}

/// What is remembered for the call of `name` with `{"cmd": cmd}` (the fakes' arguments).
fn key(name: &str, p: &ToolPlan, cmd: &str) -> String {
    call_key(name, p.kind, cmd, &serde_json::json!({ "cmd": cmd }))
}

/// The facts the batch computes for a call of `p` (mirrors [`Batch::facts`] for fakes; the
/// rule is the world's rules asked about the call, as the batch asks them).
fn facts(name: &str, cmd: &str, p: &ToolPlan, world: &World) -> CallFacts {
    let args = serde_json::json!({ "cmd": cmd });
    let rule = world.registry.get(name).and_then(|entry| {
        let inv = Invocation {
            name: name.into(),
            args: args.clone(),
            function_call: call("probe", name, &args.to_string()),
            opts: entry.opts(),
            cwd: std::path::PathBuf::from("/nonexistent"),
            ctx: Default::default(),
        };
        world.rules.check(&inv, cmd, entry.tool.as_ref())
    });
    CallFacts {
        tool: name.into(),
        cmd_string: cmd.into(),
        call_key: key(name, p, cmd),
        requires_approval: p.asking,
        require_cmd_approval: p.cmd_approval,
        protect: p.protect,
        is_safe: p.safe,
        judge_allowed: world.judge && p.judge,
        allowed: world.allowed.contains(name),
        force_ask: p.forced.then(|| "forced".to_owned()),
        caution: p.caution.then(|| "caution".to_owned()),
        kind: p.kind,
        is_question: false,
        reads_outside: None,
        rule,
        // The test world's tools run with the sandbox off.
        sandboxed: false,
    }
}

#[derive(Debug, Clone)]
enum Answer {
    Always,
    Accept,
    Reject,
    Cancel,
    Safe,
    Unsafe,
    Ok,
    Fail,
    Denied,
    Stop,
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        3 => Just(Answer::Always),
        3 => Just(Answer::Accept),
        2 => Just(Answer::Reject),
        1 => Just(Answer::Cancel),
        3 => Just(Answer::Safe),
        3 => Just(Answer::Unsafe),
        5 => Just(Answer::Ok),
        2 => Just(Answer::Fail),
        3 => Just(Answer::Denied),
        1 => Just(Answer::Stop),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    tools: Vec<ToolPlan>,
    /// (tool index or an unknown tool, command, arguments that fail the schema).
    calls: Vec<(Option<usize>, usize, bool)>,
    mode: Mode,
    headless: bool,
    judge: bool,
    allowed: Vec<bool>,
    remembered: Vec<(usize, usize)>,
    answers: Vec<Answer>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(tool_plan(), 1..4),
        prop::collection::vec(
            (
                prop::option::weighted(0.9, 0..4usize),
                0..3usize,
                prop::bool::weighted(0.2),
            ),
            1..7,
        ),
        prop::sample::select(Mode::ALL.to_vec()),
        prop::bool::weighted(0.25),
        any::<bool>(),
        prop::collection::vec(prop::bool::weighted(0.15), 4),
        prop::collection::vec((0..4usize, 0..3usize), 0..3),
        prop::collection::vec(answer(), 40),
    )
        .prop_map(
            |(tools, calls, mode, headless, judge, allowed, remembered, answers)| Case {
                tools,
                calls,
                mode,
                headless,
                judge,
                allowed,
                remembered,
                answers,
            },
        )
}

const COMMANDS: [&str; 3] = ["ls", "make", "rm -rf x"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn nothing_runs_unless_allowed_and_every_call_ends_once(c in case()) {
        let n_tools = c.tools.len();
        // One log for every tool: each line is "CALL_ID HOOK".
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut world = World::new(
            c.tools
                .iter()
                .enumerate()
                .map(|(i, p)| Fake { log: log.clone(), ..fake(i, p) })
                .collect(),
        );
        let specs: Vec<RuleSpec> = c.tools.iter().enumerate().filter_map(|(i, p)| {
            p.rule.map(|(unsandboxed, network)| RuleSpec {
                tool: format!("t{i}"),
                target: RuleTarget::Any,
                decision: RuleDecision::Allow,
                source: format!("config.toml:{i}"),
                project: false,
                unsandboxed,
                network,
            })
        }).collect();
        world.rules = SharedRules::new(Rules::new(&specs));
        world.mode = c.mode;
        world.interaction = if c.headless { Interaction::Headless } else { Interaction::Interactive };
        world.judge = c.judge;
        for (i, a) in c.allowed.iter().enumerate().take(n_tools) {
            if *a {
                world.allowed.insert(format!("t{i}"));
            }
        }
        let mut memory = Approvals::default();
        for (t, k) in &c.remembered {
            if *t < n_tools {
                let name = format!("t{t}");
                let cmd_key = key(&name, &c.tools[*t], COMMANDS[*k]);
                memory.always(&name, &cmd_key, c.tools[*t].cmd_approval);
            }
        }
        let calls: Vec<ToolCall> = c.calls.iter().enumerate().map(|(i, (t, k, bad))| {
            let name = match t {
                Some(t) if *t < n_tools => format!("t{t}"),
                _ => "unknown".to_owned(),
            };
            let field = if *bad { "command" } else { "cmd" };
            call(&format!("c{i}"), &name, &serde_json::json!({field: COMMANDS[*k]}).to_string())
        }).collect();
        // A known tool's call whose arguments fail its schema (an unknown tool's is not found).
        let bad = |id: &str| -> bool {
            id[1..].parse::<usize>().ok().and_then(|i| c.calls.get(i))
                .is_some_and(|(t, _, b)| *b && t.is_some_and(|t| t < n_tools))
        };
        let plan_of = |id: &str| -> Option<(usize, &ToolPlan, &str)> {
            let i: usize = id[1..].parse().ok()?;
            let (t, k, bad) = c.calls[i];
            let t = t.filter(|t| *t < n_tools && !bad)?;
            Some((t, &c.tools[t], COMMANDS[k]))
        };

        let mut batch = world.batch(&calls, memory.clone());
        let mut answers = c.answers.iter().cycle();
        let mut input = Input::Start;
        // Per call: the user accepted it / the judge found it safe, since its decision.
        let mut accepted: Option<String> = None;
        let mut judged_safe: Option<String> = None;
        // The confinement each call's decision gave it, at its first run.
        let mut confined: std::collections::HashMap<String, Confinement> = Default::default();
        // The last run (call, confinement) was denied by the sandbox.
        let mut denied: Option<(String, Confinement)> = None;
        // The user accepted the rerun outside for this call; its next run may be unconfined.
        let mut rerun_accepted: Option<String> = None;
        let mut ran: Vec<String> = Vec::new();
        let mut finished_events: Vec<String> = Vec::new();
        let mut over = false;
        let mut result = None;
        for _ in 0..500 {
            let effects = batch.step(input.clone());
            let mut next = None;
            for e in &effects {
                match e {
                    Effect::Emit(Event::ToolFinished { call_id, .. }) => finished_events.push(call_id.clone()),
                    Effect::Run { inv, confine, .. } => {
                        let id = inv.function_call.id.clone();
                        prop_assert!(!over, "{id} ran after a cancel or stop");
                        prop_assert!(!bad(&id), "{id} failed the argument check but ran");
                        if !ran.contains(&id) {
                            let (t, p, cmd) = plan_of(&id).expect("only known tools run");
                            let name = format!("t{t}");
                            let by_user = accepted.as_deref() == Some(id.as_str());
                            let by_judge = judged_safe.as_deref() == Some(id.as_str());
                            let f = facts(&name, cmd, p, &world);
                            let (decision, grounds) = approval::decide_on(&f, world.mode, &memory, world.interaction);
                            let by_decision = decision == Decision::Run;
                            prop_assert!(by_user || by_judge || by_decision, "{id} ran unapproved: {f:?}");
                            let grant = if by_decision {
                                Grant::Decided(grounds.unwrap_or(Grounds::Mode))
                            } else if by_user {
                                Grant::User
                            } else {
                                Grant::Judge
                            };
                            confined.insert(id.clone(), confinement(&f, world.mode, grant));
                            if p.forced {
                                prop_assert!(by_user, "forced {id} ran without the user");
                            }
                            if by_judge {
                                memory.always(&name, &key(&name, p, cmd), true);
                            }
                            ran.push(id.clone());
                        }
                        let decided = confined.get(&id).copied().unwrap_or_default();
                        if rerun_accepted.take().as_deref() == Some(id.as_str()) {
                            prop_assert_eq!(*confine, Confinement::Unconfined, "{}: the accepted rerun", &id);
                        } else {
                            prop_assert_eq!(*confine, decided, "{}: confined as decided", &id);
                        }
                        if *confine == Confinement::Unconfined {
                            prop_assert!(decided == Confinement::Unconfined || denied.as_ref().is_some_and(|(d, _)| *d == id), "{} ran unconfined", &id);
                        }
                        denied = None;
                        next = Some(match answers.next() {
                            Some(Answer::Fail) => Input::Command(CmdResult::err("x")),
                            Some(Answer::Denied) => {
                                denied = Some((id.clone(), *confine));
                                Input::Denied { error: Output::text("denied"), denial: Denial { what: "a write".into(), kind: crate::sandbox::DenialKind::Write, path: None, address: None } }
                            }
                            Some(Answer::Stop) => { over = true; Input::Stop }
                            _ => Input::Command(CmdResult::ok("ok")),
                        });
                    }
                    Effect::AskUser(a) if a.rerun.is_some() => {
                        prop_assert!(!c.headless, "{}: a rerun offered headless", a.call_id);
                        prop_assert_eq!(&a.remember, &Remember::Nothing);
                        prop_assert!(
                            denied.as_ref().is_some_and(|(d, conf)| *d == a.call_id && *conf != Confinement::Unconfined),
                            "{}: a rerun offered without a denial of a confined run", a.call_id
                        );
                        next = Some(match answers.next() {
                            Some(Answer::Always) => {
                                rerun_accepted = Some(a.call_id.clone());
                                Input::Choice(UserChoice::AlwaysAccept)
                            }
                            Some(Answer::Accept | Answer::Ok | Answer::Safe) => {
                                rerun_accepted = Some(a.call_id.clone());
                                Input::Choice(UserChoice::Accept)
                            }
                            Some(Answer::Cancel) => { over = true; Input::Choice(UserChoice::Cancel) }
                            Some(Answer::Stop) => { over = true; Input::Stop }
                            _ => Input::Choice(UserChoice::Reject(None)),
                        });
                    }
                    Effect::AskUser(a) => {
                        prop_assert!(!bad(&a.call_id), "{} failed the argument check but was asked about", a.call_id);
                        let (t, p, cmd) = plan_of(&a.call_id).expect("a known tool");
                        next = Some(match answers.next() {
                            Some(Answer::Always) => {
                                if !p.forced {
                                    let name = format!("t{t}");
                                    memory.always(&name, &key(&name, p, cmd), p.cmd_approval);
                                }
                                accepted = Some(a.call_id.clone());
                                Input::Choice(UserChoice::AlwaysAccept)
                            }
                            Some(Answer::Accept | Answer::Ok | Answer::Safe) => {
                                accepted = Some(a.call_id.clone());
                                Input::Choice(UserChoice::Accept)
                            }
                            Some(Answer::Cancel) => { over = true; Input::Choice(UserChoice::Cancel) }
                            Some(Answer::Stop) => { over = true; Input::Stop }
                            _ => Input::Choice(UserChoice::Reject(None)),
                        });
                    }
                    Effect::AskJudge { .. } => {
                        let id = calls[finished_events.len()].id.clone();
                        prop_assert!(!bad(&id), "{id} failed the argument check but was judged");
                        next = Some(match answers.next() {
                            Some(Answer::Safe | Answer::Ok) => {
                                judged_safe = Some(id);
                                Input::Verdict(Verdict { safe: true, reason: "fine".into() })
                            }
                            Some(Answer::Stop) => { over = true; Input::Stop }
                            _ => Input::Verdict(Verdict { safe: false, reason: "no".into() }),
                        });
                    }
                    Effect::Finish(r) => result = Some(r.clone()),
                    Effect::Emit(_) => {}
                }
            }
            if result.is_some() {
                break;
            }
            input = next.expect("a step that does not finish asks for something");
        }
        let r = result.expect("the batch finished");
        let ids: Vec<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        let got: Vec<&str> = r.results.iter().map(|c| c.call_id.as_str()).collect();
        prop_assert_eq!(&got, &ids);
        prop_assert_eq!(finished_events.iter().map(String::as_str).collect::<Vec<_>>(), ids);
        prop_assert!(r.results.iter().all(|c| !c.content().is_empty()));
        for res in r.results.iter().filter(|res| bad(&res.call_id)) {
            prop_assert_eq!(res.end, CallEnd::Error, "{}", res.call_id);
            prop_assert!(res.content().contains("`cmd` is missing"), "{}", res.content());
            prop_assert!(!ran.contains(&res.call_id));
        }
        let log = log.lock().map(|l| l.clone()).unwrap_or_default();
        for res in &r.results {
            let hooks: Vec<&str> = log
                .iter()
                .filter_map(|l| l.strip_prefix(&format!("{} ", res.call_id)))
                .collect();
            let at = |h: &str| hooks.iter().position(|x| *x == h);
            let exits = hooks.iter().filter(|h| **h == "exit").count();
            if bad(&res.call_id) {
                prop_assert!(hooks.is_empty(), "{}: {:?}", res.call_id, hooks);
            }
            match at("setup") {
                Some(setup) if res.end != CallEnd::Rejected => {
                    prop_assert_eq!(exits, 1, "{}: {:?}", res.call_id, hooks);
                    let exit = at("exit").unwrap_or_default();
                    prop_assert!(setup < exit, "{}: {:?}", res.call_id, hooks);
                    if let Some(cancelled) = at("cancelled") {
                        prop_assert!(cancelled < exit, "{}: {:?}", res.call_id, hooks);
                    }
                }
                _ => prop_assert_eq!(exits, 0, "{}: {:?}", res.call_id, hooks),
            }
        }
    }
}
