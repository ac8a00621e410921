//! Undo's checkpoints (criterion) on a 10,000-file project (100 directories of 100 files):
//!
//! - `checkpoint/before_command_unchanged`: the checkpoint taken before a shell command when
//!   nothing changed since the last one — the walk with the gitignore rules, the stat cache
//!   (no file read), the tree (the last one reused), the pending manifest stored and synced;
//! - `checkpoint/before_and_after_one_changed`: a command's both checkpoints, one file changed
//!   in between;
//! - `checkpoint/git_status`: a plain `git status --porcelain` on the same tree (a repository
//!   of our own, hooks and fsmonitor off), the yardstick the goal is stated against.
//!
//! After the groups: the medians and the ratio to `git status`, and the storage a 100-turn
//! session adds (each turn a command that edits one file).
//!
//! Run: `cargo bench --bench checkpoint`.

use std::hint::black_box;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use sayso::checkpoint::{Recorder, Scope, Store};
use sayso::config::undo::UndoSettings;

fn project(root: &Path) {
    for d in 0..100 {
        let dir = root.join(format!("src/d{d:02}"));
        std::fs::create_dir_all(&dir).expect("dir");
        for f in 0..100 {
            std::fs::write(
                dir.join(format!("f{f:02}.rs")),
                format!("// file {d} {f}\nfn f{f}() {{ println!(\"{d}\"); }}\n"),
            )
            .expect("file");
        }
    }
    std::fs::write(root.join(".gitignore"), "target/\n").expect("gitignore");
}

fn git(root: &Path, args: &[&str]) -> Option<std::process::Output> {
    Command::new("git")
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
        ])
        .args(args)
        .current_dir(root)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .ok()
        .filter(|o| o.status.success())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(n: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("p");
    project(&root);
    let store = Store::open(&dir.path().join("store")).expect("store");
    let rec = Recorder::new(&root, store.clone(), &UndoSettings::default(), &[]);
    // The first checkpoint of a chat keeps every file; the ones measured follow it.
    let (p, _) = rec.before("warm", &Scope::Project).expect("before");
    rec.after(p).expect("after");
    let has_git = git(&root, &["init", "-q"]).is_some()
        && git(&root, &["add", "-A"]).is_some()
        && git(
            &root,
            &[
                "-c",
                "user.name=b",
                "-c",
                "user.email=b@b",
                "commit",
                "-qm",
                "x",
            ],
        )
        .is_some();

    let mut g = c.benchmark_group("checkpoint");
    g.sample_size(30);
    g.bench_function("before_command_unchanged", |b| {
        b.iter(|| black_box(rec.before("c", &Scope::Project).expect("before")))
    });
    let mut n = 0u64;
    g.bench_function("before_and_after_one_changed", |b| {
        b.iter(|| {
            let (p, _) = rec.before("c", &Scope::Project).expect("before");
            n += 1;
            std::fs::write(root.join("src/d42/f07.rs"), format!("// {n}\n")).expect("write");
            black_box(rec.after(p).expect("after"))
        })
    });
    if has_git {
        g.bench_function("git_status", |b| {
            b.iter(|| black_box(git(&root, &["status", "--porcelain"])))
        });
    }
    g.finish();

    let cp = time(30, || {
        black_box(rec.before("c", &Scope::Project).expect("before"));
    });
    eprintln!("checkpoint before a command, 10,000 files, unchanged: {cp:.2?} (median of 30)");
    if has_git {
        let gs = time(30, || {
            black_box(git(&root, &["status", "--porcelain"]));
        });
        eprintln!(
            "git status --porcelain, same tree: {gs:.2?}; checkpoint / git status = {:.2}",
            cp.as_secs_f64() / gs.as_secs_f64()
        );
    } else {
        eprintln!("git is not installed: no git status to compare with");
    }

    // A 100-turn session: each turn one command that edits one file (a line appended).
    let store2 = Store::open(&dir.path().join("store2")).expect("store");
    let rec2 = Recorder::new(&root, store2.clone(), &UndoSettings::default(), &[]);
    let (p, _) = rec2.before("first", &Scope::Project).expect("before");
    rec2.after(p).expect("after");
    let base = store2.total_bytes().expect("size");
    for turn in 0..100 {
        rec2.set_turn(turn);
        let (p, _) = rec2.before("c", &Scope::Project).expect("before");
        let f = root.join(format!(
            "src/d{:02}/f{:02}.rs",
            turn % 100,
            (turn * 7) % 100
        ));
        let mut text = std::fs::read_to_string(&f).expect("read");
        text.push_str(&format!("// turn {turn}\n"));
        std::fs::write(&f, text).expect("write");
        rec2.after(p).expect("after");
    }
    let added = store2.total_bytes().expect("size") - base;
    eprintln!(
        "the project's first checkpoint: {} KiB; 100 turns of one edited file each add {} KiB ({} B a turn)",
        base / 1024,
        added / 1024,
        added / 100
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
