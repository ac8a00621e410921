//! `[sandbox]`: the policy the commands sayso runs are confined by (`crate::sandbox`), read
//! from the files and `--sandbox`, checked, and resolved into [`Settings`].
//!
//! ```toml
//! [sandbox]
//! mode = "workspace-write"     # workspace-write | read-only | off
//! network = false              # commands may reach the network
//! allow_loopback = false       # without the network, commands may still reach this host's loopback
//! writable_roots = ["~/.cache/pip", "/srv/scratch"]  # written besides the project and /tmp
//! backend = "auto"             # auto | bubblewrap | landlock | seatbelt
//! ```
//!
//! Precedence: `--sandbox MODE` (the user's own choice; it may loosen) beats the files. A
//! project file (`.sayso/config.toml`) may only tighten what the user's file says: a mode at
//! least as strict (read-only > workspace-write > off), `network = false` and
//! `allow_loopback = false` are taken; `mode = "off"`, a looser mode, `network = true`,
//! `allow_loopback = true`, `writable_roots` and `backend` there are ignored with a warning
//! naming file:line, as every project key that would widen the policy is (`super::project`). `writable_roots` must be absolute or start with `~/`; one that does
//! not exist is left out with a warning.
//!
//! Not here: whether this machine can enforce the policy (`crate::sandbox::Sandbox::new`).

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::{ConfigError, find_key_line};
use super::layers::{Layer, Origins};
use super::{Env, Overrides};
use crate::sandbox::{BackendChoice, Mode, Settings};

/// `[sandbox]` as a file writes it.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxFile {
    pub mode: Option<Mode>,
    pub network: Option<bool>,
    pub allow_loopback: Option<bool>,
    pub writable_roots: Option<Vec<String>>,
    pub backend: Option<BackendChoice>,
}

impl SandboxFile {
    /// `high`'s keys over `self`'s.
    pub fn merge(self, high: SandboxFile) -> SandboxFile {
        SandboxFile {
            mode: high.mode.or(self.mode),
            network: high.network.or(self.network),
            allow_loopback: high.allow_loopback.or(self.allow_loopback),
            writable_roots: high.writable_roots.or(self.writable_roots),
            backend: high.backend.or(self.backend),
        }
    }
}

/// The modes `--sandbox` takes.
pub const MODES: &[&str] = &["workspace-write", "read-only", "off"];

/// The mode a name (as `--sandbox` and the file spell it) means.
pub fn parse_mode(name: &str) -> Option<Mode> {
    [Mode::WorkspaceWrite, Mode::ReadOnly, Mode::Off]
        .into_iter()
        .find(|m| m.as_str() == name)
}

/// The settings in force: the user's `[sandbox]` (`user`: the merged layers without the
/// project's), tightened by the `project` layer's (taken out of it before the merge), then
/// `--sandbox`; with the warnings of what was ignored.
pub(super) fn settings(
    o: &Overrides,
    env: &dyn Env,
    user: Option<&SandboxFile>,
    project: Option<(&SandboxFile, &Layer)>,
    origins: Origins<'_>,
) -> Result<(Settings, Vec<String>), ConfigError> {
    let user_origins = origins.without_project();
    let user = user.cloned().unwrap_or_default();
    let mut warnings = Vec::new();
    let writable_roots = roots(
        user.writable_roots.as_deref().unwrap_or_default(),
        env,
        user_origins,
        &mut warnings,
    )?;
    let mut settings = Settings {
        mode: user.mode.unwrap_or_default(),
        network: user.network.unwrap_or(false),
        allow_loopback: user.allow_loopback.unwrap_or(false),
        writable_roots,
        backend: user.backend.unwrap_or_default(),
    };
    if let Some((p, layer)) = project {
        warnings.extend(tighten(&mut settings, p, layer));
    }
    if let Some(name) = &o.sandbox {
        settings.mode = parse_mode(name).ok_or_else(|| ConfigError::Invalid {
            origin: PathBuf::from("--sandbox"),
            line: None,
            key: "sandbox.mode".into(),
            message: format!("`{name}` is not a mode: {}", MODES.join(", ")),
        })?;
    }
    Ok((settings, warnings))
}

