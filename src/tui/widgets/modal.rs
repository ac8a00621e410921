//! The approval modal: centred over the chat, which stays visible around it (SPEC §6.4).
//!
//! Every line is wrapped to the modal's width, never cut: on a narrow terminal the modal takes
//! the whole width (below 60 columns), the choices flow onto as many rows as they need (a
//! choice never splits), and when rows are short the choices and their explanation keep their
//! place first, then the prompt; the body (diff or arguments) scrolls in what is left.

use crate::tui::screen::Canvas;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::input::LineInput;
use crate::tui::modal::{CHOICE_KEYS, CHOICES};
use crate::tui::strings;
use crate::tui::theme::Theme;
use crate::tui::wrap::{wrap_line, wrap_line_indent, wrap_line_prefixed};

/// The modal's rectangle: most of the screen, leaving the chat visible around it.
pub fn area(screen: Rect) -> Rect {
    sized(screen, u16::MAX)
}

/// Like [`area`], but no taller than `content` rows (plus the border).
pub fn sized(screen: Rect, content: u16) -> Rect {
    let w = (screen.width.saturating_mul(4) / 5).clamp(60.min(screen.width), 110.min(screen.width));
    let h = (screen.height.saturating_mul(4) / 5)
        .max(8.min(screen.height))
        .min(content.saturating_add(2).max(8))
        .min(screen.height);
    Rect {
        x: screen.x + (screen.width - w) / 2,
        y: screen.y + (screen.height - h) / 2,
        width: w,
        height: h,
    }
}

pub fn draw(f: &mut Canvas, screen: Rect, app: &App) {
    let Some(m) = app.modal() else { return };
    let t = &app.theme();
    let probe = area(screen);
    let width = probe.width.saturating_sub(2).max(1);
    let (head, foot) = parts(app, m, width);
    let body_rows: usize = m.body.iter().map(|l| wrap_line(l, width).len()).sum();
    let rect = sized(screen, (head.len() + 1 + body_rows + foot.len() + 1) as u16);
    f.render_widget(Clear, rect);
    let title = if m.total > 1 {
        format!(" Approval needed — {} of {} ", m.position, m.total)
    } else {
        " Approval needed ".to_owned()
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.modal_border)
        .title(Span::styled(title, t.modal_title));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    // The choices first, then the prompt, then the body: each gets what is left.
    let foot_h = (foot.len() as u16 + 1).min(inner.height);
    let head_h = (head.len() as u16 + 1).min(inner.height - foot_h);
    let [head_area, body_area, foot_area] = Layout::vertical([
        Constraint::Length(head_h),
        Constraint::Fill(1),
        Constraint::Length(foot_h),
    ])
    .areas(inner);
    f.render_widget(Paragraph::new(head), head_area);
    let body: Vec<Line<'static>> = m
        .body
        .iter()
        .flat_map(|l| wrap_line(l, width))
        .skip(m.scroll as usize)
        .take(body_area.height as usize)
        .collect();
    let more = body_rows.saturating_sub(m.scroll as usize + body_area.height as usize);
    f.render_widget(Paragraph::new(body), body_area);
    if more > 0 && body_area.height > 0 {
        let marker = Rect {
            y: body_area.y + body_area.height - 1,
            height: 1,
            ..body_area
        };
        f.render_widget(
            Paragraph::new(Line::from(Span::styled(
                format!(" ↓ {more} more lines ",),
                t.marker,
            ))),
            marker,
        );
    }
    let foot_inner = Rect {
        y: foot_area.y + 1,
        height: foot_area.height.saturating_sub(1),
        ..foot_area
    };
    f.render_widget(Paragraph::new(foot), foot_inner);
}

type Lines = Vec<Line<'static>>;

/// A one-line input as `> text`, wrapped to `width` under its first character: the character
/// under the cursor reversed, or a block after the text when the cursor is at its end.
pub(super) fn input_lines(input: &LineInput, t: &Theme, width: u16) -> Lines {
    let text: Vec<char> = input.text().chars().collect();
    let at = input.cursor().min(text.len());
    let before: String = text[..at].iter().collect();
    let mut spans = vec![Span::raw("> "), Span::raw(before)];
    match text.get(at) {
        Some(c) => {
            spans.push(Span::styled(
                c.to_string(),
                Style::default().add_modifier(Modifier::REVERSED),
            ));
            spans.push(Span::raw(text[at + 1..].iter().collect::<String>()));
        }
        None => spans.push(Span::styled("█", t.dim)),
    }
    wrap_line_indent(&Line::from(spans), width, &[Span::raw("  ")])
}

