//! The approval matrix of SPEC §5.2–§5.4, one row per situation.

use super::*;
use Interaction::{Headless, Interactive};
use Mode::{Auto, Balanced as Normal, Strict, Suggest, Trust};

/// run_command's defaults: ask, require_cmd_approval, is_safe gate, judge.
fn run_command(cmd: &str, is_safe: bool) -> CallFacts {
    CallFacts {
        tool: "run_command".into(),
        cmd_string: cmd.into(),
        call_key: cmd.into(),
        requires_approval: true,
        require_cmd_approval: true,
        protect: false,
        is_safe: Some(is_safe),
        judge_allowed: true,
        allowed: false,
        force_ask: None,
        caution: None,
        kind: Kind::Shell,
        is_question: false,
        reads_outside: None,
        rule: None,
        sandboxed: false,
    }
}

fn delete_file() -> CallFacts {
    CallFacts {
        tool: "delete_file".into(),
        cmd_string: "delete_file".into(),
        call_key: "delete_file".into(),
        kind: Kind::FileEdit,
        requires_approval: true,
        protect: true,
        ..CallFacts::default()
    }
}

fn create_file() -> CallFacts {
    CallFacts {
        tool: "create_file".into(),
        cmd_string: "create_file".into(),
        call_key: "create_file".into(),
        kind: Kind::FileEdit,
        requires_approval: true,
        ..CallFacts::default()
    }
}

fn read_file() -> CallFacts {
    CallFacts {
        tool: "read_file".into(),
        cmd_string: "read_file".into(),
        call_key: "read_file".into(),
        kind: Kind::ReadOnly,
        ..CallFacts::default()
    }
}

fn remembered_tool(t: &str) -> Approvals {
    let mut a = Approvals::default();
    a.always(t, "", false);
    a
}

fn remembered_in(mode: Mode, by: By, t: &str, c: &str, by_command: bool) -> Approvals {
    let mut a = Approvals::default();
    a.remember(mode, by, t, c, by_command);
    a
}

fn sandboxed(f: CallFacts) -> CallFacts {
    CallFacts {
        sandboxed: true,
        ..f
    }
}

/// A command tool from config (`extends = "cmd_tool"`): a shell tool remembered whole, with
/// the safe list and the judge.
fn command_tool(is_safe: bool) -> CallFacts {
    CallFacts {
        tool: "beads".into(),
        cmd_string: "bd ready".into(),
        call_key: "bd ready".into(),
        require_cmd_approval: false,
        ..run_command("bd ready", is_safe)
    }
}

fn remembered_cmd(t: &str, c: &str) -> Approvals {
    let mut a = Approvals::default();
    a.always(t, c, true);
    a
}

const ASK: Decision = Decision::Ask {
    judge_reason: None,
    caution: None,
    once: false,
};

/// Asks, and "Always accept" remembers nothing.
const ASK_ONCE: Decision = Decision::Ask {
    judge_reason: None,
    caution: None,
    once: true,
};

/// A forced confirmation: asks every time, with the reason.
fn ask_because(why: &str) -> Decision {
    Decision::Ask {
        judge_reason: None,
        caution: Some(why.into()),
        once: true,
    }
}

/// A caution: asks with the reason; Always accept may remember.
fn caution(why: &str) -> Decision {
    Decision::Ask {
        judge_reason: None,
        caution: Some(why.into()),
        once: false,
    }
}

fn fetch() -> CallFacts {
    CallFacts {
        tool: "fetch_webpage".into(),
        cmd_string: "fetch_webpage https://example.com".into(),
        call_key: "fetch_webpage https://example.com".into(),
        kind: Kind::Network,
        requires_approval: true,
        judge_allowed: true,
        ..CallFacts::default()
    }
}

fn memory_tool() -> CallFacts {
    CallFacts {
        tool: "memory".into(),
        cmd_string: "memory view".into(),
        call_key: "memory view".into(),
        kind: Kind::Other,
        requires_approval: true,
        ..CallFacts::default()
    }
}

