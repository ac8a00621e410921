//! The sandbox's cost per command (BENCHMARKS.md §15): a `true` and a 2,000-process shell loop
//! (a command the size of a test run) started as they are, and through `Sandbox::wrap` with
//! each Linux backend forced (bubblewrap + the seccomp helper; Landlock + seccomp in the
//! helper). The argv are the real ones `wrap` builds, for a project in a temp directory with a
//! `.git`, sayso's directories hidden; the helper is this build's `sayso`.
//!
//! `cargo bench --bench sandbox` (a backend this machine lacks is reported and left out).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use criterion::{Criterion, criterion_group, criterion_main};
use sayso::sandbox::{Backend, BackendChoice, Confinement, Mode, Places, Sandbox, Settings};

struct Tree {
    _dir: tempfile::TempDir,
    project: PathBuf,
    places: Places,
}

fn tree() -> Tree {
    let dir = tempfile::tempdir().expect("a temp dir");
    let root = dir.path().canonicalize().expect("its path");
    let project = root.join("project");
    let hidden = root.join("home/.config/sayso");
    let temp = root.join("tmp");
    for d in [&project.join(".git"), &hidden, &temp] {
        std::fs::create_dir_all(d).expect("the tree");
    }
    let places = Places {
        project: project.clone(),
        hidden: vec![hidden],
        temp,
        own_pid: std::process::id(),
        helper: PathBuf::from(env!("CARGO_BIN_EXE_sayso")),
    };
    Tree {
        _dir: dir,
        project,
        places,
    }
}

fn run(argv: &[String], cwd: &Path) {
    let status = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the command starts");
    assert!(status.success(), "{argv:?} failed: {status}");
}

fn bench(c: &mut Criterion) {
    let t = tree();
    let commands: [(&str, Vec<String>); 2] = [
        ("true", vec!["true".into()]),
        (
            "2000 processes",
            ["sh", "-c", "for i in $(seq 2000); do /bin/true; done"]
                .map(String::from)
                .to_vec(),
        ),
    ];
    let mut backends: Vec<(&str, Option<Sandbox>)> = vec![("unsandboxed", None)];
    for (name, choice) in [
        ("bubblewrap", BackendChoice::Bubblewrap),
        ("landlock", BackendChoice::Landlock),
    ] {
        let settings = Settings {
            mode: Mode::WorkspaceWrite,
            backend: choice,
            ..Settings::default()
        };
        let sandbox = Sandbox::new(settings, t.places.clone());
        match &sandbox.backend {
            Backend::Unavailable(why) => eprintln!("{name} left out: {why}"),
            _ => backends.push((name, Some(sandbox))),
        }
    }
    for (label, argv) in &commands {
        let mut group = c.benchmark_group(format!("sandbox/{label}"));
        if *label != "true" {
            group.sample_size(10);
        }
        for (name, sandbox) in &backends {
            let wrapped = match sandbox {
                None => argv.clone(),
                Some(s) => s
                    .wrap(argv, &t.project, Confinement::Policy)
                    .expect("the sandbox sets up")
                    .expect("the command is wrapped"),
            };
            run(&wrapped, &t.project);
            if *label == "true" && sandbox.is_some() {
                // What runs, to time it as a whole process elsewhere too.
                eprintln!("{name}: {}", shell_words::join(&wrapped));
            }
            group.bench_function(*name, |b| b.iter(|| run(&wrapped, &t.project)));
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
