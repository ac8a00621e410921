//! Lifecycle of the queue, orchestrator and runner (reference §7: Orchestrator, Runner, Queue,
//! Shell commands, User approval, Approvals), adapted where SPEC differs.

use std::sync::Arc;

use pretty_assertions::assert_eq;
use sayso::events::{CallEnd, Event, TurnEnd, UserChoice};
use sayso::tools::policy::approval::{Interaction, Mode};
use sayso::tools::tool::Tool;
use tokio_util::sync::CancellationToken;

use crate::engine_support::{
    Log, Recorder, Step, approver, call, contents, engine, engine_in, gone, run, run_with,
};

fn log_of(log: &Log) -> Vec<String> {
    log.lock().unwrap().clone()
}

fn tools(list: Vec<Recorder>) -> Vec<Arc<dyn Tool>> {
    list.into_iter()
        .map(|t| Arc::new(t) as Arc<dyn Tool>)
        .collect()
}

#[tokio::test]
async fn three_approved_tools_run_in_the_order_they_were_called() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![
            Recorder::new("t1", vec![Step::Ok("1")], &log).asking(),
            Recorder::new("t2", vec![Step::Ok("2")], &log).asking(),
            Recorder::new("t3", vec![Step::Ok("3")], &log).asking(),
        ]),
        Mode::Balanced,
        dir.path(),
    );
    let asked = approver(&mut e, vec![UserChoice::Accept; 3]);
    let (r, _) = run(
        &mut e,
        &[
            call("a", "t3", ""),
            call("b", "t1", "{}"),
            call("c", "t2", "{}"),
        ],
    )
    .await;
    assert_eq!(
        log_of(&log),
        [
            "t3:Setup",
            "t3:Success[\"3\"]",
            "t3:Exit",
            "t1:Setup",
            "t1:Success[\"1\"]",
            "t1:Exit",
            "t2:Setup",
            "t2:Success[\"2\"]",
            "t2:Exit",
        ]
    );
    assert_eq!(
        *asked.lock().unwrap(),
        ["t3 t3 (1 of 3)", "t1 t1 (2 of 3)", "t2 t2 (3 of 3)"]
    );
    assert_eq!((r.had_error, r.ends_turn), (false, None));
}

#[tokio::test]
async fn each_rejection_is_separate_carries_its_reason_and_skips_on_exit() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![Recorder::new("t", vec![Step::Ok("x")], &log).asking()]),
        Mode::Balanced,
        dir.path(),
    );
    approver(
        &mut e,
        vec![
            UserChoice::Reject(Some("not now".into())),
            UserChoice::Reject(None),
        ],
    );
    let (r, _) = run(&mut e, &[call("a", "t", "{}"), call("b", "t", "{}")]).await;
    assert_eq!(
        log_of(&log),
        [
            "t:Setup",
            "t:Rejected(Some(\"not now\"))",
            "t:Setup",
            "t:Rejected(None)"
        ]
    );
    assert_eq!(
        contents(&r),
        [
            (
                "a".into(),
                "The user rejected the execution of the t tool, with the reason: \"not now\""
                    .into()
            ),
            (
                "b".into(),
                "The user rejected the execution of the t tool".into()
            ),
        ]
    );
    assert_eq!(r.results[0].end, CallEnd::Rejected);
    assert_eq!(
        (r.had_error, r.ends_turn),
        (false, None),
        "a rejection does not stop the loop"
    );
}

#[tokio::test]
async fn commands_chain_their_input_and_success_runs_after_each() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![Recorder::new(
            "t",
            vec![Step::Ok("one"), Step::EchoInput],
            &log,
        )]),
        Mode::Balanced,
        dir.path(),
    );
    let (r, _) = run(&mut e, &[call("a", "t", "{}")]).await;
    assert_eq!(
        log_of(&log),
        [
            "t:Setup",
            "t:Success[\"one\"]",
            "t:Success[\"one\", \"got one\"]",
            "t:Exit"
        ]
    );
    assert_eq!(r.results[0].content(), "t ok: one\n\nt ok: one,got one");
}

