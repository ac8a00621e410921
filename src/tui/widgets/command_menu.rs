//! The `/` popup: the commands that match what is typed, each with its arguments and one line of
//! help, drawn in a box just above the input box; the highlighted one is kept in view. Its keys
//! are in the footer. Draws nothing while the popup is closed (`input::command_menu`).

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{App, SlashCommand, all_commands};
use crate::tui::strings;
use crate::tui::widgets::popup::{self, Rows};

/// `input` is the input box's area; the popup sits on the rows above it, over the chat.
pub fn draw(f: &mut Canvas, input: Rect, app: &App) {
    let Some(menu) = app.input().menu() else {
        return;
    };
    let t = app.theme();
    let count = (menu.items.len(), menu.selected);
    let Some(Rows { inner, rows, first }) =
        popup::frame(f, input, t, count, strings::MENU_TITLE, false)
    else {
        return;
    };
    // One column for every command's name and arguments, so it stays put while filtering.
    let head_w = all_commands(&app.input().commands)
        .map(|c| head(c).chars().count())
        .max()
        .unwrap_or(0);
    let width = inner.width as usize;
    let lines: Vec<Line<'static>> = menu
        .items
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, c)| {
            let text = format!(" {:<head_w$}  {}", head(c), c.help);
            let text = crate::text_cut::head_chars(&text, width);
            if i == menu.selected {
                Line::from(Span::styled(format!("{text:<width$}"), t.choice_selected))
            } else {
                let split = crate::text_cut::head_chars(text, head_w + 1).len();
                Line::from(vec![
                    Span::styled(text[..split].to_owned(), t.footer_key),
                    Span::styled(text[split..].to_owned(), t.dim),
                ])
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// A command's name and arguments: `/model [NAME]`.
fn head(c: &SlashCommand) -> String {
    if c.args.is_empty() {
        c.name.to_owned()
    } else {
        format!("{} {}", c.name, c.args)
    }
}
