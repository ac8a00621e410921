//! When and how long to wait before sending a failed request again, and the one retry loop
//! every request goes through ([`with_retries`]).
//!
//! Exponential backoff without jitter (so a user — and a test — can predict the waits):
//! `initial × 2^(n-1)`, capped at `max_delay`. A server's `retry-after-ms` or `Retry-After`
//! (seconds or an HTTP date) replaces the computed wait; one longer than
//! [`MAX_RETRY_AFTER`] ends the retries with a clear message instead of a silent hang. What
//! cannot get better is not retried at all (a refused key, nothing listening on this machine);
//! a remote host refusing or a resolver saying "try again" only twice
//! ([`ProviderError::retry_limit`]).

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
/// start) until it succeeds, fails for good, or the policy's retries are spent. Each attempt's
/// deltas pass through as they come; a retryable failure is followed by `Retrying` and the
/// backoff sleep. The last item is always `Finished`.
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
        let mut retry = 0;
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
            match result {
                Ok(value) => {
                    yield Retried::Finished(Ok(value));
                    return;
                }
                Err(error) if error.is_retryable() && retry < error.retry_limit(policy.max_retries) => {
                    retry += 1;
                    let max_retries = error.retry_limit(policy.max_retries);
                    match policy.delay(retry, &error) {
                        Ok(delay) => {
                            tracing::warn!(%error, retry, ?delay, "retrying the request");
                            yield Retried::Retrying(Retry { retry, max_retries, delay, error });
                            tokio::time::sleep(delay).await;
                        }
                        Err(give_up) => {
                            yield Retried::Finished(Err(give_up));
                            return;
                        }
                    }
                }
                Err(error) => {
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
