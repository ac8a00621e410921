//! Stage 4 of loading: the merged files, the resolved provider and the command line become the
//! checked settings the app runs with, each value with its built-in default.
//!
//! Every check that fails names the file, line and key that set the value (through
//! [`Origins`]), or the command-line option. Checks run in a fixed order, so the first problem
//! reported is always the same one: the endpoint URL, the provider's timeouts and headers,
//! the model, the log level, `chat.max_turns`, `ui.theme`, `judge.timeout_s`.
//!
//! Not here: which tools exist (the tool registry checks `chat.default_tools` and friends), and
//! whether an endpoint is configured at all: `sayso tools` and `sayso config check` work without
//! one; a chat asks [`super::Config::require_endpoint`].

use std::path::PathBuf;
use std::time::Duration;

use super::error::ConfigError;
use super::file::{FileConfig, ProviderFile};
use super::layers::Origins;
use super::mode::Mode;
use super::resolve::ResolvedProvider;
use super::{
    DEFAULT_BASE_URL, DEFAULT_KEY_ENV, DEFAULT_MODEL, DEFAULT_SYSTEM_PROMPT, Env, JudgeSettings,
    Overrides, ToolSettings, UiSettings,
};
use crate::provider::reasoning::valid_effort;
use crate::provider::{ProviderSettings, ReasoningSettings, RetryPolicy, SendReasoning};

/// Model round-trips per user message when nothing sets `max_turns`.
pub(super) const DEFAULT_MAX_TURNS: u32 = 50;

/// The client's settings, and whether the endpoint is the built-in default (nothing set one).
pub(super) fn provider_settings(
    o: &Overrides,
    resolved: ResolvedProvider,
    origins: Origins<'_>,
) -> Result<(ProviderSettings, bool), ConfigError> {
    let table = resolved.table.as_str();
    let pf = &resolved.file;
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
        None => origins.invalid(table, "base_url", m),
    })?;
    let positive =
        |v: Option<u64>, key: &str, default: u64| positive(origins, table, key, v, default);
    let request_timeout = positive(pf.request_timeout_s, "request_timeout_s", 600)?;
    let idle_timeout = positive(pf.stream_idle_timeout_s, "stream_idle_timeout_s", 120)?;
    let first_token = positive(
        pf.first_token_timeout_s,
        "first_token_timeout_s",
        crate::provider::stream_limits::DEFAULT_FIRST_TOKEN_TIMEOUT_S,
    )?;
    let connect_timeout = positive(pf.connect_timeout_s, "connect_timeout_s", 10)?;
    let initial = positive(pf.retry_initial_delay_ms, "retry_initial_delay_ms", 1000)?;
    let max_delay = positive(pf.retry_max_delay_ms, "retry_max_delay_ms", 30_000)?;
    let headers = headers(&resolved, origins)?;
    let reasoning = reasoning_settings(o, &resolved, origins)?;
    let settings = ProviderSettings {
        name: resolved.name.unwrap_or_else(|| "default".into()),
        base_url,
        base_url_from: resolved.base_url_from.clone(),
        api_key: resolved.api_key,
        api_key_env: resolved.file.api_key_env.clone(),
        headers,
        request_timeout: Duration::from_secs(request_timeout),
        idle_timeout: Duration::from_secs(idle_timeout),
        first_token_timeout: Duration::from_secs(first_token),
        connect_timeout: Duration::from_secs(connect_timeout),
        retry: RetryPolicy {
            max_retries: resolved.file.max_retries.unwrap_or(4),
            initial_delay: Duration::from_millis(initial),
            max_delay: Duration::from_millis(max_delay),
        },
        // Filled by `windows::apply`.
        context_window: None,
        model_windows: Default::default(),
        window_caps: Default::default(),
        reasoning,
    };
    Ok((settings, endpoint_is_default))
}

/// `text_tool_calls`: `auto` (the default) or `off`.
pub(super) fn text_tool_calls(
    pf: &ProviderFile,
    table: &str,
    origins: Origins<'_>,
) -> Result<bool, ConfigError> {
    match pf.text_tool_calls.as_deref() {
        None | Some("auto") => Ok(true),
        Some("off") => Ok(false),
        Some(other) => Err(origins.invalid(
            table,
            "text_tool_calls",
            format!("`{other}` is not one of `auto`, `off`"),
        )),
    }
}

