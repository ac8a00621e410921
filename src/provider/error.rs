//! Errors of the provider client, each with a sentence a user can act on, and whether a retry
//! may help (what cannot get better is not retried: see [`super::failure`]).

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::base_url::BaseUrlFrom;
pub use super::failure::ConnectCause;

/// Serialisable, so that a session file keeps how a turn failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderError {
    #[error("could not connect to {url}: {reason}{}", cause.advice(url, from))]
    Connect {
        url: String,
        reason: String,
        cause: ConnectCause,
        /// Where the base URL came from, for the advice.
        from: BaseUrlFrom,
    },
    /// A redirect to another origin, not followed (never retried: it would redirect again).
    #[error("{0}")]
    Redirect(super::http::CrossOriginRedirect),
    #[error("the server sent no data for {} s", .0.as_secs())]
    IdleTimeout(Duration),
    #[error("the request took longer than {} s", .0.as_secs())]
    RequestTimeout(Duration),
    /// Nothing came for `first_token_timeout_s` before the reply's first token (not retried:
    /// the prompt would be processed again from the start, and take as long).
    #[error("no token came within {} s of sending the request (a slow prompt processing? raise first_token_timeout_s)", .0.as_secs())]
    FirstTokenTimeout(Duration),

    #[error("the server answered {status}: {message}")]
    Status {
        status: u16,
        message: String,
        retry_after: Option<Duration>,
    },
    /// The server refused the key, or wanted one (never retried: the key will not change).
    #[error("the server answered {status}: {message} — {hint}")]
    Auth {
        status: u16,
        message: String,
        /// Where the key came from and what to change (never the key).
        hint: String,
    },
    #[error("the stream stopped before the reply was complete ({0})")]
    Dropped(String),
    #[error("the server reported an error in the stream: {message}")]
    InStream { message: String, retryable: bool },
    #[error("the server's response could not be read: {0}")]
    Unreadable(String),
    #[error("the server asked to wait {} s before retrying, longer than sayso waits", .0.as_secs())]
    RetryAfterTooLong(Duration),
    /// The request does not fit the model's context window (never retried as it is).
    #[error("the request does not fit the model's context window: {message}")]
    ContextOverflow {
        message: String,
        window: Option<u64>,
        prompt: Option<u64>,
    },
    /// An error known only by its text: as a session file of an older sayso recorded it.
    #[error("{0}")]
    Recorded(String),
}

impl ProviderError {
    /// Whether sending the same request again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Connect { cause, .. } => cause.may_pass(),
            Self::IdleTimeout(_) | Self::Dropped(_) => true,
            Self::RequestTimeout(_) => true,
            Self::Status { status, .. } => status_may_pass(*status),
            Self::InStream { retryable, .. } => *retryable,
            Self::Unreadable(_)
            | Self::Auth { .. }
            | Self::RetryAfterTooLong(_)
            | Self::ContextOverflow { .. }
            | Self::Recorded(_)
            | Self::Redirect(_) => false,
            Self::FirstTokenTimeout(_) => false,
        }
    }

    /// How many retries it is worth at most, of the policy's `max_retries`.
    pub fn retry_limit(&self, max_retries: u32) -> u32 {
        match self {
            Self::Connect { cause, .. } => cause
                .retry_cap()
                .map_or(max_retries, |cap| cap.min(max_retries)),
            _ => max_retries,
        }
    }

    /// A wait shorter than the policy's that this failure is retried after: a refused
    /// connection on this machine is tried once more at once, as a server that is starting
    /// may be listening a moment later.
    pub fn quick_retry(&self) -> Option<Duration> {
        match self {
            Self::Connect { cause, .. } => cause.quick_retry(),
            _ => None,
        }
    }

    /// The delay the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// A failed request: a refused cross-origin redirect is [`Self::Redirect`]; a body or
    /// decode error means the response was cut off; anything else that `url` could not be
    /// reached.
    pub(crate) fn from_reqwest(url: &str, e: &reqwest::Error, from: &BaseUrlFrom) -> Self {
        if let Some(r) = super::http::cross_origin_redirect(e) {
            return Self::Redirect(r);
        }
        if e.is_body() || e.is_decode() {
            Self::dropped(e)
        } else {
            Self::Connect {
                url: url.to_owned(),
                reason: root_cause(e),
                cause: ConnectCause::of(url, &chain(e)),
                from: from.clone(),
            }
        }
    }

    /// A response body that stopped while it was being read: [`Self::Dropped`] with the
    /// transport's own reason ("unexpected EOF during chunk size line").
    pub(crate) fn dropped(e: &reqwest::Error) -> Self {
        Self::Dropped(root_cause(e))
    }
}

