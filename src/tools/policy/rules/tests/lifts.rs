//! How far an `allow` lifts the sandbox for a command of several parts (issue 36.2): only as
//! far as every part's rule lifts it — the most confined part wins — whatever part comes first,
//! and a form the rules cannot read never widens.

use super::*;

/// An allow rule for `pattern` (`None`: the whole tool) that lifts what `lift` says.
fn lifting(pattern: Option<&str>, lift: &str, line: usize) -> RuleSpec {
    let target = pattern.map_or(RuleTarget::Any, cmd);
    RuleSpec {
        unsandboxed: lift == "sandbox = false",
        network: lift == "network = true",
        source: format!("user:{line}"),
        ..rule("run_command", target, Allow, false)
    }
}

/// A decision, whether it lifts the sandbox, whether it allows the network.
type Lift = (RuleDecision, bool, bool);

/// What the rules decide about `command`: (decision, sandbox lifted, network allowed).
fn lift_of(rules: &Rules, command: &str) -> Option<Lift> {
    let tool = Fake("run_command", Kind::Shell);
    rules
        .check(
            &inv(
                "run_command",
                json!({"cmd": command}),
                Path::new("/nonexistent"),
            ),
            command,
            &tool,
        )
        .map(|m| (m.decision, m.unsandboxed, m.network))
}

#[test]
fn a_lift_covers_a_compound_command_only_when_every_part_lifts() {
    // The README's own example rules, and plain ones beside them.
    let rules = Rules::new(&[
        lifting(Some("make install"), "sandbox = false", 1),
        lifting(Some("npm install *"), "network = true", 2),
        lifting(Some("echo *"), "", 3),
        lifting(Some("touch *"), "", 4),
        lifting(Some("curl *"), "", 5),
        lifting(Some("cp *"), "sandbox = false", 6),
        lifting(Some("wget *"), "network = true", 7),
    ]);
    let unconfined = Some((Allow, true, false));
    let network = Some((Allow, false, true));
    let confined = Some((Allow, false, false));
    #[rustfmt::skip]
    let rows: &[(&str, &str, Option<Lift>)] = &[
        ("one part: its own lift", "make install", unconfined),
        ("one part: its network", "npm install left-pad", network),
        ("sandbox = false then network = true: the network only", "make install && npm install x", network),
        ("network = true then sandbox = false: the same", "npm install x && make install", network),
        ("sandbox = false then a plain rule: confined", "make install; touch ../outside/PW", confined),
        ("a plain rule then sandbox = false: confined", "touch x && make install", confined),
        ("network = true then a plain rule: no network", "npm install x && curl http://example.com", confined),
        ("a plain rule then network = true: no network", "echo x && npm install x", confined),
        ("both parts sandbox = false: lifted", "make install && cp a /usr/local/b", unconfined),
        ("both parts network = true: the network", "npm install x || wget http://example.com", network),
        ("a pipe: confined", "make install | curl http://example.com", confined),
        ("a newline: confined", "make install\ntouch ../outside/PW", confined),
        ("`||`: the network only", "make install || npm install x", network),
        ("`&`: not covered at all", "make install & touch x", None),
        ("a subshell: not covered at all", "(make install; touch x)", None),
        ("a substitution: not covered at all", "make install $(touch x)", None),
        ("an unreadable form: not covered at all", "make install 'unterminated", None),
        ("a part no rule covers: not covered at all", "make install && rm -rf x", None),
    ];
    for (name, command, want) in rows {
        assert_eq!(lift_of(&rules, command), *want, "{name}: {command}");
    }
}

#[test]
fn a_tool_wide_lift_is_narrowed_by_a_more_specific_part() {
    let rules = Rules::new(&[
        lifting(None, "sandbox = false", 1),
        lifting(Some("echo *"), "", 2),
        lifting(Some("npm install *"), "network = true", 3),
    ]);
    assert_eq!(
        lift_of(&rules, "make && cp a /opt/b"),
        Some((Allow, true, false)),
        "every part under the tool-wide rule: lifted"
    );
    assert_eq!(
        lift_of(&rules, "echo x && curl http://example.com"),
        Some((Allow, false, false)),
        "`echo *` keeps its part confined, so the whole stays confined"
    );
    assert_eq!(
        lift_of(&rules, "npm install x && make"),
        Some((Allow, false, true))
    );
    assert_eq!(
        lift_of(&rules, "make > /etc/x 'unterminated"),
        Some((Allow, true, false)),
        "a tool-wide rule names every command of the tool, unreadable ones too: nothing wider"
    );
}

