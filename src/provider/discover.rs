//! Model servers running on this machine, for a first run with nothing configured: llama.cpp
//! (port 8080), Ollama (11434), LM Studio (1234) and vLLM (8000) on 127.0.0.1, all asked at once
//! and within one small budget ([`PROBE_BUDGET`], 200 ms in all).
//!
//! A port answers as a server when `GET /v1/models` (for Ollama first `GET /api/tags`) returns
//! a model list; the list's shape (`owned_by`, llama.cpp's `meta`) can correct the kind the
//! port suggested. Anything else — refused, slow, a 404, a web page — is no server.
//!
//! This only finds and reports: it sends no prompt anywhere. Launching decides what to offer,
//! and a chat goes to a found server only when the user picks it. Tests pass their own ports
//! ([`probe_ports`]); [`ports_from_spec`] reads them from `SAYSO_PROBE_PORTS`, which can only
//! change which loopback ports are looked at. Its own small HTTP client (no proxy: these are
//! loopback addresses), since there is no configured [`super::Client`] yet.

use std::time::Duration;

use futures_util::future::join_all;
use serde_json::Value;
use tokio::time::{Instant, timeout_at};

/// How long looking for local servers may take, in all.
pub const PROBE_BUDGET: Duration = Duration::from_millis(200);

/// Which kind of server a port holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerKind {
    LlamaCpp,
    Ollama,
    LmStudio,
    Vllm,
}

/// The usual ports, in the order servers are offered.
pub const USUAL_PORTS: [(ServerKind, u16); 4] = [
    (ServerKind::LlamaCpp, 8080),
    (ServerKind::Ollama, 11434),
    (ServerKind::LmStudio, 1234),
    (ServerKind::Vllm, 8000),
];

impl ServerKind {
    /// The name users know it by.
    pub fn name(&self) -> &'static str {
        match self {
            Self::LlamaCpp => "llama.cpp",
            Self::Ollama => "Ollama",
            Self::LmStudio => "LM Studio",
            Self::Vllm => "vLLM",
        }
    }

    /// The spelling in `SAYSO_PROBE_PORTS`.
    fn key(&self) -> &'static str {
        match self {
            Self::LlamaCpp => "llamacpp",
            Self::Ollama => "ollama",
            Self::LmStudio => "lmstudio",
            Self::Vllm => "vllm",
        }
    }
}

/// A server found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalServer {
    pub kind: ServerKind,
    /// e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// The models it lists, in its order (may be empty: nothing pulled or loaded yet).
    pub models: Vec<String>,
}

/// The servers answering on the usual ports, within `budget`.
pub async fn probe_local(budget: Duration) -> Vec<LocalServer> {
    probe_ports(&USUAL_PORTS, budget).await
}

/// The servers answering on these loopback ports, within `budget`, in the order given.
pub async fn probe_ports(ports: &[(ServerKind, u16)], budget: Duration) -> Vec<LocalServer> {
    let deadline = Instant::now() + budget;
    let Ok(http) = crate::provider::http::client_builder()
        .no_proxy()
        .connect_timeout(budget)
        .timeout(budget)
        .tls_certs_only(Vec::<reqwest::Certificate>::new())
        .build()
    else {
        return Vec::new();
    };
    let mut seen = std::collections::HashSet::new();
    let ports: Vec<_> = ports.iter().filter(|(_, p)| seen.insert(*p)).collect();
    join_all(
        ports
            .iter()
            .map(|(kind, port)| probe_one(&http, *kind, *port, deadline)),
    )
    .await
    .into_iter()
    .flatten()
    .collect()
}

async fn probe_one(
    http: &reqwest::Client,
    hint: ServerKind,
    port: u16,
    deadline: Instant,
) -> Option<LocalServer> {
    let root = format!("http://127.0.0.1:{port}");
    let base_url = format!("{root}/v1");
    if hint == ServerKind::Ollama
        && let Some(tags) = get_json(http, &format!("{root}/api/tags"), deadline).await
        && let Some(models) = model_names(&tags, "models", "name")
    {
        return Some(LocalServer {
            kind: ServerKind::Ollama,
            base_url,
            models,
        });
    }
    let list = get_json(http, &format!("{base_url}/models"), deadline).await?;
    let models = model_names(&list, "data", "id")?;
    Some(LocalServer {
        kind: identify(hint, &list),
        base_url,
        models,
    })
}

async fn get_json(http: &reqwest::Client, url: &str, deadline: Instant) -> Option<Value> {
    let attempt = async {
        let resp = http.get(url).send().await.ok()?;
        if !resp.status().is_success() {
            return None;
        }
        resp.json::<Value>().await.ok()
    };
    timeout_at(deadline, attempt).await.ok().flatten()
}

