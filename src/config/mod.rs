//! Configuration: layered loading, validation, and the resolved settings the app runs with.
//!
//! Layers, lowest first (SPEC §3): built-in defaults → the user file
//! (`$XDG_CONFIG_HOME/sayso/config.toml`, or `-c`/`$SAYSO_CONFIG`) → the project file
//! (`.sayso/config.toml` in the working directory) → environment → command line. A project file
//! may narrow, never widen (SPEC §3): it may not set `base_url`, `api_key_env` or `headers` (a
//! cloned repository must not redirect your key), choose a provider (`use_provider`), define
//! tools, offer more (`chat.default_tools`, `[groups]`) or loosen approvals (`chat.auto`,
//! `chat.allowed_tools`, `[judge]`): such keys are dropped with a warning naming file:line.
//! API keys come only from the environment.
//!
//! The process environment is read through [`Env`] so tests never mutate it.

pub mod error;
pub mod file;
pub mod opts;
pub mod paths;

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use error::ConfigError;
use error::{find_key_line, syntax_error};
use file::{FileConfig, ProviderFile};
pub use paths::Dirs;

use crate::provider::{ProviderSettings, RetryPolicy};

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_MODEL: &str = "gpt-4.1-mini";
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";
const DEFAULT_SYSTEM_PROMPT: &str = include_str!("../../assets/system_prompt.md");

/// Read access to environment variables.
pub trait Env {
    fn var(&self, name: &str) -> Option<String>;
}

/// The real process environment.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }
}

impl Env for std::collections::HashMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned().filter(|v| !v.is_empty())
    }
}

/// What the command line says about configuration.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub config_file: Option<PathBuf>,
    pub cwd: PathBuf,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub provider: Option<String>,
    pub log_level: Option<String>,
    pub auto: bool,
    /// `--tools`: replaces `chat.default_tools`.
    pub tools: Option<Vec<String>>,
    /// `--allowed-tools`: added to `chat.allowed_tools`.
    pub allowed_tools: Vec<String>,
    pub max_turns: Option<u32>,
}

/// Tool-related settings, validated against the registry by `tools::setup`.
#[derive(Debug, Clone, Default)]
pub struct ToolSettings {
    pub default_tools: Vec<String>,
    /// Where `default_tools` came from, for messages.
    pub default_tools_origin: String,
    pub allowed_tools: Vec<String>,
    pub auto_submit_success: bool,
    pub auto_submit_errors: bool,
    pub max_turns: u32,
    pub auto: bool,
    pub entries: std::collections::BTreeMap<String, file::ToolFile>,
    pub groups: std::collections::BTreeMap<String, file::GroupFile>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiSettings {
    pub theme: String,
    pub mouse: bool,
    pub bell: bool,
}

#[derive(Debug, Clone)]
pub struct JudgeSettings {
    pub enabled: bool,
    /// `None` = the chat model.
    pub model: Option<String>,
    pub timeout: Duration,
}

/// The resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub model: String,
    pub provider: ProviderSettings,
    /// The environment variable the key was read from (for messages; never the key).
    pub api_key_env: Option<String>,
    /// Every variable a provider key may be read from (each `api_key_env` in the config, and
    /// the default): tool commands never inherit them.
    pub secret_env: Vec<String>,
    pub system_prompt: String,
    pub log_level: String,
    pub dirs: Dirs,
    /// The files that were read, lowest layer first.
    pub files: Vec<PathBuf>,
    /// Things the user should know (ignored project keys…).
    pub warnings: Vec<String>,
    /// The endpoint came from built-in defaults (nothing configured it).
    pub endpoint_is_default: bool,
    pub tools: ToolSettings,
    pub judge: JudgeSettings,
    pub ui: UiSettings,
    /// Each file's path and text, lowest layer first, to point errors at lines.
    pub sources: Vec<(PathBuf, String)>,
}

