//! The per-endpoint gate: after a 429 from any request to a server (a window probe, the models
//! list, a chat request), the next request there waits for the `Retry-After` the server asked
//! for. Shared by a client's clones; keyed by the server's origin (`scheme://host:port`), so the
//! probes at the server root and the chat requests under `/v1` wait alike.
//!
//! Pure bookkeeping ([`Gate::until`], [`Gate::note`]) plus one async wait ([`Pacing::wait`]).
//! Not here: whether a failed request is retried, or how long a backoff is (`retry.rs`); a wait
//! longer than [`MAX_WAIT`] is cut to it (the retry loop refuses such waits on its own).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// The longest a request waits at the gate.
pub const MAX_WAIT: Duration = Duration::from_secs(300);

/// When each origin may be asked again.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    not_before: HashMap<String, Instant>,
}

impl Gate {
    /// The server at `origin` answered 429 at `now` asking for `retry_after`: nothing goes there
    /// before `now + retry_after` (capped at [`MAX_WAIT`]). A later deadline already set stays.
    pub(crate) fn note(&mut self, origin: &str, now: Instant, retry_after: Duration) {
        let until = now + retry_after.min(MAX_WAIT);
        let slot = self.not_before.entry(origin.to_owned()).or_insert(until);
        *slot = (*slot).max(until);
    }

    /// How long a request to `origin` made at `now` must wait (`None`: go).
    pub(crate) fn until(&self, origin: &str, now: Instant) -> Option<Duration> {
        let until = *self.not_before.get(origin)?;
        (until > now).then(|| until - now)
    }
}

/// The gate, shared by a client's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pacing(Arc<Mutex<Gate>>);

impl Pacing {
    /// Waits until a request to `url` may go (at once unless a 429 asked for a pause).
    pub(crate) async fn wait(&self, url: &str) {
        let origin = origin(url);
        let wait = self
            .0
            .lock()
            .ok()
            .and_then(|g| g.until(&origin, Instant::now()));
        if let Some(wait) = wait {
            tracing::info!(%origin, ?wait, "waiting before the next request: the server answered 429 with Retry-After");
            tokio::time::sleep(wait).await;
        }
    }

    /// `url` answered 429 asking for `retry_after` (none given: the gate stays open).
    pub(crate) fn note_429(&self, url: &str, retry_after: Option<Duration>) {
        let Some(after) = retry_after else {
            return;
        };
        if let Ok(mut g) = self.0.lock() {
            g.note(&origin(url), Instant::now(), after);
        }
    }
}

/// `http://h:8080/v1/models` → `http://h:8080`; a string that is no URL stands for itself.
pub(crate) fn origin(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => u.origin().ascii_serialization(),
        Err(_) => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_429_closes_the_gate_of_its_origin_for_its_retry_after() {
        let t0 = Instant::now();
        let mut g = Gate::default();
        assert_eq!(g.until("http://h:1", t0), None);
        g.note("http://h:1", t0, Duration::from_secs(1));
        assert_eq!(g.until("http://h:1", t0), Some(Duration::from_secs(1)));
        assert_eq!(
            g.until("http://h:1", t0 + Duration::from_millis(400)),
            Some(Duration::from_millis(600))
        );
        assert_eq!(g.until("http://h:1", t0 + Duration::from_secs(1)), None);
        assert_eq!(
            g.until("http://h:2", t0),
            None,
            "another server is not held"
        );
    }

    #[test]
    fn a_shorter_later_wait_does_not_reopen_and_a_huge_one_is_capped() {
        let t0 = Instant::now();
        let mut g = Gate::default();
        g.note("o", t0, Duration::from_secs(10));
        g.note("o", t0 + Duration::from_secs(1), Duration::from_secs(1));
        assert_eq!(g.until("o", t0), Some(Duration::from_secs(10)));
        g.note("p", t0, Duration::from_secs(86_400));
        assert_eq!(g.until("p", t0), Some(MAX_WAIT));
    }

    #[tokio::test(start_paused = true)]
    async fn the_next_request_waits_out_the_retry_after_and_others_do_not() {
        let p = Pacing::default();
        p.note_429("http://h:1/v1/models", Some(Duration::from_secs(1)));
        p.note_429("http://h:2/v1/models", None);
        let t0 = Instant::now();
        p.wait("http://h:2/v1/chat/completions").await;
        assert_eq!(t0.elapsed(), Duration::ZERO, "no Retry-After: no pause");
        p.wait("http://h:1/v1/chat/completions").await;
        assert_eq!(t0.elapsed(), Duration::from_secs(1));
        p.wait("http://h:1/props").await;
        assert_eq!(t0.elapsed(), Duration::from_secs(1), "the pause is over");
        // Clones share the gate.
        p.clone()
            .note_429("http://h:1/v1", Some(Duration::from_millis(500)));
        p.wait("http://h:1/api/ps").await;
        assert_eq!(t0.elapsed(), Duration::from_millis(1500));
    }

    #[test]
    fn probes_at_the_root_and_chat_under_v1_share_one_origin() {
        assert_eq!(
            origin("http://127.0.0.1:8080/props?model=m"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            origin("http://127.0.0.1:8080/v1/chat/completions"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            origin("https://user:pw@example.com/api/v1"),
            "https://example.com"
        );
        assert_eq!(origin("not a url"), "not a url");
    }
}
