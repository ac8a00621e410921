//! When and how long to wait before sending a failed request again, and the one retry loop
//! every request goes through ([`with_retries`]).
//!
//! Exponential backoff without jitter (so a user — and a test — can predict the waits):
//! `initial × 2^(n-1)`, capped at `max_delay`. A server's `retry-after-ms` or `Retry-After`
//! (seconds or an HTTP date) replaces the computed wait; one longer than
//! [`MAX_RETRY_AFTER`] ends the retries with a clear message instead of a silent hang. What
//! cannot get better is not retried at all (a refused key, a 4xx other than 408/409/425/429, a
//! name that does not resolve, no first token within `first_token_timeout_s`); a refused
//! connection on this machine once, quickly ([`ProviderError::quick_retry`]), a remote host
//! refusing twice ([`ProviderError::retry_limit`]).
//!
//! A retry only when nothing can be salvaged: no clock cuts a reply that keeps streaming, so a
//! streamed attempt fails only when the server stops answering (silent for the idle timeout,
//! the connection dropped, the body ended without `finish_reason`/`[DONE]`) or reports an
//! error. What such an attempt streamed is an unfinished reply that cannot be continued, so it
//! is asked for again — said so with [`Retry`] (the caller discards what it showed). Accepting
//! the cut reply as the answer would be wrong (LLMock grades it `truncated_stream_accepted`).
//! [`after_failure`] decides, as a plain function.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures_util::{Stream, StreamExt};
use reqwest::header::HeaderMap;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::assembly::{AssistantMessage, StreamDelta};
use super::client::{ProviderSettings, StreamEvent};
use super::error::ProviderError;

/// An attempt that failed and is retried after `delay`: what it streamed is to be discarded.
/// One declaration for every layer that reports it (the stream's [`StreamEvent::Retrying`],
/// the agent's event, the session record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Retry {
    /// 1-based number of the coming retry.
    pub retry: u32,
    pub max_retries: u32,
    pub delay: Duration,
    pub error: ProviderError,
}

/// The longest server-requested wait sayso honours.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(300);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    pub max_retries: u32,
    pub initial_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 4,
            initial_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (1-based) after `error`, or the error to give up
    /// with.
    pub fn delay(&self, retry: u32, error: &ProviderError) -> Result<Duration, ProviderError> {
        if let Some(quick) = error.quick_retry() {
            return Ok(quick.min(self.initial_delay));
        }
        if let Some(asked) = error.retry_after() {
            if asked > MAX_RETRY_AFTER {
                return Err(ProviderError::RetryAfterTooLong(asked));
            }
            return Ok(asked);
        }
        let factor = 2u32.saturating_pow(retry.saturating_sub(1));
        Ok(self
            .initial_delay
            .saturating_mul(factor)
            .min(self.max_delay))
    }
}

/// What follows a failed attempt.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterFailure {
    /// Send the request again after `delay`.
    Retry(Retry),
    /// Report this error: the request is over.
    GiveUp(ProviderError),
}

/// What to do after an attempt failed with `error`, when `retries` retries were made already.
pub fn after_failure(policy: &RetryPolicy, retries: u32, error: ProviderError) -> AfterFailure {
    let max_retries = error.retry_limit(policy.max_retries);
    if !error.is_retryable() || retries >= max_retries {
        return AfterFailure::GiveUp(error);
    }
    let retry = retries + 1;
    match policy.delay(retry, &error) {
        Ok(delay) => AfterFailure::Retry(Retry {
            retry,
            max_retries,
            delay,
            error,
        }),
        Err(give_up) => AfterFailure::GiveUp(give_up),
    }
}

/// The wait a response asks for: `retry-after-ms`, else `Retry-After` in seconds or as a date.
pub fn parse_retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name)?.to_str().ok().map(str::trim);
    if let Some(ms) = text("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_millis(ms as u64));
    }
    let v = text("retry-after")?;
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let when = http_date(v)?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// An HTTP date: the IMF-fixdate `Wed, 21 Oct 2015 07:28:00 GMT` (read as RFC 2822), or one of
/// the obsolete forms a recipient must still accept (RFC 9110 §5.6.7): RFC 850
/// `Wednesday, 21-Oct-15 07:28:00 GMT` and asctime `Wed Oct 21 07:28:00 2015`.
fn http_date(v: &str) -> Option<SystemTime> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc2822(v) {
        return Some(t.into());
    }
    ["%A, %d-%b-%y %H:%M:%S GMT", "%a %b %e %H:%M:%S %Y"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(v, f).ok())
        .map(|t| t.and_utc().into())
}

