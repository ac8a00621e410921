//! The pure decoding pipeline of one streamed reply: bytes → SSE events → chunks → assembly.
//!
//! It owns the end-of-stream rules of SPEC §8.2: `[DONE]` ends the reply; a stream that ends
//! after a `finish_reason` without `[DONE]` is complete; a stream that ends with neither was cut
//! off. An in-stream `{"error": …}` (or an `event: error`) fails the reply. A payload that starts
//! or ends like a JSON object or array but does not parse was corrupted in transit: it lost its
//! tail (LLMock's "malformed chunk") or its head. Its text is lost, so the reply is treated as
//! dropped and retried rather than shown with a hole in it, wherever the chunk was (also right
//! before or instead of the finish chunk, or as a cut `[DONE]`). Only a payload that is not
//! JSON at all (a stray status line such as `PROCESSING`) is skipped, with a warning. Splitting
//! the same bytes at any points gives the same result.

use super::assembly::{Assembler, AssistantMessage, StreamDelta};
use super::chunk::Chunk;
use super::error::{ProviderError, error_value_message};
use super::sse::{SseDecoder, SseEvent};

#[derive(Debug, Default)]
pub struct ReplyDecoder {
    sse: SseDecoder,
    assembler: Assembler,
    events: Vec<SseEvent>,
    done: bool,
    /// Number of `data:` payloads that were not JSON and were skipped.
    pub skipped: usize,
}

impl ReplyDecoder {
    pub fn new() -> Self {
        Self {
            sse: SseDecoder::new(),
            ..Self::default()
        }
    }

    /// `[DONE]` has arrived: nothing after it matters.
    pub fn is_done(&self) -> bool {
        self.done
    }

    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<StreamDelta>) -> Result<(), ProviderError> {
        if self.done {
            return Ok(());
        }
        self.sse.feed(bytes, &mut self.events);
        self.process(out)
    }

    /// End of the byte stream.
    pub fn finish(mut self, out: &mut Vec<StreamDelta>) -> Result<AssistantMessage, ProviderError> {
        if !self.done {
            self.sse.finish(&mut self.events);
            self.process(out)?;
        }
        if !self.done && !self.assembler.has_finished() {
            return Err(ProviderError::Dropped(
                "it ended without a finish_reason or [DONE]".to_owned(),
            ));
        }
        Ok(self.assembler.finish(out))
    }

    fn process(&mut self, out: &mut Vec<StreamDelta>) -> Result<(), ProviderError> {
        let mut events = std::mem::take(&mut self.events);
        let result = self.process_events(&mut events, out);
        events.clear();
        self.events = events;
        result
    }

    fn process_events(
        &mut self,
        events: &mut Vec<SseEvent>,
        out: &mut Vec<StreamDelta>,
    ) -> Result<(), ProviderError> {
        for ev in events.drain(..) {
            if self.done {
                break;
            }
            let data = ev.data.trim();
            if data == "[DONE]" || data == "DONE" {
                self.done = true;
                break;
            }
            if ev.event == "error" {
                return Err(in_stream_error(data));
            }
            match serde_json::from_str::<Chunk>(data) {
                Ok(chunk) => {
                    if let Some(err) = &chunk.error {
                        return Err(in_stream_error_value(err));
                    }
                    self.assembler.push(chunk, out);
                }
                Err(e) if is_cut_json(data) => {
                    return Err(ProviderError::Dropped(format!(
                        "a chunk arrived corrupted: {e}"
                    )));
                }
                Err(e) => {
                    self.skipped += 1;
                    tracing::warn!(error = %e, data = %crate::text_cut::head(data, 200), "skipping a stream event that is not JSON");
                }
            }
        }
        Ok(())
    }
}

/// Whether a payload that did not parse is a piece of a JSON object or array (its head or
/// its tail), rather than text that was never JSON.
fn is_cut_json(data: &str) -> bool {
    data.starts_with(['{', '[']) || data.ends_with(['}', ']'])
}

fn in_stream_error(data: &str) -> ProviderError {
    match serde_json::from_str::<serde_json::Value>(data) {
        Ok(v) => in_stream_error_value(&v),
        Err(_) => ProviderError::InStream {
            message: crate::text_cut::head(data, 500).to_owned(),
            retryable: true,
        },
    }
}

/// An error object inside the stream. A 4xx code (other than 408/429) is the request's fault and
/// will not get better by retrying; anything else (overload, 5xx, no code) may.
fn in_stream_error_value(v: &serde_json::Value) -> ProviderError {
    if let Some(o) = super::overflow::classify(None, &v.to_string()) {
        return ProviderError::ContextOverflow {
            message: error_value_message(v).unwrap_or_default(),
            window: o.window,
            prompt: o.prompt,
        };
    }
    let inner = v.get("error").unwrap_or(v);
    let code = inner
        .get("code")
        .or_else(|| inner.get("status"))
        .and_then(|c| c.as_u64().or_else(|| c.as_str()?.parse().ok()));
    let retryable = !matches!(code, Some(c) if (400..500).contains(&c) && c != 408 && c != 429);
    ProviderError::InStream {
        message: error_value_message(v).unwrap_or_else(|| "(no details)".to_owned()),
        retryable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(body: &str) -> Result<AssistantMessage, ProviderError> {
        let mut d = ReplyDecoder::new();
        let mut out = Vec::new();
        d.feed(body.as_bytes(), &mut out)?;
        d.finish(&mut out)
    }

    #[test]
    fn done_ends_the_reply_and_later_bytes_are_ignored() {
        let m = decode("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: [DONE]\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n").unwrap();
        assert_eq!(m.content, "a");
    }

    #[test]
    fn finish_reason_without_done_is_complete() {
        let m = decode(
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\n\n",
        )
        .unwrap();
        assert_eq!(m.content, "a");
    }

    #[test]
    fn neither_finish_reason_nor_done_is_a_dropped_stream() {
        let e = decode("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n").unwrap_err();
        assert!(matches!(e, ProviderError::Dropped(_)));
        assert!(e.is_retryable());
    }

    #[test]
    fn in_stream_error_fails_with_its_message() {
        let e = decode("data: {\"error\":{\"message\":\"context too long\",\"code\":400}}\n\n")
            .unwrap_err();
        assert_eq!(
            e,
            ProviderError::InStream {
                message: "context too long".into(),
                retryable: false
            }
        );
        let e =
            decode("event: error\ndata: {\"error\":{\"message\":\"overloaded\"}}\n\n").unwrap_err();
        assert!(e.is_retryable());
    }

    #[test]
    fn corrupted_chunk_fails_the_attempt_so_no_text_goes_missing() {
        let e = decode("data: {\"choices\":[{\"delta\":{\"content\":\"a\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n").unwrap_err();
        assert!(
            matches!(e, ProviderError::Dropped(_)) && e.is_retryable(),
            "{e:?}"
        );
    }

    #[test]
    fn chunk_that_lost_its_head_fails_the_attempt() {
        let e = decode("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: ntent\":\"b\"}}]}\n\ndata: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n").unwrap_err();
        assert!(
            matches!(e, ProviderError::Dropped(_)) && e.is_retryable(),
            "{e:?}"
        );
    }

    #[test]
    fn non_json_status_line_is_skipped() {
        let m = decode("data: PROCESSING\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\n").unwrap();
        assert_eq!(m.content, "b");
    }
}
