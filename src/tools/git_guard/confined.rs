//! The git sayso starts itself (`get_changed_files`, the inspection), inside the chat's
//! sandbox and read-only: a second wall behind the guarded environment. Whatever a hostile
//! repository's config makes git run despite [`super::NEUTRAL_CONFIG`], it can write nothing
//! and, unless `[sandbox] network = true`, reach no network.
//!
//! It owns only the choice of argv (the sandbox's wrapper around git, or git as it is when the
//! sandbox is off); it refuses to run git when the sandbox cannot be set up, and does not
//! decide the environment (that is [`super::guard_env`]).

use std::path::Path;

use crate::sandbox::{Confinement, Sandbox};
use crate::tools::exec::runner::sandbox_setup_error;

/// The argv that runs `argv` (a git command) in `cwd` inside `sandbox`, read-only: the
/// sandbox's wrapper, or `argv` itself when the sandbox is off. `Err` (the message a tool
/// reports) when the sandbox cannot be set up: git must not run then.
pub fn confined_git(
    sandbox: &Sandbox,
    argv: Vec<String>,
    cwd: &Path,
) -> Result<Vec<String>, String> {
    match sandbox.wrap(&argv, cwd, Confinement::ReadOnly) {
        Ok(None) => Ok(argv),
        Ok(Some(wrapped)) => Ok(wrapped),
        Err(e) => Err(sandbox_setup_error(&e)),
    }
}

/// A `std::process::Command` for `argv` (already [`confined_git`]); `None` for an empty argv.
pub fn command_of(argv: &[String]) -> Option<std::process::Command> {
    let (program, args) = argv.split_first()?;
    let mut cmd = std::process::Command::new(program);
    cmd.args(args);
    Some(cmd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_the_sandbox_off_git_runs_as_it_is() {
        let argv: Vec<String> = ["git", "status"].map(String::from).to_vec();
        assert_eq!(
            confined_git(&Sandbox::off(), argv.clone(), Path::new("/")).unwrap(),
            argv
        );
        assert!(command_of(&[]).is_none());
    }
}
