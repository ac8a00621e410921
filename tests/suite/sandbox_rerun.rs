//! Issue 22, item 4 — approvals and the sandbox together, against the real binary and the
//! real sandbox (bubblewrap here; CI installs it): a command the user approved still cannot
//! write outside the project; the sandbox's denial is recognised, and sayso offers — through
//! the approval modal, once, showing what was denied — to rerun that same command outside the
//! sandbox. Headless, nobody can accept that offer: the model gets the failure and a line
//! saying so. An allow rule the user wrote with `sandbox = false` runs its command unconfined
//! the first time.
//!
//! "Outside" is really outside: sayso gets `TMPDIR` pointing at a private directory (the
//! system temp directory would be writable inside), and the target lies in neither that nor
//! the project. Each test also checks the file is absent before the command, so a pass cannot
//! come from a file left behind.

use std::path::PathBuf;

use serde_json::json;

use crate::support::controller::{self, Script, response};
use crate::support::fixture::sse::tool_call_reply as calls;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::tui::{Tui, quote};
use crate::support::{home_with, result_of, run, sayso};

/// A private place beside sayso's home: the temp directory sayso is given, a directory outside
/// both it and the project, and the command that writes there (and says so when it did).
struct Aside {
    dir: tempfile::TempDir,
}

impl Aside {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for d in ["tmp", "outside"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        Self { dir }
    }

    fn tmp(&self) -> PathBuf {
        self.dir.path().join("tmp")
    }

    fn target(&self) -> PathBuf {
        self.dir.path().join("outside/target.txt")
    }

    /// Creates the target, then prints a word only a run that created it prints (no
    /// redirection, so allow rules can cover it).
    fn command(&self) -> String {
        format!(
            "touch {} && echo wrote-outside",
            quote(self.target().display())
        )
    }
}

/// Allow rules covering [`Aside::command`] (`touch *` and `echo *`), each with `extra`.
fn allow_rules(extra: &str) -> String {
    ["touch *", "echo *"]
        .iter()
        .map(|m| {
            format!("[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"{m}\"\ndecision = \"allow\"\n{extra}")
        })
        .collect()
}

/// The command's own output is in `result` (a failure quotes the command, which names the
/// word too, but never on a line of its own).
fn wrote(result: &str) -> bool {
    result.lines().any(|l| l.trim() == "wrote-outside")
}

fn run_command(id: &str, cmd: &str) -> Reply {
    calls(&[(id, "run_command", json!({ "cmd": cmd }))])
}

/// In the TUI: the user accepts the command; inside the sandbox it fails; the modal offers
/// the rerun outside, naming the denial; Accept reruns it outside: the file is written and the
/// tool message the model gets is the rerun's success.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_command_is_offered_a_rerun_outside_and_accept_runs_it_there() {
    let aside = Aside::new();
    let fx = Fixture::start().await;
    fx.push(run_command("c1", &aside.command()));
    fx.push(Reply::Stream(sse::text_reply(&["All done."])));
    let config = aside.dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "model = \"m\"\n[provider]\nbase_url = \"{}\"\nmax_retries = 0\n[judge]\nenabled = false\n",
            fx.base_url()
        ),
    )
    .unwrap();
    let tmp = aside.tmp();
    let config_arg = config.display().to_string();
    let tui = Tui::start_unconfigured(
        &[("TMPDIR", tmp.to_str().unwrap())],
        &["-c", &config_arg, "--sandbox", "workspace-write"],
    );
    tui.ready().await;
    assert!(!aside.target().exists());
    tui.send("write the file outside").await;

    tui.wait_for_modal("Approval needed").await;
    tui.keys(&["Enter"]);
    let screen = tui
        .wait_for_modal("Run it again outside the sandbox, once?")
        .await;
    assert!(
        screen.contains("The sandbox denied a write to"),
        "the modal names the denial:\n{screen}"
    );
    assert!(
        screen.contains("outside/target.txt (outside"),
        "the modal shows what was denied, and why:\n{screen}"
    );
    assert!(
        screen.contains("outside the sandbox this once"),
        "Always accept is Accept here:\n{screen}"
    );
    assert!(!aside.target().exists(), "the sandbox let it write");
    assert_eq!(
        fx.requests().len(),
        1,
        "the call ended before the rerun ask"
    );

    tui.keys(&["Enter"]);
    tui.wait_for("All done.").await;
    assert!(aside.target().exists(), "the rerun outside did not write");
    let result = result_of(&fx, "c1");
    assert!(wrote(&result), "{result}");
    assert!(
        !result.contains("Read-only file system"),
        "the rerun's result is the call's: {result}"
    );
}

