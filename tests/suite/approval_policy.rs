//! The approval policy through the real binary: modes by tool kind, `[[approvals.rules]]` from
//! the user's and the project's config, and `sayso approvals`. What is checked is what runs
//! (files on disk) and what the model is told (the tool messages it receives).

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::fixture::sse::tool_call_reply as call_reply;
use crate::support::fixture::{Fixture, Reply, sse};
use crate::support::shell;
use crate::support::tool_messages;
use crate::support::{home_with, run, sayso};

/// One reply calling `calls`, then "done"; runs `sayso -p ARGS go` in a home with `config`.
async fn one_batch(
    calls: &[(String, &'static str, Value)],
    config: &str,
    project: Option<&str>,
    args: &[&str],
) -> (Fixture, tempfile::TempDir, crate::support::Output) {
    let fx = Fixture::start().await;
    let refs: Vec<(&str, &str, &Value)> =
        calls.iter().map(|(i, n, a)| (i.as_str(), *n, a)).collect();
    fx.push(call_reply(&refs));
    fx.push(Reply::Stream(sse::text_reply(&["done"])));
    let h = home_with(&fx.base_url(), config);
    if let Some(p) = project {
        std::fs::create_dir_all(h.path().join(".sayso")).unwrap();
        std::fs::write(h.path().join(".sayso/config.toml"), p).unwrap();
    }
    let mut cmd = sayso(h.path());
    cmd.arg("-p").args(args).arg("go");
    let out = run(cmd).await;
    (fx, h, out)
}

const ALLOW_TOUCH: &str = r#"
[[approvals.rules]]
tool = "run_command"
match = "touch *"
decision = "allow"
"#;

#[tokio::test]
async fn an_allow_rule_runs_a_command_headless_but_not_a_compound_one_it_does_not_cover() {
    let (fx, h, out) = one_batch(
        &[
            shell("c1", "touch made"),
            shell("c2", "touch also && rm made"),
        ],
        ALLOW_TOUCH,
        None,
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(h.path().join("made").exists(), "the allowed command ran");
    assert!(!h.path().join("also").exists(), "the compound one did not");
    let messages = tool_messages(&fx.requests()[1].body);
    assert_eq!(messages[0].0, "c1");
    assert!(
        messages[1]
            .1
            .starts_with("Approval required for `run_command`"),
        "{messages:?}"
    );
}

#[tokio::test]
async fn a_deny_rule_refuses_even_in_trust_mode_and_tells_the_model_which_rule() {
    let config = r#"
[[approvals.rules]]
tool = "run_command"
match = "rm *"
decision = "deny"
"#;
    let (fx, h, out) = one_batch(
        &[
            shell("c1", "touch a && rm -f keep.txt"),
            shell("c2", "touch b"),
        ],
        config,
        None,
        &["--approval-mode", "trust"],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !h.path().join("a").exists(),
        "no part of a denied command ran"
    );
    assert!(h.path().join("b").exists(), "trust runs the rest unasked");
    let messages = tool_messages(&fx.requests()[1].body);
    let config_file = h.path().join("config/sayso/config.toml");
    assert_eq!(
        messages[0].1,
        format!(
            "The call was denied by the approval rule `run_command match \"rm *\" → deny` ({}:6); do not retry it, find another way.",
            config_file.display()
        )
    );
}

#[tokio::test]
async fn a_project_file_may_tighten_but_never_loosen() {
    let project = r#"
[[approvals.rules]]
tool = "run_command"
match = "touch *"
decision = "deny"

[[approvals.rules]]
tool = "run_command"
match = "echo *"
decision = "allow"
"#;
    let (fx, h, out) = one_batch(
        &[shell("c1", "touch made"), shell("c2", "echo hi")],
        ALLOW_TOUCH,
        Some(project),
        &[],
    )
    .await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "ignoring an `allow` rule: a project config may only add `ask` and `deny` rules"
        ),
        "{}",
        out.stderr
    );
    assert!(
        !h.path().join("made").exists(),
        "the project's deny beats the user's allow"
    );
    let messages = tool_messages(&fx.requests()[1].body);
    assert!(
        messages[0].1.contains("denied by the approval rule"),
        "{messages:?}"
    );
    assert!(
        messages[1].1.starts_with("Approval required"),
        "the project's allow was dropped: {messages:?}"
    );
}

#[tokio::test]
async fn strict_mode_asks_for_reads_outside_the_project() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "s3cret\n").unwrap();
    let read = |id: &str, path: &str| {
        (
            id.to_owned(),
            "read_file",
            json!({"filepath": path, "start_line": null, "end_line": null}),
        )
    };
    let (fx, h, out) = one_batch(
        &[
            read("c1", "inside.txt"),
            read("c2", secret.to_str().unwrap()),
        ],
        "",
        None,
        &["--approval-mode", "strict"],
    )
    .await;
    let _ = h;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let messages = tool_messages(&fx.requests()[1].body);
    assert!(
        !messages[0].1.starts_with("Approval required"),
        "{messages:?}"
    );
    assert!(
        messages[1].1.contains("a read outside the project"),
        "{messages:?}"
    );
    assert!(!messages[1].1.contains("s3cret"));

    // The same read in balanced mode runs: strictness is the mode's.
    let (fx, _h, out) = one_batch(&[read("c1", secret.to_str().unwrap())], "", None, &[]).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        tool_messages(&fx.requests()[1].body)[0]
            .1
            .contains("s3cret")
    );
}

