//! Writes a session as it happens: every event that matters becomes a [`Record`] line,
//! appended and flushed at once; streamed text and reasoning are coalesced so a record is
//! written at least every [`FLUSH_AFTER`] or [`FLUSH_BYTES`] while a reply streams, not per
//! token. A turn's end is synced to disk. So `kill -9` loses at most the last 100 ms of a reply.
//!
//! The writer runs as its own task on a receiver of the agent's events; it never blocks the
//! agent. A write that fails is reported once (log and the returned summary) and the chat goes
//! on.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::record::{Header, Record};
use super::store::SessionFile;
use crate::events::Event;
use crate::provider::StreamDelta;

/// Longest a streamed piece waits in memory before it is written.
pub const FLUSH_AFTER: Duration = Duration::from_millis(100);
/// Streamed text is written once this much has gathered.
pub const FLUSH_BYTES: usize = 4096;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Reasoning,
}

struct Pending {
    kind: Kind,
    text: String,
    since: Instant,
}

/// What happened to the session file.
#[derive(Debug, Default)]
pub struct Summary {
    pub records: usize,
    /// The first write error, if any.
    pub error: Option<String>,
}

struct Writer {
    file: SessionFile,
    pending: Option<Pending>,
    summary: Summary,
}

impl Writer {
    /// Every string of the record is scrubbed of secret values (`crate::secrets`): a reply or a
    /// call's arguments may hold one the model server sent back, or the model pieced together.
    fn write(&mut self, r: &Record) {
        let value = match serde_json::to_value(r) {
            Ok(v) => crate::secrets::scrub_json(v),
            Err(e) => {
                tracing::warn!(%e, "a session record could not be encoded");
                return;
            }
        };
        let mut line = match serde_json::to_vec(&value) {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(%e, "a session record could not be encoded");
                return;
            }
        };
        line.push(b'\n');
        match self.file.append(&line) {
            Ok(()) => self.summary.records += 1,
            Err(e) => self.failed(e),
        }
    }

    fn failed(&mut self, e: std::io::Error) {
        if self.summary.error.is_none() {
            tracing::warn!(path = %self.file.path().display(), %e, "cannot write the session");
            self.summary.error = Some(format!(
                "cannot write the session file {}: {e}",
                self.file.path().display()
            ));
        }
    }

    fn flush_pending(&mut self) {
        if let Some(p) = self.pending.take() {
            self.write_piece(p.kind, p.text);
        }
    }

    /// Writes what may be written of the pending text while the stream goes on: an ending
    /// that may begin a secret value waits for the next piece, so that no secret is cut in two
    /// records that are each scrubbed whole ([`crate::secrets::safe_cut`]).
    fn flush_streaming(&mut self) {
        let Some(mut p) = self.pending.take() else {
            return;
        };
        let cut = crate::secrets::safe_cut(&p.text);
        let rest = p.text.split_off(cut);
        if !p.text.is_empty() {
            self.write_piece(p.kind, p.text);
        }
        if !rest.is_empty() {
            self.pending = Some(Pending {
                kind: p.kind,
                text: rest,
                since: Instant::now(),
            });
        }
    }

    fn write_piece(&mut self, kind: Kind, text: String) {
        let r = match kind {
            Kind::Text => Record::Text { s: text },
            Kind::Reasoning => Record::Reasoning { s: text },
        };
        self.write(&r);
    }

    fn stream(&mut self, kind: Kind, s: &str) {
        if self.pending.as_ref().is_some_and(|p| p.kind != kind) {
            self.flush_pending();
        }
        let p = self.pending.get_or_insert_with(|| Pending {
            kind,
            text: String::new(),
            since: Instant::now(),
        });
        p.text.push_str(s);
        if p.text.len() >= FLUSH_BYTES {
            self.flush_streaming();
        }
    }

    fn event(&mut self, e: &Event) {
        match e {
            Event::Delta(StreamDelta::Text(s)) => self.stream(Kind::Text, s),
            Event::Delta(StreamDelta::Reasoning(s)) => self.stream(Kind::Reasoning, s),
            Event::Delta(_) => {}
            e => {
                let Some(r) = Record::from_event(e) else {
                    return;
                };
                self.flush_pending();
                self.write(&r);
                if matches!(e, Event::TurnEnded(_))
                    && let Err(err) = self.file.sync()
                {
                    self.failed(err);
                }
            }
        }
    }

    fn deadline(&self) -> Option<Instant> {
        self.pending.as_ref().map(|p| p.since + FLUSH_AFTER)
    }
}

