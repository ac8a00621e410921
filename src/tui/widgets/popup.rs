//! The box the `/` and `@` popups are drawn in: on the rows just above the input box, over the
//! chat, at most [`MAX_ROWS`] rows high, its title saying where the highlight is among the
//! items. Each popup draws its own rows inside ([`super::command_menu`], [`super::file_menu`]).

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders, Clear};

use crate::tui::theme::Theme;

/// At most this many items show at once; the rest scroll into view with Up/Down.
pub const MAX_ROWS: usize = 8;

/// Where a popup's items go.
pub struct Rows {
    pub inner: Rect,
    /// Items shown.
    pub rows: usize,
    /// The first item shown (the highlighted one is in view).
    pub first: usize,
}

/// Clears and frames the box for `count` items (the `selected` one highlighted) above `input`
/// and returns where its rows go; `None` when there is no room. The title is `title`, with
/// `(N/M)` after it when not all items show or `always_count`.
pub fn frame(
    f: &mut Canvas,
    input: Rect,
    theme: &Theme,
    (count, selected): (usize, usize),
    title: &str,
    always_count: bool,
) -> Option<Rows> {
    // Room above the input, below the status bar.
    let room = input.y.saturating_sub(1) as usize;
    let rows = count.min(MAX_ROWS).min(room.saturating_sub(2));
    if rows == 0 {
        return None;
    }
    let height = rows as u16 + 2;
    let rect = Rect {
        x: input.x,
        y: input.y - height,
        width: input.width,
        height,
    };
    f.render_widget(Clear, rect);
    let title = if always_count || count > rows {
        format!("{title}({}/{count}) ", selected + 1)
    } else {
        title.to_owned()
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.modal_border)
        .title(Span::styled(title, theme.modal_title));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    Some(Rows {
        inner,
        rows,
        first: selected.saturating_sub(rows - 1),
    })
}
