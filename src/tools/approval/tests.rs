//! The approval matrix of SPEC §5.2–§5.4, one row per situation.

use super::*;
use Interaction::{Headless, Interactive};
use Mode::{Auto, Normal};

/// run_command's defaults: ask, require_cmd_approval, is_safe gate, judge.
fn run_command(cmd: &str, is_safe: bool) -> CallFacts {
    CallFacts {
        tool: "run_command".into(),
        cmd_string: cmd.into(),
        requires_approval: true,
        require_cmd_approval: true,
        protect: false,
        is_safe: Some(is_safe),
        judge_allowed: true,
        allowed: false,
        force_ask: None,
        caution: None,
    }
}

fn delete_file() -> CallFacts {
    CallFacts {
        tool: "delete_file".into(),
        cmd_string: "delete_file".into(),
        requires_approval: true,
        protect: true,
        ..CallFacts::default()
    }
}

fn create_file() -> CallFacts {
    CallFacts {
        tool: "create_file".into(),
        cmd_string: "create_file".into(),
        requires_approval: true,
        ..CallFacts::default()
    }
}

fn read_file() -> CallFacts {
    CallFacts {
        tool: "read_file".into(),
        cmd_string: "read_file".into(),
        ..CallFacts::default()
    }
}

fn remembered_tool(t: &str) -> Approvals {
    let mut a = Approvals::default();
    a.always(t, "", false);
    a
}

fn remembered_cmd(t: &str, c: &str) -> Approvals {
    let mut a = Approvals::default();
    a.always(t, c, true);
    a
}

const ASK: Decision = Decision::Ask {
    judge_reason: None,
    caution: None,
};

fn ask_because(why: &str) -> Decision {
    Decision::Ask {
        judge_reason: None,
        caution: Some(why.into()),
    }
}

fn reject_because(tool: &str, why: &str) -> Decision {
    Decision::Reject {
        message: non_interactive_caution(tool, why),
    }
}

fn reject(tool: &str) -> Decision {
    Decision::Reject {
        message: non_interactive_rejection(tool),
    }
}

