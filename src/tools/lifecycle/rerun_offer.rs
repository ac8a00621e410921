//! What the rerun outside the sandbox says, and the rules it offers to save: the question and
//! the caution of the ask, the line the model reads after each outcome (declined, no one to
//! ask, accepted), and [`rules`] — the narrowest allow rules that would have run the command
//! as it needed (`sandbox = false`, or `network = true` when the network was what the sandbox
//! denied), built by the approval modal's own `s` candidates.
//!
//! Pure: words and rule specs. The lifecycle ([`super::rerun`]) and the front-ends use them.

use crate::config::approvals::{RuleSpec, toml_block};
use crate::sandbox::{Denial, DenialKind};
use crate::tools::lifecycle::requests::Remember;
use crate::tools::policy::rules::RuleOffer;

/// The question the rerun ask puts.
pub const RERUN_PROMPT: &str = "Run it again outside the sandbox, once?";

/// Why the user is asked about a rerun, shown in the modal and sent with the request.
pub fn rerun_caution(denial: &Denial) -> String {
    format!(
        "the sandbox denied {}, so the command failed; accepting runs this same command once more, outside the sandbox",
        denial.what
    )
}

/// The rules that would have run `cmd_string` of `tool` as it needed, narrowest choice first
/// (the exact command, then its prefix; a command of several parts gets a rule a part in each
/// choice, since a lift applies only when every part's rule says so): no choice, with the
/// reason in `note`, when no rule can name it (a redirection, sayso's own files…).
pub fn rules(tool: &str, cmd_string: &str, denial: &Denial) -> RuleOffer {
    let remember = Remember::Command(cmd_string.to_owned());
    let mut offer = crate::tools::policy::rules::offer(tool, &remember);
    for rule in offer.choices.iter_mut().flatten() {
        match denial.kind {
            DenialKind::Network => rule.network = true,
            DenialKind::Write | DenialKind::Setup => rule.unsandboxed = true,
        }
    }
    offer
}

/// The line after the failure when the user declined the rerun (with their reason).
pub fn rerun_declined(denial: &Denial, reason: Option<&str>) -> String {
    let mut line = format!(
        "The sandbox denied {}; the user declined to rerun the command outside the sandbox",
        denial.what
    );
    match reason.map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) => line.push_str(&format!(", with the reason: \"{r}\"")),
        None => line.push('.'),
    }
    with_explanation(line, denial)
}

/// The line after the failure when no one can approve a rerun (headless, no approver): what
/// the user can add to their config so it runs without asking (`rules`, the narrowest choice:
/// one rule, or one a part of a command of several parts).
pub fn rerun_unavailable(denial: &Denial, rules: Option<&[RuleSpec]>) -> String {
    let line = format!(
        "The sandbox denied {}; sayso is running non-interactively, so no one can approve a rerun outside the sandbox.",
        denial.what
    );
    let mut line = with_explanation(line, denial);
    let how = match denial.kind {
        DenialKind::Network => "with the network",
        DenialKind::Write | DenialKind::Setup => "outside the sandbox",
    };
    match rules.filter(|r| !r.is_empty()) {
        Some(rules) => {
            let these = if rules.len() == 1 {
                "this rule"
            } else {
                "these rules (one for each part of the command)"
            };
            let blocks: Vec<String> = rules.iter().map(toml_block).collect();
            line.push_str(&format!(
                " To run this command {how} without asking, the user can add {these} to their sayso config (not a project's):\n```toml\n{}```",
                blocks.join("\n")
            ))
        }
        None => line.push_str(&format!(
            " To run it {how} without asking, the user can add an allow rule with `{}` for each command in it to their sayso config.",
            match denial.kind {
                DenialKind::Network => "network = true",
                DenialKind::Write | DenialKind::Setup => "sandbox = false",
            }
        )),
    }
    line
}

/// The line after the result of a rerun the user accepted: the first run's denial.
pub fn rerun_accepted(denial: &Denial) -> String {
    format!(
        "(The first run, inside the sandbox, failed: the sandbox denied {}. On the user's approval, this result is from running the command again outside the sandbox.)",
        denial.what
    )
}