impl Config {
    /// sayso's own directories and the config files it read: file tools always ask before
    /// writing there.
    pub fn own_paths(&self) -> Vec<PathBuf> {
        let mut v = vec![
            self.dirs.config.clone(),
            self.dirs.data.clone(),
            self.dirs.state.clone(),
        ];
        v.extend(self.files.iter().cloned());
        v
    }

    /// The file and line where `table.key` is set (highest layer first), for error messages.
    pub fn locate(&self, table: &str, key: &str) -> (PathBuf, Option<usize>) {
        for (path, source) in self.sources.iter().rev() {
            if let Some(line) = find_key_line(source, table, key) {
                return (path.clone(), Some(line));
            }
        }
        (PathBuf::from("(built-in defaults)"), None)
    }

    /// A validation error for `table.key`, located in the files.
    pub fn invalid(&self, table: &str, key: &str, message: impl Into<String>) -> ConfigError {
        let (origin, line) = self.locate(table, key);
        ConfigError::Invalid {
            origin,
            line,
            key: if table.is_empty() {
                key.to_owned()
            } else {
                format!("{table}.{key}")
            },
            message: message.into(),
        }
    }
}

struct Layer {
    path: PathBuf,
    source: String,
    file: FileConfig,
}

fn read_layer(path: &Path, required: bool) -> Result<Option<Layer>, ConfigError> {
    let source = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !required => return Ok(None),
        Err(e) => {
            return Err(ConfigError::Io {
                path: path.to_owned(),
                source: e,
            });
        }
    };
    let file =
        toml::from_str::<FileConfig>(&source).map_err(|e| syntax_error(path, &source, &e))?;
    Ok(Some(Layer {
        path: path.to_owned(),
        source,
        file,
    }))
}

/// Paths of the user and project config files for these overrides.
pub fn config_paths(o: &Overrides, env: &dyn Env) -> (PathBuf, bool, PathBuf) {
    let explicit = o
        .config_file
        .clone()
        .or_else(|| env.var("SAYSO_CONFIG").map(PathBuf::from));
    let required = explicit.is_some();
    let user = explicit.unwrap_or_else(|| Dirs::from_env(env).user_config_file());
    (user, required, o.cwd.join(".sayso").join("config.toml"))
}