/// A headless run in a home where the model's command is allowed (trust mode, or balanced
/// with an allow rule): the command runs confined, the sandbox denies the write, and the model
/// is told no one can approve a rerun outside; nothing is written.
#[tokio::test]
async fn headless_a_denied_command_is_a_rejection_and_nothing_is_written() {
    let allow = allow_rules("");
    for (how, config, args) in [
        ("trust", "", &["--approval-mode", "trust"][..]),
        ("balanced with an allow rule", allow.as_str(), &[][..]),
    ] {
        let aside = Aside::new();
        let fx = Fixture::start().await;
        fx.push(run_command("c1", &aside.command()));
        fx.push(Reply::Stream(sse::text_reply(&["done"])));
        let home = home_with(
            &fx.base_url(),
            &format!("[judge]\nenabled = false\n{config}"),
        );
        let mut cmd = sayso(home.path());
        cmd.env("TMPDIR", aside.tmp())
            .args(["--sandbox", "workspace-write", "-p"])
            .args(args)
            .arg("go");
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{how}: {}", out.stderr);
        let result = result_of(&fx, "c1");
        assert!(
            result.contains("Read-only file system"),
            "{how}: the failure goes back: {result}"
        );
        assert!(
            result.contains("no one can approve a rerun outside the sandbox"),
            "{how}: {result}"
        );
        assert!(!wrote(&result), "{how}: {result}");
        assert!(!aside.target().exists(), "{how}: the sandbox let it write");
    }
}

/// An allow rule the user wrote with `sandbox = false` runs its command outside the sandbox
/// the first time, with no offer; the same command without the rule is denied.
#[tokio::test]
async fn an_allow_rule_with_sandbox_false_runs_the_command_unconfined() {
    for unsandboxed in [true, false] {
        let aside = Aside::new();
        let fx = Fixture::start().await;
        fx.push(run_command("c1", &aside.command()));
        fx.push(Reply::Stream(sse::text_reply(&["done"])));
        let rules = allow_rules(if unsandboxed { "sandbox = false\n" } else { "" });
        let home = home_with(
            &fx.base_url(),
            &format!("[judge]\nenabled = false\n{rules}"),
        );
        let mut cmd = sayso(home.path());
        cmd.env("TMPDIR", aside.tmp())
            .args(["--sandbox", "workspace-write", "-p", "go"]);
        let out = run(cmd).await;
        assert_eq!(out.code, 0, "{}", out.stderr);
        let result = result_of(&fx, "c1");
        assert_eq!(
            wrote(&result),
            unsandboxed,
            "sandbox = false: {unsandboxed}: {result}"
        );
        assert_eq!(aside.target().exists(), unsandboxed, "{result}");
    }
}