#[tokio::test]
async fn an_error_skips_the_remaining_commands_but_not_the_queue() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![
            Recorder::new(
                "bad",
                vec![Step::Ok("a"), Step::Err("boom"), Step::Ok("never")],
                &log,
            ),
            Recorder::new("good", vec![Step::Ok("fine")], &log),
        ]),
        Mode::Balanced,
        dir.path(),
    );
    let (r, _) = run(&mut e, &[call("1", "bad", "{}"), call("2", "good", "{}")]).await;
    assert_eq!(
        log_of(&log),
        [
            "bad:Setup",
            "bad:Success[\"a\"]",
            "bad:Error[\"boom\"]",
            "bad:Exit",
            "good:Setup",
            "good:Success[\"fine\"]",
            "good:Exit"
        ]
    );
    assert_eq!(r.results[0].end, CallEnd::Error);
    assert_eq!(r.results[1].end, CallEnd::Success);
    assert_eq!((r.had_error, r.ends_turn), (true, None));
}

#[tokio::test]
async fn errors_handed_to_a_tool_are_its_own() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![
            Recorder::new("x", vec![Step::Err("first")], &log),
            Recorder::new("y", vec![Step::Err("second")], &log),
        ]),
        Mode::Balanced,
        dir.path(),
    );
    run(&mut e, &[call("1", "x", "{}"), call("2", "y", "{}")]).await;
    assert!(
        log_of(&log).contains(&"y:Error[\"second\"]".to_string()),
        "{:?}",
        log_of(&log)
    );
}

#[tokio::test]
async fn a_panicking_function_is_an_error_result() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![Recorder::new(
            "p",
            vec![Step::Panic, Step::Ok("never")],
            &log,
        )]),
        Mode::Balanced,
        dir.path(),
    );
    let (r, _) = run(&mut e, &[call("1", "p", "{}")]).await;
    assert_eq!(
        log_of(&log),
        [
            "p:Setup",
            "p:Error[\"The `p` tool failed: Something went wrong\"]",
            "p:Exit"
        ]
    );
    assert_eq!(r.results[0].end, CallEnd::Error);
}

#[tokio::test]
async fn async_result_first_output_cb_wins_and_watchdog_stops_silent_functions() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut slow = Recorder::new("silent", vec![Step::Never], &log);
    slow.opts.timeout = Some(100);
    let mut e = engine(
        tools(vec![
            Recorder::new("later", vec![Step::Later("async data")], &log),
            slow,
        ]),
        Mode::Balanced,
        dir.path(),
    );
    let (r, _) = run(
        &mut e,
        &[call("1", "later", "{}"), call("2", "silent", "{}")],
    )
    .await;
    assert_eq!(r.results[0].content(), "later ok: async data");
    assert_eq!(
        r.results[1].content(),
        "silent failed: The `silent` tool did not finish within 100 ms and was stopped"
    );
}

#[tokio::test]
async fn use_handlers_once_shares_setup_and_exit_but_asks_for_every_call() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut t = Recorder::new("t", vec![Step::Ok("d")], &log).asking();
    t.opts.use_handlers_once = Some(true);
    let mut e = engine(tools(vec![t]), Mode::Balanced, dir.path());
    let asked = approver(&mut e, vec![UserChoice::Accept, UserChoice::Accept]);
    let (r, _) = run(&mut e, &[call("1", "t", "{}"), call("2", "t", "{}")]).await;
    assert_eq!(
        log_of(&log),
        ["t:Setup", "t:Success[\"d\"]", "t:Success[\"d\"]", "t:Exit"]
    );
    assert_eq!(
        asked.lock().unwrap().len(),
        2,
        "sharing handlers never skips an approval"
    );
    assert_eq!(r.results.len(), 2);
}

#[tokio::test]
async fn a_rejected_call_closes_a_shared_handler_run() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut t = Recorder::new("t", vec![Step::Ok("d")], &log).asking();
    t.opts.use_handlers_once = Some(true);
    let mut e = engine(tools(vec![t]), Mode::Balanced, dir.path());
    let _asked = approver(&mut e, vec![UserChoice::Accept, UserChoice::Reject(None)]);
    let (r, _) = run(&mut e, &[call("1", "t", "{}"), call("2", "t", "{}")]).await;
    assert_eq!(
        log_of(&log),
        ["t:Setup", "t:Success[\"d\"]", "t:Rejected(None)", "t:Exit"],
        "setup and on_exit once each"
    );
    assert_eq!(r.results[1].end, CallEnd::Rejected);
}

