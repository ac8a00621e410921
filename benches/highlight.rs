//! Syntax highlighting's start-up and steady costs (`sayso::tui::highlight`). See BENCHMARKS.md.
//!
//! - `highlight_load/assets`: what the first highlighted block pays once per process: two-face's
//!   syntax set and bat's `ansi` theme deserialized.
//! - `highlight_load/first_block/{rust,python,bash}`: the first block in a language on a freshly
//!   loaded syntax set: its regexes compile lazily on first use, which is why
//!   `highlight::warm_up` primes these three at start-up. The set is loaded outside the timing.
//! - `highlight/warm/{rust,python,bash}`: `highlight_code` on the same one-line block after
//!   `warm_up`, the cost of every later block.
//!
//! Run: `cargo bench --bench highlight`.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use sayso::tui::highlight::{highlight_code, warm_up};
use syntect::easy::HighlightLines;
use syntect::parsing::SyntaxSet;
use two_face::theme::EmbeddedThemeName;

/// (language, file extension, one line of code), as `warm_up` primes them.
const SAMPLES: [(&str, &str, &str); 3] = [
    (
        "rust",
        "rs",
        "fn f(x: &str) -> u8 { let s = \"a\"; 1 } // c\n",
    ),
    ("python", "py", "def f(x):\n    return \"a\" # c\n"),
    ("bash", "sh", "for f in *; do echo \"$f\"; done # c\n"),
];

fn load(c: &mut Criterion) {
    let mut g = c.benchmark_group("highlight_load");
    g.sample_size(20);
    g.bench_function("assets", |b| {
        b.iter(|| {
            let syntaxes = two_face::syntax::extra_newlines();
            let theme = two_face::theme::extra()
                .get(EmbeddedThemeName::Ansi)
                .clone();
            black_box((syntaxes, theme))
        })
    });
    let theme = two_face::theme::extra()
        .get(EmbeddedThemeName::Ansi)
        .clone();
    for (lang, ext, code) in SAMPLES {
        g.bench_function(format!("first_block/{lang}"), |b| {
            b.iter_batched(
                two_face::syntax::extra_newlines,
                |syntaxes: SyntaxSet| {
                    let syntax = syntaxes
                        .find_syntax_by_extension(ext)
                        .expect("two-face knows the language");
                    let mut h = HighlightLines::new(syntax, &theme);
                    for line in code.split_inclusive('\n') {
                        black_box(h.highlight_line(line, &syntaxes).expect("highlights"));
                    }
                    syntaxes
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

fn warm(c: &mut Criterion) {
    warm_up();
    let mut g = c.benchmark_group("highlight");
    for (lang, _, code) in SAMPLES {
        g.bench_function(format!("warm/{lang}"), |b| {
            b.iter(|| black_box(highlight_code(black_box(code), lang)))
        });
    }
    g.finish();
}

criterion_group!(benches, load, warm);
criterion_main!(benches);
