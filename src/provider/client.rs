//! The HTTP side of the provider: one reqwest client, streamed and plain completions. The
//! models list (`models.rs`) and the context-window probes (`window.rs`) use its client too.
//!
//! A streamed reply is a [`Stream`] of [`StreamEvent`]s. Failures that a retry may fix (connect
//! errors, 408/409/425/429/5xx, an idle stream, streams cut off or failing mid-way) are retried
//! with backoff while nothing of the reply's text has arrived (`retry.rs`); before each retry
//! the stream yields [`StreamEvent::Retrying`], which tells the caller to discard what the
//! failed attempt showed. Dropping the stream cancels the request and closes the connection.
//! The last item is always [`StreamEvent::Finished`].
//!
//! Time limits fit local hardware: connecting is bounded by `connect_timeout`; the wait for the
//! answer and its first token (a CPU's prompt processing can take many minutes) by
//! `first_token_timeout`, counted again from any bytes the server sends meanwhile; after the
//! first token, the gap between two chunks by `idle_timeout`. A reply that keeps streaming has
//! no limit: a slow model writing a long answer is never cut off by a clock.
//!
//! Every request goes through the same retry loop (`retry::with_retries`): a streamed completion
//! passes its attempts' deltas and `Retrying` events on; the plain completion (the judge, a
//! summary) and the models list wait for the `Finished` outcome, their retries only logged.
//! Each attempt of those gets `request_timeout` from its start; every wait inside it is bounded
//! by that deadline.
//!
//! Requests go to the base URL in use ([`Client::base_url`]): the configured one, or the one
//! `base_url.rs` corrected it to after a 404 (said once, as [`StreamEvent::Notice`]). A refused
//! key becomes [`ProviderError::Auth`], naming where the key came from (`failure.rs`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{FutureExt, Stream, StreamExt, stream};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode};
use tokio::time::{Instant, timeout_at};

use super::assembly::{AssistantMessage, StreamDelta};
use super::base_url::{BaseUrlFrom, Endpoint, about_the_model, correction, not_found_hint};
use super::decode::ReplyDecoder;
use super::error::{ProviderError, error_body_message, with_reason};
use super::failure::{is_auth_failure, key_hint};
use super::pacing::Pacing;
use super::request::ChatRequest;
use super::retry::{Attempt, Retry, RetryPolicy, outcome, parse_retry_after, with_retries};
use super::stream_limits::{StreamLimits, is_token};
use super::window::{WindowCache, WindowCaps};

/// Everything the client needs to reach one endpoint.
#[derive(Clone, PartialEq)]
pub struct ProviderSettings {
    /// A name for messages: the provider's config name, or "default".
    pub name: String,
    /// e.g. `http://127.0.0.1:8080/v1` (no trailing `/chat/completions`).
    pub base_url: String,
    /// Where `base_url` came from: what a message about a wrong one tells to change.
    pub base_url_from: BaseUrlFrom,
    /// The secret itself, read from the environment. Never logged.
    pub api_key: Option<String>,
    /// The variable the key is read from (`api_key_env`), for messages; `None`: none is
    /// configured.
    pub api_key_env: Option<String>,
    pub headers: Vec<(String, String)>,
    /// Each attempt of a request that is not streamed (the judge, a summary, the models list,
    /// the window probes), from its start to the whole answer. Never a streamed reply's.
    pub request_timeout: Duration,
    /// A streamed reply: the longest gap between two chunks once its first token came.
    pub idle_timeout: Duration,
    /// A streamed reply: the longest wait for the answer and its first token after the request
    /// went out (the prompt processing), counted again from any bytes the server sends.
    pub first_token_timeout: Duration,
    /// Opening the connection.
    pub connect_timeout: Duration,
    pub retry: RetryPolicy,
    /// The provider's `context_window` from the config: beats what the server reports.
    pub context_window: Option<u64>,
    /// `[context_windows]` from the config, model id → tokens: beats `context_window`.
    pub model_windows: BTreeMap<String, u64>,
    /// What a project file set: these only ever lower the window.
    pub window_caps: WindowCaps,
}

