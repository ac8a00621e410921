//! The `@` picker: the paths that best match the `@query` typed, in a box just above the input
//! box, the highlighted one kept in view. Draws nothing while it is closed
//! (`input::file_menu`).

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::App;
use crate::tui::strings;
use crate::tui::widgets::popup::{self, Rows};

/// `input` is the input box's area; the picker sits on the rows above it, over the chat.
pub fn draw(f: &mut Canvas, input: Rect, app: &App) {
    let Some(menu) = app.input().file_menu() else {
        return;
    };
    let t = app.theme();
    let count = (menu.items.len(), menu.selected);
    let Some(Rows { inner, rows, first }) =
        popup::frame(f, input, t, count, strings::FILE_MENU_TITLE, true)
    else {
        return;
    };
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
