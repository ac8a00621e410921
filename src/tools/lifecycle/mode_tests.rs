//! A batch and the mode (issue 36.7, 36.9, 37.5): what was remembered is forgotten when the
//! mode changes mid-batch, a judge's verdict that arrives after a switch out of auto does not
//! run the call, a command tool goes through the gates in auto, a safe-list command runs
//! read-only in balanced inside a sandbox, and every unasked run says why.

use std::sync::Arc;

use serde_json::Value;

use super::tests::{Fake, World, accept, call, cmd, ok, words};
use super::*;
use crate::config::opts::Opts;
use crate::events::Unasked;
use crate::sandbox::{Backend, Sandbox};
use crate::tools::context::ToolContext;
use crate::tools::policy::approval::By;
use crate::tools::tool::Kind;

/// `run_command`'s like: a shell tool remembered per command, with the safe list (here: not
/// safe) and the judge.
fn shell_like() -> Fake {
    Fake {
        kind: Kind::Shell,
        ..super::tests::shell_like()
    }
}

fn verdict(safe: bool) -> Input {
    Input::Verdict(Verdict {
        safe,
        reason: "it only builds".into(),
    })
}

/// Why each started call ran unasked (`None`: someone accepted it), in order.
fn unasked_of(fx: &[Effect]) -> Vec<Option<Unasked>> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Emit(Event::ToolStarted { unasked, .. }) => Some(unasked.clone()),
            _ => None,
        })
        .collect()
}

/// A batch of `world`'s tools whose commands a sandbox confines (the backend is named, not
/// probed: nothing runs here).
fn sandboxed_batch(world: &World, calls: &[ToolCall]) -> Batch {
    let sandbox = Sandbox {
        backend: Backend::Landlock(4),
        settings: crate::sandbox::Settings::default(),
        ..Sandbox::off()
    };
    let ctx = Arc::new(ToolContext {
        sandbox: Arc::new(sandbox),
        ..ToolContext::default()
    });
    let make_inv = |call: &ToolCall, args: Value, opts: Opts| Invocation {
        name: call.name.clone(),
        args,
        function_call: call.clone(),
        opts,
        cwd: std::path::PathBuf::from("/nonexistent"),
        ctx: ctx.clone(),
    };
    let batch_ctx = BatchContext {
        registry: &world.registry,
        active: &world.active,
        allowed: &world.allowed,
        mode: world.mode,
        plan: world.plan,
        interaction: world.interaction,
        judge: world.judge,
        rules: &world.rules,
        make_inv: &make_inv,
    };
    Batch::new(calls, &batch_ctx, Approvals::default())
}

#[test]
fn always_accept_is_forgotten_when_the_mode_changes_there_and_back_mid_batch() {
    let world = World::new(vec![shell_like()]);
    let calls = [
        call("c1", "sh", &cmd("make")),
        call("c2", "sh", &cmd("make")),
        call("c3", "sh", &cmd("make")),
    ];
    let mut b = world.batch(&calls, Approvals::default());
    assert_eq!(words(&b.step(Input::Start)), ["ask c1 1/3"]);
    b.step(Input::Choice(UserChoice::AlwaysAccept));
    let fx = b.step(ok("1"));
    assert_eq!(
        words(&fx),
        ["end c1 success", "run c2"],
        "remembered in balanced, it runs in balanced"
    );
    assert_eq!(
        unasked_of(&fx),
        [Some(Unasked::Remembered {
            mode: Mode::Balanced
        })]
    );
    // The engine saw the mode switched (to auto and back) while c2 ran.
    b.forget();
    assert_eq!(words(&b.step(ok("2"))), ["end c2 success", "ask c3 3/3"]);
    assert!(!b.into_memory().is_approved("sh", "make", true));
}

#[test]
fn a_switch_of_mode_drops_what_the_batch_remembered() {
    let world = World::new(vec![shell_like()]);
    let calls = [
        call("c1", "sh", &cmd("make")),
        call("c2", "sh", &cmd("make")),
    ];
    let mut b = world.batch(&calls, Approvals::default());
    b.step(Input::Start);
    b.step(Input::Choice(UserChoice::AlwaysAccept));
    b.set_mode(Mode::Suggest);
    assert_eq!(words(&b.step(ok("1"))), ["end c1 success", "ask c2 2/2"]);
}