/// Whether an answer with this status may be different next time: 408 (timeout), 409
/// (conflict), 425 (too early), 429 (rate limit) and every 5xx. Any other 4xx says the request
/// itself is wrong; sending it again gets the same answer.
pub fn status_may_pass(status: u16) -> bool {
    matches!(status, 408 | 409 | 425 | 429) || status >= 500
}

/// `e` and every error it wraps, outermost first.
fn chain(e: &reqwest::Error) -> Vec<&(dyn std::error::Error + 'static)> {
    let mut out: Vec<&(dyn std::error::Error + 'static)> = vec![e];
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        out.push(s);
        src = s.source();
    }
    out
}

/// The innermost cause of `e`: the sentence that says what actually went wrong, without
/// reqwest's wrappers ("error decoding response body: …").
fn root_cause(e: &reqwest::Error) -> String {
    let mut reason = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        reason = s.to_string();
        src = s.source();
    }
    reason
}

/// A status answer's message: its reason phrase, then the body's message — once when the body
/// only repeats the reason (`Not Found`, not `Not Found: Not Found`).
pub fn with_reason(reason: Option<&str>, body_message: &str) -> String {
    match reason {
        Some(r) if r == body_message.trim().trim_end_matches('.') => r.to_owned(),
        Some(r) => format!("{r}: {body_message}"),
        None => body_message.to_owned(),
    }
}

/// The readable message inside an error body: `{"error":{"message":…}}`, `{"error":"…"}`,
/// `{"message":…}`, or the (shortened) text itself.
pub fn error_body_message(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<Value>(body)
        && let Some(m) = error_value_message(&v)
    {
        return m;
    }
    let text = body.trim();
    if text.is_empty() {
        return "(no details)".to_owned();
    }
    shorten(text, 500)
}

/// The message of an error object (`{"error": …}` or the inner value).
pub fn error_value_message(v: &Value) -> Option<String> {
    let inner = v.get("error").unwrap_or(v);
    match inner {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| Some(shorten(&inner.to_string(), 500))),
        _ => None,
    }
}

fn shorten(s: &str, max: usize) -> String {
    crate::text_cut::ellipsized(s, crate::text_cut::head(s, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connect(cause: ConnectCause) -> ProviderError {
        ProviderError::Connect {
            url: "http://h:1/v1/chat/completions".into(),
            reason: "Connection refused (os error 111)".into(),
            cause,
            from: BaseUrlFrom::Default,
        }
    }

    #[test]
    fn a_body_that_repeats_the_reason_is_said_once() {
        assert_eq!(with_reason(Some("Not Found"), "Not Found"), "Not Found");
        assert_eq!(with_reason(Some("Not Found"), "Not Found."), "Not Found");
        assert_eq!(
            with_reason(Some("Not Found"), "no such route"),
            "Not Found: no such route"
        );
        assert_eq!(with_reason(None, "teapot"), "teapot");
    }

    #[test]
    fn what_cannot_get_better_is_not_retried_a_local_refusal_once_a_remote_one_twice() {
        let local = connect(ConnectCause::Refused { local: true });
        assert!(local.is_retryable());
        assert_eq!(local.retry_limit(4), 1, "one quick retry");
        assert!(!connect(ConnectCause::Dns { temporary: false }).is_retryable());
        assert!(!connect(ConnectCause::Dns { temporary: true }).is_retryable());
        let remote = connect(ConnectCause::Refused { local: false });
        assert!(remote.is_retryable());
        assert_eq!((remote.retry_limit(4), remote.retry_limit(1)), (2, 1));
        assert_eq!(connect(ConnectCause::Other).retry_limit(4), 4);
        let auth = ProviderError::Auth {
            status: 500,
            message: "Internal Server Error: Authentication Error, No api key passed in.".into(),
            hint: "no API key was sent".into(),
        };
        assert!(!auth.is_retryable());
        assert_eq!(
            local.to_string(),
            "could not connect to http://h:1/v1/chat/completions: Connection refused (os error 111) — is the server running at http://h:1?"
        );
    }

    #[test]
    fn error_bodies_of_several_shapes() {
        assert_eq!(
            error_body_message(r#"{"error":{"message":"bad key","code":401}}"#),
            "bad key"
        );
        assert_eq!(
            error_body_message(r#"{"error":"overloaded"}"#),
            "overloaded"
        );
        assert_eq!(error_body_message(r#"{"message":"nope"}"#), "nope");
        assert_eq!(error_body_message("Bad Gateway"), "Bad Gateway");
        assert_eq!(error_body_message(""), "(no details)");
    }
}