impl Config {
    pub fn load(o: &Overrides, env: &dyn Env) -> Result<Config, ConfigError> {
        let dirs = Dirs::from_env(env);
        let (user_path, required, project_path) = config_paths(o, env);
        let mut warnings = Vec::new();
        let mut layers = Vec::new();
        if let Some(l) = read_layer(&user_path, required)? {
            layers.push(l);
        }
        let same_file =
            std::fs::canonicalize(&project_path).ok() == std::fs::canonicalize(&user_path).ok();
        if !same_file && let Some(mut l) = read_layer(&project_path, false)? {
            let mut strip = |table: String, p: &mut ProviderFile| {
                for key in p.strip_redirecting_keys() {
                    let line = find_key_line(&l.source, &table, key)
                        .map(|n| format!(":{n}"))
                        .unwrap_or_default();
                    warnings.push(format!(
                        "{}{line}: ignoring `{table}.{key}`: a project config may not change where requests (and your key) go; set it in your user config or on the command line",
                        l.path.display()
                    ));
                }
            };
            if let Some(p) = l.file.provider.as_mut() {
                strip("provider".into(), p);
            }
            for (name, p) in l.file.providers.iter_mut() {
                strip(format!("providers.{name}"), p);
            }
            // Nor may it widen what runs: define commands, offer more tools, loosen approvals
            // or pick another of your providers.
            let mut dropped: Vec<(String, String)> = Vec::new();
            if !l.file.tools.is_empty() {
                dropped.extend(l.file.tools.keys().map(|k| ("tools".to_owned(), k.clone())));
                l.file.tools.clear();
            }
            if !l.file.groups.is_empty() {
                dropped.extend(
                    l.file
                        .groups
                        .keys()
                        .map(|k| ("groups".to_owned(), k.clone())),
                );
                l.file.groups.clear();
            }
            if let Some(chat) = l.file.chat.as_mut() {
                if chat.allowed_tools.take().is_some() {
                    dropped.push(("chat".into(), "allowed_tools".into()));
                }
                if chat.default_tools.take().is_some() {
                    dropped.push(("chat".into(), "default_tools".into()));
                }
                if chat.auto.take().is_some() {
                    dropped.push(("chat".into(), "auto".into()));
                }
            }
            if l.file.judge.take().is_some() {
                dropped.push((String::new(), "judge".into()));
            }
            if l.file.use_provider.take().is_some() {
                dropped.push((String::new(), "use_provider".into()));
            }
            for (table, key) in dropped {
                let line = find_key_line(&l.source, &table, &key)
                    .map(|n| format!(":{n}"))
                    .unwrap_or_default();
                let dotted = if table.is_empty() {
                    key.clone()
                } else {
                    format!("{table}.{key}")
                };
                warnings.push(format!(
                    "{}{line}: ignoring `{dotted}`: a project config may not define or add tools, change approvals or choose a provider; set it in your user config",
                    l.path.display()
                ));
            }
            layers.push(l);
        }
        let merged = layers
            .iter()
            .fold(FileConfig::default(), |acc, l| acc.merge(l.file.clone()));
        let files: Vec<PathBuf> = layers.iter().map(|l| l.path.clone()).collect();

        // Where a key was set, for messages: the highest layer that mentions it.
        let origin = |table: &str, key: &str| -> (PathBuf, Option<usize>) {
            for l in layers.iter().rev() {
                if let Some(line) = find_key_line(&l.source, table, key) {
                    return (l.path.clone(), Some(line));
                }
            }
            (PathBuf::from("(command line or environment)"), None)
        };
        let invalid = |table: &str, key: &str, message: String| {
            let (origin, line) = origin(table, key);
            let key = if table.is_empty() {
                key.to_owned()
            } else {
                format!("{table}.{key}")
            };
            ConfigError::Invalid {
                origin,
                line,
                key,
                message,
            }
        };

        let provider_name = o.provider.clone().or(merged.use_provider.clone());
        let (table, mut pf) = match &provider_name {
            Some(name) => {
                let named = merged.providers.get(name).cloned().ok_or_else(|| {
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
                        origin("", "use_provider")
                    };
                    ConfigError::Invalid {
                        origin,
                        line,
                        key: "use_provider".into(),
                        message,
                    }
                })?;
                // Timeouts and retries of [provider] are defaults for every named provider;
                // where requests go and which key is sent are not inherited.
                let base = merged.provider.clone().unwrap_or_default();
                let inherited = ProviderFile {
                    request_timeout_s: base.request_timeout_s,
                    stream_idle_timeout_s: base.stream_idle_timeout_s,
                    max_retries: base.max_retries,
                    retry_initial_delay_ms: base.retry_initial_delay_ms,
                    retry_max_delay_ms: base.retry_max_delay_ms,
                    ..ProviderFile::default()
                };
                (format!("providers.{name}"), inherited.merge(named))
            }
            None => {
                let mut p = merged.provider.clone().unwrap_or_default();
                if let Some(url) = env.var("OPENAI_BASE_URL") {
                    p.base_url = Some(url);
                }
                if p.api_key_env.is_none() {
                    p.api_key_env = Some(DEFAULT_KEY_ENV.to_owned());
                }
                ("provider".to_owned(), p)
            }
        };
        if let Some(url) = &o.base_url {
            pf.base_url = Some(url.clone());
        }
        if let Some(k) = &o.api_key_env {
            pf.api_key_env = Some(k.clone());
        }

