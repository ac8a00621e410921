//! Connects a chat to its session file: the events of every turn also go to the session's
//! writer, a new chat starts a new session, and a saved one can be continued. With saving off
//! (`--no-session`) nothing is written.

use std::path::PathBuf;

use super::Agent;
use crate::events::{Event, EventSink, Notice};
use crate::session::live::{LiveSession, Start};
use crate::session::record::Record;
use crate::session::{Saved, open_saved};

pub struct Saving {
    data_dir: PathBuf,
    live: Option<LiveSession>,
}

impl Saving {
    /// Sessions under `data_dir`; `None` when sessions are off.
    pub fn new(data_dir: Option<PathBuf>, agent: &Agent) -> Self {
        let live = data_dir.as_ref().map(|d| LiveSession::new(d, start(agent)));
        Self {
            data_dir: data_dir.unwrap_or_default(),
            live,
        }
    }

    /// The session's id, when one is kept.
    pub fn id(&self) -> Option<&str> {
        self.live.as_ref().map(LiveSession::id)
    }

    /// The session's id once it has a file (`None`: nothing was saved).
    pub fn saved_id(&self) -> Option<&str> {
        self.live
            .as_ref()
            .filter(|l| l.is_saved())
            .map(LiveSession::id)
    }

    /// Where this turn's events go: the front-end, and the session file (created now if this
    /// is the chat's first message).
    pub fn sink(&mut self, front: &EventSink, agent: &Agent) -> EventSink {
        match self.live.as_mut() {
            Some(live) => live.sink(front, || start(agent)),
            None => front.clone(),
        }
    }

    /// Where a change between turns goes: also to the session file once it exists (before
    /// the first message, the header will record the state).
    pub fn sink_between_turns(&mut self, front: &EventSink, agent: &Agent) -> EventSink {
        match self.live.as_ref() {
            Some(live) if live.is_open() => self.sink(front, agent),
            _ => front.clone(),
        }
    }

    /// A new chat is a new session.
    pub async fn new_chat(&mut self, agent: &Agent) {
        if let Some(old) = self.live.take() {
            old.close().await;
            self.live = Some(LiveSession::new(&self.data_dir, start(agent)));
        }
    }

    /// Continues the saved session `id` (`None`: the latest of this directory): the agent
    /// takes its history and state, and `front` gets its events to redraw it, then the
    /// banner, the skipped lines and the notice when the saved mode was not restored (it is
    /// also in [`Saved::notice`]), as [`Notice`]s.
    pub async fn resume(
        &mut self,
        agent: &mut Agent,
        id: Option<&str>,
        front: &EventSink,
    ) -> Result<Saved, String> {
        if self.live.is_none() {
            return Err("sessions are off (--no-session)".into());
        }
        let mut saved = open_saved(&self.data_dir, id, agent.cwd())?;
        saved.notice = agent.restore(&saved.resumed);
        if let Some(old) = self.live.take() {
            old.close().await;
        }
        self.live = Some(LiveSession::resumed(&self.data_dir, &saved.id));
        // The file says which mode the chat goes on in, when it is not the saved one (the
        // command line's, or the config's instead of a looser saved mode).
        let mode = agent.mode().get();
        if saved.resumed.mode.is_some_and(|m| m != mode) {
            let (quiet, _) = EventSink::channel();
            self.sink(&quiet, agent).emit(Event::ModeChanged { mode });
        }
        front.emit(Event::Resumed {
            id: saved.id.clone(),
            mode: agent.mode().get(),
            model: agent.model(),
        });
        for e in std::mem::take(&mut saved.resumed.events) {
            front.emit(replayed(e));
        }
        for line in &saved.banner {
            front.emit(Event::Notice(Notice::Banner(line.clone())));
        }
        if saved.skipped > 0 {
            front.emit(Event::Notice(Notice::SkippedLines(saved.skipped)));
        }
        if let Some(notice) = &saved.notice {
            front.emit(Event::Notice(notice.clone()));
        }
        Ok(saved)
    }

    /// The session's id and file, with everything sent to its writer on disk (the writer is
    /// closed; the file is reopened with the next event); `None` when the chat has no file.
    pub async fn flushed(&mut self) -> Option<(String, PathBuf)> {
        let live = self.live.take()?;
        if !live.is_saved() {
            self.live = Some(live);
            return None;
        }
        let (id, path) = (live.id().to_owned(), live.path());
        live.close().await;
        self.live = Some(LiveSession::resumed(&self.data_dir, &id));
        Some((id, path))
    }