fn question() -> CallFacts {
    CallFacts {
        tool: "ask_questions".into(),
        cmd_string: "ask_questions".into(),
        call_key: "ask_questions".into(),
        kind: Kind::Other,
        is_question: true,
        ..CallFacts::default()
    }
}

fn ruled(f: CallFacts, decision: RuleDecision) -> CallFacts {
    CallFacts {
        rule: Some(RuleMatch {
            decision,
            rule: "`r`".into(),
            unsandboxed: false,
            network: false,
        }),
        ..f
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
        ("caution: auto + safe gate still asks, no judge", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Auto, none.clone(), Interactive, caution("fsmonitor")),
        ("caution: remembered command runs", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Auto, remembered_cmd("run_command", "git status"), Interactive, Decision::Run),
        ("caution: normal mode asks as usual", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Normal, none.clone(), Interactive, ASK),
        ("caution headless: rejected with the reason", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Auto, none.clone(), Headless, reject_because("run_command", "fsmonitor")),
        ("caution: trust still asks", with(run_command("git status", true), |f| f.caution = Some("fsmonitor".into())), Trust, none.clone(), Interactive, caution("fsmonitor")),
        ("caution: an allowed tool asks", with(run_command("git status", true), |f| { f.caution = Some("fsmonitor".into()); f.allowed = true }), Normal, none.clone(), Interactive, caution("fsmonitor")),
        // Every mode × kind, nothing remembered, no rule (README "Approval policy")
        ("trust: read runs", read_file(), Trust, none.clone(), Interactive, Decision::Run),
        ("trust: edit runs", create_file(), Trust, none.clone(), Interactive, Decision::Run),
        ("trust: protected edit runs", delete_file(), Trust, none.clone(), Interactive, Decision::Run),
        ("trust: unsafe shell runs", run_command("make deploy", false), Trust, none.clone(), Interactive, Decision::Run),
        ("trust: network runs", fetch(), Trust, none.clone(), Interactive, Decision::Run),
        ("trust: other runs", memory_tool(), Trust, none.clone(), Interactive, Decision::Run),
        ("trust: forced still asks", with(create_file(), |f| f.force_ask = Some("outside".into())), Trust, none.clone(), Interactive, ask_because("outside")),
        ("auto: read runs", read_file(), Auto, none.clone(), Interactive, Decision::Run),
        ("auto: network goes to the judge", fetch(), Auto, none.clone(), Interactive, Decision::Judge),
        ("auto: network, judge off → ask", with(fetch(), |f| f.judge_allowed = false), Auto, none.clone(), Interactive, ASK),
        ("auto: other runs", memory_tool(), Auto, none.clone(), Interactive, Decision::Run),
        ("balanced: read runs", read_file(), Normal, none.clone(), Interactive, Decision::Run),
        ("balanced: network asks", fetch(), Normal, none.clone(), Interactive, ASK),
        ("balanced: other asks (its setting)", memory_tool(), Normal, none.clone(), Interactive, ASK),
        ("suggest: read runs", read_file(), Suggest, none.clone(), Interactive, Decision::Run),
        ("suggest: edit asks, once", create_file(), Suggest, none.clone(), Interactive, ASK_ONCE),
        ("suggest: an edit the tool would not ask for still asks", with(create_file(), |f| f.requires_approval = false), Suggest, none.clone(), Interactive, ASK_ONCE),
        ("suggest: a remembered edit tool asks anyway", create_file(), Suggest, remembered_tool("create_file"), Interactive, ASK_ONCE),
        ("suggest: shell asks, may be remembered", run_command("make", false), Suggest, none.clone(), Interactive, ASK),
        ("suggest: remembered command runs", run_command("make", false), Suggest, remembered_cmd("run_command", "make"), Interactive, Decision::Run),
        ("suggest: network asks", fetch(), Suggest, none.clone(), Interactive, ASK),
        ("strict: read inside runs", read_file(), Strict, none.clone(), Interactive, Decision::Run),
        ("strict: read outside asks", with(read_file(), |f| f.reads_outside = Some("/etc/hosts".into())), Strict, none.clone(), Interactive, ask_because("a read outside the project: /etc/hosts")),
        ("balanced: read outside runs", with(read_file(), |f| f.reads_outside = Some("/etc/hosts".into())), Normal, none.clone(), Interactive, Decision::Run),
        ("strict: edit asks once", create_file(), Strict, none.clone(), Interactive, ASK_ONCE),
        ("strict: safe shell still asks once", run_command("ls", true), Strict, none.clone(), Interactive, ASK_ONCE),
        ("strict: remembered command asks anyway", run_command("make", false), Strict, remembered_cmd("run_command", "make"), Interactive, ASK_ONCE),
        ("strict: network asks once", fetch(), Strict, none.clone(), Interactive, ASK_ONCE),
        ("strict: other asks once, even if its setting says no", with(memory_tool(), |f| f.requires_approval = false), Strict, none.clone(), Interactive, ASK_ONCE),
        ("strict: allowed tool runs", with(run_command("make", false), |f| f.allowed = true), Strict, none.clone(), Interactive, Decision::Run),
        ("strict headless: rejected", create_file(), Strict, none.clone(), Headless, reject("create_file")),
        // Balanced and suggest: a safe-list command runs unasked, read-only, inside a sandbox (issue 37.5)
        ("balanced: a safe command in a sandbox runs", sandboxed(run_command("git log", true)), Normal, none.clone(), Interactive, Decision::Run),
        ("balanced headless: a safe command in a sandbox runs", sandboxed(run_command("ls", true)), Normal, none.clone(), Headless, Decision::Run),
        ("balanced: an unsafe command in a sandbox asks", sandboxed(run_command("make", false)), Normal, none.clone(), Interactive, ASK),
        ("balanced: a safe command in a sandbox with a caution asks with it", with(sandboxed(run_command("git status", true)), |f| f.caution = Some("fsmonitor".into())), Normal, none.clone(), Interactive, caution("fsmonitor")),
        ("balanced: a safe command in a sandbox under an ask rule asks", ruled(sandboxed(run_command("ls", true)), RuleDecision::Ask), Normal, none.clone(), Interactive, ask_because("the rule `r` asks")),
        ("suggest: a safe command in a sandbox runs", sandboxed(run_command("wc -l x", true)), Suggest, none.clone(), Interactive, Decision::Run),
        ("strict: a safe command in a sandbox asks once", sandboxed(run_command("ls", true)), Strict, none.clone(), Interactive, ASK_ONCE),
        ("balanced: a safe-gated tool that is not a shell asks", sandboxed(with(fetch(), |f| f.is_safe = Some(true))), Normal, none.clone(), Interactive, ASK),
        // Command tools from config in auto (issue 36.9): a shell tool goes through the gates
        ("auto: a command tool's unsafe command goes to the judge", command_tool(false), Auto, none.clone(), Interactive, Decision::Judge),
        ("auto: a command tool's safe-listed command runs", command_tool(true), Auto, none.clone(), Interactive, Decision::Run),
        ("auto: a command tool without the judge asks", with(command_tool(false), |f| f.judge_allowed = false), Auto, none.clone(), Interactive, ASK),
        ("auto headless: a command tool without the judge is rejected", with(command_tool(false), |f| f.judge_allowed = false), Auto, none.clone(), Headless, reject("beads")),
        ("auto: a command tool set to need no approval runs", with(command_tool(false), |f| f.requires_approval = false), Auto, none.clone(), Interactive, Decision::Run),
        ("auto: a command tool remembered whole runs", command_tool(false), Auto, remembered_in(Auto, By::User, "beads", "", false), Interactive, Decision::Run),
        // Approvals belong to the mode that gave them (issue 36.7)
        ("balanced: Always accept given in auto does not apply", run_command("make", false), Normal, remembered_in(Auto, By::User, "run_command", "make", true), Interactive, ASK),
        ("balanced: the judge's verdict from auto does not apply", run_command("make", false), Normal, remembered_in(Auto, By::Judge, "run_command", "make", true), Interactive, ASK),
        ("auto: the judge's verdict applies in auto", run_command("make", false), Auto, remembered_in(Auto, By::Judge, "run_command", "make", true), Interactive, Decision::Run),
        ("auto: Always accept given in balanced does not apply", run_command("make", false), Auto, remembered_in(Normal, By::User, "run_command", "make", true), Interactive, Decision::Judge),
        ("suggest: a command remembered in suggest runs", run_command("make", false), Suggest, remembered_in(Suggest, By::User, "run_command", "make", true), Interactive, Decision::Run),
        ("strict: a command remembered in strict still asks", run_command("make", false), Strict, remembered_in(Strict, By::User, "run_command", "make", true), Interactive, ASK_ONCE),
        // ask_questions never needs approval
        ("question: strict runs", question(), Strict, none.clone(), Interactive, Decision::Run),
        ("question: headless balanced runs", question(), Normal, none.clone(), Headless, Decision::Run),
        // Rules
        ("rule deny: beats trust", ruled(run_command("rm -rf x", false), RuleDecision::Deny), Trust, none.clone(), Interactive, Decision::Reject { message: denied_by_rule("`r`") }),
        ("rule deny: beats allowed and memory", with(ruled(run_command("rm x", false), RuleDecision::Deny), |f| f.allowed = true), Normal, remembered_cmd("run_command", "rm x"), Interactive, Decision::Reject { message: denied_by_rule("`r`") }),
        ("rule deny: beats a question", ruled(question(), RuleDecision::Deny), Normal, none.clone(), Interactive, Decision::Reject { message: denied_by_rule("`r`") }),
        ("rule ask: beats trust, once", ruled(run_command("git push", true), RuleDecision::Ask), Trust, none.clone(), Interactive, ask_because("the rule `r` asks")),
        ("rule ask: beats the allow-list and memory", with(ruled(create_file(), RuleDecision::Ask), |f| f.allowed = true), Normal, remembered_tool("create_file"), Interactive, ask_because("the rule `r` asks")),
        ("rule ask headless: rejected with the reason", ruled(create_file(), RuleDecision::Ask), Trust, none.clone(), Headless, reject_because("create_file", "the rule `r` asks")),
        ("rule allow: does not apply in strict, which asks once", ruled(run_command("git diff", true), RuleDecision::Allow), Strict, none.clone(), Interactive, ASK_ONCE),
        ("rule allow: strict headless rejects", ruled(run_command("git diff", true), RuleDecision::Allow), Strict, none.clone(), Headless, reject("run_command")),
        ("rule deny: still applies in strict", ruled(run_command("rm x", false), RuleDecision::Deny), Strict, none.clone(), Interactive, Decision::Reject { message: denied_by_rule("`r`") }),
        ("rule allow: a tool-wide allow does not run a strict edit", ruled(create_file(), RuleDecision::Allow), Strict, none.clone(), Interactive, ASK_ONCE),
        ("rule allow: runs in balanced headless", ruled(run_command("cargo test", false), RuleDecision::Allow), Normal, none.clone(), Headless, Decision::Run),
        ("rule allow: a forced write still asks", with(ruled(create_file(), RuleDecision::Allow), |f| f.force_ask = Some("outside".into())), Trust, none.clone(), Interactive, ask_because("outside")),
        ("rule allow: a caution still asks", with(ruled(run_command("git status", true), RuleDecision::Allow), |f| f.caution = Some("fsmonitor".into())), Normal, none.clone(), Interactive, caution("fsmonitor")),
    ];
    for (name, facts, mode, memory, interaction, expected) in rows {
        assert_eq!(
            decide(&facts, mode, &memory, interaction),
            expected,
            "{name}"
        );
    }
}

