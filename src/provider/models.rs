//! The endpoint's models: `GET {base}/models`, retried like any request. [`Client::list_models`]
//! gives the ids; [`Client::list_models_detailed`] also each model's context window where the
//! server's list says it (vLLM `max_model_len`, llama.cpp `meta.n_ctx`, OpenRouter
//! `context_length`…). LM Studio's OpenAI-style list carries no numbers, so when no entry has
//! one and the list is LM Studio's (`owned_by: "organization_owner"`), its `/api/v0/models` is
//! asked once, briefly, and a failure there changes nothing; no other server is asked it.
//!
//! Answers are read leniently: the list is `data` (OpenAI) or `models` (Ollama's `/api/tags`
//! shape), each entry named by `id` or `name`; entries without either are skipped.

use futures_util::{FutureExt, stream};
use serde_json::Value;
use tokio::time::{Instant, timeout_at};

use super::client::Client;
use super::error::ProviderError;
use super::retry::{Attempt, outcome, with_retries};
use super::window::{Server, identify, listed_window, server_root};

/// One model the endpoint offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelInfo {
    pub id: String,
    /// The window the server's list advertises for it: the loaded one where the list has it,
    /// else the model's maximum; `None` when the list says nothing.
    pub context_window: Option<u64>,
}

impl Client {
    /// `GET /models`: the ids the server offers, sorted, retried silently.
    pub async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        let v = self.models_answer().await?;
        Ok(models(&v)?.into_iter().map(|m| m.id).collect())
    }

    /// Like [`Client::list_models`], with each model's window where the server says it.
    pub async fn list_models_detailed(&self) -> Result<Vec<ModelInfo>, ProviderError> {
        let v = self.models_answer().await?;
        let mut list = models(&v)?;
        let lm_studio = identify(Some(&v)) == Server::LmStudio;
        if lm_studio && !list.is_empty() && list.iter().all(|m| m.context_window.is_none()) {
            let root = server_root(&self.base_url()).to_owned();
            if let Some(lms) = self
                .probe(self.http.get(format!("{root}/api/v0/models")))
                .await
            {
                let known = models(&lms).unwrap_or_default();
                for m in &mut list {
                    m.context_window = known
                        .iter()
                        .find(|k| k.id == m.id)
                        .and_then(|k| k.context_window);
                }
            }
        }
        Ok(list)
    }

    async fn models_answer(&self) -> Result<Value, ProviderError> {
        let attempts = with_retries(self.settings.clone(), |deadline| {
            stream::once(self.models_attempt(deadline).map(Attempt::Done))
        });
        outcome(attempts).await
    }

    async fn models_attempt(&self, deadline: Instant) -> Result<Value, ProviderError> {
        let resp = self
            .send(reqwest::Method::GET, "models", None, deadline)
            .await?;
        timeout_at(deadline, resp.json())
            .await
            .map_err(|_| ProviderError::RequestTimeout(self.settings().request_timeout))?
            .map_err(|e| ProviderError::Unreadable(e.to_string()))
    }
}

/// The models of a `/models` answer, sorted by id. An id with control characters is no model
/// a user could type, and would reach the terminal: it is skipped.
fn models(v: &Value) -> Result<Vec<ModelInfo>, ProviderError> {
    let list = v
        .get("data")
        .or_else(|| v.get("models"))
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::Unreadable("no `data` list in the answer".into()))?;
    let mut models: Vec<ModelInfo> = list
        .iter()
        .filter_map(|m| {
            let id = m.get("id").or_else(|| m.get("name"))?.as_str()?;
            if id.is_empty() || id.chars().any(char::is_control) {
                return None;
            }
            Some(ModelInfo {
                id: id.to_owned(),
                context_window: listed_window(m),
            })
        })
        .collect();
    models.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(models)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ids_and_windows_are_read_from_either_list_shape() {
        let vllm = json!({"object": "list", "data": [
            {"id": "b", "max_model_len": 32768},
            {"id": "a", "owned_by": "library"},
            {"object": "model"}
        ]});
        assert_eq!(
            models(&vllm).unwrap(),
            vec![
                ModelInfo {
                    id: "a".into(),
                    context_window: None
                },
                ModelInfo {
                    id: "b".into(),
                    context_window: Some(32768)
                },
            ]
        );
        let hostile = json!({"data": [{"id": "ok"}, {"id": "\u{1b}]0;pwned\u{7}"}, {"id": ""}]});
        let ids: Vec<String> = models(&hostile)
            .unwrap()
            .into_iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(ids, ["ok"]);
        let tags = json!({"models": [{"name": "qwen3:8b"}]});
        assert_eq!(models(&tags).unwrap()[0].id, "qwen3:8b");
        assert!(models(&json!({"error": "x"})).is_err());
    }
}
