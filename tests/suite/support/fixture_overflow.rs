//! Fixture modes for overflow recovery: servers whose tokenizer packs fewer characters a token
//! than sayso estimates, whose `usage` is no count (a constant `prompt_tokens`, as a server
//! reporting only the uncached part or a fixed number does), or that report no usage at all,
//! and whose window `/props` does not tell (LiteLLM in front of llama.cpp).
//!
//! A [`Quirks`] value rides on the fixture's [`super::context_limit::ContextLimit`]: the limit
//! counts with it, answers overflows in the chosen server's exact words, and reports usage as
//! it says.

use serde_json::Value;

/// What the server's `usage` says of each streamed reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Usage {
    /// The prompt tokens the fixture counted (a real count).
    Counted,
    /// The same `prompt_tokens` whatever was sent.
    Constant(u64),
    /// No usage at all (the scripted reply's own usage chunk removed).
    Missing,
}

/// How the fixture's server counts and reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quirks {
    /// Characters of the request's `messages` and `tools` JSON a token (4 by default; 2 is a
    /// tokenizer denser than sayso's first estimate of 3).
    pub chars_per_token: usize,
    pub usage: Usage,
    /// Whether `GET /props` tells the window (llama.cpp does; LiteLLM in front of it not).
    pub props: bool,
}

impl Default for Quirks {
    fn default() -> Self {
        Self {
            chars_per_token: 4,
            usage: Usage::Counted,
            props: true,
        }
    }
}

impl Quirks {
    /// The server's count of a chat request's prompt tokens: `chars_per_token` characters of
    /// its `messages` and `tools` JSON a token, rounded up.
    pub fn tokens(&self, body: &Value) -> u64 {
        let chars = body["messages"].to_string().len()
            + body.get("tools").map_or(0, |t| t.to_string().len());
        chars.div_ceil(self.chars_per_token.max(1)) as u64
    }

    /// The `prompt_tokens` a reply reports for a request the server counted at `tokens`.
    pub fn reported(&self, tokens: u64) -> Option<u64> {
        match self.usage {
            Usage::Counted => Some(tokens),
            Usage::Constant(n) => Some(n),
            Usage::Missing => None,
        }
    }
}