/// What made each unasked run run, and what its tool block says.
#[test]
fn every_unasked_run_names_its_grounds() {
    let none = Approvals::default();
    let rule = |f: CallFacts| CallFacts {
        rule: Some(RuleMatch {
            decision: RuleDecision::Allow,
            rule: "`run_command match \"git diff *\" → allow` (cfg:3)".into(),
            unsandboxed: false,
            network: false,
        }),
        ..f
    };
    #[rustfmt::skip]
    let rows: Vec<(&str, CallFacts, Mode, Approvals, Option<Unasked>)> = vec![
        ("an allow rule", rule(run_command("git diff", false)), Normal, none.clone(), Some(Unasked::Rule { rule: "`run_command match \"git diff *\" → allow` (cfg:3)".into() })),
        ("the allow-list", with_allowed(create_file()), Strict, none.clone(), Some(Unasked::AllowedTools)),
        ("Always accept", run_command("make", false), Normal, remembered_in(Normal, By::User, "run_command", "make", true), Some(Unasked::Remembered { mode: Normal })),
        ("the judge's verdict", run_command("make", false), Auto, remembered_in(Auto, By::Judge, "run_command", "make", true), Some(Unasked::JudgeRemembered)),
        ("the safe list in auto", run_command("ls", true), Auto, none.clone(), Some(Unasked::SafeList { mode: Auto })),
        ("the safe list in balanced", sandboxed(run_command("ls", true)), Normal, none.clone(), Some(Unasked::SafeList { mode: Normal })),
        ("trust", run_command("make", false), Trust, none.clone(), Some(Unasked::Mode { mode: Trust })),
        ("a read in strict", read_file(), Strict, none.clone(), Some(Unasked::Mode { mode: Strict })),
        ("a question", question(), Normal, none.clone(), None),
    ];
    for (name, facts, mode, memory, want) in rows {
        let (decision, grounds) = decide_on(&facts, mode, &memory, Interactive);
        assert_eq!(decision, Decision::Run, "{name}");
        let grounds = grounds.expect("a run has grounds");
        assert_eq!(unasked(&facts, grounds, mode), want, "{name}");
    }
}

