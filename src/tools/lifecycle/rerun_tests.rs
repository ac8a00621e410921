//! The sandbox in the call lifecycle, as tables of input sequences: how confined each call
//! runs (an allow rule's `sandbox = false` / `network = true`, the safe list in auto, the
//! judge, the user), and a denial followed by each answer to the rerun offer.

use super::tests::{Fake, World, accept, call, cmd, finished, ok, plain, shell_like, words};
use super::*;
use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};
use crate::tools::lifecycle::rerun_offer::{
    rerun_accepted, rerun_declined, rerun_unavailable, rules,
};
use crate::tools::policy::rules::Rules;
use crate::tools::tool::Kind;

fn denial() -> Denial {
    Denial {
        what: "a write to /elsewhere/x (outside the places this command may write)".into(),
        kind: crate::sandbox::DenialKind::Write,
        path: Some("/elsewhere/x".into()),
        address: None,
    }
}

fn denied(text: &str) -> Input {
    Input::Denied {
        error: Output::text(text),
        denial: denial(),
    }
}

/// A shell tool that asks, as `run_command` does.
fn shell() -> Fake {
    Fake {
        kind: Kind::Shell,
        ..shell_like()
    }
}

/// An allow rule for `sh` running `cmd`, with its sandbox fields.
fn allow(cmd: &str, unsandboxed: bool, network: bool) -> SharedRules {
    SharedRules::new(Rules::new(&[RuleSpec {
        tool: "sh".into(),
        target: RuleTarget::Command(cmd.into()),
        decision: RuleDecision::Allow,
        source: "config.toml:1".into(),
        project: false,
        unsandboxed,
        network,
    }]))
}

fn with(mut w: World, f: impl FnOnce(&mut World)) -> World {
    f(&mut w);
    w
}

