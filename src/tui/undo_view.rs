//! The confirmation of `/undo`, `/redo` and a rewind's code: what will be written (the diff
//! from the files now to what they become), the conflicts — files changed since sayso's change,
//! which are never overwritten — and the files that cannot be restored. Nothing is written
//! until the user says so here; the choice goes back to the agent with the preview it answers.
//!
//! Keys: without conflicts, `y` or Enter applies, `n` or Esc cancels. With conflicts, `a`
//! applies the rest (the conflicts left as they are), `s`, `n` or Esc stops (nothing written);
//! Enter does nothing, so that no key typed ahead chooses for the user. Up/Down (k/j) and
//! PgUp/PgDn scroll. When there is nothing to write, only Esc (or `n`, `s`) closes.

use crate::tui::screen::Canvas;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::events::answer::UndoPreview;
use crate::tui::theme::Theme;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoView {
    pub preview: UndoPreview,
    /// The first body line shown.
    pub scroll: usize,
}

/// What a key decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirm {
    /// Apply; `rest`: with the conflicts left alone.
    Apply {
        rest: bool,
    },
    Cancel,
}

impl UndoView {
    pub fn new(preview: UndoPreview) -> Self {
        Self { preview, scroll: 0 }
    }

    fn writes(&self) -> bool {
        !self.preview.restores.is_empty()
    }

    fn conflicted(&self) -> bool {
        !self.preview.conflicts.is_empty()
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<Confirm> {
        match key.code {
            KeyCode::Esc | KeyCode::Char('n') | KeyCode::Char('s') => Some(Confirm::Cancel),
            KeyCode::Char('y') | KeyCode::Enter if self.writes() && !self.conflicted() => {
                Some(Confirm::Apply { rest: false })
            }
            KeyCode::Char('a') if self.writes() && self.conflicted() => {
                Some(Confirm::Apply { rest: true })
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.scroll = self.scroll.saturating_sub(1);
                None
            }
            KeyCode::Down | KeyCode::Char('j') => {
                self.scroll += 1;
                None
            }
            KeyCode::PageUp => {
                self.scroll = self.scroll.saturating_sub(10);
                None
            }
            KeyCode::PageDown => {
                self.scroll += 10;
                None
            }
            _ => None,
        }
    }

    /// The keys the title offers.
    pub fn keys(&self) -> &'static str {
        match (self.writes(), self.conflicted()) {
            (true, false) => "y apply · n cancel",
            (true, true) => "a apply the rest · s stop",
            (false, _) => "Esc close (nothing can be written)",
        }
    }

    /// What the view says, before the diff: the turns, each file written, the conflicts.
    pub fn summary(&self) -> Vec<String> {
        let p = &self.preview;
        let verb = if p.redo { "Redo" } else { "Undo" };
        let turns: Vec<String> = p.turns.iter().map(u32::to_string).collect();
        let s = if p.turns.len() == 1 { "" } else { "s" };
        let mut out = Vec::new();
        if p.changed {
            out.push("The files changed since the last preview: look again.".to_owned());
        }
        let what = match &p.rewind {
            Some(to) => format!(
                "{verb} the file changes of turn{s} {} (rewind to before message {})",
                turns.join(", "),
                to.index + 1
            ),
            None => format!("{verb} the file changes of turn{s} {}", turns.join(", ")),
        };
        out.push(what);
        out.extend(p.restores.iter().map(|path| format!("  writes  {path}")));
        if !p.conflicts.is_empty() {
            out.push("Conflicts — changed since sayso's change, never overwritten:".to_owned());
            out.extend(
                p.conflicts
                    .iter()
                    .map(|(path, why)| format!("  keeps   {path}  ({why})")),
            );
        }
        if !p.unrecoverable.is_empty() {
            out.push("Cannot be restored (kept by hash only, or gone from the store):".to_owned());
            out.extend(
                p.unrecoverable
                    .iter()
                    .map(|path| format!("  cannot  {path}")),
            );
        }
        out
    }
}

/// Draws the open `/rewind` or undo view, if any.
pub fn draw_open(f: &mut Canvas, screen: Rect, app: &crate::tui::app::App) {
    let open = app.take_back();
    if let Some(v) = &open.undo {
        draw(f, screen, v, app.theme());
    } else if let Some(v) = &open.rewind {
        crate::tui::rewind::draw(f, screen, v, app.theme());
    }
}