#[test]
fn a_verdict_that_arrives_after_a_switch_out_of_auto_does_not_run_the_call() {
    let mut world = World::new(vec![shell_like()]);
    world.mode = Mode::Auto;
    let mut b = world.batch(&[call("c1", "sh", &cmd("make"))], Approvals::default());
    assert_eq!(words(&b.step(Input::Start)), ["judge sh make"]);
    b.set_mode(Mode::Balanced);
    assert_eq!(
        words(&b.step(verdict(true))),
        ["ask c1 1/1"],
        "balanced decides afresh: it asks"
    );
    b.step(accept());
    let memory = b.into_memory();
    assert!(
        !memory.is_approved("sh", "make", true),
        "the verdict was not remembered"
    );
}

#[test]
fn the_judges_verdict_in_auto_runs_remembered_and_says_so() {
    let mut world = World::new(vec![shell_like()]);
    world.mode = Mode::Auto;
    let calls = [
        call("c1", "sh", &cmd("make")),
        call("c2", "sh", &cmd("make")),
    ];
    let mut b = world.batch(&calls, Approvals::default());
    b.step(Input::Start);
    let fx = b.step(verdict(true));
    assert_eq!(words(&fx), ["run c1"]);
    assert_eq!(
        unasked_of(&fx),
        [Some(Unasked::Judge {
            reason: "it only builds".into()
        })]
    );
    let fx = b.step(ok("1"));
    assert_eq!(words(&fx), ["end c1 success", "run c2"]);
    assert_eq!(unasked_of(&fx), [Some(Unasked::JudgeRemembered)]);
    let memory = b.into_memory();
    assert_eq!(
        memory.recall(Mode::Auto, "sh", "make", true),
        Some(By::Judge)
    );
    assert_eq!(memory.recall(Mode::Balanced, "sh", "make", true), None);
}

/// A command tool from config: a shell tool remembered whole (no `require_cmd_approval`),
/// with the safe list and the judge, as `configured::cmd_tool_from` builds it.
fn command_tool(safe: bool) -> Fake {
    let mut t = Fake::new("beads").asking();
    t.kind = Kind::Shell;
    t.opts.judge = Some(true);
    t.safe = Some(safe);
    t.judge = true;
    t
}

#[test]
fn a_command_tool_goes_through_the_safe_list_and_the_judge_in_auto() {
    let mut world = World::new(vec![command_tool(false)]);
    world.mode = Mode::Auto;
    let mut b = world.batch(
        &[call("c1", "beads", &cmd("bd ready"))],
        Approvals::default(),
    );
    assert_eq!(words(&b.step(Input::Start)), ["judge beads bd ready"]);
    assert_eq!(
        words(&b.step(verdict(false))),
        ["ask c1 1/1"],
        "unsafe: the user decides"
    );

    let mut world = World::new(vec![command_tool(true)]);
    world.mode = Mode::Auto;
    let mut b = world.batch(&[call("c1", "beads", &cmd("ls"))], Approvals::default());
    let fx = b.step(Input::Start);
    assert_eq!(words(&fx), ["run c1 read_only"], "safe-listed: read-only");
    assert_eq!(
        unasked_of(&fx),
        [Some(Unasked::SafeList { mode: Mode::Auto })]
    );
}

#[test]
fn balanced_runs_a_safe_list_command_read_only_only_inside_a_sandbox() {
    let safe = Fake {
        safe: Some(true),
        ..shell_like()
    };
    let world = World::new(vec![safe]);
    let calls = [call("c1", "sh", &cmd("git log"))];
    let mut b = sandboxed_batch(&world, &calls);
    let fx = b.step(Input::Start);
    assert_eq!(words(&fx), ["run c1 read_only"]);
    assert_eq!(
        unasked_of(&fx),
        [Some(Unasked::SafeList {
            mode: Mode::Balanced
        })]
    );
    let mut b = world.batch(&calls, Approvals::default());
    assert_eq!(
        words(&b.step(Input::Start)),
        ["ask c1 1/1"],
        "without a sandbox it asks, as before"
    );
}

#[test]
fn a_call_the_user_accepted_says_nothing_and_one_the_mode_ran_says_the_mode() {
    let world = World::new(vec![shell_like(), Fake::new("read")]);
    let calls = [call("c1", "sh", &cmd("make")), call("c2", "read", "{}")];
    let mut b = world.batch(&calls, Approvals::default());
    b.step(Input::Start);
    let fx = b.step(accept());
    assert_eq!(unasked_of(&fx), [None]);
    let fx = b.step(ok("1"));
    assert_eq!(
        unasked_of(&fx),
        [Some(Unasked::Mode {
            mode: Mode::Balanced
        })]
    );
}
