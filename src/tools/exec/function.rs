//! What a function command receives besides its invocation (SPEC §4.2): the previous command's
//! result, a one-shot `output_cb` for results delivered later, and `register_job` so that
//! cancellation can kill a child process the function started.

use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use crate::tools::exec::shell::Jobs;
use crate::tools::tool::CmdResult;

/// Delivers a function's result later. Only the first call counts; later calls are ignored.
#[derive(Clone)]
pub struct OutputCb {
    slot: Arc<Mutex<Option<oneshot::Sender<CmdResult>>>>,
}

impl OutputCb {
    pub fn new() -> (Self, oneshot::Receiver<CmdResult>) {
        let (tx, rx) = oneshot::channel();
        (
            Self {
                slot: Arc::new(Mutex::new(Some(tx))),
            },
            rx,
        )
    }

    /// Delivers `result`; returns false if a result was already delivered.
    pub fn call(&self, result: CmdResult) -> bool {
        let sender = self.slot.lock().map(|mut s| s.take()).unwrap_or(None);
        match sender {
            Some(tx) => {
                let _ = tx.send(result);
                true
            }
            None => false,
        }
    }

    /// Whether a result has been delivered (or the engine stopped listening).
    pub fn is_spent(&self) -> bool {
        self.slot.lock().map(|s| s.is_none()).unwrap_or(true)
    }
}

/// The `opts` argument of a function command.
#[derive(Clone)]
pub struct FnArgs {
    /// The previous command's result within this tool (`None` for the first command).
    pub input: Option<CmdResult>,
    pub output_cb: OutputCb,
    /// Process groups registered here are killed when the user stops.
    pub jobs: Jobs,
}
