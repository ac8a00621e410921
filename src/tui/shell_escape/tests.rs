use super::*;

fn esc(command: &str, share: bool) -> Escape {
    Escape {
        command: command.into(),
        share,
    }
}

#[test]
fn bangs_parse_into_commands() {
    let cases: &[(&str, Option<Result<Escape, ()>>)] = &[
        ("!ls -la", Some(Ok(esc("ls -la", false)))),
        ("  ! echo hi ", Some(Ok(esc("echo hi", false)))),
        ("!!git status", Some(Ok(esc("git status", true)))),
        ("!", Some(Err(()))),
        ("!!  ", Some(Err(()))),
        ("hello !ls", None),
        ("/help", None),
    ];
    for (line, want) in cases {
        let got = parse(line).map(|r| r.map_err(|_| ()));
        assert_eq!(&got, want, "{line:?}");
    }
}

fn done(command: &str, share: bool, stdout: &str, code: i32) -> Done {
    Done {
        escape: esc(command, share),
        result: Ok(ShellOutcome {
            exit_code: Some(code),
            stdout: stdout.into(),
            ..Default::default()
        }),
    }
}

#[test]
fn a_private_command_shows_a_block_and_shares_nothing() {
    let d = done("echo hi", false, "hi\n", 0);
    assert_eq!(
        d.block(),
        "! (not sent to the model) $ echo hi\nhi\n[exit 0]"
    );
    assert_eq!(d.shared(), None);
}

#[test]
fn a_shared_command_gives_the_model_its_output_capped() {
    let d = done("echo hi", true, "hi\n", 3);
    let shared = d.shared().unwrap();
    assert!(
        shared.contains("$ echo hi\n```\nhi\n```\n(exit 3)"),
        "{shared}"
    );
    let big = done("yes", true, &"y\n".repeat(SHARED_MAX), 0);
    let shared = big.shared().unwrap();
    assert!(shared.len() < SHARED_MAX + 500, "{}", shared.len());
    assert!(shared.contains("more bytes not shown"), "the cut is said");
}

#[test]
fn shared_blocks_go_before_the_next_message() {
    assert_eq!(with_shared(&[], "hi"), "hi");
    assert_eq!(with_shared(&["A".into(), "B".into()], "hi"), "A\n\nB\n\nhi");
}

#[test]
fn secrets_are_scrubbed_from_the_block_and_the_shared_text() {
    let secret = "sk-bang-test-abcdef0123456789";
    crate::secrets::register(&[crate::secrets::Secret::new("$BANG_KEY", secret)], &[]);
    let d = done("env", true, &format!("KEY={secret}\n"), 0);
    assert!(!d.block().contains(secret));
    assert!(!d.shared().unwrap().contains(secret));
}

#[tokio::test]
async fn a_command_runs_in_the_project_directory_with_stderr_and_its_exit() {
    let dir = tempfile::tempdir().unwrap();
    let runner = Runner {
        sandbox: std::sync::Arc::new(Sandbox::off()),
        cwd: dir.path().to_path_buf(),
        env: ChildEnv::default(),
    };
    let d = runner
        .run(
            esc("pwd; echo oops >&2; exit 4", false),
            &CancellationToken::new(),
        )
        .await;
    let block = d.block();
    let here = std::fs::canonicalize(dir.path()).unwrap();
    assert!(block.contains(&here.display().to_string()), "{block}");
    assert!(block.contains("oops"), "{block}");
    assert!(block.ends_with("[exit 4]"), "{block}");
}