/// Draws the view in the modal's place.
pub fn draw(f: &mut Canvas, screen: Rect, view: &UndoView, t: &Theme) {
    let rect = crate::tui::widgets::modal::area(screen);
    f.render_widget(Clear, rect);
    let verb = if view.preview.redo { "Redo" } else { "Undo" };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.modal_border)
        .title(Span::styled(
            format!(" {verb} — {} ", view.keys()),
            t.modal_title,
        ));
    let inner = block.inner(rect);
    f.render_widget(block, rect);
    let mut lines: Vec<Line<'static>> = view
        .summary()
        .into_iter()
        .map(|l| {
            let style = if l.starts_with("  keeps") || l.starts_with("  cannot") {
                t.error
            } else {
                t.text
            };
            Line::from(Span::styled(l, style))
        })
        .collect();
    lines.push(Line::default());
    lines.extend(view.preview.diff.lines().map(|l| {
        let style = match l.as_bytes().first() {
            _ if l.starts_with("+++") || l.starts_with("---") => t.diff_header,
            Some(b'+') => t.diff_add,
            Some(b'-') => t.diff_del,
            Some(b'@') => t.diff_hunk,
            _ => t.text,
        };
        Line::from(Span::styled(l.to_owned(), style))
    }));
    let last = lines.len().saturating_sub(1);
    let first = view.scroll.min(last);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(first).collect();
    f.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }), inner);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn preview(restores: &[&str], conflicts: &[&str]) -> UndoPreview {
        UndoPreview {
            redo: false,
            turns: vec![2],
            restores: restores.iter().map(|s| (*s).to_owned()).collect(),
            diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-new\n+old\n".into(),
            conflicts: conflicts
                .iter()
                .map(|s| ((*s).to_owned(), "edited since".to_owned()))
                .collect(),
            unrecoverable: Vec::new(),
            rewind: None,
            changed: false,
        }
    }

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    /// (files written, conflicts, key, decision)
    #[test]
    fn keys_apply_only_what_the_user_chose() {
        use KeyCode::*;
        let apply = Some(Confirm::Apply { rest: false });
        let rest = Some(Confirm::Apply { rest: true });
        let cancel = Some(Confirm::Cancel);
        type Row<'a> = (&'a [&'a str], &'a [&'a str], KeyCode, Option<Confirm>);
        let rows: Vec<Row> = vec![
            (&["a.txt"], &[], Char('y'), apply),
            (&["a.txt"], &[], Enter, apply),
            (&["a.txt"], &[], Char('n'), cancel),
            (&["a.txt"], &[], Esc, cancel),
            (&["a.txt"], &[], Char('a'), None),
            // With conflicts, only `a` applies (the rest); Enter and `y` choose nothing.
            (&["a.txt"], &["b.txt"], Char('a'), rest),
            (&["a.txt"], &["b.txt"], Enter, None),
            (&["a.txt"], &["b.txt"], Char('y'), None),
            (&["a.txt"], &["b.txt"], Char('s'), cancel),
            (&["a.txt"], &["b.txt"], Esc, cancel),
            // Nothing to write: nothing applies.
            (&[], &["b.txt"], Char('a'), None),
            (&[], &["b.txt"], Enter, None),
            (&[], &[], Char('y'), None),
            (&[], &["b.txt"], Esc, cancel),
        ];
        for (writes, conflicts, k, want) in rows {
            let mut v = UndoView::new(preview(writes, conflicts));
            assert_eq!(v.handle_key(key(k)), want, "{writes:?} {conflicts:?} {k:?}");
        }
    }

    #[test]
    fn the_summary_lists_writes_and_conflicts() {
        let v = UndoView::new(preview(&["a.txt"], &["b.txt"]));
        assert_eq!(
            v.summary(),
            [
                "Undo the file changes of turn 2",
                "  writes  a.txt",
                "Conflicts — changed since sayso's change, never overwritten:",
                "  keeps   b.txt  (edited since)",
            ]
        );
        assert_eq!(v.keys(), "a apply the rest · s stop");
    }
}
