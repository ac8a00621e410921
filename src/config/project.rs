//! Stage 2 of loading: a project file (`.sayso/config.toml` in the working directory) may narrow
//! what the user configured, never widen it (SPEC §3).
//!
//! A cloned repository must not redirect your key, so `base_url`, `api_key_env` and `headers`
//! are dropped from `[provider]` and every `[providers.NAME]`. Nor may it widen what runs:
//! `[tools.*]`, `[groups.*]`, `chat.allowed_tools`, `chat.default_tools`, `chat.auto`,
//! `[judge]`, `[sessions]` (pruning could delete your saved sessions) and `use_provider` are
//! dropped too. Some keys a project may set only one way, the way that lets less happen
//! without you: `text_tool_calls` only to `"off"`, `chat.auto_submit_success` and
//! `chat.auto_submit_errors` only to `false`, `chat.max_turns` only at most yours. Each dropped
//! key gives one warning naming the file and line. Everything else (the model, timeouts, the
//! system prompt, the theme…) stays.
//!
//! Context windows (`context_window`, `[context_windows]`) are taken out of the project file
//! without a warning and become upper bounds ([`ProjectWindows`]): a project may lower the
//! window (to keep requests to a big model small, say), never raise it past what your config or
//! the server says — a repository that claimed a huge window would make sayso overfill the
//! server instead of compacting in time.
//!
//! `[sandbox]` is taken out of the project file the same way (by `layers`), and may only
//! tighten what the user's file says (`super::sandbox`).
//!
//! A project may choose the chat model, but not the judge's: an empty `[judge] model` follows
//! the chat model, so when the project file chose that, the judge gets the model your own files
//! (or the command line, or the default) name ([`judge_model`]) — a repository must not pick a
//! weak model to rule on its own commands in auto mode.

use std::collections::BTreeMap;

use super::error::{ConfigError, find_key_line};
use super::file::{FileConfig, ProviderFile};
use super::layers::Layer;

/// The context-window numbers a project file set: upper bounds, never raises.
#[derive(Debug, Default)]
pub(super) struct ProjectWindows {
    /// `[provider] context_window`.
    pub provider: Option<u64>,
    /// `[providers.NAME] context_window`.
    pub providers: BTreeMap<String, u64>,
    /// `[context_windows]`.
    pub models: BTreeMap<String, u64>,
}

/// Takes the context windows out of the project `layer` (checked: each must be > 0).
pub(super) fn take_windows(layer: &mut Layer) -> Result<ProjectWindows, ConfigError> {
    let file = &mut layer.file;
    let mut found: Vec<(String, String, u64)> = Vec::new();
    let provider = file.provider.as_mut().and_then(|p| p.context_window.take());
    if let Some(n) = provider {
        found.push(("provider".into(), "context_window".into(), n));
    }
    let mut providers = BTreeMap::new();
    for (name, p) in file.providers.iter_mut() {
        if let Some(n) = p.context_window.take() {
            found.push((format!("providers.{name}"), "context_window".into(), n));
            providers.insert(name.clone(), n);
        }
    }
    let models = std::mem::take(&mut file.context_windows);
    found.extend(
        models
            .iter()
            .map(|(m, n)| ("context_windows".to_owned(), m.clone(), *n)),
    );
    if let Some((table, key, _)) = found.iter().find(|(_, _, n)| *n == 0) {
        return Err(ConfigError::Invalid {
            origin: layer.path.clone(),
            line: find_key_line(&layer.source, table, key),
            key: format!("{table}.{key}"),
            message: "must be greater than 0 (tokens)".into(),
        });
    }
    Ok(ProjectWindows {
        provider,
        providers,
        models,
    })
}

/// The judge's model when `[judge] model` is empty and the project file chose the chat model
/// (`model`, `[provider] model`…): the model the layers without it resolve to; `None` when that
/// is the chat model anyway (the judge then follows the chat model, also after `/model`).
pub(super) fn judge_model(
    o: &super::Overrides,
    env: &dyn super::Env,
    layers: &[Layer],
    model: &str,
) -> Option<String> {
    let (last, own) = layers.split_last()?;
    if !last.project {
        return None;
    }
    let merged = super::layers::merge(own);
    let origins = super::layers::Origins::new(own);
    let resolved = super::resolve::provider(o, env, &merged, origins).ok()?;
    let yours =
        super::validate::model(o, env, resolved.file.model.clone(), &merged, origins).ok()?;
    (yours != model).then_some(yours)
}

