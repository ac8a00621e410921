//! `[[approvals.rules]]`: standing decisions about calls, from the user's config and the
//! project's. Plain data here — each rule's tool, what it matches, its decision and where it was
//! written; matching is `tools::policy::rules`.
//!
//! ```toml
//! [[approvals.rules]]
//! tool = "run_command"          # a tool name, or "*" (the default) for any tool
//! match = "git diff *"          # the command (shell tools) or the call's cmd_string
//! decision = "allow"            # allow | ask | deny
//!
//! [[approvals.rules]]
//! tool = "edit_file"
//! path = "src/**"               # a file tool's path, relative to the project
//! decision = "ask"
//!
//! [[approvals.rules]]
//! tool = "run_command"
//! match = "npm install *"
//! decision = "allow"
//! network = true                # its commands may reach the network (allow rules only)
//! # sandbox = false             # …or run outside the sandbox altogether
//! ```
//!
//! A project file (`.sayso/config.toml`) may only add `ask` and `deny` rules: an `allow` there
//! is dropped with a warning, and its rules can never loosen what the user's rules decide
//! (`tools::policy::rules` takes the stricter of the two). `sandbox` and `network` belong to
//! the user's own allow rules: written in a project file, or on an `ask` or `deny` rule
//! (where they mean nothing), they are an error naming file:line.

use serde::Deserialize;

use super::error::ConfigError;
use super::layers::Layer;

/// A rule's decision; the order is strictness (`deny` strictest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleDecision {
    Allow,
    Ask,
    Deny,
}

impl RuleDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleDecision::Allow => "allow",
            RuleDecision::Ask => "ask",
            RuleDecision::Deny => "deny",
        }
    }
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalsFile {
    #[serde(default)]
    pub rules: Vec<RuleFile>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    pub tool: Option<String>,
    #[serde(rename = "match")]
    pub pattern: Option<String>,
    pub path: Option<String>,
    pub decision: String,
    /// `false`: the rule's commands run outside the sandbox.
    pub sandbox: Option<bool>,
    /// `true`: the rule's commands may reach the network.
    pub network: Option<bool>,
}

/// What a rule looks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleTarget {
    /// Every call of the tool.
    Any,
    /// The command (word patterns: `*` alone is any words, inside a word any characters).
    Command(String),
    /// A file tool's path (a glob: `*` within a directory, `**` across).
    Path(String),
}

/// One rule, checked, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSpec {
    /// A tool name, or `*`.
    pub tool: String,
    pub target: RuleTarget,
    pub decision: RuleDecision,
    /// `path:line` of its `[[approvals.rules]]` header.
    pub source: String,
    /// Written in the project's file.
    pub project: bool,
    /// `sandbox = false`: an allow rule's commands run outside the sandbox (user file only).
    pub unsandboxed: bool,
    /// `network = true`: an allow rule's commands may reach the network (user file only).
    pub network: bool,
}

impl RuleSpec {
    /// The rule as `/approvals` and the model are told: `run_command "git diff *" → allow`.
    pub fn describe(&self) -> String {
        let target = match &self.target {
            RuleTarget::Any => String::new(),
            RuleTarget::Command(p) => format!(" match \"{p}\""),
            RuleTarget::Path(p) => format!(" path \"{p}\""),
        };
        format!(
            "`{}{target} → {}{}`",
            self.tool,
            self.decision.as_str(),
            self.sandbox_words()
        )
    }

    /// What the rule lifts of the sandbox, as it is written: `, sandbox = false`.
    fn sandbox_words(&self) -> String {
        let mut out = String::new();
        if self.unsandboxed {
            out.push_str(", sandbox = false");
        }
        if self.network {
            out.push_str(", network = true");
        }
        out
    }
}

/// `spec` as a `[[approvals.rules]]` block, every value quoted by the TOML writer.
pub fn toml_block(spec: &RuleSpec) -> String {
    let q = |s: &str| toml::Value::String(s.to_owned()).to_string();
    let mut out = format!("[[approvals.rules]]\ntool = {}\n", q(&spec.tool));
    match &spec.target {
        RuleTarget::Any => {}
        RuleTarget::Command(p) => out.push_str(&format!("match = {}\n", q(p))),
        RuleTarget::Path(p) => out.push_str(&format!("path = {}\n", q(p))),
    }
    out.push_str(&format!("decision = {}\n", q(spec.decision.as_str())));
    if spec.unsandboxed {
        out.push_str("sandbox = false\n");
    }
    if spec.network {
        out.push_str("network = true\n");
    }
    out
}

/// Appends `spec` to the user's config file `path` (created if missing); returns the line of
/// its header, for "saved to FILE:LINE".
pub fn append_rule(path: &std::path::Path, spec: &RuleSpec) -> Result<usize, String> {
    use std::io::Write;
    let existing = match std::fs::read_to_string(path) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let mut text = String::new();
    if !existing.is_empty() && !existing.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("\n# saved from an approval in sayso\n");
    let line = existing.matches('\n').count() + text.matches('\n').count() + 1;
    text.push_str(&toml_block(spec));
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(line)
}

