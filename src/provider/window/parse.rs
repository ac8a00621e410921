//! What each server's JSON says about a model's window: pure readers, one per route, and
//! [`choose`], which ranks their answers. No IO here; the shapes are those of
//! `reference/context-windows.md` §1 (unit tests in `tests.rs` use them verbatim).

use serde_json::Value;

use super::{Confidence, ContextWindow, OLLAMA_DEFAULT_NUM_CTX, WindowSource};

/// The answers of the probes (a 2xx JSON body each), `None` where a route failed.
#[derive(Debug, Default, Clone)]
pub(crate) struct Probes {
    /// llama.cpp `GET /props`.
    pub props: Option<Value>,
    /// `GET {base}/models`: llama.cpp, vLLM, OpenRouter, LiteLLM…
    pub models: Option<Value>,
    /// Ollama `GET /api/ps`.
    pub ollama_ps: Option<Value>,
    /// Ollama `POST /api/show`.
    pub ollama_show: Option<Value>,
    /// LM Studio `GET /api/v0/models`.
    pub lmstudio_v0: Option<Value>,
    /// LM Studio ≥ 0.4 `GET /api/v1/models`.
    pub lmstudio_v1: Option<Value>,
}

/// The route and field of Ollama's default `num_ctx`.
const OLLAMA_DEFAULT_VIA: &str =
    "Ollama's default num_ctx (the model is not loaded yet; /api/ps will tell once it is)";

/// Every route and field [`choose`] names, so that a window read back from the disk cache
/// names its own (`None`: not one this build reads).
pub(crate) fn static_via(via: &str) -> Option<&'static str> {
    const VIAS: &[&str] = &[
        "/api/ps context_length",
        "/api/show parameters num_ctx",
        "/api/v0/models loaded_context_length",
        "/api/v0/models max_context_length",
        "/api/v1/models loaded_instances[].config.context_length",
        "/api/v1/models max_context_length",
        "/props default_generation_settings.n_ctx",
        "/v1/models context_length",
        "/v1/models max_input_tokens",
        "/v1/models max_model_len",
        "/v1/models meta.n_ctx",
        "/v1/models meta.n_ctx_train",
        "/v1/models top_provider.context_length",
        OLLAMA_DEFAULT_VIA,
    ];
    VIAS.iter().copied().find(|v| *v == via)
}