#[test]
fn the_match_names_every_part_s_rule_and_what_stays_confined() {
    let rules = Rules::new(&[
        lifting(Some("make install"), "sandbox = false", 1),
        lifting(Some("npm install *"), "network = true", 2),
        lifting(Some("touch *"), "", 4),
    ]);
    let tool = Fake("run_command", Kind::Shell);
    let said = |command: &str| {
        rules
            .check(
                &inv("run_command", json!({"cmd": command}), Path::new("/x")),
                command,
                &tool,
            )
            .map(|m| m.rule)
            .unwrap_or_default()
    };
    assert_eq!(
        said("make install && npm install x && make install"),
        "`run_command match \"make install\" → allow, sandbox = false` (user:1) and \
         `run_command match \"npm install *\" → allow, network = true` (user:2); not every \
         part's rule says `sandbox = false`, so it runs in the sandbox, with the network"
    );
    assert_eq!(
        said("make install; touch x"),
        "`run_command match \"make install\" → allow, sandbox = false` (user:1) and \
         `run_command match \"touch *\" → allow` (user:4); not every part's rule says \
         `sandbox = false`, so it runs in the sandbox"
    );
    assert_eq!(
        said("npm install x && touch y"),
        "`run_command match \"npm install *\" → allow, network = true` (user:2) and \
         `run_command match \"touch *\" → allow` (user:4); not every part's rule says \
         `network = true`, so it runs without the network"
    );
    assert_eq!(
        said("make install"),
        "`run_command match \"make install\" → allow, sandbox = false` (user:1)"
    );
}

/// `s` on a command of several parts (issue 37.11): a rule for every part, saved together, and
/// what that means; or why no rule can be saved — and what it offers allows exactly that command.
#[test]
fn s_offers_a_rule_a_part_or_says_why_none() {
    let offer = |c: &str| offer_in("run_command", &Remember::Command(c.into()), Path::new("/x"));
    let described = |o: &RuleOffer| -> Vec<Vec<String>> {
        o.choices
            .iter()
            .map(|c| c.iter().map(RuleSpec::describe).collect())
            .collect()
    };
    let o = offer("git diff --stat && cargo test --workspace; git diff --stat");
    assert_eq!(
        described(&o),
        [
            vec![
                "`run_command match \"git diff --stat\" → allow`",
                "`run_command match \"cargo test --workspace\" → allow`"
            ],
            vec![
                "`run_command match \"git diff *\" → allow`",
                "`run_command match \"cargo test *\" → allow`"
            ]
        ],
        "each part once, in order"
    );
    assert!(
        o.note
            .as_deref()
            .unwrap_or_default()
            .starts_with("this command has 3 parts"),
        "{o:?}"
    );
    // Saved, the rules allow that command (and the sandbox stays: they lift nothing).
    let rules = Rules::new(&o.choices[0]);
    assert_eq!(
        lift_of(
            &rules,
            "git diff --stat && cargo test --workspace; git diff --stat"
        ),
        Some((Allow, false, false))
    );
    for (command, why) in [
        (
            "git diff > out",
            "the command redirects input or output, and no allow rule covers that",
        ),
        (
            "make $(whoami)",
            "the command uses command or process substitution, and no allow rule covers that",
        ),
        (
            "make && env rm x",
            "`env rm x` uses `env`, which runs other commands, and no allow rule covers that",
        ),
        (
            "ls && grep 'a*' f",
            "`grep 'a*' f` has a `*`, which a rule would read as a wildcard",
        ),
        ("ls && cat /proc/1/environ", "/proc/1/environ"),
        ("make 'unterminated", "the command cannot be parsed"),
    ] {
        let o = offer(command);
        assert!(o.choices.is_empty(), "{command}: {o:?}");
        let note = o.note.unwrap_or_default();
        assert!(
            note.starts_with("no rule can be saved for this command: "),
            "{command}: {note}"
        );
        assert!(note.contains(why), "{command}: {note}");
    }
    assert_eq!(offer("git diff").note, None, "one part: nothing to explain");
    assert_eq!(
        candidates_in(
            "run_command",
            &Remember::Command("git diff && ls".into()),
            Path::new("/x")
        ),
        Vec::<RuleSpec>::new(),
        "`candidates` stays about single commands"
    );
}
