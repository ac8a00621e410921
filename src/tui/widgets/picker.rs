//! The `/sessions` picker, drawn like the approval modal: one line per session, the selected
//! one highlighted and kept in view.

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;

pub fn draw(f: &mut Canvas, screen: Rect, app: &App) {
    let Some(p) = app.picker() else { return };
    let t = app.theme();
    let rect = super::modal::area(screen);
    f.render_widget(Clear, rect);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.modal_border)
        .title(Span::styled(
            format!(
                " Sessions ({}) — Enter resume · Esc close ",
                p.sessions.len()
            ),
            t.modal_title,
        ));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    let rows = inner.height as usize;
    let first = p.selected.saturating_sub(rows.saturating_sub(1));
    let w = inner.width as usize;
    let lines: Vec<Line<'static>> = p
        .rows
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, row)| {
            let text = crate::text_cut::head_chars(row, w).to_owned();
            let style = if i == p.selected {
                t.choice_selected
            } else {
                t.text
            };
            Line::from(Span::styled(text, style))
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}