impl std::fmt::Debug for ProviderSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderSettings")
            .field("name", &self.name)
            .field("base_url", &self.base_url)
            .field("base_url_from", &self.base_url_from)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("api_key_env", &self.api_key_env)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("request_timeout", &self.request_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("first_token_timeout", &self.first_token_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("retry", &self.retry)
            .field("context_window", &self.context_window)
            .field("model_windows", &self.model_windows)
            .field("window_caps", &self.window_caps)
            .finish()
    }
}

/// What a streamed completion reports, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    Delta(StreamDelta),
    /// Something the user should know about the endpoint, once: the base URL was corrected.
    Notice(String),
    /// The attempt failed and will be retried after its delay: discard what it produced.
    Retrying(Retry),
    /// The last event: the assembled reply, or the error that ended the retries.
    Finished(Result<AssistantMessage, ProviderError>),
}

#[derive(Clone)]
pub struct Client {
    pub(super) http: reqwest::Client,
    pub(super) settings: Arc<ProviderSettings>,
    /// Sent with every request: the key, the config's headers.
    pub(super) headers: HeaderMap,
    /// Context windows found so far (see `window`).
    pub(super) windows: WindowCache,
    /// The base URL in use (see `base_url`).
    pub(super) endpoint: Endpoint,
    /// After a 429, the next request to that server waits (see `pacing`).
    pub(super) pacing: Pacing,
}

/// A header name or value from the config that HTTP cannot carry.
#[derive(Debug, thiserror::Error)]
#[error("header `{name}` cannot be sent: {reason}")]
pub struct BadHeader {
    pub name: String,
    pub reason: String,
}

