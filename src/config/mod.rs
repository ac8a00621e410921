//! Configuration: layered loading, validation, and the resolved settings the app runs with.
//!
//! Layers, lowest first (SPEC §3): built-in defaults → the user file
//! (`$XDG_CONFIG_HOME/sayso/config.toml`, or `-c`/`$SAYSO_CONFIG`) → the project file
//! (`.sayso/config.toml` in the working directory) → environment → command line. A project file
//! may narrow, never widen (SPEC §3): it may not set `base_url`, `api_key_env` or `headers` (a
//! cloned repository must not redirect your key), choose a provider (`use_provider`), define
//! tools, offer more (`chat.default_tools`, `[groups]`) or loosen approvals (`chat.auto`,
//! `chat.allowed_tools`, `[judge]`): such keys are dropped with a warning naming file:line.
//! Its context windows only lower the window (`windows`), and its `[sandbox]` only tightens
//! the sandbox (`sandbox`: what would loosen it is dropped with a warning too). API keys come
//! only from the environment.
//!
//! [`Config::load`] runs in named stages, one module each:
//! 1. `layers`: find, read and parse the files (syntax errors name file:line:column:key);
//! 2. `project`: drop what the project file may not set;
//! 3. `resolve`: pick the provider table, apply the environment and the command line;
//! 4. `validate`: check each value (errors name the file, line and key that set it);
//!    `windows`: the context-window keys.
//!
//! The types of a file as written are in [`file`](mod@file); errors and the line finder in [`error`].
//! The process environment is read through [`Env`] so tests never mutate it.

pub mod approvals;
pub mod error;
pub mod file;
mod layers;
pub mod mcp;
pub mod mode;
pub mod opts;
pub mod paths;
mod project;
mod resolve;
pub mod sandbox;
mod secret_values;
pub mod sessions;
pub mod undo;
mod validate;
mod windows;

use std::path::PathBuf;
use std::time::Duration;

pub use error::ConfigError;
use error::find_key_line;
use layers::Origins;
pub use layers::config_paths;
pub use paths::Dirs;

use crate::provider::ProviderSettings;

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
pub const DEFAULT_MODEL: &str = "gpt-4.1-mini";
pub const DEFAULT_KEY_ENV: &str = "OPENAI_API_KEY";
const DEFAULT_SYSTEM_PROMPT: &str = include_str!("../../assets/system_prompt.md");

/// Read access to environment variables.
pub trait Env {
    fn var(&self, name: &str) -> Option<String>;
}

/// The real process environment. A secret variable taken out of it at start
/// (`crate::secrets::seal`) is read from the value captured then.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        crate::secrets::env_var(name)
            .or_else(|| std::env::var(name).ok())
            .filter(|v| !v.is_empty())
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
    /// `--approval-mode NAME`.
    pub approval_mode: Option<String>,
    /// `--tools`: replaces `chat.default_tools`.
    pub tools: Option<Vec<String>>,
    /// `--allowed-tools`: added to `chat.allowed_tools`.
    pub allowed_tools: Vec<String>,
    pub max_turns: Option<u32>,
    /// `--reasoning-effort`: beats the provider's `reasoning_effort`.
    pub reasoning_effort: Option<String>,
    /// `--sandbox MODE`: beats `[sandbox] mode` of every file.
    pub sandbox: Option<String>,
}

