//! Issue 23, item 6 — the editor and the shell, end to end in tmux against the real binary:
//! Ctrl+G runs `$EDITOR` (a script that rewrites the file) on the real terminal and the input
//! takes back what it saved, which is then what the model gets; `!cmd` shows its output and
//! sends nothing to the model; `!!cmd` puts the command and its output in the next request; a
//! `!` command that writes outside the project is stopped by the sandbox; Ctrl+R finds what
//! was sent in a previous run (the history file is 0600).
//!
//! "Outside" is really outside: sayso gets `TMPDIR` pointing at a private directory (the
//! system temp directory would be writable inside), and the target lies in neither that nor
//! the project.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::{Tui, quote};

/// A private place beside sayso's home: its config file, the temp directory it is given, a
/// directory outside both that and the project, and scripts.
struct Aside {
    dir: tempfile::TempDir,
}

impl Aside {
    fn new(fx: &Fixture) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for d in ["tmp", "outside"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        std::fs::write(
            dir.path().join("config.toml"),
            format!(
                "model = \"m\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 0\n[judge]\nenabled = false\n",
                fx.base_url()
            ),
        )
        .unwrap();
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// sayso with this config, `TMPDIR` and `env`, in the workspace-write sandbox.
    fn start(&self, env: &[(&str, &str)]) -> Tui {
        let tmp = self.path("tmp").display().to_string();
        let config = self.path("config.toml").display().to_string();
        let mut all = vec![("TMPDIR", tmp.as_str())];
        all.extend_from_slice(env);
        Tui::start_unconfigured(&all, &["-c", &config, "--sandbox", "workspace-write"])
    }

    /// An executable script `name` with `body`.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.path(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }
}

/// The content of the last message of request `i`.
fn last_message(fx: &Fixture, i: usize) -> String {
    let reqs = fx.requests();
    let messages = reqs[i].body["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Every message of every request, as one text.
fn all_sent(fx: &Fixture) -> String {
    fx.requests()
        .iter()
        .map(|r| r.body["messages"].to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_g_edits_the_input_in_the_editor_on_the_terminal_and_the_model_gets_the_result() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Edited text received."])));
    let aside = Aside::new(&fx);
    let seen = aside.path("seen.txt");
    // What the editor saw (the text, whether it has the terminal), then the new text.
    let editor = aside.script(
        "editor.sh",
        &format!(
            "for f; do :; done\n{{ echo \"$1\"; cat \"$f\"; echo; }} > {seen}\n[ -t 0 ] && [ -t 1 ] && echo on-a-tty >> {seen}\nprintf 'rewritten by the editor\\n' > \"$f\"\n",
            seen = quote(seen.display())
        ),
    );
    let editor = format!("{} --wait", quote(editor.display()));
    let tui = aside.start(&[("EDITOR", &editor)]);
    tui.ready().await;
    tui.type_text("first draft");
    tui.wait_for("first draft").await;
    tui.keys(&["C-g"]);
    // The whole TUI is drawn again (its status bar too), the editor's text in the input.
    let screen = tui
        .wait_until("the TUI drawn again", |s| {
            s.contains("rewritten by the editor") && s.contains("BALANCED")
        })
        .await;
    assert!(!screen.contains("first draft"), "{screen}");
    let seen = std::fs::read_to_string(&seen).unwrap();
    assert_eq!(
        seen, "--wait\nfirst draft\non-a-tty\n",
        "the editor got its argument, the text and the terminal"
    );
    assert_eq!(tui.pane("#{alternate_on}"), "1", "the TUI is back");
    tui.keys(&["Enter"]);
    tui.wait_for("Edited text received.").await;
    assert_eq!(last_message(&fx, 0), "rewritten by the editor");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_that_fails_leaves_the_input_and_says_so() {
    let fx = Fixture::start().await;
    let aside = Aside::new(&fx);
    let editor = aside.script("editor.sh", "printf 'lost\\n' > \"$1\"\nexit 3\n");
    let tui = aside.start(&[("VISUAL", editor.to_str().unwrap())]);
    tui.ready().await;
    tui.type_text("keep me");
    tui.wait_for("keep me").await;
    tui.keys(&["C-x", "C-e"]);
    let screen = tui.wait_for("the input is unchanged").await;
    assert!(
        screen.contains("keep me") && !screen.contains("lost"),
        "{screen}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bang_command_shows_its_output_and_the_model_never_sees_it() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["Plain reply."])));
    let aside = Aside::new(&fx);
    let tui = aside.start(&[]);
    tui.ready().await;
    tui.send("!echo private-$((40+2))").await;
    let screen = tui.wait_for("private-42").await;
    assert!(screen.contains("[exit 0]"), "{screen}");
    assert!(fx.requests().is_empty(), "nothing went to the model");
    tui.send("hello").await;
    tui.wait_for("Plain reply.").await;
    assert_eq!(last_message(&fx, 0), "hello");
    assert!(!all_sent(&fx).contains("private-42"), "{}", all_sent(&fx));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_double_bang_command_and_its_output_go_with_the_next_message() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["I see the output."])));
    let aside = Aside::new(&fx);
    let tui = aside.start(&[]);
    tui.ready().await;
    tui.send("!!echo shared-$((40+2))").await;
    tui.wait_for("shared-42").await;
    assert!(fx.requests().is_empty(), "it waits for the next message");
    tui.send("what did it print?").await;
    tui.wait_for("I see the output.").await;
    let sent = last_message(&fx, 0);
    assert!(sent.contains("$ echo shared-$((40+2))"), "{sent}");
    assert!(sent.contains("```\nshared-42\n```\n(exit 0)"), "{sent}");
    assert!(sent.ends_with("what did it print?"), "{sent}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bang_command_writing_outside_the_project_is_stopped_by_the_sandbox() {
    let fx = Fixture::start().await;
    let aside = Aside::new(&fx);
    let target = aside.path("outside/target.txt");
    let tui = aside.start(&[]);
    tui.ready().await;
    assert!(!target.exists());
    tui.send(&format!(
        "!touch {} && echo wrote-it",
        quote(target.display())
    ))
    .await;
    let screen = tui.wait_for("[exit 1]").await;
    assert!(!target.exists(), "the sandbox let it write:\n{screen}");
    assert!(screen.contains("Read-only file system"), "{screen}");
    // The project itself is writable.
    tui.send("!echo in-project > made.txt && cat made.txt")
        .await;
    tui.wait_for("[exit 0]").await;
    assert!(tui.work().join("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_r_finds_a_message_sent_in_a_previous_run() {
    let fx = Fixture::start().await;
    fx.push(Reply::Stream(sse::text_reply(&["First run reply."])));
    let tui = Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("remember the walrus").await;
    tui.wait_for("First run reply.").await;
    tui.send("!echo later").await;
    tui.wait_for("[exit 0]").await;
    let file: &Path = &tui.root_path().join("state/sayso/history.jsonl");
    let mode = std::fs::metadata(file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    let tui = tui.restart(&[]);
    tui.ready().await;
    tui.keys(&["C-r"]);
    tui.type_text("walr");
    let screen = tui.wait_for("reverse-i-search `walr`").await;
    assert!(screen.contains("remember the walrus"), "{screen}");
    // Enter accepts it into the input (nothing is sent).
    tui.keys(&["Enter"]);
    let screen = tui
        .wait_until("the search to end", |s| !s.contains("reverse-i-search"))
        .await;
    assert!(screen.contains("remember the walrus"), "{screen}");
    assert_eq!(fx.requests().len(), 1, "the accepted entry is not sent");
    // Up walks the persisted history too: the newest entry first.
    tui.keys(&["C-u", "Up"]);
    tui.wait_for("!echo later").await;
}

/// The editor owns the keyboard while it runs: what is typed goes to it, none to the TUI.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_typed_while_the_editor_runs_go_to_the_editor() {
    let fx = Fixture::start().await;
    let aside = Aside::new(&fx);
    let editor = aside.script(
        "editor.sh",
        "echo EDITOR-WAITING\nIFS= read -r line\nprintf '%s\\n' \"$line\" > \"$1\"\n",
    );
    let tui = aside.start(&[("EDITOR", editor.to_str().unwrap())]);
    tui.ready().await;
    tui.keys(&["C-g"]);
    tui.wait_for("EDITOR-WAITING").await;
    tui.type_text("typed into the editor");
    tui.keys(&["Enter"]);
    // The whole TUI is drawn again (its status bar too), with the editor's text in the input.
    let screen = tui
        .wait_until("the TUI drawn again", |s| {
            s.contains("typed into the editor") && s.contains("BALANCED")
        })
        .await;
    assert!(!screen.contains("EDITOR-WAITING"), "{screen}");
    assert!(
        fx.requests().is_empty(),
        "Enter went to the editor, not the TUI"
    );
}