/// The line of the `n`-th (0-based) `[[approvals.rules]]` header in `source`.
fn rule_line(source: &str, n: usize) -> Option<usize> {
    source
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let t: String = l
                .split('#')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            t == "[[approvals.rules]]"
        })
        .nth(n)
        .map(|(i, _)| i + 1)
}

/// The rules of every layer, user first; warnings for what a project file may not say.
pub(super) fn rules(layers: &[Layer]) -> Result<(Vec<RuleSpec>, Vec<String>), ConfigError> {
    let mut out = Vec::new();
    let mut warnings = Vec::new();
    for layer in layers {
        let Some(file) = &layer.file.approvals else {
            continue;
        };
        for (n, rule) in file.rules.iter().enumerate() {
            let line = rule_line(&layer.source, n);
            let source = format!(
                "{}{}",
                layer.path.display(),
                line.map(|l| format!(":{l}")).unwrap_or_default()
            );
            let invalid = |message: String| ConfigError::Invalid {
                origin: layer.path.clone(),
                line,
                key: "approvals.rules".into(),
                message,
            };
            let spec = check(rule, source.clone(), layer.project).map_err(invalid)?;
            if spec.project && spec.decision == RuleDecision::Allow {
                warnings.push(format!(
                    "{source}: ignoring an `allow` rule: a project config may only add `ask` and `deny` rules; put it in your user config"
                ));
                continue;
            }
            out.push(spec);
        }
    }
    Ok((out, warnings))
}

