//! Overhead of the tool engine (queue → orchestrator → runner → events). See BENCHMARKS.md.
//!
//! - `engine_overhead/*`: one `Engine::run_batch` of 10,000 calls of a no-op function tool
//!   (one `Command::Function` that returns `Some(CmdResult::ok(String::new()))` at once,
//!   no approval). Criterion's throughput is 10,000 elements per iteration, so the reported
//!   `elem/s` inverts to the time per call. Three event sinks: events dropped, events sent to
//!   an unbounded channel drained after the batch, and a sanity variant of 10,000 one-call
//!   batches (the per-batch cost included).
//! - `shell_call/*`: one call of a tool whose single command is `Command::Script { "true" }`
//!   through `run_batch`, against `sh -c true` spawned directly with
//!   `tokio::process::Command::status`. Two diagnostics sit between them: the direct spawn
//!   with both pipes captured (`output()`), and `shell::run_shell` without the engine.
//!   `shell_call/interleaved` runs all four in every iteration and prints each one's median
//!   and its ratio to the direct spawn: the number for the goal on a shared machine.
//!
//! Everything runs on a tokio current-thread runtime (`enable_all`), as the agent's engine
//! future would on one core.
//!
//! Run: `cargo bench --bench engine`.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sayso::config::opts::DEFAULT_TIMEOUT_MS;
use sayso::events::{CallEnd, EventSink};
use sayso::provider::{ToolCall, ToolSpec};
use sayso::tools::exec::shell::{ShellProgram, ShellSpec, run_shell};
use sayso::tools::lifecycle::BatchResult;
use sayso::tools::lifecycle::orchestrator::Engine;
use sayso::tools::lifecycle::orchestrator::EngineSetup;
use sayso::tools::policy::approval::{Interaction, Mode};
use sayso::tools::registry::{Registry, Source};
use sayso::tools::tool::{CmdResult, Command, Invocation, Tool};
use serde_json::json;
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

/// Calls per batch in the overhead benchmark.
const CALLS: usize = 10_000;

/// A tool with one fixed command and every other behaviour left at the default (no approval:
/// `require_approval_before` unset).
struct OneCommand {
    name: &'static str,
    command: Command,
}

impl Tool for OneCommand {
    fn name(&self) -> &str {
        self.name
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.into(),
            description: "benchmark tool".into(),
            parameters: json!({"type": "object", "properties": {}}),
            strict: None,
        }
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![self.command.clone()]
    }
}

/// A function command that succeeds at once with no data.
fn noop_tool() -> OneCommand {
    OneCommand {
        name: "noop",
        command: Command::Function(Arc::new(|_inv, _args| {
            Box::pin(async { Some(CmdResult::ok(String::new())) })
        })),
    }
}

/// A shell command: `sh -c true`.
fn true_tool() -> OneCommand {
    OneCommand {
        name: "sh_true",
        command: Command::Script {
            script: "true".into(),
            env: Default::default(),
        },
    }
}

/// An engine with `tool` active, normal mode, interactive, no approver, no judge.
fn engine(tool: OneCommand, cwd: PathBuf) -> Engine {
    let mut registry = Registry::default();
    let mut active = BTreeSet::new();
    active.insert(tool.name.to_owned());
    registry.register(Arc::new(tool), Source::Library);
    Engine::new(EngineSetup {
        registry: Arc::new(registry),
        active,
        allowed: BTreeSet::new(),
        mode: Mode::Balanced.into(),
        interaction: Interaction::Interactive,
        judge: None,
        cwd,
        approver: None,
        rules: Default::default(),
        ctx: Default::default(),
    })
}

fn calls(name: &str, n: usize) -> Vec<ToolCall> {
    (0..n)
        .map(|i| ToolCall {
            id: format!("call_{i:05}"),
            name: name.into(),
            arguments: "{}".into(),
        })
        .collect()
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime")
}