#[tokio::test]
async fn unknown_tool_and_invalid_json_fail_only_their_own_call() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![
            Recorder::new("ok", vec![Step::Ok("1")], &log),
            Recorder::new("also", vec![Step::Ok("2")], &log),
        ]),
        Mode::Balanced,
        dir.path(),
    );
    let calls = [
        call("a", "ok", "{}"),
        call("b", "missing", "{}"),
        call("c", "ok", "{\"x\": "),
        call("d", "also", ""),
    ];
    let (r, _) = run(&mut e, &calls).await;
    assert_eq!(
        contents(&r),
        [
            ("a".into(), "ok ok: 1".into()),
            ("b".into(), "Tool `missing` not found. The available tools are: `also`, `ok`".into()),
            ("c".into(), "You made an error in calling the ok tool: EOF while parsing a value at line 1 column 5".into()),
            ("d".into(), "also ok: 2".into()),
        ]
    );
    assert_eq!((r.had_error, r.ends_turn), (true, None));
}

#[tokio::test]
async fn a_tool_that_records_nothing_gets_the_stand_in_result() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut quiet = Recorder::new("quiet", vec![Step::Ok("x")], &log);
    quiet.silent = true;
    let mut e = engine(tools(vec![quiet]), Mode::Balanced, dir.path());
    let (r, _) = run(&mut e, &[call("a", "quiet", "{}")]).await;
    assert_eq!(
        r.results[0].content(),
        "The `quiet` tool call did not complete: no output was recorded."
    );
}

#[tokio::test]
async fn cancel_at_approval_cancels_the_whole_batch() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![Recorder::new("t", vec![Step::Ok("x")], &log).asking()]),
        Mode::Balanced,
        dir.path(),
    );
    approver(&mut e, vec![UserChoice::Cancel]);
    let (r, events) = run(
        &mut e,
        &[
            call("1", "t", "{}"),
            call("2", "t", "{}"),
            call("3", "t", "{}"),
        ],
    )
    .await;
    assert_eq!(r.ends_turn, Some(TurnEnd::Cancelled));
    assert_eq!(
        log_of(&log),
        [
            "t:Setup",
            "t:Cancelled",
            "t:Exit",
            "t:Cancelled",
            "t:Cancelled"
        ]
    );
    assert!(r.results.iter().all(|c| c.end == CallEnd::Cancelled));
    assert!(
        r.results
            .iter()
            .all(|c| c.content() == "The user cancelled the execution of the t tool")
    );
    assert!(matches!(events.last(), Some(Event::ToolsFinished)));
}

#[tokio::test]
async fn always_accept_lets_a_queued_duplicate_run_unasked() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![Recorder::new("t", vec![Step::Ok("x")], &log).asking()]),
        Mode::Balanced,
        dir.path(),
    );
    let asked = approver(&mut e, vec![UserChoice::AlwaysAccept]);
    let (r, _) = run(&mut e, &[call("1", "t", "{}"), call("2", "t", "{}")]).await;
    assert_eq!(asked.lock().unwrap().len(), 1);
    assert!(r.results.iter().all(|c| c.end == CallEnd::Success));
}

#[tokio::test]
async fn headless_approval_is_rejected_with_the_non_interactive_text() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine_in(
        tools(vec![Recorder::new("t", vec![Step::Ok("x")], &log).asking()]),
        Mode::Balanced,
        Interaction::Headless,
        dir.path(),
    );
    let (r, _) = run(&mut e, &[call("1", "t", "{}")]).await;
    assert_eq!(
        r.results[0].content(),
        "Approval required for `t` but sayso is running non-interactively; rerun with --auto or --allowed-tools"
    );
    assert_eq!(r.results[0].end, CallEnd::Rejected);
    assert_eq!(log_of(&log), ["t:Setup"]);
}

