//! Approval rules (`[[approvals.rules]]`, see `config::approvals`) matched against a call.
//!
//! - **Which rule.** Of the rules naming the call's tool (or `*`), the most specific decides: a
//!   rule with `match`/`path` beats one without, a longer literal pattern beats a shorter, a named
//!   tool beats `*`; at equal specificity the stricter (`deny` > `ask` > `allow`).
//! - **Commands.** For shell tools every simple command of a compound one is matched on its own
//!   (the `is_safe` lexer splits on `;`, `&&`, `||`, `|`, newlines): any part denied → denied;
//!   any part asked → asked; allowed only when *every* part is allowed and the command has no
//!   redirection, substitution, expansion, globbing, background or grouping. So
//!   `git diff && rm -rf x` is not allowed by `git diff *`, and `rm -rf *` denies `ls; rm -rf x`.
//!   A pattern is words: `*` alone is any number of words (`git diff *` also matches `git
//!   diff`), inside a word any characters (`--format=*`).
//! - **Paths.** `path` globs match a file tool's `filepath`, relative to the project (an
//!   outside path as it resolves): `*` within a directory, `**` across.
//! - **Project rules never loosen.** The user's rules and the project's are decided apart and
//!   the stricter result is taken.

use std::cmp::Ordering;

use globset::{GlobBuilder, GlobMatcher};

use super::approval::RuleMatch;
use super::builtin::paths::{display, resolve};
use super::command_safety::rule_segments;
use super::requests::Remember;
use super::tool::{Invocation, Kind, Tool};
use crate::config::approvals::{RuleDecision, RuleSpec, RuleTarget};

#[derive(Debug, Clone)]
enum Target {
    Any,
    Words(Vec<String>),
    Path(GlobMatcher),
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
            let glob = GlobBuilder::new(p).literal_separator(true).build().ok()?;
            (
                Target::Path(glob.compile_matcher()),
                p.replace('*', "").len(),
            )
        }
    };
    Some(Compiled {
        specificity: (!matches!(target, Target::Any), literal, spec.tool != "*"),
        spec: spec.clone(),
        target,
    })
}

/// `word` against a pattern word where `*` is any characters.
fn word_matches(pattern: &str, word: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == word;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !word.starts_with(first) || word.len() < first.len() + last.len() || !word.ends_with(last) {
        return false;
    }
    let mut rest = &word[first.len()..word.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    true
}

/// `argv` against pattern words where a lone `*` is any number of words.
fn words_match(pattern: &[String], argv: &[String]) -> bool {
    match pattern.split_first() {
        None => argv.is_empty(),
        Some((p, rest)) if p == "*" => (0..=argv.len()).any(|k| words_match(rest, &argv[k..])),
        Some((p, rest)) => {
            !argv.is_empty() && word_matches(p, &argv[0]) && words_match(rest, &argv[1..])
        }
    }
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
            (Some(u), Some(p)) => Some(if p.spec.decision > u.spec.decision {
                p
            } else {
                u
            }),
            (u, p) => u.or(p),
        }?;
        Some(RuleMatch {
            decision: chosen.spec.decision,
            rule: format!("{} ({})", chosen.spec.describe(), chosen.spec.source),
        })
    }

    /// The deciding rule among the user's (`project` false) or the project's rules.
    fn decide(
        &self,
        inv: &Invocation,
        cmd_string: &str,
        shell: bool,
        project: bool,
    ) -> Option<&Compiled> {
        let mine = || {
            self.rules.iter().filter(move |r| {
                r.spec.project == project && (r.spec.tool == "*" || r.spec.tool == inv.name)
            })
        };
        if !shell {
            let words = shell_words::split(cmd_string)
                .unwrap_or_else(|_| cmd_string.split_whitespace().map(Into::into).collect());
            let path = inv
                .args
                .get("filepath")
                .and_then(|p| p.as_str())
                .filter(|p| !p.is_empty())
                .map(|p| display(&inv.cwd, &resolve(&inv.cwd, p).path));
            return best(mine().filter(|r| match &r.target {
                Target::Any => true,
                Target::Words(pattern) => words_match(pattern, &words),
                Target::Path(glob) => path.as_ref().is_some_and(|p| glob.is_match(p)),
            }));
        }
        let command = inv
            .args
            .get("cmd")
            .and_then(|c| c.as_str())
            .unwrap_or(cmd_string);
        let (segments, plain) = match rule_segments(command) {
            Ok((segments, hazard)) if !segments.is_empty() => (segments, hazard.is_none()),
            _ => (
                vec![command.split_whitespace().map(Into::into).collect()],
                false,
            ),
        };
        let per_segment: Vec<Option<&Compiled>> = segments
            .iter()
            .map(|argv| {
                best(mine().filter(|r| match &r.target {
                    Target::Any => true,
                    Target::Words(pattern) => words_match(pattern, argv),
                    Target::Path(_) => false,
                }))
            })
            .collect();
        let strictest = per_segment
            .iter()
            .flatten()
            .copied()
            .max_by_key(|r| r.spec.decision)?;
        // A pattern allows only plain commands; a tool-wide rule allows whatever the tool runs.
        let patterned = per_segment
            .iter()
            .flatten()
            .any(|r| matches!(r.target, Target::Words(_)));
        match strictest.spec.decision {
            RuleDecision::Deny | RuleDecision::Ask => Some(strictest),
            RuleDecision::Allow => ((plain || !patterned)
                && per_segment.iter().all(Option::is_some))
            .then_some(strictest),
        }
    }
}

/// The `allow` rules the approval modal can offer to save for a call: for a command (a single
/// plain one), exactly it and its prefix (`git diff *`); for a tool remembered whole, the
/// tool. Nothing for a call that must always ask.
pub fn candidates(tool: &str, remember: &Remember) -> Vec<RuleSpec> {
    let rule = |target| RuleSpec {
        tool: tool.to_owned(),
        target,
        decision: RuleDecision::Allow,
        source: String::new(),
        project: false,
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
}

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
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests;
