//! Shared helpers: reading the server URLs, building a client with fast retries, running a
//! streamed request to the end, and running the real `sayso` binary in an isolated home.

use std::io::Write;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use sayso::provider::{
    AssistantMessage, ChatRequest, Client, ProviderError, ProviderSettings, RetryPolicy,
    StreamDelta, StreamEvent,
};

/// Environment variable with the llama-server base URL, e.g. `http://127.0.0.1:8080/v1`.
pub const LLAMA_URL: &str = "SAYSO_TEST_LLAMA_URL";
/// Environment variable with the LLMock base URL, e.g. `http://127.0.0.1:8010/v1`.
pub const LLMOCK_URL: &str = "SAYSO_TEST_LLMOCK_URL";

/// No single run in these tests may take longer than this (a hang must fail, not block CI).
pub const RUN_LIMIT: Duration = Duration::from_secs(60);

/// The base URL in `var`, or `None` after telling the developer why `test` is skipped.
pub fn server_url(var: &str, test: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) if !url.trim().is_empty() => Some(url.trim().trim_end_matches('/').to_owned()),
        _ => {
            skip(
                test,
                &format!("{var} is not set (scripts/test starts the real servers)"),
            );
            None
        }
    }
}

/// Says why `test` does not run. Under `CI` a missing prerequisite fails the test instead: a
/// skip there would pass unseen.
pub fn skip(test: &str, why: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: {why} (CI is set: a missing prerequisite is a failure)"
    );
    notice(&format!("skipping {test}: {why}"));
}

