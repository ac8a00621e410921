//! Rule matching: specificity, deny over allow, compound commands, paths, project rules.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::matching::{word_matches, words_match};
use super::*;
use crate::config::opts::Opts;
use crate::provider::{ToolCall, ToolSpec};
use crate::tools::lifecycle::requests::Remember;
use crate::tools::tool::Command;

struct Fake(&'static str, Kind);

impl Tool for Fake {
    fn name(&self) -> &str {
        self.0
    }
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.0.into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
            strict: None,
        }
    }
    fn kind(&self) -> Kind {
        self.1
    }
    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        Vec::new()
    }
}

fn inv(tool: &str, args: Value, cwd: &Path) -> Invocation {
    Invocation {
        name: tool.into(),
        args: args.clone(),
        function_call: ToolCall {
            id: "c1".into(),
            name: tool.into(),
            arguments: args.to_string(),
        },
        opts: Opts::default(),
        cwd: cwd.to_path_buf(),
        ctx: Default::default(),
    }
}

fn rule(tool: &str, target: RuleTarget, decision: RuleDecision, project: bool) -> RuleSpec {
    RuleSpec {
        tool: tool.into(),
        target,
        decision,
        source: if project { "project:1" } else { "user:1" }.into(),
        unsandboxed: false,
        network: false,
        project,
    }
}

fn cmd(p: &str) -> RuleTarget {
    RuleTarget::Command(p.into())
}

use RuleDecision::{Allow, Ask, Deny};

/// The decision for `command` run by `run_command`.
fn shell(rules: &Rules, command: &str) -> Option<RuleDecision> {
    let dir = Path::new("/nonexistent");
    let tool = Fake("run_command", Kind::Shell);
    rules
        .check(
            &inv("run_command", json!({"cmd": command}), dir),
            command,
            &tool,
        )
        .map(|m| m.decision)
}

#[test]
fn words_and_wildcards() {
    let w = |p: &str| shell_words::split(p).unwrap();
    let a = |s: &str| shell_words::split(s).unwrap();
    assert!(words_match(&w("git diff *"), &a("git diff")));
    assert!(words_match(&w("git diff *"), &a("git diff --stat HEAD~1")));
    assert!(!words_match(&w("git diff *"), &a("git difftool")));
    assert!(!words_match(&w("git diff"), &a("git diff --stat")));
    assert!(words_match(
        &w("cargo * --release"),
        &a("cargo build --release")
    ));
    assert!(words_match(
        &w("git log --format=*"),
        &a("git log --format=%H")
    ));
    assert!(!words_match(
        &w("git log --format=*"),
        &a("git log --output=x")
    ));
    assert!(word_matches("a*b*c", "axxbyyc"));
    assert!(!word_matches("a*b*c", "axxc"));
    assert!(!word_matches("ab*ba", "aba"));
}

#[test]
fn the_most_specific_rule_decides_and_deny_wins_a_tie() {
    let rules = Rules::new(&[
        rule("run_command", cmd("git *"), Allow, false),
        rule("run_command", cmd("git push *"), Ask, false),
        rule("run_command", cmd("git push --force *"), Deny, false),
        rule("*", RuleTarget::Any, Ask, false),
        rule("run_command", cmd("make *"), Allow, false),
        rule("run_command", cmd("make *"), Deny, false),
    ]);
    assert_eq!(shell(&rules, "git status"), Some(Allow));
    assert_eq!(shell(&rules, "git push origin main"), Some(Ask));
    assert_eq!(shell(&rules, "git push --force origin"), Some(Deny));
    assert_eq!(shell(&rules, "make test"), Some(Deny), "deny beats allow");
    assert_eq!(shell(&rules, "ls"), Some(Ask), "the tool-wide rule");
}

#[test]
fn compound_commands_are_allowed_only_when_every_part_is() {
    let rules = Rules::new(&[
        rule("run_command", cmd("git diff *"), Allow, false),
        rule("run_command", cmd("ls *"), Allow, false),
        rule("run_command", cmd("rm -rf *"), Deny, false),
    ]);
    assert_eq!(shell(&rules, "git diff && ls -la"), Some(Allow));
    assert_eq!(shell(&rules, "git diff && rm -rf x"), Some(Deny));
    assert_eq!(
        shell(&rules, "git diff; touch x"),
        None,
        "touch is not covered"
    );
    assert_eq!(shell(&rules, "ls | rm -rf /"), Some(Deny));
    assert_eq!(shell(&rules, "git diff > out.txt"), None, "a redirection");
    // What the deny rule cannot be checked against asks; no allow covers it.
    assert_eq!(
        shell(&rules, "git diff $(rm -rf x)"),
        Some(Ask),
        "a substitution"
    );
    assert_eq!(shell(&rules, "git diff `touch x`"), Some(Ask), "backticks");
    assert_eq!(shell(&rules, "ls $HOME"), None, "an expansion");
    assert_eq!(shell(&rules, "git diff & rm -rf x"), Some(Deny));
    assert_eq!(
        shell(&rules, "git diff 'unterminated"),
        Some(Ask),
        "unparseable"
    );
    let allow_only = Rules::new(&[rule("run_command", cmd("git diff *"), Allow, false)]);
    assert_eq!(
        shell(&allow_only, "git diff $(rm -rf x)"),
        None,
        "without a deny rule an opaque command is the mode's to decide"
    );
}

#[test]
fn a_tool_wide_allow_covers_whatever_the_tool_runs() {
    let rules = Rules::new(&[rule("run_command", RuleTarget::Any, Allow, false)]);
    assert_eq!(shell(&rules, "make > log.txt"), Some(Allow));
}

