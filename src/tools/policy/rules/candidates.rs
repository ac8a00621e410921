//! The `allow` rules the approval modal's `s` offers to save for a call.
//!
//! For a command (a single plain one): exactly it and its prefix (`git diff *`); for a tool
//! remembered whole, the tool; nothing for a call that must always ask. Nothing either for a
//! command that itself uses what no allow rule covers — a wrapper or an option the safe list
//! refuses (`git diff --output=F`, `grep -R`), or a path under `/proc`, a device or `/` — so
//! saving never turns a refusal into a habit. A prefix saved for a harmless call still never
//! covers those forms (the matching refuses them, see the parent module).

use std::path::Path;

use super::paths::path_words;
use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};
use crate::tools::builtin::paths::resolve;
use crate::tools::builtin::protected::shell_arg_refusal;
use crate::tools::lifecycle::requests::Remember;
use crate::tools::policy::command_safety::{argv_refusal, rule_segments};

/// [`candidates_in`] the process's working directory (the chat's).
pub fn candidates(tool: &str, remember: &Remember) -> Vec<RuleSpec> {
    let cwd = std::env::current_dir().unwrap_or_default();
    candidates_in(tool, remember, &cwd)
}

/// The rules offered for a call whose relative paths are under `cwd`.
pub fn candidates_in(tool: &str, remember: &Remember, cwd: &Path) -> Vec<RuleSpec> {
    let rule = |target| RuleSpec {
        tool: tool.to_owned(),
        target,
        decision: RuleDecision::Allow,
        source: String::new(),
        project: false,
        unsandboxed: false,
        network: false,
    };
    match remember {
        Remember::Nothing => Vec::new(),
        Remember::Tool(_) => vec![rule(RuleTarget::Any)],
        Remember::Command(c) | Remember::Call { display: c, .. } => {
            let argv = match rule_segments(c) {
                Ok((mut segments, None)) if segments.len() == 1 => segments.remove(0),
                _ => return Vec::new(),
            };
            if argv.is_empty() || argv.iter().any(|w| w.contains('*')) {
                return Vec::new();
            }
            let refused_path =
                path_words(&argv).any(|w| shell_arg_refusal(&resolve(cwd, w).path).is_some());
            if argv_refusal(&argv).is_some() || refused_path {
                return Vec::new();
            }
            let exact = shell_words::join(&argv);
            let stem = match argv.get(1) {
                Some(sub) if !sub.starts_with('-') && argv.len() > 2 => 2,
                _ => 1,
            };
            let prefix = format!("{} *", shell_words::join(&argv[..stem]));
            let mut out = vec![rule(RuleTarget::Command(exact.clone()))];
            if prefix != exact {
                out.push(rule(RuleTarget::Command(prefix)));
            }
            out
        }
    }
}
