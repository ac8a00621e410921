//! The shape of a config file, exactly as TOML spells it. Unknown keys are errors.
//!
//! Every field is optional: a file sets only what it changes. Layers are merged field by field
//! (a later layer's `Some` wins) in `merge`.

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub model: Option<String>,
    /// Which `[providers.NAME]` to use (the same as `--provider`).
    pub use_provider: Option<String>,
    /// The default provider.
    pub provider: Option<ProviderFile>,
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderFile>,
    pub chat: Option<ChatFile>,
    pub judge: Option<JudgeFile>,
    /// `[tools.NAME]`: opts for a tool, or a command tool (`extends = "cmd_tool"`).
    #[serde(default)]
    pub tools: BTreeMap<String, ToolFile>,
    #[serde(default)]
    pub groups: BTreeMap<String, GroupFile>,
    pub ui: Option<UiFile>,
    pub sessions: Option<super::sessions::SessionsFile>,
    /// `[undo]` (`super::undo`); not settable by a project file.
    pub undo: Option<super::undo::UndoFile>,
    /// `[[approvals.rules]]`; read layer by layer (see `approvals::rules`).
    pub approvals: Option<super::approvals::ApprovalsFile>,
    /// `[mcp_servers.NAME]`.
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, super::mcp::McpServerFile>,
    pub log_level: Option<String>,
    /// `[context_windows]`: model id → tokens, beating any provider's `context_window`.
    #[serde(default)]
    pub context_windows: BTreeMap<String, u64>,
    /// `[sandbox]`; a project file's is taken out of its layer and may only tighten.
    pub sandbox: Option<super::sandbox::SandboxFile>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiFile {
    /// `auto` | `dark` | `light`.
    pub theme: Option<String>,
    /// Capture the mouse for wheel scrolling; `false` leaves the terminal's own selection alone.
    pub mouse: Option<bool>,
    /// Ring the terminal bell when a tool call needs approval.
    pub bell: Option<bool>,
    /// How to say a long turn ended while the terminal was unfocused: `auto` | `bell` |
    /// `osc9` | `osc777` | `osc99` | `off`.
    pub notify: Option<String>,
    /// From how many seconds a turn counts as long.
    pub notify_after_s: Option<u64>,
    /// Show the model's reasoning in the transcript (Ctrl+T toggles it).
    pub show_reasoning: Option<bool>,
    /// What Enter during a turn does: `next-request` | `turn-end` (Alt+Enter does the other).
    pub steer: Option<String>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderFile {
    pub base_url: Option<String>,
    pub api_key_env: Option<String>,
    pub headers: Option<BTreeMap<String, String>>,
    /// The model to use with this provider when none is given on the command line.
    pub model: Option<String>,
    pub request_timeout_s: Option<u64>,
    pub stream_idle_timeout_s: Option<u64>,
    /// A streamed reply's wait for its first token (the prompt processing).
    pub first_token_timeout_s: Option<u64>,
    pub connect_timeout_s: Option<u64>,
    pub max_retries: Option<u32>,
    pub retry_initial_delay_ms: Option<u64>,
    pub retry_max_delay_ms: Option<u64>,
    /// The model's context window in tokens, when the server does not say (or says wrong).
    pub context_window: Option<u64>,
    /// `auto` | `off`: read tool calls a model writes as text (`provider::text_calls`).
    pub text_tool_calls: Option<String>,
    /// Which assistant messages get their reasoning sent back: `auto` | `always` | `never`.
    pub send_reasoning: Option<String>,
    /// `reasoning_effort` sent with every request (`--reasoning-effort`).
    pub reasoning_effort: Option<String>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatFile {
    pub system_prompt: Option<String>,
    /// Tools and groups offered to the model (`--tools`).
    pub default_tools: Option<Vec<String>>,
    /// Tools that never need approval (`--allowed-tools`).
    pub allowed_tools: Option<Vec<String>>,
    pub auto_submit_success: Option<bool>,
    pub auto_submit_errors: Option<bool>,
    /// Model round-trips per user message (`--max-turns`).
    pub max_turns: Option<u32>,
    /// Start in auto mode (`--auto`).
    pub auto: Option<bool>,
    /// `trust`, `auto`, `balanced`, `suggest` or `strict`.
    pub approval_mode: Option<String>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeFile {
    pub enabled: Option<bool>,
    /// Empty = the chat model.
    pub model: Option<String>,
    pub timeout_s: Option<u64>,
}

/// A `[tools.NAME]` entry.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolFile {
    /// `"cmd_tool"` defines a new command tool.
    pub extends: Option<String>,
    pub description: Option<String>,
    /// The command template: `{name}` is the quoted argument, `{name?}` is dropped when absent.
    pub build_cmd: Option<String>,
    pub system_prompt: Option<String>,
    pub schema: Option<CmdSchemaFile>,
    pub opts: Option<crate::config::opts::Opts>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CmdSchemaFile {
    #[serde(default)]
    pub properties: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub required: Vec<String>,
    #[serde(rename = "additionalProperties")]
    pub additional_properties: Option<bool>,
}

#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupFile {
    pub tools: Vec<String>,
    /// Replaces an `@{group}` mention; `${tools}` is filled with the member names.
    pub prompt: Option<String>,
}

fn pick<T>(low: Option<T>, high: Option<T>) -> Option<T> {
    high.or(low)
}

impl ProviderFile {
    pub fn merge(self, high: ProviderFile) -> ProviderFile {
        ProviderFile {
            base_url: pick(self.base_url, high.base_url),
            api_key_env: pick(self.api_key_env, high.api_key_env),
            headers: pick(self.headers, high.headers),
            model: pick(self.model, high.model),
            request_timeout_s: pick(self.request_timeout_s, high.request_timeout_s),
            stream_idle_timeout_s: pick(self.stream_idle_timeout_s, high.stream_idle_timeout_s),
            first_token_timeout_s: pick(self.first_token_timeout_s, high.first_token_timeout_s),
            connect_timeout_s: pick(self.connect_timeout_s, high.connect_timeout_s),
            max_retries: pick(self.max_retries, high.max_retries),
            retry_initial_delay_ms: pick(self.retry_initial_delay_ms, high.retry_initial_delay_ms),
            retry_max_delay_ms: pick(self.retry_max_delay_ms, high.retry_max_delay_ms),
            context_window: pick(self.context_window, high.context_window),
            text_tool_calls: pick(self.text_tool_calls, high.text_tool_calls),
            send_reasoning: pick(self.send_reasoning, high.send_reasoning),
            reasoning_effort: pick(self.reasoning_effort, high.reasoning_effort),
        }
    }

    /// Removes the keys a project file may not set (they could send your key elsewhere);
    /// returns their names.
    pub fn strip_redirecting_keys(&mut self) -> Vec<&'static str> {
        let mut removed = Vec::new();
        if self.base_url.take().is_some() {
            removed.push("base_url");
        }
        if self.api_key_env.take().is_some() {
            removed.push("api_key_env");
        }
        if self.headers.take().is_some() {
            removed.push("headers");
        }
        removed
    }
}

impl FileConfig {
    pub fn merge(self, high: FileConfig) -> FileConfig {
        let mut providers = self.providers;
        for (name, p) in high.providers {
            let merged = providers.remove(&name).unwrap_or_default().merge(p);
            providers.insert(name, merged);
        }
        FileConfig {
            model: pick(self.model, high.model),
            use_provider: pick(self.use_provider, high.use_provider),
            provider: match (self.provider, high.provider) {
                (Some(a), Some(b)) => Some(a.merge(b)),
                (a, b) => b.or(a),
            },
            providers,
            chat: match (self.chat, high.chat) {
                (Some(a), Some(b)) => Some(ChatFile {
                    system_prompt: pick(a.system_prompt, b.system_prompt),
                    default_tools: pick(a.default_tools, b.default_tools),
                    allowed_tools: pick(a.allowed_tools, b.allowed_tools),
                    auto_submit_success: pick(a.auto_submit_success, b.auto_submit_success),
                    auto_submit_errors: pick(a.auto_submit_errors, b.auto_submit_errors),
                    max_turns: pick(a.max_turns, b.max_turns),
                    auto: pick(a.auto, b.auto),
                    approval_mode: pick(a.approval_mode, b.approval_mode),
                }),
                (a, b) => b.or(a),
            },
            judge: match (self.judge, high.judge) {
                (Some(a), Some(b)) => Some(JudgeFile {
                    enabled: pick(a.enabled, b.enabled),
                    model: pick(a.model, b.model),
                    timeout_s: pick(a.timeout_s, b.timeout_s),
                }),
                (a, b) => b.or(a),
            },
            tools: {
                let mut tools = self.tools;
                tools.extend(high.tools);
                tools
            },
            groups: {
                let mut groups = self.groups;
                groups.extend(high.groups);
                groups
            },
            sessions: match (self.sessions, high.sessions) {
                (Some(a), Some(b)) => Some(a.merge(b)),
                (a, b) => b.or(a),
            },
            undo: match (self.undo, high.undo) {
                (Some(a), Some(b)) => Some(a.merge(b)),
                (a, b) => b.or(a),
            },
            ui: match (self.ui, high.ui) {
                (Some(a), Some(b)) => Some(UiFile {
                    theme: pick(a.theme, b.theme),
                    mouse: pick(a.mouse, b.mouse),
                    bell: pick(a.bell, b.bell),
                    notify: pick(a.notify, b.notify),
                    notify_after_s: pick(a.notify_after_s, b.notify_after_s),
                    show_reasoning: pick(a.show_reasoning, b.show_reasoning),
                    steer: pick(a.steer, b.steer),
                }),
                (a, b) => b.or(a),
            },
            approvals: match (self.approvals, high.approvals) {
                (Some(mut a), Some(b)) => {
                    a.rules.extend(b.rules);
                    Some(a)
                }
                (a, b) => b.or(a),
            },
            mcp_servers: {
                let mut servers = self.mcp_servers;
                servers.extend(high.mcp_servers);
                servers
            },
            log_level: pick(self.log_level, high.log_level),
            context_windows: {
                let mut windows = self.context_windows;
                windows.extend(high.context_windows);
                windows
            },
            sandbox: match (self.sandbox, high.sandbox) {
                (Some(a), Some(b)) => Some(a.merge(b)),
                (a, b) => b.or(a),
            },
        }
    }
}
