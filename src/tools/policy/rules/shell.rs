//! Rules against a shell command (see the parent module's doc): `deny`/`ask` on every program
//! the command really runs, then `allow` on its simple commands as written.

use std::path::PathBuf;

use super::matching::{certainly, possibly, words_match};
use super::paths::{Bases, Held, holding, path_words, reads_implicitly, shown};
use super::{Compiled, Found, Rules, Target, best};
use crate::config::approvals::RuleDecision;
use crate::tools::builtin::protected::shell_arg_refusal;
use crate::tools::policy::command_safety::normalize::{Run, normalize};
use crate::tools::policy::command_safety::{argv_refusal, rule_segments};
use crate::tools::tool::Invocation;

impl Rules {
    pub(super) fn decide_shell(
        &self,
        inv: &Invocation,
        command: &str,
        project: bool,
    ) -> Option<Found<'_>> {
        self.deny_or_ask(inv, command, project)
            .or_else(|| self.allow(inv, command, project))
    }

    /// The strictest `deny`/`ask` that applies to a program the command runs, or `ask` for a
    /// command a deny rule cannot be checked against.
    fn deny_or_ask(&self, inv: &Invocation, command: &str, project: bool) -> Option<Found<'_>> {
        let mine = || self.mine(&inv.name, project);
        let path_rules: Vec<&Compiled> = mine()
            .filter(|r| r.spec.decision != RuleDecision::Allow)
            .filter(|r| matches!(r.target, Target::Path(_)))
            .collect();
        // Only a deny reaches past the paths a command names: an `ask` on `*.lock` is about
        // the file, and must not make every `git diff` ask.
        let deny_paths: Vec<&Compiled> = path_rules
            .iter()
            .copied()
            .filter(|r| r.spec.decision == RuleDecision::Deny)
            .collect();
        let normalized = normalize(command);
        let mut bases = Bases::new(&inv.cwd);
        let mut found = None;
        for run in &normalized.runs {
            if let Some(dir) = cd_target(&run.argv) {
                bases.cd(dir);
            }
            let paths: Vec<PathBuf> = if path_rules.is_empty() {
                Vec::new()
            } else {
                path_words(&run.argv)
                    .flat_map(|w| bases.resolve_all(w).collect::<Vec<_>>())
                    .collect()
            };
            let shown_paths: Vec<String> = paths.iter().map(|p| shown(&bases.root, p)).collect();
            let certain = best(mine().filter(|r| match &r.target {
                Target::Any => true,
                Target::Words(p) => certainly(p, run),
                Target::Path(_) => false,
            }));
            if let Some(c) = certain.filter(|c| c.spec.decision != RuleDecision::Allow) {
                found = Found::stricter(found, Some(Found::plain(c)));
            }
            // A path rule is about the file, not the command: no command rule outranks it.
            let named = path_rules
                .iter()
                .filter(|r| match &r.target {
                    Target::Path(g) => shown_paths.iter().any(|s| g.matcher.is_match(s)),
                    _ => false,
                })
                .max_by_key(|r| r.spec.decision);
            found = Found::stricter(found, named.map(|r| Found::plain(r)));
            found = Found::stricter(found, maybe(mine(), run));
            if let Some(rule) = deny_paths.first()
                && (run.open || run.wild.iter().any(|w| *w))
            {
                let why = format!(
                    "which `{}` may name once it is expanded",
                    shell_words::join(&run.argv)
                );
                found = Found::stricter(found, Some(Found::asks(rule, why)));
            }
            found = Found::stricter(found, reads_held(&deny_paths, &bases, run, &paths));
        }
        if let Some(why) = &normalized.opaque
            && let Some(deny) = mine().find(|r| r.spec.decision == RuleDecision::Deny)
        {
            let why = format!("which sayso cannot check this command against ({why})");
            found = Found::stricter(found, Some(Found::asks(deny, why)));
        }
        found
    }

    /// A plain command every simple command of which an `allow` rule covers (see the module
    /// doc of the parent for what it never covers).
    fn allow(&self, inv: &Invocation, command: &str, project: bool) -> Option<Found<'_>> {
        let (segments, plain) = match rule_segments(command) {
            Ok((segments, hazard)) if !segments.is_empty() => (segments, hazard.is_none()),
            _ => (
                vec![command.split_whitespace().map(Into::into).collect()],
                false,
            ),
        };
        let per_segment: Vec<&Compiled> = segments
            .iter()
            .map(|argv| {
                best(self.mine(&inv.name, project).filter(|r| match &r.target {
                    Target::Any => true,
                    Target::Words(pattern) => words_match(pattern, argv),
                    Target::Path(_) => false,
                }))
                .filter(|r| r.spec.decision == RuleDecision::Allow)
            })
            .collect::<Option<_>>()?;
        // A pattern allows only plain commands; a tool-wide rule allows whatever the tool runs.
        let patterned = per_segment
            .iter()
            .any(|r| matches!(r.target, Target::Words(_)));
        if patterned && !plain {
            return None;
        }
        let mut bases = Bases::new(&inv.cwd);
        let denials = self.path_denials(&inv.name);
        for (argv, rule) in segments.iter().zip(&per_segment) {
            if argv.is_empty() {
                continue;
            }
            if matches!(rule.target, Target::Words(_)) && argv_refusal(argv).is_some() {
                return None;
            }
            if let Some(dir) = cd_target(argv) {
                bases.cd(dir);
            }
            for word in path_words(argv) {
                for path in bases.resolve_all(word) {
                    // Also a directory holding one: a recursive read reaches it.
                    let own = crate::tools::builtin::cmd_tool::unattended::own_path_refusal(
                        &path,
                        &inv.ctx.own_paths,
                    )
                    .is_some();
                    let denied = denials
                        .globs
                        .iter()
                        .any(|g| g.matcher.is_match(shown(&bases.root, &path)));
                    if own || denied || shell_arg_refusal(&path).is_some() {
                        return None;
                    }
                }
            }
        }
        Found::allows(&per_segment)
    }
}

