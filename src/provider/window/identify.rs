//! Which server answers, from its `GET /v1/models` body, and the one targeted probe worth
//! sending after it ([`next_probe`]). Pure: no IO.
//!
//! What each server's list really says (sources in the tests): llama.cpp `owned_by: "llamacpp"`
//! and a `meta` object; vLLM `owned_by: "vllm"` and `max_model_len`; LM Studio
//! `owned_by: "organization_owner"`; Ollama `owned_by` the model's namespace, `"library"` for
//! the models of its library; OpenRouter `context_length` and `top_provider`; LiteLLM
//! `max_input_tokens` (1.108.7 copies it from its model info). Anything else is
//! [`Server::Unknown`]. Not here: reading the window out of the bodies (`parse.rs`).

use serde_json::Value;

use super::parse::{self, Probes};
use super::{Confidence, WindowSource};

/// The kind of server a models list reveals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Server {
    LlamaCpp,
    Vllm,
    LmStudio,
    Ollama,
    OpenRouter,
    LiteLlm,
    Unknown,
}

/// A route probed after the models list, at the server root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// llama.cpp `GET /props`.
    Props,
    /// Ollama `POST /api/show`.
    OllamaShow,
    /// Ollama `GET /api/ps`.
    OllamaPs,
    /// LM Studio ≥ 0.4 `GET /api/v1/models`.
    LmStudioV1,
    /// LM Studio `GET /api/v0/models`.
    LmStudioV0,
}

impl Route {
    /// The path under the server root (what a remembered 404 is keyed by).
    pub(crate) fn path(&self) -> &'static str {
        match self {
            Self::Props => "/props",
            Self::OllamaShow => "/api/show",
            Self::OllamaPs => "/api/ps",
            Self::LmStudioV1 => "/api/v1/models",
            Self::LmStudioV0 => "/api/v0/models",
        }
    }
}

/// The models list's own route, relative to the base URL (what a remembered 404 is keyed by).
pub(crate) const MODELS_ROUTE: &str = "/models";

/// The server a `/v1/models` body comes from (`None`: the list did not answer).
pub(crate) fn identify(models: Option<&Value>) -> Server {
    let Some(list) = models.and_then(|v| v.get("data")).and_then(Value::as_array) else {
        return Server::Unknown;
    };
    let owned_by = |who: &str| {
        list.iter()
            .any(|e| e.get("owned_by").and_then(Value::as_str) == Some(who))
    };
    let has = |key: &str| {
        list.iter()
            .any(|e| e.get(key).is_some_and(|v| !v.is_null()))
    };
    if owned_by("llamacpp")
        || list
            .iter()
            .any(|e| e.get("meta").is_some_and(Value::is_object))
    {
        Server::LlamaCpp
    } else if owned_by("vllm") || has("max_model_len") {
        Server::Vllm
    } else if owned_by("organization_owner") {
        Server::LmStudio
    } else if owned_by("library") {
        Server::Ollama
    } else if has("context_length") || has("top_provider") {
        Server::OpenRouter
    } else if has("max_input_tokens") {
        Server::LiteLlm
    } else {
        Server::Unknown
    }
}

