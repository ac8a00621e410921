//! Builds a chat's tools from the configuration: the registry (built-ins plus `cmd_tool`
//! entries, each with its config opts), the groups, the active tool set and the allow-list.
//! Every name is checked; a mistake is a config error that names the file, line and key.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Map;

use crate::config::file::{CmdSchemaFile, ToolFile};
use crate::config::opts::{ApprovalBefore, Opts};
use crate::config::{Config, ConfigError};
use crate::tools::builtin;
use crate::tools::builtin::cmd_tool::template::placeholders;
use crate::tools::builtin::cmd_tool::{BuildCmd, CmdTool, OPTION_MARK, validate_template};
use crate::tools::mcp_selection::{McpSelection, is_mcp_name};
use crate::tools::registry::{Registry, Source};

/// A group of tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub tools: Vec<String>,
    pub prompt: Option<String>,
}

#[derive(Clone)]
pub struct ToolSetup {
    pub registry: Registry,
    pub groups: BTreeMap<String, Group>,
    /// The tools offered to the model at the start of a chat.
    pub active: BTreeSet<String>,
    pub allowed: BTreeSet<String>,
    /// The MCP tools the tool list offers (they are known once their servers run).
    pub mcp: McpSelection,
}

impl ToolSetup {
    /// Tool names for a list of tool and group names; unknown names are returned as errors.
    pub fn expand(&self, names: &[String]) -> Result<BTreeSet<String>, String> {
        let mut out = BTreeSet::new();
        for n in names {
            if let Some(g) = self.groups.get(n) {
                out.extend(g.tools.iter().cloned());
            } else if self.registry.contains(n) {
                out.insert(n.clone());
            } else {
                let mut known: Vec<&str> = self.registry.entries().map(|(k, _)| k).collect();
                known.extend(self.groups.keys().map(String::as_str));
                let mcp = if n.contains("__") {
                    "; an MCP tool is SERVER__TOOL, SERVER a server of [mcp_servers]"
                } else {
                    ""
                };
                return Err(format!(
                    "unknown tool or group `{n}` (known: {}){mcp}",
                    known.join(", ")
                ));
            }
        }
        Ok(out)
    }
}

pub fn build(config: &Config) -> Result<ToolSetup, ConfigError> {
    let mut registry = builtin::registry();
    for (name, entry) in &config.tools.entries {
        register_entry(config, &mut registry, name, entry)?;
    }
    let groups = groups(config, &registry)?;
    let mut setup = ToolSetup {
        registry,
        groups,
        active: BTreeSet::new(),
        allowed: BTreeSet::new(),
        mcp: McpSelection::default(),
    };
    (setup.active, setup.allowed, setup.mcp) = active_and_allowed(config, &setup)?;
    Ok(setup)
}

/// Applies one `[tools.NAME]` entry: defines a command tool, or checks that a built-in's entry
/// sets only what a built-in may; then records its opts.
fn register_entry(
    config: &Config,
    registry: &mut Registry,
    name: &str,
    entry: &ToolFile,
) -> Result<(), ConfigError> {
    let table = format!("tools.{name}");
    match entry.extends.as_deref() {
        Some("cmd_tool") => {
            let tool = cmd_tool_from(config, registry, name, entry)?;
            registry.register(Arc::new(tool), Source::Config);
        }
        Some(other) => {
            return Err(config.invalid(
                &table,
                "extends",
                format!(
                    "`{other}` is not something a tool can extend; the only choice is \"cmd_tool\""
                ),
            ));
        }
        None => check_entry(config, registry, name, entry)?,
    }
    if let Some(opts) = &entry.opts {
        registry.set_config_opts(name, opts.clone());
    }
    Ok(())
}