/// `send_reasoning` and `reasoning_effort` (the flag beating the file), checked.
fn reasoning_settings(
    o: &Overrides,
    resolved: &ResolvedProvider,
    origins: Origins<'_>,
) -> Result<ReasoningSettings, ConfigError> {
    let table = resolved.table.as_str();
    let send = match resolved.file.send_reasoning.as_deref() {
        None => SendReasoning::default(),
        Some(s) => SendReasoning::parse(s).ok_or_else(|| {
            origins.invalid(
                table,
                "send_reasoning",
                format!(
                    "`{s}` is not one of {}",
                    SendReasoning::NAMES.map(|n| format!("`{n}`")).join(", ")
                ),
            )
        })?,
    };
    let bad_effort = |e: &str| {
        format!("`{e}` is not a reasoning effort (a word such as `low`, `medium`, `high`)")
    };
    let effort = match (&o.reasoning_effort, &resolved.file.reasoning_effort) {
        (Some(e), _) if !valid_effort(e) => {
            return Err(ConfigError::Invalid {
                origin: PathBuf::from("--reasoning-effort"),
                line: None,
                key: "reasoning_effort".into(),
                message: bad_effort(e),
            });
        }
        (Some(e), _) => Some(e.clone()),
        (None, Some(e)) if !valid_effort(e) => {
            return Err(origins.invalid(table, "reasoning_effort", bad_effort(e)));
        }
        (None, e) => e.clone(),
    };
    Ok(ReasoningSettings { send, effort })
}

/// `v`, or `default` when unset; 0 is an error.
fn positive(
    origins: Origins<'_>,
    table: &str,
    key: &str,
    v: Option<u64>,
    default: u64,
) -> Result<u64, ConfigError> {
    match v {
        Some(0) => Err(origins.invalid(table, key, "must be greater than 0".into())),
        Some(n) => Ok(n),
        None => Ok(default),
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

/// The extra headers, each a name and value HTTP can carry.
fn headers(
    resolved: &ResolvedProvider,
    origins: Origins<'_>,
) -> Result<Vec<(String, String)>, ConfigError> {
    let headers: Vec<(String, String)> = resolved
        .file
        .headers
        .clone()
        .unwrap_or_default()
        .into_iter()
        .collect();
    for (name, value) in &headers {
        if reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(origins.invalid(
                &resolved.table,
                "headers",
                format!("`{name}` is not a valid header name"),
            ));
        }
        if reqwest::header::HeaderValue::from_str(value).is_err() {
            return Err(origins.invalid(
                &resolved.table,
                "headers",
                format!("the value of `{name}` cannot be sent in a header"),
            ));
        }
    }
    Ok(headers)
}

/// `-m`, then `$SAYSO_MODEL`, then the provider's `model`, then the top-level `model`.
pub(super) fn model(
    o: &Overrides,
    env: &dyn Env,
    provider_model: Option<String>,
    merged: &FileConfig,
    origins: Origins<'_>,
) -> Result<String, ConfigError> {
    let model = o
        .model
        .clone()
        .or_else(|| env.var("SAYSO_MODEL"))
        .or(provider_model)
        .or(merged.model.clone())
        .unwrap_or_else(|| DEFAULT_MODEL.to_owned());
    if model.trim().is_empty() {
        return Err(origins.invalid("", "model", "must not be empty".into()));
    }
    Ok(model)
}

pub(super) fn log_level(
    o: &Overrides,
    merged: &FileConfig,
    origins: Origins<'_>,
) -> Result<String, ConfigError> {
    let log_level = o
        .log_level
        .clone()
        .or(merged.log_level.clone())
        .unwrap_or_else(|| "info".into());
    if ["error", "warn", "info", "debug", "trace", "off"].contains(&log_level.as_str()) {
        return Ok(log_level);
    }
    let message = format!("`{log_level}` is not one of error, warn, info, debug, trace, off");
    Err(if o.log_level.is_some() {
        ConfigError::Invalid {
            origin: PathBuf::from("--log-level"),
            line: None,
            key: "log_level".into(),
            message,
        }
    } else {
        origins.invalid("", "log_level", message)
    })
}

/// `chat.system_prompt`, or the built-in one.
pub(super) fn system_prompt(merged: &FileConfig) -> String {
    merged
        .chat
        .as_ref()
        .and_then(|c| c.system_prompt.clone())
        .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.trim().to_owned())
}

/// `[chat]`'s tool settings with `--tools`, `--allowed-tools`, `--max-turns` and `--auto`,
/// plus the `[tools.*]` and `[groups.*]` tables as written.
pub(super) fn tool_settings(
    o: &Overrides,
    merged: &FileConfig,
    origins: Origins<'_>,
) -> Result<ToolSettings, ConfigError> {
    let chat = merged.chat.clone().unwrap_or_default();
    let default_tools_chosen = o.tools.is_some() || chat.default_tools.is_some();
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
    let max_turns = o.max_turns.or(chat.max_turns).unwrap_or(DEFAULT_MAX_TURNS);
    if max_turns == 0 {
        return Err(match o.max_turns {
            Some(_) => ConfigError::Invalid {
                origin: PathBuf::from("--max-turns"),
                line: None,
                key: "max_turns".into(),
                message: "must be at least 1".into(),
            },
            None => origins.invalid("chat", "max_turns", "must be at least 1".into()),
        });
    }
    Ok(ToolSettings {
        default_tools,
        default_tools_origin,
        default_tools_chosen,
        allowed_tools,
        auto_submit_success: chat.auto_submit_success.unwrap_or(true),
        auto_submit_errors: chat.auto_submit_errors.unwrap_or(true),
        max_turns,
        approval_mode: approval_mode(o, &chat, origins)?,
        approval_mode_explicit: o.auto || o.approval_mode.is_some(),
        rules: Vec::new(),
        mcp_servers: Vec::new(),
        entries: merged.tools.clone(),
        groups: merged.groups.clone(),
    })
}

