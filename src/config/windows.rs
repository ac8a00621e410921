//! The context-window keys: `context_window` in `[provider]` / `[providers.NAME]`, and the
//! top-level `[context_windows]` table (model id → tokens), each > 0.
//!
//! The user's numbers (user file, or the same file named by `-c`) go to the client as they are:
//! they beat whatever the server reports, and a model's entry beats its provider's. A project
//! file's numbers arrive separately ([`ProjectWindows`]) and become [`WindowCaps`]: they can
//! only lower the window. Like the other provider keys, a named provider does not inherit
//! `[provider]`'s `context_window` (another provider is another server).

use super::error::ConfigError;
use super::file::FileConfig;
use super::layers::Origins;
use super::project::ProjectWindows;
use crate::provider::{ProviderSettings, WindowCaps};

/// Fills the window settings of the provider `name` (`None`: `[provider]`), whose table (as
/// resolved) set `context_window`.
pub(super) fn apply(
    settings: &mut ProviderSettings,
    table: &str,
    name: Option<&str>,
    context_window: Option<u64>,
    merged: &FileConfig,
    project: ProjectWindows,
    origins: Origins<'_>,
) -> Result<(), ConfigError> {
    let user = origins.without_project();
    let zero =
        |table: &str, key: &str| user.invalid(table, key, "must be greater than 0 (tokens)".into());
    if context_window == Some(0) {
        return Err(zero(table, "context_window"));
    }
    if let Some((model, _)) = merged.context_windows.iter().find(|(_, n)| **n == 0) {
        return Err(zero("context_windows", model));
    }
    settings.context_window = context_window;
    settings.model_windows = merged.context_windows.clone();
    settings.window_caps = WindowCaps {
        provider: match name {
            Some(name) => project.providers.get(name).copied(),
            None => project.provider,
        },
        models: project.models,
    };
    Ok(())
}
