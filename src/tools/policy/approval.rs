//! The approval decision (SPEC §5) as pure functions of the call's settings, the mode, the
//! remembered approvals and the gates' results — no IO, so one table-driven test covers it.
//!
//! The lifecycle computes a [`CallFacts`] for each queued call (from the tool's opts and its
//! [`Policy`](crate::tools::policy::Policy) for the call: its condition, the `is_safe` gate…, all
//! synchronous), asks [`decide`], and acts on the
//! [`Decision`]: run, send the call to the judge (then ask [`after_judge`]), ask the user, or —
//! headless — reject with [`non_interactive_rejection`]. A call that runs unasked runs on
//! [`Grounds`], which say how confined it runs and, in its tool block, why ([`unasked`]).
//!
//! Approvals belong to the mode that gave them (issue 36.7): what "Always accept" and the
//! judge remembered applies in that mode alone and is forgotten when the mode changes
//! ([`memory`]); a judge's verdict applies in auto only; strict means strict — no allow
//! rule, memory or judge runs anything there (deny and ask rules still apply, and so does
//! `--allowed-tools`, which names tools that never ask in any mode).

use serde_json::Value;

use crate::events::Unasked;
use crate::tools::tool::Kind;

pub use crate::events::Mode;
pub use memory::{Approvals, By, SharedMode};

/// Whether someone is there to answer (the TUI) or not (`-p`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interaction {
    Interactive,
    Headless,
}

pub use crate::config::approvals::RuleDecision;

/// The rule that decided a call, as the user and the model are told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleMatch {
    pub decision: RuleDecision,
    /// The rule and where it was written, e.g. `` `run_command match "git diff *" → allow` (~/.config/sayso/config.toml:12) ``.
    pub rule: String,
    /// An allow rule's `sandbox = false` (the call runs unconfined) and `network = true`
    /// (confined, with the network); only the user's own file may write them.
    pub unsandboxed: bool,
    pub network: bool,
}

/// Everything about one call that the decision depends on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallFacts {
    pub tool: String,
    pub cmd_string: String,
    /// What "Always accept" remembers and memory is checked against for a call remembered per
    /// call ([`call_key`]): exact, never the (possibly cut) display string.
    pub call_key: String,
    /// What the tool does: the approval mode's table is by kind.
    pub kind: Kind,
    /// `require_approval_before` (the config's over the tool's own), a `Condition` answered
    /// by the tool's condition for the call.
    pub requires_approval: bool,
    /// "Always accept" remembers the exact `cmd_string`, not the whole tool; in auto mode the
    /// call goes through approval.
    pub require_cmd_approval: bool,
    /// In auto mode the tool always asks (gates off).
    pub protect: bool,
    /// The `is_safe` gate's answer; `None` when the tool has no such gate.
    pub is_safe: Option<bool>,
    /// The judge may vet this call: `[judge] enabled`, the tool's `opts.judge`, and its
    /// policy gave the judge a context.
    pub judge_allowed: bool,
    /// Listed in `--allowed-tools` / `chat.allowed_tools`: never ask.
    pub allowed: bool,
    /// This call must be confirmed whatever else holds (a write outside the working directory
    /// or to a protected path), and why: not memory, not the allow-list, not a rule, not the
    /// mode can waive it.
    pub force_ask: Option<String>,
    /// This call asks the user in the modes that would run it unasked (auto, trust, an allow
    /// rule), and why: e.g. a safe-list git command in a repository whose config names
    /// programs.
    pub caution: Option<String>,
    /// The tool is itself a question to the user (`ask_questions`): never approved.
    pub is_question: bool,
    /// A read outside the working directory, and where: strict mode asks.
    pub reads_outside: Option<String>,
    /// The most specific approval rule that matches the call.
    pub rule: Option<RuleMatch>,
    /// An OS sandbox confines the chat's commands (its mode is not `off`): a safe-list command
    /// may then run unasked, read-only, in balanced and suggest mode.
    pub sandboxed: bool,
}

/// What to do with a queued call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Run,
    /// Run, and remember the call's [`call_key`] (the judge found it safe).
    RunAndRemember,
    /// Ask the LLM judge, then call [`after_judge`].
    Judge,
    /// Ask the user; `judge_reason` when the judge sent the call here, `caution` when the call
    /// is protected for a reason the user should read; `once`: "Always accept" remembers
    /// nothing (the call must ask every time).
    Ask {
        judge_reason: Option<String>,
        caution: Option<String>,
        once: bool,
    },
    /// No one may run it, or no one is there to ask: the call is rejected with this text for
    /// the model.
    Reject {
        message: String,
    },
}

/// What is remembered for one call of a tool remembered per call (`require_cmd_approval`):
/// a shell tool's whole command (its `cmd_string` is exactly what runs, uncut), any other
/// tool's name and its arguments as canonical JSON (keys sorted, no spaces, nothing cut). Two
/// calls share a key only when they would do the same thing; a shortened display string is
/// never a key (an MCP call's `cmd_string` is this key itself).
pub fn call_key(tool: &str, kind: Kind, cmd_string: &str, args: &Value) -> String {
    if kind == Kind::Shell {
        return cmd_string.to_owned();
    }
    let mut key = format!("{tool} ");
    canonical_json(args, &mut key);
    key
}

