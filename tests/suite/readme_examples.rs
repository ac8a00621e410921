//! The README's "Use" examples, run as a user would type them: each line of the section's first
//! shell block goes through `sh -c` exactly as written, with `sayso` on `PATH` and only the
//! endpoint swapped for the fixture server (`OPENAI_BASE_URL`, and the example URL
//! `http://127.0.0.1:8080/v1` replaced by the fixture's). Each example's check is what its
//! comment promises. An example this file does not know fails the test, so the README cannot
//! grow an example nobody ran.

use std::path::Path;

use serde_json::Value;

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::Tui;

/// The example URL the README uses for a local server.
const EXAMPLE_URL: &str = "http://127.0.0.1:8080/v1";

/// The lines of the first ```sh block after `## Use`, as (command, comment).
fn use_examples() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split("\n## Use\n")
        .nth(1)
        .expect("README has a '## Use' section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("the Use section opens with a ```sh block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| match l.split_once(" # ") {
            Some((cmd, comment)) => (cmd.trim().to_owned(), comment.trim().to_owned()),
            None => (l.trim().to_owned(), String::new()),
        })
        .collect()
}

/// A private home with `sayso` on `PATH`, a `[providers.local]` pointing at `base_url`, and a
/// `build.log` and a `question.txt` in the working directory.
struct Home {
    dir: tempfile::TempDir,
    base_url: String,
}

impl Home {
    fn new(base_url: &str) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for d in ["bin", "config/sayso", "state", "data", "work"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_sayso"), r.join("bin/sayso")).unwrap();
        std::fs::write(
            r.join("config/sayso/config.toml"),
            format!(
                "[providers.local]\nbase_url = \"{base_url}\"\nmodel = \"local-model\"\nmax_retries = 0\n"
            ),
        )
        .unwrap();
        std::fs::write(
            r.join("work/build.log"),
            "error[E0308]: mismatched types\n  --> src/main.rs:4:18\n",
        )
        .unwrap();
        std::fs::write(r.join("work/question.txt"), "What does E0308 mean?\n").unwrap();
        Home {
            dir,
            base_url: base_url.to_owned(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `line` with `sh -c` in the working directory.
    async fn sh(&self, line: &str) -> crate::support::Output {
        let r = self.path();
        let line = line.replace(EXAMPLE_URL, &self.base_url);
        let path = format!(
            "{}:{}",
            r.join("bin").display(),
            std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into())
        );
        let mut cmd = tokio::process::Command::new("sh");
        cmd.arg("-c")
            .arg(&line)
            .env_clear()
            .env("PATH", path)
            .env("HOME", r)
            .env("LANG", "C.UTF-8")
            .env("XDG_CONFIG_HOME", r.join("config"))
            .env("XDG_STATE_HOME", r.join("state"))
            .env("XDG_DATA_HOME", r.join("data"))
            .env("OPENAI_BASE_URL", &self.base_url)
            .env("SAYSO_PROBE_PORTS", "none")
            // The example's `cargo build` needs the developer's toolchain, not the empty home's.
            .envs(toolchain_env())
            .current_dir(r.join("work"))
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        crate::support::run(cmd).await
    }
}

/// Where rustup and cargo live, from the real environment.
fn toolchain_env() -> Vec<(String, String)> {
    let home = std::env::var("HOME").unwrap_or_default();
    [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")]
        .iter()
        .map(|(var, dir)| {
            let value = std::env::var(var).unwrap_or_else(|_| format!("{home}/{dir}"));
            (var.to_string(), value)
        })
        .collect()
}

/// The last user message of a chat request.
fn last_user(body: &Value) -> String {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn chat_requests(fx: &Fixture) -> Vec<crate::support::fixture::Recorded> {
    fx.requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .collect()
}

#[tokio::test]
async fn every_use_example_does_what_its_comment_says() {
    let examples = use_examples();
    assert!(examples.len() >= 5, "too few examples found: {examples:?}");
    for (line, comment) in examples {
        let fx = Fixture::start().await;
        fx.push(Reply::Stream(sse::text_reply(&[
            "It means ",
            "what it says.",
        ])));
        let home = Home::new(&fx.base_url());
        let ctx = format!("README example `{line}` ({comment})");
        match line.as_str() {
            "sayso --demo" => {
                // The TUI: it opens in a terminal and the demo answers without any endpoint.
                let tui = Tui::start_unconfigured(&[], &["--demo"]);
                tui.ready().await;
                tui.send("hello").await;
                // The demo's tour ends in a tool call that asks for approval.
                tui.wait_for("Always accept").await;
                continue;
            }
            l if l.starts_with("sayso --demo -p ") => {
                let out = home.sh(l).await;
                assert_eq!(out.code, 0, "{ctx}: {}", out.stderr);
                assert!(!out.stdout.trim().is_empty(), "{ctx}: no reply on stdout");
                assert!(
                    chat_requests(&fx).is_empty(),
                    "{ctx}: the demo used the network"
                );
            }
            l if l.contains("< build.log") => {
                let out = home.sh(l).await;
                assert_eq!(out.code, 0, "{ctx}: {}", out.stderr);
                let reqs = chat_requests(&fx);
                assert_eq!(reqs.len(), 1, "{ctx}");
                let user = last_user(&reqs[0].body);
                assert!(user.starts_with("Explain this error"), "{ctx}: {user}");
                assert!(
                    user.contains("error[E0308]: mismatched types"),
                    "{ctx}: the piped file was not sent: {user}"
                );
                assert_eq!(out.stdout.trim(), "It means what it says.", "{ctx}");
            }
            l if l.contains("| sayso -p") && l.contains("--stdin") => {
                // A real `cargo build` in a directory with no Cargo.toml: its error is piped.
                let out = home.sh(l).await;
                assert_eq!(out.code, 0, "{ctx}: {}", out.stderr);
                let reqs = chat_requests(&fx);
                assert_eq!(reqs.len(), 1, "{ctx}");
                let user = last_user(&reqs[0].body);
                assert!(user.starts_with("Why does this fail?"), "{ctx}: {user}");
                assert!(
                    user.contains("Cargo.toml"),
                    "{ctx}: cargo's error was not sent: {user}"
                );
            }
            l if l.contains("-p - <") => {
                let out = home.sh(l).await;
                assert_eq!(out.code, 0, "{ctx}: {}", out.stderr);
                let reqs = chat_requests(&fx);
                assert_eq!(reqs.len(), 1, "{ctx}");
                assert_eq!(
                    last_user(&reqs[0].body).trim(),
                    "What does E0308 mean?",
                    "{ctx}"
                );
            }
            l if l.starts_with("OPENAI_API_KEY=") => {
                let out = home.sh(l).await;
                assert_eq!(out.code, 0, "{ctx}: {}", out.stderr);
                let reqs = chat_requests(&fx);
                assert_eq!(reqs.len(), 1, "{ctx}");
                let key = l
                    .split_whitespace()
                    .next()
                    .and_then(|w| w.strip_prefix("OPENAI_API_KEY="))
                    .unwrap();
                assert_eq!(
                    reqs[0].header("authorization"),
                    Some(format!("Bearer {key}").as_str()),
                    "{ctx}"
                );
                let model = l.split(" -m ").nth(1).unwrap().trim();
                assert_eq!(reqs[0].body["model"], model, "{ctx}");
                assert_eq!(last_user(&reqs[0].body), "What is a monad?", "{ctx}");
            }
            l if l.contains("--base-url") => {
                let out = home.sh(l).await;
                assert_eq!(out.code, 0, "{ctx}: {}", out.stderr);
                let reqs = chat_requests(&fx);
                assert_eq!(reqs.len(), 1, "{ctx}: the request did not reach --base-url");
                let model = l.split(" -m ").nth(1).unwrap().trim();
                assert_eq!(reqs[0].body["model"], model, "{ctx}");
            }
            l if l.contains("--provider local") => {
                let out = home.sh(l).await;
                assert_eq!(out.code, 0, "{ctx}: {}", out.stderr);
                let reqs = chat_requests(&fx);
                assert_eq!(reqs.len(), 1, "{ctx}");
                assert_eq!(reqs[0].body["model"], "local-model", "{ctx}");
            }
            l if l.contains("--json") => {
                // Through `jq .` as written: every line it prints parses, and the stream
                // starts a session and ends it completed with the reply.
                let out = home.sh(l).await;
                assert_eq!(out.code, 0, "{ctx}: {}", out.stderr);
                let events: Vec<Value> = serde_json::Deserializer::from_str(&out.stdout)
                    .into_iter::<Value>()
                    .map(|v| v.unwrap_or_else(|e| panic!("{ctx}: not JSON: {e}")))
                    .collect();
                assert_eq!(events.first().unwrap()["type"], "session_started", "{ctx}");
                let last = events.last().unwrap();
                assert_eq!(last["type"], "session_finished", "{ctx}");
                assert_eq!(last["status"], "completed", "{ctx}");
                assert_eq!(last["text"], "It means what it says.", "{ctx}");
            }
            other => panic!("README example `{other}` has no check in readme_examples.rs"),
        }
    }
}
