//! Draws one frame from `&App`: status bar, chat pane, the pinned checklist, the queued
//! messages, input box (the `/` and `@` popups above it),
//! footer, and the modal on top.

use std::time::Instant;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::App;
use super::screen::Canvas;
use super::strings;
use super::widgets::{
    command_menu, file_menu, footer, modal, notices, picker, questions, status_bar, todo,
};

/// Draws the frame; returns the chat area (the pane, with the welcome and a retry's notice).
pub fn draw(f: &mut Canvas, app: &App, now: Instant) -> Rect {
    let screen = f.area();
    let input_h = app.input().line_count().min(6) as u16 + 2;
    let flash_lines = notices::flash_lines(app, screen.width);
    let flash_h = flash_lines.len() as u16;
    let todo_h = todo::height(app);
    let [status, chat, pinned, queued, input, flash, foot] =
        rows(screen, [todo_h, app.queue().rows(), input_h, flash_h]);
    let parts = ChatParts::of(chat, app, now);
    // The pane's rows may be kept from the last frame; everything else is drawn afresh.
    f.start(parts.pane);
    status_bar::draw(f, status, app, now);
    draw_chat(f, parts, app, now);
    todo::draw(f, pinned, app);
    app.queue().draw(f, queued, app.theme());
    draw_input(f, input, app);
    command_menu::draw(f, input, app);
    file_menu::draw(f, input, app);
    f.render_widget(Paragraph::new(flash_lines), flash);
    footer::draw(f, foot, app);
    modal::draw(f, screen, app);
    questions::draw(f, screen, app);
    picker::draw(f, screen, app);
    super::undo_view::draw_open(f, screen, app);
    if !app.theme().colour {
        super::theme::strip_colours(f.buffer_mut());
    }
    chat
}

/// The frame's rows, top to bottom: the status bar, the chat (the rest), the pinned checklist,
/// the queued messages, the input box, the flash line and the footer — the lengths of the four
/// between are `fixed`. Stacked by hand when they fit (the first frame's layout took ratatui's
/// constraint solver 1.5 M instructions, a fifth of start-up); a terminal too short for them
/// all is left to the solver, which decides what gives way.
fn rows(screen: Rect, fixed: [u16; 4]) -> [Rect; 7] {
    let [todo, queued, input, flash] = fixed;
    let taken = 2 + u32::from(todo) + u32::from(queued) + u32::from(input) + u32::from(flash);
    if u32::from(screen.height) < taken + 1 {
        return solved_rows(screen, fixed);
    }
    let chat = screen.height - taken as u16;
    let mut y = screen.y;
    [1, chat, todo, queued, input, flash, 1].map(|h| {
        let r = Rect::new(screen.x, y, screen.width, h);
        y += h;
        r
    })
}

/// [`rows`] as ratatui's constraint solver lays them out.
fn solved_rows(screen: Rect, [todo, queued, input, flash]: [u16; 4]) -> [Rect; 7] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(todo),
        Constraint::Length(queued),
        Constraint::Length(input),
        Constraint::Length(flash),
        Constraint::Length(1),
    ])
    .areas(screen)
}

/// The chat area's parts: a new chat's welcome at the top, a retry's notice at the bottom (at
/// most half of it), the pane of chat lines between.
struct ChatParts {
    welcome: Vec<Line<'static>>,
    welcome_area: Rect,
    pane: Rect,
    retry: Vec<Line<'static>>,
    retry_area: Rect,
}

impl ChatParts {
    fn of(area: Rect, app: &App, now: Instant) -> Self {
        let retry = notices::retry_lines(app, now, area.width, (area.height as usize / 2).max(1));
        let notice_h = (retry.len() as u16).min(area.height);
        let mut pane = Rect {
            height: area.height - notice_h,
            ..area
        };
        let retry_area = Rect {
            y: pane.y + pane.height,
            height: notice_h,
            ..area
        };
        let mut welcome = Vec::new();
        let mut welcome_area = Rect::default();
        if let Some(w) = app.welcome() {
            welcome = super::welcome::lines(w, app.status(), app.theme(), pane.width);
            let h = (welcome.len() as u16).min(pane.height);
            welcome_area = Rect { height: h, ..pane };
            pane.y += h;
            pane.height -= h;
        }
        Self {
            welcome,
            welcome_area,
            pane,
            retry,
            retry_area,
        }
    }
}

fn draw_chat(f: &mut Canvas, parts: ChatParts, app: &App, now: Instant) {
    f.render_widget(Paragraph::new(parts.welcome), parts.welcome_area);
    let area = parts.pane;
    let elapsed = |id: &str| {
        app.tool_started(id)
            .map(|t| now.saturating_duration_since(t))
    };
    let ctx = app.view_ctx(&elapsed);
    let ctx = super::chat_view::ViewCtx {
        width: area.width,
        ..ctx
    };
    // The lines are wrapped to the width already; the canvas keeps the rows whose line did not
    // change since the last frame.
    let mut lines = Vec::with_capacity(usize::from(area.height));
    app.chat()
        .for_each_visible(app.entries(), area.height as usize, &ctx, |line| {
            lines.push(line.clone());
        });
    f.draw_pane(lines);
    let t = &app.theme();
    f.render_widget(Paragraph::new(parts.retry), parts.retry_area);
    if !app.chat().following() && app.chat().new_output && area.height > 0 {
        let w = strings::NEW_OUTPUT.chars().count() as u16;
        let marker = Rect {
            x: area.x + area.width.saturating_sub(w) / 2,
            y: area.y + area.height - 1,
            width: w.min(area.width),
            height: 1,
        };
        f.render_widget(
            Paragraph::new(Span::styled(strings::NEW_OUTPUT, t.marker)),
            marker,
        );
    }
}

fn draw_input(f: &mut Canvas, area: Rect, app: &App) {
    let t = &app.theme();
    let border = if app.modal().is_some() {
        t.dim
    } else {
        t.footer
    };
    let block = Block::default()
        .borders(Borders::TOP | Borders::BOTTOM)
        .border_style(border);
    let inner = block.inner(area);
    f.render_widget(block, area);
    f.render_widget(&app.input().area, inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stacked by hand, the rows are what ratatui's solver gives for the same constraints.
    #[test]
    fn the_rows_are_the_solvers_wherever_they_fit() {
        for (w, h) in [(80, 24), (120, 40), (20, 9), (200, 70), (40, 12)] {
            for fixed in [[0, 0, 3, 0], [2, 1, 8, 1], [5, 0, 3, 2], [0, 3, 4, 0]] {
                let screen = Rect::new(0, 0, w, h);
                let solver = solved_rows(screen, fixed);
                assert_eq!(rows(screen, fixed), solver, "{w}x{h} with {fixed:?}");
            }
        }
    }
}