fn check(rule: &RuleFile, source: String, project: bool) -> Result<RuleSpec, String> {
    let decision = match rule.decision.trim() {
        "allow" => RuleDecision::Allow,
        "ask" => RuleDecision::Ask,
        "deny" => RuleDecision::Deny,
        other => return Err(format!("`decision = \"{other}\"`: use allow, ask or deny")),
    };
    let tool = rule
        .tool
        .as_deref()
        .map(str::trim)
        .unwrap_or("*")
        .to_owned();
    if tool.is_empty() {
        return Err("`tool` is empty: name a tool, or \"*\" for any".into());
    }
    let target = match (&rule.pattern, &rule.path) {
        (Some(_), Some(_)) => return Err("a rule has `match` or `path`, not both".into()),
        (Some(p), None) if p.trim().is_empty() => return Err("`match` is empty".into()),
        (None, Some(p)) if p.trim().is_empty() => return Err("`path` is empty".into()),
        (Some(p), None) => {
            shell_words::split(p).map_err(|e| format!("`match = \"{p}\"`: {e}"))?;
            RuleTarget::Command(p.trim().to_owned())
        }
        (None, Some(p)) => {
            globset::Glob::new(p.trim()).map_err(|e| format!("`path = \"{p}\"`: {e}"))?;
            RuleTarget::Path(p.trim().to_owned())
        }
        (None, None) => RuleTarget::Any,
    };
    let lifts = rule.sandbox.is_some() || rule.network.is_some();
    if lifts && project {
        return Err("`sandbox` and `network` may be set only by your user config's allow rules, not by a project config".into());
    }
    if lifts && decision != RuleDecision::Allow {
        return Err(format!(
            "`sandbox` and `network` are for allow rules (they say how an allowed command runs); a `{}` rule runs nothing",
            decision.as_str()
        ));
    }
    Ok(RuleSpec {
        tool,
        target,
        decision,
        source,
        project,
        unsandboxed: rule.sandbox == Some(false),
        network: rule.network == Some(true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(tool: Option<&str>, pattern: Option<&str>, path: Option<&str>, d: &str) -> RuleFile {
        RuleFile {
            tool: tool.map(Into::into),
            pattern: pattern.map(Into::into),
            path: path.map(Into::into),
            decision: d.into(),
            sandbox: None,
            network: None,
        }
    }

    fn lifting(d: &str, sandbox: Option<bool>, network: Option<bool>) -> RuleFile {
        RuleFile {
            sandbox,
            network,
            ..rule(Some("run_command"), Some("npm ci"), None, d)
        }
    }

    #[test]
    fn an_allow_rule_of_the_user_may_lift_the_sandbox_or_allow_the_network() {
        // (sandbox, network) as written → (unsandboxed, network, how it is described)
        let rows = [
            (
                (None, None),
                (false, false, "`run_command match \"npm ci\" → allow`"),
            ),
            (
                (Some(false), None),
                (
                    true,
                    false,
                    "`run_command match \"npm ci\" → allow, sandbox = false`",
                ),
            ),
            (
                (None, Some(true)),
                (
                    false,
                    true,
                    "`run_command match \"npm ci\" → allow, network = true`",
                ),
            ),
            (
                (Some(false), Some(true)),
                (
                    true,
                    true,
                    "`run_command match \"npm ci\" → allow, sandbox = false, network = true`",
                ),
            ),
            (
                (Some(true), Some(false)),
                (false, false, "`run_command match \"npm ci\" → allow`"),
            ),
        ];
        for ((sandbox, network), (unsandboxed, net, described)) in rows {
            let spec = check(&lifting("allow", sandbox, network), "f:1".into(), false).unwrap();
            assert_eq!(
                (spec.unsandboxed, spec.network, spec.describe().as_str()),
                (unsandboxed, net, described)
            );
            // What is saved reads back the same.
            let block = toml_block(&spec);
            let file: crate::config::file::FileConfig = toml::from_str(&block).unwrap();
            let back = &file.approvals.unwrap().rules[0];
            let again = check(back, "f:1".into(), false).unwrap();
            assert_eq!(
                (again.unsandboxed, again.network),
                (unsandboxed, net),
                "{block}"
            );
        }
    }

    #[test]
    fn sandbox_and_network_are_refused_in_a_project_file_and_on_ask_or_deny_rules() {
        let rows = [
            (
                lifting("allow", Some(false), None),
                true,
                "not by a project config",
            ),
            (
                lifting("deny", None, Some(true)),
                true,
                "not by a project config",
            ),
            (
                lifting("ask", None, Some(true)),
                false,
                "a `ask` rule runs nothing",
            ),
            (
                lifting("deny", Some(false), None),
                false,
                "a `deny` rule runs nothing",
            ),
            (
                lifting("deny", Some(true), None),
                false,
                "are for allow rules",
            ),
        ];
        for (r, project, why) in rows {
            let e = check(&r, "f".into(), project).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn a_project_rule_that_lifts_the_sandbox_is_an_error_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let source = "model = \"m\"\n[[approvals.rules]]\nmatch = \"npm ci\"\ndecision = \"ask\"\n\n[[approvals.rules]]\nmatch = \"curl *\"\ndecision = \"allow\"\nnetwork = true\n";
        let layer = Layer {
            path: dir.path().join(".sayso/config.toml"),
            source: source.into(),
            file: toml::from_str(source).unwrap(),
            project: true,
        };
        let e = rules(&[layer]).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}:6: key `approvals.rules`: `sandbox` and `network` may be set only by your user config",
                dir.path().join(".sayso/config.toml").display()
            )),
            "{e}"
        );
    }

    #[test]
    fn rules_are_checked_and_described() {
        let ok = check(
            &rule(Some("run_command"), Some("git diff *"), None, "allow"),
            "f:3".into(),
            false,
        )
        .unwrap();
        assert_eq!(ok.describe(), "`run_command match \"git diff *\" → allow`");
        let any = check(&rule(None, None, Some("src/**"), "deny"), "f".into(), true).unwrap();
        assert_eq!((any.tool.as_str(), any.project), ("*", true));
        for (bad, why) in [
            (rule(None, None, None, "maybe"), "use allow, ask or deny"),
            (rule(None, Some("a"), Some("b"), "ask"), "not both"),
            (rule(None, Some("  "), None, "ask"), "`match` is empty"),
            (rule(None, Some("echo 'open"), None, "ask"), "match"),
            (rule(None, None, Some("src/[a"), "ask"), "path"),
            (rule(Some(""), None, None, "ask"), "`tool` is empty"),
        ] {
            let e = check(&bad, "f".into(), false).unwrap_err();
            assert!(e.contains(why), "{e}");
        }
    }

    #[test]
    fn a_saved_rule_reads_back_as_written_even_with_hostile_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sayso/config.toml");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "model = \"m\"\n[provider]\nbase_url = \"http://x\"").unwrap();
        let spec = RuleSpec {
            tool: "run_command".into(),
            target: RuleTarget::Command("echo \"a\"\n[provider]\nbase_url = 'evil' *".into()),
            decision: RuleDecision::Allow,
            source: String::new(),
            project: false,
            unsandboxed: true,
            network: true,
        };
        let line = append_rule(&path, &spec).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().nth(line - 1),
            Some("[[approvals.rules]]"),
            "{text}"
        );
        let parsed: crate::config::file::FileConfig = toml::from_str(&text).unwrap();
        assert_eq!(
            parsed.provider.unwrap().base_url.as_deref(),
            Some("http://x")
        );
        let rules = parsed.approvals.unwrap().rules;
        assert_eq!(
            rules[0].pattern,
            Some("echo \"a\"\n[provider]\nbase_url = 'evil' *".into())
        );
        assert_eq!(rules[0].decision, "allow");
        assert_eq!(
            (rules[0].sandbox, rules[0].network),
            (Some(false), Some(true))
        );
    }

    #[test]
    fn the_line_of_each_rule_is_found() {
        let src = "model = \"m\"\n[[approvals.rules]]\ndecision = \"ask\"\n\n[[ approvals.rules ]] # x\ndecision = \"deny\"\n";
        assert_eq!(rule_line(src, 0), Some(2));
        assert_eq!(rule_line(src, 1), Some(5));
        assert_eq!(rule_line(src, 2), None);
    }
}
