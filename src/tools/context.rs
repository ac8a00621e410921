//! What a call can reach besides its arguments: the chat's file ledger (the content each file
//! had when the model last read or wrote it, so an edit can refuse a file that changed since),
//! the question channel used by `ask_questions`, the memory directory, sayso's own paths (which
//! file tools may not write unasked), the secret variables tool commands must not inherit
//! (the config's, and any other `crate::secrets` withholds), and the chat's approval rules
//! (the same [`SharedRules`] the engine decides with), from which search tools and diffs learn
//! the paths a deny rule keeps out of their results.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::tools::policy::rules::SharedRules;
use tokio::sync::{mpsc, oneshot};

/// An editor's buffers as the file tools' files (`sayso acp`, when the client offers
/// `fs/read_text_file` / `fs/write_text_file`). Blocking: the tools call it from a blocking
/// thread. `None`: the editor does not do that one; the tool uses the disk.
pub trait EditorFiles: Send + Sync + std::fmt::Debug {
    fn read_text(&self, path: &Path) -> Option<Result<String, String>>;
    fn write_text(&self, path: &Path, text: &str) -> Option<Result<(), String>>;
}

/// Where the file tools read and write text: the disk unless a front-end put an editor here.
/// Only the reading and writing themselves go there: paths are resolved, confined and
/// approved before either, the same (`tools::builtin::file_access`).
#[derive(Debug, Clone, Default)]
pub struct FileAccess(Arc<Mutex<Option<Arc<dyn EditorFiles>>>>);

impl FileAccess {
    /// The chat's file tools go through `editor` from now on.
    pub fn set(&self, editor: Arc<dyn EditorFiles>) {
        if let Ok(mut e) = self.0.lock() {
            *e = Some(editor);
        }
    }

    pub fn editor(&self) -> Option<Arc<dyn EditorFiles>> {
        self.0.lock().ok().and_then(|e| e.clone())
    }
}

/// Per-chat record of file contents the model has seen.
#[derive(Debug, Clone, Default)]
pub struct FileLedger(Arc<Mutex<HashMap<PathBuf, u64>>>);

fn digest(content: &[u8]) -> u64 {
    let mut h = DefaultHasher::new();
    content.hash(&mut h);
    h.finish()
}

impl FileLedger {
    /// The model has now seen `content` as the file's content (after a read or its own write).
    pub fn record(&self, path: &Path, content: &[u8]) {
        if let Ok(mut m) = self.0.lock() {
            m.insert(path.to_path_buf(), digest(content));
        }
    }

    /// `Err` when the model saw this file and it has changed since.
    pub fn check_fresh(&self, path: &Path, current: &[u8]) -> Result<(), String> {
        let seen = self.0.lock().ok().and_then(|m| m.get(path).copied());
        match seen {
            Some(d) if d != digest(current) => Err(format!(
                "`{}` changed since you last read it (someone else edited it); read it again, then retry your edit",
                path.display()
            )),
            _ => Ok(()),
        }
    }

    pub fn forget(&self, path: &Path) {
        if let Ok(mut m) = self.0.lock() {
            m.remove(path);
        }
    }
}

/// One question of an `ask_questions` call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub header: String,
    pub question: String,
    #[serde(default, deserialize_with = "null_is_default")]
    pub options: Vec<QuestionOption>,
    #[serde(default, rename = "multiSelect", deserialize_with = "null_is_default")]
    pub multi_select: bool,
}

/// Strict schemas make optional fields nullable: `null` means the default.
fn null_is_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionOption {
    pub label: String,
    #[serde(default, deserialize_with = "null_is_default")]
    pub description: String,
}

/// The user's answer to one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Text(String),
    Selected(Vec<String>),
    Skipped,
}

/// Questions for the user, with a reply channel (a dropped reply means every question skipped).
#[derive(Debug)]
pub struct QuestionRequest {
    pub call_id: String,
    pub questions: Vec<Question>,
    pub reply: oneshot::Sender<Vec<Answer>>,
}

pub type QuestionSender = mpsc::UnboundedSender<QuestionRequest>;

impl ToolContext {
    /// The environment changes every tool process gets: the secret variables removed (the
    /// provider keys, MCP `headers_env` variables; see `crate::secrets`).
    pub fn child_env(&self) -> crate::tools::exec::shell::ChildEnv {
        let mut remove = self.secret_env.clone();
        remove.extend(
            crate::secrets::withheld_env()
                .into_iter()
                .filter(|n| !self.secret_env.contains(n)),
        );
        crate::tools::exec::shell::ChildEnv {
            set: Vec::new(),
            remove,
        }
    }
}

/// Shared by every call of a chat.
#[derive(Debug, Clone, Default)]
pub struct ToolContext {
    pub ledger: FileLedger,
    /// Where `ask_questions` sends its questions; `None` when nobody can answer (headless).
    pub questions: Option<QuestionSender>,
    /// The root of the `memory` tool's files.
    pub memory_dir: PathBuf,
    /// sayso's own directories and config files: file tools always ask before writing there.
    pub own_paths: Vec<PathBuf>,
    /// Environment variables no tool command may see (the provider keys, MCP `headers_env`).
    pub secret_env: Vec<String>,
    /// The approval rules in force: [`crate::tools::lifecycle::orchestrator::Engine::new`] puts its own
    /// here, so a rule saved during the chat reaches the tools too.
    pub rules: SharedRules,
    /// The skills found at the start of the chat, for the `skill` tool (`crate::skills`).
    pub skills: crate::skills::Catalog,
    /// The chat's sandbox: every process a tool starts runs inside it (`crate::sandbox`).
    pub sandbox: Arc<crate::sandbox::Sandbox>,
    /// Plan mode (`crate::tools::policy::plan`): the engine reads it before each decision.
    pub plan: crate::tools::policy::plan::SharedPlan,
    /// The disk, or the editor's buffers (`sayso acp`).
    pub files: FileAccess,
}
