//! Where sayso keeps its files: XDG directories, honoured on every OS that sets them.
//!
//! `$XDG_CONFIG_HOME/sayso`, `$XDG_DATA_HOME/sayso`, `$XDG_STATE_HOME/sayso` when the variables
//! hold absolute paths; otherwise the platform's defaults through etcetera (`~/.config`,
//! `~/.local/share`, `~/.local/state` on Unix). Tests isolate themselves by setting the
//! variables on the child process.

use std::path::PathBuf;

use etcetera::BaseStrategy;

use super::Env;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dirs {
    pub config: PathBuf,
    pub data: PathBuf,
    pub state: PathBuf,
}

impl Dirs {
    pub fn from_env(env: &dyn Env) -> Self {
        let xdg = |var: &str| env.var(var).map(PathBuf::from).filter(|p| p.is_absolute());
        let base = etcetera::choose_base_strategy().ok();
        let home = || PathBuf::from(".");
        Self {
            config: xdg("XDG_CONFIG_HOME")
                .or_else(|| base.as_ref().map(|b| b.config_dir()))
                .unwrap_or_else(home)
                .join("sayso"),
            data: xdg("XDG_DATA_HOME")
                .or_else(|| base.as_ref().map(|b| b.data_dir()))
                .unwrap_or_else(home)
                .join("sayso"),
            state: xdg("XDG_STATE_HOME")
                .or_else(|| {
                    base.as_ref()
                        .map(|b| b.state_dir().unwrap_or_else(|| b.data_dir()))
                })
                .unwrap_or_else(home)
                .join("sayso"),
        }
    }

    pub fn user_config_file(&self) -> PathBuf {
        self.config.join("config.toml")
    }

    pub fn log_file(&self) -> PathBuf {
        self.state.join("sayso.log")
    }
}
