//! What a tool's calls do under an approval mode and the rules, in words — the APPROVAL column
//! of `sayso tools` and `/tools`.
//!
//! Not a second copy of the policy: the words come from [`super::decide`], asked about the
//! calls a tool can make (a safe-listed command and another, a read inside the project and one
//! outside, a tool's condition that holds and one that does not). What the facts of one call
//! decide beyond that — a protected path, a caution, a rule's pattern — is named, not guessed:
//! rules with a pattern are listed after the mode's words.

use std::collections::BTreeSet;

use super::{Approvals, CallFacts, Decision, Grounds, Interaction, Mode, RuleMatch, decide_on};
use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};
use crate::config::opts::{ApprovalBefore, Opts};
use crate::tools::tool::Kind;

/// What the summary of one tool depends on.
pub struct ToolPolicy<'a> {
    pub name: &'a str,
    pub kind: Kind,
    pub opts: &'a Opts,
    /// `ask_questions`: itself a question to the user.
    pub is_question: bool,
    /// In `--allowed-tools` / `chat.allowed_tools`.
    pub allowed: bool,
    /// `[judge] enabled`.
    pub judge_enabled: bool,
    /// An OS sandbox confines commands (its mode is not `off`).
    pub sandboxed: bool,
}

/// One line: what the tool's calls do in `mode` under `rules` (most specific first).
pub fn summary(t: &ToolPolicy<'_>, mode: Mode, rules: &[&RuleSpec]) -> String {
    let applies = |r: &&&RuleSpec| r.tool == t.name || r.tool == "*";
    let patterned: Vec<String> = rules
        .iter()
        .filter(applies)
        .filter(|r| r.target != RuleTarget::Any)
        .map(|r| r.describe())
        .collect();
    // A rule without a pattern decides every call: the tool's own before `*`'s.
    let whole = |tool: &str| {
        rules
            .iter()
            .filter(|r| r.tool == tool && r.target == RuleTarget::Any)
            .max_by_key(|r| r.decision)
            .map(|r| RuleMatch {
                decision: r.decision,
                rule: r.describe(),
                unsandboxed: false,
                network: false,
            })
    };
    let rule = whole(t.name).or_else(|| whole("*"));
    let base = CallFacts {
        tool: t.name.to_owned(),
        kind: t.kind,
        requires_approval: t.opts.approval_before() != ApprovalBefore::Never,
        require_cmd_approval: t.opts.require_cmd_approval(),
        protect: t.opts.protect(),
        judge_allowed: t.judge_enabled && t.opts.judge(),
        allowed: t.allowed,
        is_question: t.is_question,
        rule: rule.clone(),
        sandboxed: t.sandboxed,
        ..CallFacts::default()
    };
    let gated = t.opts.safe_commands.as_ref().is_some_and(|l| !l.is_empty());
    let of = |f: &dyn Fn(&mut CallFacts)| {
        let mut facts = base.clone();
        f(&mut facts);
        let (decision, grounds) = decide_on(
            &facts,
            mode,
            &Approvals::default(),
            Interaction::Interactive,
        );
        Said {
            decision,
            read_only: grounds == Some(Grounds::SafeList),
        }
    };
    let mut decisions = BTreeSet::new();
    let mut words = if gated {
        let safe = of(&|f| f.is_safe = Some(true));
        let other = of(&|f| f.is_safe = Some(false));
        decisions.extend([key(&safe), key(&other)]);
        if safe == other {
            say(&safe)
        } else {
            format!(
                "safe-listed commands {}; others: {}",
                say(&safe),
                say(&other)
            )
        }
    } else if t.kind == Kind::ReadOnly {
        let inside = of(&|_| {});
        let outside = of(&|f| f.reads_outside = Some("a path".into()));
        decisions.extend([key(&inside), key(&outside)]);
        if inside == outside {
            say(&inside)
        } else {
            format!(
                "{} inside the project; outside: {}",
                say(&inside),
                say(&outside)
            )
        }
    } else if t.opts.approval_before() == ApprovalBefore::Condition {
        let holds = of(&|_| {});
        let not = of(&|f| f.requires_approval = false);
        decisions.extend([key(&holds), key(&not)]);
        if holds == not {
            say(&holds)
        } else {
            format!(
                "{} when its condition says so, else {}",
                say(&holds),
                say(&not)
            )
        }
    } else {
        let d = of(&|_| {});
        decisions.insert(key(&d));
        say(&d)
    };
    // Who decided, when not the mode: a deny or ask rule before the allow-list, then either.
    let why = match &rule {
        Some(r) if r.decision != RuleDecision::Allow => Some(format!("the rule {}", r.rule)),
        _ if t.allowed => Some("--allowed-tools".to_owned()),
        Some(r) if mode == Mode::Strict => {
            Some(format!("strict mode: the rule {} does not apply", r.rule))
        }
        Some(r) => Some(format!("the rule {}", r.rule)),
        None if t.is_question => Some("it is itself a question to you".to_owned()),
        None => None,
    };
    if let Some(why) = why {
        words.push_str(&format!(" ({why})"));
    }
    if mode == Mode::Auto && t.opts.protect() && rule.is_none() && !t.allowed {
        words.push_str(" (protected)");
    }
    // "Always accept" offered and remembered: a modal that may be answered for good.
    if decisions.contains(&Key::AskRemembered) {
        words.push_str(&format!("; Always accept remembers {}", remembers(t)));
    }
    if !patterned.is_empty() {
        words.push_str(&format!("; rules: {}", patterned.join(", ")));
    }
    words
}

