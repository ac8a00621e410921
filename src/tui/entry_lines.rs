//! One transcript entry → styled, wrapped lines for a given width. Pure functions of the entry
//! and a few display facts (what is expanded, how long a tool has been running). A tool
//! block's command, output and diffs and sayso's notices show their invisible characters
//! (`tabs::reveal`); the model's prose and the user's messages are drawn as written.

use std::time::Duration;

use ratatui::text::{Line, Span};

use super::diff_view;
use super::markdown::render_markdown;
use super::strings;
use super::theme::Theme;
use super::wrap::{wrap_line, wrap_line_indent};
use crate::events::CallEnd;
use crate::tui::transcript::{Entry, ToolState};

/// Lines shown of a folded tool or reasoning block.
pub const FOLDED_LINES: usize = 4;

pub struct Facts<'a> {
    pub theme: &'a Theme,
    pub width: u16,
    pub expanded: bool,
    /// Selected with Tab: the first line is highlighted.
    pub selected: bool,
    /// How long the tool has been running, when it is.
    pub elapsed: Option<Duration>,
    /// Reasoning drawn in full; else its one header line says it is hidden.
    pub show_reasoning: bool,
}

fn plain_wrapped(
    text: &str,
    style: ratatui::style::Style,
    indent: &str,
    width: u16,
) -> Vec<Line<'static>> {
    wrapped(text, style, indent, width, false)
}

/// [`plain_wrapped`] with its invisible characters drawn (`tabs::reveal`): for what tools did
/// and what sayso says, not for the model's prose.
fn revealed_wrapped(
    text: &str,
    style: ratatui::style::Style,
    indent: &str,
    width: u16,
) -> Vec<Line<'static>> {
    wrapped(text, style, indent, width, true)
}

fn wrapped(
    text: &str,
    style: ratatui::style::Style,
    indent: &str,
    width: u16,
    reveal: bool,
) -> Vec<Line<'static>> {
    let indent_spans = vec![Span::raw(indent.to_owned())];
    text.lines()
        .flat_map(|l| {
            let line = Line::from(vec![
                Span::raw(indent.to_owned()),
                Span::styled(l.to_owned(), style),
            ]);
            let line = if reveal {
                super::tabs::reveal(line)
            } else {
                line
            };
            wrap_line_indent(&line, width, &indent_spans)
        })
        .collect()
}

/// Folds `lines` to the first few plus a "… N more lines" note, unless expanded.
fn fold(
    mut lines: Vec<Line<'static>>,
    expanded: bool,
    theme: &Theme,
    what: &str,
) -> Vec<Line<'static>> {
    if expanded || lines.len() <= FOLDED_LINES + 1 {
        return lines;
    }
    let hidden = lines.len() - FOLDED_LINES;
    lines.truncate(FOLDED_LINES);
    lines.push(Line::from(Span::styled(
        format!("  … {hidden} more {what} lines (Tab to expand)"),
        theme.dim,
    )));
    lines
}

pub fn tool_icon(state: ToolState) -> &'static str {
    match state {
        ToolState::Queued => "○",
        ToolState::AwaitingApproval => "?",
        ToolState::Running => "◐",
        ToolState::Done(CallEnd::Success) => "✓",
        ToolState::Done(CallEnd::Error) => "✗",
        ToolState::Done(CallEnd::Rejected) => "⊘",
        ToolState::Done(CallEnd::Cancelled) => "⏹",
    }
}

fn state_text(state: ToolState, elapsed: Option<Duration>) -> String {
    match state {
        ToolState::Queued => "queued".into(),
        ToolState::AwaitingApproval => "awaiting approval".into(),
        ToolState::Running => match elapsed {
            Some(d) => format!("running {}s", d.as_secs()),
            None => "running".into(),
        },
        ToolState::Done(CallEnd::Success) => "done".into(),
        ToolState::Done(CallEnd::Error) => "failed".into(),
        ToolState::Done(CallEnd::Rejected) => "rejected".into(),
        ToolState::Done(CallEnd::Cancelled) => "cancelled".into(),
    }
}

