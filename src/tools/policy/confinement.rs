//! What one run of a call may do inside the sandbox (README "Sandbox"), decided purely from the
//! call's facts and how it came to run (a rerun outside the sandbox, and its words, are the
//! lifecycle's: `tools::lifecycle::rerun_offer`).
//!
//! The approval decision ([`crate::tools::policy::approval`]) says *whether* a call runs; this
//! says *how confined*: an allow rule the user wrote with `sandbox = false` lifts the sandbox,
//! one with `network = true` adds the network (for a command of several parts, only as far as
//! every part's rule lifts it: the most confined part wins), a shell command that runs unasked
//! only because the safe list called it safe runs read-only, and everything else runs as the
//! `[sandbox]` settings say (a command the judge found safe included).
//!
//! What it refuses to do: nothing here lifts the sandbox after a denial. A rerun outside is
//! the user's answer to an ask of its own (the lifecycle's), never a rule's, the mode's, the
//! judge's or memory's; [`confinement`] never returns [`Confinement::Unconfined`] but for an
//! allow rule's `sandbox = false`. No IO: the sandbox itself is [`crate::sandbox`].

use crate::sandbox::Confinement;
use crate::tools::policy::approval::{self, CallFacts, Grounds, Mode};
use crate::tools::tool::Kind;

/// How a call came to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// The approval decision ran it unasked, on these grounds.
    Decided(Grounds),
    /// The judge found it safe.
    Judge,
    /// The user accepted it.
    User,
}