/// Tool-related settings, validated against the registry by `tools::configured`.
#[derive(Debug, Clone, Default)]
pub struct ToolSettings {
    pub default_tools: Vec<String>,
    /// Where `default_tools` came from, for messages.
    pub default_tools_origin: String,
    /// Whether the user chose `default_tools` (`--tools`, or `chat.default_tools` in a config
    /// file) rather than getting the built-in default.
    pub default_tools_chosen: bool,
    pub allowed_tools: Vec<String>,
    pub auto_submit_success: bool,
    pub auto_submit_errors: bool,
    pub max_turns: u32,
    /// The approval mode: `--auto` or `--approval-mode`, else `chat.approval_mode` (or the
    /// older `chat.auto = true`), else balanced.
    pub approval_mode: mode::Mode,
    /// The mode was given on the command line (`--auto`, `--approval-mode`): it also wins over
    /// a resumed session's.
    pub approval_mode_explicit: bool,
    /// `[[approvals.rules]]` of the user's file, then the project's (`ask`/`deny` only).
    pub rules: Vec<approvals::RuleSpec>,
    /// `[mcp_servers.*]` (not from a project file).
    pub mcp_servers: Vec<mcp::McpServerConfig>,
    pub entries: std::collections::BTreeMap<String, file::ToolFile>,
    pub groups: std::collections::BTreeMap<String, file::GroupFile>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiSettings {
    pub theme: String,
    pub mouse: bool,
    pub bell: bool,
    /// `auto` | `bell` | `osc9` | `osc777` | `osc99` | `off` (see `tui::notify`).
    pub notify: String,
    /// A turn at least this long that ends while the terminal is unfocused is notified.
    pub notify_after: Duration,
    /// Reasoning blocks shown (else one line each; Ctrl+T toggles).
    pub show_reasoning: bool,
    /// When a message typed during a turn is delivered (Alt+Enter: the other way).
    pub steer: crate::agent::steer::Delivery,
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
    /// Every variable holding a secret — each `api_key_env` in the config, the default, each
    /// MCP `headers_env` variable: no child process inherits them.
    pub secret_env: Vec<String>,
    /// Every secret value the config knows of (the values of `secret_env`, provider header
    /// values, MCP secrets): `crate::secrets` scrubs them from what tools return.
    pub secrets: Vec<crate::secrets::Secret>,
    pub system_prompt: String,
    pub log_level: String,
    pub dirs: Dirs,
    /// The files that were read, lowest layer first.
    pub files: Vec<PathBuf>,
    /// The user's config file (`-c`, `$SAYSO_CONFIG`, else the XDG one), where a rule saved
    /// from the approval modal is written.
    pub user_file: PathBuf,
    /// Things the user should know (ignored project keys…).
    pub warnings: Vec<String>,
    /// The endpoint came from built-in defaults (nothing configured it). With no API key
    /// either, no endpoint is configured: see [`Config::require_endpoint`].
    pub endpoint_is_default: bool,
    pub tools: ToolSettings,
    pub judge: JudgeSettings,
    pub ui: UiSettings,
    pub sessions: sessions::SessionSettings,
    /// `[undo]`: checkpoints for undo (`crate::checkpoint`).
    pub undo: undo::UndoSettings,
    /// `[provider] text_tool_calls`: read tool calls written in a reply's text (`auto`, the
    /// default), or never (`off`).
    pub text_tool_calls: bool,
    /// `[sandbox]` (and `--sandbox`): the sandbox commands run in (`crate::sandbox`).
    pub sandbox: crate::sandbox::Settings,
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

    /// `Err(ConfigError::NoEndpoint)` when nothing says where to send a chat: no `base_url`
    /// anywhere (so the OpenAI default applies) and no key for it. Loading succeeds without an
    /// endpoint, so that `sayso tools` and `sayso config check` work on a fresh machine; a
    /// chat (the TUI, `-p`) calls this before it starts.
    pub fn require_endpoint(&self) -> Result<(), ConfigError> {
        if self.endpoint_is_default && self.provider.api_key.is_none() {
            return Err(ConfigError::NoEndpoint {
                key_env: self
                    .api_key_env
                    .clone()
                    .unwrap_or_else(|| DEFAULT_KEY_ENV.into()),
                config_file: Some(self.user_file.clone()).filter(|f| f.is_file()),
            });
        }
        Ok(())
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

impl Config {
    /// Loads the configuration in four stages: read the layers (`layers`), narrow the project
    /// file (`project`), resolve the provider (`resolve`), check every value (`validate`).
    pub fn load(o: &Overrides, env: &dyn Env) -> Result<Config, ConfigError> {
        let layers::ReadLayers {
            layers,
            mut warnings,
            project_windows,
            project_sandbox,
            project_mcp_sandboxed,
        } = layers::read_layers(o, env)?;
        let (rules, rule_warnings) = approvals::rules(&layers)?;
        warnings.extend(rule_warnings);
        let merged = layers::merge(&layers);
        let origins = Origins::new(&layers);

        let resolved = resolve::provider(o, env, &merged, origins)?;
        let provider_model = resolved.file.model.clone();
        let api_key_env = resolved.file.api_key_env.clone();
        let (table, name) = (resolved.table.clone(), resolved.name.clone());
        let context_window = resolved.file.context_window;
        let text_tool_calls = validate::text_tool_calls(&resolved.file, &table, origins)?;
        let (mut provider, endpoint_is_default) =
            validate::provider_settings(o, resolved, origins)?;
        windows::apply(
            &mut provider,
            &table,
            name.as_deref(),
            context_window,
            &merged,
            project_windows,
            origins,
        )?;
        let model = validate::model(o, env, provider_model, &merged, origins)?;
        let log_level = validate::log_level(o, &merged, origins)?;
        let mut tools = validate::tool_settings(o, &merged, origins)?;
        tools.rules = rules;
        tools.mcp_servers = mcp::servers(&merged.mcp_servers, origins)?;
        warnings.extend(mcp::tighten(&mut tools.mcp_servers, &project_mcp_sandboxed));
        let ui = validate::ui(&merged, origins)?;
        let mut judge = validate::judge(&merged, origins)?;
        if judge.model.is_none() {
            judge.model = project::judge_model(o, env, &layers, &model);
        }
        let sessions = sessions::settings(&merged, origins)?;
        let undo = undo::settings(&merged, origins)?;
        let project_layer = layers.iter().find(|l| l.project);
        let (sandbox, sandbox_warnings) = sandbox::settings(
            o,
            env,
            merged.sandbox.as_ref(),
            project_sandbox.as_ref().zip(project_layer),
            origins,
        )?;
        warnings.extend(sandbox_warnings);
        let secret_env = validate::secret_env(&merged, api_key_env.as_deref(), &tools.mcp_servers);
        let secrets = secret_values::collect(
            &secret_env,
            layers.iter().map(|l| &l.file),
            &tools.mcp_servers,
            env,
        );

        Ok(Config {
            model,
            secret_env,
            secrets,
            provider,
            api_key_env,
            system_prompt: validate::system_prompt(&merged),
            log_level,
            dirs: Dirs::from_env(env),
            files: layers.iter().map(|l| l.path.clone()).collect(),
            user_file: config_paths(o, env).0,
            warnings,
            endpoint_is_default,
            tools,
            judge,
            ui,
            sessions,
            undo,
            text_tool_calls,
            sandbox,
            sources: layers.into_iter().map(|l| (l.path, l.source)).collect(),
        })
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
                    let bare = k.strip_prefix('"').and_then(|k| k.strip_suffix('"'));
                    let quoted = bare.is_some_and(|k| !k.is_empty() && !k.contains('"'));
                    quoted
                        || (!k.is_empty()
                            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
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
        assert_eq!(parsed.provider.and_then(|p| p.context_window), Some(32768));
        assert_eq!(parsed.context_windows.get("qwen2.5-coder"), Some(&32768));
        assert!(
            toml::from_str::<FileConfig>(example).is_ok(),
            "the example as shipped parses"
        );
    }
}