#[test]
fn approval_matrix() {
    let none = Approvals::default();
    let with = |f: CallFacts, edit: fn(&mut CallFacts)| {
        let mut f = f;
        edit(&mut f);
        f
    };
    #[rustfmt::skip]
    let rows: Vec<(&str, CallFacts, Mode, Approvals, Interaction, Decision)> = vec![
        // Normal mode (§5.2)
        ("normal: needs approval → ask", create_file(), Normal, none.clone(), Interactive, ASK),
        ("normal: no approval needed → run", read_file(), Normal, none.clone(), Interactive, Decision::Run),
        ("normal: predicate said no → run", with(create_file(), |f| f.requires_approval = false), Normal, none.clone(), Interactive, Decision::Run),
        ("normal: tool remembered → run", create_file(), Normal, remembered_tool("create_file"), Interactive, Decision::Run),
        ("normal: other tool remembered → ask", create_file(), Normal, remembered_tool("edit_file"), Interactive, ASK),
        ("normal: exact command remembered → run", run_command("make test", false), Normal, remembered_cmd("run_command", "make test"), Interactive, Decision::Run),
        ("normal: different command → ask", run_command("make test && rm -rf x", false), Normal, remembered_cmd("run_command", "make test"), Interactive, ASK),
        ("normal: whole-tool memory does not cover cmd-approval tools", run_command("ls", true), Normal, remembered_tool("run_command"), Interactive, ASK),
        ("normal: is_safe does not skip asking", run_command("ls", true), Normal, none.clone(), Interactive, ASK),
        ("normal: protect does not matter", delete_file(), Normal, remembered_tool("delete_file"), Interactive, Decision::Run),
        ("normal: allowed tool → run", with(create_file(), |f| f.allowed = true), Normal, none.clone(), Interactive, Decision::Run),
        ("normal headless: needs approval → reject", create_file(), Normal, none.clone(), Headless, reject("create_file")),
        ("normal headless: allowed → run", with(run_command("rm x", false), |f| f.allowed = true), Normal, none.clone(), Headless, Decision::Run),
        // Auto mode (§5.4)
        ("auto: ordinary tool runs unasked", create_file(), Auto, none.clone(), Interactive, Decision::Run),
        ("auto: cmd-approval tool, safe command → run", run_command("git status", true), Auto, none.clone(), Interactive, Decision::Run),
        ("auto: cmd-approval tool, unsafe command → judge", run_command("make deploy", false), Auto, none.clone(), Interactive, Decision::Judge),
        ("auto: judge off → ask", with(run_command("make", false), |f| f.judge_allowed = false), Auto, none.clone(), Interactive, ASK),
        ("auto: no is_safe gate, judge off → ask", with(run_command("make", false), |f| { f.is_safe = None; f.judge_allowed = false }), Auto, none.clone(), Interactive, ASK),
        ("auto: remembered command → run (no judge)", run_command("make", false), Auto, remembered_cmd("run_command", "make"), Interactive, Decision::Run),
        ("auto: protect asks even with gates", with(delete_file(), |f| { f.is_safe = Some(true); f.judge_allowed = true }), Auto, none.clone(), Interactive, ASK),
        ("auto: protect remembered → run", delete_file(), Auto, remembered_tool("delete_file"), Interactive, Decision::Run),
        ("auto: predicate said no → run", with(run_command("x", false), |f| f.requires_approval = false), Auto, none.clone(), Interactive, Decision::Run),
        ("auto: allowed beats protect", with(delete_file(), |f| f.allowed = true), Auto, none.clone(), Interactive, Decision::Run),
        ("auto headless: unsafe, judge off → reject", with(run_command("make", false), |f| f.judge_allowed = false), Auto, none.clone(), Headless, reject("run_command")),
        ("auto headless: protect → reject", delete_file(), Auto, none.clone(), Headless, reject("delete_file")),
        ("auto headless: judge still consulted", run_command("make", false), Auto, none.clone(), Headless, Decision::Judge),
        ("auto headless: safe command runs", run_command("ls -la", true), Auto, none.clone(), Headless, Decision::Run),
        // Forced confirmation (a write outside the working directory or to a protected path)
        ("forced: auto + allowed + remembered still asks", with(create_file(), |f| { f.force_ask = Some("outside".into()); f.allowed = true }), Auto, remembered_tool("create_file"), Interactive, ask_because("outside")),
        ("forced: normal mode asks with the reason", with(create_file(), |f| f.force_ask = Some(".git".into())), Normal, none.clone(), Interactive, ask_because(".git")),
        ("forced headless: rejected with the reason", with(create_file(), |f| f.force_ask = Some("outside".into())), Auto, none.clone(), Headless, reject_because("create_file", "outside")),
        // Caution (a per-call protect: a safe-list git command in a hostile repository)
        ("caution: auto + safe gate still asks, no judge", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Auto, none.clone(), Interactive, ask_because("fsmonitor")),
        ("caution: remembered command runs", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Auto, remembered_cmd("run_command", "git status"), Interactive, Decision::Run),
        ("caution: normal mode asks as usual", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Normal, none.clone(), Interactive, ASK),
        ("caution headless: rejected with the reason", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Auto, none.clone(), Headless, reject_because("run_command", "fsmonitor")),
    ];
    for (name, facts, mode, memory, interaction, expected) in rows {
        assert_eq!(
            decide(&facts, mode, &memory, interaction),
            expected,
            "{name}"
        );
    }
}

#[test]
fn judge_verdicts() {
    let f = run_command("make deploy", false);
    let safe = Verdict {
        safe: true,
        reason: "builds only".into(),
    };
    let unsafe_ = Verdict {
        safe: false,
        reason: "deploys to production".into(),
    };
    assert_eq!(
        after_judge(&f, &safe, Interactive),
        Decision::RunAndRemember
    );
    assert_eq!(after_judge(&f, &safe, Headless), Decision::RunAndRemember);
    assert_eq!(
        after_judge(&f, &unsafe_, Interactive),
        Decision::Ask {
            judge_reason: Some("deploys to production".into()),
            caution: None,
        }
    );
    assert_eq!(after_judge(&f, &unsafe_, Headless), reject("run_command"));
}

#[test]
fn memory_is_per_tool_or_per_exact_command() {
    let mut a = Approvals::default();
    a.always("run_command", "ls -la", true);
    a.always("create_file", "ignored", false);
    assert!(a.is_approved("run_command", "ls -la", true));
    assert!(
        !a.is_approved("run_command", "ls  -la", true),
        "exact string only"
    );
    assert!(a.is_approved("create_file", "anything", false));
    assert_eq!(
        a.list(),
        (vec!["create_file"], vec![("run_command", "ls -la")])
    );
    a.clear();
    assert!(!a.is_approved("create_file", "x", false));
}
