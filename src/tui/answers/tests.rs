use std::path::PathBuf;

use super::*;
use crate::events::answer::{InstructionFile, UndoDone};

fn done(redo: bool) -> UndoDone {
    UndoDone {
        redo,
        turns: vec![2],
        restored: vec!["a.txt".into()],
        conflicts: vec!["b.txt".into()],
        unrecoverable: vec!["big.bin".into()],
        failed: vec![("c.txt".into(), "denied".into())],
    }
}

fn row(id: &str, window: Option<u64>, current: bool) -> ModelRow {
    ModelRow {
        id: id.into(),
        window,
        current,
    }
}

#[test]
fn each_answer_reads_as_its_notice() {
    let many: Vec<String> = (1..=9).map(|i| format!("m{i}")).collect();
    let rows: Vec<(Answer, &str)> = vec![
        (
            Answer::Models(Ok(vec![
                row("small", Some(8192), false),
                row("big-model", Some(131_072), true),
                row("x", None, false),
            ])),
            "models (switch with /model NAME; * is the one in use):\n  small      8,192 tokens\n* big-model  131,072 tokens\n  x          window not listed",
        ),
        (Answer::Models(Ok(vec![])), "the server lists no models"),
        (Answer::Models(Err("refused".into())), "✗ refused"),
        (
            Answer::UnlistedModel {
                model: "gtp".into(),
                listed: many,
            },
            "✗ the endpoint does not list `gtp` among its models (m1, m2, m3, m4, m5, m6, m7, m8, …); the next request asks for it anyway — /model lists them",
        ),
        (
            Answer::Approvals {
                policy: "approval mode: balanced".into(),
                tools: vec!["read_file".into()],
                commands: vec![("run_command".into(), "ls".into())],
            },
            "approval mode: balanced\nremembered in this chat, for this mode only (a change of mode or /approvals clear forgets them):\n  tool read_file\n  run_command: ls",
        ),
        (
            Answer::Approvals {
                policy: "P".into(),
                tools: vec![],
                commands: vec![],
            },
            "P\nremembered in this chat: nothing",
        ),
        (Answer::ApprovalsCleared, "remembered approvals cleared"),
        (
            Answer::Tools {
                table: "TOOL\nread_file\n".into(),
            },
            "tools (add one to the chat with @{name}):\nTOOL\nread_file",
        ),
        (Answer::Mcp { servers: None }, crate::mcp::NONE_CONFIGURED),
        (
            Answer::Mcp {
                servers: Some("notes (stdio) — ready".into()),
            },
            "notes (stdio) — ready",
        ),
        (
            Answer::RuleSaved {
                rule: "allow run_command `ls *`".into(),
                source: "/c/config.toml:3".into(),
            },
            "saved the rule allow run_command `ls *` to /c/config.toml:3; it applies from now on",
        ),
        (
            Answer::RuleNotSaved {
                error: "read-only".into(),
            },
            "✗ could not save the rule: read-only",
        ),
        (
            Answer::ResumeFailed {
                error: "no session".into(),
            },
            "✗ no session",
        ),
        (
            Answer::Undone(done(false)),
            "undid the file changes of turn 2: a.txt (/redo re-applies them)\nleft as they are (changed since sayso's change): b.txt\ncould not write c.txt: denied\ncannot be restored (kept by hash only, or gone from the store): big.bin",
        ),
        (
            Answer::Undone(UndoDone {
                turns: vec![2, 3],
                conflicts: vec![],
                failed: vec![],
                unrecoverable: vec![],
                ..done(true)
            }),
            "re-applied the file changes of turns 2, 3: a.txt (/undo takes them back again)",
        ),
        (
            Answer::NothingToUndo { redo: true },
            "✗ nothing to redo: no undo to re-apply (new changes after an undo end its redo)",
        ),
        (
            Answer::Rewound {
                index: 1,
                text: "two".into(),
                id: "new1".into(),
                parent: "old1".into(),
                code: Some(UndoDone {
                    conflicts: vec![],
                    failed: vec![],
                    unrecoverable: vec![],
                    ..done(false)
                }),
            },
            "rewound to before message 2: the chat goes on as session new1; the conversation before the rewind stays in session old1 (/resume old1). The message is back in the input to edit and send.\nundid the file changes of turn 2: a.txt",
        ),
        (
            Answer::RewindFailed {
                error: "sessions are off".into(),
            },
            "✗ could not rewind: sessions are off",
        ),
    ];
    for (answer, want) in rows {
        assert_eq!(notice(&answer), want, "{answer:?}");
    }
}

fn report(counted: Counted) -> ContextReport {
    ContextReport {
        window: 32_768,
        source: "config".into(),
        in_use: 2_506,
        counted,
        system: 1_001,
        environment: 120,
        instructions: Some(300),
        files: vec![InstructionFile {
            path: PathBuf::from("/w/AGENTS.md"),
            bytes: 40_000,
            used: 32_768,
        }],
        notes: vec!["AGENTS.md was cut".into()],
        skills: vec!["deploy".into()],
        tools: 9,
        tools_tokens: 1_501,
        history_messages: 2,
        history: 4,
        last_reply: Some(3),
        reserve: 4_096,
        margin: 1_024,
        prune_at: 19_660,
        compact_at: 26_214,
        pruned: 0,
        compactions: 1,
        ratio: 3.6,
        calibrated: true,
    }
}

