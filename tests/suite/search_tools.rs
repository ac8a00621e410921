//! `file_search` and `grep_search` end to end: the fixture server streams the calls, the real
//! engine runs the tools in a temp project with a `.gitignore`, and we assert the exact tool
//! messages the model received (and what the chat pane was told to show).
//!
//! The engine is headless with no approver: a call that needed approval would be rejected, so
//! these tests also show that both tools run without asking.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pretty_assertions::assert_eq;
use sayso::agent::{Agent, AgentSettings, Event, EventSink, TurnEnd};
use sayso::provider::SharedModel;
use sayso::tools::builtin::file_search::FileSearch;
use sayso::tools::builtin::grep_search::GrepSearch;
use sayso::tools::lifecycle::orchestrator::{Engine, EngineSetup};
use sayso::tools::policy::approval::{Interaction, Mode};
use sayso::tools::registry::{Registry, Source};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::support::client;
use crate::support::fixture::sse::tool_call_reply as tool_calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::pairs;

/// A small project: sources, docs, a `.gitignore` excluding `target/`, `node_modules/` and
/// `*.log`, files under those, a hidden directory and a binary file.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files: &[(&str, &[u8])] = &[
        (".gitignore", b"target/\nnode_modules/\n*.log\n"),
        ("Cargo.toml", b"[package]\nname = \"demo\"\n"),
        (
            "src/main.rs",
            b"fn main() {\n    // TODO: parse --config\n    run();\n}\n",
        ),
        (
            "src/config.rs",
            b"pub fn load() {}\n// TODO: cache the config\n",
        ),
        ("src/ui/button.test.ts", b"it('renders', () => {});\n"),
        ("docs/guide.md", b"# Guide\nTODO: write the guide\n"),
        ("target/debug/main.rs", b"// TODO: generated\n"),
        ("node_modules/pkg/index.js", b"// TODO: vendored\n"),
        ("build.log", b"TODO: log line\n"),
        (".cache/notes.txt", b"TODO: hidden\n"),
        ("assets/logo.bin", b"TODO\0\x01\x02\x03"),
    ];
    for (path, content) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    dir
}

struct Harness {
    fx: Fixture,
    agent: Agent,
    _dir: tempfile::TempDir,
}

async fn harness() -> Harness {
    let fx = Fixture::start().await;
    let dir = project();
    let mut registry = Registry::default();
    registry.register(Arc::new(FileSearch), Source::Builtin);
    registry.register(Arc::new(GrepSearch), Source::Builtin);
    let c = client(&fx.base_url());
    let engine = Engine::new(EngineSetup {
        registry: Arc::new(registry),
        active: ["file_search", "grep_search"].map(String::from).into(),
        allowed: BTreeSet::new(),
        mode: Mode::Balanced.into(),
        interaction: Interaction::Headless,
        judge: None,
        cwd: dir.path().to_path_buf(),
        approver: None,
        rules: Default::default(),
        ctx: Default::default(),
    });
    let agent = Agent::new(
        c,
        engine,
        SharedModel::new("m"),
        AgentSettings {
            system_prompt: "sys".into(),
            instructions: Default::default(),
            max_turns: 5,
            auto_submit_success: true,
            auto_submit_errors: true,
            default_tools_chosen: true,
            text_tool_calls: true,
            user_config: Default::default(),
        },
        Default::default(),
    );
    Harness {
        fx,
        agent,
        _dir: dir,
    }
}

impl Harness {
    fn cwd(&self) -> &Path {
        self._dir.path()
    }

