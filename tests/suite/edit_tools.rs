//! `edit_file` and `delete_file` end to end: the fixture server streams the model's tool calls,
//! the real engine runs them in a temp project, and we assert the files on disk, the approval
//! requests (with their previews) and the exact tool messages the model receives.

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};

use pretty_assertions::assert_eq;
use sayso::agent::{Agent, AgentSettings, EventSink, TurnEnd};
use sayso::provider::SharedModel;
use sayso::tools::builtin::{create_file, delete_file, edit_file, read_file};
use sayso::tools::lifecycle::orchestrator::{Engine, EngineSetup};
use sayso::tools::lifecycle::requests::{ApprovalRequest, UserChoice};
use sayso::tools::policy::approval::{Interaction, Mode};
use sayso::tools::registry::{Registry, Source};
use sayso::tools::tool::{Kind, Preview, SimpleTool, Tool};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::support::client;
use crate::support::fixture::sse::tool_call_reply as tool_calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::{pairs, tool_messages};

fn edit_args(path: &str, edits: serde_json::Value) -> String {
    json!({"filepath": path, "edits": edits, "explanation": null}).to_string()
}

fn one_edit(path: &str, old: &str, new: &str) -> String {
    edit_args(
        path,
        json!([{"oldText": old, "newText": new, "replaceAll": null}]),
    )
}

fn path_arg(path: &str) -> String {
    json!({"filepath": path}).to_string()
}

fn read_args(path: &str) -> String {
    json!({"filepath": path, "start_line": null, "end_line": null}).to_string()
}

/// What one approval request showed the user.
#[derive(Debug, Clone, PartialEq)]
struct Asked {
    tool: String,
    cmd_string: String,
    prompt: String,
    preview: Option<Preview>,
}

struct Harness {
    fx: Fixture,
    agent: Agent,
    asked: Arc<Mutex<Vec<Asked>>>,
    dir: tempfile::TempDir,
}

/// A temp project with `src/lib.rs` and `notes/old.txt`, and an engine offering read_file,
/// create_file, edit_file, delete_file (and `extra`).
async fn harness(
    mode: Mode,
    interaction: Interaction,
    choices: Vec<UserChoice>,
    extra: Vec<Arc<dyn Tool>>,
) -> Harness {
    let fx = Fixture::start().await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::create_dir_all(dir.path().join("notes")).unwrap();
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("notes/old.txt"), "obsolete\nnotes\n").unwrap();
    let mut registry = Registry::default();
    let tools: Vec<Arc<dyn Tool>> = vec![
        Arc::new(read_file::ReadFile),
        Arc::new(create_file::CreateFile),
        Arc::new(edit_file::EditFile),
        Arc::new(delete_file::DeleteFile),
    ];
    let mut active = BTreeSet::new();
    for t in tools {
        active.insert(t.name().to_owned());
        registry.register(t, Source::Builtin);
    }
    for t in extra {
        active.insert(t.name().to_owned());
        registry.register(t, Source::Library);
    }
    let (tx, mut rx) = mpsc::unbounded_channel::<ApprovalRequest>();
    let asked: Arc<Mutex<Vec<Asked>>> = Arc::default();
    let record = asked.clone();
    let mut choices = VecDeque::from(choices);
    tokio::spawn(async move {
        while let Some(req) = rx.recv().await {
            record.lock().unwrap().push(Asked {
                tool: req.ask.tool.clone(),
                cmd_string: req.ask.cmd_string.clone(),
                prompt: req.ask.prompt.clone(),
                preview: req.ask.preview.clone(),
            });
            let _ = req
                .reply
                .send(choices.pop_front().unwrap_or(UserChoice::Cancel));
        }
    });
    let c = client(&fx.base_url());
    let engine = Engine::new(EngineSetup {
        registry: Arc::new(registry),
        active,
        allowed: BTreeSet::new(),
        mode: mode.into(),
        interaction,
        judge: None,
        cwd: dir.path().to_path_buf(),
        approver: Some(tx),
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
            max_turns: 6,
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
        asked,
        dir,
    }
}