/// Panics unless every call of the batch succeeded: a benchmark of failing calls measures
/// nothing.
fn check(result: &BatchResult, n: usize) {
    assert_eq!(
        (result.had_error, result.ends_turn.clone()),
        (false, None),
        "{:?}",
        result.results.first().map(|r| r.content())
    );
    assert_eq!(result.results.len(), n);
    assert!(result.results.iter().all(|r| r.end == CallEnd::Success));
}

fn engine_overhead(c: &mut Criterion) {
    let rt = runtime();
    let cwd = std::env::current_dir().expect("a working directory");
    let batch = calls("noop", CALLS);
    let cancel = CancellationToken::new();

    // Sanity: the no-op call really runs and reports, with the expected events.
    {
        let mut engine = engine(noop_tool(), cwd.clone());
        let (events, mut rx) = EventSink::channel();
        let result = rt.block_on(engine.run_batch(&batch, &events, &cancel));
        check(&result, CALLS);
        let mut n = 0;
        while rx.try_recv().is_ok() {
            n += 1;
        }
        // ToolsStarted + (ToolStarted, ToolOutput, ToolFinished) per call + ToolsFinished.
        assert_eq!(n, 2 + 3 * CALLS);
    }

    let mut group = c.benchmark_group("engine_overhead");
    group.throughput(Throughput::Elements(CALLS as u64));
    group.sample_size(30);

    group.bench_function("10k_calls_events_dropped", |b| {
        let mut engine = engine(noop_tool(), cwd.clone());
        // No listener: every event is dropped at once.
        let (events, _) = EventSink::channel();
        b.iter(|| {
            let result = rt.block_on(engine.run_batch(&batch, &events, &cancel));
            black_box(result)
        });
    });

    group.bench_function("10k_calls_events_channel", |b| {
        let mut engine = engine(noop_tool(), cwd.clone());
        let (events, mut rx) = EventSink::channel();
        b.iter(|| {
            let result = rt.block_on(engine.run_batch(&batch, &events, &cancel));
            while let Ok(e) = rx.try_recv() {
                black_box(e);
            }
            black_box(result)
        });
    });

    let single: Vec<Vec<ToolCall>> = batch.iter().map(|c| vec![c.clone()]).collect();
    group.bench_function("10k_one_call_batches_events_dropped", |b| {
        let mut engine = engine(noop_tool(), cwd.clone());
        // No listener: every event is dropped at once.
        let (events, _) = EventSink::channel();
        b.iter(|| {
            rt.block_on(async {
                for calls in &single {
                    black_box(engine.run_batch(calls, &events, &cancel).await);
                }
            })
        });
    });
    group.finish();
}

/// `sh -c true` spawned directly, stdio inherited. `status()` spawns at once, so this must be
/// called inside the runtime.
async fn direct_status() -> std::process::ExitStatus {
    tokio::process::Command::new("sh")
        .arg("-c")
        .arg("true")
        .status()
        .await
        .expect("sh runs")
}

/// `sh -c true` spawned directly with stdout and stderr captured.
async fn direct_output() -> std::process::Output {
    tokio::process::Command::new("sh")
        .arg("-c")
        .arg("true")
        .output()
        .await
        .expect("sh runs")
}