/// `--auto`, else `--approval-mode`, else the config's `approval_mode`, else `auto = true`, else
/// balanced.
fn approval_mode(
    o: &Overrides,
    chat: &super::file::ChatFile,
    origins: Origins<'_>,
) -> Result<Mode, ConfigError> {
    if o.auto {
        return Ok(Mode::Auto);
    }
    let names = "trust, auto, balanced, suggest or strict";
    if let Some(name) = &o.approval_mode {
        return Mode::parse(name).ok_or_else(|| ConfigError::Invalid {
            origin: PathBuf::from("--approval-mode"),
            line: None,
            key: "approval_mode".into(),
            message: format!("`{name}` is not a mode: {names}"),
        });
    }
    if let Some(name) = &chat.approval_mode {
        return Mode::parse(name).ok_or_else(|| {
            origins.invalid(
                "chat",
                "approval_mode",
                format!("`{name}` is not a mode: {names}"),
            )
        });
    }
    Ok(if chat.auto.unwrap_or(false) {
        Mode::Auto
    } else {
        Mode::Balanced
    })
}

/// The values of `ui.notify`.
const NOTIFY: &[&str] = &["auto", "bell", "osc9", "osc777", "osc99", "off"];

pub(super) fn ui(merged: &FileConfig, origins: Origins<'_>) -> Result<UiSettings, ConfigError> {
    let ui_file = merged.ui.clone().unwrap_or_default();
    let theme = ui_file.theme.clone().unwrap_or_else(|| "auto".into());
    if !["auto", "dark", "light"].contains(&theme.as_str()) {
        return Err(origins.invalid(
            "ui",
            "theme",
            format!("`{theme}` is not one of auto, dark, light"),
        ));
    }
    let notify = ui_file.notify.clone().unwrap_or_else(|| "auto".into());
    if !NOTIFY.contains(&notify.as_str()) {
        return Err(origins.invalid(
            "ui",
            "notify",
            format!("`{notify}` is not one of {}", NOTIFY.join(", ")),
        ));
    }
    let steer = ui_file.steer.as_deref().unwrap_or("next-request");
    let Some(steer) = crate::agent::steer::Delivery::parse(steer) else {
        return Err(origins.invalid(
            "ui",
            "steer",
            format!("`{steer}` is not one of next-request, turn-end"),
        ));
    };
    Ok(UiSettings {
        theme,
        steer,
        mouse: ui_file.mouse.unwrap_or(true),
        bell: ui_file.bell.unwrap_or(true),
        notify,
        notify_after: Duration::from_secs(ui_file.notify_after_s.unwrap_or(10)),
        show_reasoning: ui_file.show_reasoning.unwrap_or(true),
    })
}

pub(super) fn judge(
    merged: &FileConfig,
    origins: Origins<'_>,
) -> Result<JudgeSettings, ConfigError> {
    let judge_file = merged.judge.clone().unwrap_or_default();
    let timeout = positive(origins, "judge", "timeout_s", judge_file.timeout_s, 30)?;
    Ok(JudgeSettings {
        enabled: judge_file.enabled.unwrap_or(true),
        model: judge_file.model.clone().filter(|m| !m.trim().is_empty()),
        timeout: Duration::from_secs(timeout),
    })
}

/// Every variable holding a secret: each `api_key_env` in the config, the one in use, the
/// default, and each MCP server's `headers_env` variable.
pub(super) fn secret_env(
    merged: &FileConfig,
    key_env_in_use: Option<&str>,
    servers: &[super::mcp::McpServerConfig],
) -> Vec<String> {
    let mut secret_env: Vec<String> = merged
        .providers
        .values()
        .chain(merged.provider.iter())
        .filter_map(|p| p.api_key_env.clone())
        .chain(key_env_in_use.map(str::to_owned))
        .chain([DEFAULT_KEY_ENV.to_owned()])
        .chain(servers.iter().flat_map(|s| s.secret_vars()))
        .collect();
    secret_env.sort();
    secret_env.dedup();
    secret_env
}