/// The lines of one entry, ending with a blank separator line.
pub fn entry_lines(entry: &Entry, f: &Facts) -> Vec<Line<'static>> {
    let t = f.theme;
    let w = f.width.max(8);
    let mut lines: Vec<Line<'static>> = match entry {
        Entry::User { text } => user_lines(text, t, w),
        Entry::Assistant { text, interrupted } => {
            let mut out = render_markdown(text, w, t);
            if *interrupted {
                out.push(Line::from(Span::styled(strings::INTERRUPTED, t.dim)));
            }
            out
        }
        Entry::Compaction {
            summary,
            before,
            after,
        } => {
            let mut out = vec![Line::from(Span::styled(
                format!(
                    "⧉ compacted: the older conversation (~{before} tokens) is now this summary (~{after} tokens in all)"
                ),
                t.notice,
            ))];
            out.extend(plain_wrapped(summary.trim(), t.dim, "  ", w));
            fold(out, f.expanded, t, "summary")
        }
        Entry::Reasoning { text } if !f.show_reasoning => vec![Line::from(Span::styled(
            strings::reasoning_hidden(text.trim().lines().count()),
            t.reasoning,
        ))],
        Entry::Reasoning { text } => {
            let mut out = vec![Line::from(Span::styled("thinking", t.reasoning))];
            out.extend(plain_wrapped(text.trim(), t.reasoning, "  ", w));
            fold(out, f.expanded, t, "thinking")
        }
        Entry::Tool {
            name,
            cmd_string,
            state,
            content,
            display,
            judge,
            unasked,
            changes,
            ..
        } => {
            let mut out = tool_header(name, cmd_string, *state, f, w);
            // Why it ran without anyone being asked, in one dim line (the judge's verdict is
            // in it when the judge let it run).
            if let Some(why) = unasked {
                out.extend(plain_wrapped(&why.line(), t.dim, "  ", w));
            }
            let judge = judge
                .as_ref()
                .filter(|_| !matches!(unasked, Some(crate::events::Unasked::Judge { .. })));
            if let Some((safe, reason)) = judge {
                let verdict = if *safe {
                    "judge: safe"
                } else {
                    "judge: unsafe"
                };
                out.extend(revealed_wrapped(
                    &format!("{verdict} — {reason}"),
                    t.notice,
                    "  ",
                    w,
                ));
            }
            out.extend(tool_output(content, display.as_deref(), changes, f, w));
            out
        }
        Entry::Changes { files } => diff_view::changes_lines(files, f.expanded, t, w),
        Entry::Notice { text } => {
            let style = if text.starts_with('✗') {
                t.error
            } else {
                t.notice
            };
            revealed_wrapped(text, style, "", w)
        }
    };
    if f.selected
        && let Some(first) = lines.first_mut()
    {
        first.spans.insert(0, Span::styled("▶ ", t.strong));
        *first = first.clone().patch_style(t.selected);
    }
    lines.push(Line::default());
    // Whatever the renderers did, never hand the pane a line wider than it is.
    lines.into_iter().flat_map(|l| wrap_line(&l, w)).collect()
}

/// A user message: `› ` before the first line, the rest indented under it.
fn user_lines(text: &str, t: &Theme, w: u16) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let lead = if i == 0 {
            Span::styled("› ", t.user_label)
        } else {
            Span::raw("  ")
        };
        let line = Line::from(vec![lead, Span::styled(l.to_owned(), t.user_text)]);
        out.extend(wrap_line_indent(&line, w, &[Span::raw("  ")]));
    }
    if out.is_empty() {
        out.push(Line::from(Span::styled("› ", t.user_label)));
    }
    out
}

/// A tool call's header: state icon, name, the command without the repeated name, and state.
fn tool_header(
    name: &str,
    cmd_string: &str,
    state: ToolState,
    f: &Facts,
    w: u16,
) -> Vec<Line<'static>> {
    let t = f.theme;
    let icon_style = match state {
        ToolState::Done(CallEnd::Success) => t.tool_ok,
        ToolState::Done(_) => t.tool_err,
        ToolState::Running => t.tool_running,
        ToolState::Queued | ToolState::AwaitingApproval => t.tool_waiting,
    };
    let mut header = vec![
        Span::styled(format!("{} ", tool_icon(state)), icon_style),
        Span::styled(name.to_owned(), t.tool_name),
    ];
    // `create_file x` under the name `create_file` reads better as just `x`.
    let detail = cmd_string
        .strip_prefix(name)
        .map(str::trim_start)
        .unwrap_or(cmd_string);
    if !detail.is_empty() {
        header.push(Span::raw(" "));
        header.push(Span::styled(detail.replace('\n', " ⏎ "), t.dim));
    }
    header.push(Span::styled(
        format!(" · {}", state_text(state, f.elapsed)),
        icon_style,
    ));
    wrap_line_indent(
        &super::tabs::reveal(Line::from(header)),
        w,
        &[Span::raw("    ")],
    )
}

/// A tool's output as the user sees it, folded, then the diffs of the files it changed (folded
/// on their own); expanded, also what the model was sent when that differs.
fn tool_output(
    content: &str,
    display: Option<&str>,
    changes: &[crate::events::FileChange],
    f: &Facts,
    w: u16,
) -> Vec<Line<'static>> {
    let t = f.theme;
    let shown = display.unwrap_or(content);
    let mut body = fold(
        revealed_wrapped(shown.trim_end(), t.text, "  ", w),
        f.expanded,
        t,
        "output",
    );
    body.extend(diff_view::change_lines(changes, f.expanded, t, w));
    if f.expanded && !content.is_empty() && display != Some(content) {
        body.push(Line::from(Span::styled(
            format!("  {}", strings::SENT_TO_MODEL),
            t.dim,
        )));
        body.extend(revealed_wrapped(content.trim_end(), t.dim, "  │ ", w));
    }
    body
}

/// Whether an entry can be folded (Tab selects it, Enter toggles it).
pub fn foldable(entry: &Entry) -> bool {
    matches!(
        entry,
        Entry::Tool { .. }
            | Entry::Reasoning { .. }
            | Entry::Compaction { .. }
            | Entry::Changes { .. }
    )
}