#[tokio::test]
async fn sayso_approvals_lists_the_policy_with_where_each_rule_was_written() {
    let h = home_with("http://127.0.0.1:9/v1", ALLOW_TOUCH);
    std::fs::create_dir_all(h.path().join(".sayso")).unwrap();
    std::fs::write(
        h.path().join(".sayso/config.toml"),
        "[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"touch /etc/*\"\ndecision = \"deny\"\n",
    )
    .unwrap();
    let mut cmd = sayso(h.path());
    cmd.args([
        "approvals",
        "--approval-mode",
        "suggest",
        "--allowed-tools",
        "read_file",
    ]);
    let out = run(cmd).await;
    assert_eq!(out.code, 0, "{}", out.stderr);
    let user = h.path().join("config/sayso/config.toml");
    let project = h.path().join(".sayso/config.toml");
    assert_eq!(
        out.stdout,
        format!(
            "approval mode: suggest — like balanced, but every edit asks with its diff and is accepted one at a time\n\
             never ask (--allowed-tools, chat.allowed_tools): read_file\n\
             rules, most specific first:\n  \
             `run_command match \"touch /etc/*\" → deny`  {}:1\n  \
             `run_command match \"touch *\" → allow`  {}:6\n\
             allow rules: a command of several parts (`a && b`, `a; b`, `a | b`…) runs unasked only \
             when a rule allows every part, and leaves the sandbox (or reaches the network) only \
             when every part's rule says `sandbox = false` (or `network = true`): the most \
             confined part wins; in strict mode allow rules do not apply\n",
            project.display(),
            user.display()
        )
    );
}

#[tokio::test]
async fn a_bad_mode_or_rule_is_a_clear_error() {
    let h = home_with("http://127.0.0.1:9/v1", "");
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "--approval-mode", "yolo", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("`yolo` is not a mode: trust, auto, balanced, suggest or strict"),
        "{}",
        out.stderr
    );

    let h = home_with(
        "http://127.0.0.1:9/v1",
        "\n[[approvals.rules]]\ntool = \"run_command\"\ndecision = \"sometimes\"\n",
    );
    let mut cmd = sayso(h.path());
    cmd.args(["-p", "hi"]);
    let out = run(cmd).await;
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("config.toml:6"), "{}", out.stderr);
    assert!(
        out.stderr.contains("use allow, ask or deny"),
        "{}",
        out.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_the_tui_a_rule_saved_from_the_modal_is_written_and_asks_no_more() {
    let fx = Fixture::start().await;
    let first = shell("c1", "touch one");
    fx.push(call_reply(&[(first.0.as_str(), first.1, &first.2)]));
    let second = shell("c2", "touch two");
    fx.push(call_reply(&[(second.0.as_str(), second.1, &second.2)]));
    fx.push(Reply::Stream(sse::text_reply(&["Touched twice."])));
    let tui = crate::support::tui::Tui::start(&fx.base_url(), &[]);
    tui.ready().await;
    tui.send("touch the files").await;
    tui.wait_for_modal("[s] save a rule").await;
    tui.keys(&["s"]);
    let screen = tui.wait_for_modal("match = \"touch one\"").await;
    assert!(
        screen.contains("[2] `run_command match \"touch *\" → allow`"),
        "{screen}"
    );
    tui.keys(&["2"]);
    let screen = tui.wait_for("Touched twice.").await;
    assert!(screen.contains("saved the rule"), "{screen}");
    let config = std::fs::read_to_string(tui.root_path().join("config/sayso/config.toml")).unwrap();
    assert!(
        config.ends_with(
            "\n# saved from an approval in sayso\n[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"touch *\"\ndecision = \"allow\"\n"
        ),
        "{config}"
    );
    // The second call ran without a modal, and says which rule ran it.
    assert!(
        screen.contains("ran unasked: the rule `run_command match \"touch *\" → allow`"),
        "{screen}"
    );
    let messages = tool_messages(&fx.requests()[2].body);
    assert_eq!(messages.len(), 2);
    assert!(
        messages.iter().all(|(_, m)| m.starts_with("`touch")),
        "{messages:?}"
    );
    tui.keys(&["C-d"]);
    assert_eq!(tui.exit_code().await, 0);
}
