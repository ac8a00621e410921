//! A client for LLMock's `/_llmock` control API: script the next requests' behaviour, read the
//! journal of what the server saw, and read its verdict on how the client coped.
//!
//! LLMock's scenario queue and journal are global to the server, so a [`Mock`] holds [`LOCK`]
//! for the whole test: LLMock tests run one at a time (and in parallel with the llama-server
//! tests). It resets the server when taken; LLMock's journal discards requests that began
//! before a reset, so a previous test's stalled stream cannot leak into the next one.

use pretty_assertions::assert_eq;
use reqwest::Url;
use serde_json::{Value, json};
use tokio::sync::{Mutex, MutexGuard};

use crate::harness;

static LOCK: Mutex<()> = Mutex::const_new(());

/// Exclusive use of the LLMock server for one test, through its `/_llmock` control API.
pub struct Mock {
    base_url: String,
    admin: Url,
    http: reqwest::Client,
    _exclusive: MutexGuard<'static, ()>,
}

impl Mock {
    /// Waits for the other LLMock tests, then forgets earlier requests and scenarios.
    pub async fn take(base_url: &str) -> Mock {
        let guard = LOCK.lock().await;
        let mut admin = Url::parse(base_url).expect("SAYSO_TEST_LLMOCK_URL is a URL");
        admin.set_path("/_llmock/");
        let mock = Mock {
            base_url: base_url.to_owned(),
            admin,
            http: sayso::provider::http::client_builder().build().unwrap(),
            _exclusive: guard,
        };
        mock.post("reset", json!({})).await;
        mock
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        let resp = self
            .http
            .post(self.admin.join(path).unwrap())
            .json(&body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("LLMock {path}: {e}"));
        let status = resp.status();
        let text = resp.text().await.unwrap();
        assert!(
            status.is_success(),
            "LLMock {path} answered {status}: {text}"
        );
        serde_json::from_str(&text).unwrap()
    }

    async fn get(&self, path: &str) -> String {
        let resp = self
            .http
            .get(self.admin.join(path).unwrap())
            .send()
            .await
            .unwrap_or_else(|e| panic!("LLMock {path}: {e}"));
        assert!(
            resp.status().is_success(),
            "LLMock {path}: {}",
            resp.status()
        );
        resp.text().await.unwrap()
    }

    /// Queues behaviours for the coming requests (`POST /_llmock/scenario`).
    pub async fn script(&self, behaviors: Value) {
        let n = behaviors.as_array().map_or(0, Vec::len);
        let answer = self
            .post("scenario", json!({ "behaviors": behaviors }))
            .await;
        assert_eq!(answer["queued"], n, "{answer}");
    }

    /// The chat-completion attempts LLMock served since the reset, oldest first.
    pub async fn attempts(&self) -> Vec<Value> {
        let v: Value = serde_json::from_str(&self.get("requests").await).unwrap();
        v["requests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                r["path"]
                    .as_str()
                    .unwrap_or("")
                    .ends_with("/chat/completions")
            })
            .cloned()
            .collect()
    }

    /// The HTTP status of each attempt.
    pub async fn statuses(&self) -> Vec<u64> {
        self.attempts()
            .await
            .iter()
            .map(|r| r["status"].as_u64().unwrap())
            .collect()
    }

    /// Asserts that LLMock's verdict on this test's requests has exactly the findings `codes`
    /// (an empty list: the client handled every injected fault correctly).
    pub async fn assert_verdict(&self, codes: &[&str]) {
        let v: Value = serde_json::from_str(&self.get("verdict").await).unwrap();
        let found: Vec<&str> = v["findings"]
            .as_array()
            .expect("the verdict lists its findings")
            .iter()
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        if found != codes {
            let report = self.get("verdict?format=text").await;
            panic!("LLMock verdict: expected findings {codes:?}, got {found:?}\n{report}\n{v:#}");
        }
        let errors = v["errors"].as_u64().unwrap();
        assert_eq!(v["passed"], errors == 0, "{v}");
        if codes.is_empty() {
            assert_eq!(v["passed"], true, "{v}");
        }
    }

    /// The verdict after a stream fault that the client retried (the caller checked that it
    /// did): no findings, except one LLMock cannot avoid. LLMock counts a request as the retry of
    /// a failed attempt only if that attempt ended unfinished (`completed: false`). A short
    /// reply may be written whole before the client hangs up on its corrupted chunk; LLMock then
    /// sees a finished attempt, files the retry as a new call and flags the faulty one with
    /// `finding` (about one run in a dozen for a ~10-event reply).
    pub async fn assert_verdict_after_retried_fault(&self, finding: &str) {
        let attempts = self.attempts().await;
        assert!(
            attempts.len() >= 2 && attempts[0]["fault"].is_string(),
            "{attempts:#?}"
        );
        if attempts[0]["completed"] == true {
            self.assert_verdict(&[finding]).await;
        } else {
            self.assert_verdict(&[]).await;
        }
    }

    pub fn client(&self) -> sayso::provider::Client {
        harness::client(&self.base_url)
    }
}
