//! What sayso itself costs in the model's context window, and what to offer when it is small.
//!
//! Every request carries the system message and the `tools` array before any conversation:
//! [`measure`] counts them as a request sends them, and [`DEFAULT_FOOTPRINT_BUDGET_CHARS`] caps
//! the default set. [`offer_for_window`] picks the tools for a small window: the file tools
//! instead of the whole `agent` group, unless the user chose the tools.
//!
//! Pure: no IO. Finding the window (asking the server) is the caller's job.

use std::collections::BTreeSet;

use crate::provider::{ChatRequest, ToolSpec};
use crate::tools::configured::ToolSetup;
use crate::tools::registry::Registry;

/// The most characters the default tools' schemas (the `tools` array as sent) and the default
/// system message (with a typical environment block, about 185 characters) may take together. Every request carries them, and local models often run
/// 4k–8k-token windows: what sayso spends there is taken from the conversation. A test fails
/// when the defaults grow past it; raise it only for something the model cannot do without.
/// (Raised from 5,000 for `todo`, ~500 characters: the plan the user sees, and plan mode's.)
pub const DEFAULT_FOOTPRINT_BUDGET_CHARS: usize = 5_400;

/// The share of the window the system message and the tool schemas may take together (a
/// quarter): the rest is the conversation's and the reply's.
pub const TOOLS_SHARE_DIVISOR: u64 = 4;

/// The group the user gets when they choose nothing (`chat.default_tools` unset).
const DEFAULT_GROUP: &str = "agent";

/// The built-in tools from the most needed to the least: what a small window keeps first, and
/// what an overflow retry drops last. A tool not listed (a configured or MCP one) comes after.
const KEEP_ORDER: [&str; 12] = [
    "read_file",
    "edit_file",
    "run_command",
    "grep_search",
    "create_file",
    "file_search",
    "delete_file",
    "get_changed_files",
    "ask_questions",
    "todo",
    "fetch_webpage",
    "memory",
];

/// Where `name` stands in [`KEEP_ORDER`] (unlisted tools after every listed one).
pub fn keep_rank(name: &str) -> usize {
    KEEP_ORDER
        .iter()
        .position(|n| *n == name)
        .unwrap_or(KEEP_ORDER.len())
}

/// What sayso sends with every request before the conversation, in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// The system message: the system prompt and each offered tool's system prompt.
    pub system_chars: usize,
    /// The `tools` array, serialised as the request body serialises it.
    pub tools_chars: usize,
}

impl Footprint {
    pub fn total(&self) -> usize {
        self.system_chars + self.tools_chars
    }
}

/// The footprint of offering `setup.active` with `system_prompt` and the `environment` block.
pub fn measure(setup: &ToolSetup, system_prompt: &str, environment: &str) -> Footprint {
    Footprint {
        system_chars: system_message(setup, system_prompt, environment)
            .chars()
            .count(),
        tools_chars: tools_json(&specs(setup)).chars().count(),
    }
}

/// The schemas of the offered tools, in the order a request lists them.
pub fn specs(setup: &ToolSetup) -> Vec<ToolSpec> {
    setup
        .active
        .iter()
        .filter_map(|n| setup.registry.get(n))
        .map(|e| e.tool.spec())
        .collect()
}

/// The system message a chat starts with when no `AGENTS.md` applies (see [`compose`]).
pub fn system_message(setup: &ToolSetup, system_prompt: &str, environment: &str) -> String {
    compose(
        system_prompt,
        &[environment],
        &setup.registry,
        &setup.active,
    )
}

/// A system message: the system prompt, the `context` blocks (the environment block, the
/// project's instructions), then each of the `active` tools' own system prompts, separated by
/// blank lines; empty parts left out. The one place it is put together.
pub fn compose(
    system_prompt: &str,
    context: &[&str],
    registry: &Registry,
    active: &BTreeSet<String>,
) -> String {
    let mut parts = vec![system_prompt.trim().to_owned()];
    parts.extend(context.iter().map(|c| c.trim().to_owned()));
    parts.extend(
        active
            .iter()
            .filter_map(|n| registry.get(n))
            .filter_map(|e| e.tool.system_prompt())
            .map(|p| p.trim().to_owned()),
    );
    parts.retain(|p| !p.is_empty());
    parts.join("\n\n")
}