/// Applies what the project's `[sandbox]` may say to `s`; one warning per key it may not.
fn tighten(s: &mut Settings, p: &SandboxFile, layer: &Layer) -> Vec<String> {
    let at = |key: &str| {
        let line = find_key_line(&layer.source, "sandbox", key)
            .map(|n| format!(":{n}"))
            .unwrap_or_default();
        format!("{}{line}", layer.path.display())
    };
    let refuse = |key: &str, written: String, why: String| {
        format!(
            "{}: ignoring `sandbox.{key} = {written}`: {why}; a project config may tighten the sandbox, never loosen it (set it in your user config, or --sandbox)",
            at(key)
        )
    };
    let mut warnings = Vec::new();
    match p.mode {
        Some(Mode::Off) => warnings.push(refuse(
            "mode",
            "\"off\"".into(),
            "it would turn the sandbox off".into(),
        )),
        Some(m) if m.strictness() >= s.mode.strictness() => s.mode = m,
        Some(m) => warnings.push(refuse(
            "mode",
            format!("\"{}\"", m.as_str()),
            format!(
                "it is looser than `{}`, your config's mode",
                s.mode.as_str()
            ),
        )),
        None => {}
    }
    match p.network {
        Some(true) if !s.network => warnings.push(refuse(
            "network",
            "true".into(),
            "it would let commands reach the network".into(),
        )),
        Some(n) => s.network = s.network && n,
        None => {}
    }
    match p.allow_loopback {
        Some(true) if !s.allow_loopback => warnings.push(refuse(
            "allow_loopback",
            "true".into(),
            "it would let commands reach the servers on this machine's loopback".into(),
        )),
        Some(l) => s.allow_loopback = s.allow_loopback && l,
        None => {}
    }
    if let Some(roots) = p.writable_roots.as_ref().filter(|r| !r.is_empty()) {
        let list = toml::Value::Array(roots.iter().cloned().map(toml::Value::String).collect());
        warnings.push(refuse(
            "writable_roots",
            list.to_string(),
            "it would let commands write outside the project".into(),
        ));
    }
    if let Some(b) = p.backend {
        let name = toml::Value::try_from(b)
            .map(|v| v.to_string())
            .unwrap_or_default();
        warnings.push(refuse(
            "backend",
            name,
            "the mechanism is your choice (a weaker one enforces less)".into(),
        ));
    }
    warnings
}

/// `writable_roots` as absolute paths (`~/` expanded); a relative one is an error, one that
/// does not exist is left out with a warning.
fn roots(
    written: &[String],
    env: &dyn Env,
    origins: Origins<'_>,
    warnings: &mut Vec<String>,
) -> Result<Vec<PathBuf>, ConfigError> {
    let invalid = |message: String| origins.invalid("sandbox", "writable_roots", message);
    let home = env.var("HOME").map(PathBuf::from);
    let mut out = Vec::new();
    for r in written {
        let path = match r.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => match &home {
                Some(h) => h.join(rest.trim_start_matches('/')),
                None => return Err(invalid(format!("`{r}`: $HOME is not set to expand `~`"))),
            },
            _ => PathBuf::from(r),
        };
        if !path.is_absolute() {
            return Err(invalid(format!(
                "`{r}` is relative: write an absolute path, or one starting with ~/"
            )));
        }
        if !path.is_dir() {
            let (origin, line) = origins.origin("sandbox", "writable_roots");
            let line = line.map(|n| format!(":{n}")).unwrap_or_default();
            warnings.push(format!(
                "{}{line}: `sandbox.writable_roots`: {} is not a directory (yet): left out",
                origin.display(),
                path.display()
            ));
            continue;
        }
        out.push(normal(&path));
    }
    Ok(out)
}

/// `path` without `.` and `..` components (it is absolute; symlinks are the backend's).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests;