/// The directory of a `cd`/`pushd` (after its options `-L`, `-P`, `-e`, `--`).
fn cd_target(argv: &[String]) -> Option<&str> {
    if !matches!(argv.first()?.as_str(), "cd" | "pushd") {
        return None;
    }
    let mut args = argv[1..].iter();
    let mut dir = args.next()?;
    while dir.starts_with('-') && dir.len() > 1 {
        let end = dir == "--";
        dir = args.next()?;
        if end {
            break;
        }
    }
    Some(dir)
}

/// The strictest `deny`/`ask` word rule that may, but need not, match `run`: it asks.
fn maybe<'a>(rules: impl Iterator<Item = &'a Compiled>, run: &Run) -> Option<Found<'a>> {
    let rule = rules
        .filter(|r| r.spec.decision != RuleDecision::Allow)
        .filter(|r| matches!(&r.target, Target::Words(p) if !certainly(p, run) && possibly(p, run)))
        .max_by_key(|r| r.spec.decision)?;
    let why = format!(
        "which may match `{}` once its words are expanded",
        shell_words::join(&run.argv)
    );
    Some(Found::asks(rule, why))
}

/// `ask` when `run` reads a directory (named, or its working directory for a recursive search
/// that names no existing path) holding a path a deny path rule covers.
fn reads_held<'a>(
    path_rules: &[&'a Compiled],
    bases: &Bases,
    run: &Run,
    paths: &[PathBuf],
) -> Option<Found<'a>> {
    if path_rules.is_empty() {
        return None;
    }
    let mut dirs: Vec<PathBuf> = paths.iter().filter(|p| p.is_dir()).cloned().collect();
    if reads_implicitly(&run.argv) && !paths.iter().any(|p| p.exists()) {
        dirs.extend(bases.dirs().iter().cloned());
    }
    let program = &run.argv[0];
    for dir in &dirs {
        for rule in path_rules {
            let Target::Path(glob) = &rule.target else {
                continue;
            };
            let shown_dir = shown(&bases.root, dir);
            let shown_dir = if shown_dir.is_empty() {
                "."
            } else {
                &shown_dir
            };
            let why = match holding(&bases.root, dir, glob) {
                Held::Nothing => continue,
                Held::File(file) => {
                    format!("which covers `{file}` in `{shown_dir}`, which `{program}` may read")
                }
                Held::TooMany => format!(
                    "which may cover a file in `{shown_dir}` (too many files to tell), which `{program}` may read"
                ),
            };
            return Some(Found::asks(rule, why));
        }
    }
    None
}