/// The `tools` array of a request body offering `specs`, as JSON text (`[]` for none).
pub fn tools_json(specs: &[ToolSpec]) -> String {
    let request = ChatRequest {
        tools: specs.to_vec(),
        ..ChatRequest::default()
    };
    let body = serde_json::to_value(request.body(true)).unwrap_or_default();
    match body.get("tools") {
        Some(tools) => tools.to_string(),
        None => "[]".to_owned(),
    }
}

/// The tools to offer in a model's window, and the line that tells the user when they differ
/// from the configured ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowOffer {
    pub tools: BTreeSet<String>,
    /// `Some` only when `tools` is not `setup.active`.
    pub notice: Option<String>,
}

/// The tools to offer when the model's window is `window_tokens` tokens, estimating with the
/// default ratio and `setup`'s system message built on `system_prompt` and `environment`.
pub fn offer_for_window(
    window_tokens: u32,
    setup: &ToolSetup,
    system_prompt: &str,
    environment: &str,
    user_chose: bool,
) -> WindowOffer {
    let cost = |tools: &BTreeSet<String>| {
        let offered = ToolSetup {
            active: tools.clone(),
            ..setup.clone()
        };
        let system = system_message(&offered, system_prompt, environment);
        system.len() + tools_json(&specs(&offered)).len()
    };
    offer_sized(
        u64::from(window_tokens),
        3.0,
        &setup.active,
        cost,
        user_chose,
    )
}