fn with_allowed(f: CallFacts) -> CallFacts {
    CallFacts { allowed: true, ..f }
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
            once: false,
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

#[test]
fn a_call_key_is_the_whole_command_or_the_tool_and_its_sorted_arguments() {
    let args =
        serde_json::json!({"path": "a", "content": "x", "opts": {"z": 1, "a": [true, null]}});
    assert_eq!(
        call_key("fs__write", Kind::Other, "fs__write {…cut", &args),
        r#"fs__write {"content":"x","opts":{"a":[true,null],"z":1},"path":"a"}"#
    );
    let long = "y".repeat(5000);
    assert_eq!(
        call_key("run_command", Kind::Shell, &format!("echo {long}"), &args),
        format!("echo {long}"),
        "a shell tool's key is its whole command"
    );
}

#[test]
fn two_calls_alike_for_200_characters_have_different_keys() {
    let common = "A".repeat(250);
    let first = serde_json::json!({"content": common, "path": "first.txt"});
    let second = serde_json::json!({"content": common, "path": "second.txt"});
    let k1 = call_key("notes__write", Kind::Other, "notes__write {…", &first);
    let k2 = call_key("notes__write", Kind::Other, "notes__write {…", &second);
    assert_eq!(k1[..200], k2[..200]);
    assert_ne!(k1, k2);
    let mut a = Approvals::default();
    a.always("notes__write", &k1, true);
    assert!(a.is_approved("notes__write", &k1, true));
    assert!(!a.is_approved("notes__write", &k2, true));
    // The same arguments in another order are the same call.
    let reordered: serde_json::Value =
        serde_json::from_str(&format!(r#"{{"path":"first.txt","content":"{common}"}}"#)).unwrap();
    assert_eq!(call_key("notes__write", Kind::Other, "", &reordered), k1);
}
