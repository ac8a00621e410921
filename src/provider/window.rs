//! The model's context window — how many tokens one request may hold — found out, not guessed.
//!
//! [`Client::context_window`] answers, in this order:
//! 1. **the config**: `[context_windows]` (per model id) beats the provider's `context_window`;
//!    nothing is asked of the server then;
//! 2. **the server**, all routes probed at once, each with a short timeout ([`PROBE_TIMEOUT`]);
//!    a route that fails, times out or answers something else is simply skipped. What the
//!    server *runs with* wins over what the model *could* take (see [`parse::choose`]):
//!    llama.cpp `/props` `default_generation_settings.n_ctx` (already per slot) and `/v1/models`
//!    `meta.n_ctx`; vLLM `max_model_len`; Ollama `/api/ps` `context_length` of the loaded
//!    model, else the Modelfile's `num_ctx` from `/api/show`, else Ollama's default `num_ctx`
//!    (4096, capped at the trained length) — never the trained length alone, which Ollama does
//!    not use; LM Studio's loaded context length (`/api/v1/models`, `/api/v0/models`); then
//!    catalog numbers (a model's maximum: LM Studio `max_context_length`, llama.cpp
//!    `n_ctx_train`, OpenRouter `context_length`, LiteLLM `max_input_tokens`);
//! 3. **OpenAI's published windows** for its own model ids ([`known_model`]: the OpenAI API
//!    reports none), marked [`Confidence::Catalog`];
//! 4. **[`DEFAULT_WINDOW`]** (8192), marked [`Confidence::Assumed`].
//!
//! A project config's numbers ([`WindowCaps`]) only ever lower the result.
//!
//! The server root for `/props`, `/api/*` is the base URL without its trailing `/v1`. Answers
//! are cached per (base URL, model) in the client (clones share it). Not cached: a window
//! Ollama or LM Studio would only know once the model is loaded (the next call asks again, and
//! after the first request the loaded number is there); [`Client::refresh_context_window`]
//! forgets and asks again (after an overflow, say).
//!
//! Never an error: whatever happens, a window comes back. Not here: counting tokens, or what
//! to do when a conversation nears the window.

mod parse;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::client::{Client, ProviderSettings};
pub(crate) use parse::listed_window;

/// OpenAI's model ids (by prefix, most specific first) and the windows OpenAI publishes for
/// them: its API reports none, and assuming 8,192 would compact a gpt-4.1 chat after a few
/// file reads.
const KNOWN_MODELS: &[(&str, u64)] = &[
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("o1-mini", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4-mini", 200_000),
    ("gpt-3.5-turbo", 16_385),
    ("gpt-4", 8_192),
];

/// The published window of an OpenAI model id (`openai/` prefix allowed).
pub fn known_model(model: &str) -> Option<ContextWindow> {
    let id = model.strip_prefix("openai/").unwrap_or(model);
    KNOWN_MODELS
        .iter()
        .find(|(prefix, _)| id.starts_with(prefix))
        .map(|(_, tokens)| {
            ContextWindow::new(
                *tokens,
                WindowSource::KnownModel,
                Confidence::Catalog,
                "the window OpenAI publishes for this model id",
            )
        })
}

/// The window assumed when neither the config nor the server says.
pub const DEFAULT_WINDOW: u64 = 8192;
/// Ollama's `num_ctx` for a model that is not loaded and whose Modelfile sets none (its
/// default on machines with < 24 GiB of VRAM since v0.6.7; bigger GPUs get more).
pub const OLLAMA_DEFAULT_NUM_CTX: u64 = 4096;
/// How long each probe may take (they run at the same time).
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);

/// Who said how big the window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WindowSource {
    Config,
    LlamaCpp,
    Vllm,
    Ollama,
    LmStudio,
    /// An OpenRouter-style `context_length` (or LiteLLM `max_input_tokens`) in `/v1/models`.
    ModelsList,
    /// OpenAI's published window for one of its models, when no server said anything.
    KnownModel,
    Default,
}

impl WindowSource {
    /// Where this source's number is read, e.g. `llama.cpp /props (n_ctx)`.
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Config => "config (context_window)",
            Self::LlamaCpp => "llama.cpp /props (n_ctx)",
            Self::Vllm => "vLLM /v1/models (max_model_len)",
            Self::Ollama => "Ollama /api/ps, /api/show (num_ctx)",
            Self::LmStudio => "LM Studio /api/v0/models (loaded_context_length)",
            Self::ModelsList => "/v1/models (context_length)",
            Self::KnownModel => "OpenAI's published window for the model",
            Self::Default => "built-in default",
        }
    }
}

