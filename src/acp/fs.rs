//! The editor's file system as the file tools' files: when the client declared
//! `fs.readTextFile` / `fs.writeTextFile`, `read_file` and `edit_file` read through
//! `fs/read_text_file` (the buffer as the editor has it, unsaved changes included) and
//! `create_file` / `edit_file` write through `fs/write_text_file` (the edit lands in the
//! editor's buffer). It is only the reading and writing: paths are resolved, confined and
//! approved by the tools and the engine before, exactly as for the disk
//! ([`crate::tools::builtin::file_access`]).
//!
//! It refuses to wait forever: no answer within [`WAIT`] is the tool's error; a closed
//! connection too. Never a disk write in place of a refused one.

use std::path::Path;
use std::time::Duration;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ClientCapabilities, ReadTextFileRequest, WriteTextFileRequest,
};

use crate::tools::context::EditorFiles;

/// How long a file request waits for the editor.
pub const WAIT: Duration = Duration::from_secs(60);

pub struct EditorFs {
    cx: ConnectionTo<Client>,
    session: String,
    read: bool,
    write: bool,
    runtime: tokio::runtime::Handle,
}

impl std::fmt::Debug for EditorFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorFs")
            .field("session", &self.session)
            .field("read", &self.read)
            .field("write", &self.write)
            .finish_non_exhaustive()
    }
}

impl EditorFs {
    /// The editor's files for `session`, when its capabilities offer either method (`None`:
    /// the tools keep the disk). Call from inside the runtime.
    pub fn offered(
        caps: &ClientCapabilities,
        cx: &ConnectionTo<Client>,
        session: &str,
    ) -> Option<EditorFs> {
        let (read, write) = (caps.fs.read_text_file, caps.fs.write_text_file);
        (read || write).then(|| EditorFs {
            cx: cx.clone(),
            session: session.to_owned(),
            read,
            write,
            runtime: tokio::runtime::Handle::current(),
        })
    }

    /// Runs `request` on the runtime and waits for its answer on this (blocking) thread.
    fn wait<T: Send + 'static>(
        &self,
        request: impl std::future::Future<Output = Result<T, agent_client_protocol::Error>>
        + Send
        + 'static,
    ) -> Result<T, String> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.runtime.spawn(async move {
            let _ = tx.send(request.await);
        });
        // The caller may be a runtime worker (a preview is computed on one): hand its other
        // tasks to another thread while this one waits, or the request's own task may sit
        // behind it, unpolled. Outside a worker (a blocking thread) this just waits.
        let waited = match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
            Ok(tokio::runtime::RuntimeFlavor::MultiThread) => {
                tokio::task::block_in_place(|| rx.recv_timeout(WAIT))
            }
            _ => rx.recv_timeout(WAIT),
        };
        match waited {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {} s", WAIT.as_secs())),
        }
    }
}

impl EditorFiles for EditorFs {
    fn read_text(&self, path: &Path) -> Option<Result<String, String>> {
        if !self.read {
            return None;
        }
        let request = ReadTextFileRequest::new(self.session.clone(), path.to_path_buf());
        let sent = self.cx.send_request(request);
        Some(self.wait(sent.block_task()).map(|r| r.content))
    }

    fn write_text(&self, path: &Path, text: &str) -> Option<Result<(), String>> {
        if !self.write {
            return None;
        }
        let request =
            WriteTextFileRequest::new(self.session.clone(), path.to_path_buf(), text.to_owned());
        let sent = self.cx.send_request(request);
        Some(self.wait(sent.block_task()).map(|_| ()))
    }
}