#[tokio::test]
async fn stopping_kills_the_running_command_and_cancels_the_rest() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(
        tools(vec![
            Recorder::new(
                "sh",
                vec![Step::Shell("echo $$ > pid; sleep 30; touch marker")],
                &log,
            ),
            Recorder::new("next", vec![Step::Ok("x")], &log),
        ]),
        Mode::Balanced,
        dir.path(),
    );
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    let pid_file = dir.path().join("pid");
    // Stop once the command is surely running: its pid file is written.
    tokio::spawn(async move {
        while !std::fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n')) {
            tokio::task::yield_now().await;
        }
        stopper.cancel();
    });
    let (r, _) = run_with(
        &mut e,
        &[call("1", "sh", "{}"), call("2", "next", "{}")],
        &cancel,
    )
    .await;
    assert_eq!(r.ends_turn, Some(TurnEnd::Stopped));
    assert_eq!(r.results[0].end, CallEnd::Cancelled);
    assert_eq!(r.results[1].end, CallEnd::Cancelled);
    assert_eq!(
        log_of(&log),
        ["sh:Setup", "sh:Cancelled", "sh:Exit", "next:Cancelled"]
    );
    // The batch returns only once the command's process group is gone.
    let pid: u32 = std::fs::read_to_string(dir.path().join("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(gone(pid), "the stopped command's shell is gone");
    assert!(!dir.path().join("marker").exists());
}

#[tokio::test]
async fn shell_commands_report_output_errors_and_timeouts() {
    let log = Log::default();
    let dir = tempfile::tempdir().unwrap();
    let mut slow = Recorder::new("slow", vec![Step::Shell("echo started; sleep 5")], &log);
    slow.opts.timeout = Some(200);
    let mut e = engine(
        tools(vec![
            Recorder::new(
                "ok",
                vec![Step::Shell("printf '\\033[32mgreen\\033[0m'; pwd")],
                &log,
            ),
            Recorder::new(
                "bad",
                vec![Step::Shell("echo out; echo err >&2; exit 3")],
                &log,
            ),
            Recorder::new("fakeout", vec![Step::Shell("exit 124")], &log),
            slow,
        ]),
        Mode::Balanced,
        dir.path(),
    );
    let (r, _) = run(
        &mut e,
        &[
            call("1", "ok", "{}"),
            call("2", "bad", "{}"),
            call("3", "fakeout", "{}"),
            call("4", "slow", "{}"),
        ],
    )
    .await;
    let cwd = std::fs::canonicalize(dir.path()).unwrap();
    let c = contents(&r);
    assert!(
        c[0].1 == format!("ok ok: green{}\n", cwd.display())
            || c[0].1 == format!("ok ok: green{}\n", dir.path().display()),
        "{:?}",
        c[0]
    );
    assert_eq!(c[1].1, "bad failed: err\nout\n(exit status 3)");
    assert_eq!(
        c[2].1,
        "fakeout failed: The command printed nothing (exit status 124)"
    );
    assert_eq!(
        c[3].1,
        "slow failed: Command timed out after 200 ms\nstarted"
    );
}

/// A tool whose success handler panics, and one that starts a process group and registers it.
struct Fragile;

impl Tool for Fragile {
    fn name(&self) -> &str {
        "fragile"
    }
    fn spec(&self) -> sayso::provider::ToolSpec {
        sayso::tools::tool::SimpleTool::new("fragile", "", sayso::tools::tool::Kind::Other).spec()
    }
    fn commands(&self, inv: &sayso::tools::tool::Invocation) -> Vec<sayso::tools::tool::Command> {
        sayso::tools::tool::SimpleTool::new("fragile", "", sayso::tools::tool::Kind::Other)
            .run(|_| async { Ok("data".to_owned()) })
            .commands(inv)
    }
    fn on_success(
        &self,
        _: &sayso::tools::tool::Invocation,
        _: &mut sayso::tools::tool::ToolOutput,
        _: &[sayso::tools::tool::Output],
    ) {
        panic!("handler exploded");
    }
}

#[tokio::test]
async fn a_panicking_output_function_becomes_an_internal_error_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(vec![Arc::new(Fragile)], Mode::Balanced, dir.path());
    let (r, _) = run(&mut e, &[call("1", "fragile", "{}")]).await;
    assert_eq!(
        r.results[0].content(),
        "Internal error with `fragile` tool: handler exploded"
    );
}

struct Spawner;

impl Tool for Spawner {
    fn name(&self) -> &str {
        "spawner"
    }
    fn spec(&self) -> sayso::provider::ToolSpec {
        sayso::tools::tool::SimpleTool::new("spawner", "", sayso::tools::tool::Kind::Other).spec()
    }
    fn commands(&self, _inv: &sayso::tools::tool::Invocation) -> Vec<sayso::tools::tool::Command> {
        vec![sayso::tools::tool::Command::Function(Arc::new(
            |inv, args| {
                Box::pin(async move {
                    // Start a child in its own process group, register it, and answer never.
                    let child = tokio::process::Command::new("sh")
                        .arg("-c")
                        .arg("echo $$ > job_pid; sleep 30; touch registered_marker")
                        .current_dir(&inv.cwd)
                        .process_group(0)
                        .spawn()
                        .expect("spawn");
                    args.jobs.register(child.id().expect("pid"));
                    std::mem::forget(child);
                    None
                })
            },
        ))]
    }
}