/// Prints a line on the real stderr. Not through `eprintln!`, which the test harness captures:
/// a skipped compatibility test, or a known issue, must be visible in a normal run.
pub fn notice(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// `let url = require_url!(LLAMA_URL, "test_name");` — returns from the test when unset.
macro_rules! require_url {
    ($var:expr, $test:expr) => {
        match $crate::harness::server_url($var, $test) {
            Some(url) => url,
            None => return,
        }
    };
}

/// Fast retries (50 ms, 100 ms, 200 ms …) so fault scenarios finish quickly, and an idle
/// timeout chosen by the test.
pub fn settings(base_url: &str, idle_timeout: Duration) -> ProviderSettings {
    ProviderSettings {
        name: "real-server-test".into(),
        base_url: base_url.to_owned(),
        base_url_from: Default::default(),
        api_key: None,
        api_key_env: None,
        headers: Vec::new(),
        request_timeout: Duration::from_secs(30),
        idle_timeout,
        first_token_timeout: Duration::from_secs(30),
        connect_timeout: Duration::from_secs(10),
        retry: RetryPolicy {
            max_retries: 3,
            initial_delay: Duration::from_millis(50),
            max_delay: Duration::from_millis(400),
        },
        context_window: None,
        model_windows: Default::default(),
        window_caps: Default::default(),
    }
}

pub fn client(base_url: &str) -> Client {
    client_with_idle(base_url, Duration::from_secs(20))
}

/// A client that waits `delay` before its first retry (so a server still writing the failed
/// attempt has finished it before the retry arrives).
pub fn client_with_retry_delay(base_url: &str, delay: Duration) -> Client {
    let mut s = settings(base_url, Duration::from_secs(20));
    s.retry.initial_delay = delay;
    s.retry.max_delay = delay * 4;
    Client::new(s).expect("test settings are valid")
}

pub fn client_with_idle(base_url: &str, idle_timeout: Duration) -> Client {
    Client::new(settings(base_url, idle_timeout)).expect("test settings are valid")
}

/// A retry the stream announced.
#[derive(Debug, Clone)]
pub struct Retry {
    pub delay: Duration,
    pub error: ProviderError,
    /// Time since the request was started.
    pub at: Duration,
}

/// Everything one `stream_chat` produced.
#[derive(Debug)]
pub struct Run {
    pub deltas: Vec<StreamDelta>,
    pub retries: Vec<Retry>,
    pub result: Result<AssistantMessage, ProviderError>,
    pub elapsed: Duration,
}

impl Run {
    /// The assembled reply; panics with the error (and the retries) otherwise.
    pub fn message(&self) -> &AssistantMessage {
        match &self.result {
            Ok(m) => m,
            Err(e) => panic!("the reply failed: {e:?}\nretries: {:#?}", self.retries),
        }
    }

    pub fn error(&self) -> &ProviderError {
        match &self.result {
            Ok(m) => panic!("expected an error, got a reply: {m:#?}"),
            Err(e) => e,
        }
    }
}

/// Streams `req` to its `Finished` event and checks the event contract on the way:
/// `Finished` is last and comes exactly once, and the deltas of the last attempt (after the last
/// `Retrying`) spell out exactly the final message's text and tool calls.
pub async fn stream(client: &Client, req: &ChatRequest) -> Run {
    let started = Instant::now();
    let collect = async {
        let mut deltas = Vec::new();
        let mut retries = Vec::new();
        let mut result = None;
        let mut events = std::pin::pin!(client.stream_chat(req));
        while let Some(ev) = events.next().await {
            assert!(result.is_none(), "an event came after Finished: {ev:?}");
            match ev {
                StreamEvent::Delta(d) => deltas.push(d),
                StreamEvent::Notice(_) => {}
                StreamEvent::Retrying(sayso::provider::Retry {
                    retry,
                    max_retries,
                    delay,
                    error,
                }) => {
                    assert_eq!(
                        retry as usize,
                        retries.len() + 1,
                        "retries are numbered 1, 2, …"
                    );
                    assert!(retry <= max_retries);
                    // A new attempt starts: what the failed one showed is to be discarded.
                    deltas.clear();
                    retries.push(Retry {
                        delay,
                        error,
                        at: started.elapsed(),
                    });
                }
                StreamEvent::Finished(r) => result = Some(r),
            }
        }
        (
            deltas,
            retries,
            result.expect("the stream ended without a Finished event"),
        )
    };
    let (deltas, retries, result) = tokio::time::timeout(RUN_LIMIT, collect)
        .await
        .unwrap_or_else(|_| panic!("the stream did not finish within {RUN_LIMIT:?}"));
    let run = Run {
        deltas,
        retries,
        result,
        elapsed: started.elapsed(),
    };
    if let Ok(m) = &run.result {
        check_deltas_match(&run.deltas, m);
    }
    run
}

/// What was shown while streaming must be what the final message holds.
fn check_deltas_match(deltas: &[StreamDelta], m: &AssistantMessage) {
    let mut text = String::new();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    for d in deltas {
        match d {
            StreamDelta::Text(t) => text.push_str(t),
            StreamDelta::ToolCallStarted { index, id, name } => {
                assert_eq!(*index, calls.len(), "tool calls start in order");
                calls.push((id.clone(), name.clone(), String::new()));
            }
            StreamDelta::ToolCallArguments { index, fragment } => {
                calls
                    .get_mut(*index)
                    .unwrap_or_else(|| panic!("arguments for unstarted call {index}"))
                    .2
                    .push_str(fragment);
            }
            StreamDelta::Reasoning(_) | StreamDelta::Usage(_) => {}
        }
    }
    assert_eq!(
        text, m.content,
        "streamed text differs from the final message"
    );
    let assembled: Vec<_> = m
        .tool_calls
        .iter()
        .map(|c| (c.id.clone(), c.name.clone(), c.arguments.clone()))
        .collect();
    assert_eq!(
        calls, assembled,
        "streamed tool calls differ from the final message"
    );
}

/// The output of one `sayso` run.
pub struct Sayso {
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Sayso {
    fn from(out: Output) -> Self {
        Self {
            status: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// `--json` output, one event per line.
    pub fn json_events(&self) -> Vec<serde_json::Value> {
        self.stdout
            .lines()
            .map(|l| {
                serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {l:?}"))
            })
            .collect()
    }
}

impl std::fmt::Debug for Sayso {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}

/// Runs the real binary: `sayso -p --base-url URL -m MODEL ARGS…`, with its config, state and
/// data directories (and its working directory) in a fresh temporary directory, and without the
/// caller's OpenAI/sayso environment. `config` is written as the user config file when given.
pub async fn run_sayso(base_url: &str, model: &str, args: &[&str], config: Option<&str>) -> Sayso {
    let home = tempfile::tempdir().expect("temporary directory");
    run_sayso_in(home.path(), base_url, model, args, config).await
}

/// [`run_sayso`] in `home`, which later runs may share (saved sessions, `--continue`).
pub async fn run_sayso_in(
    home: &Path,
    base_url: &str,
    model: &str,
    args: &[&str],
    config: Option<&str>,
) -> Sayso {
    let dir = |name: &str| {
        let p = home.join(name);
        std::fs::create_dir_all(&p).expect("create a directory in the tempdir");
        p
    };
    let (config_home, state_home, data_home) = (dir("config"), dir("state"), dir("data"));
    let cache_home = dir("cache");
    if let Some(text) = config {
        write_file(&config_home.join("sayso").join("config.toml"), text);
    }
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_sayso"));
    cmd.arg("-p")
        .args(["--base-url", base_url, "-m", model])
        .args(args)
        .current_dir(home)
        .env("XDG_CONFIG_HOME", &config_home)
        .env("XDG_STATE_HOME", &state_home)
        .env("XDG_DATA_HOME", &data_home)
        .env("XDG_CACHE_HOME", &cache_home)
        .env("HOME", home)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("SAYSO_MODEL")
        .env_remove("SAYSO_CONFIG")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let out = tokio::time::timeout(RUN_LIMIT, cmd.output())
        .await
        .unwrap_or_else(|_| panic!("sayso did not finish within {RUN_LIMIT:?}"))
        .expect("sayso could be started");
    Sayso::from(out)
}

fn write_file(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a file path has a parent"))
        .expect("create the config directory");
    std::fs::write(path, text).expect("write the config file");
}