/// The names in `v[list][].field`; `None` when there is no such list (not a model server).
fn model_names(v: &Value, list: &str, field: &str) -> Option<Vec<String>> {
    let entries = v.get(list)?.as_array()?;
    Some(
        entries
            .iter()
            .filter_map(|e| e.get(field)?.as_str())
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

/// The kind a `/v1/models` answer reveals (`owned_by`, llama.cpp's `meta`), else the port's:
/// the same marks as `window/identify.rs` reads (LM Studio `organization_owner`, Ollama's
/// `library` namespace).
fn identify(hint: ServerKind, list: &Value) -> ServerKind {
    let entries = list.get("data").and_then(Value::as_array);
    let first = entries.and_then(|e| e.first());
    let owned_by = first
        .and_then(|e| e.get("owned_by"))
        .and_then(Value::as_str);
    match owned_by {
        Some("llamacpp") => ServerKind::LlamaCpp,
        Some("vllm") => ServerKind::Vllm,
        Some("organization_owner") => ServerKind::LmStudio,
        Some("library") => ServerKind::Ollama,
        _ if first.is_some_and(|e| e.get("meta").is_some()) => ServerKind::LlamaCpp,
        _ => hint,
    }
}

/// The ports `SAYSO_PROBE_PORTS` names (a testing aid): `llamacpp:PORT,ollama:PORT,…`, or
/// `none` (also the empty string) to look nowhere. Always on 127.0.0.1.
pub fn ports_from_spec(spec: &str) -> Result<Vec<(ServerKind, u16)>, String> {
    let spec = spec.trim();
    if spec.is_empty() || spec == "none" {
        return Ok(Vec::new());
    }
    spec.split(',')
        .map(|item| {
            let (kind, port) = item.trim().split_once(':').ok_or_else(|| {
                format!("`{item}` is not KIND:PORT (KIND: llamacpp, ollama, lmstudio, vllm)")
            })?;
            let kind = USUAL_PORTS
                .iter()
                .map(|(k, _)| *k)
                .find(|k| k.key() == kind.trim())
                .ok_or_else(|| {
                    format!("`{kind}` is not one of llamacpp, ollama, lmstudio, vllm")
                })?;
            let port = port
                .trim()
                .parse::<u16>()
                .ok()
                .filter(|p| *p > 0)
                .ok_or_else(|| format!("`{port}` is not a port"))?;
            Ok((kind, port))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_spec_names_kinds_and_ports() {
        assert_eq!(
            ports_from_spec("llamacpp:9001, ollama:9002").unwrap(),
            vec![(ServerKind::LlamaCpp, 9001), (ServerKind::Ollama, 9002)]
        );
        assert_eq!(ports_from_spec("none").unwrap(), vec![]);
        assert_eq!(ports_from_spec("").unwrap(), vec![]);
        assert!(ports_from_spec("llamacpp").is_err());
        assert!(ports_from_spec("tgi:80").is_err());
        assert!(ports_from_spec("vllm:0").is_err());
        assert!(ports_from_spec("vllm:70000").is_err());
    }

    #[test]
    fn the_models_list_can_correct_the_ports_guess() {
        let llama = json!({"object": "list", "data": [{"id": "tiny", "owned_by": "llamacpp", "meta": {"n_ctx": 4096}}]});
        assert_eq!(identify(ServerKind::Vllm, &llama), ServerKind::LlamaCpp);
        let vllm =
            json!({"data": [{"id": "Qwen/Qwen3-8B", "owned_by": "vllm", "max_model_len": 32768}]});
        assert_eq!(identify(ServerKind::LlamaCpp, &vllm), ServerKind::Vllm);
        let lm_studio = json!({"data": [{"id": "m", "owned_by": "organization_owner"}]});
        assert_eq!(identify(ServerKind::Vllm, &lm_studio), ServerKind::LmStudio);
        let ollama = json!({"data": [{"id": "qwen3:8b", "owned_by": "library"}]});
        assert_eq!(identify(ServerKind::LlamaCpp, &ollama), ServerKind::Ollama);
        let other = json!({"data": [{"id": "m", "owned_by": "someone"}]});
        assert_eq!(identify(ServerKind::LmStudio, &other), ServerKind::LmStudio);
        assert_eq!(
            identify(ServerKind::LmStudio, &json!({"data": []})),
            ServerKind::LmStudio
        );
    }

    #[test]
    fn only_a_model_list_makes_a_server() {
        assert_eq!(
            model_names(
                &json!({"data": [{"id": "a"}, {"id": ""}, {"x": 1}]}),
                "data",
                "id"
            ),
            Some(vec!["a".to_owned()])
        );
        assert_eq!(model_names(&json!({"error": "nope"}), "data", "id"), None);
        assert_eq!(model_names(&json!([1, 2]), "data", "id"), None);
    }
}