#[test]
fn the_context_report_reads_line_by_line() {
    let text = notice(&Answer::Context(report(Counted::Server {
        prompt: 2_400,
        completion: 106,
    })));
    let want = [
        "context window: 32,768 tokens — config",
        "in use: 2,506 tokens (7%) — the last request 2,400 + its reply 106, as the server counted them",
        "  system message     ~1,001 tokens",
        "    environment      ~120",
        "    instructions     ~300",
        "      /w/AGENTS.md (40,000 bytes, cut to 32,768)",
        "    skills           deploy",
        "      note: AGENTS.md was cut",
        "  tools ( 9)         ~1,501 tokens",
        "  history (2 msgs)  ~4 tokens",
        "    last reply       ~3 tokens",
        "  total              ~2,506 tokens (the tokens in use, shared by characters)",
        "kept free: 4,096 for the reply, 1,024 margin; old tool outputs become stand-ins from 19,660, the conversation is summarised from 26,214 tokens",
        "so far: 0 tool output(s) sent as stand-ins in the last request, 1 compaction(s)",
        "estimates: ~3.6 characters a token (calibrated on the server's usage); /compact [focus] summarises now",
    ];
    assert_eq!(text, want.join("\n"));
    let rows = [
        (
            Counted::Estimated,
            "in use: ~2,506 tokens (7%) — estimated from the characters of the chat",
        ),
        (
            Counted::Ignored {
                prompt: 42,
                chars: 90_000,
            },
            "in use: ~2,506 tokens (7%) — estimated: the server's usage (42 prompt tokens for 90,000 characters sent) cannot be right and is ignored",
        ),
    ];
    for (counted, line) in rows {
        let text = notice(&Answer::Context(report(counted)));
        assert_eq!(text.lines().nth(1), Some(line));
    }
    let mut bare = report(Counted::Estimated);
    bare.instructions = None;
    bare.notes.clear();
    bare.skills.clear();
    bare.last_reply = None;
    bare.calibrated = false;
    let text = notice(&Answer::Context(bare));
    assert!(
        text.contains("    instructions     none (no AGENTS.md found)\n  tools"),
        "{text}"
    );
    assert!(!text.contains("last reply"), "{text}");
    assert!(
        text.contains("(assumed until the server reports a plausible usage)"),
        "{text}"
    );
}

fn sandbox_report(in_force: crate::sandbox::Mode) -> SandboxReport {
    SandboxReport {
        configured: crate::sandbox::Mode::WorkspaceWrite,
        in_force,
        backend: Ok("bubblewrap (/usr/bin/bwrap)".into()),
        network: false,
        loopback: None,
        writable: vec![PathBuf::from("/p"), PathBuf::from("/tmp")],
        protected: vec![PathBuf::from("/p/.git"), PathBuf::from("/p/.sayso")],
        hidden: vec![PathBuf::from("/h/.config/sayso")],
        limits: vec![],
    }
}

#[test]
fn the_sandbox_answer_shows_the_policy_and_what_it_cannot_enforce() {
    use crate::sandbox::Mode;
    let ww = sandbox_report(Mode::WorkspaceWrite);
    let limited = SandboxReport {
        configured: Mode::ReadOnly,
        backend: Ok("Landlock ABI 7".into()),
        network: true,
        writable: vec![],
        protected: vec![],
        limits: vec!["one".into(), "two".into()],
        ..sandbox_report(Mode::ReadOnly)
    };
    let fell_back = SandboxReport {
        backend: Err("bwrap is not installed".into()),
        ..sandbox_report(Mode::Off)
    };
    let off = SandboxReport {
        configured: Mode::Off,
        ..sandbox_report(Mode::Off)
    };
    let rows = [
        (
            ww,
            "sandbox: workspace-write — bubblewrap (/usr/bin/bwrap)\n  network:          denied (an allow rule's `network = true` lets its commands reach it)\n  loopback:         unreachable too (`[sandbox] allow_loopback = true` in your config opens it)\n  writable:         /p, /tmp\n  kept read-only:   /p/.git, /p/.sayso\n  hidden (sayso's): /h/.config/sayso\n  cannot enforce:   nothing: every part of the policy is enforced",
        ),
        (
            limited,
            "sandbox: read-only — Landlock ABI 7\n  network:          allowed\n  writable:         nothing\n  hidden (sayso's): /h/.config/sayso\n  cannot enforce:   one; two",
        ),
        (
            fell_back,
            "sandbox: off (no backend) — workspace-write was asked for, but bwrap is not installed: commands run unconfined, with the network",
        ),
        (
            off,
            "sandbox: off (as configured: [sandbox] mode or --sandbox) — commands run unconfined, with the network",
        ),
    ];
    for (r, want) in rows {
        assert_eq!(notice(&Answer::Sandbox(r)), want);
    }
}