/// The command tool an `extends = "cmd_tool"` entry defines, once its name, schema and
/// template are checked against each other.
fn cmd_tool_from(
    config: &Config,
    registry: &Registry,
    name: &str,
    entry: &ToolFile,
) -> Result<CmdTool, ConfigError> {
    let table = format!("tools.{name}");
    check_cmd_tool_name(config, registry, name)?;
    let description = entry
        .description
        .clone()
        .ok_or_else(|| config.invalid(&table, "extends", "a cmd_tool needs a `description`"))?;
    let build_cmd = entry.build_cmd.clone().ok_or_else(|| {
        config.invalid(&table, "extends", "a cmd_tool needs a `build_cmd` template")
    })?;
    let schema = entry.schema.clone().unwrap_or_default();
    check_schema_and_template(config, &table, &schema, &build_cmd)?;
    let options: Vec<String> = schema
        .properties
        .iter()
        .filter(|(_, v)| v.get(OPTION_MARK).and_then(|o| o.as_bool()) == Some(true))
        .map(|(k, _)| k.clone())
        .collect();
    let properties: Map<String, serde_json::Value> =
        schema.properties.clone().into_iter().collect();
    Ok(CmdTool {
        name: name.to_owned(),
        description,
        properties,
        required: schema.required.clone(),
        additional_properties: schema.additional_properties.unwrap_or(false),
        build: BuildCmd::Template(build_cmd),
        system_prompt: entry.system_prompt.clone(),
        // A command from config asks before it runs unless its opts say otherwise; in auto
        // mode its rendered command goes through the safe list, then the judge, as
        // `run_command`'s does. "Always accept" remembers the whole tool
        // (`require_cmd_approval = true` remembers each exact command instead).
        opts: Opts {
            require_approval_before: Some(ApprovalBefore::Always),
            judge: Some(true),
            safe_commands: Some(crate::tools::builtin::cmd_tool::default_safe_commands()),
            ..Opts::default()
        },
        options,
    })
}

/// A command tool may not take a built-in's name, and its name must be a plain identifier.
fn check_cmd_tool_name(
    config: &Config,
    registry: &Registry,
    name: &str,
) -> Result<(), ConfigError> {
    let table = format!("tools.{name}");
    if registry
        .get(name)
        .is_some_and(|e| e.source == Source::Builtin)
    {
        return Err(config.invalid(
            &table,
            "extends",
            format!("`{name}` is a built-in tool; give your command tool another name"),
        ));
    }
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(config.invalid(
            "tools",
            name,
            "a tool name may use only letters, digits, `_` and `-`",
        ));
    }
    Ok(())
}

/// `required` and every template placeholder must name a property of the schema.
fn check_schema_and_template(
    config: &Config,
    table: &str,
    schema: &CmdSchemaFile,
    build_cmd: &str,
) -> Result<(), ConfigError> {
    for r in &schema.required {
        if !schema.properties.contains_key(r) {
            return Err(config.invalid(
                table,
                "schema",
                format!("`required` names `{r}`, which is not in `properties`"),
            ));
        }
    }
    validate_template(build_cmd).map_err(|m| config.invalid(table, "build_cmd", m))?;
    for p in placeholders(build_cmd) {
        if !schema.properties.contains_key(&p.key) {
            return Err(config.invalid(
                table,
                "build_cmd",
                format!(
                    "the placeholder `{{{}}}` names no argument of the schema's `properties`",
                    p.key
                ),
            ));
        }
    }
    Ok(())
}

/// An entry without `extends` configures an existing tool: it must name one, and may set only
/// its opts (the command-tool keys belong to `extends = "cmd_tool"`).
fn check_entry(
    config: &Config,
    registry: &Registry,
    name: &str,
    entry: &ToolFile,
) -> Result<(), ConfigError> {
    let table = format!("tools.{name}");
    if !registry.contains(name) {
        return Err(config.invalid(
            "tools",
            name,
            format!("there is no tool `{name}`; to define one, add `extends = \"cmd_tool\"`"),
        ));
    }
    for (key, set) in [
        ("description", entry.description.is_some()),
        ("build_cmd", entry.build_cmd.is_some()),
        ("schema", entry.schema.is_some()),
        ("system_prompt", entry.system_prompt.is_some()),
    ] {
        if set {
            return Err(config.invalid(
                &table,
                key,
                format!("only a cmd_tool (`extends = \"cmd_tool\"`) can set `{key}`"),
            ));
        }
    }
    Ok(())
}

/// The built-in groups, then the configured ones (which may replace a built-in group); every
/// member must be a registered tool.
fn groups(config: &Config, registry: &Registry) -> Result<BTreeMap<String, Group>, ConfigError> {
    let mut groups: BTreeMap<String, Group> = builtin::groups()
        .into_iter()
        .map(|(n, tools, prompt)| {
            (
                n.to_owned(),
                Group {
                    tools: tools.into_iter().map(String::from).collect(),
                    prompt: Some(prompt.to_owned()),
                },
            )
        })
        .collect();
    for (name, g) in &config.tools.groups {
        for t in &g.tools {
            if !registry.contains(t) {
                return Err(config.invalid(
                    &format!("groups.{name}"),
                    "tools",
                    format!("there is no tool `{t}`"),
                ));
            }
        }
        groups.insert(
            name.clone(),
            Group {
                tools: g.tools.clone(),
                prompt: g.prompt.clone(),
            },
        );
    }
    Ok(groups)
}

