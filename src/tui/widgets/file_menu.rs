//! The `@` picker: the paths that best match the `@query` typed, in a box just above the input
//! box, the highlighted one kept in view. Draws nothing while it is closed
//! (`input::file_menu`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::app::App;
use crate::tui::strings;

/// At most this many paths show at once; the rest scroll into view with Up/Down.
const MAX_ROWS: usize = 8;

/// `input` is the input box's area; the picker sits on the rows above it, over the chat.
pub fn draw(f: &mut Frame, input: Rect, app: &App) {
    let Some(menu) = app.input().file_menu() else {
        return;
    };
    let room = input.y.saturating_sub(1) as usize;
    let rows = menu.items.len().min(MAX_ROWS).min(room.saturating_sub(2));
    if rows == 0 {
        return;
    }
    let height = rows as u16 + 2;
    let rect = Rect {
        x: input.x,
        y: input.y - height,
        width: input.width,
        height,
    };
    let t = app.theme();
    f.render_widget(Clear, rect);
    let title = format!(
        "{}({}/{}) ",
        strings::FILE_MENU_TITLE,
        menu.selected + 1,
        menu.items.len()
    );
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.modal_border)
        .title(Span::styled(title, t.modal_title));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    let first = menu.selected.saturating_sub(rows - 1);
    let width = inner.width as usize;
    let lines: Vec<Line<'static>> = menu
        .items
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, p)| {
            let text = format!(" @{p}");
            let text = crate::text_cut::head_chars(&text, width).to_owned();
            if i == menu.selected {
                Line::from(Span::styled(format!("{text:<width$}"), t.choice_selected))
            } else {
                Line::from(Span::styled(text, t.footer_key))
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}