/// The best answer, or `None` when no probe said anything. Order: what a server runs the
/// model with (llama.cpp, vLLM, a loaded Ollama or LM Studio model), then Ollama's `num_ctx`
/// for a model not yet loaded, then catalog numbers.
pub(crate) fn choose(p: &Probes, model: &str) -> Option<ContextWindow> {
    use Confidence::{Catalog, Loaded};
    use WindowSource::{LlamaCpp, LmStudio, ModelsList, Vllm};
    let entry = p.models.as_ref().and_then(|v| models_entry(v, model));
    let found = |n: Option<u64>, source, confidence, via| {
        n.map(|n| ContextWindow::new(n, source, confidence, via))
    };
    let llama_props = || {
        found(
            p.props.as_ref().and_then(llama_props),
            LlamaCpp,
            Loaded,
            "/props default_generation_settings.n_ctx",
        )
    };
    let llama_meta = || {
        found(
            entry.and_then(|e| positive(e.get("meta")?.get("n_ctx")?)),
            LlamaCpp,
            Loaded,
            "/v1/models meta.n_ctx",
        )
    };
    let vllm = || {
        found(
            entry.and_then(|e| positive(e.get("max_model_len")?)),
            Vllm,
            Loaded,
            "/v1/models max_model_len",
        )
    };
    let ollama_ps = || {
        found(
            p.ollama_ps.as_ref().and_then(|v| ollama_ps(v, model)),
            WindowSource::Ollama,
            Loaded,
            "/api/ps context_length",
        )
    };
    let lms_v1 = p.lmstudio_v1.as_ref().and_then(|v| lmstudio_v1(v, model));
    let lms_v0 = p.lmstudio_v0.as_ref().and_then(|v| lmstudio_v0(v, model));
    let lms_loaded = || {
        found(
            lms_v1.and_then(|l| l.loaded),
            LmStudio,
            Loaded,
            "/api/v1/models loaded_instances[].config.context_length",
        )
        .or_else(|| {
            found(
                lms_v0.and_then(|l| l.loaded),
                LmStudio,
                Loaded,
                "/api/v0/models loaded_context_length",
            )
        })
    };
    let ollama_show = || p.ollama_show.as_ref().and_then(ollama_show);
    let catalog = || {
        found(
            lms_v1.and_then(|l| l.max),
            LmStudio,
            Catalog,
            "/api/v1/models max_context_length",
        )
        .or_else(|| {
            found(
                lms_v0.and_then(|l| l.max),
                LmStudio,
                Catalog,
                "/api/v0/models max_context_length",
            )
        })
        .or_else(|| {
            found(
                entry.and_then(|e| positive(e.get("meta")?.get("n_ctx_train")?)),
                LlamaCpp,
                Catalog,
                "/v1/models meta.n_ctx_train",
            )
        })
        .or_else(|| {
            found(
                entry.and_then(|e| positive(e.get("context_length")?)),
                ModelsList,
                Catalog,
                "/v1/models context_length",
            )
        })
        .or_else(|| {
            found(
                entry.and_then(|e| positive(e.get("top_provider")?.get("context_length")?)),
                ModelsList,
                Catalog,
                "/v1/models top_provider.context_length",
            )
        })
        .or_else(|| {
            found(
                entry.and_then(|e| positive(e.get("max_input_tokens")?)),
                ModelsList,
                Catalog,
                "/v1/models max_input_tokens",
            )
        })
    };
    llama_props()
        .or_else(llama_meta)
        .or_else(vllm)
        .or_else(ollama_ps)
        .or_else(lms_loaded)
        .or_else(ollama_show)
        .or_else(catalog)
}

/// A positive integer, or `None`.
fn positive(v: &Value) -> Option<u64> {
    v.as_u64().filter(|n| *n > 0)
}

/// llama.cpp `/props`: `default_generation_settings.n_ctx`, the window of one slot — already
/// divided by `--parallel`, so it is not divided again by `total_slots`.
pub(crate) fn llama_props(v: &Value) -> Option<u64> {
    positive(v.get("default_generation_settings")?.get("n_ctx")?)
}

/// The entry of `model` in a `/v1/models` answer: by `id`; for a vLLM LoRA adapter without its
/// own numbers, its base (`root`); for llama.cpp, which serves one model whatever the request
/// names, the only entry when it carries llama.cpp's `meta`.
pub(crate) fn models_entry<'a>(v: &'a Value, model: &str) -> Option<&'a Value> {
    let list = v.get("data")?.as_array()?;
    let by_id = |id: &str| {
        list.iter()
            .find(|e| e.get("id").and_then(Value::as_str) == Some(id))
    };
    if let Some(e) = by_id(model) {
        let has_window = [
            "max_model_len",
            "context_length",
            "meta",
            "max_input_tokens",
        ]
        .iter()
        .any(|k| e.get(k).is_some_and(|v| !v.is_null()));
        if has_window {
            return Some(e);
        }
        let root = e
            .get("root")
            .and_then(Value::as_str)
            .filter(|r| *r != model);
        return Some(root.and_then(by_id).unwrap_or(e));
    }
    match list.as_slice() {
        [only] if only.get("meta").is_some_and(Value::is_object) => Some(only),
        _ => None,
    }
}

/// Whether an Ollama name means `model` (`qwen3` is `qwen3:latest`).
fn same_ollama_model(name: &str, model: &str) -> bool {
    name == model || name.strip_suffix(":latest") == Some(model)
}

