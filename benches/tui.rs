//! Rendering cost of the TUI, off-screen (ratatui `TestBackend`). See BENCHMARKS.md (TUI).
//!
//! - `tui_frame/steady/{10,1000,10000}`: one `Terminal::draw` of `ui::draw` at 120x40 with that
//!   many transcript entries, the render cache warm (the view follows the end, as after a
//!   reply). Goal: 10,000 entries within 1.2x of 10 entries.
//! - `tui_frame/scrolled/{10,1000,10000}`: the same with the view anchored in the middle of
//!   the conversation (PgUp), also warm.
//! - `tui_frame/resize/{10,1000,10000}`: the first frame after a resize (the width alternates
//!   between 120 and 119 columns, so every measured frame starts from an empty cache; only
//!   the entries on screen were cached before, as after an earlier resize).
//! - `tui_frame/resize_full_cache/{1000,10000}`: the first frame after a resize when every
//!   entry's lines are cached, as they are after a long session (each entry was rendered
//!   while it streamed in). The cache is refilled before each measured frame (not timed).
//! - `tui_stream/1MB`: streams a 1 MiB Markdown reply as `Event::Delta(Text)` chunks of
//!   ~20 bytes through `App::update`, drawing a frame every 50 chunks (~1 KB, what arrives in
//!   16 ms at ~60 KB/s); throughput in bytes/s of reply.
//! - `tui_stream/frame_at/{0KB,100KB,300KB,1MB}`: 50 chunks + one frame when the reply
//!   streamed so far is already that long (the per-frame cost late in a long reply);
//!   `code_100KB`: the same inside one 100 KB fenced code block (a model writing a file).
//!
//! Before the benchmarks, two reports are printed (`cargo bench --bench tui -- report` prints
//! only them): the steady-state goal measured with the 10- and 10,000-entry frames interleaved
//! (robust on a busy machine), and the memory of an `App` holding 10,000 entries (glibc's
//! `mallinfo2` in-use bytes: the transcript alone, with every entry's lines computed at once,
//! and after the next frame trimmed the render cache to its budget).
//!
//! The transcript is a realistic mix, built through `App::update` with the agent's events:
//! per exchange a user message, an assistant Markdown reply (heading, paragraph with inline
//! code, a fenced Rust block, a list) that ends in a tool call, the tool entry with 14 lines of
//! output (folded to 4), and a short final reply with a list.
//!
//! Run: `cargo bench --bench tui` (one group: `cargo bench --bench tui -- tui_frame/steady`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sayso::events::{CallEnd, Event, Mode, TurnEnd};
use sayso::provider::{AssistantMessage, StreamDelta, ToolCall};
use sayso::tui::app::{App, AppEvent, Status};
use sayso::tui::screen::Canvas;
use sayso::tui::theme::Theme;
use sayso::tui::ui;
use serde_json::json;

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
const SIZES: [usize; 3] = [10, 1_000, 10_000];

fn new_app() -> App {
    let status = Status {
        model: "gpt-bench".into(),
        provider: "local".into(),
        cwd: "~/src/project".into(),
        mode: Mode::Balanced,
        usage: Default::default(),
        context: None,
        sandbox: None,
    };
    let mut app = App::new(Theme::dark(), status, false, Vec::new());
    app.update(AppEvent::Resize(WIDTH, HEIGHT));
    app
}

fn terminal() -> Terminal<TestBackend> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT)).expect("test terminal")
}

fn draw(term: &mut Terminal<TestBackend>, app: &App) {
    term.draw(|f| {
        ui::draw(&mut Canvas::new(f.buffer_mut()), app, Instant::now());
    })
    .expect("draw");
}

/// Types `text` and sends it, as a user would.
fn send(app: &mut App, text: &str) {
    app.update(AppEvent::Paste(text.to_owned()));
    app.update(AppEvent::Key(KeyEvent::from(KeyCode::Enter)));
    agent(
        app,
        Event::UserMessage {
            text: text.to_owned(),
            sent: text.to_owned(),
        },
    );
}

fn agent(app: &mut App, ev: Event) {
    app.update(AppEvent::Agent(ev));
}

fn text(t: &str) -> Event {
    Event::Delta(StreamDelta::Text(t.to_owned()))
}

