//! An editor for the ACP tests: `node tests/acp-client/driver.mjs` (the official ACP TypeScript
//! SDK, installed by `scripts/test` into `$SAYSO_TEST_ACP_CLIENT_DIR`) spawns the real
//! `sayso acp` in a private home whose config points at the fixture, runs a scenario and logs
//! everything it received. This module builds scenarios, runs the driver and reads its log; it
//! asserts nothing about sayso's answers beyond the transport (every stdout line JSON, the
//! process gone at the end).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

/// The directory holding the installed SDK, or `None` after saying why `test` skips. In CI
/// (`CI` set) a missing SDK or `node` fails the test instead.
pub fn client_dir(test: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("SAYSO_TEST_ACP_CLIENT_DIR").map(PathBuf::from);
    let installed = dir
        .as_ref()
        .filter(|d| d.join("node_modules/@agentclientprotocol/sdk").is_dir());
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    match installed {
        Some(d) if node => Some(d.clone()),
        _ if std::env::var_os("CI").is_some() => panic!(
            "{test}: SAYSO_TEST_ACP_CLIENT_DIR must hold the ACP SDK (and node must run) in CI"
        ),
        _ => {
            eprintln!(
                "skipping {test}: SAYSO_TEST_ACP_CLIENT_DIR is not set or node is missing \
                 (scripts/test installs the ACP client SDK)"
            );
            None
        }
    }
}

/// A private home (config pointing at the fixture) with a project directory, and the driver.
pub struct Editor {
    pub home: tempfile::TempDir,
    /// The session's working directory (`home/project`).
    pub project: PathBuf,
    sdk: PathBuf,
    runs: std::cell::Cell<usize>,
}

impl Editor {
    /// `None` when the SDK is not installed (the test skips, see [`client_dir`]).
    pub fn new(test: &str, base_url: &str, extra_toml: &str) -> Option<Editor> {
        let sdk = client_dir(test)?;
        let home = crate::support::home_with(base_url, extra_toml);
        let project = home.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(home.path().join("driver")).unwrap();
        Some(Editor {
            home,
            project,
            sdk,
            runs: Default::default(),
        })
    }

    /// `rel` inside the project.
    pub fn file(&self, rel: &str) -> PathBuf {
        self.project.join(rel)
    }

    /// The project path as the editor sends it.
    pub fn cwd(&self) -> String {
        self.project.to_string_lossy().into_owned()
    }

    /// The environment `sayso acp` gets: only PATH from ours, the rest private.
    fn agent_env(&self) -> Value {
        let h = self.home.path();
        let mut env = BTreeMap::new();
        env.insert("PATH", std::env::var("PATH").unwrap_or_default());
        env.insert("HOME", h.to_string_lossy().into_owned());
        for (k, d) in [
            ("XDG_CONFIG_HOME", "config"),
            ("XDG_STATE_HOME", "state"),
            ("XDG_DATA_HOME", "data"),
            ("XDG_CACHE_HOME", "cache"),
        ] {
            env.insert(k, h.join(d).to_string_lossy().into_owned());
        }
        env.insert("SAYSO_PROBE_PORTS", "none".into());
        json!(env)
    }

    /// Runs the driver on `scenario` (its `steps`, `permissions`, `client`, `buffers`, ...) with
    /// `sayso acp ARGS` as the agent, started in the project, and returns the log.
    pub async fn run(&self, args: &[&str], scenario: Value) -> Log {
        self.run_in(&self.project, args, scenario).await
    }

    /// As [`Editor::run`], the agent process started in `dir`.
    pub async fn run_in(&self, dir: &Path, args: &[&str], mut scenario: Value) -> Log {
        let n = self.runs.get();
        self.runs.set(n + 1);
        let driver_dir = self.home.path().join("driver");
        let scenario_path = driver_dir.join(format!("scenario-{n}.json"));
        let log_path = driver_dir.join(format!("log-{n}.jsonl"));
        let stderr_path = driver_dir.join(format!("stderr-{n}.txt"));
        let mut argv = vec!["acp".to_owned()];
        argv.extend(args.iter().map(|a| a.to_string()));
        scenario["agent"] = json!({
            "command": env!("CARGO_BIN_EXE_sayso"),
            "args": argv,
            "env": self.agent_env(),
            "cwd": dir,
            "stderr": stderr_path,
        });
        std::fs::write(&scenario_path, scenario.to_string()).unwrap();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/acp-client/driver.mjs");
        let mut cmd = tokio::process::Command::new("node");
        cmd.arg(&script)
            .arg(&scenario_path)
            .arg(&log_path)
            .env("SAYSO_TEST_ACP_CLIENT_DIR", &self.sdk)
            .current_dir(self.home.path())
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true);
        let out = tokio::time::timeout(Duration::from_secs(120), cmd.output())
            .await
            .expect("the ACP driver finished within 120 s")
            .expect("node runs");
        let stderr = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        let text = std::fs::read_to_string(&log_path).unwrap_or_default();
        let events = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
            .collect();
        let log = Log {
            events,
            stderr,
            driver_stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        // SAYSO_TEST_ACP_DUMP=1 shows every run's log (with --nocapture), to see what sayso sent.
        if std::env::var_os("SAYSO_TEST_ACP_DUMP").is_some() {
            eprintln!("{}", log.dump());
        }
        assert!(
            out.status.success(),
            "the driver failed ({:?}): {}",
            out.status,
            log.dump()
        );
        log
    }
}

