//! The `ask_questions` form, drawn like the approval modal.

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::wrap::wrap_line;

pub fn draw(f: &mut Canvas, screen: Rect, app: &App) {
    let Some(form) = app.form() else { return };
    let Some(q) = form.question() else { return };
    let t = &app.theme();
    let rect = super::modal::area(screen);
    f.render_widget(Clear, rect);
    let title = format!(
        " {} — question {} of {} ",
        q.header,
        form.current + 1,
        form.questions.len()
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.modal_border)
        .title(Span::styled(title, t.modal_title));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    let w = inner.width.max(1);
    let mut lines: Vec<Line<'static>> =
        wrap_line(&Line::from(Span::styled(q.question.clone(), t.strong)), w);
    lines.push(Line::default());
    if q.options.is_empty() {
        lines.extend(super::modal::input_lines(&form.text, t, w));
        lines.push(Line::default());
        lines.push(Line::from(Span::styled("Enter answer · Esc skip", t.dim)));
    } else {
        for (i, o) in q.options.iter().enumerate() {
            let mark = if q.multi_select {
                if form.ticked.get(i).copied().unwrap_or(false) {
                    "[x] "
                } else {
                    "[ ] "
                }
            } else {
                ""
            };
            let style = if i == form.cursor {
                t.choice_selected
            } else {
                t.choice
            };
            let mut spans = vec![Span::styled(
                format!(" {}. {mark}{} ", i + 1, o.label),
                style,
            )];
            if !o.description.is_empty() {
                spans.push(Span::styled(format!(" {}", o.description), t.dim));
            }
            lines.extend(wrap_line(&Line::from(spans), w));
        }
        lines.push(Line::default());
        let hint = if q.multi_select {
            "↑/↓ move · Space tick · Enter confirm · Esc skip"
        } else {
            "↑/↓ move · 1-9 pick · Enter choose · Esc skip"
        };
        lines.push(Line::from(Span::styled(hint, t.dim)));
    }
    f.render_widget(Paragraph::new(lines), inner);
}