/// Lays `buttons` out in rows of `width` columns, a space between two, never splitting one
/// (a button wider than a whole row is wrapped on its own).
fn flow(buttons: Vec<Span<'static>>, width: u16) -> Lines {
    let width = usize::from(width);
    let mut lines: Lines = Vec::new();
    let mut row: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for b in buttons {
        let w = b.width();
        if !row.is_empty() && used + 1 + w > width {
            lines.push(Line::from(std::mem::take(&mut row)));
            used = 0;
        }
        if !row.is_empty() {
            row.push(Span::raw(" "));
            used += 1;
        }
        used += w;
        row.push(b);
    }
    if !row.is_empty() {
        lines.push(Line::from(row));
    }
    lines
        .iter()
        .flat_map(|l| wrap_line(l, width as u16))
        .collect()
}

/// The modal's fixed top (prompt, command, judge reason) and bottom (choices or reason input).
fn parts(app: &App, m: &crate::tui::modal::ApprovalModal, width: u16) -> (Lines, Lines) {
    let t = &app.theme();

    let mut head: Vec<Line<'static>> = Vec::new();
    head.extend(wrap_line(
        &Line::from(Span::styled(m.prompt.clone(), t.strong)),
        width,
    ));
    // A shell command reads as one; another tool's call as `tool: <what it does>`.
    let command = if !m.cmd_string.starts_with(&m.tool) {
        Line::from(vec![
            Span::styled("$ ", t.dim),
            Span::styled(m.cmd_string.replace('\n', " ⏎ "), t.code_inline),
        ])
    } else {
        Line::from(vec![
            Span::styled("tool: ", t.dim),
            Span::styled(m.cmd_string.clone(), t.tool_name),
        ])
    };
    head.extend(wrap_line(&crate::tui::tabs::reveal(command), width));
    if m.hidden > 0 {
        head.extend(wrap_line(
            &Line::from(Span::styled(strings::invisible_in_call(m.hidden), t.notice)),
            width,
        ));
    }
    if let Some(denial) = &m.rerun {
        // A rerun outside the sandbox: what it denied, and what accepting does.
        for text in [
            format!("⚠ The sandbox denied {}, and the command failed.", denial.what),
            "Accept runs this same command once more, outside the sandbox: nothing then limits what it writes or reaches.".to_owned(),
        ] {
            head.extend(wrap_line(&Line::from(Span::styled(text, t.notice)), width));
        }
    } else if let Some(caution) = &m.caution {
        head.extend(wrap_line(
            &Line::from(Span::styled(format!("⚠ {caution}"), t.notice)),
            width,
        ));
    }
    if let Some(reason) = &m.judge_reason {
        head.extend(wrap_line(
            &Line::from(Span::styled(
                format!("The judge sent this to you: {reason}"),
                t.notice,
            )),
            width,
        ));
    }

    let wrapped = |text: String, style| wrap_line(&Line::from(Span::styled(text, style)), width);
    if let Some(chosen) = m.saving {
        let mut foot = wrapped(m.save_prompt().into(), t.dim);
        if let Some(note) = &m.rules_note {
            foot.extend(wrapped(note.clone(), t.dim));
        }
        for i in 0..m.rules.len() {
            let style = if i == chosen {
                t.choice_selected
            } else {
                t.choice
            };
            foot.extend(wrap_line(
                &crate::tui::tabs::reveal(Line::from(Span::styled(
                    format!(" [{}] {} ", i + 1, m.rule_words(i)),
                    style,
                ))),
                width,
            ));
        }
        for l in m.rule_text(chosen).lines() {
            let code =
                crate::tui::tabs::reveal(Line::from(Span::styled(l.to_owned(), t.code_inline)));
            foot.extend(wrap_line_prefixed(
                &code,
                width,
                &[Span::raw("    ")],
                &[Span::raw("      ")],
            ));
        }
        return (head, foot);
    }
    let foot: Vec<Line<'static>> = match &m.reason {
        Some(reason) => {
            let mut lines = wrapped(strings::REASON_PROMPT.into(), t.dim);
            lines.extend(input_lines(reason, t, width));
            lines
        }
        None => {
            let buttons: Vec<Span<'static>> = CHOICES
                .iter()
                .enumerate()
                .map(|(i, label)| {
                    let style = if i == m.selected {
                        t.choice_selected
                    } else {
                        t.choice
                    };
                    Span::styled(format!(" [{}] {label} ", CHOICE_KEYS[i]), style)
                })
                .collect();
            let mut lines = flow(buttons, width);
            lines.extend(wrapped(m.always_label(), t.dim));
            if let Some(hint) = m.save_hint() {
                lines.extend(wrapped(hint, t.dim));
            }
            lines
        }
    };

    (head, foot)
}
