//! Server-sent-event framing for chat-completion streams.
//!
//! Owns: turning arbitrary byte chunks (as they come off the socket) into SSE events, exactly as
//! the EventSource spec frames them — lines end in LF, CRLF or CR (a CR at the end of one chunk
//! and an LF at the start of the next are one line end), `:` lines are comments (keep-alives),
//! `data:` lines accumulate, a blank line dispatches. Invalid UTF-8 is decoded lossily, per line,
//! so a bad byte never stalls the stream.
//!
//! Not: JSON. The decoder hands each event's `data` to the caller untouched.
//!
//! Why not the `eventsource-stream` crate: it re-copies its whole buffer for every line it
//! consumes (quadratic in the chunk size) and keeps invalid UTF-8 bytes buffered forever; this
//! decoder is linear, lossy and the hot path of every reply.

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field; empty when the server sent none (the spec's "message").
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental SSE decoder. Feed it chunks with [`SseDecoder::feed`], call
/// [`SseDecoder::finish`] at end of stream.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of the current, unfinished line.
    line: Vec<u8>,
    /// The previous chunk ended in CR: an LF at the start of the next chunk belongs to it.
    after_cr: bool,
    /// Nothing decoded yet: a leading byte-order mark is dropped.
    at_start: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseDecoder {
    pub fn new() -> Self {
        Self {
            at_start: true,
            ..Self::default()
        }
    }

    /// Decodes `chunk`, pushing each completed event to `out`.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) {
        if self.at_start && !chunk.is_empty() {
            // The BOM may arrive split across chunks; only strip it when whole and first.
            let bom = b"\xEF\xBB\xBF";
            let have = self.line.len();
            if have + chunk.len() < bom.len() && bom.starts_with(&[&self.line[..], chunk].concat())
            {
                self.line.extend_from_slice(chunk);
                return;
            }
            let mut joined = std::mem::take(&mut self.line);
            joined.extend_from_slice(chunk);
            self.at_start = false;
            let rest = joined.strip_prefix(bom).unwrap_or(&joined).to_vec();
            self.feed(&rest, out);
            return;
        }
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        while let Some(pos) = memchr::memchr2(b'\n', b'\r', chunk) {
            let (head, tail) = chunk.split_at(pos);
            let is_cr = tail[0] == b'\r';
            chunk = &tail[1..];
            if is_cr {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    None => self.after_cr = true,
                    Some(_) => {}
                }
            }
            if self.line.is_empty() {
                self.process_line(head, out);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(head);
                self.process_line(&line, out);
                line.clear();
                self.line = line;
            }
        }
        self.line.extend_from_slice(chunk);
    }

    /// End of stream: a final line without its line end, and an event without its blank line,
    /// are still delivered (servers often end with `data: [DONE]\n`).
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, out);
        }
        self.dispatch(out);
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let (field, value) = match memchr::memchr(b':', line) {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.has_data = true;
                push_lossy(&mut self.data, value);
            }
            b"event" => {
                self.event.clear();
                push_lossy(&mut self.event, value);
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        if self.has_data {
            out.push(SseEvent {
                event: std::mem::take(&mut self.event),
                data: std::mem::take(&mut self.data),
            });
        } else {
            self.event.clear();
        }
        self.has_data = false;
    }
}

fn push_lossy(into: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => into.push_str(s),
        Err(_) => into.push_str(&String::from_utf8_lossy(bytes)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut out = Vec::new();
        for c in chunks {
            d.feed(c, &mut out);
        }
        d.finish(&mut out);
        out
    }

    fn data(events: &[SseEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    #[test]
    fn frames_lf_crlf_and_cr_line_ends() {
        let ev = decode(&[b"data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\n\n"]);
        assert_eq!(data(&ev), ["a", "b", "c", "d"]);
    }

    #[test]
    fn cr_and_lf_split_across_chunks_are_one_line_end() {
        let ev = decode(&[b"data: a\r", b"\n\r", b"\ndata: b\n\n"]);
        assert_eq!(data(&ev), ["a", "b"]);
    }

    #[test]
    fn comments_are_skipped_and_multi_line_data_joined() {
        let ev = decode(&[b": keep-alive\n\ndata: one\ndata:two\n\n"]);
        assert_eq!(data(&ev), ["one\ntwo"]);
    }

    #[test]
    fn event_field_is_kept_and_reset() {
        let ev = decode(&[b"event: error\ndata: x\n\ndata: y\n\n"]);
        assert_eq!(ev[0].event, "error");
        assert_eq!(ev[1].event, "");
    }

    #[test]
    fn final_event_without_blank_line_is_flushed() {
        let ev = decode(&[b"data: a\n\ndata: [DONE]"]);
        assert_eq!(data(&ev), ["a", "[DONE]"]);
    }

    #[test]
    fn bom_is_dropped_even_when_split() {
        let ev = decode(&[b"\xEF", b"\xBB\xBFdata: a\n\n"]);
        assert_eq!(data(&ev), ["a"]);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_stalled() {
        let ev = decode(&[b"data: a\xFFb\n\ndata: c\n\n"]);
        assert_eq!(data(&ev), ["a\u{FFFD}b", "c"]);
    }

    #[test]
    fn multibyte_char_split_across_chunks_survives() {
        let bytes = "data: héllo\n\n".as_bytes();
        let ev = decode(&[&bytes[..8], &bytes[8..]]);
        assert_eq!(data(&ev), ["héllo"]);
    }
}