/// What one attempt at a request produces: deltas as it streams (none for plain requests),
/// then its outcome.
pub(super) enum Attempt<T> {
    Delta(StreamDelta),
    /// Something the user should know about the request (a corrected base URL).
    Notice(String),
    Done(Result<T, ProviderError>),
}

/// What a retried request reports, in order: [`StreamEvent`] for any result type.
pub(super) enum Retried<T> {
    Delta(StreamDelta),
    Notice(String),
    Retrying(Retry),
    Finished(Result<T, ProviderError>),
}

impl From<Retried<AssistantMessage>> for StreamEvent {
    fn from(r: Retried<AssistantMessage>) -> Self {
        match r {
            Retried::Delta(d) => StreamEvent::Delta(d),
            Retried::Notice(n) => StreamEvent::Notice(n),
            Retried::Retrying(r) => StreamEvent::Retrying(r),
            Retried::Finished(result) => StreamEvent::Finished(result),
        }
    }
}

/// The one retry loop: runs `attempt` (given the attempt's deadline, `request_timeout` from its
/// start: a streamed attempt keeps its own clocks instead) until it succeeds, fails for good,
/// or the policy's retries are spent ([`after_failure`]). Each attempt's deltas pass through
/// as they come; a retryable failure is followed by `Retrying` and the backoff sleep. The last
/// item is always `Finished`.
pub(super) fn with_retries<T, F, S>(
    settings: Arc<ProviderSettings>,
    mut attempt: F,
) -> impl Stream<Item = Retried<T>>
where
    F: FnMut(Instant) -> S,
    S: Stream<Item = Attempt<T>>,
{
    async_stream::stream! {
        let policy = settings.retry;
        let mut retries = 0;
        loop {
            let deadline = Instant::now() + settings.request_timeout;
            let mut result = None;
            {
                let events = attempt(deadline);
                futures_util::pin_mut!(events);
                while let Some(event) = events.next().await {
                    match event {
                        Attempt::Delta(d) => yield Retried::Delta(d),
                        Attempt::Notice(n) => yield Retried::Notice(n),
                        Attempt::Done(r) => {
                            result = Some(r);
                            break;
                        }
                    }
                }
            }
            let result = result.unwrap_or_else(|| {
                Err(ProviderError::Unreadable("the attempt ended without an outcome".into()))
            });
            let error = match result {
                Ok(value) => {
                    yield Retried::Finished(Ok(value));
                    return;
                }
                Err(error) => error,
            };
            match after_failure(&policy, retries, error) {
                AfterFailure::Retry(r) => {
                    retries = r.retry;
                    let delay = r.delay;
                    tracing::warn!(error = %r.error, retry = r.retry, ?delay, "retrying the request");
                    yield Retried::Retrying(r);
                    tokio::time::sleep(delay).await;
                }
                AfterFailure::GiveUp(error) => {
                    tracing::warn!(%error, "request failed");
                    yield Retried::Finished(Err(error));
                    return;
                }
            }
        }
    }
}

