//! Plan mode: while it is on, only calls that change nothing run — read-only tools, the
//! questions to the user, and shell commands the safe list knows to be read-only — and every
//! other call is refused with a message telling the model to present its plan instead. The
//! model is told so with each message sent in plan mode ([`INSTRUCTION`]); when the user
//! accepts the plan, plan mode goes off and [`ACCEPTED`] is sent.
//!
//! Plan mode is a flag beside the approval mode, not a sixth mode: the lifecycle checks it
//! ([`refusal`]) before the approval decision, which then decides the calls it lets through as
//! the approval mode says (so a read outside the project still asks in strict). Turning plan
//! mode off leaves the approval mode as it was. This module holds the flag and the check only;
//! it neither runs nor asks anything.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::sandbox::Confinement;
use crate::tools::policy::approval::CallFacts;
use crate::tools::tool::Kind;

/// Whether plan mode is on, shared between the engine (which checks it before each decision)
/// and whoever switches it (`/plan`, the mode key, `--plan`).
#[derive(Debug, Clone, Default)]
pub struct SharedPlan(Arc<AtomicBool>);

impl SharedPlan {
    pub fn new(on: bool) -> Self {
        Self(Arc::new(AtomicBool::new(on)))
    }

    pub fn get(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    pub fn set(&self, on: bool) {
        self.0.store(on, Ordering::Relaxed);
    }
}

/// Added to each user message sent in plan mode.
pub const INSTRUCTION: &str = "[Plan mode is on: investigate with read-only tools only (no edits, no commands that change anything), then reply with a short plan of the steps you would take — also as a `todo` list — and stop. The user will accept the plan or send feedback; do not carry it out before that.]";

/// The message that carries out an accepted plan.
pub const ACCEPTED: &str = "The plan is accepted: carry it out now.";

/// The message as sent to the model: with [`INSTRUCTION`] when plan mode is on.
pub fn sent_text(text: String, plan: bool) -> String {
    if plan {
        format!("{text}\n\n{INSTRUCTION}")
    } else {
        text
    }
}

/// How confined a call plan mode lets through runs: read-only while plan mode is on, whatever
/// the approval decision (or a rule's `sandbox = false`) said, so even a command the safe list
/// misjudged changes nothing; as decided otherwise. A rerun outside the sandbox the user
/// accepts after a denial is the user's own decision and is not this.
pub fn confined(plan: bool, decided: Confinement) -> Confinement {
    if plan { Confinement::ReadOnly } else { decided }
}

/// Why plan mode refuses this call (the tool message the model gets), or `None` when the call
/// goes on to the approval decision.
///
/// | plan | call                                        | result  |
/// |------|---------------------------------------------|---------|
/// | off  | any                                         | decide  |
/// | on   | read-only tool (`read_file`, `todo`…)       | decide  |
/// | on   | a question to the user (`ask_questions`)    | decide  |
/// | on   | shell command the safe list says is safe    | decide  |
/// | on   | anything else (edits, other commands, network, MCP) | refused |
pub fn refusal(plan: bool, facts: &CallFacts) -> Option<String> {
    if !plan {
        return None;
    }
    let read_only = match facts.kind {
        Kind::ReadOnly => true,
        Kind::Shell => facts.is_safe == Some(true),
        Kind::FileEdit | Kind::Network | Kind::Other => false,
    };
    if read_only || facts.is_question {
        return None;
    }
    Some(format!(
        "Plan mode is on: `{}` was not run, because only read-only tools run until the user accepts a plan. Finish investigating with read-only tools, then present your plan (the steps, and a `todo` list) and end your turn.",
        facts.tool
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_mode_runs_whatever_it_lets_through_read_only() {
        for decided in [
            Confinement::Policy,
            Confinement::ReadOnly,
            Confinement::WithNetwork,
            Confinement::Unconfined,
        ] {
            assert_eq!(
                confined(true, decided),
                Confinement::ReadOnly,
                "{decided:?}"
            );
            assert_eq!(confined(false, decided), decided, "{decided:?}");
        }
    }

    fn facts(tool: &str, kind: Kind, is_safe: Option<bool>, is_question: bool) -> CallFacts {
        CallFacts {
            tool: tool.into(),
            cmd_string: tool.into(),
            call_key: tool.into(),
            kind,
            requires_approval: false,
            require_cmd_approval: false,
            protect: false,
            is_safe,
            judge_allowed: false,
            allowed: false,
            force_ask: None,
            caution: None,
            is_question,
            reads_outside: None,
            rule: None,
            sandboxed: false,
        }
    }

    #[test]
    fn plan_mode_lets_only_read_only_calls_through() {
        let cases = [
            (false, facts("edit_file", Kind::FileEdit, None, false), true),
            (
                false,
                facts("run_command", Kind::Shell, Some(false), false),
                true,
            ),
            (true, facts("read_file", Kind::ReadOnly, None, false), true),
            (true, facts("todo", Kind::ReadOnly, None, false), true),
            (true, facts("ask_questions", Kind::Other, None, true), true),
            (
                true,
                facts("run_command", Kind::Shell, Some(true), false),
                true,
            ),
            (
                true,
                facts("run_command", Kind::Shell, Some(false), false),
                false,
            ),
            (true, facts("run_command", Kind::Shell, None, false), false),
            (true, facts("edit_file", Kind::FileEdit, None, false), false),
            (
                true,
                facts("create_file", Kind::FileEdit, None, false),
                false,
            ),
            (
                true,
                facts("fetch_webpage", Kind::Network, None, false),
                false,
            ),
            (true, facts("memory", Kind::Other, None, false), false),
            (true, facts("mcp_tool", Kind::Other, None, false), false),
        ];
        for (plan, f, passes) in cases {
            let got = refusal(plan, &f);
            assert_eq!(got.is_none(), passes, "plan={plan} {}: {got:?}", f.tool);
            if let Some(m) = got {
                assert!(m.contains("Plan mode is on") && m.contains(&f.tool), "{m}");
            }
        }
    }

    #[test]
    fn the_instruction_joins_messages_sent_in_plan_mode() {
        assert_eq!(sent_text("fix it".into(), false), "fix it");
        let sent = sent_text("fix it".into(), true);
        assert!(sent.starts_with("fix it\n\n[Plan mode is on"), "{sent}");
        let shared = SharedPlan::default();
        assert!(!shared.get());
        shared.clone().set(true);
        assert!(shared.get());
    }
}
