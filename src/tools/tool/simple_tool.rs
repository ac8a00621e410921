//! [`SimpleTool`]: the common case of a tool (SPEC §4.1) — a description, flat arguments and
//! one async function returning a string, reported as the model's whole result. It owns no
//! approval settings beyond the opts it is given.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::config::opts::Opts;
use crate::provider::ToolSpec;
use crate::tools::tool::output::{CmdResult, Output, ToolOutput};
use crate::tools::tool::report;
use crate::tools::tool::{Command, Invocation, Kind, Tool};

type SimpleFn =
    Arc<dyn Fn(Arc<Invocation>) -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// The common case: a description, flat arguments and one async function returning a string.
///
/// ```
/// use sayso::tools::tool::{Kind, SimpleTool};
/// let echo = SimpleTool::new("echo", "Repeat the text", Kind::ReadOnly)
///     .arg("text", "string", "What to repeat", true)
///     .run(|inv| async move { Ok(inv.arg_str("text").to_owned()) });
/// ```
#[derive(Clone)]
pub struct SimpleTool {
    name: String,
    description: String,
    kind: Kind,
    properties: serde_json::Map<String, Value>,
    required: Vec<String>,
    opts: Opts,
    func: Option<SimpleFn>,
}

impl SimpleTool {
    pub fn new(name: impl Into<String>, description: impl Into<String>, kind: Kind) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            kind,
            properties: serde_json::Map::new(),
            required: Vec::new(),
            opts: Opts::default(),
            func: None,
        }
    }

    /// Adds an argument of JSON type `ty`.
    pub fn arg(mut self, name: &str, ty: &str, description: &str, required: bool) -> Self {
        self.properties.insert(
            name.into(),
            serde_json::json!({"type": ty, "description": description}),
        );
        if required {
            self.required.push(name.into());
        }
        self
    }

    pub fn opts(mut self, opts: Opts) -> Self {
        self.opts = opts;
        self
    }

    pub fn run<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(Arc<Invocation>) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<String, String>> + Send + 'static,
    {
        self.func = Some(Arc::new(move |inv| Box::pin(f(inv))));
        self
    }
}

impl Tool for SimpleTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: serde_json::json!({
                "type": "object",
                "properties": self.properties,
                "required": self.required,
            }),
            strict: None,
        }
    }

    fn kind(&self) -> Kind {
        self.kind
    }

    fn default_opts(&self) -> Opts {
        self.opts.clone()
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        let Some(func) = self.func.clone() else {
            return Vec::new();
        };
        vec![Command::Function(Arc::new(move |inv, _args| {
            let func = func.clone();
            Box::pin(async move {
                Some(match func(inv).await {
                    Ok(s) => CmdResult::ok(s),
                    Err(e) => CmdResult::err(e),
                })
            })
        }))]
    }

    fn on_success(&self, inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        if data.is_empty() {
            out.add(format!("Executed `{}`", inv.name), None);
        } else {
            report::last_output(data, out);
        }
    }
}