/// Writes `header` (when starting a session) then every event until the sink is dropped.
pub async fn run(
    file: SessionFile,
    header: Option<Header>,
    mut events: mpsc::UnboundedReceiver<Event>,
) -> Summary {
    let mut w = Writer {
        file,
        pending: None,
        summary: Summary::default(),
    };
    if let Some(h) = header {
        w.write(&Record::Session(h));
    }
    loop {
        let deadline = w.deadline();
        tokio::select! {
            e = events.recv() => match e {
                Some(e) => w.event(&e),
                None => break,
            },
            () = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            } => w.flush_streaming(),
        }
        // Everything already queued is taken without waiting again: a fast stream costs one
        // wake-up per burst, not one per token.
        loop {
            match events.try_recv() {
                Ok(e) => w.event(&e),
                Err(mpsc::error::TryRecvError::Empty) => break,
                Err(mpsc::error::TryRecvError::Disconnected) => {
                    w.flush_pending();
                    if let Err(e) = w.file.sync() {
                        w.failed(e);
                    }
                    return w.summary;
                }
            }
        }
    }
    w.flush_pending();
    if let Err(e) = w.file.sync() {
        w.failed(e);
    }
    w.summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{EventSink, TurnEnd};
    use crate::session::store::read_records;

    #[tokio::test(start_paused = true)]
    async fn streamed_text_is_coalesced_and_written_within_100_ms() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let file = SessionFile::create(&path).unwrap();
        let (sink, rx) = EventSink::channel();
        let writer = tokio::spawn(run(file, None, rx));
        for piece in ["Hel", "lo, ", "world"] {
            sink.emit(Event::Delta(StreamDelta::Text(piece.into())));
        }
        // Nothing else arrives: the pending text is written when its 100 ms are up.
        tokio::time::sleep(FLUSH_AFTER + Duration::from_millis(1)).await;
        tokio::task::yield_now().await;
        let (records, _) = read_records::<serde_json::Value>(&path).unwrap();
        assert_eq!(
            records,
            [serde_json::json!({"t": "text", "s": "Hello, world"})]
        );
        sink.emit(Event::Delta(StreamDelta::Text("x".repeat(FLUSH_BYTES))));
        sink.emit(Event::TurnEnded(TurnEnd::Completed));
        drop(sink);
        let summary = writer.await.unwrap();
        assert_eq!(summary.records, 3, "a full chunk is written at once");
        assert!(summary.error.is_none());
    }

    /// A secret value the model sends back (the server has the key; a model may piece one
    /// together) is not written: not whole, and not in two pieces a 100 ms flush or the
    /// 4 KiB one cut it into.
    #[tokio::test(start_paused = true)]
    async fn a_secret_in_a_reply_is_scrubbed_even_when_a_flush_cuts_it() {
        let secret = "sk-writer-secret-0123456789";
        crate::secrets::register(&[crate::secrets::Secret::new("$WRITER_KEY", secret)], &[]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let file = SessionFile::create(&path).unwrap();
        let (sink, rx) = EventSink::channel();
        let writer = tokio::spawn(run(file, None, rx));
        let pad = "p".repeat(FLUSH_BYTES - 8);
        sink.emit(Event::Delta(StreamDelta::Text(format!(
            "your key is {}",
            &secret[..10]
        ))));
        tokio::time::sleep(FLUSH_AFTER + Duration::from_millis(1)).await;
        tokio::task::yield_now().await;
        sink.emit(Event::Delta(StreamDelta::Text(format!(
            "{} and {pad}{}",
            &secret[10..],
            &secret[..9]
        ))));
        sink.emit(Event::Delta(StreamDelta::Text(secret[9..].to_owned())));
        sink.emit(Event::TurnEnded(TurnEnd::Completed));
        drop(sink);
        writer.await.unwrap();
        let saved = std::fs::read_to_string(&path).unwrap();
        for piece in [&secret[..9], &secret[10..], secret] {
            assert!(!saved.contains(piece), "{piece} in {saved}");
        }
        assert_eq!(
            saved.matches("[secret $WRITER_KEY removed]").count(),
            2,
            "{saved}"
        );
    }
}
