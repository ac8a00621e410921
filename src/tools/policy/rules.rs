//! Approval rules (`[[approvals.rules]]`, see `config::approvals`) matched against a call.
//!
//! - **Which rule.** Of the rules naming the call's tool (or `*`), the most specific decides: a
//!   rule with `match`/`path` beats one without, a longer literal pattern beats a shorter, a named
//!   tool beats `*`; at equal specificity the stricter (`deny` > `ask` > `allow`).
//! - **Deny and ask see what runs** ([`shell`]). A shell command is read by the normaliser
//!   ([`crate::tools::policy::command_safety::normalize`]) into the programs it really runs — through
//!   `/bin/rm`, `command`, `env`, `sh -c '…'`, `xargs`, `find -exec`/`-delete` and the rest — and
//!   every one of them is matched: any denied → denied; any asked → asked. A pattern that only
//!   *may* match (a word an expansion may change, `xargs`' extra arguments) asks. A command the
//!   normaliser cannot read (substitution, `eval`, a variable as the command word, `sh FILE`)
//!   asks wherever the tool has a `deny` rule, in every mode.
//! - **Allow covers only what it says.** A pattern allows a command only when *every* simple
//!   command is allowed, the command has no redirection, substitution, expansion, globbing,
//!   background or grouping, and no part uses what the safe list refuses in a listed command
//!   ([`crate::tools::policy::command_safety::argv_refusal`]: wrappers, options that write, execute,
//!   reach out or follow symlinks — `git diff --output=F`, `find -exec`, `rg --pre`). No allow
//!   rule (a tool-wide one neither) covers a command that names per-process data under `/proc`,
//!   a device, `/`, sayso's own files, or a path a deny rule covers. So `git diff && rm -rf x`
//!   is not allowed by `git diff *`, nor is `cat /proc/1/environ` by `cat *`. What an allow
//!   lifts of the sandbox (`sandbox = false`, `network = true`) reaches a command of several
//!   parts only as far as every part's rule lifts it: the most confined part wins. A pattern is
//!   words: `*` alone is any number of words (`git diff *` also matches `git diff`), inside a
//!   word any characters (`--format=*`).
//! - **Paths** ([`paths`]). `path` globs match a file tool's `filepath`, relative to the project
//!   (an outside path as it resolves): `*` within a directory, `**` across. A deny or ask path
//!   rule (the tool's or `*`'s) also decides a shell command that names such a path (resolved
//!   after symlinks, also after a `cd`), and a command that reads a directory holding one asks
//!   (`grep -r X secrets`, `rg X`, `git diff`). Search tools and diffs leave denied paths out
//!   ([`Rules::path_denials`]).
//! - **Project rules never loosen.** The user's rules and the project's are decided apart and
//!   the stricter result is taken.
//! - **What a rule cannot promise.** Text is all a rule sees: an interpreter (`python -c`,
//!   `perl -e`, `awk`), a build tool, or a script the model wrote runs whatever it likes, and no
//!   rule on `rm` sees its `unlink()`. A deny rule stops a model's slips and the common
//!   rewrites; only a mode that asks for every command (`balanced`, `strict`) stops an
//!   arbitrary one.

use std::cmp::Ordering;

use globset::GlobBuilder;

use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};
use crate::tools::builtin::paths::{display, resolve};
use crate::tools::policy::approval::RuleMatch;
use crate::tools::tool::{Invocation, Kind, Tool};
use matching::words_match;
use paths::{PathDenials, PathGlob};

mod candidates;
mod matching;
pub mod paths;
mod shell;

pub use candidates::{RuleOffer, candidates, candidates_in, offer, offer_in};

#[derive(Debug, Clone)]
enum Target {
    Any,
    Words(Vec<String>),
    Path(PathGlob),
}

#[derive(Debug, Clone)]
struct Compiled {
    spec: RuleSpec,
    target: Target,
    /// (has a pattern, literal characters, names the tool): higher is more specific.
    specificity: (bool, usize, bool),
}

/// The rules of a chat, compiled once.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    rules: Vec<Compiled>,
}

fn compile(spec: &RuleSpec) -> Option<Compiled> {
    let (target, literal) = match &spec.target {
        RuleTarget::Any => (Target::Any, 0),
        RuleTarget::Command(p) => {
            let words = shell_words::split(p).ok()?;
            let literal = words.iter().map(|w| w.replace('*', "").len()).sum();
            (Target::Words(words), literal)
        }
        RuleTarget::Path(p) => {
            // macOS and Windows open `.ENV` for `.env`: a path rule there ignores case, as
            // the protected names do.
            let glob = GlobBuilder::new(p)
                .literal_separator(true)
                .case_insensitive(cfg!(any(target_os = "macos", windows)))
                .build()
                .ok()?;
            let glob = PathGlob {
                text: p.clone(),
                matcher: glob.compile_matcher(),
            };
            (Target::Path(glob), p.replace('*', "").len())
        }
    };
    Some(Compiled {
        specificity: (!matches!(target, Target::Any), literal, spec.tool != "*"),
        spec: spec.clone(),
        target,
    })
}

