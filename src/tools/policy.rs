//! Whether a call may run (SPEC §5): every decision about a call short of running it.
//!
//! - [`Policy`] (here): what a tool says about one call before the decision.
//! - [`approval`]: the decision as a pure function of settings, mode, memory and gates.
//! - [`rules`]: `[[approvals.rules]]` matched against a call (deny/ask through wrappers, what
//!   allow never covers, path rules for every tool that reads).
//! - [`command_safety`]: the deterministic `is_safe` gate for shell commands, and the
//!   normaliser that reads a command line into the programs it really runs (for rules).
//! - [`judge`]: the LLM judge that vets calls in auto mode.
//! - [`plan`]: plan mode's flag and its check, before the approval decision.
//! - [`confinement`]: how confined a call that runs is (an allow rule's `sandbox = false` /
//!   `network = true`, the safe list read-only), and the words of a rerun outside the sandbox.
//!
//! Nothing here runs a command or talks to the user: the lifecycle asks, its driver performs.
//!
//! **The policy.** What a tool says about one call before the approval decision (SPEC §5): the seed's
//! approval-related hooks — the approval predicate and `prompt_condition`, the `is_safe` gate,
//! the judge's context, a forced ask, a caution, a read outside the project — as one typed
//! [`Policy`], which [`crate::tools::tool::Tool::policy`] returns once per call.
//!
//! Precedence: a config entry's `require_approval_before = true / false` wins over the tool's
//! own default and its condition ([`requires_approval`]): a tool with a condition says so with
//! `require_approval_before = ApprovalBefore::Condition` in its opts, which the config's merge
//! over them replaces. The decision itself is not here:
//! `approval::decide` reads the facts built from a `Policy`; the lifecycle calls the hook.

pub mod approval;
pub mod command_safety;
pub mod confinement;
pub mod judge;
pub mod plan;
pub mod rules;

pub use crate::config::opts::ApprovalBefore;

/// A tool's word on one call. [`Policy::default`] says nothing: no condition against asking,
/// no gate, no judge, no forced ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// Whether this call asks when `require_approval_before` is [`ApprovalBefore::Condition`]
    /// (the tool's default, or a config value that is neither true nor false).
    pub condition: bool,
    /// The deterministic safety gate of auto mode; `None` = no gate.
    pub is_safe: Option<bool>,
    /// What the judge is told this call does; `None` = the judge cannot vet it.
    pub judge_context: Option<String>,
    /// This call must be confirmed whatever the mode and memory (a write outside the working
    /// directory or to a protected path), and why.
    pub must_ask: Option<String>,
    /// In the modes that would run this call unasked (auto, trust, an allow rule) it asks the
    /// user instead, and why; remembered approvals still apply.
    pub caution: Option<String>,
    /// A read outside the working directory, and what it reads: strict mode asks.
    pub reads_outside: Option<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            condition: true,
            is_safe: None,
            judge_context: None,
            must_ask: None,
            caution: None,
            reads_outside: None,
        }
    }
}

impl Policy {
    /// The policy of a call whose tool failed to say (its hook panicked): it asks, no gate
    /// passes it and the judge is not asked.
    pub fn failed(why: &str) -> Self {
        let reason = format!("the tool failed to check: {why}");
        Self {
            condition: true,
            is_safe: Some(false),
            judge_context: None,
            must_ask: Some(reason.clone()),
            caution: Some(reason),
            reads_outside: Some("a path the tool failed to check".into()),
        }
    }
}

/// Whether a call asks before it runs, by its `require_approval_before` (the tool's own opts
/// with the config entry's merged over them, so a config `true` or `false` wins over the tool's
/// default and its condition); [`ApprovalBefore::Condition`] leaves it to the call's
/// `condition`.
pub fn requires_approval(setting: ApprovalBefore, condition: bool) -> bool {
    match setting {
        ApprovalBefore::Always => true,
        ApprovalBefore::Never => false,
        ApprovalBefore::Condition => condition,
    }
}

#[cfg(test)]
mod tests {
    use super::ApprovalBefore::{Always, Condition, Never};
    use super::*;

    #[test]
    fn the_config_wins_over_the_tools_default_and_its_condition() {
        use crate::config::opts::Opts;
        let opts = |a: Option<ApprovalBefore>| Opts {
            require_approval_before: a,
            ..Opts::default()
        };
        // (config, the tool's default, the call's condition, asks)
        let rows = [
            (None, None, true, false),
            (None, Some(Always), false, true),
            (None, Some(Condition), true, true),
            (None, Some(Condition), false, false),
            (Some(Always), Some(Condition), false, true),
            (Some(Never), Some(Condition), true, false),
            (Some(Never), Some(Always), true, false),
            (Some(Always), Some(Never), false, true),
            (Some(Condition), None, true, true),
            (Some(Condition), Some(Always), false, false),
        ];
        for (config, tool, condition, want) in rows {
            let merged = opts(tool).merged(&opts(config));
            assert_eq!(
                requires_approval(merged.approval_before(), condition),
                want,
                "{config:?} {tool:?} {condition}"
            );
        }
    }

    #[test]
    fn a_failed_policy_asks_and_passes_no_gate() {
        let p = Policy::failed("boom");
        assert_eq!(p.is_safe, Some(false));
        assert!(p.must_ask.is_some_and(|w| w.contains("boom")));
        assert!(p.judge_context.is_none());
    }
}
