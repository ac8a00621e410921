//! Reading a child's stdout and stderr together (no deadlock on large outputs), capped, with
//! lossy UTF-8 decoding and ANSI stripping.

use super::*;

/// Bytes kept past the cap: longer than any secret value, so a secret the cap cuts is whole
/// when the text is scrubbed.
const SCRUB_SLACK: usize = 16 * 1024;

/// The head of one output stream, and how much there was in all.
pub(super) struct Captured {
    buf: Vec<u8>,
    total: u64,
    max: usize,
}

impl Captured {
    pub(super) fn new(max: usize) -> Self {
        Captured {
            buf: Vec::new(),
            total: 0,
            max,
        }
    }

    /// Keeps [`SCRUB_SLACK`] bytes past the cap, so that a secret the cap cuts through is
    /// still whole when [`Self::into_text`] scrubs it.
    pub(super) fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = (self.max + SCRUB_SLACK).saturating_sub(self.buf.len());
        self.buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
    }

    /// Lossy UTF-8, ANSI stripped, with a note when cut; and whether it was cut. A cut output
    /// is scrubbed of secret values (`crate::secrets`) before it is cut, so the cut cannot
    /// leave part of one (the head kept plus a tail the model chooses with padding would
    /// otherwise show any piece of a secret).
    pub(super) fn into_text(mut self) -> (String, bool) {
        let truncated = self.total > self.max as u64;
        let text = if truncated {
            trim_partial_utf8_tail(&mut self.buf);
            let text = String::from_utf8_lossy(&self.buf).into_owned();
            let mut text = crate::secrets::scrub_owned(strip_ansi_owned(text));
            let end = crate::text_cut::head(&text, self.max).len();
            text.truncate(end);
            text
        } else {
            let text = match String::from_utf8(self.buf) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            };
            strip_ansi_owned(text)
        };
        let omitted = self.total.saturating_sub(text.len() as u64);
        let mut text = text;
        if truncated {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "[output truncated: {omitted} more bytes not shown]"
            ));
        }
        (text, truncated)
    }
}

/// Drops an incomplete UTF-8 sequence that the byte cap cut at the end of `buf`.
pub(super) fn trim_partial_utf8_tail(buf: &mut Vec<u8>) {
    let len = buf.len();
    for back in 1..=len.min(4) {
        let b = buf[len - back];
        if b & 0xc0 == 0x80 {
            continue; // a continuation byte: look further back for the lead byte
        }
        let need = match b {
            0xf0.. => 4,
            0xe0.. => 3,
            0xc0.. => 2,
            _ => 1,
        };
        if need > back {
            buf.truncate(len - back);
        }
        return;
    }
}

/// Reads a pipe to its end into `cap`.
pub(super) async fn read_into<R: AsyncRead + Unpin>(pipe: Option<R>, cap: &mut Captured) {
    let Some(mut pipe) = pipe else { return };
    let mut chunk = vec![0u8; CHUNK];
    loop {
        match pipe.read(&mut chunk).await {
            Ok(0) => return,
            Ok(n) => cap.push(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

type PipeFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The two pipe readers, polled alongside whatever else we wait for.
pub(super) struct Pipes<'a> {
    pub(super) out: Option<PipeFuture<'a>>,
    pub(super) err: Option<PipeFuture<'a>>,
}

impl Pipes<'_> {
    pub(super) fn done(&self) -> bool {
        self.out.is_none() && self.err.is_none()
    }

    /// Drives both readers; resolves when one of them finishes (never, once both have).
    /// Cancel-safe: the readers live in `self`.
    pub(super) async fn progress(&mut self) {
        std::future::poll_fn(|cx| {
            let mut finished = false;
            for slot in [&mut self.out, &mut self.err] {
                if let Some(fut) = slot
                    && fut.as_mut().poll(cx).is_ready()
                {
                    *slot = None;
                    finished = true;
                }
            }
            if finished {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await
    }
}
