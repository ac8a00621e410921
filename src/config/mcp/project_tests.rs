//! A project file's `[mcp_servers.NAME] sandbox = true` through [`Config::load`]: it tightens
//! the user's stdio server; it cannot loosen one, add one, or sandbox an HTTP server.

use std::collections::HashMap;

use crate::config::{Config, Overrides};

/// The user's servers: `plain` (stdio, no sandbox key), `boxed` (stdio, `sandbox = true`),
/// `remote` (HTTP).
const USER: &str = "[mcp_servers.plain]\ncommand = \"srv\"\n\
                    [mcp_servers.boxed]\ncommand = \"srv\"\nsandbox = true\n\
                    [mcp_servers.remote]\nurl = \"http://127.0.0.1:1/mcp\"\n";

/// The config loaded with `project` as the project file: (each server's name and sandbox,
/// the warnings).
fn load(project: &str) -> (Vec<(String, bool)>, Vec<String>) {
    let home = tempfile::tempdir().unwrap();
    let user = home.path().join("cfg/sayso/config.toml");
    let proj = home.path().join("proj/.sayso/config.toml");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::create_dir_all(proj.parent().unwrap()).unwrap();
    std::fs::write(&user, USER).unwrap();
    std::fs::write(&proj, project).unwrap();
    let env: HashMap<String, String> = [
        ("HOME".to_owned(), home.path().display().to_string()),
        (
            "XDG_CONFIG_HOME".to_owned(),
            home.path().join("cfg").display().to_string(),
        ),
    ]
    .into_iter()
    .collect();
    let o = Overrides {
        cwd: home.path().join("proj"),
        ..Overrides::default()
    };
    let c = Config::load(&o, &env).unwrap();
    let servers = c
        .tools
        .mcp_servers
        .iter()
        .map(|s| (s.name.clone(), s.sandbox))
        .collect();
    let warnings = c
        .warnings
        .iter()
        .map(|w| w.replace(&proj.display().to_string(), "P"))
        .collect();
    (servers, warnings)
}

fn sandboxed(servers: &[(String, bool)]) -> Vec<&str> {
    servers
        .iter()
        .filter(|(_, s)| *s)
        .map(|(n, _)| n.as_str())
        .collect()
}

#[test]
fn a_project_may_sandbox_a_server_and_never_unsandbox_one() {
    let cases: &[(&str, &[&str], &[&str])] = &[
        ("", &["boxed"], &[]),
        (
            "[mcp_servers.plain]\nsandbox = true\n",
            &["boxed", "plain"],
            &[],
        ),
        (
            "[mcp_servers.boxed]\nsandbox = false\n",
            &["boxed"],
            &["P:1: ignoring `mcp_servers.boxed`"],
        ),
        (
            "[mcp_servers.plain]\nsandbox = true\ncommand = \"other\"\n",
            &["boxed", "plain"],
            &["P:1: ignoring `mcp_servers.plain`"],
        ),
        (
            "[mcp_servers.remote]\nsandbox = true\n",
            &["boxed"],
            &["P:2: ignoring `mcp_servers.remote.sandbox`: `remote` is an HTTP server"],
        ),
        (
            "[mcp_servers.added]\nsandbox = true\n",
            &["boxed"],
            &["P:2: ignoring `mcp_servers.added.sandbox`: your config has no MCP server `added`"],
        ),
    ];
    for (project, want, warned) in cases {
        let (servers, warnings) = load(project);
        assert_eq!(sandboxed(&servers), *want, "{project}");
        assert_eq!(servers.len(), 3, "a project added a server: {project}");
        assert_eq!(warnings.len(), warned.len(), "{project}: {warnings:?}");
        for (w, start) in warnings.iter().zip(*warned) {
            assert!(w.starts_with(start), "{project}: {w}");
        }
    }
}