/// The outcome of a silently retried request (its `Retrying` events are only logged; a notice
/// stays with the client until a streamed reply shows it).
pub(super) async fn outcome<T>(events: impl Stream<Item = Retried<T>>) -> Result<T, ProviderError> {
    futures_util::pin_mut!(events);
    while let Some(event) = events.next().await {
        if let Retried::Finished(result) = event {
            return result;
        }
    }
    Err(ProviderError::Unreadable(
        "the request ended without an outcome".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dropped() -> ProviderError {
        ProviderError::Dropped("x".into())
    }

    fn status(code: u16) -> ProviderError {
        ProviderError::Status {
            status: code,
            message: String::new(),
            retry_after: None,
        }
    }

    fn connect(cause: crate::provider::error::ConnectCause) -> ProviderError {
        ProviderError::Connect {
            url: "http://127.0.0.1:1/v1/chat/completions".into(),
            reason: "refused".into(),
            cause,
            from: Default::default(),
        }
    }

    /// What each failure gets after `retries` retries: `Some(delay)` for a retry, `None` for
    /// giving up with that very error.
    #[test]
    fn which_failures_are_retried_and_after_how_long() {
        use crate::provider::error::ConnectCause::{Dns, Other, Refused};
        let p = RetryPolicy {
            max_retries: 4,
            initial_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
        };
        let overflow = ProviderError::ContextOverflow {
            message: "too long".into(),
            window: Some(4096),
            prompt: Some(5000),
        };
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        let rows: Vec<(ProviderError, u32, Option<Duration>)> = vec![
            // Statuses that may be different next time.
            (status(408), 0, Some(s(1))),
            (status(409), 0, Some(s(1))),
            (status(425), 1, Some(s(2))),
            (status(429), 2, Some(s(4))),
            (status(500), 3, Some(s(8))),
            (status(503), 0, Some(s(1))),
            (status(500), 4, None),
            // A request the server refuses as it is.
            (status(400), 0, None),
            (status(404), 0, None),
            (status(413), 0, None),
            (status(422), 0, None),
            (overflow, 0, None),
            // Nothing listens on this machine: once, quickly.
            (connect(Refused { local: true }), 0, Some(ms(250))),
            (connect(Refused { local: true }), 1, None),
            (connect(Refused { local: false }), 1, Some(s(2))),
            (connect(Refused { local: false }), 2, None),
            (connect(Dns { temporary: false }), 0, None),
            (connect(Dns { temporary: true }), 0, None),
            (connect(Other), 3, Some(s(8))),
            // The stream stopped: an unfinished reply is asked for again.
            (ProviderError::Dropped("eof".into()), 0, Some(s(1))),
            (ProviderError::IdleTimeout(s(120)), 0, Some(s(1))),
            // No token within the long first-token limit: it would take as long again.
            (ProviderError::FirstTokenTimeout(s(1800)), 0, None),
            (ProviderError::RequestTimeout(s(600)), 0, Some(s(1))),
            (ProviderError::Unreadable("x".into()), 0, None),
        ];
        for (error, retries, want) in rows {
            let got = match after_failure(&p, retries, error.clone()) {
                AfterFailure::Retry(r) => {
                    assert_eq!((r.retry, &r.error), (retries + 1, &error));
                    Some(r.delay)
                }
                AfterFailure::GiveUp(e) => {
                    assert_eq!(e, error);
                    None
                }
            };
            assert_eq!(got, want, "{error:?} after {retries} retries");
        }
    }

    #[test]
    fn a_quick_retry_is_never_slower_than_the_policy() {
        let p = RetryPolicy {
            initial_delay: Duration::from_millis(20),
            ..RetryPolicy::default()
        };
        let local = connect(crate::provider::error::ConnectCause::Refused { local: true });
        assert_eq!(p.delay(1, &local).unwrap(), Duration::from_millis(20));
    }

    #[test]
    fn a_wait_longer_than_sayso_honours_ends_the_retries() {
        let e = ProviderError::Status {
            status: 429,
            message: String::new(),
            retry_after: Some(Duration::from_secs(3600)),
        };
        assert_eq!(
            after_failure(&RetryPolicy::default(), 0, e),
            AfterFailure::GiveUp(ProviderError::RetryAfterTooLong(Duration::from_secs(3600)))
        );
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let p = RetryPolicy {
            max_retries: 6,
            initial_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(500),
        };
        let waits: Vec<_> = (1..=5)
            .map(|n| p.delay(n, &dropped()).unwrap().as_millis())
            .collect();
        assert_eq!(waits, [100, 200, 400, 500, 500]);
    }

    #[test]
    fn server_wait_wins_and_too_long_gives_up() {
        let p = RetryPolicy::default();
        let e = |s| ProviderError::Status {
            status: 429,
            message: String::new(),
            retry_after: Some(Duration::from_secs(s)),
        };
        assert_eq!(p.delay(1, &e(7)).unwrap(), Duration::from_secs(7));
        assert!(matches!(
            p.delay(1, &e(3600)),
            Err(ProviderError::RetryAfterTooLong(_))
        ));
    }

    #[test]
    fn retry_after_header_forms() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(parse_retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "1500".parse().unwrap());
        assert_eq!(parse_retry_after(&h), Some(Duration::from_millis(1500)));
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap(),
        );
        assert_eq!(parse_retry_after(&h), Some(Duration::ZERO));
        h.insert("retry-after", "soon".parse().unwrap());
        assert_eq!(parse_retry_after(&h), None);
    }

    #[test]
    fn http_dates_in_all_three_forms() {
        let want = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        for v in [
            "Wed, 21 Oct 2015 07:28:00 GMT",
            "Wednesday, 21-Oct-15 07:28:00 GMT",
            "Wed Oct 21 07:28:00 2015",
        ] {
            assert_eq!(http_date(v), Some(want), "{v}");
        }
        let single_digit_day = SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777);
        assert_eq!(
            http_date("Sun Nov  6 08:49:37 1994"),
            Some(single_digit_day)
        );
        for bad in [
            "",
            "soon",
            "Wed, 32 Oct 2015 07:28:00 GMT",
            "2015-10-21T07:28:00Z",
        ] {
            assert_eq!(http_date(bad), None, "{bad}");
        }
    }
}
