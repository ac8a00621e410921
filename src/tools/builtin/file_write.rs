//! What the three file writes (`create_file`, `edit_file`, `delete_file`) share, written once:
//! they ask before they run unless the config says otherwise, a write to a protected path or
//! outside the working directory must always be confirmed ([`super::protected`]), and the
//! approval question names the path and warns when it is outside. Their results are reported
//! whole by [`crate::tools::tool::report`] (content, display and the file changed).
//!
//! It resolves no path itself (each tool resolves its own target, `delete_file` without
//! following the last link) and writes nothing.

use std::path::Path;

use super::protected::write_caution;
use crate::config::opts::Opts;
use crate::tools::policy::{ApprovalBefore, Policy};
use crate::tools::tool::Invocation;

/// A file write's own opts: it asks before it runs (a config entry's opts are merged over).
pub fn opts() -> Opts {
    Opts {
        require_approval_before: Some(ApprovalBefore::Always),
        ..Opts::default()
    }
}

/// The policy of a write to `path` (resolved; `inside` the working directory or not): a
/// protected path or one outside always asks, and why.
pub fn policy(inv: &Invocation, path: &Path, inside: bool) -> Policy {
    Policy {
        must_ask: write_caution(&inv.cwd, path, inside, &inv.ctx.own_paths),
        ..Policy::default()
    }
}

/// The approval question of a write: ``VERB `PATH`?``, with a warning when the path is outside
/// the working directory.
pub fn question(verb: &str, shown: &str, inside: bool) -> String {
    if inside {
        format!("{verb} `{shown}`?")
    } else {
        format!("{verb} `{shown}`, OUTSIDE the working directory?")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_asks_by_default_and_its_question_warns_outside() {
        assert_eq!(opts().approval_before(), ApprovalBefore::Always);
        assert_eq!(question("Delete", "x", true), "Delete `x`?");
        assert_eq!(
            question("Apply 2 edits to", "/x", false),
            "Apply 2 edits to `/x`, OUTSIDE the working directory?"
        );
    }
}