#[cfg(unix)]
#[tokio::test]
async fn stopping_kills_a_process_group_a_function_registered() {
    let dir = tempfile::tempdir().unwrap();
    let mut e = engine(vec![Arc::new(Spawner)], Mode::Balanced, dir.path());
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    let pid_file = dir.path().join("job_pid");
    tokio::spawn(async move {
        while !std::fs::read_to_string(&pid_file).is_ok_and(|p| p.ends_with('\n')) {
            tokio::task::yield_now().await;
        }
        stopper.cancel();
    });
    let (r, _) = run_with(&mut e, &[call("1", "spawner", "{}")], &cancel).await;
    assert_eq!(r.ends_turn, Some(TurnEnd::Stopped));
    assert_eq!(r.results[0].end, CallEnd::Cancelled);
    assert_eq!(
        r.results[0].content(),
        "The user cancelled the execution of the spawner tool"
    );
    // The batch returns once the registered group is gone (a zombie at most).
    let pid: u32 = std::fs::read_to_string(dir.path().join("job_pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(gone(pid), "the registered job was killed");
    assert!(!dir.path().join("registered_marker").exists());
}

/// A tool whose own condition decides whether its calls ask (`require_approval_before =
/// Condition` in its opts), saying `asks` for every call.
struct Conditional {
    asks: bool,
}

impl Tool for Conditional {
    fn name(&self) -> &str {
        "cond"
    }
    fn spec(&self) -> sayso::provider::ToolSpec {
        sayso::tools::tool::SimpleTool::new("cond", "", sayso::tools::tool::Kind::Other).spec()
    }
    fn default_opts(&self) -> sayso::config::opts::Opts {
        sayso::config::opts::Opts {
            require_approval_before: Some(sayso::tools::tool::ApprovalBefore::Condition),
            ..Default::default()
        }
    }
    fn policy(&self, _inv: &sayso::tools::tool::Invocation) -> sayso::tools::tool::Policy {
        sayso::tools::tool::Policy {
            condition: self.asks,
            ..Default::default()
        }
    }
    fn commands(&self, inv: &sayso::tools::tool::Invocation) -> Vec<sayso::tools::tool::Command> {
        sayso::tools::tool::SimpleTool::new("cond", "", sayso::tools::tool::Kind::Other)
            .run(|_| async { Ok("ran".to_owned()) })
            .commands(inv)
    }
}

/// An engine offering [`Conditional`] with the config entry's `require_approval_before`.
fn conditional_engine(
    asks: bool,
    config: Option<sayso::tools::tool::ApprovalBefore>,
    cwd: &std::path::Path,
) -> sayso::tools::lifecycle::orchestrator::Engine {
    use sayso::tools::lifecycle::orchestrator::{Engine, EngineSetup};
    use sayso::tools::registry::{Registry, Source};
    let mut registry = Registry::default();
    registry.register(Arc::new(Conditional { asks }), Source::Library);
    let opts = sayso::config::opts::Opts {
        require_approval_before: config,
        ..Default::default()
    };
    assert!(registry.set_config_opts("cond", opts));
    Engine::new(EngineSetup {
        registry: Arc::new(registry),
        active: ["cond".to_owned()].into(),
        allowed: Default::default(),
        mode: Mode::Balanced.into(),
        interaction: Interaction::Interactive,
        judge: None,
        cwd: cwd.to_path_buf(),
        approver: None,
        rules: Default::default(),
        ctx: Default::default(),
    })
}

#[tokio::test]
async fn the_config_setting_wins_over_the_tools_condition() {
    use sayso::tools::tool::ApprovalBefore::{Always, Condition, Never};
    let dir = tempfile::tempdir().unwrap();
    // (the tool's condition, the config entry's setting, asked)
    for (asks, config, want_asked) in [
        (false, None, false),
        (true, None, true),
        (false, Some(Always), true),
        (true, Some(Never), false),
        (false, Some(Condition), false),
    ] {
        let mut e = conditional_engine(asks, config, dir.path());
        let asked = approver(&mut e, vec![UserChoice::Accept]);
        let (r, _) = run(&mut e, &[call("1", "cond", "{}")]).await;
        let asked = asked.lock().unwrap().clone();
        assert_eq!(
            !asked.is_empty(),
            want_asked,
            "condition {asks}, config {config:?}: asked {asked:?}"
        );
        assert_eq!(
            r.results[0].end,
            CallEnd::Success,
            "accepted or unasked, it ran"
        );
    }
}
