//! The model's context window — how many tokens one request may hold — found out, not guessed.
//!
//! [`Client::context_window`] answers, in this order:
//! 1. **the config**: `[context_windows]` (per model id) beats the provider's `context_window`;
//!    nothing is asked of the server then;
//! 2. **the server**, asked politely (`probing.rs`): `GET {base}/models` first, whose body
//!    tells the server apart (`identify.rs`), then at most one targeted probe for that server,
//!    each with a short timeout ([`PROBE_TIMEOUT`]) and after any 429's `Retry-After`; a route
//!    that fails, times out or answers something else is simply skipped. What the
//!    server *runs with* wins over what the model *could* take (see [`parse::choose`]):
//!    llama.cpp `/v1/models` `meta.n_ctx` (already per slot; `/props`
//!    `default_generation_settings.n_ctx` for builds without it); vLLM `max_model_len`; Ollama
//!    `/api/ps` `context_length` of the loaded model, else the Modelfile's `num_ctx` from
//!    `/api/show`, else Ollama's default `num_ctx` (4096, capped at the trained length) —
//!    never the trained length alone, which Ollama does not use; LM Studio's loaded context
//!    length (`/api/v1/models`, else `/api/v0/models`); then catalog numbers (a model's
//!    maximum: LM Studio `max_context_length`, llama.cpp `n_ctx_train`, OpenRouter
//!    `context_length`, LiteLLM `max_input_tokens`);
//! 3. **OpenAI's published windows** for its own model ids ([`known_model`]: the OpenAI API
//!    reports none), marked [`Confidence::Catalog`];
//! 4. **[`DEFAULT_WINDOW`]** (8192), marked [`Confidence::Assumed`].
//!
//! A project config's numbers ([`WindowCaps`]) only ever lower the result.
//!
//! The server root for `/props`, `/api/*` is the base URL without its trailing `/v1`. Answers
//! are cached per (base URL, model) in the client (clones share it) and, for the launcher's
//! client ([`Client::with_window_cache`]), on disk for a day (`disk.rs`), with the routes that
//! answered 404, never asked again. Not cached: a window Ollama or LM Studio would only know
//! once the model is loaded (the next call asks again with the one targeted probe, and after
//! the first request the loaded number is there), and whatever a rate-limited or failing
//! server answered; [`Client::refresh_context_window`] forgets and asks again (after an
//! overflow, say).
//!
//! Never an error: whatever happens, a window comes back. Not here: counting tokens, or what
//! to do when a conversation nears the window.

mod disk;
mod identify;
mod parse;
mod probing;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::client::{Client, ProviderSettings};
pub use disk::{MAX_AGE, default_dir as default_cache_dir};
pub(crate) use identify::{Server, identify};
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
/// How long each probe may take (they run one after the other, two at most).
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);

/// Who said how big the window is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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

/// What a client knows about windows: (base URL, model) → window, the probes' last answers
/// (a window that awaits loading is asked again with one targeted probe), each endpoint's file
/// (its 404s, what was found), and the disk cache it is read from and written to, if any.
/// Shared by a client's clones.
#[derive(Debug, Clone, Default)]
pub(crate) struct WindowCache(Arc<Mutex<Known>>);

#[derive(Debug, Default)]
struct Known {
    windows: HashMap<(String, String), ContextWindow>,
    answers: HashMap<(String, String), parse::Probes>,
    files: HashMap<String, disk::EndpointFile>,
    disk: Option<disk::Disk>,
}

impl WindowCache {
    fn with<T>(&self, f: impl FnOnce(&mut Known) -> T) -> Option<T> {
        self.0.lock().ok().map(|mut k| f(&mut k))
    }

    fn get(&self, key: &(String, String)) -> Option<ContextWindow> {
        self.with(|k| k.windows.get(key).copied()).flatten()
    }

    fn put(&self, key: (String, String), w: ContextWindow) {
        self.with(|k| k.windows.insert(key, w));
    }

    fn forget(&self, key: &(String, String)) {
        self.with(|k| {
            k.windows.remove(key);
            k.answers.remove(key);
        });
    }

    /// The endpoint's file: from memory, else from the disk cache, else a new one.
    fn file(&self, endpoint: &str) -> disk::EndpointFile {
        self.with(|k| {
            if let Some(f) = k.files.get(endpoint) {
                return f.clone();
            }
            let f = match &k.disk {
                Some(d) => d.load(endpoint),
                None => disk::EndpointFile {
                    endpoint: endpoint.to_owned(),
                    ..Default::default()
                },
            };
            k.files.insert(endpoint.to_owned(), f.clone());
            f
        })
        .unwrap_or_default()
    }

    fn store(&self, file: disk::EndpointFile) {
        self.with(|k| {
            if let Some(d) = &k.disk {
                d.store(&file);
            }
            k.files.insert(file.endpoint.clone(), file);
        });
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

    /// Forgets what is known of `model`'s window (also on disk) and finds it out again.
    pub async fn refresh_context_window(&self, model: &str) -> ContextWindow {
        self.forget_window(model);
        self.context_window(model).await
    }

    /// Forgets what is known of `model`'s window, in memory and on disk (the server's own
    /// error said otherwise, say): the next run asks again. The routes known missing stay.
    pub fn forget_window(&self, model: &str) {
        self.windows.forget(&(self.base_url(), model.to_owned()));
        let endpoint = disk::endpoint_key(api_base(&self.base_url()));
        let mut file = self.windows.file(&endpoint);
        if file.models.remove(model).is_some() {
            self.windows.store(file);
        }
    }

    /// Keeps what the probes find in `dir` between runs (see `disk.rs`): the launcher's
    /// client does; tests' and other clients ask each time.
    pub fn with_window_cache(self, dir: std::path::PathBuf) -> Self {
        self.windows.with(|k| k.disk = Some(disk::Disk { dir }));
        self
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
            None => self
                .server_window(model)
                .await
                .or_else(|| known_model(model))
                .unwrap_or_else(ContextWindow::default_window),
        };
        let w = capped(w, cap);
        tracing::info!(model, tokens = w.tokens, via = w.via, "context window");
        w
    }

    /// What the server says (remembered for a day), else `None`.
    async fn server_window(&self, model: &str) -> Option<ContextWindow> {
        let base = self.base_url();
        let endpoint = disk::endpoint_key(api_base(&base));
        let mut file = self.windows.file(&endpoint);
        let now = disk::now_secs();
        if let Some(found) = file.fresh(model, now) {
            return found;
        }
        let key = (base, model.to_owned());
        let earlier = self
            .windows
            .with(|k| k.answers.get(&key).cloned())
            .flatten();
        let probed = self.probe_window(model, earlier, &mut file).await;
        let found = parse::choose(&probed.probes, model);
        if probed.settled && !found.is_some_and(|w| w.awaits_loading()) {
            file.record(model, found.as_ref(), now);
        }
        self.windows.with(|k| k.answers.insert(key, probed.probes));
        self.windows.store(file);
        found
    }
}
