//! The model's checklist pinned above the input (`App::pinned_todo`): one line an item, folded
//! to [`MAX_ROWS`] with "+N more" when longer (the window starts just before the first item not
//! done, so the current step shows), dimmed when no turn runs.
//!
//! It draws only; which list shows, and when, is the app's (`app/plan.rs`).

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::events::{TodoItem, TodoStatus};
use crate::text_cut;
use crate::tui::app::App;

/// The most rows the pinned list takes (with its "+N more" line).
pub const MAX_ROWS: usize = 5;

/// The items shown when at most `rows` rows are free, and how many are left out.
pub fn fold(items: &[TodoItem], rows: usize) -> (&[TodoItem], usize) {
    if items.len() <= rows {
        return (items, 0);
    }
    let take = rows.saturating_sub(1).max(1);
    let current = items
        .iter()
        .position(|i| i.status != TodoStatus::Done)
        .unwrap_or(items.len());
    let start = current.saturating_sub(1).min(items.len() - take);
    (&items[start..start + take], items.len() - take)
}

/// The rows the list takes (0: none pinned).
pub fn height(app: &App) -> u16 {
    let (shown, more) = fold(app.pinned_todo(), MAX_ROWS);
    (shown.len() + usize::from(more > 0)) as u16
}

pub fn draw(f: &mut Canvas, area: Rect, app: &App) {
    let t = app.theme();
    let (shown, more) = fold(app.pinned_todo(), MAX_ROWS);
    let width = usize::from(area.width).saturating_sub(6);
    let mut lines: Vec<Line> = shown
        .iter()
        .map(|i| {
            let style = match (app.busy(), i.status) {
                (false, _) | (_, TodoStatus::Done) => t.dim,
                (true, TodoStatus::InProgress) => t.text.add_modifier(Modifier::BOLD),
                (true, TodoStatus::Pending) => t.text,
            };
            let text = text_cut::ellipsized(&i.content, text_cut::head_chars(&i.content, width));
            Line::from(vec![
                Span::styled(format!("  {} ", i.status.mark()), style),
                Span::styled(text, style),
            ])
        })
        .collect();
    if more > 0 {
        lines.push(Line::from(Span::styled(format!("  +{more} more"), t.dim)));
    }
    f.render_widget(Paragraph::new(lines), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(statuses: &[TodoStatus]) -> Vec<TodoItem> {
        statuses
            .iter()
            .enumerate()
            .map(|(n, s)| TodoItem {
                content: format!("step {n}"),
                status: *s,
            })
            .collect()
    }

    #[test]
    fn a_long_list_folds_around_the_current_step() {
        use TodoStatus::*;
        let short = items(&[Done, InProgress, Pending]);
        assert_eq!(fold(&short, 5), (&short[..], 0));
        let long = items(&[
            Done, Done, Done, InProgress, Pending, Pending, Pending, Pending,
        ]);
        let (shown, more) = fold(&long, 5);
        assert_eq!(more, 4);
        assert_eq!(
            shown[0].content, "step 2",
            "one done step before the current one"
        );
        assert_eq!(shown[1].status, InProgress);
        let pending = items(&[Pending; 9]);
        let (shown, more) = fold(&pending, 5);
        assert_eq!((shown[0].content.as_str(), more), ("step 0", 5));
        let all_done = items(&[Done; 7]);
        let (shown, more) = fold(&all_done, 5);
        assert_eq!((shown[0].content.as_str(), more), ("step 3", 3));
    }
}
