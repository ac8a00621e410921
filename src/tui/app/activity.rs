//! What the status bar says is going on, and the clock behind it.
//!
//! A turn's clock starts when the app becomes busy (a message sent, `/compact`) and stops when
//! it is not any more. While it runs, the activity carries the seconds since the start:
//! "waiting for the first token 37 s" from the moment a request goes out until its reply's
//! first token arrives (with the turn's clock after it, " · 2m 05s", when the turn began
//! earlier: after tool calls), then "thinking · 5s" (reasoning) or "writing · 7s" (text),
//! "running CMD · 9s" for a tool. While
//! only the user can move things on (an approval, a question) the clock is not shown and
//! nothing ticks. [`App::next_tick`] says when the next visible change is due — the next whole
//! second of the turn, or a quarter second for a retry's countdown — so the event loop wakes
//! once a second during a turn and never between turns.
//!
//! A turn that took at least `notify_after` and ends while the terminal is unfocused produces
//! [`Effect::Notify`]; the event loop decides how to say it (`tui/notify.rs`).

use super::*;
use crate::events::TurnEnd;

/// How often a retry's countdown is redrawn.
const COUNTDOWN_TICK: Duration = Duration::from_millis(250);

impl App {
    /// A long turn that ends unfocused is notified from `after` on (`None`: never).
    pub fn set_notify_after(&mut self, after: Option<Duration>) {
        self.notify_after = after;
    }

    /// Only the user can move things on: an approval or a question waits for an answer.
    pub fn awaiting_answer(&self) -> bool {
        self.activity == Activity::Approval
    }

    /// How long the running turn has taken at `now`.
    fn turn_time(&self, now: Instant) -> Option<Duration> {
        self.turn_started
            .map(|start| now.saturating_duration_since(start))
    }

    /// The status bar's description of what is going on, longest form first (the bar takes
    /// a shorter one when it is narrow); empty when idle.
    pub fn activity_forms(&self, now: Instant) -> Vec<String> {
        let clock = self
            .turn_time(now)
            .map(|d| format!(" · {}", duration_text::clock(d)))
            .unwrap_or_default();
        let two =
            |long: &str, short: &str| vec![format!("{long}{clock}"), format!("{short}{clock}")];
        // The question form takes the keys first, whatever else the turn is doing (its tool
        // is running while it waits; an approval may be queued behind it).
        if self.form.is_some() {
            return vec!["waiting for your answer".into()];
        }
        match &self.activity {
            Activity::Idle => Vec::new(),
            Activity::Waiting => two("waiting for the first token", "waiting"),
            Activity::FirstToken { since } => {
                let waited = now.saturating_duration_since(*since);
                let earlier = self
                    .turn_time(now)
                    .is_some_and(|t| t.saturating_sub(waited) >= Duration::from_secs(1));
                let clock = if earlier { clock } else { String::new() };
                let waited = waited_text(waited);
                vec![
                    format!("waiting for the first token {waited}{clock}"),
                    format!("waiting {waited}{clock}"),
                    format!("waiting {waited}"),
                ]
            }
            Activity::Thinking => vec![format!("thinking{clock}")],
            Activity::Streaming => vec![format!("writing{clock}")],
            Activity::Tool(c) => two(&format!("running {c}"), "running"),
            Activity::Approval => vec!["waiting for your approval".into()],
            Activity::Judge => two("the judge is reviewing a call", "judge"),
            Activity::Compacting => two("summarising the older conversation", "summarising"),
            Activity::Retrying {
                until, retry, max, ..
            } if *until > now => vec![format!(
                "retrying in {} ({retry}/{max})",
                duration_text::spaced(until.saturating_duration_since(now))
            )],
            Activity::Retrying { retry, max, .. } => vec![
                format!("waiting for the first token{clock} (retry {retry}/{max})"),
                format!("waiting{clock}"),
            ],
        }
    }

    /// When something on screen changes next by itself, if anything does: the next whole
    /// second of a running turn (its clock, a tool's), a quarter second during a retry's
    /// countdown; `None` between turns and while only an answer from the user moves on.
    pub fn next_tick(&self, now: Instant) -> Option<Instant> {
        // The `@` picker waits for its index: drawn again when the walk may have ended.
        if self.input.file_index_walking() {
            return Some(now + Duration::from_millis(50));
        }
        if matches!(self.activity, Activity::Retrying { until, .. } if until > now) {
            return Some(now + COUNTDOWN_TICK);
        }
        if !self.busy || (self.awaiting_answer() && self.tool_started.is_empty()) {
            return None;
        }
        let start = self.turn_started?;
        let next_second = |from: Instant| {
            let whole = now.saturating_duration_since(from).as_secs();
            from + Duration::from_secs(whole + 1)
        };
        let turn = next_second(start);
        match self.activity {
            Activity::FirstToken { since } => Some(turn.min(next_second(since))),
            _ => Some(turn),
        }
    }

    /// After every event: starts the turn's clock when the app became busy; when it is not
    /// any more, stops it and says whether the user should be told the turn ended.
    pub(super) fn clock(&mut self, now: Instant, ended: Option<&TurnEnd>) -> Vec<Effect> {
        if self.busy {
            self.turn_started.get_or_insert(now);
            return Vec::new();
        }
        let Some(start) = self.turn_started.take() else {
            return Vec::new();
        };
        let took = now.saturating_duration_since(start);
        let long = self.notify_after.is_some_and(|after| took >= after);
        // Stopping a turn is done at the keyboard: nobody needs telling.
        if self.focused || !long || matches!(ended, Some(TurnEnd::Stopped)) {
            return Vec::new();
        }
        let what = match ended {
            Some(TurnEnd::Completed) => "the reply is ready",
            Some(TurnEnd::Failed(_)) => "the turn failed",
            _ => "the turn ended",
        };
        vec![Effect::Notify(format!(
            "sayso: {what} (after {})",
            duration_text::clock(took)
        ))]
    }
}