/// `v` as compact JSON with every object's keys sorted, whatever order it was parsed in.
fn canonical_json(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical_json(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical_json(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The text the model receives when a headless run needed an approval (SPEC §5.4).
pub fn non_interactive_rejection(tool: &str) -> String {
    format!(
        "Approval required for `{tool}` but sayso is running non-interactively; rerun with --auto or --allowed-tools"
    )
}

/// The same for a call only a user may approve, with the reason.
pub fn non_interactive_caution(tool: &str, caution: &str) -> String {
    format!(
        "Approval required for `{tool}` but sayso is running non-interactively: {caution}. Only a user can approve this call."
    )
}

/// The text the model receives for a call a `deny` rule refuses.
pub fn denied_by_rule(rule: &str) -> String {
    format!("The call was denied by the approval rule {rule}; do not retry it, find another way.")
}

fn ask(
    judge_reason: Option<String>,
    caution: Option<String>,
    once: bool,
    interaction: Interaction,
    tool: &str,
) -> Decision {
    match interaction {
        Interaction::Interactive => Decision::Ask {
            judge_reason,
            caution,
            once,
        },
        Interaction::Headless => Decision::Reject {
            message: match &caution {
                Some(c) => non_interactive_caution(tool, c),
                None => non_interactive_rejection(tool),
            },
        },
    }
}

/// The decision for one queued call, in this order (first that applies):
/// 1. a `deny` rule: rejected, in every mode;
/// 2. `ask_questions`: runs (it is itself a question to the user);
/// 3. a write outside the project or to a protected path (`force_ask`): asks, every time;
/// 4. an `ask` rule: asks, every time;
/// 5. `--allowed-tools`, or an `allow` rule (not in strict mode): runs — unless `caution`
///    (then asks);
/// 6. remembered ("Always accept", the judge's verdict) in this very mode — except where the
///    mode remembers nothing (strict; suggest for edits), and a verdict in auto only: runs;
/// 7. the mode's table by kind (see [`by_mode`]).
pub fn decide(
    facts: &CallFacts,
    mode: Mode,
    memory: &Approvals,
    interaction: Interaction,
) -> Decision {
    decide_on(facts, mode, memory, interaction).0
}

/// What made [`decide`] run a call unasked: the sandbox confines each its own way
/// ([`crate::tools::policy::confinement`]), and the tool block says which ([`unasked`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grounds {
    /// `ask_questions`, itself a question to the user.
    Question,
    /// `--allowed-tools` / `chat.allowed_tools`.
    Allowed,
    /// An `allow` rule.
    Rule,
    /// Remembered in this mode: the user's "Always accept", or the judge's verdict (auto).
    Remembered(By),
    /// The tool's `is_safe` gate (the safe list) said safe: auto mode, or balanced and
    /// suggest inside a sandbox.
    SafeList,
    /// The mode's table (trust, or the tool's own setting says no approval).
    Mode,
}

/// The allow rule of the call that applies in `mode`, if any: none in strict mode, where
/// allow rules neither run a call unasked nor lift its sandbox.
pub fn allow_rule(facts: &CallFacts, mode: Mode) -> Option<&RuleMatch> {
    facts
        .rule
        .as_ref()
        .filter(|r| r.decision == RuleDecision::Allow && mode != Mode::Strict)
}

/// Why a call the decision ran on `grounds` in `mode` ran unasked, for its tool block;
/// `None` for `ask_questions` (itself a question to the user).
pub fn unasked(facts: &CallFacts, grounds: Grounds, mode: Mode) -> Option<Unasked> {
    Some(match grounds {
        Grounds::Question => return None,
        Grounds::Allowed => Unasked::AllowedTools,
        Grounds::Rule => Unasked::Rule {
            rule: allow_rule(facts, mode).map(|r| r.rule.clone())?,
        },
        Grounds::Remembered(By::User) => Unasked::Remembered { mode },
        Grounds::Remembered(By::Judge) => Unasked::JudgeRemembered,
        Grounds::SafeList => Unasked::SafeList { mode },
        Grounds::Mode => Unasked::Mode { mode },
    })
}

/// [`decide`], with the grounds of a [`Decision::Run`] (`None` for any other decision).
pub fn decide_on(
    facts: &CallFacts,
    mode: Mode,
    memory: &Approvals,
    interaction: Interaction,
) -> (Decision, Option<Grounds>) {
    let ask_user =
        |caution: Option<String>, once| ask(None, caution, once, interaction, &facts.tool);
    let rule = facts.rule.as_ref();
    if let Some(r) = rule.filter(|r| r.decision == RuleDecision::Deny) {
        let message = denied_by_rule(&r.rule);
        return (Decision::Reject { message }, None);
    }
    if facts.is_question {
        return (Decision::Run, Some(Grounds::Question));
    }
    if let Some(why) = &facts.force_ask {
        return (ask_user(Some(why.clone()), true), None);
    }
    if let Some(r) = rule.filter(|r| r.decision == RuleDecision::Ask) {
        let asks = format!("the rule {} asks", r.rule);
        let why = match &facts.caution {
            Some(caution) => format!("{caution}; and {asks}"),
            None => asks,
        };
        return (ask_user(Some(why), true), None);
    }
    let grounds = if facts.allowed {
        Some(Grounds::Allowed)
    } else {
        allow_rule(facts, mode).map(|_| Grounds::Rule)
    };
    if let Some(grounds) = grounds {
        return match &facts.caution {
            Some(why) => (ask_user(Some(why.clone()), false), None),
            None => (Decision::Run, Some(grounds)),
        };
    }
    let remembers = match mode {
        Mode::Strict => false,
        Mode::Suggest => facts.kind != Kind::FileEdit,
        _ => true,
    };
    let recalled = memory.recall(
        mode,
        &facts.tool,
        &facts.call_key,
        facts.require_cmd_approval,
    );
    if let Some(by) = recalled.filter(|_| remembers) {
        return (Decision::Run, Some(Grounds::Remembered(by)));
    }
    by_mode_on(facts, mode, interaction)
}

/// The approval mode's table (README "Approval policy"), for a call no rule, allow-list or
/// memory decided.
///
/// | kind      | trust | auto                      | balanced, suggest                  | strict          |
/// |-----------|-------|---------------------------|------------------------------------|-----------------|
/// | read_only | run   | run                       | tool's                             | run; outside the project: ask |
/// | file_edit | run   | run (`protect`: ask)      | tool's (suggest: ask, each edit)   | ask, every time |
/// | shell     | run   | safe list, judge, else ask| sandboxed safe list, else tool's   | ask, every time |
/// | network   | run   | judge, else ask           | tool's                             | ask, every time |
/// | other     | run   | run (`protect`: ask)      | tool's                             | ask, every time |
///
/// "tool's" is the tool's `require_approval_before` (SPEC §5.2). "sandboxed safe list": a
/// command the `is_safe` gate passes runs unasked, read-only, when an OS sandbox confines the
/// chat's commands (without one it asks). `caution` asks in trust and auto, and where the
/// safe list would run a call. In auto, `protect` asks, and a shell tool's calls (every
/// command tool) and network calls go through the gates: the safe list, then the judge.
pub fn by_mode(facts: &CallFacts, mode: Mode, interaction: Interaction) -> Decision {
    by_mode_on(facts, mode, interaction).0
}

/// [`by_mode`], with the grounds of a run.
fn by_mode_on(
    facts: &CallFacts,
    mode: Mode,
    interaction: Interaction,
) -> (Decision, Option<Grounds>) {
    let run = |grounds| (Decision::Run, Some(grounds));
    let ask_user =
        |caution: Option<String>, once| (ask(None, caution, once, interaction, &facts.tool), None);
    let tools_own = || {
        if facts.requires_approval {
            ask_user(None, false)
        } else {
            run(Grounds::Mode)
        }
    };
    // Balanced and suggest: a safe-list command runs unasked, read-only, inside a sandbox.
    let safe_list_or_tools_own = || {
        let safe_listed = facts.kind == Kind::Shell && facts.is_safe == Some(true);
        if !(safe_listed && facts.sandboxed && facts.requires_approval) {
            return tools_own();
        }
        match &facts.caution {
            Some(why) => ask_user(Some(why.clone()), false),
            None => run(Grounds::SafeList),
        }
    };
    match mode {
        Mode::Trust => match &facts.caution {
            Some(why) => ask_user(Some(why.clone()), false),
            None => run(Grounds::Mode),
        },
        Mode::Auto => {
            if facts.protect || facts.caution.is_some() {
                return ask_user(facts.caution.clone(), false);
            }
            let gated =
                facts.require_cmd_approval || matches!(facts.kind, Kind::Network | Kind::Shell);
            if !gated || !facts.requires_approval {
                return run(Grounds::Mode);
            }
            if facts.is_safe == Some(true) {
                return run(Grounds::SafeList);
            }
            if facts.judge_allowed {
                return (Decision::Judge, None);
            }
            ask_user(None, false)
        }
        Mode::Balanced => safe_list_or_tools_own(),
        Mode::Suggest => match facts.kind {
            Kind::FileEdit => ask_user(None, true),
            _ => safe_list_or_tools_own(),
        },
        Mode::Strict => match facts.kind {
            Kind::ReadOnly => match &facts.reads_outside {
                Some(path) => ask_user(Some(format!("a read outside the project: {path}")), true),
                None => tools_own(),
            },
            _ => ask_user(None, true),
        },
    }
}

/// The judge's verdict on a call that [`decide`] sent to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub safe: bool,
    pub reason: String,
}

pub fn after_judge(facts: &CallFacts, verdict: &Verdict, interaction: Interaction) -> Decision {
    if verdict.safe {
        Decision::RunAndRemember
    } else {
        ask(
            Some(verdict.reason.clone()),
            None,
            false,
            interaction,
            &facts.tool,
        )
    }
}

mod memory;
pub mod summary;

#[cfg(test)]
mod tests;