/// The confinement of a call that runs in `mode` because of `grant`, first that applies:
/// 1. the matching allow rule's `sandbox = false` — for a command of several parts, only when
///    every part's rule says so ([`crate::tools::policy::rules`]): [`Confinement::Unconfined`];
/// 2. its `network = true` (every part's): [`Confinement::WithNetwork`];
/// 3. a shell command the safe list let run unasked (auto, or balanced and suggest inside a
///    sandbox): [`Confinement::ReadOnly`];
/// 4. anything else (the judge's safe verdict, the user's yes, the mode, memory, the
///    allow-list): [`Confinement::Policy`].
///
/// In strict mode no allow rule applies ([`approval::allow_rule`]), so none lifts anything.
pub fn confinement(facts: &CallFacts, mode: Mode, grant: Grant) -> Confinement {
    if let Some(rule) = approval::allow_rule(facts, mode) {
        if rule.unsandboxed {
            return Confinement::Unconfined;
        }
        if rule.network {
            return Confinement::WithNetwork;
        }
    }
    match grant {
        Grant::Decided(Grounds::SafeList) if facts.kind == Kind::Shell => Confinement::ReadOnly,
        _ => Confinement::Policy,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::approvals::RuleDecision;
    use crate::tools::policy::approval::{
        Approvals, By, Decision, Interaction, RuleMatch, decide_on,
    };

    fn shell(cmd: &str, safe: Option<bool>) -> CallFacts {
        CallFacts {
            tool: "run_command".into(),
            cmd_string: cmd.into(),
            call_key: cmd.into(),
            kind: Kind::Shell,
            requires_approval: true,
            require_cmd_approval: true,
            is_safe: safe,
            judge_allowed: true,
            ..CallFacts::default()
        }
    }

    fn allow_rule(unsandboxed: bool, network: bool) -> Option<RuleMatch> {
        Some(RuleMatch {
            decision: RuleDecision::Allow,
            rule: "`run_command match \"npm install\" → allow`".into(),
            unsandboxed,
            network,
        })
    }

    /// The decision's grounds and the confinement together, as the lifecycle reads them: each
    /// row is (name, facts, mode, remembered, how the call was let run — `None`: as the
    /// decision's grounds say —, the confinement).
    #[test]
    fn confinement_table() {
        let with = |mut f: CallFacts, g: fn(&mut CallFacts)| {
            g(&mut f);
            f
        };
        let remembered = |key: &str| {
            let mut m = Approvals::default();
            m.always("run_command", key, true);
            m
        };
        let none = Approvals::default();
        use Confinement::*;
        type Row = (
            &'static str,
            CallFacts,
            Mode,
            Approvals,
            Option<Grant>,
            Confinement,
        );
        let rows: Vec<Row> = vec![
            (
                "an allow rule with sandbox = false: unconfined",
                with(shell("npm install", Some(false)), |f| {
                    f.rule = allow_rule(true, false)
                }),
                Mode::Balanced,
                none.clone(),
                None,
                Unconfined,
            ),
            (
                "an allow rule with network = true: with the network",
                with(shell("npm install", Some(false)), |f| {
                    f.rule = allow_rule(false, true)
                }),
                Mode::Balanced,
                none.clone(),
                None,
                WithNetwork,
            ),
            (
                "both: sandbox = false wins",
                with(shell("npm install", Some(false)), |f| {
                    f.rule = allow_rule(true, true)
                }),
                Mode::Balanced,
                none.clone(),
                None,
                Unconfined,
            ),
            (
                "a plain allow rule: the policy",
                with(shell("cargo test", Some(false)), |f| {
                    f.rule = allow_rule(false, false)
                }),
                Mode::Balanced,
                none.clone(),
                None,
                Policy,
            ),
            (
                "an allow rule's sandbox = false also when the user accepted a caution",
                with(shell("npm install", Some(false)), |f| {
                    f.rule = allow_rule(true, false);
                    f.caution = Some("hooks".into())
                }),
                Mode::Balanced,
                none.clone(),
                Some(Grant::User),
                Unconfined,
            ),
            (
                "a deny rule never lifts the sandbox (it never runs)",
                with(shell("rm x", Some(false)), |f| {
                    f.rule = Some(RuleMatch {
                        decision: RuleDecision::Deny,
                        rule: "r".into(),
                        unsandboxed: true,
                        network: true,
                    })
                }),
                Mode::Trust,
                none.clone(),
                Some(Grant::User),
                Policy,
            ),
            (
                "auto: the safe list runs it read-only",
                shell("git status", Some(true)),
                Mode::Auto,
                none.clone(),
                None,
                ReadOnly,
            ),
            (
                "auto: the judge's safe verdict runs it as the policy says",
                shell("make", Some(false)),
                Mode::Auto,
                none.clone(),
                Some(Grant::Judge),
                Policy,
            ),
            (
                "auto: the user's yes runs it as the policy says",
                with(shell("make", Some(false)), |f| f.judge_allowed = false),
                Mode::Auto,
                none.clone(),
                Some(Grant::User),
                Policy,
            ),
            (
                "auto: a remembered safe command runs as the policy says",
                shell("ls", Some(true)),
                Mode::Auto,
                remembered("ls"),
                None,
                Policy,
            ),
            (
                "auto: an allowed tool's safe command runs as the policy says",
                with(shell("ls", Some(true)), |f| f.allowed = true),
                Mode::Auto,
                none.clone(),
                None,
                Policy,
            ),
            (
                "balanced: a safe command the user accepted, as the policy says",
                shell("ls", Some(true)),
                Mode::Balanced,
                none.clone(),
                Some(Grant::User),
                Policy,
            ),
            (
                "trust: any command runs as the policy says",
                shell("make deploy", Some(false)),
                Mode::Trust,
                none.clone(),
                None,
                Policy,
            ),
            (
                "trust: a safe command too (not read-only)",
                shell("ls", Some(true)),
                Mode::Trust,
                none.clone(),
                None,
                Policy,
            ),
            (
                "strict: an allow rule's sandbox = false neither runs it unasked nor lifts the sandbox once accepted",
                with(shell("npm install", Some(false)), |f| {
                    f.rule = allow_rule(true, true)
                }),
                Mode::Strict,
                none.clone(),
                Some(Grant::User),
                Policy,
            ),
            (
                "balanced: a safe command inside a sandbox runs read-only",
                with(shell("git status", Some(true)), |f| f.sandboxed = true),
                Mode::Balanced,
                none.clone(),
                None,
                ReadOnly,
            ),
            (
                "suggest: the same",
                with(shell("ls", Some(true)), |f| f.sandboxed = true),
                Mode::Suggest,
                none.clone(),
                None,
                ReadOnly,
            ),
            (
                "balanced without a sandbox: a safe command asks; accepted, the policy",
                shell("ls", Some(true)),
                Mode::Balanced,
                none.clone(),
                Some(Grant::User),
                Policy,
            ),
            (
                "auto: the judge's remembered verdict runs as the policy says",
                shell("make", Some(false)),
                Mode::Auto,
                {
                    let mut m = Approvals::default();
                    m.remember(Mode::Auto, By::Judge, "run_command", "make", true);
                    m
                },
                None,
                Policy,
            ),
            (
                "auto: a safe-gated tool that is not a shell: the policy",
                with(shell("fetch", Some(true)), |f| f.kind = Kind::Network),
                Mode::Auto,
                none.clone(),
                None,
                Policy,
            ),
        ];
        for (name, facts, mode, memory, grant, want) in rows {
            let grant = grant.unwrap_or_else(|| {
                match decide_on(&facts, mode, &memory, Interaction::Interactive) {
                    (Decision::Run, Some(grounds)) => Grant::Decided(grounds),
                    other => panic!("{name}: the decision did not run the call: {other:?}"),
                }
            });
            assert_eq!(confinement(&facts, mode, grant), want, "{name}");
        }
    }

    #[test]
    fn only_an_allow_rule_returns_unconfined() {
        let grounds = [
            Grounds::Question,
            Grounds::Allowed,
            Grounds::Rule,
            Grounds::Remembered(By::User),
            Grounds::Remembered(By::Judge),
            Grounds::SafeList,
            Grounds::Mode,
        ];
        let grants = grounds
            .into_iter()
            .map(Grant::Decided)
            .chain([Grant::Judge, Grant::User]);
        for grant in grants {
            for kind in [Kind::Shell, Kind::Other, Kind::Network] {
                let facts = CallFacts {
                    kind,
                    ..shell("x", Some(true))
                };
                for mode in Mode::ALL {
                    assert_ne!(confinement(&facts, mode, grant), Confinement::Unconfined);
                }
            }
        }
    }
}
