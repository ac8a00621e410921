//! `[mcp_servers.NAME]`: MCP servers whose tools are offered to the model (SPEC §8.4). Plain
//! data here, checked; starting them is `crate::mcp`. Not settable by a project file: a server
//! is a program to run (or a place to send calls), like a command tool. The one exception
//! tightens: a project's `[mcp_servers.NAME] sandbox = true` makes the user's stdio server
//! `NAME` start inside the sandbox; a project's `sandbox = false` is dropped like the rest.
//!
//! ```toml
//! [mcp_servers.github]
//! command = "github-mcp-server"        # stdio: a program and its arguments…
//! args = ["stdio"]
//! env = { GITHUB_TOOLSETS = "repos", GITHUB_TOKEN = "ghp_…" }  # added to its environment
//! secret_env = ["GITHUB_TOKEN"]        # keys of `env` whose values are secrets
//! # url = "https://example.com/mcp"    # …or streamable HTTP
//! # headers_env = { Authorization = "GITHUB_AUTH" }  # header ← the variable holding its value
//! startup_timeout = 20                 # seconds to start and answer `initialize`
//! call_timeout = 120                   # seconds per call
//! require_approval_before = true       # default: every call asks (as the mode says)
//! protect = false                      # auto mode: always ask
//! judge = true                         # auto mode: the judge may vet a call
//! allowed_tools = ["search_code"]      # never ask for these
//! sandbox = true                       # stdio: start it inside the sandbox (default false)
//! [mcp_servers.github.tools.create_issue]
//! protect = true                       # per tool: require_approval_before, protect, judge
//! ```
//!
//! Secret values (`crate::secrets`): each `headers_env` variable's value, and each `env` value
//! whose key `secret_env` names. They reach only this server, are never inherited by another
//! child, and are scrubbed from every tool's output, instructions and the session file.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::error::{ConfigError, find_key_line};
use super::layers::{Layer, Origins};

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerFile {
    pub command: Option<String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Keys of `env` whose values are secrets.
    #[serde(default)]
    pub secret_env: Vec<String>,
    pub cwd: Option<PathBuf>,
    pub url: Option<String>,
    #[serde(default)]
    pub headers_env: BTreeMap<String, String>,
    pub enabled: Option<bool>,
    pub startup_timeout: Option<u64>,
    pub call_timeout: Option<u64>,
    pub require_approval_before: Option<bool>,
    pub protect: Option<bool>,
    pub judge: Option<bool>,
    #[serde(default)]
    pub allowed_tools: Vec<String>,
    #[serde(default)]
    pub tools: BTreeMap<String, McpToolFile>,
    /// A stdio server starts inside the sandbox (`[sandbox]`, its network setting included).
    pub sandbox: Option<bool>,
}

#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpToolFile {
    pub require_approval_before: Option<bool>,
    pub protect: Option<bool>,
    pub judge: Option<bool>,
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        /// Keys of `env` whose values are secrets.
        secret_env: Vec<String>,
        cwd: Option<PathBuf>,
    },
    Http {
        url: String,
        /// Header name → the environment variable that holds its value.
        headers_env: BTreeMap<String, String>,
    },
}

/// Approval settings of a server's tools (`None`: the server's, then the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpApproval {
    pub require_approval_before: bool,
    pub protect: bool,
    pub judge: bool,
}

/// One server, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    pub name: String,
    pub transport: McpTransport,
    pub enabled: bool,
    pub startup_timeout: Duration,
    pub call_timeout: Duration,
    /// The server's settings for its tools.
    pub approval: McpApproval,
    /// Per tool (by the server's name for it), over the server's.
    pub tools: BTreeMap<String, McpToolFile>,
    /// The server's tool names that never ask.
    pub allowed_tools: Vec<String>,
    /// A stdio server starts inside the chat's sandbox (`sandbox = true`; default false).
    pub sandbox: bool,
}

impl McpServerConfig {
    /// The environment variables holding this server's secrets (`headers_env`).
    pub fn secret_vars(&self) -> Vec<String> {
        match &self.transport {
            McpTransport::Http { headers_env, .. } => headers_env.values().cloned().collect(),
            McpTransport::Stdio { .. } => Vec::new(),
        }
    }

    /// This server's secret `env` values, with their labels (`mcp_servers.NAME.env.KEY`).
    pub fn secret_values(&self) -> Vec<(String, String)> {
        match &self.transport {
            McpTransport::Stdio {
                env, secret_env, ..
            } => secret_env
                .iter()
                .filter_map(|k| {
                    let v = env.get(k)?;
                    Some((format!("mcp_servers.{}.env.{k}", self.name), v.clone()))
                })
                .collect(),
            McpTransport::Http { .. } => Vec::new(),
        }
    }