/// What "Always accept" remembers for the tool.
fn remembers(t: &ToolPolicy<'_>) -> &'static str {
    match (t.opts.require_cmd_approval(), t.kind) {
        (true, Kind::Shell) => "the exact command",
        (true, _) => "that exact call (the tool and all its arguments)",
        (false, _) => "the tool: its later calls run",
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Run,
    AskRemembered,
    Other,
}

/// A decision, and whether it runs the call read-only (the safe list).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Said {
    decision: Decision,
    read_only: bool,
}

fn key(s: &Said) -> Key {
    match &s.decision {
        Decision::Run | Decision::RunAndRemember => Key::Run,
        // The judge's "unsafe" asks, and that modal may be answered for good.
        Decision::Ask { once: false, .. } | Decision::Judge => Key::AskRemembered,
        _ => Key::Other,
    }
}

fn say(s: &Said) -> String {
    match &s.decision {
        Decision::Run if s.read_only => "run in a read-only sandbox".into(),
        Decision::Run | Decision::RunAndRemember => "run".into(),
        Decision::Judge => "go to the judge (asks when it finds them unsafe)".into(),
        Decision::Ask { once: true, .. } => "ask, every time".into(),
        Decision::Ask { .. } => "ask".into(),
        Decision::Reject { .. } => "are refused".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(approval: bool, cmd: bool, protect: bool, safe: bool, judge: bool) -> Opts {
        Opts {
            require_approval_before: Some(approval.into()),
            require_cmd_approval: Some(cmd),
            protect: Some(protect),
            safe_commands: safe.then(|| vec!["ls".to_owned()]),
            judge: Some(judge),
            ..Opts::default()
        }
    }

    fn line(name: &str, kind: Kind, o: &Opts, mode: Mode, rules: &[&RuleSpec]) -> String {
        let t = ToolPolicy {
            name,
            kind,
            opts: o,
            is_question: false,
            allowed: false,
            judge_enabled: true,
            sandboxed: true,
        };
        summary(&t, mode, rules)
    }

    fn rule(tool: &str, target: RuleTarget, decision: RuleDecision) -> RuleSpec {
        RuleSpec {
            tool: tool.into(),
            target,
            decision,
            source: "config.toml:1".into(),
            project: false,
            unsandboxed: false,
            network: false,
        }
    }

    #[test]
    fn each_mode_says_what_a_tool_does_and_what_always_accept_remembers() {
        let run = opts(true, true, false, true, true);
        let delete = opts(true, true, true, false, false);
        let create = opts(true, false, false, false, false);
        let read = opts(false, false, false, false, false);
        use Mode::*;
        let rows: &[(&str, Kind, &Opts, Mode, &str)] = &[
            (
                "run_command",
                Kind::Shell,
                &run,
                Balanced,
                "safe-listed commands run in a read-only sandbox; others: ask; Always accept remembers the exact command",
            ),
            (
                "run_command",
                Kind::Shell,
                &run,
                Auto,
                "safe-listed commands run in a read-only sandbox; others: go to the judge (asks when it finds them unsafe); Always accept remembers the exact command",
            ),
            ("run_command", Kind::Shell, &run, Strict, "ask, every time"),
            ("run_command", Kind::Shell, &run, Trust, "run"),
            (
                "delete_file",
                Kind::FileEdit,
                &delete,
                Balanced,
                "ask; Always accept remembers that exact call (the tool and all its arguments)",
            ),
            (
                "delete_file",
                Kind::FileEdit,
                &delete,
                Auto,
                "ask (protected); Always accept remembers that exact call (the tool and all its arguments)",
            ),
            (
                "delete_file",
                Kind::FileEdit,
                &delete,
                Suggest,
                "ask, every time",
            ),
            (
                "create_file",
                Kind::FileEdit,
                &create,
                Balanced,
                "ask; Always accept remembers the tool: its later calls run",
            ),
            ("create_file", Kind::FileEdit, &create, Auto, "run"),
            ("read_file", Kind::ReadOnly, &read, Balanced, "run"),
            (
                "read_file",
                Kind::ReadOnly,
                &read,
                Strict,
                "run inside the project; outside: ask, every time",
            ),
        ];
        for (name, kind, o, mode, want) in rows {
            assert_eq!(
                line(name, *kind, o, *mode, &[]),
                *want,
                "{name} in {mode:?}"
            );
        }
    }

    #[test]
    fn rules_decide_or_are_listed() {
        let run = opts(true, true, false, true, true);
        let allow = rule("run_command", RuleTarget::Any, RuleDecision::Allow);
        let deny = rule("*", RuleTarget::Any, RuleDecision::Deny);
        let diff = rule(
            "run_command",
            RuleTarget::Command("git diff *".into()),
            RuleDecision::Allow,
        );
        assert_eq!(
            line("run_command", Kind::Shell, &run, Mode::Balanced, &[&allow]),
            "run (the rule `run_command → allow`)"
        );
        assert_eq!(
            line("run_command", Kind::Shell, &run, Mode::Strict, &[&allow]),
            "ask, every time (strict mode: the rule `run_command → allow` does not apply)"
        );
        assert_eq!(
            line("run_command", Kind::Shell, &run, Mode::Trust, &[&deny]),
            "are refused (the rule `* → deny`)"
        );
        assert_eq!(
            line("run_command", Kind::Shell, &run, Mode::Balanced, &[&diff]),
            "safe-listed commands run in a read-only sandbox; others: ask; Always accept remembers the exact command; rules: `run_command match \"git diff *\" → allow`"
        );
    }

    #[test]
    fn without_a_sandbox_balanced_asks_for_safe_listed_commands_too() {
        let run = opts(true, true, false, true, true);
        let t = ToolPolicy {
            name: "run_command",
            kind: Kind::Shell,
            opts: &run,
            is_question: false,
            allowed: false,
            judge_enabled: true,
            sandboxed: false,
        };
        assert_eq!(
            summary(&t, Mode::Balanced, &[]),
            "ask; Always accept remembers the exact command"
        );
        assert_eq!(
            summary(&t, Mode::Auto, &[]),
            "safe-listed commands run in a read-only sandbox; others: go to the judge (asks when it finds them unsafe); Always accept remembers the exact command",
            "auto's safe list runs read-only, sandbox or not (README)"
        );
    }
}
