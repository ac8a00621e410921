//! The HTTP side of the provider: one reqwest client, streamed and plain completions. The
//! models list (`models.rs`) and the context-window probes (`window.rs`) use its client too.
//!
//! A streamed reply is a [`Stream`] of [`StreamEvent`]s. Failures that a retry may fix (connect
//! errors, 408/429/5xx, idle or overall timeouts, streams cut off or failing mid-way) are
//! retried with backoff; before each retry the stream yields [`StreamEvent::Retrying`], which
//! tells the caller to discard what the failed attempt showed. Dropping the stream cancels the
//! request and closes the connection. The last item is always [`StreamEvent::Finished`].
//!
//! Every request goes through the same retry loop (`with_retries`): a streamed completion
//! passes its attempts' deltas and `Retrying` events on; the plain completion (the judge) and
//! the models list wait for the `Finished` outcome, their retries only logged. Each attempt
//! gets `request_timeout` from its start; every wait inside it is bounded by that deadline.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{FutureExt, Stream, StreamExt, stream};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use tokio::time::{Instant, timeout_at};

use super::assembly::{AssistantMessage, StreamDelta};
use super::decode::ReplyDecoder;
use super::error::{ProviderError, error_body_message};
use super::request::ChatRequest;
use super::retry::{RetryPolicy, parse_retry_after};
use super::window::{WindowCache, WindowCaps};