    /// The approval settings of `tool` (the server's name for it). A tool the server marks
    /// destructive is protected unless the config says otherwise.
    pub fn approval_for(&self, tool: &str, destructive: bool) -> McpApproval {
        let t = self.tools.get(tool).cloned().unwrap_or_default();
        McpApproval {
            require_approval_before: t
                .require_approval_before
                .unwrap_or(self.approval.require_approval_before),
            protect: t.protect.unwrap_or(self.approval.protect || destructive),
            judge: t.judge.unwrap_or(self.approval.judge),
        }
    }
}

/// A server name: letters, digits, `-` and `_`, no `__` (it separates server and tool).
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && !name.contains("__")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

pub(super) fn servers(
    files: &BTreeMap<String, McpServerFile>,
    origins: Origins<'_>,
) -> Result<Vec<McpServerConfig>, ConfigError> {
    files
        .iter()
        .map(|(name, f)| server(name, f, origins))
        .collect()
}

fn server(
    name: &str,
    f: &McpServerFile,
    origins: Origins<'_>,
) -> Result<McpServerConfig, ConfigError> {
    let table = format!("mcp_servers.{name}");
    let invalid = |key: &str, message: String| origins.invalid(&table, key, message);
    if !valid_name(name) {
        return Err(origins.invalid(
            "mcp_servers",
            name,
            "a server name is letters, digits, `-` and `_` (at most 32, no `__`): its tools are offered as NAME__TOOL".into(),
        ));
    }
    let transport = match (&f.command, &f.url) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                "url",
                "a server has `command` (stdio) or `url` (streamable HTTP), not both".into(),
            ));
        }
        (None, None) => {
            return Err(invalid(
                "command",
                "set `command` (a program speaking MCP on stdio) or `url` (streamable HTTP)".into(),
            ));
        }
        (Some(c), None) if c.trim().is_empty() => {
            return Err(invalid("command", "is empty".into()));
        }
        (Some(c), None) => {
            if !f.headers_env.is_empty() {
                return Err(invalid(
                    "headers_env",
                    "headers are for `url` servers; a stdio server gets `env`".into(),
                ));
            }
            if let Some(k) = f.secret_env.iter().find(|k| !f.env.contains_key(*k)) {
                return Err(invalid(
                    "secret_env",
                    format!(
                        "`{k}` is not a key of `env` (secret_env names keys of `env` whose values are secrets)"
                    ),
                ));
            }
            McpTransport::Stdio {
                command: c.clone(),
                args: f.args.clone(),
                env: f.env.clone(),
                secret_env: f.secret_env.clone(),
                cwd: f.cwd.clone(),
            }
        }
        (None, Some(u)) => {
            if f.sandbox == Some(true) {
                return Err(invalid(
                    "sandbox",
                    "the sandbox is for stdio servers (`command`), which sayso starts; an HTTP server runs elsewhere".into(),
                ));
            }
            if !(u.starts_with("http://") || u.starts_with("https://")) {
                return Err(invalid(
                    "url",
                    format!("`{u}` is not an http:// or https:// URL"),
                ));
            }
            if !f.args.is_empty()
                || !f.env.is_empty()
                || !f.secret_env.is_empty()
                || f.cwd.is_some()
            {
                return Err(invalid(
                    "args",
                    "`args`, `env`, `secret_env` and `cwd` are for stdio servers (`command`)"
                        .into(),
                ));
            }
            McpTransport::Http {
                url: u.clone(),
                headers_env: f.headers_env.clone(),
            }
        }
    };
    let seconds = |key: &str, v: Option<u64>, default: u64| match v {
        Some(0) => Err(invalid(key, "must be at least 1 (seconds)".into())),
        Some(n) => Ok(Duration::from_secs(n)),
        None => Ok(Duration::from_secs(default)),
    };
    Ok(McpServerConfig {
        name: name.to_owned(),
        transport,
        enabled: f.enabled.unwrap_or(true),
        startup_timeout: seconds("startup_timeout", f.startup_timeout, 30)?,
        call_timeout: seconds("call_timeout", f.call_timeout, 120)?,
        approval: McpApproval {
            require_approval_before: f.require_approval_before.unwrap_or(true),
            protect: f.protect.unwrap_or(false),
            judge: f.judge.unwrap_or(true),
        },
        tools: f.tools.clone(),
        allowed_tools: f.allowed_tools.clone(),
        sandbox: f.sandbox.unwrap_or(false),
    })
}