/// What the driver saw, one event per line of its log (see tests/acp-client/driver.mjs).
pub struct Log {
    pub events: Vec<Value>,
    /// `sayso acp`'s stderr.
    pub stderr: String,
    driver_stderr: String,
}

impl Log {
    /// The whole log for a failure message (wire messages left out unless
    /// `SAYSO_TEST_ACP_DUMP=wire`).
    pub fn dump(&self) -> String {
        let wire = std::env::var("SAYSO_TEST_ACP_DUMP").is_ok_and(|v| v == "wire");
        let mut s = String::new();
        for e in &self.events {
            if wire || (e["event"] != "recv" && e["event"] != "sent") {
                s.push_str(&e.to_string());
                s.push('\n');
            }
        }
        format!(
            "\n--- log ---\n{s}--- sayso stderr ---\n{}\n--- driver stderr ---\n{}",
            self.stderr, self.driver_stderr
        )
    }

    pub fn of(&self, event: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["event"] == event).collect()
    }

    /// The result of step `i`; panics (with the log) when it failed.
    pub fn result(&self, i: usize) -> &Value {
        match self.events.iter().find(|e| e["step"] == i) {
            Some(e) if e["event"] == "response" => &e["result"],
            _ => panic!("step {i} has no result: {}", self.dump()),
        }
    }

    /// The JSON-RPC error of step `i`; panics (with the log) when it succeeded.
    pub fn error(&self, i: usize) -> &Value {
        match self.events.iter().find(|e| e["step"] == i) {
            Some(e) if e["event"] == "error" => &e["error"],
            _ => panic!("step {i} did not fail: {}", self.dump()),
        }
    }

    /// The stop reason of prompt step `i`.
    pub fn stop_reason(&self, i: usize) -> &str {
        self.result(i)["stopReason"].as_str().unwrap_or_default()
    }

    /// Every `session/update` the client got, in order (the `update` objects).
    pub fn updates(&self) -> Vec<&Value> {
        self.of("update")
            .into_iter()
            .map(|e| &e["update"])
            .collect()
    }

    /// The updates received between the request of step `i` going out and its answer.
    pub fn updates_during(&self, i: usize) -> Vec<&Value> {
        let end = self
            .events
            .iter()
            .position(|e| e["step"] == i)
            .unwrap_or_else(|| panic!("no step {i}: {}", self.dump()));
        let start = self.events[..end]
            .iter()
            .rposition(|e| e["event"] == "response" || e["event"] == "error")
            .map_or(0, |p| p + 1);
        self.events[start..end]
            .iter()
            .filter(|e| e["event"] == "update")
            .map(|e| &e["update"])
            .collect()
    }

    /// The text pieces of updates of kind `kind` (`agent_message_chunk`, ...) among `updates`.
    pub fn chunks<'a>(updates: &[&'a Value], kind: &str) -> Vec<&'a str> {
        updates
            .iter()
            .filter(|u| u["sessionUpdate"] == kind && u["content"]["type"] == "text")
            .filter_map(|u| u["content"]["text"].as_str())
            .collect()
    }

    /// The `session/request_permission` requests with the answer the driver gave.
    pub fn permissions(&self) -> Vec<&Value> {
        self.of("permission")
    }

    /// Each tool call as the client sees it after all its updates: `tool_call` then each
    /// `tool_call_update` merged in (fields present replace the old ones), with every status
    /// seen under `statuses` and every content item ever sent under `all_content`.
    pub fn tool_calls(&self) -> Vec<Value> {
        let mut calls: Vec<Value> = Vec::new();
        for u in self.updates() {
            let kind = u["sessionUpdate"].as_str().unwrap_or_default();
            if kind != "tool_call" && kind != "tool_call_update" {
                continue;
            }
            let id = u["toolCallId"].clone();
            let at = match calls.iter().position(|c| c["toolCallId"] == id) {
                Some(i) => i,
                None => {
                    calls.push(json!({"toolCallId": id, "statuses": [], "all_content": []}));
                    calls.len() - 1
                }
            };
            let call = calls[at].as_object_mut().unwrap();
            for (k, v) in u.as_object().unwrap() {
                if v.is_null() || k == "sessionUpdate" {
                    continue;
                }
                if k == "status" {
                    call["statuses"].as_array_mut().unwrap().push(v.clone());
                }
                if k == "content" {
                    let all = call["all_content"].as_array_mut().unwrap();
                    all.extend(v.as_array().cloned().unwrap_or_default());
                }
                call.insert(k.clone(), v.clone());
            }
        }
        calls
    }

    /// The transport held: every stdout line was JSON (no logs on stdout), no step timed out,
    /// the driver did not fail, and the agent exited.
    pub fn assert_clean(&self) {
        for bad in ["not_json", "timeout", "driver_error", "stdin_error"] {
            assert!(self.of(bad).is_empty(), "{bad}: {}", self.dump());
        }
        assert_eq!(
            self.of("exit").len(),
            1,
            "the agent exited: {}",
            self.dump()
        );
    }
}

/// `initialize` and `session/new` (named `s`), the usual start of a scenario's steps.
pub fn start(cwd: &str) -> Vec<Value> {
    vec![
        json!({"op": "initialize"}),
        json!({"op": "new_session", "as": "s", "cwd": cwd}),
    ]
}

/// A text prompt step.
pub fn prompt(text: &str) -> Value {
    json!({"op": "prompt", "text": text})
}
