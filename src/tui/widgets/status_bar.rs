//! The one-line status bar: mode, sandbox, model, provider, working directory, tokens, the
//! context gauge, the scroll marker and what is happening.
//!
//! When the line is wider than the terminal, parts give way in a fixed order ([`GIVE_WAY`]):
//! the directory first, then the provider, the token counts, the sandbox's `sandbox: ` label
//! (in the warning style when it fell back to off), the model's long name, the gauge's
//! detail, the scroll hint's words, the activity's detail, then the model, the sandbox, the
//! scroll hint and the gauge altogether; an activity still too long is cut with `…` last. The mode and
//! "waiting for your approval" (or "… answer") never give way (a bar narrower than both cuts at the edge).
//! The layout is a pure function of the parts' texts ([`fit`]), tested without a terminal.

use std::time::Instant;

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::events::{Mode, SandboxReport};
use crate::tui::app::App;
use crate::tui::wrap::truncate_spans;

/// A piece of the bar, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Mode,
    Sandbox,
    Model,
    Provider,
    Cwd,
    Tokens,
    Gauge,
    Scrolled,
    Activity,
}

/// What gives way as the bar narrows, first to last: each step takes that part to its next
/// shorter form (a part listed twice shortens, then goes). Parts not listed never go.
pub const GIVE_WAY: &[Part] = &[
    Part::Cwd,
    Part::Provider,
    Part::Tokens,
    Part::Sandbox,
    Part::Model,
    Part::Gauge,
    Part::Scrolled,
    Part::Activity,
    Part::Model,
    Part::Sandbox,
    Part::Scrolled,
    Part::Gauge,
];

/// One part and its forms, longest first. A part that may disappear ends with an empty form;
/// one that may not (the mode, waiting for approval) has no empty form.
#[derive(Debug, Clone)]
pub struct Segment {
    pub part: Part,
    pub forms: Vec<String>,
    pub style: Style,
    /// May be cut with `…` when nothing else is left to give way.
    pub cuttable: bool,
}

impl Segment {
    fn new(part: Part, forms: Vec<String>, style: Style) -> Self {
        Self {
            part,
            forms,
            style,
            cuttable: false,
        }
    }
}

fn tokens(n: Option<u64>) -> String {
    match n.unwrap_or(0) {
        n if n >= 10_000 => format!("{:.0}k", n as f64 / 1000.0),
        n if n >= 1_000 => format!("{:.1}k", n as f64 / 1000.0),
        n => n.to_string(),
    }
}

/// The model's name for a narrow bar: without an `org/` prefix, at most 20 columns.
fn short_model(model: &str) -> String {
    let name = model.rsplit('/').next().unwrap_or(model);
    truncate_spans(&[Span::raw(name.to_owned())], 20, true)
        .iter()
        .map(|s| s.content.as_ref())
        .collect()
}

/// The spans of the bar for `width` columns: the segments in order, each at the longest form
/// that lets the whole line fit after the steps of [`GIVE_WAY`], separated in `sep` style;
/// the fill is the caller's.
pub fn fit(segments: &[Segment], width: usize, sep: Style) -> Vec<Span<'static>> {
    let mut level = vec![0usize; segments.len()];
    let line_width = |level: &[usize]| -> usize {
        let (spans, _) = render(segments, level, sep);
        spans.iter().map(|s| s.width()).sum()
    };
    for part in GIVE_WAY {
        if line_width(&level) <= width {
            break;
        }
        for (i, s) in segments.iter().enumerate() {
            if s.part == *part {
                level[i] = (level[i] + 1).min(s.forms.len().saturating_sub(1));
            }
        }
    }
    let (mut spans, cuttable) = render(segments, &level, sep);
    let over = spans
        .iter()
        .map(|s| s.width())
        .sum::<usize>()
        .saturating_sub(width);
    if over > 0
        && let Some(k) = cuttable
    {
        let room = spans[k].width().saturating_sub(over).max(2);
        let cut = truncate_spans(&[spans[k].clone()], room, true);
        spans.splice(k..=k, cut);
    }
    spans
}

/// The line for the given levels: the mode as it is, then `" "` and the first part after it,
/// `" · "` and each of the others; and which span holds the cuttable part, if one is shown.
fn render(
    segments: &[Segment],
    level: &[usize],
    sep: Style,
) -> (Vec<Span<'static>>, Option<usize>) {
    let mut spans = Vec::new();
    let mut cuttable = None;
    let mut after_mode = 0;
    for (s, &l) in segments.iter().zip(level) {
        let Some(text) = s.forms.get(l).filter(|t| !t.is_empty()) else {
            continue;
        };
        if s.part != Part::Mode {
            let before = if after_mode == 0 { " " } else { " · " };
            after_mode += 1;
            spans.push(Span::styled(before, sep));
        }
        if s.cuttable {
            cuttable = Some(spans.len());
        }
        spans.push(Span::styled(text.clone(), s.style));
    }
    (spans, cuttable)
}