fn done(tool_calls: Vec<ToolCall>) -> Event {
    Event::ReplyDone(AssistantMessage {
        tool_calls,
        ..AssistantMessage::default()
    })
}

fn reply(k: usize) -> String {
    format!(
        "## Step {k}: the config loader\n\
         \n\
         I read `src/config.rs` (request {k}). The loader **merges** the user file, the project \
         file and the command line, in that order, and *later* values win; unknown keys are \
         reported as warnings instead of errors, which is why the typo went unnoticed.\n\
         \n\
         ```rust\n\
         fn load(path: &Path) -> Result<Config, Error> {{\n\
         \x20   let text = std::fs::read_to_string(path)?; // request {k}\n\
         \x20   let mut config: Config = toml::from_str(&text)?;\n\
         \x20   for w in config.unknown_keys() {{\n\
         \x20       eprintln!(\"warning: unknown key {{w}}\");\n\
         \x20   }}\n\
         \x20   config.validate()?;\n\
         \x20   Ok(config)\n\
         }}\n\
         ```\n\
         \n\
         What I will do next:\n\
         \n\
         - check the `[provider]` table for a `base_url`\n\
         - make unknown keys an error behind a `--strict` flag\n\
         - run `cargo test config` to confirm nothing else depends on the old behaviour\n\
         - update [the docs](https://example.com/docs/config)\n"
    )
}

fn tool_output(k: usize) -> String {
    let mut out = String::from("   Compiling sayso v0.1.0 (/home/me/src/sayso)\n");
    out.push_str("    Finished `test` profile [unoptimized + debuginfo] target(s) in 4.21s\n");
    out.push_str("     Running unittests src/lib.rs (target/debug/deps/sayso-1f2e3d4c)\n\n");
    out.push_str("running 9 tests\n");
    for t in 0..9 {
        out.push_str(&format!("test config::tests::case_{k}_{t} ... ok\n"));
    }
    out.push_str("\ntest result: ok. 9 passed; 0 failed; 0 ignored; finished in 0.03s\n");
    out
}

/// Adds entry number `i` of the realistic mix (4 entries per exchange).
fn add_entry(app: &mut App, i: usize) {
    let k = i / 4;
    match i % 4 {
        0 => {
            send(
                app,
                &format!(
                    "Why does the config loader ignore my `base_url` (question {k})? \
                     It worked yesterday; please check and fix it."
                ),
            );
        }
        1 => {
            let r = reply(k);
            // A few deltas, as a stream would deliver them.
            for piece in r.as_bytes().chunks(256) {
                agent(app, text(std::str::from_utf8(piece).expect("ascii")));
            }
            agent(app, done(Vec::new()));
        }
        2 => {
            let id = format!("call_{k}");
            let name = "run_command".to_owned();
            agent(
                app,
                Event::Delta(StreamDelta::ToolCallStarted {
                    index: 0,
                    id: id.clone(),
                    name: name.clone(),
                }),
            );
            let args = json!({"cmd": "cargo test config"});
            agent(
                app,
                done(vec![ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: args.to_string(),
                }]),
            );
            agent(
                app,
                Event::ToolStarted {
                    call_id: id.clone(),
                    name: name.clone(),
                    cmd_string: "run_command cargo test config".into(),
                    args,
                    unasked: None,
                },
            );
            agent(
                app,
                Event::ToolOutput {
                    call_id: id.clone(),
                    name: name.clone(),
                    content: tool_output(k),
                    display: None,
                },
            );
            agent(
                app,
                Event::ToolFinished {
                    call_id: id,
                    name,
                    end: CallEnd::Success,
                },
            );
        }
        _ => {
            agent(
                app,
                text(&format!(
                    "All **9 tests** pass (run {k}). The fix:\n\n\
                     1. `base_url` is read from `[provider]` again\n\
                     2. a misspelt key is now an error with `--strict`\n"
                )),
            );
            agent(app, done(Vec::new()));
            agent(app, Event::TurnEnded(TurnEnd::Completed));
        }
    }
}

/// An app with `n` entries of the mix, and a terminal that has drawn it once (the cache holds
/// the entries on screen).
fn app_with(n: usize) -> (App, Terminal<TestBackend>) {
    let mut app = new_app();
    for i in 0..n {
        add_entry(&mut app, i);
    }
    let mut term = terminal();
    draw(&mut term, &app);
    (app, term)
}