/// `--approvals stdio`: the rerun is a second request for the call (`rerun-1-c1`) naming the
/// denial, printed after its own `approval_requested`; `allow` reruns the command outside.
/// (The controller runs sayso with the test's own temp directory, so the target lies in the
/// cargo target's temp directory: outside that and the project.)
#[tokio::test]
async fn the_control_protocol_asks_for_the_rerun_with_its_denial() {
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    assert!(
        !outside.path().starts_with(std::env::temp_dir()),
        "the target must lie outside the temp directory sayso may write"
    );
    let target = outside.path().join("target.txt");
    let cmd = format!("touch {} && echo wrote-outside", quote(target.display()));
    let fx = Fixture::start().await;
    fx.push(run_command("c1", &cmd));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let home = home_with(&fx.base_url(), "[judge]\nenabled = false\n");
    let script: Script = Box::new(|v| {
        if v["type"] == "control_request" {
            vec![response(
                v["request_id"].as_str().unwrap(),
                "allow",
                json!({}),
            )]
        } else {
            Vec::new()
        }
    });
    let args = ["--approvals", "stdio", "--sandbox", "workspace-write"];
    let run = controller::drive(home.path(), &args, script, false).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let requests: Vec<&serde_json::Value> = run
        .events
        .iter()
        .filter(|e| e["type"] == "control_request")
        .collect();
    assert_eq!(requests.len(), 2, "{:?}", run.events);
    assert_eq!(requests[0]["request_id"], "apr-c1");
    assert_eq!(requests[0]["request"]["rerun"], serde_json::Value::Null);
    assert_eq!(requests[1]["request_id"], "rerun-1-c1");
    assert_eq!(requests[1]["request"]["call_id"], "c1");
    let rerun = &requests[1]["request"]["rerun"];
    let what = rerun["what"].as_str().unwrap_or_default();
    assert!(what.starts_with("a write to "), "{what}");
    assert_eq!(rerun["kind"], "write");
    let path = rerun["path"].as_str().unwrap_or_default();
    assert!(path.ends_with("/target.txt"), "{path}");
    // Each request after its own announcement.
    let kinds: Vec<&str> = run
        .events
        .iter()
        .filter_map(|e| e["type"].as_str())
        .collect();
    let asked: Vec<usize> = (0..kinds.len())
        .filter(|i| kinds[*i] == "approval_requested")
        .collect();
    let printed: Vec<usize> = (0..kinds.len())
        .filter(|i| kinds[*i] == "control_request")
        .collect();
    assert_eq!(asked.len(), 2, "{kinds:?}");
    assert!(
        asked[0] < printed[0] && printed[0] < asked[1] && asked[1] < printed[1],
        "{kinds:?}"
    );
    assert!(target.exists(), "the rerun outside did not write");
    let result = result_of(&fx, "c1");
    assert!(wrote(&result), "{result}");
}

/// Issue 37 item 3: the rerun modal offers `[s]`: the narrowest rule that would have run the
/// command (`sandbox = false`), shown as TOML; saving it reruns the command outside, says
/// where it was written (file:line), writes it to the config, and the same command next runs
/// outside the sandbox without asking (it would fail inside: the file is outside).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rerun_modal_saves_the_rule_that_would_have_run_the_command() {
    let outside = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let target = outside.path().join("target.txt");
    // A plain path, so the rule's pattern is the command as written.
    let touch = format!("touch {}", target.display());
    let fx = Fixture::start().await;
    fx.push(run_command("c1", &touch));
    fx.push(run_command("c2", &touch));
    fx.push(Reply::Stream(sse::text_reply(&["All done."])));
    let tui = Tui::start(&fx.base_url(), &["--sandbox", "workspace-write"]);
    tui.ready().await;
    tui.send("touch it twice").await;
    tui.wait_for_modal("Approval needed").await;
    tui.keys(&["Enter"]);
    let screen = tui
        .wait_for_modal("Run it again outside the sandbox, once?")
        .await;
    assert!(
        screen.contains("[s] save a rule to your config (`sandbox = false`)"),
        "{screen}"
    );
    assert!(!target.exists(), "the sandbox let it write");
    tui.keys(&["s"]);
    // The list of rules (the hint above already says `sandbox = false`).
    let screen = tui
        .wait_for_modal("Save a rule to your config, then run it again")
        .await;
    assert!(
        screen.contains("    sandbox = false"),
        "the TOML preview lifts the sandbox:\n{screen}"
    );
    assert!(
        screen.contains(&format!("match = \"{touch}\"")),
        "the TOML preview names the exact command:\n{screen}"
    );
    tui.keys(&["Enter"]);
    let screen = tui.wait_for("All done.").await;
    assert!(target.exists(), "the rerun outside did not write");
    let config_file = tui.root_path().join("config/sayso/config.toml");
    let config = std::fs::read_to_string(&config_file).unwrap();
    let block = format!(
        "[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"{touch}\"\ndecision = \"allow\"\nsandbox = false\n"
    );
    assert!(config.ends_with(&block), "{config}");
    let line = config
        .lines()
        .position(|l| l == "[[approvals.rules]]")
        .map(|i| i + 1)
        .unwrap();
    assert!(screen.contains("saved the rule"), "{screen}");
    assert!(
        screen.contains(&format!("config.toml:{line}")),
        "the file:line is said:\n{screen}"
    );
    // The second call ran outside, unasked: inside, touching the file outside fails.
    let second = result_of(&fx, "c2");
    assert!(second.contains("succeeded"), "{second}");
    assert_eq!(fx.requests().len(), 3);
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0);
}