/// The bar's parts as this app shows them now.
pub fn segments(app: &App, now: Instant) -> Vec<Segment> {
    let t = app.theme();
    let st = app.status();
    let bar = t.status_bar;
    let mode_style = match st.mode {
        Mode::Balanced | Mode::Suggest | Mode::Strict => t.mode_normal,
        Mode::Auto | Mode::Trust => t.mode_auto,
    };
    let mut out = vec![Segment::new(Part::Mode, vec![app.mode_label()], mode_style)];
    out.extend(st.sandbox.as_ref().map(|r| sandbox(r, bar, t.mode_auto)));
    out.extend([
        Segment::new(
            Part::Model,
            vec![st.model.clone(), short_model(&st.model), String::new()],
            bar,
        ),
        Segment::new(
            Part::Provider,
            vec![st.provider.clone(), String::new()],
            bar,
        ),
        Segment::new(Part::Cwd, vec![st.cwd.clone(), String::new()], bar),
        Segment::new(
            Part::Tokens,
            vec![
                format!(
                    "{} in / {} out",
                    tokens(st.usage.prompt_tokens),
                    tokens(st.usage.completion_tokens)
                ),
                String::new(),
            ],
            bar,
        ),
    ]);
    if let Some((used, window, estimated)) = st.context {
        let percent = used * 100 / window.max(1);
        let style = if percent >= 85 { t.mode_auto } else { bar };
        let approx = if estimated { "~" } else { "" };
        out.push(Segment::new(
            Part::Gauge,
            vec![
                format!("ctx {approx}{percent}% of {}", tokens(Some(window))),
                format!("ctx {approx}{percent}%"),
                String::new(),
            ],
            style,
        ));
    }
    if !app.chat().following() {
        out.push(Segment::new(
            Part::Scrolled,
            vec!["scrolled ↑ (End)".into(), "↑ End".into(), String::new()],
            bar,
        ));
    }
    let forms = app.activity_forms(now);
    if !forms.is_empty() {
        let mut s = Segment::new(Part::Activity, forms, bar);
        s.cuttable = !app.awaiting_answer();
        out.push(s);
    }
    out
}

/// The sandbox's part: its mode in force, in `warn` style when it fell back to off.
fn sandbox(r: &SandboxReport, bar: Style, warn: Style) -> Segment {
    let (short, style) = if r.fell_back() {
        ("no sandbox".to_owned(), warn)
    } else {
        (r.mode_words(), bar)
    };
    let forms = vec![format!("sandbox: {}", r.mode_words()), short, String::new()];
    Segment::new(Part::Sandbox, forms, style)
}