        let endpoint_is_default = pf.base_url.is_none();
        let base_url = pf
            .base_url
            .clone()
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        validate_url(&base_url).map_err(|m| match &o.base_url {
            Some(_) => ConfigError::Invalid {
                origin: PathBuf::from("--base-url"),
                line: None,
                key: "base_url".into(),
                message: m,
            },
            None => invalid(&table, "base_url", m),
        })?;
        let api_key = pf.api_key_env.as_deref().and_then(|k| env.var(k));
        if endpoint_is_default && api_key.is_none() {
            return Err(ConfigError::NoEndpoint {
                key_env: pf
                    .api_key_env
                    .clone()
                    .unwrap_or_else(|| DEFAULT_KEY_ENV.into()),
            });
        }

        let positive = |v: Option<u64>, key: &str, default: u64| -> Result<u64, ConfigError> {
            match v {
                Some(0) => Err(invalid(&table, key, "must be greater than 0".into())),
                Some(n) => Ok(n),
                None => Ok(default),
            }
        };
        let request_timeout = positive(pf.request_timeout_s, "request_timeout_s", 600)?;
        let idle_timeout = positive(pf.stream_idle_timeout_s, "stream_idle_timeout_s", 120)?;
        let initial = positive(pf.retry_initial_delay_ms, "retry_initial_delay_ms", 1000)?;
        let max_delay = positive(pf.retry_max_delay_ms, "retry_max_delay_ms", 30_000)?;
        let headers: Vec<(String, String)> =
            pf.headers.clone().unwrap_or_default().into_iter().collect();
        for (name, value) in &headers {
            if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
                return Err(invalid(
                    &table,
                    "headers",
                    format!("`{name}` is not a valid header name"),
                ));
            }
            if reqwest::header::HeaderValue::from_str(value).is_err() {
                return Err(invalid(
                    &table,
                    "headers",
                    format!("the value of `{name}` cannot be sent in a header"),
                ));
            }
        }

        let model = o
            .model
            .clone()
            .or_else(|| env.var("SAYSO_MODEL"))
            .or(pf.model.clone())
            .or(merged.model.clone())
            .unwrap_or_else(|| DEFAULT_MODEL.to_owned());
        if model.trim().is_empty() {
            return Err(invalid("", "model", "must not be empty".into()));
        }

        let log_level = o
            .log_level
            .clone()
            .or(merged.log_level.clone())
            .unwrap_or_else(|| "info".into());
        if !["error", "warn", "info", "debug", "trace", "off"].contains(&log_level.as_str()) {
            let e = if o.log_level.is_some() {
                ConfigError::Invalid {
                    origin: PathBuf::from("--log-level"),
                    line: None,
                    key: "log_level".into(),
                    message: format!(
                        "`{log_level}` is not one of error, warn, info, debug, trace, off"
                    ),
                }
            } else {
                invalid(
                    "",
                    "log_level",
                    format!("`{log_level}` is not one of error, warn, info, debug, trace, off"),
                )
            };
            return Err(e);
        }

        let chat = merged.chat.clone().unwrap_or_default();
        let system_prompt = chat
            .system_prompt
            .clone()
            .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.trim().to_owned());
        let (default_tools, default_tools_origin) = match &o.tools {
            Some(list) => (list.clone(), "--tools".to_owned()),
            None => (
                chat.default_tools
                    .clone()
                    .unwrap_or_else(|| vec!["agent".to_owned()]),
                "chat.default_tools".to_owned(),
            ),
        };
        let mut allowed_tools = chat.allowed_tools.clone().unwrap_or_default();
        allowed_tools.extend(o.allowed_tools.iter().cloned());
        let max_turns = o.max_turns.or(chat.max_turns).unwrap_or(50);
        if max_turns == 0 {
            return Err(match o.max_turns {
                Some(_) => ConfigError::Invalid {
                    origin: PathBuf::from("--max-turns"),
                    line: None,
                    key: "max_turns".into(),
                    message: "must be at least 1".into(),
                },
                None => invalid("chat", "max_turns", "must be at least 1".into()),
            });
        }
        let ui_file = merged.ui.clone().unwrap_or_default();
        let theme = ui_file.theme.clone().unwrap_or_else(|| "auto".into());
        if !["auto", "dark", "light"].contains(&theme.as_str()) {
            return Err(invalid(
                "ui",
                "theme",
                format!("`{theme}` is not one of auto, dark, light"),
            ));
        }
        let judge_file = merged.judge.clone().unwrap_or_default();
        let judge_timeout = positive(judge_file.timeout_s, "timeout_s", 30)
            .map_err(|_| invalid("judge", "timeout_s", "must be greater than 0".into()))?;

        let mut secret_env: Vec<String> = merged
            .providers
            .values()
            .chain(merged.provider.iter())
            .filter_map(|p| p.api_key_env.clone())
            .chain(pf.api_key_env.clone())
            .chain([DEFAULT_KEY_ENV.to_owned()])
            .collect();
        secret_env.sort();
        secret_env.dedup();

        Ok(Config {
            model,
            secret_env,
            provider: ProviderSettings {
                name: provider_name.unwrap_or_else(|| "default".into()),
                base_url,
                api_key,
                headers,
                request_timeout: Duration::from_secs(request_timeout),
                idle_timeout: Duration::from_secs(idle_timeout),
                retry: RetryPolicy {
                    max_retries: pf.max_retries.unwrap_or(4),
                    initial_delay: Duration::from_millis(initial),
                    max_delay: Duration::from_millis(max_delay),
                },
            },
            api_key_env: pf.api_key_env,
            system_prompt,
            log_level,
            dirs,
            files,
            warnings,
            endpoint_is_default,
            tools: ToolSettings {
                default_tools,
                default_tools_origin,
                allowed_tools,
                auto_submit_success: chat.auto_submit_success.unwrap_or(true),
                auto_submit_errors: chat.auto_submit_errors.unwrap_or(true),
                max_turns,
                auto: o.auto || chat.auto.unwrap_or(false),
                entries: merged.tools.clone(),
                groups: merged.groups.clone(),
            },
            judge: JudgeSettings {
                enabled: judge_file.enabled.unwrap_or(true),
                model: judge_file.model.clone().filter(|m| !m.trim().is_empty()),
                timeout: Duration::from_secs(judge_timeout),
            },
            ui: UiSettings {
                theme,
                mouse: ui_file.mouse.unwrap_or(true),
                bell: ui_file.bell.unwrap_or(true),
            },
            sources: layers
                .iter()
                .map(|l| (l.path.clone(), l.source.clone()))
                .collect(),
        })
    }
}