    /// Runs one user turn in which the model makes `calls`, then answers "done". Returns the
    /// tool messages of the second request, (tool_call_id, content), and the engine's
    /// `ToolOutput` displays.
    async fn run(
        &mut self,
        calls: &[(&str, &str, Value)],
    ) -> (Vec<(String, String)>, Vec<Option<String>>) {
        self.fx.push(tool_calls(calls));
        self.fx.push(Reply::Stream(sse::text_reply(&["done"])));
        let (tx, mut rx) = EventSink::channel();
        let end = tokio::time::timeout(
            Duration::from_secs(60),
            self.agent.send("search", &tx, &CancellationToken::new()),
        )
        .await
        .expect("the turn finishes");
        assert_eq!(end, TurnEnd::Completed);
        let mut displays = Vec::new();
        while let Ok(e) = rx.try_recv() {
            if let Event::ToolOutput { display, .. } = e {
                displays.push(display);
            }
        }
        let requests = self.fx.requests();
        let messages = requests.last().unwrap().body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| {
                (
                    m["tool_call_id"].as_str().unwrap().to_owned(),
                    m["content"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        (messages, displays)
    }
}

fn fs(query: &str, max: Option<u64>) -> Value {
    json!({"query": query, "max_results": max})
}

fn grep(query: &str, is_regexp: Option<bool>, include: Option<&str>) -> Value {
    json!({"query": query, "is_regexp": is_regexp, "include_pattern": include})
}

#[tokio::test]
async fn file_search_lists_matching_files_and_never_ignored_ones() {
    let mut h = harness().await;
    let (messages, displays) = h
        .run(&[
            ("c1", "file_search", fs("**/*.rs", None)),
            ("c2", "file_search", fs("**/*.test.*", None)),
            ("c3", "file_search", fs("**", Some(3))),
            ("c4", "file_search", fs("**/*.js", None)),
            ("c5", "file_search", fs("Cargo.toml", None)),
        ])
        .await;
    assert_eq!(
        messages,
        pairs(&[
            (
                "c1",
                "Found 2 files for `**/*.rs`:\nsrc/config.rs\nsrc/main.rs"
            ),
            (
                "c2",
                "Found 1 file for `**/*.test.*`:\nsrc/ui/button.test.ts"
            ),
            (
                "c3",
                "Found 6 files for `**` (showing the first 3):\n\
                 Cargo.toml\nassets/logo.bin\ndocs/guide.md\n\
                 3 more not shown; narrow the query or raise max_results (at most 1000)"
            ),
            ("c4", "No files match `**/*.js`"),
            ("c5", "Found 1 file for `Cargo.toml`:\nCargo.toml"),
        ])
    );
    assert_eq!(
        displays,
        [
            Some("Found 2 files for `**/*.rs`".to_string()),
            Some("Found 1 file for `**/*.test.*`".to_string()),
            Some("Found 6 files for `**`".to_string()),
            Some("No files match `**/*.js`".to_string()),
            Some("Found 1 file for `Cargo.toml`".to_string()),
        ]
    );
}

#[tokio::test]
async fn grep_search_reports_path_line_text_and_never_ignored_hidden_or_binary_files() {
    let mut h = harness().await;
    let (messages, displays) = h
        .run(&[
            ("g1", "grep_search", grep("TODO", None, None)),
            ("g2", "grep_search", grep("--config", None, None)),
            ("g3", "grep_search", grep("-{2}conf", Some(true), None)),
            ("g4", "grep_search", grep("todo", None, Some("src/**/*.rs"))),
            ("g5", "grep_search", grep("fn \\w+\\(\\)", Some(true), None)),
            ("g6", "grep_search", grep("nowhere", None, None)),
        ])
        .await;
    assert_eq!(
        messages,
        pairs(&[
            (
                "g1",
                "3 matches in 3 files for `TODO`:\n\
                 docs/guide.md:2: TODO: write the guide\n\
                 src/config.rs:2: // TODO: cache the config\n\
                 src/main.rs:2: // TODO: parse --config"
            ),
            (
                "g2",
                "1 match in 1 file for `--config`:\nsrc/main.rs:2: // TODO: parse --config"
            ),
            (
                "g3",
                "1 match in 1 file for `-{2}conf`:\nsrc/main.rs:2: // TODO: parse --config"
            ),
            (
                "g4",
                "2 matches in 2 files for `todo`:\n\
                 src/config.rs:2: // TODO: cache the config\n\
                 src/main.rs:2: // TODO: parse --config"
            ),
            (
                "g5",
                "2 matches in 2 files for `fn \\w+\\(\\)`:\n\
                 src/config.rs:1: pub fn load() {}\n\
                 src/main.rs:1: fn main() {"
            ),
            ("g6", "No matches for `nowhere`"),
        ])
    );
    assert_eq!(
        displays,
        [
            Some("3 matches in 3 files for `TODO`".to_string()),
            Some("1 match in 1 file for `--config`".to_string()),
            Some("1 match in 1 file for `-{2}conf`".to_string()),
            Some("2 matches in 2 files for `todo`".to_string()),
            Some("2 matches in 2 files for `fn \\w+\\(\\)`".to_string()),
            Some("No matches for `nowhere`".to_string()),
        ]
    );
}

#[tokio::test]
async fn bad_arguments_come_back_as_error_messages_naming_the_problem() {
    let mut h = harness().await;
    let (messages, _) = h
        .run(&[
            ("e1", "file_search", fs("", None)),
            ("e2", "file_search", fs("src/[a", None)),
            ("e3", "grep_search", grep("", None, None)),
            ("e4", "grep_search", grep("fn (", Some(true), None)),
            ("e5", "grep_search", grep("x", None, Some("{a,b"))),
            ("e6", "file_search", fs("*", Some(0))),
        ])
        .await;
    let expected_regex_error = {
        let e = messages[3].1.clone();
        assert!(
            e.starts_with("Invalid regular expression `fn (`: ") && e.contains("unclosed group"),
            "{e}"
        );
        e
    };
    assert_eq!(
        messages,
        pairs(&[
            ("e1", "`query` is required and cannot be empty"),
            (
                "e2",
                "Invalid glob pattern `src/[a`: unclosed character class; missing ']'"
            ),
            ("e3", "`query` is required and cannot be empty"),
            ("e4", expected_regex_error.as_str()),
            (
                "e5",
                "Invalid include_pattern `{a,b`: unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"
            ),
            ("e6", "`max_results` must be at least 1, got 0"),
        ])
    );
}

#[tokio::test]
async fn a_file_created_after_gitignore_rules_is_found_only_when_not_ignored() {
    let mut h = harness().await;
    std::fs::write(h.cwd().join("src/new.rs"), "// TODO: new\n").unwrap();
    std::fs::write(h.cwd().join("src/new.log"), "// TODO: new log\n").unwrap();
    let (messages, _) = h
        .run(&[
            ("n1", "file_search", fs("src/new.*", None)),
            ("n2", "grep_search", grep("TODO: new", None, None)),
        ])
        .await;
    assert_eq!(
        messages,
        pairs(&[
            ("n1", "Found 1 file for `src/new.*`:\nsrc/new.rs"),
            (
                "n2",
                "1 match in 1 file for `TODO: new`:\nsrc/new.rs:1: // TODO: new"
            ),
        ])
    );
}