/// How long the first token has been waited for: "37 s", then "12m 05s".
fn waited_text(d: Duration) -> String {
    let whole = Duration::from_secs(d.as_secs());
    if whole < Duration::from_secs(60) {
        duration_text::spaced(whole)
    } else {
        duration_text::clock(whole)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::tests_support::{agent, app, send};

    #[test]
    fn the_clock_ticks_on_whole_seconds_of_a_turn_and_never_between_turns() {
        let mut a = app();
        let now = Instant::now();
        assert_eq!(a.next_tick(now), None);
        send(&mut a, "hi");
        let start = a.turn_started.expect("the turn's clock runs");
        assert_eq!(
            a.next_tick(start + Duration::from_millis(2300)),
            Some(start + Duration::from_secs(3))
        );
        assert_eq!(
            a.activity_forms(start + Duration::from_millis(2300)),
            ["waiting for the first token · 2s", "waiting · 2s"]
        );
        agent(&mut a, Event::Delta(StreamDelta::Text("x".into())));
        assert_eq!(
            a.activity_forms(start + Duration::from_secs(75)),
            ["writing · 1m 15s"]
        );
        agent(&mut a, Event::TurnEnded(TurnEnd::Completed));
        assert_eq!(a.next_tick(now), None);
        assert!(a.activity_forms(now).is_empty());
    }

    #[test]
    fn the_wait_for_the_first_token_counts_from_the_request() {
        let mut a = app();
        send(&mut a, "hi");
        agent(&mut a, Event::RequestSent);
        assert!(
            matches!(a.activity, Activity::FirstToken { .. }),
            "{:?}",
            a.activity
        );
        // Sent as the turn began (the instants made exact for the test).
        let since = a.turn_started.expect("the turn's clock runs");
        a.activity = Activity::FirstToken { since };
        // The turn's first request: one clock is enough.
        assert_eq!(
            a.activity_forms(since + Duration::from_millis(37_400))[..2],
            ["waiting for the first token 37 s", "waiting 37 s"]
        );
        assert_eq!(
            a.next_tick(since + Duration::from_millis(37_400)),
            Some(since + Duration::from_secs(38))
        );
        assert_eq!(
            a.activity_forms(since + Duration::from_secs(725))[0],
            "waiting for the first token 12m 05s"
        );
        agent(&mut a, Event::Delta(StreamDelta::Text("x".into())));
        assert!(a.activity_forms(since)[0].starts_with("writing"));
    }

    #[test]
    fn after_tool_calls_the_wait_shows_beside_the_turns_clock() {
        let mut a = app();
        send(&mut a, "hi");
        let start = a.turn_started.expect("the turn's clock runs");
        // The request of a later round, sent while the turn ran for a while already.
        a.activity = Activity::FirstToken {
            since: start + Duration::from_millis(80_500),
        };
        let now = start + Duration::from_millis(90_700);
        assert_eq!(
            a.activity_forms(now),
            [
                "waiting for the first token 10 s · 1m 30s",
                "waiting 10 s · 1m 30s",
                "waiting 10 s"
            ]
        );
        // Both clocks change on their own whole seconds.
        assert_eq!(a.next_tick(now), Some(start + Duration::from_secs(91)));
        let now = start + Duration::from_millis(91_200);
        assert_eq!(
            a.next_tick(now),
            Some(start + Duration::from_millis(91_500))
        );
    }

    #[test]
    fn a_long_turn_that_ends_unfocused_is_notified_once() {
        let mut a = app();
        a.set_notify_after(Some(Duration::from_secs(10)));
        let t0 = Instant::now();
        a.update_at(AppEvent::Focus(false), t0);
        send(&mut a, "hi");
        let start = a.turn_started.expect("started");
        let effects = a.update_at(
            AppEvent::Agent(Event::TurnEnded(TurnEnd::Completed)),
            start + Duration::from_secs(12),
        );
        assert_eq!(
            effects,
            [Effect::Notify(
                "sayso: the reply is ready (after 12s)".into()
            )]
        );
        assert!(
            a.update_at(AppEvent::Tick, start + Duration::from_secs(13))
                .is_empty()
        );
    }

    #[test]
    fn short_focused_or_stopped_turns_are_not_notified() {
        let end = |focused: bool, took: u64, how: TurnEnd| {
            let mut a = app();
            a.set_notify_after(Some(Duration::from_secs(10)));
            a.update(AppEvent::Focus(focused));
            send(&mut a, "hi");
            let start = a.turn_started.expect("started");
            a.update_at(
                AppEvent::Agent(Event::TurnEnded(how)),
                start + Duration::from_secs(took),
            )
        };
        assert!(end(true, 60, TurnEnd::Completed).is_empty());
        assert!(end(false, 3, TurnEnd::Completed).is_empty());
        assert!(end(false, 60, TurnEnd::Stopped).is_empty());
        assert_eq!(end(false, 60, TurnEnd::Cancelled).len(), 1);
    }
}
