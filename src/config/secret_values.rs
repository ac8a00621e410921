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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use crate::config::{Config, Overrides};

    #[test]
    fn keys_headers_of_every_provider_and_mcp_secrets_are_collected() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join("config.toml");
        std::fs::write(
            &file,
            r#"
[provider]
base_url = "http://127.0.0.1:9/v1"
headers = { "X-Team" = "team-header-value" }
[providers.other]
base_url = "http://127.0.0.1:9/v1"
api_key_env = "OTHER_KEY"
headers = { "X-Other" = "other-header-value" }
[mcp_servers.remote]
url = "http://127.0.0.1:9/mcp"
headers_env = { Authorization = "REMOTE_AUTH" }
[mcp_servers.local]
command = "true"
env = { TOKEN = "local-token-value", LEVEL = "warn" }
secret_env = ["TOKEN"]
"#,
        )
        .unwrap();
        let env: HashMap<String, String> = [
            ("HOME", home.path().display().to_string()),
            ("OPENAI_API_KEY", "sk-default-key-1".into()),
            ("OTHER_KEY", "sk-other-key-22".into()),
            ("REMOTE_AUTH", "Bearer remote-333".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let overrides = Overrides {
            config_file: Some(file),
            cwd: home.path().to_path_buf(),
            ..Overrides::default()
        };
        let config = Config::load(&overrides, &env).expect("loads");
        let mut got: Vec<(String, String)> = config
            .secrets
            .iter()
            .map(|s| (s.label.clone(), s.value.clone()))
            .collect();
        got.sort();
        let want = [
            ("$OPENAI_API_KEY", "sk-default-key-1"),
            ("$OTHER_KEY", "sk-other-key-22"),
            ("$REMOTE_AUTH", "Bearer remote-333"),
            ("header X-Other", "other-header-value"),
            ("header X-Team", "team-header-value"),
            ("mcp_servers.local.env.TOKEN", "local-token-value"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(l, v)| ((*l).to_owned(), (*v).to_owned()))
            .collect();
        assert_eq!(got, want);
        for name in ["OPENAI_API_KEY", "OTHER_KEY", "REMOTE_AUTH"] {
            assert!(config.secret_env.iter().any(|n| n == name), "{name}");
        }
        assert!(!format!("{config:?}").contains("sk-other-key-22"));
    }
}
