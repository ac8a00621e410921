//! A context window for the fixture server, as real servers enforce it.
//!
//! The fixture's "tokenizer" counts 4 characters of a chat request's `messages` and `tools` JSON
//! a token ([`prompt_tokens`]). With a limit set ([`super::fixture::Fixture::context_limit`]),
//! a chat request at or over the window is answered 400 with the exact error body llama.cpp
//! or OpenAI sends (no scripted reply is taken), and every streamed reply reports the prompt
//! tokens it was given in `usage`, as llama.cpp does. llama.cpp-style limits also answer
//! `GET /props` with the window (`default_generation_settings.n_ctx`).

use serde_json::{Value, json};

use super::fixture::{Reply, Step, sse};
use super::fixture_overflow::Quirks;

/// Which server's overflow error to answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overflow {
    /// `exceed_context_size_error` with `n_prompt_tokens` and `n_ctx`; `/props` tells the window.
    LlamaCpp,
    /// `context_length_exceeded`, the window only in the message; no `/props`.
    OpenAi,
}

#[derive(Debug, Clone, Copy)]
pub struct ContextLimit {
    pub n_ctx: u64,
    pub style: Overflow,
    /// How it counts and reports (`fixture_overflow`).
    pub quirks: Quirks,
}

/// The fixture's count of a chat request's prompt tokens: 4 characters of its `messages` and
/// `tools` JSON a token, rounded up.
pub fn prompt_tokens(body: &Value) -> u64 {
    let chars =
        body["messages"].to_string().len() + body.get("tools").map_or(0, |t| t.to_string().len());
    chars.div_ceil(4) as u64
}

/// Whether `body` is a streamed chat request (compaction and judge requests are not).
pub fn is_streamed(body: &Value) -> bool {
    body["stream"] == json!(true)
}

impl ContextLimit {
    /// The 400 a request of `tokens` prompt tokens gets, when it is over the window.
    pub fn check(&self, tokens: u64) -> Option<Reply> {
        if tokens < self.n_ctx {
            return None;
        }
        let body = match self.style {
            Overflow::LlamaCpp => json!({"error": {
                "code": 400,
                "message": format!("request ({tokens} tokens) exceeds the available context size ({} tokens), try increasing it", self.n_ctx),
                "type": "exceed_context_size_error",
                "n_prompt_tokens": tokens,
                "n_ctx": self.n_ctx,
            }}),
            Overflow::OpenAi => json!({"error": {
                "message": format!("This model's maximum context length is {} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages.", self.n_ctx),
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }}),
        };
        Some(Reply::Status {
            status: 400,
            headers: vec![],
            body: body.to_string(),
        })
    }

    /// `reply` reporting `tokens` prompt tokens (a streamed reply's `usage` chunk replaced or
    /// added before `[DONE]`; a JSON reply's `usage` field set).
    pub fn with_usage(&self, reply: Reply, tokens: u64) -> Reply {
        let reported = self.quirks.reported(tokens);
        match reply {
            Reply::Stream(steps) => {
                let mut out: Vec<Step> = steps
                    .into_iter()
                    .filter(|s| !matches!(s, Step::Bytes(b) if String::from_utf8_lossy(b).contains("\"usage\"")))
                    .collect();
                let at = out
                    .iter()
                    .position(|s| matches!(s, Step::Bytes(b) if *b == sse::done()))
                    .unwrap_or(out.len());
                if let Some(tokens) = reported {
                    out.insert(at, Step::Bytes(sse::usage(tokens, 10)));
                }
                Reply::Stream(out)
            }
            Reply::Json(mut v) => {
                let Some(tokens) = reported else {
                    return Reply::Json(v);
                };
                v["usage"] = json!({"prompt_tokens": tokens, "completion_tokens": 10, "total_tokens": tokens + 10});
                Reply::Json(v)
            }
            other => other,
        }
    }

    /// llama.cpp's `/props` for this window (one slot).
    pub fn props(&self) -> Reply {
        Reply::Json(json!({
            "default_generation_settings": {"n_ctx": self.n_ctx, "params": {}},
            "total_slots": 1,
            "model_path": "tiny.gguf",
        }))
    }
}