fn shell_call(c: &mut Criterion) {
    let rt = runtime();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let cwd = dir.path().to_path_buf();
    let one = calls("sh_true", 1);
    let cancel = CancellationToken::new();
    // What the runner builds for the tool's command (no env, the default timeout).
    let spec = ShellSpec {
        program: ShellProgram::Script("true".into()),
        cwd: cwd.clone(),
        env: Default::default(),
        timeout: Some(Duration::from_millis(DEFAULT_TIMEOUT_MS)),
    };

    // Sanity: the tool path really runs `true` successfully.
    {
        let mut engine = engine(true_tool(), cwd.clone());
        let (events, _) = EventSink::channel();
        let result = rt.block_on(engine.run_batch(&one, &events, &cancel));
        check(&result, 1);
    }

    let mut group = c.benchmark_group("shell_call");
    group.sample_size(50);

    // `to_async` needs criterion's `async_tokio` feature; `block_on` per iteration is the same
    // thing on a current-thread runtime.
    group.bench_function("direct_sh_c_true", |b| {
        b.iter(|| {
            let status = rt.block_on(direct_status());
            assert!(status.success());
            black_box(status)
        });
    });

    // Diagnostics between the two: the same spawn with both pipes captured (what every tool
    // command needs), and `shell::run_shell` alone (pipes, process group, cwd, `PWD`, timeout
    // timer, pipe draining) without the engine around it.
    group.bench_function("direct_sh_c_true_piped_output", |b| {
        b.iter(|| {
            let output = rt.block_on(direct_output());
            assert!(output.status.success());
            black_box(output)
        });
    });

    group.bench_function("run_shell_only", |b| {
        b.iter(|| {
            let outcome = rt.block_on(run_shell(&spec, &cancel)).expect("sh runs");
            debug_assert!(outcome.success());
            black_box(outcome)
        });
    });

    group.bench_function("tool_run_batch", |b| {
        let mut engine = engine(true_tool(), cwd.clone());
        // No listener: every event is dropped at once.
        let (events, _) = EventSink::channel();
        b.iter(|| {
            let result = rt.block_on(engine.run_batch(&one, &events, &cancel));
            debug_assert_eq!(result.results[0].end, CallEnd::Success);
            black_box(result)
        });
    });

    // Criterion measures the paths above minutes apart; on a shared machine the load changes in
    // between, and the goal is a ratio. So this one runs every path once per iteration, the
    // starting path rotating so none always follows the same one. It reports the tool path's
    // time to criterion and, after the group, every path's median (with the ratio to the
    // direct spawn) from the same iterations.
    let times: RefCell<[Vec<Duration>; 4]> = RefCell::default();
    // Criterion only counts the tool path, a quarter of the wall time: keep it short.
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    group.bench_function("interleaved", |b| {
        let mut engine = engine(true_tool(), cwd.clone());
        let (events, _) = EventSink::channel();
        b.iter_custom(|iters| {
            let mut times = times.borrow_mut();
            let mut tool = Duration::ZERO;
            for round in 0..iters as usize {
                for k in 0..4 {
                    let path = (round + k) % 4;
                    let start = Instant::now();
                    let ok = match path {
                        0 => rt.block_on(direct_status()).success(),
                        1 => rt.block_on(direct_output()).status.success(),
                        2 => rt
                            .block_on(run_shell(&spec, &cancel))
                            .is_ok_and(|o| o.success()),
                        _ => {
                            rt.block_on(engine.run_batch(&one, &events, &cancel))
                                .results[0]
                                .end
                                == CallEnd::Success
                        }
                    };
                    let elapsed = start.elapsed();
                    assert!(ok, "path {path} failed");
                    times[path].push(elapsed);
                    if path == 3 {
                        tool += elapsed;
                    }
                }
            }
            tool
        });
    });
    group.finish();

    let times = times.into_inner();
    if times[0].is_empty() {
        return; // filtered out
    }
    let rounds = times[0].len();
    let [direct, piped, shell, tool] = times.map(|mut v| median(&mut v));
    let ratio = |x: Duration| x.as_secs_f64() / direct.as_secs_f64();
    println!("shell_call/interleaved: medians of {rounds} rounds");
    println!("  direct_sh_c_true               {direct:>10.1?}  1.00x");
    for (name, t) in [
        ("direct_sh_c_true_piped_output", piped),
        ("run_shell_only", shell),
        ("tool_run_batch", tool),
    ] {
        println!("  {name:<30} {t:>10.1?}  {:.2}x", ratio(t));
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

criterion_group!(benches, engine_overhead, shell_call);
criterion_main!(benches);
