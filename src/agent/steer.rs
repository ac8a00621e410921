//! Messages typed while a turn runs (type ahead and steer): one queue, shared by the front end
//! that fills it (the TUI's Enter, a headless `user_message` line) and the turn's driver that
//! empties it. A message is in exactly one place at a time — this queue, the running turn
//! (`turn::Input::Queued`), or the history — so it is delivered once, in order.
//!
//! - [`Delivery::NextRequest`] messages join the next request of the running turn, after the
//!   current batch's results ([`Steer::for_request`] takes them, at that safe point only);
//! - [`Delivery::TurnEnd`] messages wait for the turn to end, and so does every message
//!   behind one (order is kept);
//! - when a turn ends without a stop, [`Steer::next_turn`] gives the next turn's message (the
//!   rest join its first request); a stop leaves them here for the front end
//!   ([`Steer::take_all`]: the TUI puts them back into the input).
//!
//! What it does not do: decide when a safe point is (the driver does), draw anything (the
//! TUI's `queue` does), or read keys or stdin.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

/// When a queued message goes to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Delivery {
    /// With the running turn's next request, after the tool results (`[ui] steer =
    /// "next-request"`, the default).
    #[default]
    NextRequest,
    /// Only when the turn ends, as the next turn's message (`[ui] steer = "turn-end"`).
    TurnEnd,
}

impl Delivery {
    /// The `[ui] steer` value.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "next-request" => Some(Self::NextRequest),
            "turn-end" => Some(Self::TurnEnd),
            _ => None,
        }
    }

    /// The other way (what Alt+Enter asks for).
    pub fn other(self) -> Self {
        match self {
            Self::NextRequest => Self::TurnEnd,
            Self::TurnEnd => Self::NextRequest,
        }
    }
}

/// One message waiting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    pub text: String,
    pub delivery: Delivery,
}

/// The queue; clones share it.
#[derive(Debug, Clone, Default)]
pub struct Steer(Arc<Mutex<VecDeque<Queued>>>);

impl Steer {
    fn lock(&self) -> MutexGuard<'_, VecDeque<Queued>> {
        // A panic elsewhere while holding the lock leaves a queue that is still whole.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A message typed during a turn, at the end of the queue. Blank ones are dropped.
    pub fn push(&self, text: &str, delivery: Delivery) {
        if text.trim().is_empty() {
            return;
        }
        self.lock().push_back(Queued {
            text: text.to_owned(),
            delivery,
        });
    }

    /// What waits, in order (to draw it).
    pub fn snapshot(&self) -> Vec<Queued> {
        self.lock().iter().cloned().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// The last message, taken back (to edit it: Up on an empty input).
    pub fn take_last(&self) -> Option<Queued> {
        self.lock().pop_back()
    }

    /// Every message, taken back, in order (a stop: they go back into the input).
    pub fn take_all(&self) -> Vec<String> {
        self.lock().drain(..).map(|q| q.text).collect()
    }

    /// The safe point of a running turn: the messages for its next request — those at the
    /// front up to the first that waits for the turn's end.
    pub fn for_request(&self) -> Vec<String> {
        let mut q = self.lock();
        let n = q
            .iter()
            .take_while(|m| m.delivery == Delivery::NextRequest)
            .count();
        q.drain(..n).map(|m| m.text).collect()
    }

    /// Messages a turn took but ended before delivering: back at the front, in order.
    pub fn give_back(&self, texts: Vec<String>) {
        let mut q = self.lock();
        for text in texts.into_iter().rev() {
            q.push_front(Queued {
                text,
                delivery: Delivery::NextRequest,
            });
        }
    }

    /// A turn ended (not stopped): the first message becomes the next turn's; the others
    /// join that turn's first request.
    pub fn next_turn(&self) -> Option<String> {
        let mut q = self.lock();
        let first = q.pop_front()?;
        for m in q.iter_mut() {
            m.delivery = Delivery::NextRequest;
        }
        Some(first.text)
    }
}

#[cfg(test)]
mod tests {
    use super::Delivery::{NextRequest as N, TurnEnd as E};
    use super::*;

    fn queue(items: &[(&str, Delivery)]) -> Steer {
        let s = Steer::default();
        for (t, d) in items {
            s.push(t, *d);
        }
        s
    }

    fn texts(s: &Steer) -> Vec<String> {
        s.snapshot().into_iter().map(|q| q.text).collect()
    }

    #[test]
    fn the_safe_point_takes_the_front_up_to_the_first_that_waits_for_the_end() {
        // (queue, taken, left)
        type Row<'a> = (&'a [(&'a str, Delivery)], &'a [&'a str], &'a [&'a str]);
        let rows: &[Row] = &[
            (&[], &[], &[]),
            (&[("a", N), ("b", N)], &["a", "b"], &[]),
            (&[("a", N), ("b", E), ("c", N)], &["a"], &["b", "c"]),
            (&[("a", E), ("b", N)], &[], &["a", "b"]),
            (&[("  ", N), ("a", N)], &["a"], &[]),
        ];
        for (items, taken, left) in rows {
            let s = queue(items);
            assert_eq!(s.for_request(), *taken, "{items:?}");
            assert_eq!(texts(&s), *left, "{items:?}");
        }
    }

    #[test]
    fn a_turn_end_gives_the_next_turn_its_message_and_the_rest_to_its_first_request() {
        let s = queue(&[("a", E), ("b", E), ("c", N)]);
        assert_eq!(s.next_turn().as_deref(), Some("a"));
        assert_eq!(s.for_request(), ["b", "c"]);
        assert_eq!(s.next_turn(), None);
    }

    #[test]
    fn given_back_messages_come_first_in_order_and_take_back_edits_the_last() {
        let s = queue(&[("c", E)]);
        s.give_back(vec!["a".into(), "b".into()]);
        assert_eq!(texts(&s), ["a", "b", "c"]);
        assert_eq!(
            s.take_last(),
            Some(Queued {
                text: "c".into(),
                delivery: E
            })
        );
        assert_eq!(s.take_all(), ["a", "b"]);
        assert!(s.is_empty());
    }

    #[test]
    fn the_setting_reads_both_values_and_nothing_else() {
        assert_eq!(Delivery::parse("next-request"), Some(N));
        assert_eq!(Delivery::parse("turn-end"), Some(E));
        assert_eq!(Delivery::parse("later"), None);
        assert_eq!(N.other(), E);
        assert_eq!(E.other(), N);
    }
}
