//! Sessions (criterion): resuming a saved session of 100 / 10,000 / 100,000 messages to the
//! TUI's first frame, and the cost of writing a streamed reply to the session file.
//!
//! - `session_resume/first_frame/N`: read and parse the file (`session::open_saved`), rebuild
//!   the history and the transcript events, replay them into a fresh `App`, draw one frame on
//!   a 120x40 test terminal. This is what `sayso --resume` does before the first frame (the
//!   agent's own history rebuild is part of `open_saved`).
//! - `session_write/1MiB_stream`: 1 MiB of reply text in 16-byte deltas through the session
//!   writer task (coalescing, appending) against the same deltas into a channel nobody writes.
//!
//! After the groups, the RSS after a 100,000-message resume is printed (Linux).
//!
//! Run: `cargo bench --bench session`.

use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use sayso::events::{CallEnd, Event, EventSink, Mode};
use sayso::provider::{AssistantMessage, StreamDelta, ToolCall};
use sayso::session::live::{LiveSession, Start};
use sayso::session::record::{Header, Record};
use sayso::session::store::{SessionFile, file_of, sessions_dir};
use sayso::tui::app::{App, AppEvent, Status};
use sayso::tui::theme::Theme;

const SIZES: [usize; 3] = [100, 10_000, 100_000];

/// A session of `messages` messages: exchanges of a user message, a tool call with its output,
/// and an answer (4 messages each).
fn write_session(data: &Path, messages: usize) -> String {
    let dir = sessions_dir(data).expect("sessions dir");
    let id = "0000001-abc".to_owned();
    let mut f = SessionFile::create(&file_of(&dir, &id)).expect("file");
    let mut buf = Vec::new();
    let put = |r: &Record, buf: &mut Vec<u8>| {
        buf.extend(serde_json::to_vec(r).expect("json"));
        buf.push(b'\n');
    };
    put(
        &Record::Session(Header {
            v: 1,
            id: id.clone(),
            cwd: "/home/u/src/project".into(),
            model: "m".into(),
            provider: "local".into(),
            started: "2026-12-01T00:00:00Z".into(),
            mode: Mode::Balanced,
            parent: None,
        }),
        &mut buf,
    );
    for k in 0..messages / 4 {
        let text = format!("Why does test number {k} fail? Please look at the config loader.");
        put(
            &Record::Event(Event::UserMessage {
                text: text.clone(),
                sent: text,
            }),
            &mut buf,
        );
        let call = ToolCall {
            id: format!("call_{k}"),
            name: "run_command".into(),
            arguments: format!("{{\"cmd\":\"cargo test case_{k}\"}}"),
        };
        put(
            &Record::Event(Event::ReplyDone(AssistantMessage {
                tool_calls: vec![call.clone()],
                ..AssistantMessage::default()
            })),
            &mut buf,
        );
        put(
            &Record::Event(Event::ToolOutput {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: format!("running 9 tests\ntest case_{k} ... FAILED\n").repeat(4),
                display: None,
            }),
            &mut buf,
        );
        put(
            &Record::Event(Event::ToolFinished {
                call_id: call.id,
                name: call.name,
                end: CallEnd::Error,
            }),
            &mut buf,
        );
        put(
            &Record::Event(Event::ReplyDone(AssistantMessage {
                content: format!(
                    "Test {k} fails because `base_url` is read before the project file.\n\n```rust\nlet url = config.base_url();\n```\n"
                ),
                ..AssistantMessage::default()
            })),
            &mut buf,
        );
    }
    f.append(&buf).expect("write");
    id
}

fn new_app() -> App {
    let status = Status {
        model: "m".into(),
        provider: "local".into(),
        cwd: "~/src/project".into(),
        mode: Mode::Balanced,
        usage: Default::default(),
        context: None,
        sandbox: None,
    };
    let mut app = App::new(Theme::dark(), status, false, Vec::new());
    app.update(AppEvent::Resize(120, 40));
    app
}

/// Open, rebuild, replay, draw: the resume path up to the first frame.
fn resume_to_first_frame(data: &Path, id: &str) -> App {
    let saved = sayso::session::open_saved(data, Some(id), Path::new("/")).expect("saved");
    let mut app = new_app();
    app.update(AppEvent::Agent(Event::Resumed {
        id: saved.id.clone(),
        mode: Mode::Balanced,
        model: "m".into(),
    }));
    for e in saved.resumed.events {
        app.update(AppEvent::Agent(e));
    }
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    term.draw(|f| {
        sayso::tui::ui::draw(
            &mut sayso::tui::screen::Canvas::new(f.buffer_mut()),
            &app,
            Instant::now(),
        );
    })
    .expect("draw");
    black_box(saved.resumed.history.len());
    app
}

fn resume(c: &mut Criterion) {
    let mut g = c.benchmark_group("session_resume");
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    let homes: Vec<(usize, tempfile::TempDir, String)> = SIZES
        .iter()
        .map(|&n| {
            let home = tempfile::tempdir().expect("temp dir");
            let id = write_session(home.path(), n);
            (n, home, id)
        })
        .collect();
    for (n, home, id) in &homes {
        g.bench_function(format!("first_frame/{n}"), |b| {
            b.iter(|| black_box(resume_to_first_frame(home.path(), id)))
        });
    }
    g.finish();
    if let Some((n, home, id)) = homes.last() {
        let app = resume_to_first_frame(home.path(), id);
        let bytes = std::fs::metadata(file_of(&home.path().join("sessions"), id))
            .map(|m| m.len())
            .unwrap_or(0);
        eprintln!(
            "resume of {n} messages ({:.1} MiB file): {} entries, RSS now {} KiB",
            bytes as f64 / 1_048_576.0,
            app.entries().len(),
            rss_kib()
        );
    }
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn write(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let piece = "0123456789abcde ";
    let deltas = 1_048_576 / piece.len();
    let mut g = c.benchmark_group("session_write");
    g.throughput(Throughput::Bytes(1_048_576));
    g.sample_size(20);
    g.bench_function("1MiB_stream/no_session", |b| {
        b.iter(|| {
            rt.block_on(async {
                let (sink, mut rx) = EventSink::channel();
                for _ in 0..deltas {
                    sink.emit(Event::Delta(StreamDelta::Text(piece.into())));
                    while let Ok(e) = rx.try_recv() {
                        black_box(e);
                    }
                }
            })
        })
    });
    g.bench_function("1MiB_stream/with_session", |b| {
        b.iter(|| {
            rt.block_on(async {
                let home = tempfile::tempdir().expect("temp dir");
                let mut live = LiveSession::new(
                    home.path(),
                    Start {
                        cwd: "/p".into(),
                        model: "m".into(),
                        provider: "p".into(),
                        mode: Mode::Balanced,
                    },
                );
                let (front, mut rx) = EventSink::channel();
                let sink = live.sink(&front, || Start {
                    cwd: "/p".into(),
                    model: "m".into(),
                    provider: "p".into(),
                    mode: Mode::Balanced,
                });
                for _ in 0..deltas {
                    sink.emit(Event::Delta(StreamDelta::Text(piece.into())));
                    while let Ok(e) = rx.try_recv() {
                        black_box(e);
                    }
                }
                drop((sink, front));
                black_box(live.close().await)
            })
        })
    });
    g.finish();
}

criterion_group!(benches, resume, write);
criterion_main!(benches);
