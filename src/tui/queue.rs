//! The messages typed during a turn, as the TUI sees them: the shared [`Steer`] queue, the
//! delivery Enter asks for (`[ui] steer`; Alt+Enter asks for the other), whether the input
//! holds a message taken back from it (Up on an empty input), and the small widget above the
//! input that lists what waits — one dim line each, and a hint.
//!
//! What it does not do: deliver anything (the agent's driver takes the messages at its safe
//! points) or read keys (`app::steering` calls in here).

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::Theme;
use crate::agent::steer::{Delivery, Queued, Steer};

/// Queued lines drawn at most; more are counted.
const SHOWN: usize = 3;

/// The queue and how the input is using it.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    steer: Steer,
    /// What Enter asks for during a turn.
    default: Delivery,
    /// The input holds a message taken back from the queue (and how it was queued).
    editing: Option<Delivery>,
}

impl Queue {
    pub fn new(steer: Steer, default: Delivery) -> Self {
        Self {
            steer,
            default,
            editing: None,
        }
    }

    /// Queues `text`: with the default delivery, or the other one (`alt`: Alt+Enter). A
    /// message taken back and queued again keeps its delivery unless `alt` says otherwise.
    pub fn push(&mut self, text: &str, alt: bool) {
        let base = self.editing.take().unwrap_or(self.default);
        let delivery = if alt { self.default.other() } else { base };
        self.steer.push(text, delivery);
    }

    /// Up on an empty input: the last queued message, taken back to edit.
    pub fn take_last(&mut self) -> Option<String> {
        let q = self.steer.take_last()?;
        self.editing = Some(q.delivery);
        Some(q.text)
    }

    /// The input holds a taken-back message.
    pub fn editing(&self) -> bool {
        self.editing.is_some()
    }

    /// The taken-back message is dropped (Esc or Ctrl+U), or sent some other way.
    pub fn stop_editing(&mut self) {
        self.editing = None;
    }

    pub fn is_empty(&self) -> bool {
        self.steer.is_empty()
    }

    /// A stop: every waiting message, in order, joined for the input.
    pub fn take_all_joined(&mut self) -> Option<String> {
        let all = self.steer.take_all();
        (!all.is_empty()).then(|| all.join("\n"))
    }

    /// A turn ended: the next turn's message.
    pub fn next_turn(&mut self) -> Option<String> {
        self.steer.next_turn()
    }

    /// Rows the widget takes (none when nothing waits).
    pub fn rows(&self) -> u16 {
        lines(&self.steer.snapshot(), usize::MAX).len() as u16
    }

    pub fn draw(&self, f: &mut Canvas, area: Rect, theme: &Theme) {
        if area.height == 0 {
            return;
        }
        let lines = lines(&self.steer.snapshot(), area.width as usize)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, theme.dim)))
            .collect::<Vec<_>>();
        f.render_widget(Paragraph::new(lines), area);
    }
}

/// The widget's text: the first line of each of the last `SHOWN` messages (cut to `width`),
/// how many more, and the hint. Nothing when nothing waits.
pub fn lines(queued: &[Queued], width: usize) -> Vec<String> {
    if queued.is_empty() {
        return Vec::new();
    }
    let cut = |s: String| -> String {
        match s.chars().count() > width {
            true => s
                .chars()
                .take(width.saturating_sub(1))
                .chain(['…'])
                .collect(),
            false => s,
        }
    };
    let mut out = Vec::new();
    let hidden = queued.len().saturating_sub(SHOWN);
    if hidden > 0 {
        out.push(cut(format!("  … {hidden} more queued")));
    }
    for q in &queued[hidden..] {
        let first = q.text.lines().next().unwrap_or_default();
        let more = if q.text.lines().nth(1).is_some() {
            " …"
        } else {
            ""
        };
        let when = match q.delivery {
            Delivery::NextRequest => "queued",
            Delivery::TurnEnd => "after the turn",
        };
        out.push(cut(format!("  ↳ {first}{more}  ({when})")));
    }
    out.push(cut(super::strings::QUEUE_HINT.to_owned()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str, delivery: Delivery) -> Queued {
        Queued {
            text: text.into(),
            delivery,
        }
    }

    #[test]
    fn the_widget_lists_the_last_messages_dim_with_a_hint() {
        use Delivery::*;
        let hint = super::super::strings::QUEUE_HINT;
        // (queued, width, lines)
        let rows: Vec<(Vec<Queued>, usize, Vec<String>)> = vec![
            (vec![], 80, vec![]),
            (
                vec![q("fix the test", NextRequest), q("then\ncommit", TurnEnd)],
                80,
                vec![
                    "  ↳ fix the test  (queued)".into(),
                    "  ↳ then …  (after the turn)".into(),
                    hint.into(),
                ],
            ),
            (
                ["a", "b", "c", "d", "e"]
                    .iter()
                    .map(|t| q(t, NextRequest))
                    .collect(),
                80,
                vec![
                    "  … 2 more queued".into(),
                    "  ↳ c  (queued)".into(),
                    "  ↳ d  (queued)".into(),
                    "  ↳ e  (queued)".into(),
                    hint.into(),
                ],
            ),
            (
                vec![q("a long message", NextRequest)],
                10,
                vec![
                    "  ↳ a lon…".into(),
                    hint.chars().take(9).chain(['…']).collect(),
                ],
            ),
        ];
        for (queued, width, want) in rows {
            assert_eq!(lines(&queued, width), want, "{queued:?} at {width}");
        }
    }

    #[test]
    fn a_taken_back_message_keeps_its_delivery_and_alt_asks_for_the_other() {
        let steer = Steer::default();
        let mut queue = Queue::new(steer.clone(), Delivery::NextRequest);
        queue.push("a", false);
        queue.push("b", true);
        assert_eq!(queue.take_last().as_deref(), Some("b"));
        assert!(queue.editing());
        queue.push("b2", false);
        assert!(!queue.editing());
        let want = [q("a", Delivery::NextRequest), q("b2", Delivery::TurnEnd)];
        assert_eq!(steer.snapshot(), want);
        assert_eq!(queue.take_all_joined().as_deref(), Some("a\nb2"));
        assert_eq!(queue.take_all_joined(), None);
        assert_eq!(queue.rows(), 0);
    }
}
