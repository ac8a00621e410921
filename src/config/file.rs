//! The shape of a config file, exactly as TOML spells it. Unknown keys are errors.
//!
//! Every field is optional: a file sets only what it changes. Layers are merged field by field
//! (a later layer's `Some` wins) in `merge`.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub model: Option<String>,
    /// Which `[providers.NAME]` to use (the same as `--provider`).
    pub use_provider: Option<String>,
    /// The default provider.
    pub provider: Option<ProviderFile>,
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderFile>,
    pub chat: Option<ChatFile>,
    pub log_level: Option<String>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderFile {
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub headers: Option<BTreeMap<String, String>>,
    /// The model to use with this provider when none is given on the command line.
    pub model: Option<String>,
    pub request_timeout_s: Option<u64>,
    pub stream_idle_timeout_s: Option<u64>,
    pub max_retries: Option<u32>,
    pub retry_initial_delay_ms: Option<u64>,
    pub retry_max_delay_ms: Option<u64>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatFile {
    pub system_prompt: Option<String>,
}

fn pick<T>(low: Option<T>, high: Option<T>) -> Option<T> {
    high.or(low)
}

impl ProviderFile {
    pub fn merge(self, high: ProviderFile) -> ProviderFile {
        ProviderFile {
            base_url: pick(self.base_url, high.base_url),
            api_key_env: pick(self.api_key_env, high.api_key_env),
            headers: pick(self.headers, high.headers),
            model: pick(self.model, high.model),
            request_timeout_s: pick(self.request_timeout_s, high.request_timeout_s),
            stream_idle_timeout_s: pick(self.stream_idle_timeout_s, high.stream_idle_timeout_s),
            max_retries: pick(self.max_retries, high.max_retries),
            retry_initial_delay_ms: pick(self.retry_initial_delay_ms, high.retry_initial_delay_ms),
            retry_max_delay_ms: pick(self.retry_max_delay_ms, high.retry_max_delay_ms),
        }
    }

    /// Removes the keys a project file may not set (they could send your key elsewhere);
    /// returns their names.
    pub fn strip_redirecting_keys(&mut self) -> Vec<&'static str> {
        let mut removed = Vec::new();
        if self.base_url.take().is_some() {
            removed.push("base_url");
        }
        if self.api_key_env.take().is_some() {
            removed.push("api_key_env");
        }
        if self.headers.take().is_some() {
            removed.push("headers");
        }
        removed
    }
}

impl FileConfig {
    pub fn merge(self, high: FileConfig) -> FileConfig {
        let mut providers = self.providers;
        for (name, p) in high.providers {
            let merged = providers.remove(&name).unwrap_or_default().merge(p);
            providers.insert(name, merged);
        }
        FileConfig {
            model: pick(self.model, high.model),
            use_provider: pick(self.use_provider, high.use_provider),
            provider: match (self.provider, high.provider) {
                (Some(a), Some(b)) => Some(a.merge(b)),
                (a, b) => b.or(a),
            },
            providers,
            chat: match (self.chat, high.chat) {
                (Some(a), Some(b)) => Some(ChatFile {
                    system_prompt: pick(a.system_prompt, b.system_prompt),
                }),
                (a, b) => b.or(a),
            },
            log_level: pick(self.log_level, high.log_level),
        }
    }
}