/// Removes what a project file may not set from `layer` (`user`: the user's file, whose
/// values some keys may only lower); returns one warning per key removed.
pub(super) fn narrow(layer: &mut Layer, user: Option<&FileConfig>) -> Vec<String> {
    let mut warnings = strip_redirecting_keys(layer);
    warnings.extend(drop_widening_keys(layer));
    warnings.extend(keep_only_tighter(layer, user));
    warnings
}

/// Drops the values of keys a project may set only one way, the way that lets less happen
/// without you: `text_tool_calls` only `"off"` (text read as tool calls runs tools a server's
/// own tool-call format would not have), `auto_submit_success`/`auto_submit_errors` only
/// `false` (results go back to the model, and its next calls run, without your turn), and
/// `max_turns` only at most yours (or the default).
fn keep_only_tighter(layer: &mut Layer, user: Option<&FileConfig>) -> Vec<String> {
    let mut dropped: Vec<(String, &'static str, String, String)> = Vec::new();
    let mut text_calls = |table: String, p: &mut ProviderFile| {
        if let Some(v) = p.text_tool_calls.take_if(|v| v != "off") {
            dropped.push((
                table,
                "text_tool_calls",
                format!("\"{v}\""),
                "a project config may only turn reading tool calls from a reply's text off".into(),
            ));
        }
    };
    if let Some(p) = layer.file.provider.as_mut() {
        text_calls("provider".into(), p);
    }
    for (name, p) in layer.file.providers.iter_mut() {
        text_calls(format!("providers.{name}"), p);
    }
    if let Some(chat) = layer.file.chat.as_mut() {
        for (key, value) in [
            ("auto_submit_success", &mut chat.auto_submit_success),
            ("auto_submit_errors", &mut chat.auto_submit_errors),
        ] {
            if value.take_if(|v| *v).is_some() {
                dropped.push((
                    "chat".into(),
                    key,
                    "true".into(),
                    "a project config may only stop tool results going back to the model unasked"
                        .into(),
                ));
            }
        }
        let yours = user
            .and_then(|u| u.chat.as_ref())
            .and_then(|c| c.max_turns)
            .unwrap_or(super::validate::DEFAULT_MAX_TURNS);
        if let Some(n) = chat.max_turns.take_if(|n| *n > yours) {
            dropped.push((
                "chat".into(),
                "max_turns",
                n.to_string(),
                format!("a project config may only lower it (yours is {yours})"),
            ));
        }
    }
    dropped
        .into_iter()
        .map(|(table, key, value, why)| {
            format!(
                "{}: ignoring `{table}.{key} = {value}`: {why}; set it in your user config",
                location(layer, &table, key)
            )
        })
        .collect()
}

/// `path:line` for `table.key` in the layer, or just `path` when the line is not found.
fn location(layer: &Layer, table: &str, key: &str) -> String {
    let line = find_key_line(&layer.source, table, key)
        .map(|n| format!(":{n}"))
        .unwrap_or_default();
    format!("{}{line}", layer.path.display())
}

/// Drops the keys that decide where requests (and the key) go.
fn strip_redirecting_keys(layer: &mut Layer) -> Vec<String> {
    let mut stripped: Vec<(String, &'static str)> = Vec::new();
    let mut strip = |table: String, p: &mut ProviderFile| {
        for key in p.strip_redirecting_keys() {
            stripped.push((table.clone(), key));
        }
    };
    if let Some(p) = layer.file.provider.as_mut() {
        strip("provider".into(), p);
    }
    for (name, p) in layer.file.providers.iter_mut() {
        strip(format!("providers.{name}"), p);
    }
    stripped
        .into_iter()
        .map(|(table, key)| {
            format!(
                "{}: ignoring `{table}.{key}`: a project config may not change where requests (and your key) go; set it in your user config or on the command line",
                location(layer, &table, key)
            )
        })
        .collect()
}

/// Drops what would define commands, offer more tools, loosen approvals or pick another of
/// your providers.
fn drop_widening_keys(layer: &mut Layer) -> Vec<String> {
    let file = &mut layer.file;
    let mut dropped: Vec<(String, String)> = Vec::new();
    dropped.extend(
        std::mem::take(&mut file.tools)
            .into_keys()
            .map(|k| ("tools".to_owned(), k)),
    );
    dropped.extend(
        std::mem::take(&mut file.groups)
            .into_keys()
            .map(|k| ("groups".to_owned(), k)),
    );
    if let Some(chat) = file.chat.as_mut() {
        if chat.allowed_tools.take().is_some() {
            dropped.push(("chat".into(), "allowed_tools".into()));
        }
        if chat.default_tools.take().is_some() {
            dropped.push(("chat".into(), "default_tools".into()));
        }
        if chat.auto.take().is_some() {
            dropped.push(("chat".into(), "auto".into()));
        }
        if chat.approval_mode.take().is_some() {
            dropped.push(("chat".into(), "approval_mode".into()));
        }
    }
    if file.judge.take().is_some() {
        dropped.push((String::new(), "judge".into()));
    }
    dropped.extend(
        std::mem::take(&mut file.mcp_servers)
            .into_keys()
            .map(|k| ("mcp_servers".to_owned(), k)),
    );
    if file.sessions.take().is_some() {
        dropped.push((String::new(), "sessions".into()));
    }
    if file.undo.take().is_some() {
        dropped.push((String::new(), "undo".into()));
    }
    if file.use_provider.take().is_some() {
        dropped.push((String::new(), "use_provider".into()));
    }
    dropped
        .into_iter()
        .map(|(table, key)| {
            let dotted = if table.is_empty() {
                key.clone()
            } else {
                format!("{table}.{key}")
            };
            format!(
                "{}: ignoring `{dotted}`: a project config may not define or add tools, change approvals or choose a provider; set it in your user config",
                location(layer, &table, &key)
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use crate::config::{Config, Overrides};

    fn load(home: &std::path::Path, user: &str, project: &str, model: Option<&str>) -> Config {
        let env: HashMap<String, String> = [("XDG_CONFIG_HOME", home.join("config"))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.display().to_string()))
            .collect();
        std::fs::create_dir_all(home.join("config/sayso")).unwrap();
        std::fs::create_dir_all(home.join(".sayso")).unwrap();
        std::fs::write(home.join("config/sayso/config.toml"), user).unwrap();
        std::fs::write(home.join(".sayso/config.toml"), project).unwrap();
        let o = Overrides {
            cwd: home.to_path_buf(),
            model: model.map(str::to_owned),
            ..Overrides::default()
        };
        Config::load(&o, &env).expect("the config loads")
    }

    /// A project's model is the chat's, never the judge's (row: user file, project file, `-m`,
    /// the chat model, the judge's).
    #[test]
    fn a_project_chooses_the_chat_model_but_not_the_judges() {
        let home = tempfile::tempdir().unwrap();
        /// The user file, the project file, `-m`; the chat model and the judge's.
        type Row<'a> = (&'a str, &'a str, Option<&'a str>, &'a str, Option<&'a str>);
        let rows: [Row; 6] = [
            (
                "model = \"big\"",
                "model = \"tiny\"",
                None,
                "tiny",
                Some("big"),
            ),
            (
                "model = \"big\"",
                "[provider]\nmodel = \"tiny\"",
                None,
                "tiny",
                Some("big"),
            ),
            (
                "",
                "model = \"tiny\"",
                None,
                "tiny",
                Some(crate::config::DEFAULT_MODEL),
            ),
            ("model = \"big\"", "", None, "big", None),
            (
                "model = \"big\"",
                "model = \"tiny\"",
                Some("cli"),
                "cli",
                None,
            ),
            (
                "model = \"big\"\n[judge]\nmodel = \"j\"",
                "model = \"tiny\"",
                None,
                "tiny",
                Some("j"),
            ),
        ];
        for (user, project, cli, chat, judge) in rows {
            let c = load(home.path(), user, project, cli);
            assert_eq!(c.model, chat, "{user:?} {project:?}");
            assert_eq!(c.judge.model.as_deref(), judge, "{user:?} {project:?}");
        }
    }
}
