//! The key-hint footer, which follows what the keys do right now.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::App;
use crate::tui::strings;

pub fn draw(f: &mut Frame, area: Rect, app: &App) {
    let hints = match app.modal() {
        Some(m) if m.reason.is_some() => strings::FOOTER_REASON,
        Some(_) => strings::FOOTER_MODAL,
        None if app.input().menu_open() => strings::FOOTER_MENU,
        None if app.busy() => strings::FOOTER_BUSY,
        None => strings::FOOTER_IDLE,
    };
    let mut spans = Vec::new();
    if app.modal().is_some_and(|m| m.keys_ignored()) {
        spans.push(Span::styled(strings::KEYS_IGNORED, app.theme().notice));
        spans.push(Span::styled("  ", app.theme().footer));
    }
    for (i, (key, what)) in hints.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled("  ", app.theme().footer));
        }
        spans.push(Span::styled(*key, app.theme().footer_key));
        spans.push(Span::styled(format!(" {what}"), app.theme().footer));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}
