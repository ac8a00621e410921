//! The base URL a client sends to, and the one correction it tries when a request 404s.
//!
//! Two slips account for most "404: Not Found" on a first run: a base URL without its `/v1`
//! (`http://127.0.0.1:8000`, where vLLM, Ollama and LiteLLM serve `/v1/chat/completions`), and
//! one with `/chat/completions` already appended (copied from a curl example). Some servers
//! (llama.cpp) also serve `/chat/completions` at the root, so nothing is corrected up front:
//! only when a request 404s is the same request sent once more to the corrected base
//! ([`correction`]). When that one is found, the client keeps the corrected base for every
//! later request (models list and window probes included) and says so once ([`Endpoint`]
//! holds the notice until a streamed reply can show it). A 404 that names the model is about
//! the model, not the path: it is never "corrected".
//!
//! Not here: the requests themselves (`client.rs`), or validating the URL (the config does).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Where the base URL came from, so that a message says what to change.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseUrlFrom {
    /// Nothing set one: the built-in default (`https://api.openai.com/v1`).
    #[default]
    Default,
    /// `--base-url`.
    Flag,
    /// An environment variable: `OPENAI_BASE_URL`.
    Env(String),
    /// `base_url` in a config file's table (`provider`, `providers.NAME`).
    File { table: String, path: PathBuf },
}

impl BaseUrlFrom {
    /// What to change, as a message names it: `--base-url`, `$OPENAI_BASE_URL`,
    /// `base_url in [provider] of PATH`.
    pub fn place(&self) -> String {
        match self {
            Self::Default => "base_url in the config".to_owned(),
            Self::Flag => "--base-url".to_owned(),
            Self::Env(var) => format!("${var}"),
            Self::File { table, path } => {
                format!("base_url in [{table}] of {}", path.display())
            }
        }
    }
}

/// A base URL to try instead, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Correction {
    pub base: String,
    /// What was wrong with the original, as the notice says it: `has no /v1`.
    pub what: &'static str,
}

/// The correction to try after `base` answered 404, if there is an obvious one: strip a
/// trailing `/chat/completions`, or add `/v1` to a URL without a path.
pub fn correction(base: &str) -> Option<Correction> {
    let trimmed = base.trim_end_matches('/');
    if let Some(stripped) = trimmed.strip_suffix("/chat/completions") {
        return Some(Correction {
            base: stripped.trim_end_matches('/').to_owned(),
            what: "ends in /chat/completions",
        });
    }
    let url = reqwest::Url::parse(trimmed).ok()?;
    if url.path().trim_matches('/').is_empty() && url.query().is_none() {
        return Some(Correction {
            base: format!("{trimmed}/v1"),
            what: "has no /v1",
        });
    }
    None
}

/// Whether a 404's message is about something else than the path: a model the server does
/// not have (OpenAI answers an unknown model with a 404).
pub fn about_the_model(message: &str) -> bool {
    message.to_lowercase().contains("model")
}

/// The notice when the corrected base worked.
pub fn notice(original: &str, c: &Correction, from: &BaseUrlFrom) -> String {
    format!(
        "base_url {original} {}; using {} — set {} to it to silence this",
        c.what,
        c.base,
        from.place()
    )
}

/// What a 404 adds to its message: the URL that was asked, and what to change.
pub fn not_found_hint(url: &str, tried: Option<&str>, from: &BaseUrlFrom) -> String {
    let place = from.place();
    match tried {
        Some(other) => format!(
            " — nothing at {url}, nor at {other}: check {place} (usually the server's address followed by /v1)"
        ),
        None => format!(
            " — nothing at {url}: check {place} (usually the server's address followed by /v1) and the model"
        ),
    }
}

/// The base URL in use, shared by a client's clones, and a correction's notice not shown yet.
#[derive(Debug, Clone)]
pub(crate) struct Endpoint(Arc<Mutex<State>>);

#[derive(Debug)]
struct State {
    base: String,
    from: BaseUrlFrom,
    notice: Option<String>,
}

impl Endpoint {
    pub fn new(base: &str, from: BaseUrlFrom) -> Self {
        Self(Arc::new(Mutex::new(State {
            base: base.trim_end_matches('/').to_owned(),
            from,
            notice: None,
        })))
    }

    /// The base URL requests go to, without a trailing `/`.
    pub fn base(&self) -> String {
        self.0.lock().map(|s| s.base.clone()).unwrap_or_default()
    }

    /// From now on, requests go to `c.base` (unless another request moved it already), and the
    /// next streamed reply says so.
    pub fn correct(&self, from: &str, c: &Correction) {
        if let Ok(mut s) = self.0.lock()
            && s.base == from
        {
            s.base = c.base.clone();
            s.notice = Some(notice(from, c, &s.from));
        }
    }

    /// The correction's notice, once.
    pub fn take_notice(&self) -> Option<String> {
        self.0.lock().ok()?.notice.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_obvious_corrections_and_nothing_else() {
        let c = |b: &str| correction(b).map(|c| c.base);
        assert_eq!(
            c("http://127.0.0.1:8080").as_deref(),
            Some("http://127.0.0.1:8080/v1")
        );
        assert_eq!(
            c("http://127.0.0.1:8080/").as_deref(),
            Some("http://127.0.0.1:8080/v1")
        );
        assert_eq!(
            c("http://h:4000/v1/chat/completions").as_deref(),
            Some("http://h:4000/v1")
        );
        assert_eq!(
            c("http://h:4000/chat/completions/").as_deref(),
            Some("http://h:4000")
        );
        for fine in [
            "http://h/v1",
            "http://h/api",
            "https://openrouter.ai/api/v1",
            "x",
        ] {
            assert_eq!(c(fine), None, "{fine}");
        }
    }

    #[test]
    fn a_correction_moves_the_base_once_and_says_so_once() {
        let e = Endpoint::new("http://h:1/", BaseUrlFrom::Flag);
        assert_eq!(e.base(), "http://h:1");
        let fix = correction("http://h:1").unwrap();
        e.correct("http://h:1", &fix);
        // A second request that 404ed at the old base changes nothing more.
        e.correct(
            "http://h:1",
            &Correction {
                base: "http://elsewhere".into(),
                what: "x",
            },
        );
        assert_eq!(e.base(), "http://h:1/v1");
        assert_eq!(
            e.take_notice().as_deref(),
            Some(
                "base_url http://h:1 has no /v1; using http://h:1/v1 — set --base-url to it to silence this"
            )
        );
        assert_eq!(e.take_notice(), None);
    }

    #[test]
    fn a_404_about_the_model_is_not_about_the_path() {
        assert!(about_the_model(
            "Not Found: The model `gpt-9` does not exist"
        ));
        assert!(!about_the_model("Not Found: Not Found"));
    }
}