struct Row {
    name: &'static str,
    world: World,
    calls: Vec<ToolCall>,
    /// Each input, and the words expected from it (Start's first).
    steps: Vec<(Input, Vec<&'static str>)>,
    /// The first call's result, when it matters.
    content: Option<String>,
}

fn run(row: Row) {
    let mut batch = row.world.batch(&row.calls, Approvals::default());
    let mut last = None;
    for (i, (input, want)) in row.steps.into_iter().enumerate() {
        let fx = batch.step(input);
        assert_eq!(words(&fx), want, "{}: step {i}", row.name);
        if let Some(r) = finished(&fx) {
            last = Some(r.clone());
        }
    }
    let r = last.unwrap_or_else(|| panic!("{}: the batch did not finish", row.name));
    if let Some(content) = row.content {
        assert_eq!(r.results[0].content(), content, "{}", row.name);
    }
    // A rerun outside is never remembered, whatever was answered.
    let memory = batch.into_memory();
    assert!(
        !memory.is_approved("sh", "npm install", true),
        "{}",
        row.name
    );
}

#[test]
fn each_call_runs_as_confined_as_its_decision_says() {
    let auto = |w: World| with(w, |w| w.mode = Mode::Auto);
    let rows = vec![
        Row {
            name: "an allow rule with sandbox = false runs unconfined",
            world: with(World::new(vec![shell()]), |w| {
                w.rules = allow("npm install", true, false)
            }),
            calls: vec![call("c1", "sh", &cmd("npm install"))],
            steps: vec![
                (Input::Start, vec!["run c1 unconfined"]),
                (ok("i"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "an allow rule with network = true runs with the network",
            world: with(World::new(vec![shell()]), |w| {
                w.rules = allow("npm install", false, true)
            }),
            calls: vec![call("c1", "sh", &cmd("npm install"))],
            steps: vec![
                (Input::Start, vec!["run c1 with_network"]),
                (ok("i"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "a plain allow rule runs as the policy says",
            world: with(World::new(vec![shell()]), |w| {
                w.rules = allow("npm install", false, false)
            }),
            calls: vec![call("c1", "sh", &cmd("npm install"))],
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (ok("i"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "the rule covers only its command: another asks and runs confined",
            world: with(World::new(vec![shell()]), |w| {
                w.rules = allow("npm install", true, false)
            }),
            calls: vec![call("c1", "sh", &cmd("make"))],
            steps: vec![
                (Input::Start, vec!["ask c1 1/1"]),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (ok("m"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "auto: the safe list runs a shell command read-only",
            world: auto(World::new(vec![Fake {
                safe: Some(true),
                ..shell()
            }])),
            calls: vec![call("c1", "sh", &cmd("git status"))],
            steps: vec![
                (Input::Start, vec!["run c1 read_only"]),
                (ok("s"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "auto: a command the judge found safe runs as the policy says",
            world: auto(World::new(vec![shell()])),
            calls: vec![call("c1", "sh", &cmd("make"))],
            steps: vec![
                (Input::Start, vec!["judge sh make"]),
                (
                    Input::Verdict(Verdict {
                        safe: true,
                        reason: "builds".into(),
                    }),
                    vec!["run c1"],
                ),
                (ok("b"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "plan mode: a safe command the user accepted runs read-only",
            world: with(
                World::new(vec![Fake {
                    safe: Some(true),
                    ..shell()
                }]),
                |w| w.plan = true,
            ),
            calls: vec![call("c1", "sh", &cmd("git status"))],
            steps: vec![
                (Input::Start, vec!["ask c1 1/1"]),
                (accept(), vec!["decided c1 accept", "run c1 read_only"]),
                (ok("s"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "plan mode: even an allow rule's sandbox = false runs read-only",
            world: with(
                World::new(vec![Fake {
                    safe: Some(true),
                    ..shell()
                }]),
                |w| {
                    w.plan = true;
                    w.rules = allow("git status", true, false);
                },
            ),
            calls: vec![call("c1", "sh", &cmd("git status"))],
            steps: vec![
                (Input::Start, vec!["run c1 read_only"]),
                (ok("s"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "balanced: a safe command the user accepted runs as the policy says",
            world: World::new(vec![Fake {
                safe: Some(true),
                ..shell()
            }]),
            calls: vec![call("c1", "sh", &cmd("git status"))],
            steps: vec![
                (Input::Start, vec!["ask c1 1/1"]),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (ok("s"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "trust: a command runs as the policy says",
            world: with(World::new(vec![shell()]), |w| w.mode = Mode::Trust),
            calls: vec![call("c1", "sh", &cmd("make deploy"))],
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (ok("d"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
    ];
    for row in rows {
        run(row);
    }
}

#[test]
fn a_denial_offers_a_rerun_outside_and_each_answer_does_what_it_says() {
    let trust = |w: World| with(w, |w| w.mode = Mode::Trust);
    let rows = vec![
        Row {
            name: "accept: the same command runs once unconfined; its result is the call's",
            world: World::new(vec![shell()]),
            calls: vec![call("c1", "sh", &cmd("touch /elsewhere/x"))],
            steps: vec![
                (Input::Start, vec!["ask c1 1/1"]),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (denied("read-only file system"), vec!["ask c1 1/1 rerun"]),
                (accept(), vec!["decided c1 accept", "run c1 unconfined"]),
                (ok("made"), vec!["end c1 success", "done"]),
            ],
            content: Some(format!("made\n\n{}", rerun_accepted(&denial()))),
        },
        Row {
            name: "always accept is accept: nothing is remembered",
            world: World::new(vec![shell()]),
            calls: vec![
                call("c1", "sh", &cmd("npm install")),
                call("c2", "sh", &cmd("npm install")),
            ],
            steps: vec![
                (Input::Start, vec!["ask c1 1/2"]),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (denied("EROFS"), vec!["ask c1 1/2 rerun"]),
                (
                    Input::Choice(UserChoice::AlwaysAccept),
                    vec!["decided c1 always_accept", "run c1 unconfined"],
                ),
                // The same command next still asks, and runs confined.
                (ok("i"), vec!["end c1 success", "ask c2 2/2"]),
                (accept(), vec!["decided c2 accept", "run c2"]),
                (ok("j"), vec!["end c2 success", "done"]),
            ],
            content: Some(format!("i\n\n{}", rerun_accepted(&denial()))),
        },
        Row {
            name: "reject with a reason: the failure and a line saying so go to the model",
            world: World::new(vec![shell()]),
            calls: vec![call("c1", "sh", &cmd("touch /elsewhere/x"))],
            steps: vec![
                (Input::Start, vec!["ask c1 1/1"]),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (
                    denied("touch: read-only file system"),
                    vec!["ask c1 1/1 rerun"],
                ),
                (
                    Input::Choice(UserChoice::Reject(Some("keep it inside".into()))),
                    vec!["decided c1 reject", "end c1 error", "done"],
                ),
            ],
            content: Some(format!(
                "failed: touch: read-only file system\n\n{}",
                rerun_declined(&denial(), Some("keep it inside"))
            )),
        },
        Row {
            name: "cancel: the call and the rest of the batch are cancelled",
            world: World::new(vec![shell(), plain("read")]),
            calls: vec![
                call("c1", "sh", &cmd("touch /elsewhere/x")),
                call("c2", "read", "{}"),
            ],
            steps: vec![
                (Input::Start, vec!["ask c1 1/2"]),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (denied("EROFS"), vec!["ask c1 1/2 rerun"]),
                (
                    Input::Choice(UserChoice::Cancel),
                    vec![
                        "decided c1 cancel",
                        "end c1 cancelled",
                        "end c2 cancelled",
                        "done",
                    ],
                ),
            ],
            content: Some("cancelled c1".into()),
        },
        Row {
            name: "a stop during the rerun ask cancels, nothing more runs",
            world: World::new(vec![shell(), plain("read")]),
            calls: vec![
                call("c1", "sh", &cmd("touch /elsewhere/x")),
                call("c2", "read", "{}"),
            ],
            steps: vec![
                (Input::Start, vec!["ask c1 1/2"]),
                (accept(), vec!["decided c1 accept", "run c1"]),
                (denied("EROFS"), vec!["ask c1 1/2 rerun"]),
                (
                    Input::Stop,
                    vec!["end c1 cancelled", "end c2 cancelled", "done"],
                ),
            ],
            content: Some("cancelled c1".into()),
        },
        Row {
            name: "headless: no offer; the failure and a line saying no one can approve",
            world: with(World::new(vec![shell()]), |w| {
                w.interaction = Interaction::Headless;
                w.rules = allow("touch *", false, false);
            }),
            calls: vec![call("c1", "sh", &cmd("touch /elsewhere/x"))],
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (denied("EROFS"), vec!["end c1 error", "done"]),
            ],
            content: Some(format!(
                "failed: EROFS\n\n{}",
                rerun_unavailable(
                    &denial(),
                    rules("sh", "touch /elsewhere/x", &denial())
                        .choices
                        .first()
                        .map(Vec::as_slice)
                )
            )),
        },
        Row {
            name: "trust: the rerun still asks",
            world: trust(World::new(vec![shell()])),
            calls: vec![call("c1", "sh", &cmd("touch /elsewhere/x"))],
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (denied("EROFS"), vec!["ask c1 1/1 rerun"]),
                (accept(), vec!["decided c1 accept", "run c1 unconfined"]),
                (ok("t"), vec!["end c1 success", "done"]),
            ],
            content: Some(format!("t\n\n{}", rerun_accepted(&denial()))),
        },
        Row {
            name: "auto: after the judge's safe verdict, the rerun still asks",
            world: with(World::new(vec![shell()]), |w| w.mode = Mode::Auto),
            calls: vec![call("c1", "sh", &cmd("make"))],
            steps: vec![
                (Input::Start, vec!["judge sh make"]),
                (
                    Input::Verdict(Verdict {
                        safe: true,
                        reason: "builds".into(),
                    }),
                    vec!["run c1"],
                ),
                (denied("EROFS"), vec!["ask c1 1/1 rerun"]),
                (
                    Input::Choice(UserChoice::Reject(None)),
                    vec!["decided c1 reject", "end c1 error", "done"],
                ),
            ],
            content: Some(format!(
                "failed: EROFS\n\n{}",
                rerun_declined(&denial(), None)
            )),
        },
        Row {
            name: "a run that was unconfined already is an ordinary failure: no offer",
            world: with(World::new(vec![shell()]), |w| {
                w.rules = allow("npm install", true, false)
            }),
            calls: vec![call("c1", "sh", &cmd("npm install"))],
            steps: vec![
                (Input::Start, vec!["run c1 unconfined"]),
                (denied("EACCES"), vec!["end c1 error", "done"]),
            ],
            content: Some("failed: EACCES".into()),
        },
        Row {
            name: "the rerun denied again is an ordinary failure: one offer per command",
            world: trust(World::new(vec![shell()])),
            calls: vec![call("c1", "sh", &cmd("touch /elsewhere/x"))],
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (denied("first"), vec!["ask c1 1/1 rerun"]),
                (accept(), vec!["decided c1 accept", "run c1 unconfined"]),
                (denied("second"), vec!["end c1 error", "done"]),
            ],
            content: Some(format!("failed: second\n\n{}", rerun_accepted(&denial()))),
        },
        Row {
            name: "the rerun is for the denied command only; the next runs confined again",
            world: trust(World::new(vec![Fake {
                commands: 3,
                ..shell()
            }])),
            calls: vec![call("c1", "sh", &cmd("make all"))],
            steps: vec![
                (Input::Start, vec!["run c1"]),
                (ok("a"), vec!["run c1"]),
                (denied("EROFS"), vec!["ask c1 1/1 rerun"]),
                (accept(), vec!["decided c1 accept", "run c1 unconfined"]),
                (ok("b"), vec!["run c1"]),
                (ok("c"), vec!["end c1 success", "done"]),
            ],
            content: None,
        },
        Row {
            name: "a denial of a read-only run offers the rerun outside too",
            world: with(
                World::new(vec![Fake {
                    safe: Some(true),
                    ..shell()
                }]),
                |w| w.mode = Mode::Auto,
            ),
            calls: vec![call("c1", "sh", &cmd("git status"))],
            steps: vec![
                (Input::Start, vec!["run c1 read_only"]),
                (denied("EROFS"), vec!["ask c1 1/1 rerun"]),
                (accept(), vec!["decided c1 accept", "run c1 unconfined"]),
                (ok("s"), vec!["end c1 success", "done"]),
            ],
            content: Some(format!("s\n\n{}", rerun_accepted(&denial()))),
        },
    ];
    for row in rows {
        run(row);
    }
}

/// The rerun ask says what the sandbox denied, offers the same command once (Always accept
/// remembers nothing), and its answers keep the hooks' order: a rerun is not a new call.
#[test]
fn the_rerun_ask_names_the_denial_and_the_hooks_run_once() {
    let t = Fake {
        kind: Kind::Shell,
        ..plain("sh")
    };
    let log = t.log.clone();
    let world = with(World::new(vec![t]), |w| w.mode = Mode::Trust);
    let mut b = world.batch(&[call("c1", "sh", &cmd("touch /x"))], Approvals::default());
    b.step(Input::Start);
    let fx = b.step(denied("EROFS"));
    let ask = fx
        .iter()
        .find_map(|e| match e {
            Effect::AskUser(a) => Some(a.clone()),
            _ => None,
        })
        .expect("a rerun ask");
    assert_eq!(ask.rerun, Some(denial()));
    assert_eq!(
        ask.remember,
        crate::tools::lifecycle::requests::Remember::Nothing
    );
    assert_eq!(ask.cmd_string, "touch /x");
    let caution = ask.caution.clone().unwrap_or_default();
    assert!(
        caution.contains("denied a write to /elsewhere/x"),
        "{caution}"
    );
    assert!(caution.contains("outside the sandbox"), "{caution}");
    let requested = fx.iter().any(|e| {
        matches!(e, Effect::Emit(Event::ApprovalRequested { caution: Some(c), .. }) if *c == caution)
    });
    assert!(requested, "the request is announced with its caution");
    b.step(accept());
    b.step(ok("done"));
    assert_eq!(*log.lock().unwrap(), ["c1 setup", "c1 success", "c1 exit"]);
}

/// Every outcome of a denial is one result with one output (one `tool_output` event in
/// `--json`): the line about the sandbox joins the failure's or the rerun's output.
#[test]
fn every_outcome_of_a_denial_is_one_output() {
    let headless = with(World::new(vec![shell()]), |w| {
        w.interaction = Interaction::Headless;
        w.rules = allow("touch *", false, false);
    });
    let trust = || with(World::new(vec![shell()]), |w| w.mode = Mode::Trust);
    let failed = Input::Failed {
        error: Output::text("Read-only file system"),
        note: "This command ran inside the sandbox (…), which may have caused this failure".into(),
    };
    // (name, world, inputs after Start, what the one output holds)
    let rows: Vec<(&str, World, Vec<Input>, &str)> = vec![
        (
            "headless",
            headless,
            vec![denied("EROFS")],
            "no one can approve",
        ),
        (
            "declined",
            trust(),
            vec![denied("EROFS"), Input::Choice(UserChoice::Reject(None))],
            "declined to rerun",
        ),
        (
            "accepted",
            trust(),
            vec![denied("EROFS"), accept(), ok("made")],
            "The first run, inside the sandbox, failed",
        ),
        (
            "unsure",
            trust(),
            vec![failed],
            "may have caused this failure",
        ),
    ];
    for (name, world, inputs, holds) in rows {
        let mut b = world.batch(
            &[call("c1", "sh", &cmd("touch /elsewhere/x"))],
            Approvals::default(),
        );
        let mut outputs = Vec::new();
        for input in std::iter::once(Input::Start).chain(inputs) {
            for e in b.step(input) {
                if let Effect::Emit(Event::ToolOutput {
                    content, display, ..
                }) = e
                {
                    outputs.push((content, display));
                }
            }
        }
        assert_eq!(outputs.len(), 1, "{name}: {outputs:?}");
        let (content, display) = &outputs[0];
        assert!(content.contains(holds), "{name}: {content}");
        let shown = display.as_deref().unwrap_or(content);
        assert!(shown.contains(holds), "{name}: shown {shown}");
    }
}