fn with_explanation(mut line: String, denial: &Denial) -> String {
    if let Some(more) = denial.explanation() {
        line.push(' ');
        line.push_str(&more);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write() -> Denial {
        Denial {
            what: "a write to /etc/x (outside the places this command may write)".into(),
            kind: DenialKind::Write,
            path: Some("/etc/x".into()),
            address: None,
        }
    }

    fn loopback() -> Denial {
        Denial {
            what: "a connection to 127.0.0.1:8000 (the sandbox has no network, not even this machine's loopback)".into(),
            kind: DenialKind::Network,
            path: None,
            address: Some("127.0.0.1:8000".into()),
        }
    }

    #[test]
    fn the_texts_say_what_was_denied_and_the_reason() {
        let d = write();
        assert!(rerun_caution(&d).contains("denied a write to /etc/x"));
        assert!(rerun_caution(&d).contains("once more, outside the sandbox"));
        assert_eq!(
            rerun_declined(&d, Some(" not outside ")),
            "The sandbox denied a write to /etc/x (outside the places this command may write); the user declined to rerun the command outside the sandbox, with the reason: \"not outside\""
        );
        assert!(rerun_declined(&d, None).ends_with("outside the sandbox."));
        assert!(rerun_accepted(&d).contains("first run, inside the sandbox"));
    }

    #[test]
    fn the_narrowest_rule_lifts_what_was_denied_and_is_named_headless() {
        let write_rules: Vec<RuleSpec> = rules("run_command", "touch /etc/x", &write())
            .choices
            .into_iter()
            .flatten()
            .collect();
        assert!(!write_rules.is_empty());
        assert!(write_rules.iter().all(|r| r.unsandboxed && !r.network));
        let first = toml_block(&write_rules[0]);
        assert!(first.contains("match = \"touch /etc/x\"\n"), "{first}");
        assert!(first.contains("sandbox = false"), "{first}");
        let net_rules: Vec<RuleSpec> =
            rules("run_command", "curl http://127.0.0.1:8000/", &loopback())
                .choices
                .into_iter()
                .flatten()
                .collect();
        assert!(net_rules.iter().all(|r| r.network && !r.unsandboxed));

        let line = rerun_unavailable(&write(), Some(&write_rules[..1]));
        assert!(
            line.contains("no one can approve a rerun outside"),
            "{line}"
        );
        assert!(
            line.contains("```toml\n[[approvals.rules]]\ntool = \"run_command\"\nmatch = \"touch /etc/x\"\ndecision = \"allow\"\nsandbox = false\n```"),
            "{line}"
        );
        // A compound command: a rule a part, every one lifting the sandbox.
        let parts = rules("run_command", "touch /etc/x && echo hi", &write());
        assert_eq!(parts.choices[0].len(), 2, "{parts:?}");
        assert!(parts.choices.iter().flatten().all(|r| r.unsandboxed));
        let line = rerun_unavailable(&write(), Some(&parts.choices[0]));
        assert!(line.contains("one for each part"), "{line}");
        assert!(line.contains("match = \"echo hi\""), "{line}");
        // A command no rule can name: the words for each command.
        let none = rules("run_command", "touch /etc/x > /etc/y", &write());
        assert!(none.choices.is_empty(), "{none:?}");
        let line = rerun_unavailable(&write(), None);
        assert!(
            line.contains("`sandbox = false` for each command"),
            "{line}"
        );
    }

    #[test]
    fn a_loopback_denial_says_the_server_may_be_up_and_how_to_reach_it() {
        let d = loopback();
        for line in [rerun_unavailable(&d, None), rerun_declined(&d, None)] {
            assert!(
                line.contains("127.0.0.1:8000 is not reachable from inside"),
                "{line}"
            );
            assert!(line.contains("`[sandbox] allow_loopback = true`"), "{line}");
        }
        assert!(rerun_unavailable(&d, None).contains("`network = true`"));
    }
}