/// How far to trust the number, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Confidence {
    /// The user's config says so.
    Config,
    /// What the server runs (or will load) the model with: requests beyond it fail or are cut.
    Loaded,
    /// The model's advertised maximum: the server may run it with less.
    Catalog,
    /// Nobody said: a conservative guess.
    Assumed,
}

impl Confidence {
    pub fn describe(&self) -> &'static str {
        match self {
            Self::Config => "set in the config",
            Self::Loaded => "what the server runs the model with",
            Self::Catalog => "the model's advertised maximum; the server may use less",
            Self::Assumed => "assumed: nothing reported it (set context_window in the config)",
        }
    }
}

/// The window of one model on one endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextWindow {
    pub tokens: u64,
    pub source: WindowSource,
    pub confidence: Confidence,
    /// The exact route and field (or config key), e.g. `/props default_generation_settings.n_ctx`.
    pub via: &'static str,
}

impl ContextWindow {
    /// One line for `/context`: `32768 tokens — vLLM /v1/models max_model_len (what the server
    /// runs the model with)`.
    pub fn describe(&self) -> String {
        format!("{} tokens — {}", self.tokens, self.origin())
    }

    /// Where the number came from: `vLLM: /v1/models max_model_len (what the server runs the
    /// model with)`.
    pub fn origin(&self) -> String {
        if self.source == WindowSource::Default {
            return self.confidence.describe().to_owned();
        }
        let who = match self.source {
            WindowSource::Config => "config",
            WindowSource::LlamaCpp => "llama.cpp",
            WindowSource::Vllm => "vLLM",
            WindowSource::Ollama => "Ollama",
            WindowSource::LmStudio => "LM Studio",
            WindowSource::ModelsList => "models list",
            WindowSource::KnownModel => "known model",
            WindowSource::Default => "default",
        };
        format!("{who}: {} ({})", self.via, self.confidence.describe())
    }

    pub(crate) fn new(
        tokens: u64,
        source: WindowSource,
        confidence: Confidence,
        via: &'static str,
    ) -> Self {
        Self {
            tokens,
            source,
            confidence,
            via,
        }
    }

    fn default_window() -> Self {
        Self::new(
            DEFAULT_WINDOW,
            WindowSource::Default,
            Confidence::Assumed,
            "no server reported one",
        )
    }

    /// Whether the number may change once the server has loaded the model.
    pub fn awaits_loading(&self) -> bool {
        matches!(self.source, WindowSource::Ollama | WindowSource::LmStudio)
            && self.confidence != Confidence::Loaded
    }
}

/// Upper bounds a project file set (`context_window`, `[context_windows]`): they can only lower
/// the window, never raise it (a cloned repository must not make sayso overfill the server).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowCaps {
    pub provider: Option<u64>,
    pub models: BTreeMap<String, u64>,
}

impl WindowCaps {
    fn for_model(&self, model: &str) -> Option<u64> {
        self.models.get(model).copied().or(self.provider)
    }
}

/// The cache: (base URL, model) → window. Shared by a client's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct WindowCache(Arc<Mutex<HashMap<(String, String), ContextWindow>>>);

impl WindowCache {
    fn get(&self, key: &(String, String)) -> Option<ContextWindow> {
        self.0.lock().ok()?.get(key).copied()
    }

    fn put(&self, key: (String, String), w: ContextWindow) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(key, w);
        }
    }

    fn forget(&self, key: &(String, String)) {
        if let Ok(mut m) = self.0.lock() {
            m.remove(key);
        }
    }
}

/// The user's config entry for `model`: `[context_windows]` first, then the provider's.
fn configured(settings: &ProviderSettings, model: &str) -> Option<ContextWindow> {
    let (tokens, via) = match settings.model_windows.get(model) {
        Some(n) => (*n, "[context_windows] in the config"),
        None => (settings.context_window?, "the provider's context_window"),
    };
    Some(ContextWindow::new(
        tokens,
        WindowSource::Config,
        Confidence::Config,
        via,
    ))
}

/// `w`, lowered to the project's cap when that is smaller.
fn capped(w: ContextWindow, cap: Option<u64>) -> ContextWindow {
    match cap {
        Some(cap) if cap < w.tokens => ContextWindow::new(
            cap,
            WindowSource::Config,
            Confidence::Config,
            "the project config (it may only lower the window)",
        ),
        _ => w,
    }
}

/// `http://h:8080/v1` → `http://h:8080`: where `/props` and `/api/*` live.
pub(crate) fn server_root(base_url: &str) -> &str {
    let base = api_base(base_url);
    base.strip_suffix("/v1").unwrap_or(base)
}