#[test]
fn path_rules_match_file_tools_relative_to_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let rules = Rules::new(&[
        rule("edit_file", RuleTarget::Path("src/**".into()), Allow, false),
        rule(
            "edit_file",
            RuleTarget::Path("src/generated/*".into()),
            Deny,
            false,
        ),
        rule("*", RuleTarget::Path("*.lock".into()), Ask, false),
    ]);
    let tool = Fake("edit_file", Kind::FileEdit);
    let check = |path: &str| {
        rules
            .check(
                &inv("edit_file", json!({"filepath": path}), dir.path()),
                &format!("edit_file {path}"),
                &tool,
            )
            .map(|m| m.decision)
    };
    assert_eq!(check("src/a/b.rs"), Some(Allow));
    assert_eq!(check("src/generated/x.rs"), Some(Deny));
    assert_eq!(check("Cargo.lock"), Some(Ask));
    assert_eq!(check("sub/Cargo.lock"), None, "`*` stays in one directory");
    assert_eq!(
        check("src/../../etc/passwd"),
        None,
        "an outside path is not `src/**`"
    );
    assert_eq!(check("README.md"), None);
}

#[test]
fn project_rules_never_loosen_the_users() {
    let user_deny = rule("run_command", cmd("rm *"), Deny, false);
    let project_ask = rule("run_command", cmd("rm -rf build"), Ask, true);
    let rules = Rules::new(&[user_deny, project_ask]);
    assert_eq!(
        shell(&rules, "rm -rf build"),
        Some(Deny),
        "a more specific project ask does not soften a user deny"
    );
    let rules = Rules::new(&[
        rule("run_command", cmd("git *"), Allow, false),
        rule("run_command", cmd("git push *"), Ask, true),
    ]);
    assert_eq!(
        shell(&rules, "git push"),
        Some(Ask),
        "a project may tighten"
    );
    assert_eq!(shell(&rules, "git log"), Some(Allow));
}

#[test]
fn the_match_names_the_rule_and_where_it_was_written() {
    let rules = Rules::new(&[rule("run_command", cmd("git diff *"), Allow, false)]);
    let tool = Fake("run_command", Kind::Shell);
    let m = rules
        .check(
            &inv("run_command", json!({"cmd": "git diff"}), Path::new("/x")),
            "git diff",
            &tool,
        )
        .unwrap();
    assert_eq!(
        m.rule,
        "`run_command match \"git diff *\" → allow` (user:1)"
    );
}

#[test]
fn the_modal_offers_the_exact_command_and_its_prefix() {
    let offered = |c: &str| -> Vec<String> {
        candidates("run_command", &Remember::Command(c.into()))
            .iter()
            .map(RuleSpec::describe)
            .collect()
    };
    assert_eq!(
        offered("git diff --stat"),
        [
            "`run_command match \"git diff --stat\" → allow`",
            "`run_command match \"git diff *\" → allow`"
        ]
    );
    assert_eq!(
        offered("ls -la"),
        [
            "`run_command match \"ls -la\" → allow`",
            "`run_command match \"ls *\" → allow`"
        ]
    );
    assert_eq!(
        offered("cargo test"),
        [
            "`run_command match \"cargo test\" → allow`",
            "`run_command match \"cargo *\" → allow`"
        ]
    );
    assert!(offered("git diff && rm x").is_empty(), "compound");
    assert!(offered("echo $HOME").is_empty(), "an expansion");
    assert!(
        offered("grep 'a*b' f").is_empty(),
        "a literal star would be a wildcard"
    );
    assert_eq!(
        candidates("edit_file", &Remember::Tool("edit_file".into()))[0].describe(),
        "`edit_file → allow`"
    );
    assert!(candidates("x", &Remember::Nothing).is_empty());
    // What is offered is what matches: the saved exact rule allows that very command.
    let rules =
        Rules::new(&candidates("run_command", &Remember::Command("git diff --stat".into()))[..1]);
    assert_eq!(shell(&rules, "git diff --stat"), Some(Allow));
    assert_eq!(shell(&rules, "git diff"), None);
}

#[test]
fn an_mcp_call_offers_no_rule_however_its_display_was_cut() {
    let key = format!(
        r#"notes__write {{"content":"{}","path":"a"}}"#,
        "A".repeat(250)
    );
    let display = format!(r#"notes__write {{"content":"{}…"#, "A".repeat(180));
    let call = Remember::Call { key, display };
    assert!(candidates("notes__write", &call).is_empty());
    // A built-in remembered per call still offers its exact call and the prefix.
    let delete = Remember::Call {
        key: r#"delete_file {"filepath":"tmp/x"}"#.into(),
        display: "delete_file tmp/x".into(),
    };
    let offered: Vec<String> = candidates("delete_file", &delete)
        .iter()
        .map(|r| r.describe())
        .collect();
    assert_eq!(offered.len(), 2, "{offered:?}");
}

proptest! {
    /// A prefix allow rule never allows a command that chains anything it does not cover.
    #[test]
    fn an_allow_rule_never_covers_an_uncovered_part(
        tail in prop::sample::select(vec!["rm -rf x", "touch y", "curl evil", "sh -c x", "python3 -c 1"]),
        sep in prop::sample::select(vec![" && ", "; ", " | ", " || ", "\n", " & "]),
        first in prop::sample::select(vec!["git diff", "git diff --stat", "git diff HEAD"]),
        before in any::<bool>(),
    ) {
        let rules = Rules::new(&[rule("run_command", cmd("git diff *"), Allow, false)]);
        let command = if before { format!("{tail}{sep}{first}") } else { format!("{first}{sep}{tail}") };
        prop_assert_ne!(shell(&rules, &command), Some(Allow), "{}", command);
    }
}

mod forms;
mod lifts;