/// Ollama `/api/ps`: `context_length` of `model` while it is loaded.
pub(crate) fn ollama_ps(v: &Value, model: &str) -> Option<u64> {
    v.get("models")?
        .as_array()?
        .iter()
        .find(|m| {
            ["name", "model"].iter().any(|k| {
                m.get(k)
                    .and_then(Value::as_str)
                    .is_some_and(|n| same_ollama_model(n, model))
            })
        })
        .and_then(|m| positive(m.get("context_length")?))
}

/// Ollama `/api/show`: the Modelfile's `num_ctx` (capped at the trained length), else the
/// `num_ctx` Ollama will load the model with by default — never the trained length itself,
/// which Ollama does not use unless told to (it silently drops what does not fit).
pub(crate) fn ollama_show(v: &Value) -> Option<ContextWindow> {
    let info = v.get("model_info").filter(|i| i.is_object());
    let parameters = v.get("parameters").and_then(Value::as_str);
    if info.is_none() && parameters.is_none() {
        return None;
    }
    let trained = info.and_then(|i| {
        let arch = i.get("general.architecture").and_then(Value::as_str);
        let key = arch.map(|a| format!("{a}.context_length"));
        key.and_then(|k| positive(i.get(&k)?)).or_else(|| {
            i.as_object()?
                .iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .and_then(|(_, v)| positive(v))
        })
    });
    let num_ctx = parameters.and_then(|p| {
        p.lines().find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some("num_ctx"))
                .then(|| words.next()?.parse::<u64>().ok())
                .flatten()
                .filter(|n| *n > 0)
        })
    });
    let cap = |n: u64| trained.map_or(n, |t| n.min(t));
    Some(match num_ctx {
        Some(n) => ContextWindow::new(
            cap(n),
            WindowSource::Ollama,
            Confidence::Loaded,
            "/api/show parameters num_ctx",
        ),
        None => ContextWindow::new(
            cap(OLLAMA_DEFAULT_NUM_CTX),
            WindowSource::Ollama,
            Confidence::Assumed,
            OLLAMA_DEFAULT_VIA,
        ),
    })
}

/// What LM Studio says about one model: the loaded context length, and the maximum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LmStudio {
    pub loaded: Option<u64>,
    pub max: Option<u64>,
}

/// LM Studio ≥ 0.4 `/api/v1/models`: `models[]` by `key`, the first loaded instance's
/// `config.context_length`, and `max_context_length`.
pub(crate) fn lmstudio_v1(v: &Value, model: &str) -> Option<LmStudio> {
    let m = v
        .get("models")?
        .as_array()?
        .iter()
        .find(|m| m.get("key").and_then(Value::as_str) == Some(model))?;
    let loaded = m
        .get("loaded_instances")
        .and_then(Value::as_array)
        .and_then(|list| {
            list.iter()
                .find_map(|i| positive(i.get("config")?.get("context_length")?))
        });
    Some(LmStudio {
        loaded,
        max: m.get("max_context_length").and_then(positive),
    })
}

/// LM Studio `/api/v0/models`: `data[]` by `id`, `loaded_context_length` (only while loaded)
/// and `max_context_length`.
pub(crate) fn lmstudio_v0(v: &Value, model: &str) -> Option<LmStudio> {
    let m = v
        .get("data")?
        .as_array()?
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))?;
    Some(LmStudio {
        loaded: m.get("loaded_context_length").and_then(positive),
        max: m.get("max_context_length").and_then(positive),
    })
}

/// The window a `/v1/models` entry (or an LM Studio `/api/v0/models` entry) advertises, for a
/// models listing: the loaded number where there is one, else the model's maximum.
pub(crate) fn listed_window(entry: &Value) -> Option<u64> {
    let at = |path: &[&str]| {
        let mut v = entry;
        for k in path {
            v = v.get(k)?;
        }
        positive(v)
    };
    [
        &["max_model_len"][..],
        &["meta", "n_ctx"],
        &["loaded_context_length"],
        &["context_length"],
        &["top_provider", "context_length"],
        &["max_context_length"],
        &["meta", "n_ctx_train"],
        &["max_input_tokens"],
    ]
    .iter()
    .find_map(|p| at(p))
}