/// The largest set of the `active` tools whose system message and schemas (`cost`: their
/// characters as a request sends them) stay under a quarter of a window of `window_tokens`
/// tokens, at `ratio` characters a token: the tools taken in [`KEEP_ORDER`], each one kept
/// when it still fits. With a note saying which were chosen and how to have more. `active`
/// unchanged and no note: the user chose the tools (`user_chose`: `--tools`, or
/// `chat.default_tools` in a config file), the window is unknown (0), or they all fit.
pub fn offer_sized(
    window_tokens: u64,
    ratio: f64,
    active: &BTreeSet<String>,
    cost: impl Fn(&BTreeSet<String>) -> usize,
    user_chose: bool,
) -> WindowOffer {
    let unchanged = || WindowOffer {
        tools: active.clone(),
        notice: None,
    };
    let limit = window_tokens / TOOLS_SHARE_DIVISOR;
    let tokens = |tools: &BTreeSet<String>| (cost(tools) as f64 / ratio.max(0.5)).ceil() as u64;
    if user_chose || window_tokens == 0 || tokens(active) <= limit {
        return unchanged();
    }
    let mut ranked: Vec<&String> = active.iter().collect();
    ranked.sort_by_key(|n| keep_rank(n));
    let mut tools = BTreeSet::new();
    for name in ranked {
        tools.insert(name.clone());
        if tokens(&tools) > limit {
            tools.remove(name);
        }
    }
    let mut listed: Vec<&String> = tools.iter().collect();
    listed.sort_by_key(|n| keep_rank(n));
    let chosen = match listed.len() {
        0 => "no tools".to_owned(),
        _ => listed
            .iter()
            .map(|n| n.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    };
    let notice = format!(
        "the model's window is {} tokens: offering {chosen} (what fits in a quarter of it, about {} tokens); add more with @{{{DEFAULT_GROUP}}} or --tools",
        thousands(window_tokens),
        thousands(limit),
    );
    WindowOffer {
        tools,
        notice: Some(notice),
    }
}

/// `4096` → `4,096`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::config::{Config, Overrides};
    use crate::tools::configured;

    /// The configuration a fresh machine gets: no config file, nothing on the command line
    /// (`--tools` when `tools` is given).
    fn default_config(home: &std::path::Path, tools: Option<&[&str]>) -> Config {
        let env: HashMap<String, String> =
            ["HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"]
                .iter()
                .map(|v| (v.to_string(), home.join(v).display().to_string()))
                .collect();
        let overrides = Overrides {
            cwd: home.to_path_buf(),
            tools: tools.map(|t| t.iter().map(|s| s.to_string()).collect()),
            ..Overrides::default()
        };
        Config::load(&overrides, &env).expect("the config loads")
    }

    fn default_setup() -> (Config, ToolSetup) {
        let home = tempfile::tempdir().expect("a temp dir");
        let config = default_config(home.path(), None);
        let setup = configured::build(&config).expect("the default tools set up");
        (config, setup)
    }

    /// Run with `--nocapture` to see the sizes (BENCHMARKS.md, "sayso's own footprint").
    #[test]
    fn default_tools_and_system_prompt_fit_the_budget() {
        let (config, setup) = default_setup();
        // A typical environment block: a project in a git repository.
        let environment = "Environment:\n- working directory: /home/user/src/project\n- OS: linux x86_64, shell /bin/bash (commands run with sh -c)\n- date: 2026-12-01\n- git repository: yes (its root, branch main)";
        let f = measure(&setup, &config.system_prompt, environment);
        println!(
            "footprint of the default tools ({}): system message {} chars, tools array {} chars, total {} chars (budget {DEFAULT_FOOTPRINT_BUDGET_CHARS})",
            setup.active.iter().cloned().collect::<Vec<_>>().join(", "),
            f.system_chars,
            f.tools_chars,
            f.total()
        );
        for spec in specs(&setup) {
            let name = spec.name.clone();
            println!(
                "  {name}: {} chars",
                tools_json(&[spec]).chars().count() - 2
            );
        }
        assert!(
            f.total() <= DEFAULT_FOOTPRINT_BUDGET_CHARS,
            "the default tools' schemas and system prompt take {} characters, over the budget of \
             {DEFAULT_FOOTPRINT_BUDGET_CHARS}: tighten the descriptions before raising it",
            f.total()
        );
    }

    fn names(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    const ENVIRONMENT: &str = "Environment:\n- working directory: /home/user/src/project";

    fn offer(window: u32, setup: &ToolSetup, config: &Config, chose: bool) -> WindowOffer {
        offer_for_window(window, setup, &config.system_prompt, ENVIRONMENT, chose)
    }

    /// The estimated tokens of offering `tools` (as `offer_for_window` counts them).
    fn cost(setup: &ToolSetup, config: &Config, tools: &BTreeSet<String>) -> u64 {
        let offered = ToolSetup {
            active: tools.clone(),
            ..setup.clone()
        };
        let chars = system_message(&offered, &config.system_prompt, ENVIRONMENT).len()
            + tools_json(&specs(&offered)).len();
        (chars as f64 / 3.0).ceil() as u64
    }

    #[test]
    fn a_small_window_offers_the_largest_set_under_a_quarter_of_it_most_needed_first() {
        let (config, setup) = default_setup();
        for window in [2048u32, 4096, 6000] {
            let o = offer(window, &setup, &config, false);
            let quarter = u64::from(window) / 4;
            assert!(o.tools.len() < setup.active.len(), "window {window}");
            assert!(
                cost(&setup, &config, &o.tools) <= quarter,
                "window {window}: {:?}",
                o.tools
            );
            // Largest: no tool left out would still fit beside the others.
            for left_out in setup.active.difference(&o.tools) {
                let mut more = o.tools.clone();
                more.insert(left_out.clone());
                assert!(
                    cost(&setup, &config, &more) > quarter,
                    "{left_out} fits too"
                );
            }
            let notice = o.notice.expect("a notice says which");
            assert!(
                notice.contains("add more with @{agent} or --tools"),
                "{notice}"
            );
        }
        // 4,096 tokens: a quarter is about 3,000 characters; the most needed come first, and
        // running a command is one of them.
        let o = offer(4096, &setup, &config, false);
        assert!(
            o.tools
                .is_superset(&names(&["read_file", "edit_file", "run_command"])),
            "{:?}",
            o.tools
        );
        assert!(!o.tools.contains("ask_questions"), "{:?}", o.tools);
        assert!(
            o.notice.as_deref().is_some_and(|n| n.starts_with(
                "the model's window is 4,096 tokens: offering read_file, edit_file, run_command, "
            ) && n
                .contains("(what fits in a quarter of it, about 1,024 tokens)")),
            "{:?}",
            o.notice
        );
    }

    #[test]
    fn an_8k_window_keeps_every_default_tool() {
        let (config, setup) = default_setup();
        for window in [8192, 32_768, 1_000_000] {
            let o = offer(window, &setup, &config, false);
            assert_eq!((o.tools, o.notice), (setup.active.clone(), None));
        }
    }

    #[test]
    fn a_window_too_small_for_any_tool_offers_none_and_says_so() {
        let (config, setup) = default_setup();
        let o = offer(512, &setup, &config, false);
        assert_eq!(o.tools, BTreeSet::new());
        assert!(
            o.notice
                .as_deref()
                .is_some_and(|n| n.contains("512 tokens: offering no tools")),
            "{:?}",
            o.notice
        );
    }

    #[test]
    fn a_user_choice_is_kept_whatever_the_window() {
        let (config, mut setup) = default_setup();
        let o = offer(4096, &setup, &config, true);
        assert_eq!((o.tools, o.notice), (setup.active.clone(), None));
        setup.active = names(&["run_command", "read_file"]);
        let o = offer(1024, &setup, &config, true);
        assert_eq!((o.tools, o.notice), (setup.active.clone(), None));
    }

    #[test]
    fn an_unknown_window_of_zero_changes_nothing() {
        let (config, setup) = default_setup();
        let o = offer(0, &setup, &config, false);
        assert_eq!((o.tools, o.notice), (setup.active.clone(), None));
    }

    #[test]
    fn only_offered_tools_are_kept_and_a_ratio_that_packs_more_keeps_more() {
        let active = names(&["run_command", "read_file", "grep_search", "mcp_thing"]);
        // Each tool 1,000 characters; a window of 4,000 tokens: a quarter is 1,000 tokens.
        let cost = |t: &BTreeSet<String>| t.len() * 1_000;
        let o = offer_sized(4_000, 3.0, &active, cost, false);
        assert_eq!(o.tools, names(&["read_file", "run_command", "grep_search"]));
        let o = offer_sized(4_000, 1.0, &active, cost, false);
        assert_eq!(o.tools, names(&["read_file"]));
        let o = offer_sized(4_000, 4.0, &active, cost, false);
        assert_eq!((o.tools, o.notice), (active.clone(), None));
        assert!(keep_rank("mcp_thing") > keep_rank("memory"));
    }

    #[test]
    fn windows_are_written_with_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(512), "512");
        assert_eq!(thousands(4096), "4,096");
        assert_eq!(thousands(131_072), "131,072");
        assert_eq!(thousands(1_048_576), "1,048,576");
    }

    /// A schema without its `description` texts: names, types, `required`, enums, limits and
    /// strictness. (A property *named* `description` is an object, and stays.)
    fn without_descriptions(v: &serde_json::Value) -> serde_json::Value {
        use serde_json::Value;
        match v {
            Value::Object(m) => Value::Object(
                m.iter()
                    .filter(|(k, v)| !(k.as_str() == "description" && v.is_string()))
                    .map(|(k, v)| (k.clone(), without_descriptions(v)))
                    .collect(),
            ),
            Value::Array(a) => Value::Array(a.iter().map(without_descriptions).collect()),
            other => other.clone(),
        }
    }

    /// Shortening descriptions must not change how a tool is called: every built-in's schema
    /// stripped of its descriptions is pinned here.
    #[test]
    fn builtin_schemas_apart_from_descriptions_are_unchanged() {
        let registry = crate::tools::builtin::registry();
        let shapes: Vec<serde_json::Value> = registry
            .entries()
            .map(|(_, e)| {
                let spec = e.tool.spec();
                serde_json::json!({
                    "name": spec.name,
                    "strict": spec.strict,
                    "parameters": without_descriptions(&spec.parameters),
                })
            })
            .collect();
        insta::assert_snapshot!(
            "builtin_schema_shapes",
            serde_json::to_string_pretty(&shapes).unwrap_or_default()
        );
    }

    /// What the caller passes as `user_chose`: `config.tools.default_tools_chosen`.
    #[test]
    fn the_user_chose_the_tools_with_tools_or_a_config_files_default_tools() {
        let home = tempfile::tempdir().expect("a temp dir");
        assert!(!default_config(home.path(), None).tools.default_tools_chosen);
        assert!(
            default_config(home.path(), Some(&["agent"]))
                .tools
                .default_tools_chosen
        );
        let user_config = home.path().join("XDG_CONFIG_HOME/sayso/config.toml");
        std::fs::create_dir_all(user_config.parent().expect("a parent")).expect("a config dir");
        std::fs::write(&user_config, "[chat]\ndefault_tools = [\"agent\"]\n").expect("written");
        assert!(default_config(home.path(), None).tools.default_tools_chosen);
    }
}