/// The base URL without a trailing `/` or a pasted `/chat/completions`: where the probes ask
/// for `/models` (they are silent: the request itself corrects the base, and says so).
pub(crate) fn api_base(base_url: &str) -> &str {
    let base = base_url.trim_end_matches('/');
    base.strip_suffix("/chat/completions")
        .map_or(base, |b| b.trim_end_matches('/'))
}

/// llama.cpp's `/props?model=M` (router mode answers for that model; a single-model server
/// ignores the parameter).
fn props_url(root: &str, model: &str) -> String {
    match reqwest::Url::parse(&format!("{root}/props")) {
        Ok(mut url) => {
            url.query_pairs_mut().append_pair("model", model);
            url.into()
        }
        Err(_) => format!("{root}/props"),
    }
}

impl Client {
    /// The context window of `model` on this endpoint (see the module docs for the order).
    /// Never fails; at most [`PROBE_TIMEOUT`] the first time, instant when cached.
    pub async fn context_window(&self, model: &str) -> ContextWindow {
        let key = (self.base_url(), model.to_owned());
        if let Some(w) = self.windows.get(&key) {
            return w;
        }
        let w = self.resolve_window(model).await;
        if !w.awaits_loading() {
            self.windows.put(key, w);
        }
        w
    }

    /// The window `model` gets as far as the config and a models list's entry (`listed`)
    /// say, asking nothing: the config, else the list, else OpenAI's published window, capped
    /// by the project. For a model not in use (the one in use has its learned window).
    pub fn window_without_asking(&self, model: &str, listed: Option<u64>) -> Option<u64> {
        let settings = self.settings();
        let tokens = configured(settings, model)
            .map(|w| w.tokens)
            .or(listed)
            .or_else(|| known_model(model).map(|w| w.tokens))?;
        let cap = settings.window_caps.for_model(model);
        Some(cap.map_or(tokens, |cap| cap.min(tokens)))
    }

    /// Forgets the cached window of `model` and finds it out again.
    pub async fn refresh_context_window(&self, model: &str) -> ContextWindow {
        self.windows.forget(&(self.base_url(), model.to_owned()));
        self.context_window(model).await
    }

    async fn resolve_window(&self, model: &str) -> ContextWindow {
        let settings = self.settings();
        let cap = settings.window_caps.for_model(model);
        // OpenAI's own API reports no window on any route: its published ones, unasked.
        let openai = settings.base_url.starts_with("https://api.openai.com/");
        let w = match configured(settings, model) {
            Some(w) => w,
            None if openai && known_model(model).is_some() => {
                known_model(model).unwrap_or_else(ContextWindow::default_window)
            }
            None => {
                let probes = self.probe_window(model).await;
                parse::choose(&probes, model)
                    .or_else(|| known_model(model))
                    .unwrap_or_else(ContextWindow::default_window)
            }
        };
        let w = capped(w, cap);
        tracing::info!(model, tokens = w.tokens, via = w.via, "context window");
        w
    }

    /// Every route at once; each answer that is a 2xx JSON body, or `None`.
    async fn probe_window(&self, model: &str) -> parse::Probes {
        let base = api_base(&self.base_url()).to_owned();
        let root = server_root(&base).to_owned();
        let http = &self.http;
        let (props, models, ollama_ps, ollama_show, lmstudio_v0, lmstudio_v1) = tokio::join!(
            self.probe(http.get(props_url(&root, model))),
            self.probe(http.get(format!("{base}/models"))),
            self.probe(http.get(format!("{root}/api/ps"))),
            self.probe(
                http.post(format!("{root}/api/show"))
                    .body(json!({ "model": model }).to_string())
            ),
            self.probe(http.get(format!("{root}/api/v0/models"))),
            self.probe(http.get(format!("{root}/api/v1/models"))),
        );
        parse::Probes {
            props,
            models,
            ollama_ps,
            ollama_show,
            lmstudio_v0,
            lmstudio_v1,
        }
    }

    /// One probe: the JSON body of a 2xx answer within [`PROBE_TIMEOUT`], else `None`.
    pub(super) async fn probe(&self, req: reqwest::RequestBuilder) -> Option<Value> {
        let attempt = async {
            let resp = req
                .headers(self.headers.clone())
                .timeout(PROBE_TIMEOUT)
                .send()
                .await
                .ok()?;
            if !resp.status().is_success() {
                return None;
            }
            resp.json::<Value>().await.ok()
        };
        tokio::time::timeout(PROBE_TIMEOUT, attempt)
            .await
            .ok()
            .flatten()
    }
}
