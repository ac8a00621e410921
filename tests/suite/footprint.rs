//! sayso's own footprint in the model's window, checked against what the real binary sends:
//! `tools::offer::measure` counts exactly the system message and `tools` array of a request.

use std::collections::HashMap;

use pretty_assertions::assert_eq;
use sayso::config::{Config, Overrides};
use sayso::tools::offer::{self, DEFAULT_FOOTPRINT_BUDGET_CHARS};

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{home_with, run, sayso};

#[tokio::test]
async fn the_measured_footprint_is_what_the_first_request_carries() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["ok"])));
    let home = home_with(&fx.base_url(), "");
    let mut cmd = sayso(home.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);

    // The same configuration the binary read (the user config in the private home).
    let env: HashMap<String, String> = ["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"]
        .iter()
        .zip(["config", "state", "data"])
        .map(|(var, dir)| (var.to_string(), home.path().join(dir).display().to_string()))
        .collect();
    let overrides = Overrides {
        cwd: home.path().to_path_buf(),
        ..Overrides::default()
    };
    let config = Config::load(&overrides, &env).expect("the config loads");
    let setup = sayso::tools::configured::build(&config).expect("the tools set up");
    // The environment block the binary sent: its directory, today's date.
    let cwd = std::fs::canonicalize(home.path()).unwrap();
    let now = sayso::session::live::rfc3339(std::time::SystemTime::now());
    let environment = sayso::agent::instructions::environment(&cwd, &now[..10]);
    let measured = offer::measure(&setup, &config.system_prompt, &environment);

    let body = &fx.requests()[0].body;
    let sent_system = body["messages"][0]["content"].as_str().unwrap_or_default();
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(
        (
            sent_system.chars().count(),
            body["tools"].to_string().chars().count()
        ),
        (measured.system_chars, measured.tools_chars)
    );
    assert!(measured.total() <= DEFAULT_FOOTPRINT_BUDGET_CHARS);
}