impl Client {
    pub fn new(settings: ProviderSettings) -> Result<Self, BadHeader> {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(key) = settings.api_key.as_deref().filter(|k| !k.is_empty()) {
            let mut v = HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| BadHeader {
                name: "Authorization".into(),
                reason: "the API key contains characters that are not allowed in a header".into(),
            })?;
            v.set_sensitive(true);
            headers.insert(AUTHORIZATION, v);
        }
        for (k, v) in &settings.headers {
            let name = HeaderName::from_bytes(k.as_bytes()).map_err(|e| BadHeader {
                name: k.clone(),
                reason: e.to_string(),
            })?;
            let value = HeaderValue::from_str(v).map_err(|e| BadHeader {
                name: k.clone(),
                reason: e.to_string(),
            })?;
            headers.insert(name, value);
        }
        let mut builder = crate::provider::http::client_builder()
            .connect_timeout(settings.connect_timeout)
            .user_agent(concat!("sayso/", env!("CARGO_PKG_VERSION")));
        if settings.base_url.starts_with("http://") {
            // No TLS can happen on this client: skip loading the system's root certificates
            // (~1.5 ms at every start). An https redirect would fail verification, not pass.
            builder = builder.tls_certs_only(Vec::<reqwest::Certificate>::new());
        }
        let http = builder.build().map_err(|e| BadHeader {
            name: "(client)".into(),
            reason: e.to_string(),
        })?;
        Ok(Self {
            http,
            endpoint: Endpoint::new(&settings.base_url, settings.base_url_from.clone()),
            settings: Arc::new(settings),
            headers,
            windows: WindowCache::default(),
            pacing: Pacing::default(),
        })
    }

    pub fn settings(&self) -> &ProviderSettings {
        &self.settings
    }

    /// The base URL requests go to: the configured one, unless a 404 showed an obvious slip
    /// in it (see `base_url`). No trailing `/`.
    pub fn base_url(&self) -> String {
        self.endpoint.base()
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.base_url())
    }

    /// Sends one request to `path` under the base URL and checks its status: non-2xx becomes
    /// an error. A 404 at a base URL with an obvious slip (no `/v1`, `/chat/completions`
    /// appended) is sent once more to the corrected base; when that one answers, the client
    /// keeps it.
    pub(super) async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Bytes>,
        deadline: Instant,
    ) -> Result<reqwest::Response, ProviderError> {
        let base = self.base_url();
        let url = format!("{base}/{path}");
        let resp = self
            .send_once(method.clone(), &url, body.clone(), deadline)
            .await?;
        let fix = correction(&base);
        let (Some(fix), StatusCode::NOT_FOUND) = (fix, resp.status()) else {
            return self.check(resp, &url, None, deadline).await;
        };
        let text = self.body_text(resp, deadline).await;
        if about_the_model(&error_body_message(&text)) {
            return Err(self.status_error(StatusCode::NOT_FOUND, &text, None, &url, None));
        }
        let other = format!("{}/{path}", fix.base);
        tracing::info!(%url, %other, "404: trying the corrected base URL");
        let second = self.send_once(method, &other, body, deadline).await?;
        if second.status() == StatusCode::NOT_FOUND {
            return self.check(second, &url, Some(&other), deadline).await;
        }
        self.endpoint.correct(&base, &fix);
        tracing::warn!(from = %base, to = %fix.base, "base URL corrected");
        self.check(second, &other, None, deadline).await
    }

    async fn send_once(
        &self,
        method: Method,
        url: &str,
        body: Option<Bytes>,
        deadline: Instant,
    ) -> Result<reqwest::Response, ProviderError> {
        let mut req = self.http.request(method, url).headers(self.headers.clone());
        if let Some(body) = body {
            req = req.body(body);
        }
        let _ = timeout_at(deadline, self.pacing.wait(url)).await;
        let resp = timeout_at(deadline, req.send())
            .await
            .map_err(|_| ProviderError::RequestTimeout(self.settings.request_timeout))?
            .map_err(|e| ProviderError::from_reqwest(url, &e, &self.settings.base_url_from))?;
        if resp.status() == StatusCode::TOO_MANY_REQUESTS {
            self.pacing.note_429(url, parse_retry_after(resp.headers()));
        }
        Ok(resp)
    }

    /// `resp` when it is a success, else the error it says (`tried`: a corrected URL that
    /// answered 404 as well).
    async fn check(
        &self,
        resp: reqwest::Response,
        url: &str,
        tried: Option<&str>,
        deadline: Instant,
    ) -> Result<reqwest::Response, ProviderError> {
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let retry_after = parse_retry_after(resp.headers());
        let body = self.body_text(resp, deadline).await;
        Err(self.status_error(status, &body, retry_after, url, tried))
    }

    async fn body_text(&self, resp: reqwest::Response, deadline: Instant) -> String {
        timeout_at(deadline, resp.text())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default()
    }

    /// The error for a non-2xx answer: an overflow, a refused key, or the status with the
    /// server's message (a 404 also naming the URL asked).
    fn status_error(
        &self,
        status: StatusCode,
        body: &str,
        retry_after: Option<Duration>,
        url: &str,
        tried: Option<&str>,
    ) -> ProviderError {
        if let Some(o) = super::overflow::classify(Some(status.as_u16()), body) {
            return ProviderError::ContextOverflow {
                message: error_body_message(body),
                window: o.window,
                prompt: o.prompt,
            };
        }
        let mut message = with_reason(status.canonical_reason(), &error_body_message(body));
        if is_auth_failure(status.as_u16(), body) {
            return ProviderError::Auth {
                status: status.as_u16(),
                message,
                hint: key_hint(&self.settings),
            };
        }
        if status == StatusCode::NOT_FOUND {
            message.push_str(&not_found_hint(url, tried, &self.settings.base_url_from));
        }
        ProviderError::Status {
            status: status.as_u16(),
            message,
            retry_after,
        }
    }

    /// Streams a completion of `req`. See the module docs for the event contract.
    pub fn stream_chat(
        &self,
        req: &ChatRequest,
    ) -> impl Stream<Item = StreamEvent> + Send + 'static {
        let this = self.clone();
        let body = Bytes::from(req.body_bytes(true));
        tracing::debug!(url = %self.url("chat/completions"), model = %req.model, bytes = body.len(), "streaming request");
        let settings = self.settings.clone();
        // A streamed attempt keeps its own clocks (see the module docs), not the deadline.
        with_retries(settings, move |_| this.clone().stream_attempt(body.clone()))
            .map(StreamEvent::from)
    }

    /// One streamed attempt: its deltas as they are decoded, then its outcome.
    fn stream_attempt(
        self,
        body: Bytes,
    ) -> impl Stream<Item = Attempt<AssistantMessage>> + Send + 'static {
        async_stream::stream! {
            let mut out = Vec::new();
            let limits = StreamLimits::of(&self.settings);
            let result: Result<AssistantMessage, ProviderError> = 'attempt: {
                let answered_by = Instant::now() + limits.first_token;
                let resp = match self.send(Method::POST, "chat/completions", Some(body), answered_by).await {
                    Ok(r) => r,
                    Err(ProviderError::RequestTimeout(_)) => {
                        break 'attempt Err(ProviderError::FirstTokenTimeout(limits.first_token))
                    }
                    Err(e) => break 'attempt Err(e),
                };
                if let Some(notice) = self.endpoint.take_notice() {
                    yield Attempt::Notice(notice);
                }
                let mut decoder = ReplyDecoder::new();
                let mut bytes = resp.bytes_stream();
                let mut token_seen = false;
                loop {
                    let wait = limits.gap(token_seen);
                    match tokio::time::timeout(wait, bytes.next()).await {
                        Err(_) => break 'attempt Err(limits.timed_out(token_seen)),
                        Ok(None) => break 'attempt decoder.finish(&mut out),
                        Ok(Some(Err(e))) => break 'attempt Err(ProviderError::dropped(&e)),
                        Ok(Some(Ok(chunk))) => {
                            if let Err(e) = decoder.feed(&chunk, &mut out) {
                                break 'attempt Err(e);
                            }
                            token_seen |= out.iter().any(is_token);
                            for d in out.drain(..) {
                                yield Attempt::Delta(d);
                            }
                            if decoder.is_done() {
                                break 'attempt decoder.finish(&mut out);
                            }
                        }
                    }
                }
            };
            for d in out.drain(..) {
                yield Attempt::Delta(d);
            }
            yield Attempt::Done(result);
        }
    }

    /// A non-streaming completion (used by the judge), retried like a stream but silently.
    pub async fn complete(&self, req: &ChatRequest) -> Result<AssistantMessage, ProviderError> {
        let body = Bytes::from(req.body_bytes(false));
        let attempts = with_retries(self.settings.clone(), |deadline| {
            let attempt = self.complete_attempt(body.clone(), deadline);
            stream::once(attempt.map(Attempt::Done))
        });
        outcome(attempts).await
    }

    async fn complete_attempt(
        &self,
        body: Bytes,
        deadline: Instant,
    ) -> Result<AssistantMessage, ProviderError> {
        let resp = self
            .send(Method::POST, "chat/completions", Some(body), deadline)
            .await?;
        let text = timeout_at(deadline, resp.text())
            .await
            .map_err(|_| ProviderError::RequestTimeout(self.settings.request_timeout))?
            .map_err(|e| ProviderError::Dropped(e.to_string()))?;
        parse_completion(&text)
    }
}

/// A non-streamed completion body, read with the same lenient types as stream chunks.
pub fn parse_completion(text: &str) -> Result<AssistantMessage, ProviderError> {
    let chunk: super::chunk::Chunk =
        serde_json::from_str(text).map_err(|e| ProviderError::Unreadable(e.to_string()))?;
    if let Some(err) = &chunk.error {
        return Err(ProviderError::InStream {
            message: super::error::error_value_message(err).unwrap_or_default(),
            retryable: false,
        });
    }
    let mut assembler = super::assembly::Assembler::default();
    let mut sink = Vec::new();
    assembler.push(chunk, &mut sink);
    Ok(assembler.finish(&mut sink))
}