/// Renders and caches every entry's lines, as a session that streamed them all in has: scroll
/// up past the first entry (which measures, so renders and caches, each entry on the way),
/// then follow the end again.
fn cache_everything(app: &mut App) {
    app.scroll(true, usize::MAX / 2);
    app.follow();
}

fn frames(c: &mut Criterion) {
    let mut g = c.benchmark_group("tui_frame");
    for n in SIZES {
        let (app, mut term) = app_with(n);
        draw(&mut term, &app);
        g.bench_function(format!("steady/{n}"), |b| b.iter(|| draw(&mut term, &app)));
    }
    for n in SIZES {
        let (mut app, mut term) = app_with(n);
        // Anchor the view in the middle of the conversation.
        app.scroll_to_entry(n / 2);
        draw(&mut term, &app);
        g.bench_function(format!("scrolled/{n}"), |b| {
            b.iter(|| draw(&mut term, &app))
        });
    }
    for n in SIZES {
        let (mut app, mut term) = app_with(n);
        let mut narrow = false;
        g.bench_function(format!("resize/{n}"), |b| {
            b.iter(|| {
                narrow = !narrow;
                let w = if narrow { WIDTH - 1 } else { WIDTH };
                app.update(AppEvent::Resize(w, HEIGHT));
                term.backend_mut().resize(w, HEIGHT);
                draw(&mut term, &app);
            })
        });
    }
    g.finish();

    // Each measured frame needs a fully cached session first (seconds for 10,000 entries), so
    // this group takes the fewest samples criterion allows.
    let mut g = c.benchmark_group("tui_frame");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_millis(1));
    for n in [1_000, 10_000] {
        let (mut app, mut term) = app_with(n);
        let mut narrow = false;
        g.bench_function(format!("resize_full_cache/{n}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    cache_everything(&mut app);
                    narrow = !narrow;
                    let w = if narrow { WIDTH - 1 } else { WIDTH };
                    let t = Instant::now();
                    app.update(AppEvent::Resize(w, HEIGHT));
                    term.backend_mut().resize(w, HEIGHT);
                    draw(&mut term, &app);
                    total += t.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

/// Size of the streamed reply.
const STREAM_BYTES: usize = 1 << 20;
/// Bytes per delta.
const CHUNK: usize = 20;
/// Deltas per frame: 50 x 20 B = 1 KB, what a ~60 KB/s stream delivers in 16 ms.
const CHUNKS_PER_FRAME: usize = 50;

/// A long Markdown reply of about `bytes` bytes: sections of a heading, paragraphs, a code
/// block and a list, repeated.
fn long_reply(bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 2048);
    let mut k = 0;
    while s.len() < bytes {
        s.push_str(&reply(k));
        s.push_str(
            "\nThe remaining modules follow the same pattern: each one parses its own table, \
             checks the values it understands and leaves the rest to the caller, which keeps \
             the error messages close to the code that knows what a value means.\n\n",
        );
        k += 1;
    }
    s.truncate(bytes);
    s
}

/// A reply that is one long fenced Rust block (a model writing a whole file), about `bytes`
/// bytes.
fn code_reply(bytes: usize) -> String {
    let mut s = String::from("Here is the whole file:\n\n```rust\n");
    let mut k = 0;
    while s.len() < bytes {
        s.push_str(&format!(
            "/// Loads layer {k} of the configuration.\n\
             pub fn load_{k}(path: &Path) -> Result<Config, Error> {{\n\
             \x20   let text = std::fs::read_to_string(path)?;\n\
             \x20   toml::from_str(&text).map_err(|e| Error::Parse(path.into(), e))\n\
             }}\n\n"
        ));
        k += 1;
    }
    s.truncate(bytes);
    s
}

/// `text` cut into ~`CHUNK`-byte pieces at character boundaries.
fn chunks(text: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(text.len() / CHUNK + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + CHUNK).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(text[start..end].to_owned());
        start = end;
    }
    out
}

fn streaming_app() -> (App, Terminal<TestBackend>) {
    let mut app = new_app();
    send(
        &mut app,
        "Write the whole design document for the config loader, please.",
    );
    let mut term = terminal();
    draw(&mut term, &app);
    (app, term)
}

/// Feeds `pieces` as deltas, drawing a frame every `CHUNKS_PER_FRAME`.
fn stream(app: &mut App, term: &mut Terminal<TestBackend>, pieces: &[String]) {
    for frame in pieces.chunks(CHUNKS_PER_FRAME) {
        for p in frame {
            agent(app, Event::Delta(StreamDelta::Text(p.clone())));
        }
        draw(term, app);
    }
}

fn streaming(c: &mut Criterion) {
    let reply = long_reply(STREAM_BYTES);
    let pieces = chunks(&reply);
    let mut g = c.benchmark_group("tui_stream");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(reply.len() as u64));
    g.bench_function("1MB", |b| {
        b.iter_batched(
            streaming_app,
            |(mut app, mut term)| {
                stream(&mut app, &mut term, &pieces);
                agent(&mut app, done(Vec::new()));
                draw(&mut term, &app);
                black_box(app.entries().len());
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();

    // One frame's worth of deltas plus the frame, late in a long reply. The reply is set up
    // to `at` bytes (not timed) and grows by ~1 KB per iteration; it is reset every 20.
    let mut g = c.benchmark_group("tui_stream");
    g.sample_size(20);
    g.throughput(Throughput::Bytes((CHUNK * CHUNKS_PER_FRAME) as u64));
    let cases = [
        ("0KB", long_reply(30_000), 1),
        ("100KB", long_reply((100 << 10) + 30_000), 100 << 10),
        ("300KB", long_reply((300 << 10) + 30_000), 300 << 10),
        ("1MB", long_reply(STREAM_BYTES + 30_000), STREAM_BYTES),
        ("code_100KB", code_reply((100 << 10) + 30_000), 100 << 10),
    ];
    for (label, full, at) in cases {
        let prefix = &full[..at];
        let tail = chunks(&full[at..]);
        g.bench_function(format!("frame_at/{label}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                let mut left = 0;
                let mut setup = None;
                let mut next = 0;
                for _ in 0..iters {
                    if left == 0 {
                        let (mut app, mut term) = streaming_app();
                        agent(&mut app, text(prefix));
                        draw(&mut term, &app);
                        setup = Some((app, term));
                        left = 20;
                        next = 0;
                    }
                    let (app, term) = setup.as_mut().expect("set up");
                    let batch = &tail[next..next + CHUNKS_PER_FRAME];
                    let t = Instant::now();
                    stream(app, term, batch);
                    total += t.elapsed();
                    next += CHUNKS_PER_FRAME;
                    left -= 1;
                }
                total
            })
        });
    }
    g.finish();
}

/// glibc's count of heap bytes in use (small blocks plus mmapped ones).
fn heap_in_use() -> usize {
    // SAFETY: mallinfo2 only reads the allocator's statistics.
    let m = unsafe { libc::mallinfo2() };
    m.uordblks + m.hblkhd
}

fn rss_kib() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// Prints the memory an `App` with 10,000 entries holds.
fn memory_report() {
    use sayso::tui::entry_lines::{Facts, entry_lines};
    use sayso::tui::transcript::Entry;
    const N: usize = 10_000;
    let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
    // The syntax highlighter's tables load once (the app loads them at startup, off the UI
    // thread); load them first so they are not counted as the transcript's.
    let (heap_before_highlighter, rss_before_highlighter) = (heap_in_use(), rss_kib());
    sayso::tui::highlight::warm_up();
    let (heap0, rss0) = (heap_in_use(), rss_kib());
    let mut app = new_app();
    for i in 0..N {
        add_entry(&mut app, i);
    }
    let text_bytes: usize = app
        .entries()
        .iter()
        .map(|e| match e {
            Entry::User { text }
            | Entry::Reasoning { text }
            | Entry::Assistant { text, .. }
            | Entry::Notice { text }
            | Entry::Compaction { summary: text, .. } => text.len(),
            Entry::Tool {
                content,
                display,
                changes,
                ..
            } => {
                content.len()
                    + display.as_ref().map_or(0, String::len)
                    + changes.iter().map(|c| c.diff.len()).sum::<usize>()
            }
            Entry::Changes { files } => files
                .iter()
                .flat_map(|f| &f.diffs)
                .map(|(l, d)| l.len() + d.len())
                .sum(),
        })
        .sum();
    let heap1 = heap_in_use();
    // One copy of every entry's rendered lines, for comparison with the cache.
    let facts = Facts {
        theme: app.theme(),
        width: WIDTH,
        expanded: false,
        selected: false,
        elapsed: None,
        show_reasoning: true,
    };
    let copy: Vec<_> = app
        .entries()
        .iter()
        .map(|e| entry_lines(e, &facts))
        .collect();
    let lines: usize = copy.iter().map(Vec::len).sum();
    let one_copy = heap_in_use() - heap1;
    drop(copy);
    let mut term = terminal();
    draw(&mut term, &app);
    let heap2 = heap_in_use();
    cache_everything(&mut app);
    let heap_all = heap_in_use();
    draw(&mut term, &app);
    // The frame trims the cache to its budget; the forgotten lines are freed off the UI thread.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let (heap3, rss3) = (heap_in_use(), rss_kib());
    eprintln!("memory of an App with {N} entries (glibc in-use heap bytes):");
    eprintln!(
        "  syntax highlighter tables (once per process): {:.1} MiB (RSS +{:.1} MiB)",
        mib(heap0 - heap_before_highlighter),
        (rss0.saturating_sub(rss_before_highlighter)) as f64 / 1024.0
    );
    eprintln!(
        "  transcript: {:.1} MiB ({:.1} MiB of it text)",
        mib(heap1 - heap0),
        mib(text_bytes)
    );
    eprintln!(
        "  + one frame drawn (the screen's entries cached): {:.1} MiB",
        mib(heap2 - heap0)
    );
    eprintln!(
        "  + every entry's lines computed at once (scrolling up {N} entries in one step): \
         {:.1} MiB ({:.0} bytes/entry)",
        mib(heap_all - heap0),
        (heap_all - heap0) as f64 / N as f64
    );
    eprintln!(
        "  + the next frame (the render cache trimmed to its budget, {} lines): {:.1} MiB",
        app.chat().cached_lines(),
        mib(heap3 - heap0)
    );
    eprintln!(
        "  for comparison, one copy of every entry's lines ({lines} lines): {:.1} MiB",
        mib(one_copy)
    );
    eprintln!(
        "  process RSS grew {:.1} MiB (from {:.1} MiB)",
        (rss3.saturating_sub(rss0)) as f64 / 1024.0,
        rss0 as f64 / 1024.0
    );
    drop(app);
}

/// The steady-state goal, measured robustly on a busy machine: frames of the 10-entry and the
/// 10,000-entry app alternate, so both see the same load; medians and their ratio.
fn ratio_report() {
    const FRAMES: usize = 3_000;
    let (small, mut small_term) = app_with(10);
    let (large, mut large_term) = app_with(10_000);
    let mut a = Vec::with_capacity(FRAMES);
    let mut b = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        let t = Instant::now();
        draw(&mut small_term, &small);
        a.push(t.elapsed());
        let t = Instant::now();
        draw(&mut large_term, &large);
        b.push(t.elapsed());
    }
    a.sort();
    b.sort();
    let (ma, mb) = (a[FRAMES / 2], b[FRAMES / 2]);
    eprintln!(
        "steady-state frame, interleaved ({FRAMES} each): 10 entries {ma:.1?}, 10,000 entries \
         {mb:.1?}: ratio {:.2} (goal <= 1.2)",
        mb.as_secs_f64() / ma.as_secs_f64()
    );
}

criterion_group!(benches, frames, streaming);

fn main() {
    // The reports run unless criterion lists or filters benchmarks (a filter is an argument
    // that is neither an option nor an option's value); `cargo bench --bench tui -- report`
    // runs only them.
    const WITH_VALUE: [&str; 16] = [
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--save-baseline",
        "-s",
        "--baseline",
        "-b",
        "--baseline-lenient",
        "--load-baseline",
        "--output-format",
        "--color",
        "-c",
        "--profile-time",
        "--nresamples",
        "--noise-threshold",
        "--plotting-backend",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut filtered = false;
    let mut value_next = false;
    for a in &args {
        if value_next {
            value_next = false;
        } else if a.starts_with('-') {
            value_next = WITH_VALUE.contains(&a.as_str())
                || a == "--confidence-level"
                || a == "--significance-level";
        } else {
            filtered |= !"report".contains(a.as_str());
        }
    }
    if !filtered && !args.iter().any(|a| a == "--list") {
        memory_report();
        ratio_report();
    }
    benches();
    criterion::Criterion::default()
        .configure_from_args()
        .final_summary();
}
