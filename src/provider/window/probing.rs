//! Asking the server, politely: `GET {base}/models` first, then at most one targeted probe
//! chosen from what the list revealed (`identify.rs`), one after the other. Each probe waits at
//! the client's gate after a 429 (`pacing.rs`) and has [`PROBE_TIMEOUT`]; a route that answered
//! 404 is written into the endpoint's file and never asked again.
//!
//! The IO half of finding a window on the server; the readers are `parse.rs`, the order of
//! questions `identify.rs`, the memory between runs `disk.rs`.

use serde_json::{Value, json};

use super::disk::EndpointFile;
use super::identify::{MODELS_ROUTE, Route, identify, next_probe};
use super::parse::Probes;
use super::{PROBE_TIMEOUT, api_base, props_url, server_root};
use crate::provider::client::Client;

/// What one probe got.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Answer {
    /// A 2xx JSON body.
    Json(Value),
    /// 404 (or 405, 501): the server has no such route.
    Missing,
    /// Rate-limited, a 5xx, a timeout, nothing listening: it may answer another time.
    Transient,
    /// Anything else (a refused key, a web page…): no answer, and none to expect soon.
    Other,
}

impl Answer {
    fn of_status(status: reqwest::StatusCode) -> Self {
        match status.as_u16() {
            404 | 405 | 501 => Self::Missing,
            408 | 425 | 429 | 500..=599 => Self::Transient,
            _ => Self::Other,
        }
    }
}

/// What the probes of one model got, and whether every answer is worth keeping for a day
/// (nothing transient).
pub(crate) struct Probed {
    pub probes: Probes,
    pub settled: bool,
}

impl Client {
    /// The models list (unless `earlier` already has it, or it is missing), then the one
    /// targeted probe. Routes answering 404 are added to `file.missing`.
    pub(super) async fn probe_window(
        &self,
        model: &str,
        earlier: Option<Probes>,
        file: &mut EndpointFile,
    ) -> Probed {
        let base = api_base(&self.base_url()).to_owned();
        let root = server_root(&base).to_owned();
        let mut settled = true;
        let asked_before = earlier.is_some();
        let mut got = earlier.unwrap_or_default();
        let mut note = |answer: Answer, path: &str, file: &mut EndpointFile| match answer {
            Answer::Json(v) => Some(v),
            Answer::Missing => {
                file.missing.insert(path.to_owned());
                None
            }
            Answer::Transient => {
                settled = false;
                None
            }
            Answer::Other => None,
        };
        if !asked_before && !file.missing.contains(MODELS_ROUTE) {
            let answer = self
                .probe_answer(self.http.get(format!("{base}/models")))
                .await;
            let transient = answer == Answer::Transient;
            got.models = note(answer, MODELS_ROUTE, file);
            if transient {
                // Rate-limited or down: no second request now.
                return Probed {
                    probes: got,
                    settled: false,
                };
            }
        }
        let server = identify(got.models.as_ref());
        let route = next_probe(server, &got, model, |r| file.missing.contains(r.path()));
        tracing::debug!(?server, ?route, "window probe");
        if let Some(route) = route {
            let req = match route {
                Route::Props => self.http.get(props_url(&root, model)),
                Route::OllamaShow => self
                    .http
                    .post(format!("{root}/api/show"))
                    .body(json!({ "model": model }).to_string()),
                Route::OllamaPs => self.http.get(format!("{root}/api/ps")),
                Route::LmStudioV1 => self.http.get(format!("{root}/api/v1/models")),
                Route::LmStudioV0 => self.http.get(format!("{root}/api/v0/models")),
            };
            let answer = note(self.probe_answer(req).await, route.path(), file);
            let slot = match route {
                Route::Props => &mut got.props,
                Route::OllamaShow => &mut got.ollama_show,
                Route::OllamaPs => &mut got.ollama_ps,
                Route::LmStudioV1 => &mut got.lmstudio_v1,
                Route::LmStudioV0 => &mut got.lmstudio_v0,
            };
            if answer.is_some() || slot.is_none() {
                *slot = answer;
            }
        }
        Probed {
            probes: got,
            settled,
        }
    }

    /// One probe: waits at the gate after a 429, then at most [`PROBE_TIMEOUT`].
    pub(crate) async fn probe_answer(&self, req: reqwest::RequestBuilder) -> Answer {
        let Ok(req) = req.headers(self.headers.clone()).build() else {
            return Answer::Other;
        };
        let url = req.url().to_string();
        self.pacing.wait(&url).await;
        let attempt = async {
            let resp = match self.http.execute(req).await {
                Ok(r) => r,
                Err(_) => return Answer::Transient,
            };
            let status = resp.status();
            if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
                self.pacing.note_429(
                    &url,
                    crate::provider::retry::parse_retry_after(resp.headers()),
                );
            }
            if !status.is_success() {
                return Answer::of_status(status);
            }
            match resp.json::<Value>().await {
                Ok(v) => Answer::Json(v),
                Err(_) => Answer::Other,
            }
        };
        tokio::time::timeout(PROBE_TIMEOUT, attempt)
            .await
            .unwrap_or(Answer::Transient)
    }

    /// One probe's JSON body, or `None` (see [`Client::probe_answer`]).
    pub(crate) async fn probe(&self, req: reqwest::RequestBuilder) -> Option<Value> {
        match self.probe_answer(req).await {
            Answer::Json(v) => Some(v),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_sort_into_missing_transient_and_other() {
        let of = |n: u16| Answer::of_status(reqwest::StatusCode::from_u16(n).unwrap());
        assert_eq!(of(404), Answer::Missing);
        assert_eq!(of(405), Answer::Missing);
        assert_eq!(of(501), Answer::Missing);
        assert_eq!(of(429), Answer::Transient);
        assert_eq!(of(503), Answer::Transient);
        assert_eq!(of(401), Answer::Other);
        assert_eq!(of(400), Answer::Other);
    }
}