/// A project file's `[mcp_servers.NAME] sandbox = true`, where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ProjectSandboxed {
    pub name: String,
    /// `path:line`.
    pub location: String,
}

/// Takes a project file's `sandbox = true` out of each `[mcp_servers.NAME]` of `layer`: the one
/// thing a project may say about a server, since it only tightens (the server then starts
/// inside the sandbox). Everything else there — a `sandbox = false` included — stays, for the
/// narrowing to drop with a warning; a table that said only `sandbox = true` is removed.
pub(super) fn take_project_sandboxed(layer: &mut Layer) -> Vec<ProjectSandboxed> {
    let mut taken = Vec::new();
    layer.file.mcp_servers.retain(|name, f| {
        if f.sandbox != Some(true) {
            return true;
        }
        let table = format!("mcp_servers.{name}");
        let line = find_key_line(&layer.source, &table, "sandbox")
            .map(|n| format!(":{n}"))
            .unwrap_or_default();
        taken.push(ProjectSandboxed {
            name: name.clone(),
            location: format!("{}{line}", layer.path.display()),
        });
        f.sandbox = None;
        *f != McpServerFile::default()
    });
    taken
}

/// Applies the project's `sandbox = true`s to the user's servers; a warning for each that
/// names no stdio server of the user's config (nothing to tighten).
pub(super) fn tighten(servers: &mut [McpServerConfig], asked: &[ProjectSandboxed]) -> Vec<String> {
    let mut warnings = Vec::new();
    for a in asked {
        match servers.iter_mut().find(|s| s.name == a.name) {
            Some(s) if matches!(s.transport, McpTransport::Stdio { .. }) => s.sandbox = true,
            Some(_) => warnings.push(format!(
                "{}: ignoring `mcp_servers.{}.sandbox`: `{}` is an HTTP server, which sayso does not start",
                a.location, a.name, a.name
            )),
            None => warnings.push(format!(
                "{}: ignoring `mcp_servers.{}.sandbox`: your config has no MCP server `{}`",
                a.location, a.name, a.name
            )),
        }
    }
    warnings
}

#[cfg(test)]
mod project_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(valid_name("github"));
        assert!(valid_name("my-db_2"));
        assert!(!valid_name("a__b"));
        assert!(!valid_name("with space"));
        assert!(!valid_name(""));
    }

    #[test]
    fn tool_settings_fall_back_to_the_server_and_destructive_tools_are_protected() {
        let c = McpServerConfig {
            name: "s".into(),
            transport: McpTransport::Http {
                url: "http://x".into(),
                headers_env: BTreeMap::new(),
            },
            enabled: true,
            startup_timeout: Duration::from_secs(1),
            call_timeout: Duration::from_secs(1),
            approval: McpApproval {
                require_approval_before: true,
                protect: false,
                judge: true,
            },
            tools: BTreeMap::from([(
                "safe_delete".into(),
                McpToolFile {
                    protect: Some(false),
                    ..Default::default()
                },
            )]),
            allowed_tools: vec![],
            sandbox: false,
        };
        assert!(!c.approval_for("read", false).protect);
        assert!(c.approval_for("drop_table", true).protect);
        assert!(
            !c.approval_for("safe_delete", true).protect,
            "the config wins"
        );
    }

    #[test]
    fn only_a_stdio_server_may_ask_for_the_sandbox_and_it_is_off_by_default() {
        let origins = Origins::new(&[]);
        let stdio = |sandbox| McpServerFile {
            command: Some("srv".into()),
            sandbox,
            ..Default::default()
        };
        for (file, want) in [
            (stdio(None), Ok(false)),
            (stdio(Some(false)), Ok(false)),
            (stdio(Some(true)), Ok(true)),
            (
                McpServerFile {
                    url: Some("http://127.0.0.1:1/mcp".into()),
                    sandbox: Some(false),
                    ..Default::default()
                },
                Ok(false),
            ),
            (
                McpServerFile {
                    url: Some("http://127.0.0.1:1/mcp".into()),
                    sandbox: Some(true),
                    ..Default::default()
                },
                Err("mcp_servers.s.sandbox"),
            ),
        ] {
            match (server("s", &file, origins), want) {
                (Ok(c), Ok(w)) => assert_eq!(c.sandbox, w, "{file:?}"),
                (Err(e), Err(key)) => assert!(e.to_string().contains(key), "{e}"),
                (got, _) => panic!("{file:?}: {got:?}"),
            }
        }
    }
}