/// The one probe to send after the models list, given what has been answered so far (`got`:
/// the models list, and a previous targeted answer when asking again) and whether a route is
/// known to be missing. `None` when the list already says what the server runs the model with,
/// when the server has nothing better to say (OpenRouter, LiteLLM), or when the route is missing.
pub(crate) fn next_probe(
    server: Server,
    got: &Probes,
    model: &str,
    missing: impl Fn(Route) -> bool,
) -> Option<Route> {
    let loaded = parse::choose(got, model).is_some_and(|w| {
        w.confidence == Confidence::Loaded && !matches!(w.source, WindowSource::Ollama)
    });
    if loaded {
        return None;
    }
    let route = match server {
        Server::LlamaCpp | Server::Unknown => Route::Props,
        Server::Vllm | Server::OpenRouter | Server::LiteLlm => return None,
        // What the Modelfile says first; once that awaited loading, what the runner got.
        Server::Ollama if got.ollama_show.is_some() => Route::OllamaPs,
        Server::Ollama => Route::OllamaShow,
        // /api/v0 is in every LM Studio since 0.3.6; /api/v1 (0.4) where v0 is gone.
        Server::LmStudio if missing(Route::LmStudioV0) || got.lmstudio_v0.is_some() => {
            Route::LmStudioV1
        }
        Server::LmStudio => Route::LmStudioV0,
    };
    (!missing(route)).then_some(route)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    /// The real bodies. llama.cpp: llama-server 0.6.0-dev (`shared/servers/`), as it answers
    /// today (the Ollama-style `models` list beside `data`); vLLM:
    /// `reference/context-windows.md` §1; LM Studio: lmstudio-ai/lms#416 (a user's log of
    /// `GET /v1/models`); Ollama: `openai/openai.go` `ToListCompletion` (`OwnedBy:
    /// model.ParseName(m.Name).Namespace`, "library" by default); OpenRouter and LiteLLM:
    /// `reference/context-windows.md` §1 (LiteLLM 1.108.7 copies `max_input_tokens`).
    const LLAMA: &str = r#"{"models":[{"name":"tiny","model":"tiny","modified_at":"","size":"","digest":"","type":"model","description":"","tags":[""],"capabilities":["completion"],"parameters":"","details":{"parent_model":"","format":"gguf","family":"","families":[""],"parameter_size":"","quantization_level":""}}],"object":"list","data":[{"id":"tiny","aliases":["tiny"],"tags":[],"object":"model","architecture":{"input_modalities":["text"],"output_modalities":["text"]},"created":1796142351,"owned_by":"llamacpp","meta":{"vocab_type":2,"n_vocab":273,"n_ctx":4096,"n_ctx_train":8192,"n_embd":64,"n_params":108992,"size":435968,"ftype":"all F32"}}]}"#;
    const LLAMA_OLD: &str = r#"{"object":"list","data":[{"id":"tiny","object":"model","owned_by":"llamacpp","meta":{"n_vocab":273,"n_ctx_train":8192}}]}"#;
    const VLLM: &str = r#"{"object":"list","data":[{"id":"Qwen/Qwen3-8B","object":"model","owned_by":"vllm","root":"Qwen/Qwen3-8B","parent":null,"max_model_len":32768,"permission":[]}]}"#;
    const LM_STUDIO: &str = r#"{"data":[{"id":"liquid/lfm2-1.2b","object":"model","owned_by":"organization_owner"},{"id":"text-embedding-nomic-embed-text-v1.5","object":"model","owned_by":"organization_owner"}],"object":"list"}"#;
    const OLLAMA: &str = r#"{"object":"list","data":[{"id":"qwen3:8b","object":"model","created":1718000000,"owned_by":"library"}]}"#;
    const OPENROUTER: &str = r#"{"data":[{"id":"openai/gpt-4","context_length":8192,"top_provider":{"context_length":8192,"max_completion_tokens":4096,"is_moderated":true}}]}"#;
    const LITELLM: &str = r#"{"data":[{"id":"gpt4o-alias","object":"model","created":1677610602,"owned_by":"openai","max_input_tokens":128000,"max_output_tokens":16384}],"object":"list"}"#;
    /// LLMock 0.2.2 (`GET /v1/models` on the running one).
    const LLMOCK: &str = r#"{"object":"list","data":[{"id":"gpt-4o","object":"model","created":1677610602,"owned_by":"llmock"}]}"#;

    fn v(text: &str) -> Value {
        serde_json::from_str(text).expect("test JSON")
    }

    #[test]
    fn each_server_is_told_by_its_own_models_list() {
        let rows = [
            (LLAMA, Server::LlamaCpp),
            (LLAMA_OLD, Server::LlamaCpp),
            (VLLM, Server::Vllm),
            (LM_STUDIO, Server::LmStudio),
            (OLLAMA, Server::Ollama),
            (OPENROUTER, Server::OpenRouter),
            (LITELLM, Server::LiteLlm),
            (LLMOCK, Server::Unknown),
            (r#"{"error":"nope"}"#, Server::Unknown),
        ];
        for (body, want) in rows {
            assert_eq!(identify(Some(&v(body))), want, "{body}");
        }
        assert_eq!(identify(None), Server::Unknown);
    }

    fn after(models: &str, model: &str, missing: &[Route]) -> Option<Route> {
        let got = Probes {
            models: Some(v(models)),
            ..Probes::default()
        };
        next_probe(identify(got.models.as_ref()), &got, model, |r| {
            missing.contains(&r)
        })
    }

    #[test]
    fn the_one_targeted_probe_follows_from_the_list() {
        let rows: [(&str, &str, &[Route], Option<Route>); 11] = [
            // The list says what llama.cpp and vLLM run the model with: nothing more to ask.
            (LLAMA, "tiny", &[], None),
            (VLLM, "Qwen/Qwen3-8B", &[], None),
            // An old llama.cpp lists only the trained length: /props says the slot's.
            (LLAMA_OLD, "tiny", &[], Some(Route::Props)),
            (LLAMA_OLD, "tiny", &[Route::Props], None),
            (OLLAMA, "qwen3:8b", &[], Some(Route::OllamaShow)),
            (LM_STUDIO, "liquid/lfm2-1.2b", &[], Some(Route::LmStudioV0)),
            (
                LM_STUDIO,
                "liquid/lfm2-1.2b",
                &[Route::LmStudioV0],
                Some(Route::LmStudioV1),
            ),
            // Catalog numbers only, and no route that says more.
            (OPENROUTER, "openai/gpt-4", &[], None),
            (LITELLM, "gpt4o-alias", &[], None),
            // Nobody we know: the one guess is llama.cpp's, unless it answered 404 before.
            (LLMOCK, "gpt-4o", &[], Some(Route::Props)),
            (LLMOCK, "gpt-4o", &[Route::Props], None),
        ];
        for (body, model, missing, want) in rows {
            assert_eq!(after(body, model, missing), want, "{body} {missing:?}");
        }
    }

    #[test]
    fn asking_again_once_ollama_loaded_the_model_asks_its_runner() {
        let got = Probes {
            models: Some(v(OLLAMA)),
            ollama_show: Some(
                json!({"model_info": {"general.architecture": "qwen3", "qwen3.context_length": 40960}}),
            ),
            ..Probes::default()
        };
        assert_eq!(
            next_probe(Server::Ollama, &got, "qwen3:8b", |_| false),
            Some(Route::OllamaPs)
        );
        let got = Probes {
            models: Some(v(LM_STUDIO)),
            lmstudio_v0: Some(json!({"data": []})),
            ..Probes::default()
        };
        assert_eq!(
            next_probe(Server::LmStudio, &got, "liquid/lfm2-1.2b", |_| false),
            Some(Route::LmStudioV1)
        );
    }
}