    /// Forks the chat at its `index`-th user message (from 0, which must read `text`) for
    /// `/rewind`: a new session holding what came before that message (`session::fork`; the
    /// cut is [`super::rewind::cut`]), taken up as [`Saving::resume`] takes one up (the
    /// agent's history rewound to match, `front` redrawn), the writer on the new file. The
    /// old session is left as it was; on an error the chat goes on in it.
    pub async fn fork(
        &mut self,
        agent: &mut Agent,
        index: usize,
        text: &str,
        front: &EventSink,
    ) -> Result<Forked, String> {
        if self.live.is_none() {
            return Err(
                "sessions are off (--no-session): there is no saved conversation to rewind".into(),
            );
        }
        let Some((parent, path)) = self.flushed().await else {
            return Err("there is no saved conversation to rewind yet".into());
        };
        let id = fork_file(&self.data_dir, &path, index, text)?;
        self.resume(agent, Some(&id), front).await?;
        Ok(Forked { id, parent })
    }

    /// The saved sessions, newest first.
    /// The saved sessions but the chat going on (it is not another one to resume).
    pub fn list(&self) -> Event {
        let this = self.live.as_ref().map(|l| l.id().to_owned());
        let mut all = crate::session::catalog::infos(&self.data_dir.join("sessions"));
        all.retain(|s| Some(&s.id) != this.as_ref());
        Event::Sessions(all)
    }

    /// Flushes and syncs the session file; a note when it could not be written.
    pub async fn close(self) -> Option<String> {
        let summary = self.live?.close().await?;
        summary.error
    }
}

/// A fork `/rewind` made: the new session the chat goes on in, and the one it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forked {
    pub id: String,
    pub parent: String,
}

/// Writes the fork of the session file at `path` cut before its `index`-th user message; its id.
fn fork_file(
    data_dir: &std::path::Path,
    path: &std::path::Path,
    index: usize,
    text: &str,
) -> Result<String, String> {
    let (records, _) = crate::session::store::read_records::<Record>(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let Some(Record::Session(header)) = records.first() else {
        return Err(format!("{} has no header", path.display()));
    };
    let keep = super::rewind::cut(&records, index, text).map_err(|e| e.to_string())?;
    crate::session::fork::write(
        data_dir,
        header,
        &records[1..keep],
        std::time::SystemTime::now(),
    )
    .map_err(|e| format!("cannot write the rewound session: {e}"))
}

/// The line printed at exit when the chat was saved: its id, and the command that goes on
/// with it — `flags` are the options that chose the endpoint, repeated (shell-quoted) so that
/// the command reaches the same one.
pub fn resume_hint(id: &str, flags: &[String]) -> String {
    let mut command = String::from("sayso");
    for f in flags {
        command.push(' ');
        command.push_str(&crate::tools::policy::command_safety::quote_arg(f));
    }
    format!(
        "sayso: this chat is saved as {id}; continue it with: {command} --resume {}",
        crate::tools::policy::command_safety::quote_arg(id)
    )
}

fn start(agent: &Agent) -> Start {
    Start {
        cwd: agent.cwd().to_path_buf(),
        model: agent.model(),
        provider: agent.provider().to_owned(),
        mode: agent.mode().get(),
    }
}

/// A saved event as a resumed chat replays it. A mode or model change there is history: the
/// front-end shows it as such, but the chat's mode and model now are the ones
/// [`Event::Resumed`] gave (a replayed change must not put the saved session's mode back on
/// the status bar).
fn replayed(e: Event) -> Event {
    match e {
        Event::ModeChanged { mode } => Event::Notice(Notice::ReplayedMode(mode)),
        Event::ModelChanged { model } => Event::Notice(Notice::ReplayedModel(model)),
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::{Event, Notice, replayed, resume_hint};
    use crate::events::Mode;

    /// A saved mode or model change replays as history the front-end words, not as a change
    /// of the chat's mode or model now; other events replay as they were.
    #[test]
    fn replayed_changes_are_notices() {
        assert_eq!(
            replayed(Event::ModeChanged { mode: Mode::Auto }),
            Event::Notice(Notice::ReplayedMode(Mode::Auto))
        );
        assert_eq!(
            replayed(Event::ModelChanged { model: "m".into() }),
            Event::Notice(Notice::ReplayedModel("m".into()))
        );
        let user = Event::UserMessage {
            text: "hi".into(),
            sent: "hi".into(),
        };
        assert_eq!(replayed(user.clone()), user);
    }

    #[test]
    fn the_hint_repeats_the_flags_quoted() {
        let flags = [
            "--base-url",
            "http://h:1/v1",
            "-m",
            "my model",
            "-C",
            "it's",
        ]
        .map(String::from);
        assert_eq!(
            resume_hint("k3x9-1", &flags),
            "sayso: this chat is saved as k3x9-1; continue it with: sayso --base-url \
             http://h:1/v1 -m 'my model' -C 'it'\\''s' --resume k3x9-1"
        );
        assert_eq!(
            resume_hint("k3x9-1", &[]),
            "sayso: this chat is saved as k3x9-1; continue it with: sayso --resume k3x9-1"
        );
    }
}
