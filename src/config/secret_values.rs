//! Which values of the configuration are secrets, for `crate::secrets` to keep from every tool:
//! the value of each provider key variable ([`Config::secret_env`](super::Config)), every
//! provider's `headers` values (in every file, `[provider]` and each `[providers.NAME]`), each
//! MCP `headers_env` variable's value, and the MCP `env` values `secret_env` names.
//!
//! Values come from the environment through [`Env`] (the vault's captured values, once the
//! variables were taken out at start). Nothing here prints a value: [`Secret`]'s `Debug` hides it.

use super::Env;
use super::file::FileConfig;
use super::mcp::McpServerConfig;
use crate::secrets::Secret;

/// Every secret value: of the variables `names`, the headers of `files`, the MCP servers'.
pub(super) fn collect<'a>(
    names: &[String],
    files: impl IntoIterator<Item = &'a FileConfig>,
    servers: &[McpServerConfig],
    env: &dyn Env,
) -> Vec<Secret> {
    let mut out: Vec<Secret> = names
        .iter()
        .filter_map(|n| Some(Secret::new(format!("${n}"), env.var(n)?)))
        .collect();
    for file in files {
        let providers = file.provider.iter().chain(file.providers.values());
        for headers in providers.filter_map(|p| p.headers.as_ref()) {
            out.extend(
                headers
                    .iter()
                    .map(|(k, v)| Secret::new(format!("header {k}"), v.clone())),
            );
        }
    }
    for server in servers {
        out.extend(
            server
                .secret_values()
                .into_iter()
                .map(|(label, v)| Secret::new(label, v)),
        );
    }
    out.retain(|s| !s.value.is_empty());
    out
}