pub fn draw(f: &mut Canvas, area: Rect, app: &App, now: Instant) {
    let width = area.width as usize;
    let mut spans = fit(&segments(app, now), width, app.theme().status_bar);
    let used: usize = spans.iter().map(|s| s.width()).sum();
    spans.push(Span::styled(
        " ".repeat(width.saturating_sub(used)),
        app.theme().status_bar,
    ));
    f.render_line(Line::from(spans), area);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::wrap::str_width;

    fn text(spans: &[Span<'static>]) -> String {
        spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn seg(part: Part, forms: &[&str]) -> Segment {
        Segment::new(
            part,
            forms.iter().map(|f| f.to_string()).collect(),
            Style::default(),
        )
    }

    /// A busy bar waiting for approval: every part there is.
    fn bar(activity: &[&str], cuttable: bool) -> Vec<Segment> {
        let mut act = seg(Part::Activity, activity);
        act.cuttable = cuttable;
        vec![
            seg(Part::Mode, &[" BALANCED "]),
            seg(
                Part::Model,
                &[
                    "org/qwen2.5-coder-32b-instruct-long-name",
                    "qwen2.5-coder-32b-i…",
                    "",
                ],
            ),
            seg(Part::Provider, &["local", ""]),
            seg(Part::Cwd, &["~/src/a/rather/deep/project", ""]),
            seg(Part::Tokens, &["1.2k in / 300 out", ""]),
            seg(Part::Gauge, &["ctx ~17% of 128k", "ctx ~17%", ""]),
            seg(Part::Scrolled, &["scrolled ↑ (End)", "↑ End", ""]),
            act,
        ]
    }

    fn shown(width: usize, segments: &[Segment]) -> String {
        let spans = fit(segments, width, Style::default());
        let t = text(&spans);
        assert!(
            str_width(&t) <= width.max(str_width(" BALANCED  waiting for your approval")),
            "{t:?} is wider than {width}"
        );
        t
    }

    #[test]
    fn a_wide_bar_shows_everything_in_order() {
        let t = shown(200, &bar(&["waiting for your approval"], false));
        assert_eq!(
            t,
            " BALANCED  org/qwen2.5-coder-32b-instruct-long-name · local · ~/src/a/rather/deep/project · 1.2k in / 300 out · ctx ~17% of 128k · scrolled ↑ (End) · waiting for your approval"
        );
    }

    #[test]
    fn parts_give_way_in_their_order_as_the_bar_narrows() {
        let segs = bar(&["waiting for your approval"], false);
        let full = str_width(&shown(1000, &segs));
        let mut seen = Vec::new();
        for width in (1..=full).rev() {
            let t = shown(width, &segs);
            let has = |s: &str| t.contains(s);
            let state = (
                has("~/src"),
                has("local"),
                has("1.2k in"),
                has("org/"),
                has("of 128k"),
                has("scrolled"),
                has("qwen"),
                has("↑ End"),
                has("ctx"),
            );
            if seen.last() != Some(&state) {
                seen.push(state);
            }
            // Never gone, whatever the width.
            assert!(t.starts_with(" BALANCED "), "{width}: {t:?}");
            if width >= 36 {
                assert!(t.contains("waiting for your approval"), "{width}: {t:?}");
            }
        }
        let (y, n) = (true, false);
        assert_eq!(
            seen,
            [
                (y, y, y, y, y, y, y, n, y),
                (n, y, y, y, y, y, y, n, y),
                (n, n, y, y, y, y, y, n, y),
                (n, n, n, y, y, y, y, n, y),
                (n, n, n, n, y, y, y, n, y),
                (n, n, n, n, n, y, y, n, y),
                (n, n, n, n, n, n, y, y, y),
                (n, n, n, n, n, n, n, y, y),
                (n, n, n, n, n, n, n, n, y),
                (n, n, n, n, n, n, n, n, n),
            ]
        );
    }

    #[test]
    fn at_fifty_columns_the_mode_approval_and_gauge_stay() {
        let t = shown(50, &bar(&["waiting for your approval"], false));
        assert_eq!(t, " BALANCED  ctx ~17% · waiting for your approval");
    }

    #[test]
    fn an_activity_shortens_then_is_cut_last() {
        let segs = bar(&["waiting for the first token · 3s", "waiting · 3s"], true);
        assert_eq!(
            shown(60, &segs),
            " BALANCED  ctx ~17% · ↑ End · waiting · 3s"
        );
        let t = shown(18, &segs);
        assert!(t.starts_with(" BALANCED  wait"), "{t:?}");
        assert!(t.contains('…'), "{t:?}");
        assert!(str_width(&t) <= 18, "{t:?}");
    }

    /// The bar of an app whose chat runs in `sandbox`.
    fn with_sandbox(sandbox: SandboxReport) -> (App, Vec<Segment>) {
        let mut status = crate::tui::tests_support::app().status().clone();
        status.sandbox = Some(sandbox);
        let app = App::new(crate::tui::theme::Theme::dark(), status, false, Vec::new());
        let segs = segments(&app, Instant::now());
        (app, segs)
    }

    fn report(mode: crate::sandbox::Mode, backend: Result<String, String>) -> SandboxReport {
        SandboxReport {
            configured: crate::sandbox::Mode::WorkspaceWrite,
            in_force: mode,
            backend,
            network: false,
            loopback: None,
            writable: vec![],
            protected: vec![],
            hidden: vec![],
            limits: vec![],
        }
    }

    #[test]
    fn the_sandbox_shows_next_to_the_mode_and_warns_when_it_fell_back() {
        use crate::sandbox::Mode as Sandbox;
        let (app, segs) = with_sandbox(report(Sandbox::WorkspaceWrite, Ok("bwrap".into())));
        assert_eq!(
            shown(200, &segs),
            " BALANCED  sandbox: workspace-write · qwen2.5-coder · local · ~/src/proj · 0 in / 0 out"
        );
        assert_eq!(segs[1].style, app.theme().status_bar);
        // Narrower: the label goes before the model does; the mode stays.
        assert_eq!(
            shown(50, &segs),
            " BALANCED  workspace-write · qwen2.5-coder"
        );
        assert_eq!(shown(30, &segs), " BALANCED  workspace-write");
        // Narrower still, it goes after the model, before the gauge would.
        assert_eq!(shown(20, &segs), " BALANCED ");

        let (app, segs) = with_sandbox(report(Sandbox::Off, Err("no bwrap".into())));
        assert!(shown(200, &segs).starts_with(" BALANCED  sandbox: off (no backend) · qwen"));
        assert_eq!(segs[1].style, app.theme().mode_auto, "the warning style");
        assert_eq!(shown(30, &segs), " BALANCED  no sandbox");
        let (_, segs) = with_sandbox(report(Sandbox::ReadOnly, Ok("landlock".into())));
        assert!(shown(200, &segs).starts_with(" BALANCED  sandbox: read-only · "));
    }

    #[test]
    fn a_long_model_name_loses_its_org_then_is_cut() {
        assert_eq!(short_model("org/qwen"), "qwen");
        assert_eq!(
            short_model("qwen2.5-coder-32b-instruct-q4_k_m"),
            "qwen2.5-coder-32b-i…"
        );
    }
}