/// Everything the client needs to reach one endpoint.
#[derive(Clone, PartialEq)]
pub struct ProviderSettings {
    /// A name for messages: the provider's config name, or "default".
    pub name: String,
    /// e.g. `http://127.0.0.1:8080/v1` (no trailing `/chat/completions`).
    pub base_url: String,
    /// The secret itself, read from the environment. Never logged.
    pub api_key: Option<String>,
    pub headers: Vec<(String, String)>,
    pub request_timeout: Duration,
    pub idle_timeout: Duration,
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
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .field("request_timeout", &self.request_timeout)
            .field("idle_timeout", &self.idle_timeout)
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
    /// The attempt failed and will be retried after `delay`: discard what it produced.
    Retrying {
        /// 1-based number of the coming retry.
        retry: u32,
        max_retries: u32,
        delay: Duration,
        error: ProviderError,
    },
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
            .connect_timeout(Duration::from_secs(10).min(settings.request_timeout))
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
            settings: Arc::new(settings),
            headers,
            windows: WindowCache::default(),
        })
    }

    pub fn settings(&self) -> &ProviderSettings {
        &self.settings
    }

    pub(super) fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.settings.base_url.trim_end_matches('/'))
    }

    /// Sends one request and checks its status; non-2xx becomes [`ProviderError::Status`].
    pub(super) async fn send(
        &self,
        req: reqwest::RequestBuilder,
        url: &str,
        deadline: Instant,
    ) -> Result<reqwest::Response, ProviderError> {
        let timed_out = || ProviderError::RequestTimeout(self.settings.request_timeout);
        let resp = timeout_at(deadline, req.headers(self.headers.clone()).send())
            .await
            .map_err(|_| timed_out())?
            .map_err(|e| ProviderError::from_reqwest(url, &e))?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let retry_after = parse_retry_after(resp.headers());
        let body = timeout_at(deadline, resp.text())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        if let Some(o) = super::overflow::classify(Some(status.as_u16()), &body) {
            return Err(ProviderError::ContextOverflow {
                message: error_body_message(&body),
                window: o.window,
                prompt: o.prompt,
            });
        }
        Err(ProviderError::Status {
            status: status.as_u16(),
            message: format!(
                "{}{}",
                status
                    .canonical_reason()
                    .map(|r| format!("{r}: "))
                    .unwrap_or_default(),
                error_body_message(&body)
            ),
            retry_after,
        })
    }

    /// Streams a completion of `req`. See the module docs for the event contract.
    pub fn stream_chat(
        &self,
        req: &ChatRequest,
    ) -> impl Stream<Item = StreamEvent> + Send + 'static {
        let this = self.clone();
        let body = Bytes::from(req.body_bytes(true));
        let url = self.url("chat/completions");
        tracing::debug!(url = %url, model = %req.model, bytes = body.len(), "streaming request");
        let settings = self.settings.clone();
        with_retries(settings, move |deadline| {
            this.clone()
                .stream_attempt(url.clone(), body.clone(), deadline)
        })
        .map(StreamEvent::from)
    }

    /// One streamed attempt: its deltas as they are decoded, then its outcome.
    fn stream_attempt(
        self,
        url: String,
        body: Bytes,
        deadline: Instant,
    ) -> impl Stream<Item = Attempt<AssistantMessage>> + Send + 'static {
        async_stream::stream! {
            let mut out = Vec::new();
            let result: Result<AssistantMessage, ProviderError> = 'attempt: {
                let req = self.http.post(&url).body(body);
                let resp = match self.send(req, &url, deadline).await {
                    Ok(r) => r,
                    Err(e) => break 'attempt Err(e),
                };
                let mut decoder = ReplyDecoder::new();
                let mut bytes = resp.bytes_stream();
                loop {
                    let idle_end = Instant::now() + self.settings.idle_timeout;
                    let next = timeout_at(idle_end.min(deadline), bytes.next()).await;
                    match next {
                        Err(_) if Instant::now() >= deadline => {
                            break 'attempt Err(ProviderError::RequestTimeout(self.settings.request_timeout));
                        }
                        Err(_) => break 'attempt Err(ProviderError::IdleTimeout(self.settings.idle_timeout)),
                        Ok(None) => break 'attempt decoder.finish(&mut out),
                        Ok(Some(Err(e))) => break 'attempt Err(ProviderError::dropped(&e)),
                        Ok(Some(Ok(chunk))) => {
                            if let Err(e) = decoder.feed(&chunk, &mut out) {
                                break 'attempt Err(e);
                            }
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
        let url = self.url("chat/completions");
        let attempts = with_retries(self.settings.clone(), |deadline| {
            let attempt = self.complete_attempt(&url, body.clone(), deadline);
            stream::once(attempt.map(Attempt::Done))
        });
        outcome(attempts).await
    }

    async fn complete_attempt(
        &self,
        url: &str,
        body: Bytes,
        deadline: Instant,
    ) -> Result<AssistantMessage, ProviderError> {
        let req = self.http.post(url).body(body);
        let resp = self.send(req, url, deadline).await?;
        let text = timeout_at(deadline, resp.text())
            .await
            .map_err(|_| ProviderError::RequestTimeout(self.settings.request_timeout))?
            .map_err(|e| ProviderError::Dropped(e.to_string()))?;
        parse_completion(&text)
    }
}

/// What one attempt at a request produces: deltas as it streams (none for plain requests),
/// then its outcome.
pub(super) enum Attempt<T> {
    Delta(StreamDelta),
    Done(Result<T, ProviderError>),
}

/// What a retried request reports, in order: [`StreamEvent`] for any result type.
pub(super) enum Retried<T> {
    Delta(StreamDelta),
    Retrying {
        retry: u32,
        max_retries: u32,
        delay: Duration,
        error: ProviderError,
    },
    Finished(Result<T, ProviderError>),
}

impl From<Retried<AssistantMessage>> for StreamEvent {
    fn from(r: Retried<AssistantMessage>) -> Self {
        match r {
            Retried::Delta(d) => StreamEvent::Delta(d),
            Retried::Retrying {
                retry,
                max_retries,
                delay,
                error,
            } => StreamEvent::Retrying {
                retry,
                max_retries,
                delay,
                error,
            },
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
                Err(error) if error.is_retryable() && retry < policy.max_retries => {
                    retry += 1;
                    match policy.delay(retry, &error) {
                        Ok(delay) => {
                            tracing::warn!(%error, retry, ?delay, "retrying the request");
                            yield Retried::Retrying { retry, max_retries: policy.max_retries, delay, error };
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

/// The outcome of a silently retried request (its `Retrying` events are only logged).
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