fn validate_url(url: &str) -> Result<(), String> {
    match reqwest::Url::parse(url) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {
            if u.host_str().is_none_or(str::is_empty) {
                Err(format!("`{url}` has no host"))
            } else {
                Ok(())
            }
        }
        Ok(u) => Err(format!(
            "`{url}` must start with http:// or https:// (not {}:)",
            u.scheme()
        )),
        Err(e) => Err(format!("`{url}` is not a URL: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::file::FileConfig;

    /// config.example.toml documents real keys: uncommenting every `# key = value` and
    /// `# [table]` line gives a file that parses.
    #[test]
    fn example_config_keys_are_all_real() {
        let example = include_str!("../../config.example.toml");
        let uncommented: String = example
            .lines()
            .filter_map(|l| {
                let body = l.strip_prefix("# ")?;
                let is_table = body.starts_with('[') && body.ends_with(']');
                let is_key = body.split_once(" = ").is_some_and(|(k, _)| {
                    !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
                (is_table || is_key).then(|| format!("{body}\n"))
            })
            .collect();
        let parsed: FileConfig = toml::from_str(&uncommented).expect("example keys parse");
        assert!(
            parsed.provider.is_some()
                && parsed.chat.is_some()
                && parsed.providers.contains_key("local")
        );
        assert!(
            toml::from_str::<FileConfig>(example).is_ok(),
            "the example as shipped parses"
        );
    }
}
