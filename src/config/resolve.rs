//! Stage 3 of loading: which provider table applies, and what it says once the environment and
//! the command line have had their say.
//!
//! `--provider NAME` (or `use_provider`) picks `[providers.NAME]`, which inherits only the
//! timeouts and retries of `[provider]`: where requests go and which key is sent are never
//! inherited. Without a name, `[provider]` applies, `$OPENAI_BASE_URL` may set its URL and the
//! key comes from `$OPENAI_API_KEY` unless `api_key_env` names another variable. `--base-url`
//! and `--api-key-env` win over both. The key itself is read from the environment here.
//!
//! Not here: whether the values make sense (see `validate`). A provider with no endpoint is
//! not an error either: only a chat needs one ([`super::Config::require_endpoint`]).

use std::path::PathBuf;

use super::error::ConfigError;
use super::file::{FileConfig, ProviderFile};
use super::layers::Origins;
use super::{DEFAULT_KEY_ENV, Env, Overrides};
use crate::provider::BaseUrlFrom;

/// The provider settings as written, with overrides applied.
pub(super) struct ResolvedProvider {
    /// The `[providers.NAME]` chosen, if any.
    pub name: Option<String>,
    /// The table the settings came from, for error messages (`provider`, `providers.NAME`).
    pub table: String,
    pub file: ProviderFile,
    /// The key, read from the variable `file.api_key_env` names.
    pub api_key: Option<String>,
    /// Where `file.base_url` came from.
    pub base_url_from: BaseUrlFrom,
}

pub(super) fn provider(
    o: &Overrides,
    env: &dyn Env,
    merged: &FileConfig,
    origins: Origins<'_>,
) -> Result<ResolvedProvider, ConfigError> {
    let name = o.provider.clone().or(merged.use_provider.clone());
    let (table, mut file) = match &name {
        Some(name) => (
            format!("providers.{name}"),
            named_provider(o, name, merged, origins)?,
        ),
        None => ("provider".to_owned(), default_provider(env, merged)),
    };
    let mut base_url_from = match file.base_url {
        None => BaseUrlFrom::Default,
        Some(_) if name.is_none() && env.var("OPENAI_BASE_URL").is_some() => {
            BaseUrlFrom::Env("OPENAI_BASE_URL".into())
        }
        Some(_) => BaseUrlFrom::File {
            path: origins.origin(&table, "base_url").0,
            table: table.clone(),
        },
    };
    if let Some(url) = &o.base_url {
        file.base_url = Some(url.clone());
        base_url_from = BaseUrlFrom::Flag;
    }
    if let Some(k) = &o.api_key_env {
        file.api_key_env = Some(k.clone());
    }
    let api_key = file.api_key_env.as_deref().and_then(|k| env.var(k));
    Ok(ResolvedProvider {
        name,
        table,
        file,
        api_key,
        base_url_from,
    })
}

/// `[providers.NAME]` on top of the timeouts and retries of `[provider]`.
fn named_provider(
    o: &Overrides,
    name: &str,
    merged: &FileConfig,
    origins: Origins<'_>,
) -> Result<ProviderFile, ConfigError> {
    let Some(named) = merged.providers.get(name).cloned() else {
        let known: Vec<_> = merged.providers.keys().map(String::as_str).collect();
        let message = if known.is_empty() {
            format!("there is no [providers.{name}] in the config")
        } else {
            format!(
                "there is no [providers.{name}]; known providers: {}",
                known.join(", ")
            )
        };
        let (origin, line) = if o.provider.is_some() {
            (PathBuf::from("--provider"), None)
        } else {
            origins.origin("", "use_provider")
        };
        return Err(ConfigError::Invalid {
            origin,
            line,
            key: "use_provider".into(),
            message,
        });
    };
    let base = merged.provider.clone().unwrap_or_default();
    let inherited = ProviderFile {
        request_timeout_s: base.request_timeout_s,
        stream_idle_timeout_s: base.stream_idle_timeout_s,
        first_token_timeout_s: base.first_token_timeout_s,
        connect_timeout_s: base.connect_timeout_s,
        max_retries: base.max_retries,
        retry_initial_delay_ms: base.retry_initial_delay_ms,
        retry_max_delay_ms: base.retry_max_delay_ms,
        ..ProviderFile::default()
    };
    Ok(inherited.merge(named))
}

/// `[provider]`, with `$OPENAI_BASE_URL` and the default key variable.
fn default_provider(env: &dyn Env, merged: &FileConfig) -> ProviderFile {
    let mut p = merged.provider.clone().unwrap_or_default();
    if let Some(url) = env.var("OPENAI_BASE_URL") {
        p.base_url = Some(url);
    }
    if p.api_key_env.is_none() {
        p.api_key_env = Some(DEFAULT_KEY_ENV.to_owned());
    }
    p
}
