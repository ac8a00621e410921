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

/// What the rules decide about `command`: (decision, sandbox lifted, network allowed).
fn lift_of(rules: &Rules, command: &str) -> Option<(RuleDecision, bool, bool)> {
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
    let rows: &[(&str, &str, Option<(RuleDecision, bool, bool)>)] = &[
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