impl Harness {
    async fn send(&mut self, text: &str) -> TurnEnd {
        let (tx, _rx) = EventSink::channel();
        self.agent.send(text, &tx, &CancellationToken::new()).await
    }

    /// The tool messages of request `n` (0-based): (tool_call_id, content).
    fn tool_messages(&self, n: usize) -> Vec<(String, String)> {
        tool_messages(&self.fx.requests()[n].body)
    }

    fn file(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).unwrap()
    }

    fn asked(&self) -> Vec<Asked> {
        self.asked.lock().unwrap().clone()
    }
}

const LIB_DIFF: &str = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,4 @@\n pub fn add(a: i32, b: i32) -> i32 {\n-    a + b\n+    // Wrapping: never panics on overflow.\n+    a.wrapping_add(b)\n }\n";

#[tokio::test]
async fn the_model_edits_one_file_and_deletes_another_after_the_user_accepts_each() {
    let mut h = harness(
        Mode::Balanced,
        Interaction::Interactive,
        vec![UserChoice::Accept, UserChoice::Accept],
        vec![],
    )
    .await;
    h.fx.push(tool_calls(&[("r1", "read_file", read_args("src/lib.rs"))]));
    h.fx.push(tool_calls(&[
        (
            "e1",
            "edit_file",
            one_edit(
                "src/lib.rs",
                "    a + b\n",
                "    // Wrapping: never panics on overflow.\n    a.wrapping_add(b)\n",
            ),
        ),
        ("d1", "delete_file", path_arg("notes/old.txt")),
    ]));
    h.fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    assert_eq!(
        h.send("use wrapping_add and drop the old notes").await,
        TurnEnd::Completed
    );

    assert_eq!(
        h.file("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    // Wrapping: never panics on overflow.\n    a.wrapping_add(b)\n}\n"
    );
    assert!(!h.dir.path().join("notes/old.txt").exists());
    assert!(h.dir.path().join("notes").is_dir());
    assert_eq!(
        h.tool_messages(2)[1..],
        pairs(&[
            (
                "e1",
                &format!(
                    "Edited src/lib.rs (+2 −1):\n- edits[0]: exact match at line 2\n````diff\n{LIB_DIFF}````"
                )
            ),
            ("d1", "Deleted notes/old.txt"),
        ])
    );
    assert_eq!(
        h.asked(),
        [
            Asked {
                tool: "edit_file".into(),
                cmd_string: "edit_file src/lib.rs".into(),
                prompt: "Apply 1 edit to `src/lib.rs`?".into(),
                preview: Some(Preview::Diff {
                    path: "src/lib.rs".into(),
                    diff: LIB_DIFF.into()
                }),
            },
            Asked {
                tool: "delete_file".into(),
                cmd_string: "delete_file notes/old.txt".into(),
                prompt: "Delete `notes/old.txt`?".into(),
                preview: Some(Preview::Text(
                    "`notes/old.txt` — 15 bytes, 2 lines\n\n   1 | obsolete\n   2 | notes".into()
                )),
            },
        ]
    );
}

#[tokio::test]
async fn a_rejected_edit_leaves_the_file_alone_and_tells_the_model() {
    let mut h = harness(
        Mode::Balanced,
        Interaction::Interactive,
        vec![UserChoice::Reject(Some("keep it simple".into()))],
        vec![],
    )
    .await;
    h.fx.push(tool_calls(&[(
        "e1",
        "edit_file",
        one_edit("src/lib.rs", "a + b", "b + a"),
    )]));
    h.fx.push(Reply::Stream(sse::text_reply(&["OK."])));
    assert_eq!(h.send("swap").await, TurnEnd::Completed);
    assert_eq!(
        h.file("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    );
    assert_eq!(
        h.tool_messages(1),
        pairs(&[(
            "e1",
            "The user rejected the execution of the edit_file tool, with the reason: \"keep it simple\""
        )])
    );
}

#[tokio::test]
async fn in_auto_mode_edits_run_unasked_deletes_still_ask_and_outside_writes_ask() {
    let outside = tempfile::tempdir().unwrap();
    let foreign = outside.path().join("foreign.txt");
    std::fs::write(&foreign, "theirs\n").unwrap();
    let foreign_shown = std::fs::canonicalize(&foreign).unwrap();
    let mut h = harness(
        Mode::Auto,
        Interaction::Interactive,
        vec![UserChoice::Accept, UserChoice::Reject(None)],
        vec![],
    )
    .await;
    h.fx.push(tool_calls(&[
        ("e1", "edit_file", one_edit("src/lib.rs", "a + b", "a - b")),
        ("d1", "delete_file", path_arg("notes/old.txt")),
        (
            "e2",
            "edit_file",
            one_edit(foreign.to_str().unwrap(), "theirs", "ours"),
        ),
    ]));
    h.fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    assert_eq!(h.send("go").await, TurnEnd::Completed);

    assert_eq!(
        h.file("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n"
    );
    assert!(!h.dir.path().join("notes/old.txt").exists());
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "theirs\n");
    let asked = h.asked();
    let who: Vec<(&str, &str)> = asked
        .iter()
        .map(|a| (a.tool.as_str(), a.prompt.as_str()))
        .collect();
    let outside_prompt = format!(
        "Apply 1 edit to `{}`, OUTSIDE the working directory?",
        foreign_shown.display()
    );
    assert_eq!(
        who,
        [
            ("delete_file", "Delete `notes/old.txt`?"),
            ("edit_file", outside_prompt.as_str()),
        ],
        "the inside edit ran unasked"
    );
    // The outside edit's preview is its diff.
    assert!(
        matches!(&asked[1].preview, Some(Preview::Diff { diff, .. }) if diff.contains("-theirs\n+ours\n")),
        "{:?}",
        asked[1].preview
    );
    assert_eq!(
        h.tool_messages(1),
        pairs(&[
            (
                "e1",
                "Edited src/lib.rs (+1 −1):\n- edits[0]: exact match at line 2\n````diff\n--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n pub fn add(a: i32, b: i32) -> i32 {\n-    a + b\n+    a - b\n }\n````"
            ),
            ("d1", "Deleted notes/old.txt"),
            (
                "e2",
                "The user rejected the execution of the edit_file tool"
            ),
        ])
    );
}

#[tokio::test]
async fn headless_auto_mode_rejects_deletes_and_outside_writes_without_asking() {
    let outside = tempfile::tempdir().unwrap();
    let foreign = outside.path().join("foreign.txt");
    std::fs::write(&foreign, "theirs\n").unwrap();
    let mut h = harness(Mode::Auto, Interaction::Headless, vec![], vec![]).await;
    h.fx.push(tool_calls(&[
        ("e1", "edit_file", one_edit("src/lib.rs", "a + b", "a * b")),
        ("d1", "delete_file", path_arg("notes/old.txt")),
        (
            "e2",
            "edit_file",
            one_edit(foreign.to_str().unwrap(), "theirs", "ours"),
        ),
    ]));
    h.fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    assert_eq!(h.send("go").await, TurnEnd::Completed);
    assert!(h.asked().is_empty());
    assert!(h.file("src/lib.rs").contains("a * b"));
    assert!(h.dir.path().join("notes/old.txt").exists());
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), "theirs\n");
    let msgs = h.tool_messages(1);
    let outside_text = format!(
        "Approval required for `edit_file` but sayso is running non-interactively: `{}` is OUTSIDE the working directory. Only a user can approve this call.",
        std::fs::canonicalize(&foreign).unwrap().display()
    );
    assert_eq!(
        msgs[1..],
        pairs(&[
            (
                "d1",
                "Approval required for `delete_file` but sayso is running non-interactively; rerun with --auto or --allowed-tools"
            ),
            ("e2", &outside_text),
        ])
    );
}

/// A tool standing for "someone else edits the file": appends a line, no approval.
fn someone_else() -> Arc<dyn Tool> {
    Arc::new(
        SimpleTool::new(
            "someone_else",
            "Another process edits src/lib.rs",
            Kind::Other,
        )
        .run(|inv| async move {
            let p = inv.cwd.join("src/lib.rs");
            let mut s = std::fs::read_to_string(&p).unwrap();
            s.push_str("// touched\n");
            std::fs::write(&p, s).unwrap();
            Ok("touched".into())
        }),
    )
}

#[tokio::test]
async fn failed_edits_explain_themselves_to_the_model_and_change_nothing() {
    // One Accept: delete_file asks even in auto mode (protect), then fails.
    let mut h = harness(
        Mode::Auto,
        Interaction::Interactive,
        vec![UserChoice::Accept],
        vec![someone_else()],
    )
    .await;
    std::fs::write(
        h.dir.path().join("src/dup.rs"),
        "fn a() {\n    init();\n}\n\nfn b() {\n    init();\n}\n",
    )
    .unwrap();
    h.fx.push(tool_calls(&[
        ("r1", "read_file", read_args("src/lib.rs")),
        ("x1", "someone_else", "{}".into()),
        // Stale: the file changed since the model read it.
        ("e1", "edit_file", one_edit("src/lib.rs", "a + b", "b + a")),
        // Ambiguous.
        ("e2", "edit_file", one_edit("src/dup.rs", "    init();\n", "    setup();\n")),
        // Not found; the second edit of the call fails, so the first is not applied either.
        (
            "e3",
            "edit_file",
            edit_args(
                "src/dup.rs",
                json!([
                    {"oldText": "fn a() {", "newText": "fn alpha() {", "replaceAll": null},
                    {"oldText": "fn c() {\n    init();\n}", "newText": "", "replaceAll": null}
                ]),
            ),
        ),
        // Overlapping edits.
        (
            "e4",
            "edit_file",
            edit_args(
                "src/dup.rs",
                json!([
                    {"oldText": "fn a() {\n    init();", "newText": "fn a() {\n    start();", "replaceAll": null},
                    {"oldText": "    init();\n}\n\nfn b", "newText": "}\n\nfn b", "replaceAll": null}
                ]),
            ),
        ),
        ("e5", "edit_file", one_edit("src/missing.rs", "x", "y")),
        ("d1", "delete_file", path_arg("src")),
    ]));
    h.fx.push(Reply::Stream(sse::text_reply(&["I will re-read."])));
    assert_eq!(h.send("fix things").await, TurnEnd::Completed);

    assert_eq!(
        h.file("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n// touched\n"
    );
    assert_eq!(
        h.file("src/dup.rs"),
        "fn a() {\n    init();\n}\n\nfn b() {\n    init();\n}\n"
    );
    let msgs = h.tool_messages(1);
    let got: Vec<(&str, &str)> = msgs
        .iter()
        .map(|(id, c)| (id.as_str(), c.as_str()))
        .filter(|(id, _)| *id != "r1")
        .collect();
    assert_eq!(
        got,
        [
            ("x1", "touched"),
            (
                "e1",
                "`src/lib.rs` changed since you last read it (someone else edited it): read it again with read_file, then retry your edit. No changes were made to the file."
            ),
            (
                "e2",
                "Could not edit `src/dup.rs`: edits[0] (oldText beginning `init();`) failed: oldText matches 2 places in the file (exact match):\n  - line 2: init();\n  - line 6: init();\nInclude more surrounding lines in oldText so that it matches exactly one place, or set replaceAll: true to change every occurrence.\nNo changes were made to the file."
            ),
            (
                "e3",
                "Could not edit `src/dup.rs`: edits[1] (oldText beginning `fn c() {`) failed: oldText was not found in the file (tried exact, whitespace-normalised, indentation-tolerant, block anchor matching).\nThe closest text is at lines 1–3 (1 of 3 lines equal ignoring indentation):\n     1 | fn alpha() {\n     2 |     init();\n     3 | }\nRe-read the file with read_file and copy the text to replace exactly as it is in the file, including whitespace and indentation.\n(Line numbers count the earlier edits of this call as applied.)\nNo changes were made to the file."
            ),
            (
                "e4",
                "Could not edit `src/dup.rs`: edits[1] (oldText beginning `init();`) failed: its oldText (lines 2–5: init();) overlaps the text that edits[0] changes. Edits in one call must not overlap: merge them into a single edit.\nNo changes were made to the file."
            ),
            (
                "e5",
                "`src/missing.rs` does not exist; use create_file to create a new file"
            ),
            (
                "d1",
                "Cannot delete `src`: it is a directory; delete_file deletes single files only"
            ),
        ]
    );
    // Only delete_file asked (protect); every edit ran its checks unasked in auto mode.
    let asked: Vec<String> = h.asked().into_iter().map(|a| a.tool).collect();
    assert_eq!(asked, ["delete_file"]);
}

#[tokio::test]
async fn after_reading_again_the_edit_succeeds_and_a_crlf_file_stays_crlf() {
    let mut h = harness(
        Mode::Auto,
        Interaction::Interactive,
        vec![],
        vec![someone_else()],
    )
    .await;
    let win = h.dir.path().join("win.txt");
    std::fs::write(&win, "[section]\r\nkey = old\r\n").unwrap();
    h.fx.push(tool_calls(&[
        ("r1", "read_file", read_args("src/lib.rs")),
        ("x1", "someone_else", "{}".into()),
        ("r2", "read_file", read_args("src/lib.rs")),
        (
            "e1",
            "edit_file",
            one_edit("src/lib.rs", "// touched\n", ""),
        ),
        (
            "e2",
            "edit_file",
            one_edit("win.txt", "key = old\n", "key = new\nother = 1\n"),
        ),
    ]));
    h.fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    assert_eq!(h.send("clean up").await, TurnEnd::Completed);
    assert_eq!(
        h.file("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    );
    assert_eq!(
        std::fs::read(&win).unwrap(),
        b"[section]\r\nkey = new\r\nother = 1\r\n"
    );
    let msgs = h.tool_messages(1);
    assert!(
        msgs[3].1.starts_with("Edited src/lib.rs (+0 −1):"),
        "{}",
        msgs[3].1
    );
    assert_eq!(
        msgs[4].1,
        "Edited win.txt (+2 −1):\n- edits[0]: exact match at line 2\n````diff\n--- a/win.txt\n+++ b/win.txt\n@@ -1,2 +1,3 @@\n [section]\n-key = old\n+key = new\n+other = 1\n````"
    );
}

#[tokio::test]
async fn always_accept_on_a_protected_path_accepts_that_call_only() {
    let mut h = harness(
        Mode::Balanced,
        Interaction::Interactive,
        vec![UserChoice::AlwaysAccept, UserChoice::Reject(None)],
        vec![],
    )
    .await;
    std::fs::create_dir_all(h.dir.path().join(".git")).unwrap();
    std::fs::write(h.dir.path().join(".git/config"), "[core]\n").unwrap();
    h.fx.push(tool_calls(&[
        (
            "e1",
            "edit_file",
            one_edit(".git/config", "[core]", "[core]\n\tbare = false"),
        ),
        ("e2", "edit_file", one_edit("src/lib.rs", "a + b", "a * b")),
    ]));
    h.fx.push(Reply::Stream(sse::text_reply(&["Done."])));
    assert_eq!(h.send("go").await, TurnEnd::Completed);
    let asked = h.asked();
    assert_eq!(asked.len(), 2, "the second edit still asks: {asked:?}");
    assert!(h.file(".git/config").contains("bare = false"));
    assert!(h.file("src/lib.rs").contains("a + b"), "rejected");
}