/// The more specific rule, or at equal specificity the stricter.
fn better<'a>(a: &'a Compiled, b: &'a Compiled) -> &'a Compiled {
    match a.specificity.cmp(&b.specificity) {
        Ordering::Greater => a,
        Ordering::Less => b,
        Ordering::Equal if b.spec.decision > a.spec.decision => b,
        Ordering::Equal => a,
    }
}

fn best<'a>(rules: impl Iterator<Item = &'a Compiled>) -> Option<&'a Compiled> {
    rules.reduce(better)
}

impl Rules {
    pub fn new(specs: &[RuleSpec]) -> Self {
        Self {
            rules: specs.iter().filter_map(compile).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rules in force, most specific first, for `/approvals`.
    pub fn specs(&self) -> Vec<&RuleSpec> {
        let mut rules: Vec<&Compiled> = self.rules.iter().collect();
        rules.sort_by(|a, b| {
            (b.specificity, b.spec.decision).cmp(&(a.specificity, a.spec.decision))
        });
        rules.into_iter().map(|c| &c.spec).collect()
    }

    /// What the rules decide about this call, if anything.
    pub fn check(&self, inv: &Invocation, cmd_string: &str, tool: &dyn Tool) -> Option<RuleMatch> {
        if self.rules.is_empty() {
            return None;
        }
        let shell = tool.kind() == Kind::Shell;
        let user = self.decide(inv, cmd_string, shell, false);
        let project = self.decide(inv, cmd_string, shell, true);
        let chosen = match (user, project) {
            (Some(u), Some(p)) => Some(if p.decision > u.decision { p } else { u }),
            (u, p) => u.or(p),
        }?;
        if chosen.decision == RuleDecision::Allow {
            return Some(allowed_by(&chosen.parts));
        }
        let mut rule = format!(
            "{} ({})",
            chosen.rule.spec.describe(),
            chosen.rule.spec.source
        );
        if let Some(note) = chosen.note {
            rule.push_str(&format!(", {note},"));
        }
        Some(RuleMatch {
            decision: chosen.decision,
            rule,
            unsandboxed: false,
            network: false,
        })
    }

    /// The rules of one side (the user's, `project` false, or the project's) for `tool`.
    fn mine<'a, 't>(
        &'a self,
        tool: &'t str,
        project: bool,
    ) -> impl Iterator<Item = &'a Compiled> + use<'a, 't> {
        self.rules.iter().filter(move |r| {
            r.spec.project == project && (r.spec.tool == "*" || r.spec.tool == tool)
        })
    }

    /// The deciding rule among the user's (`project` false) or the project's rules.
    fn decide(
        &self,
        inv: &Invocation,
        cmd_string: &str,
        shell: bool,
        project: bool,
    ) -> Option<Found<'_>> {
        if shell {
            let command = inv
                .args
                .get("cmd")
                .and_then(|c| c.as_str())
                .unwrap_or(cmd_string);
            return self.decide_shell(inv, command, project);
        }
        let words = shell_words::split(cmd_string)
            .unwrap_or_else(|_| cmd_string.split_whitespace().map(Into::into).collect());
        let path = inv
            .args
            .get("filepath")
            .and_then(|p| p.as_str())
            .filter(|p| !p.is_empty())
            .map(|p| display(&inv.cwd, &resolve(&inv.cwd, p).path));
        best(self.mine(&inv.name, project).filter(|r| match &r.target {
            Target::Any => true,
            Target::Words(pattern) => words_match(pattern, &words),
            Target::Path(glob) => path.as_ref().is_some_and(|p| glob.matcher.is_match(p)),
        }))
        .map(Found::plain)
    }

    /// The `deny` path rules of `tool` (its own and `*`'s), which its results leave out.
    pub fn path_denials(&self, tool: &str) -> PathDenials {
        let globs = [false, true]
            .into_iter()
            .flat_map(|project| self.mine(tool, project))
            .filter(|r| r.spec.decision == RuleDecision::Deny)
            .filter_map(|r| match &r.target {
                Target::Path(g) => Some(g.clone()),
                _ => None,
            })
            .collect();
        PathDenials { globs }
    }
}

/// A rule that decided, the decision it led to (an `allow` or `deny` rule can also make a call
/// ask), and why when that differs from the rule's own word.
#[derive(Debug, Clone)]
struct Found<'a> {
    rule: &'a Compiled,
    decision: RuleDecision,
    note: Option<String>,
    /// An `allow`: the rule that covers each part of the command (one for a call that is not
    /// a command of several parts), each once, in the order of the parts.
    parts: Vec<&'a Compiled>,
}

impl<'a> Found<'a> {
    fn plain(rule: &'a Compiled) -> Self {
        Found {
            rule,
            decision: rule.spec.decision,
            note: None,
            parts: vec![rule],
        }
    }

    fn asks(rule: &'a Compiled, note: String) -> Self {
        Found {
            rule,
            decision: RuleDecision::Ask,
            note: Some(note),
            parts: vec![rule],
        }
    }

