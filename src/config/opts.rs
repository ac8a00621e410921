//! A tool's opts (SPEC §4.1, §5.1): the tool's own defaults with the config entry's `opts`
//! merged over them (config wins, key by key). Unknown keys in a config file are errors.
//!
//! Plain data, so it lives with the config (which reads it from `[tools.NAME.opts]`) and the
//! tool engine reads it; the config never imports the engine.

use serde::Deserialize;
use serde_json::Value;

/// Every opt a tool may have. `None` = not set at this layer.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Opts {
    /// `true` / `false`, or any other value: the tool's condition decides.
    pub require_approval_before: Option<ApprovalBefore>,
    pub require_cmd_approval: Option<bool>,
    pub protect: Option<bool>,
    /// The judge may vet this tool in auto mode.
    pub judge: Option<bool>,
    /// Milliseconds before a command is killed (and the function watchdog fires).
    pub timeout: Option<u64>,
    /// Commands `is_safe` accepts by argv prefix (run_command).
    pub safe_commands: Option<Vec<String>>,
    /// Consecutive calls of this tool share one setup/on_exit (the run ends at the first error);
    /// every call still passes the approval decision.
    pub use_handlers_once: Option<bool>,
    /// Characters of one result sent to the model; longer output keeps its head and tail.
    pub output_limit: Option<usize>,
    /// fetch_webpage may connect to loopback, link-local and private addresses (a project
    /// file cannot set it: it may not set `[tools.*]` at all).
    pub allow_private_addresses: Option<bool>,
}

/// The default cap, in characters, of one tool result sent to the model.
pub const DEFAULT_OUTPUT_LIMIT: usize = 30_000;

/// The default function watchdog and shell timeout: 10 minutes.
pub const DEFAULT_TIMEOUT_MS: u64 = 600_000;

/// `require_approval_before`, typed (SPEC §5.1): whether a call asks before it runs (as the
/// mode says). In a file `true` and `false` read as [`Always`](Self::Always) and
/// [`Never`](Self::Never), any other value as [`Condition`](Self::Condition).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApprovalBefore {
    #[default]
    Never,
    Always,
    /// The tool's condition for the call decides (the seed's predicate or `prompt_condition`).
    Condition,
}

impl From<bool> for ApprovalBefore {
    fn from(asks: bool) -> Self {
        if asks { Self::Always } else { Self::Never }
    }
}

impl<'de> Deserialize<'de> for ApprovalBefore {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match toml::Value::deserialize(d)? {
            toml::Value::Boolean(b) => b.into(),
            _ => Self::Condition,
        })
    }
}

impl Opts {
    /// `self` with every key set in `high` replaced.
    pub fn merged(&self, high: &Opts) -> Opts {
        Opts {
            require_approval_before: high
                .require_approval_before
                .or(self.require_approval_before),
            require_cmd_approval: high.require_cmd_approval.or(self.require_cmd_approval),
            protect: high.protect.or(self.protect),
            judge: high.judge.or(self.judge),
            timeout: high.timeout.or(self.timeout),
            safe_commands: high.safe_commands.clone().or(self.safe_commands.clone()),
            use_handlers_once: high.use_handlers_once.or(self.use_handlers_once),
            output_limit: high.output_limit.or(self.output_limit),
            allow_private_addresses: high
                .allow_private_addresses
                .or(self.allow_private_addresses),
        }
    }

    /// `require_approval_before`; unset is [`ApprovalBefore::Never`].
    pub fn approval_before(&self) -> ApprovalBefore {
        self.require_approval_before.unwrap_or_default()
    }

    pub fn require_cmd_approval(&self) -> bool {
        self.require_cmd_approval.unwrap_or(false)
    }

    pub fn protect(&self) -> bool {
        self.protect.unwrap_or(false)
    }

    pub fn judge(&self) -> bool {
        self.judge.unwrap_or(false)
    }

    pub fn timeout_ms(&self) -> u64 {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT_MS)
    }

    pub fn output_limit(&self) -> usize {
        self.output_limit.unwrap_or(DEFAULT_OUTPUT_LIMIT)
    }

    pub fn use_handlers_once(&self) -> bool {
        self.use_handlers_once.unwrap_or(false)
    }

    pub fn allow_private_addresses(&self) -> bool {
        self.allow_private_addresses.unwrap_or(false)
    }

    /// As JSON, for `sayso tools` and session records.
    pub fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        if let Some(v) = self.require_approval_before {
            let v = match v {
                ApprovalBefore::Never => Value::Bool(false),
                ApprovalBefore::Always => Value::Bool(true),
                ApprovalBefore::Condition => Value::from("condition"),
            };
            m.insert("require_approval_before".into(), v);
        }
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                m.insert(k.into(), v);
            }
        };
        put(
            "require_cmd_approval",
            self.require_cmd_approval.map(Value::Bool),
        );
        put("protect", self.protect.map(Value::Bool));
        put("judge", self.judge.map(Value::Bool));
        put("timeout", self.timeout.map(Value::from));
        put("safe_commands", self.safe_commands.clone().map(Value::from));
        put("use_handlers_once", self.use_handlers_once.map(Value::Bool));
        put("output_limit", self.output_limit.map(Value::from));
        put(
            "allow_private_addresses",
            self.allow_private_addresses.map(Value::Bool),
        );
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_wins_key_by_key() {
        let tool = Opts {
            require_approval_before: Some(ApprovalBefore::Always),
            timeout: Some(5),
            ..Opts::default()
        };
        let config = Opts {
            timeout: Some(9),
            protect: Some(true),
            ..Opts::default()
        };
        let m = tool.merged(&config);
        assert_eq!(m.approval_before(), ApprovalBefore::Always);
        assert_eq!(m.timeout_ms(), 9);
        assert!(m.protect());
    }

    #[test]
    fn require_approval_before_reads_true_false_and_any_other_value() {
        for (text, want) in [
            ("true", ApprovalBefore::Always),
            ("false", ApprovalBefore::Never),
            ("\"ask\"", ApprovalBefore::Condition),
            ("3", ApprovalBefore::Condition),
        ] {
            let opts: Opts = toml::from_str(&format!("require_approval_before = {text}")).unwrap();
            assert_eq!(opts.approval_before(), want, "{text}");
        }
        assert_eq!(Opts::default().approval_before(), ApprovalBefore::Never);
    }
}
