//! The session of a running chat: its id from the start, its file created with the first
//! message (opening sayso and quitting leaves nothing behind), a writer task fed by the same
//! events as the front-end, and a clean close that flushes and syncs.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::record::{Header, VERSION};
use super::store::{SessionFile, file_of, new_id, sessions_dir};
use super::writer::{self, Summary};
use crate::events::{Event, EventSink, Mode};

/// What the header of a new session says.
#[derive(Debug, Clone)]
pub struct Start {
    pub cwd: PathBuf,
    pub model: String,
    pub provider: String,
    pub mode: Mode,
}

enum State {
    /// Not written yet: the file is created with the first event.
    New(Start),
    /// Continuing a saved session: the file exists.
    Resumed,
    Open {
        tx: mpsc::UnboundedSender<Event>,
        writer: JoinHandle<Summary>,
    },
    /// Writing failed to start; the chat goes on unsaved.
    Failed,
}

pub struct LiveSession {
    id: String,
    dir: PathBuf,
    state: State,
}

/// `2026-12-01T08:30:00Z`.
pub fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl LiveSession {
    /// A new session in `data_dir`'s sessions directory; nothing is written yet.
    pub fn new(data_dir: &Path, start: Start) -> Self {
        Self {
            id: new_id(SystemTime::now()),
            dir: data_dir.join("sessions"),
            state: State::New(start),
        }
    }

    /// Continues the saved session `id` (its file exists).
    pub fn resumed(data_dir: &Path, id: &str) -> Self {
        Self {
            id: id.to_owned(),
            dir: data_dir.join("sessions"),
            state: State::Resumed,
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn path(&self) -> PathBuf {
        file_of(&self.dir, &self.id)
    }

    /// Whether the file is being written (it is created with the first message).
    pub fn is_open(&self) -> bool {
        matches!(self.state, State::Open { .. })
    }

    /// Whether the session has a file: it is being written, or it was resumed from one.
    pub fn is_saved(&self) -> bool {
        matches!(self.state, State::Open { .. } | State::Resumed)
    }

    /// `front` sending to this session's writer as well, opening the file on first use; a new
    /// session's header then says `start` (the model and mode as they are now).
    pub fn sink(&mut self, front: &EventSink, start: impl FnOnce() -> Start) -> EventSink {
        if let State::New(s) = &mut self.state {
            *s = start();
        }
        if let State::New(_) | State::Resumed = self.state {
            self.open();
        }
        match &self.state {
            State::Open { tx, .. } => front.clone().and(tx.clone()),
            _ => front.clone(),
        }
    }

    fn open(&mut self) {
        let opened = match std::mem::replace(&mut self.state, State::Failed) {
            State::New(start) => {
                let header = Header {
                    v: VERSION,
                    id: self.id.clone(),
                    cwd: start.cwd.display().to_string(),
                    model: start.model,
                    provider: start.provider,
                    started: rfc3339(SystemTime::now()),
                    mode: start.mode,
                    parent: None,
                };
                sessions_dir(self.dir.parent().unwrap_or(&self.dir))
                    .and_then(|dir| SessionFile::create(&file_of(&dir, &self.id)))
                    .map(|f| (f, Some(header)))
            }
            State::Resumed => SessionFile::reopen(&self.path()).map(|f| (f, None)),
            other => {
                self.state = other;
                return;
            }
        };
        match opened {
            Ok((file, header)) => {
                let (tx, rx) = mpsc::unbounded_channel();
                let writer = tokio::spawn(writer::run(file, header, rx));
                self.state = State::Open { tx, writer };
            }
            Err(e) => {
                tracing::warn!(%e, "cannot start the session file");
                self.state = State::Failed;
            }
        }
    }

    /// Flushes and syncs what was written; `None` when nothing was.
    pub async fn close(self) -> Option<Summary> {
        match self.state {
            State::Open { tx, writer } => {
                drop(tx);
                writer.await.ok()
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_rfc3339() {
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_083_200);
        assert_eq!(rfc3339(t), "2026-12-01T00:00:00Z");
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
    }
}
