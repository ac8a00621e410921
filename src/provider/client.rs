//! The HTTP side of the provider: one reqwest client, streamed and plain completions, models.
//!
//! A streamed reply is a [`Stream`] of [`StreamEvent`]s. Failures that a retry may fix (connect
//! errors, 408/429/5xx, idle or overall timeouts, streams cut off or failing mid-way) are
//! retried with backoff; before each retry the stream yields [`StreamEvent::Retrying`], which
//! tells the caller to discard what the failed attempt showed. Dropping the stream cancels the
//! request and closes the connection. The last item is always [`StreamEvent::Finished`].

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::time::{Instant, timeout, timeout_at};

use super::assembly::{AssistantMessage, StreamDelta};
use super::decode::ReplyDecoder;
use super::error::{ProviderError, error_body_message};
use super::request::ChatRequest;
use super::retry::{RetryPolicy, parse_retry_after};

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
    http: reqwest::Client,
    settings: Arc<ProviderSettings>,
    headers: HeaderMap,
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
        let mut builder = reqwest::Client::builder()
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
        })
    }

    pub fn settings(&self) -> &ProviderSettings {
        &self.settings
    }

    fn url(&self, path: &str) -> String {
        format!("{}/{path}", self.settings.base_url.trim_end_matches('/'))
    }

    /// Sends one request and checks its status; non-2xx becomes [`ProviderError::Status`].
    async fn send(
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
        async_stream::stream! {
            let policy = this.settings.retry;
            let mut retry = 0;
            loop {
                let mut out = Vec::new();
                let deadline = Instant::now() + this.settings.request_timeout;
                let result: Result<AssistantMessage, ProviderError> = 'attempt: {
                    let req = this.http.post(&url).body(body.clone());
                    let resp = match this.send(req, &url, deadline).await {
                        Ok(r) => r,
                        Err(e) => break 'attempt Err(e),
                    };
                    let mut decoder = ReplyDecoder::new();
                    let mut bytes = resp.bytes_stream();
                    loop {
                        let idle_end = Instant::now() + this.settings.idle_timeout;
                        let next = timeout_at(idle_end.min(deadline), bytes.next()).await;
                        match next {
                            Err(_) if Instant::now() >= deadline => {
                                break 'attempt Err(ProviderError::RequestTimeout(this.settings.request_timeout));
                            }
                            Err(_) => break 'attempt Err(ProviderError::IdleTimeout(this.settings.idle_timeout)),
                            Ok(None) => break 'attempt decoder.finish(&mut out),
                            Ok(Some(Err(e))) => {
                                break 'attempt Err(ProviderError::dropped(&e));
                            }
                            Ok(Some(Ok(chunk))) => {
                                if let Err(e) = decoder.feed(&chunk, &mut out) {
                                    break 'attempt Err(e);
                                }
                                for d in out.drain(..) {
                                    yield StreamEvent::Delta(d);
                                }
                                if decoder.is_done() {
                                    break 'attempt decoder.finish(&mut out);
                                }
                            }
                        }
                    }
                };
                for d in out.drain(..) {
                    yield StreamEvent::Delta(d);
                }
                match result {
                    Ok(message) => {
                        yield StreamEvent::Finished(Ok(message));
                        return;
                    }
                    Err(error) if error.is_retryable() && retry < policy.max_retries => {
                        retry += 1;
                        match policy.delay(retry, &error) {
                            Ok(delay) => {
                                tracing::warn!(%error, retry, ?delay, "retrying the request");
                                yield StreamEvent::Retrying { retry, max_retries: policy.max_retries, delay, error };
                                tokio::time::sleep(delay).await;
                            }
                            Err(give_up) => {
                                yield StreamEvent::Finished(Err(give_up));
                                return;
                            }
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, "request failed");
                        yield StreamEvent::Finished(Err(error));
                        return;
                    }
                }
            }
        }
    }

    /// A non-streaming completion (used by the judge), retried like a stream but silently.
    pub async fn complete(&self, req: &ChatRequest) -> Result<AssistantMessage, ProviderError> {
        let body = Bytes::from(req.body_bytes(false));
        let url = self.url("chat/completions");
        self.with_retries(|deadline| {
            let req = self.http.post(&url).body(body.clone());
            let url = url.clone();
            async move {
                let resp = self.send(req, &url, deadline).await?;
                let text = timeout_at(deadline, resp.text())
                    .await
                    .map_err(|_| ProviderError::RequestTimeout(self.settings.request_timeout))?
                    .map_err(|e| ProviderError::Dropped(e.to_string()))?;
                parse_completion(&text)
            }
        })
        .await
    }

    /// `GET /models`: the ids the server offers, sorted.
    pub async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        let url = self.url("models");
        self.with_retries(|deadline| {
            let req = self.http.get(&url);
            let url = url.clone();
            async move {
                let resp = self.send(req, &url, deadline).await?;
                let v: Value = timeout_at(deadline, resp.json())
                    .await
                    .map_err(|_| ProviderError::RequestTimeout(self.settings.request_timeout))?
                    .map_err(|e| ProviderError::Unreadable(e.to_string()))?;
                let list = v
                    .get("data")
                    .or_else(|| v.get("models"))
                    .and_then(Value::as_array)
                    .ok_or_else(|| {
                        ProviderError::Unreadable("no `data` list in the answer".into())
                    })?;
                let mut ids: Vec<String> = list
                    .iter()
                    .filter_map(|m| {
                        m.get("id")
                            .or_else(|| m.get("name"))?
                            .as_str()
                            .map(str::to_owned)
                    })
                    .collect();
                ids.sort();
                Ok(ids)
            }
        })
        .await
    }

    async fn with_retries<T, F, Fut>(&self, mut attempt: F) -> Result<T, ProviderError>
    where
        F: FnMut(Instant) -> Fut,
        Fut: std::future::Future<Output = Result<T, ProviderError>>,
    {
        let policy = self.settings.retry;
        let mut retry = 0;
        loop {
            let deadline = Instant::now() + self.settings.request_timeout;
            match timeout(self.settings.request_timeout, attempt(deadline)).await {
                Ok(Ok(v)) => return Ok(v),
                Ok(Err(e)) if e.is_retryable() && retry < policy.max_retries => {
                    retry += 1;
                    let delay = policy.delay(retry, &e)?;
                    tracing::warn!(error = %e, retry, ?delay, "retrying the request");
                    tokio::time::sleep(delay).await;
                }
                Ok(Err(e)) => return Err(e),
                Err(_) => return Err(ProviderError::RequestTimeout(self.settings.request_timeout)),
            }
        }
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
