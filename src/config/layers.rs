//! Stage 1 of loading: find the config files, read and parse each into a [`Layer`], narrow the
//! project layer ([`super::project`]), and merge the layers into one [`FileConfig`].
//!
//! In: the command line's [`Overrides`] and the environment (for `-c`/`$SAYSO_CONFIG` and the
//! XDG directories). Out: the layers, lowest first, and the warnings of the narrowing.
//! A missing user or project file is no error; a missing file named by `-c`/`$SAYSO_CONFIG`
//! is. [`Origins`] answers "which file and line set this key?" for the later stages' errors.
//!
//! Not here: what the merged values mean (see `resolve` and `validate`).

use std::path::{Path, PathBuf};

use super::error::{ConfigError, find_key_line, syntax_error};
use super::file::FileConfig;
use super::project::ProjectWindows;
use super::{Dirs, Env, Overrides, project};
use crate::secrets::own_files::{self, Refused};

/// One config file: where it is, its text (to point errors at lines) and what it says.
pub(super) struct Layer {
    pub path: PathBuf,
    pub source: String,
    pub file: FileConfig,
    /// The project file (`.sayso/config.toml`), narrowed.
    pub project: bool,
}

/// The files read: the layers, lowest first, what the narrowing dropped, and the project's
/// context windows (upper bounds, taken out of its layer).
pub(super) struct ReadLayers {
    pub layers: Vec<Layer>,
    pub warnings: Vec<String>,
    pub project_windows: ProjectWindows,
    /// The project file's `[sandbox]`, taken out of its layer: it may only tighten.
    pub project_sandbox: Option<super::sandbox::SandboxFile>,
    /// The project file's `[mcp_servers.NAME] sandbox = true`s (they only tighten).
    pub project_mcp_sandboxed: Vec<super::mcp::ProjectSandboxed>,
}

/// Paths of the user and project config files for these overrides, and whether the user file
/// must exist (it was named explicitly).
pub fn config_paths(o: &Overrides, env: &dyn Env) -> (PathBuf, bool, PathBuf) {
    let explicit = o
        .config_file
        .clone()
        .or_else(|| env.var("SAYSO_CONFIG").map(PathBuf::from));
    let required = explicit.is_some();
    let user = explicit.unwrap_or_else(|| Dirs::from_env(env).user_config_file());
    (user, required, o.cwd.join(".sayso").join("config.toml"))
}

/// The user layer, then the project layer (unless it is the same file), the latter narrowed;
/// the warnings about what was dropped from it, and its context windows.
pub(super) fn read_layers(o: &Overrides, env: &dyn Env) -> Result<ReadLayers, ConfigError> {
    let (user_path, required, project_path) = config_paths(o, env);
    let mut warnings = Vec::new();
    let mut layers = Vec::new();
    let mut project_windows = ProjectWindows::default();
    let mut project_sandbox = None;
    let mut project_mcp_sandboxed = Vec::new();
    if let Some(l) = read_layer(&user_path, required)? {
        layers.push(l);
    }
    let same_file =
        std::fs::canonicalize(&project_path).ok() == std::fs::canonicalize(&user_path).ok();
    if !same_file && let Some(mut l) = read_layer(&project_path, false)? {
        project_mcp_sandboxed = super::mcp::take_project_sandboxed(&mut l);
        warnings.extend(project::narrow(
            &mut l,
            layers.first().map(|u: &Layer| &u.file),
        ));
        project_windows = project::take_windows(&mut l)?;
        project_sandbox = l.file.sandbox.take();
        l.project = true;
        layers.push(l);
    }
    Ok(ReadLayers {
        layers,
        warnings,
        project_windows,
        project_sandbox,
        project_mcp_sandboxed,
    })
}

/// One file, read only when it resolves to a regular file outside `/proc`, `/sys` and `/dev`
/// (`secrets::own_files`): a project's `.sayso/config.toml -> /proc/self/environ` is an error
/// naming the reason, never text to parse (and show in an error message).
fn read_layer(path: &Path, required: bool) -> Result<Option<Layer>, ConfigError> {
    let io = |source| ConfigError::Io {
        path: path.to_owned(),
        source,
    };
    let source = match own_files::read(path, &[]) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|e| io(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?,
        Err(Refused::Missing) if !required => return Ok(None),
        Err(Refused::Missing) => {
            let e = std::fs::metadata(path).err();
            return Err(io(e.unwrap_or_else(|| std::io::ErrorKind::NotFound.into())));
        }
        Err(Refused::Refused(why)) => return Err(io(std::io::Error::other(why))),
    };
    let file =
        toml::from_str::<FileConfig>(&source).map_err(|e| syntax_error(path, &source, &e))?;
    Ok(Some(Layer {
        path: path.to_owned(),
        source,
        file,
        project: false,
    }))
}

/// The layers merged key by key, a higher layer winning.
pub(super) fn merge(layers: &[Layer]) -> FileConfig {
    layers
        .iter()
        .fold(FileConfig::default(), |acc, l| acc.merge(l.file.clone()))
}

/// Where keys were set, for error messages: the highest layer that mentions a key.
#[derive(Clone, Copy)]
pub(super) struct Origins<'a> {
    layers: &'a [Layer],
}

impl<'a> Origins<'a> {
    pub fn new(layers: &'a [Layer]) -> Self {
        Self { layers }
    }

    /// The same without the project layer: for values the project file cannot have set.
    pub fn without_project(self) -> Self {
        match self.layers.split_last() {
            Some((last, rest)) if last.project => Self { layers: rest },
            _ => self,
        }
    }

    /// The file and line that set `table.key`; no file means the command line or environment.
    pub fn origin(&self, table: &str, key: &str) -> (PathBuf, Option<usize>) {
        for l in self.layers.iter().rev() {
            if let Some(line) = find_key_line(&l.source, table, key) {
                return (l.path.clone(), Some(line));
            }
        }
        (PathBuf::from("(command line or environment)"), None)
    }

    /// An [`ConfigError::Invalid`] for `table.key`, pointing where it was set.
    pub fn invalid(&self, table: &str, key: &str, message: String) -> ConfigError {
        let (origin, line) = self.origin(table, key);
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
    }
}
