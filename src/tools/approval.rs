//! The approval decision (SPEC §5) as pure functions of the call's settings, the mode, the
//! remembered approvals and the gates' results — no IO, so one table-driven test covers it.
//!
//! The orchestrator computes a [`CallFacts`] for each queued call (evaluating predicates and
//! `prompt_condition` and the `is_safe` gate, all synchronous), asks [`decide`], and acts on the
//! [`Decision`]: run, send the call to the judge (then ask [`after_judge`]), ask the user, or —
//! headless — reject with [`non_interactive_rejection`].

use std::collections::BTreeSet;

pub use crate::events::Mode;

/// The mode, shared between the engine and whoever toggles it (the TUI's `/auto`), so a toggle
/// applies to the very next decision, even in the middle of a batch.
#[derive(Debug, Clone, Default)]
pub struct SharedMode(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl SharedMode {
    pub fn new(mode: Mode) -> Self {
        let s = Self::default();
        s.set(mode);
        s
    }

    pub fn get(&self) -> Mode {
        if self.0.load(std::sync::atomic::Ordering::Relaxed) {
            Mode::Auto
        } else {
            Mode::Normal
        }
    }

    pub fn set(&self, mode: Mode) {
        self.0
            .store(mode == Mode::Auto, std::sync::atomic::Ordering::Relaxed);
    }
}

impl From<Mode> for SharedMode {
    fn from(m: Mode) -> Self {
        Self::new(m)
    }
}

/// Whether someone is there to answer (the TUI) or not (`-p`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interaction {
    Interactive,
    Headless,
}

/// Everything about one call that the decision depends on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallFacts {
    pub tool: String,
    pub cmd_string: String,
    /// `require_approval_before`, after its predicate or `prompt_condition` was evaluated.
    pub requires_approval: bool,
    /// "Always accept" remembers the exact `cmd_string`, not the whole tool; in auto mode the
    /// call goes through approval.
    pub require_cmd_approval: bool,
    /// In auto mode the tool always asks (gates off).
    pub protect: bool,
    /// The `is_safe` gate's answer; `None` when the tool has no such gate.
    pub is_safe: Option<bool>,
    /// The judge may vet this call: `[judge] enabled`, the tool's `opts.judge`, and
    /// `judge_context` returned a description.
    pub judge_allowed: bool,
    /// Listed in `--allowed-tools` / `chat.allowed_tools`: never ask.
    pub allowed: bool,
    /// This call must be confirmed whatever else holds (a write outside the working directory
    /// or to a protected path), and why: not memory, not the allow-list, not auto mode can
    /// waive it.
    pub force_ask: Option<String>,
    /// In auto mode this call asks the user, gates off (like `protect`, for this call only),
    /// and why: e.g. a safe-list git command in a repository whose config names programs.
    pub caution: Option<String>,
}

/// What to do with a queued call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Run,
    /// Run, and remember the call's `cmd_string` (the judge found it safe).
    RunAndRemember,
    /// Ask the LLM judge, then call [`after_judge`].
    Judge,
    /// Ask the user; `judge_reason` when the judge sent the call here, `caution` when the call
    /// is protected for a reason the user should read.
    Ask {
        judge_reason: Option<String>,
        caution: Option<String>,
    },
    /// Headless and approval is needed: the call is rejected with this text for the model.
    Reject {
        message: String,
    },
}

/// "Always accept" memory for one chat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Approvals {
    tools: BTreeSet<String>,
    commands: BTreeSet<(String, String)>,
}

impl Approvals {
    pub fn is_approved(&self, tool: &str, cmd_string: &str, require_cmd_approval: bool) -> bool {
        if require_cmd_approval {
            self.commands
                .contains(&(tool.to_owned(), cmd_string.to_owned()))
        } else {
            self.tools.contains(tool)
        }
    }

    /// Remembers the exact command when `require_cmd_approval`, else the whole tool.
    pub fn always(&mut self, tool: &str, cmd_string: &str, require_cmd_approval: bool) {
        if require_cmd_approval {
            self.commands
                .insert((tool.to_owned(), cmd_string.to_owned()));
        } else {
            self.tools.insert(tool.to_owned());
        }
    }

    /// What is remembered, for `/approvals`: whole tools, then (tool, command) pairs.
    pub fn list(&self) -> (Vec<&str>, Vec<(&str, &str)>) {
        (
            self.tools.iter().map(String::as_str).collect(),
            self.commands
                .iter()
                .map(|(t, c)| (t.as_str(), c.as_str()))
                .collect(),
        )
    }

    pub fn clear(&mut self) {
        self.tools.clear();
        self.commands.clear();
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

fn ask(
    judge_reason: Option<String>,
    caution: Option<String>,
    interaction: Interaction,
    tool: &str,
) -> Decision {
    match interaction {
        Interaction::Interactive => Decision::Ask {
            judge_reason,
            caution,
        },
        Interaction::Headless => Decision::Reject {
            message: match &caution {
                Some(c) => non_interactive_caution(tool, c),
                None => non_interactive_rejection(tool),
            },
        },
    }
}

/// The decision for one queued call.
pub fn decide(
    facts: &CallFacts,
    mode: Mode,
    memory: &Approvals,
    interaction: Interaction,
) -> Decision {
    if let Some(why) = &facts.force_ask {
        return ask(None, Some(why.clone()), interaction, &facts.tool);
    }
    if facts.allowed
        || memory.is_approved(&facts.tool, &facts.cmd_string, facts.require_cmd_approval)
    {
        return Decision::Run;
    }
    match mode {
        Mode::Normal => {
            if facts.requires_approval {
                ask(None, None, interaction, &facts.tool)
            } else {
                Decision::Run
            }
        }
        Mode::Auto => {
            if facts.protect {
                return ask(None, facts.caution.clone(), interaction, &facts.tool);
            }
            if let Some(why) = &facts.caution {
                return ask(None, Some(why.clone()), interaction, &facts.tool);
            }
            if !facts.require_cmd_approval || !facts.requires_approval {
                return Decision::Run;
            }
            if facts.is_safe == Some(true) {
                return Decision::Run;
            }
            if facts.judge_allowed {
                return Decision::Judge;
            }
            ask(None, None, interaction, &facts.tool)
        }
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
        ask(Some(verdict.reason.clone()), None, interaction, &facts.tool)
    }
}

#[cfg(test)]
mod tests;
