//! The `allow` rules the approval modal's `s` offers to save for a call, and why when it
//! offers none.
//!
//! For a single plain command: exactly it and its prefix (`git diff *`); for a command of
//! several plain parts (`git diff && cargo test`): the same for every part, saved together —
//! a command runs unasked only when a rule allows each part; for a tool remembered whole, the
//! tool; nothing for a call that must always ask. Nothing either for a command that itself
//! uses what no allow rule covers — a redirection, substitution, expansion, glob, background
//! job or group, a wrapper or an option the safe list refuses (`git diff --output=F`,
//! `grep -R`), or a path under `/proc`, a device or `/` — so saving never turns a refusal into
//! a habit; then the offer says why. A prefix saved for a harmless call still never covers
//! those forms (the matching refuses them, see the parent module). The rules offered never
//! lift the sandbox (`sandbox = false`, `network = true` are written by hand).

use std::path::Path;

use super::paths::path_words;
use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};
use crate::tools::builtin::paths::resolve;
use crate::tools::builtin::protected::shell_arg_refusal;
use crate::tools::lifecycle::requests::Remember;
use crate::tools::policy::command_safety::{argv_refusal, rule_segments};

/// What `s` offers for a call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuleOffer {
    /// Each choice is the rules saved together: one for a single command or a tool, one a
    /// part for a command of several parts.
    pub choices: Vec<Vec<RuleSpec>>,
    /// What the choices mean for a command of several parts, or why nothing is offered.
    pub note: Option<String>,
}

/// [`candidates_in`] the process's working directory (the chat's).
pub fn candidates(tool: &str, remember: &Remember) -> Vec<RuleSpec> {
    let cwd = std::env::current_dir().unwrap_or_default();
    candidates_in(tool, remember, &cwd)
}

/// The rules offered for a call that is not a command of several parts (whose relative paths
/// are under `cwd`): each choice of [`offer_in`] is then one rule.
pub fn candidates_in(tool: &str, remember: &Remember, cwd: &Path) -> Vec<RuleSpec> {
    let offer = offer_in(tool, remember, cwd);
    if offer.choices.iter().any(|c| c.len() != 1) {
        return Vec::new();
    }
    offer.choices.into_iter().flatten().collect()
}

/// [`offer_in`] the process's working directory (the chat's).
pub fn offer(tool: &str, remember: &Remember) -> RuleOffer {
    let cwd = std::env::current_dir().unwrap_or_default();
    offer_in(tool, remember, &cwd)
}

fn allow(tool: &str, target: RuleTarget) -> RuleSpec {
    RuleSpec {
        tool: tool.to_owned(),
        target,
        decision: RuleDecision::Allow,
        source: String::new(),
        project: false,
        unsandboxed: false,
        network: false,
    }
}

/// The rules `s` offers for a call whose relative paths are under `cwd`, or why none.
pub fn offer_in(tool: &str, remember: &Remember, cwd: &Path) -> RuleOffer {
    let command = match remember {
        Remember::Nothing => return RuleOffer::default(),
        Remember::Tool(_) => {
            return RuleOffer {
                choices: vec![vec![allow(tool, RuleTarget::Any)]],
                note: None,
            };
        }
        Remember::Command(c) | Remember::Call { display: c, .. } => c,
    };
    let none = |why: String| RuleOffer {
        choices: Vec::new(),
        note: Some(format!("no rule can be saved for this command: {why}")),
    };
    let parts = match rule_segments(command) {
        Ok((_, Some(hazard))) => {
            return none(format!("{hazard}, and no allow rule covers that"));
        }
        Ok((segments, None)) if !segments.is_empty() => segments,
        Ok(_) => return RuleOffer::default(),
        Err(e) => return none(e.to_string()),
    };
    let mut exact = Vec::new();
    let mut prefixes = Vec::new();
    for argv in &parts {
        match part_rules(argv, cwd) {
            Ok((e, p)) => {
                exact.push(e);
                prefixes.push(p);
            }
            Err(why) => return none(why),
        }
    }
    let rules = |patterns: Vec<String>| -> Vec<RuleSpec> {
        let mut seen: Vec<String> = Vec::new();
        for p in patterns {
            if !seen.contains(&p) {
                seen.push(p);
            }
        }
        seen.into_iter()
            .map(|p| allow(tool, RuleTarget::Command(p)))
            .collect()
    };
    let exact = rules(exact);
    let prefixes = rules(prefixes);
    let several = exact.len() > 1;
    let mut choices = vec![exact];
    if prefixes != choices[0] {
        choices.push(prefixes);
    }
    let note = several.then(|| {
        format!(
            "this command has {} parts, and a command runs unasked only when a rule allows each part: each choice saves a rule for every part (a rule's `sandbox = false` or `network = true` applies to a command only when every part's rule says so)",
            parts.len()
        )
    });
    RuleOffer { choices, note }
}

/// The exact pattern and the prefix pattern (`git diff *`) of one plain part, or why no rule
/// may cover it.
fn part_rules(argv: &[String], cwd: &Path) -> Result<(String, String), String> {
    let shown = shell_words::join(argv);
    if argv.is_empty() {
        return Err("it has an empty part".into());
    }
    if argv.iter().any(|w| w.contains('*')) {
        return Err(format!(
            "`{shown}` has a `*`, which a rule would read as a wildcard"
        ));
    }
    if let Some(why) = argv_refusal(argv) {
        return Err(format!("{why}, and no allow rule covers that"));
    }
    if let Some(why) = path_words(argv).find_map(|w| shell_arg_refusal(&resolve(cwd, w).path)) {
        return Err(format!("`{shown}`: {why}"));
    }
    let stem = match argv.get(1) {
        Some(sub) if !sub.starts_with('-') && argv.len() > 2 => 2,
        _ => 1,
    };
    Ok((shown, format!("{} *", shell_words::join(&argv[..stem]))))
}