    /// The `allow` of a command each part of which `parts` covers (one rule a part, in order).
    fn allows(parts: &[&'a Compiled]) -> Option<Self> {
        let first = *parts.first()?;
        let mut distinct: Vec<&'a Compiled> = Vec::new();
        for r in parts {
            if !distinct.iter().any(|d| std::ptr::eq(*d, *r)) {
                distinct.push(r);
            }
        }
        Some(Found {
            rule: first,
            decision: RuleDecision::Allow,
            note: None,
            parts: distinct,
        })
    }

    /// The stricter of two (the first at a tie).
    fn stricter(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        match (a, b) {
            (Some(a), Some(b)) => Some(if b.decision > a.decision { b } else { a }),
            (a, b) => a.or(b),
        }
    }
}

/// The match of an `allow` whose `parts` (each a rule that covers a part of the command, at
/// least one) together decide how far the sandbox is lifted: the most confined part wins. The
/// sandbox is lifted only when every part's rule says `sandbox = false`, and the network
/// allowed only when every part's rule allows it (`network = true`, or `sandbox = false`,
/// which lifts the network with the rest) — so `make install && npm install x` under a
/// `make install` rule with `sandbox = false` and an `npm install *` rule with
/// `network = true` runs in the sandbox with the network, never outside it.
fn allowed_by(parts: &[&Compiled]) -> RuleMatch {
    let unsandboxed = parts.iter().all(|r| r.spec.unsandboxed);
    let network = parts.iter().all(|r| r.spec.unsandboxed || r.spec.network);
    let named: Vec<String> = parts
        .iter()
        .map(|r| format!("{} ({})", r.spec.describe(), r.spec.source))
        .collect();
    let mut rule = named.join(" and ");
    let lifts_more = |f: fn(&RuleSpec) -> bool| parts.iter().any(|r| f(&r.spec));
    if !unsandboxed && lifts_more(|s| s.unsandboxed) {
        rule.push_str(if network {
            "; not every part's rule says `sandbox = false`, so it runs in the sandbox, with the network"
        } else {
            "; not every part's rule says `sandbox = false`, so it runs in the sandbox"
        });
    } else if !network && lifts_more(|s| s.network) {
        rule.push_str(
            "; not every part's rule says `network = true`, so it runs without the network",
        );
    }
    RuleMatch {
        decision: RuleDecision::Allow,
        rule,
        unsandboxed,
        network: network && !unsandboxed,
    }
}

/// The chat's rules, shared between the engine and whoever adds one during the chat (a rule
/// saved from the approval modal applies from the next call, even in the same batch).
#[derive(Debug, Clone, Default)]
pub struct SharedRules(std::sync::Arc<std::sync::RwLock<Rules>>);

impl SharedRules {
    pub fn new(rules: Rules) -> Self {
        Self(std::sync::Arc::new(std::sync::RwLock::new(rules)))
    }

    /// A copy of the rules in force.
    pub fn get(&self) -> Rules {
        self.0.read().map(|r| r.clone()).unwrap_or_default()
    }

    /// Adds `spec` from now on.
    pub fn add(&self, spec: &RuleSpec) {
        if let (Ok(mut rules), Some(c)) = (self.0.write(), compile(spec)) {
            rules.rules.push(c);
        }
    }

    pub fn check(&self, inv: &Invocation, cmd_string: &str, tool: &dyn Tool) -> Option<RuleMatch> {
        self.0.read().ok()?.check(inv, cmd_string, tool)
    }

    /// The `deny` path rules of `tool` in force (see [`Rules::path_denials`]).
    pub fn path_denials(&self, tool: &str) -> PathDenials {
        self.0
            .read()
            .map(|r| r.path_denials(tool))
            .unwrap_or_default()
    }
}

/// How far allow rules reach, as `/approvals` and `sayso approvals` say it.
pub const ALLOW_REACH: &str = "allow rules: a command of several parts (`a && b`, `a; b`, `a | b`…) runs unasked only when a rule allows every part, and leaves the sandbox (or reaches the network) only when every part's rule says `sandbox = false` (or `network = true`): the most confined part wins; in strict mode allow rules do not apply";

/// The policy in force, for `sayso approvals` and `/approvals`: the mode, the tools that never
/// ask, and the rules, most specific first, each with the file and line it came from.
pub fn describe_policy(
    mode: crate::config::mode::Mode,
    rules: &Rules,
    allowed: &std::collections::BTreeSet<String>,
) -> String {
    let mut lines = vec![format!(
        "approval mode: {} — {}",
        mode.as_str(),
        mode.describe()
    )];
    if !allowed.is_empty() {
        let names: Vec<&str> = allowed.iter().map(String::as_str).collect();
        lines.push(format!(
            "never ask (--allowed-tools, chat.allowed_tools): {}",
            names.join(", ")
        ));
    }
    let specs = rules.specs();
    if specs.is_empty() {
        lines.push("rules: none ([[approvals.rules]] in the config adds them)".into());
    } else {
        lines.push("rules, most specific first:".into());
        lines.extend(
            specs
                .iter()
                .map(|r| format!("  {}  {}", r.describe(), r.source)),
        );
        if specs.iter().any(|r| r.decision == RuleDecision::Allow) {
            lines.push(ALLOW_REACH.into());
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests;