/// The tools active at the start of a chat, the tools that never ask, expanded from their
/// tool and group names, and the MCP tools offered; an unknown name is reported where it was
/// set (file or command line).
fn active_and_allowed(
    config: &Config,
    setup: &ToolSetup,
) -> Result<(BTreeSet<String>, BTreeSet<String>, McpSelection), ConfigError> {
    let settings = &config.tools;
    // An MCP server's tool (`SERVER__TOOL`) is known only once the server runs: taken as named.
    let is_mcp = |n: &String| is_mcp_name(n, settings.mcp_servers.iter().map(|s| s.name.as_str()));
    let (mcp_offered, builtin): (Vec<String>, Vec<String>) =
        settings.default_tools.iter().cloned().partition(is_mcp);
    let mcp = McpSelection::new(mcp_offered, &settings.default_tools_origin);
    let active = setup.expand(&builtin).map_err(|m| {
        if settings.default_tools_origin == "--tools" {
            ConfigError::Invalid {
                origin: "--tools".into(),
                line: None,
                key: "default_tools".into(),
                message: m,
            }
        } else {
            config.invalid("chat", "default_tools", m)
        }
    })?;
    let (mcp_allowed, named): (Vec<String>, Vec<String>) =
        settings.allowed_tools.iter().cloned().partition(is_mcp);
    let mut allowed = setup.expand(&named).map_err(|m| {
        let (origin, line) = config.locate("chat", "allowed_tools");
        let origin = if line.is_some() {
            origin
        } else {
            "--allowed-tools".into()
        };
        ConfigError::Invalid {
            origin,
            line,
            key: "allowed_tools".into(),
            message: m,
        }
    })?;
    allowed.extend(mcp_allowed);
    Ok((active, allowed, mcp))
}

/// What the tools table says each tool's calls do: under this mode and these rules.
pub struct PolicyView<'a> {
    pub mode: crate::config::mode::Mode,
    pub rules: &'a crate::tools::policy::rules::Rules,
    pub judge_enabled: bool,
    /// An OS sandbox confines commands: balanced runs safe-listed ones unasked, read-only.
    pub sandboxed: bool,
}

/// The tools table of `sayso tools` and `/tools`: name, kind, source, whether offered, and
/// what its calls do under the mode and the rules ([`crate::tools::policy::approval::summary`]); then the
/// groups.
pub fn describe(setup: &ToolSetup, policy: &PolicyView<'_>) -> String {
    describe_parts(
        &setup.registry,
        &setup.active,
        &setup.allowed,
        &setup.groups,
        policy,
    )
}

/// [`describe`] from the pieces a running chat holds.
pub fn describe_parts(
    registry: &Registry,
    active: &BTreeSet<String>,
    allowed: &BTreeSet<String>,
    groups: &BTreeMap<String, Group>,
    policy: &PolicyView<'_>,
) -> String {
    use crate::tools::policy::approval::summary::{ToolPolicy, summary};
    use std::fmt::Write;
    let mut out = String::new();
    let specs = policy.rules.specs();
    let _ = writeln!(
        out,
        "{:<18} {:<10} {:<8} {:<7} CALLS IN {} MODE",
        "TOOL",
        "KIND",
        "SOURCE",
        "ACTIVE",
        policy.mode.as_str().to_uppercase()
    );
    for (name, entry) in registry.entries() {
        let opts = entry.opts();
        let tool = ToolPolicy {
            name,
            kind: entry.tool.kind(),
            opts: &opts,
            is_question: entry.tool.is_question(),
            allowed: allowed.contains(name),
            judge_enabled: policy.judge_enabled,
            sandboxed: policy.sandboxed,
        };
        let on = if active.contains(name) { "yes" } else { "no" };
        let _ = writeln!(
            out,
            "{:<18} {:<10} {:<8} {:<7} {}",
            name,
            entry.tool.kind().as_str(),
            entry.source.as_str(),
            on,
            summary(&tool, policy.mode, &specs)
        );
    }
    let _ = writeln!(
        out,
        "{} mode: {}. In every mode a write outside the project or to a protected path asks, and so does a command a hostile repository could turn into code; headless, a call that would ask is rejected. `--approval-mode MODE` shows another mode; `sayso approvals` lists the rules.",
        policy.mode.as_str(),
        policy.mode.describe()
    );
    for (name, g) in groups {
        let _ = writeln!(out, "group {name}: {}", g.tools.join(", "));
    }
    out
}
