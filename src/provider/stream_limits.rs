//! The clocks of a streamed reply, fitted to local hardware: how long the server may be silent
//! before the reply's first token (its prompt processing, which on a CPU can take many
//! minutes) and between chunks after it. No clock bounds a whole reply that keeps streaming.
//!
//! Pure: the client (`client.rs`) asks it how long the next chunk may take and which error a
//! silence that long is. It does not decide about retries (`retry.rs`).

use std::time::Duration;

use super::assembly::StreamDelta;
use super::client::ProviderSettings;
use super::error::ProviderError;

/// The default of `first_token_timeout_s`: half an hour. A CPU's prompt processing runs at
/// tens of tokens a second (a Raspberry Pi 5 took 2 minutes for 20–25k tokens:
/// magnusoverli/opencode#77; llama.cpp at 130 tokens/s needed over 20 minutes for a
/// 150k-token prompt, which Unsloth Studio's 20-minute first-token limit cancelled at 93 %:
/// unslothai/unsloth#9037), and llama-server sends nothing between its headers and the first
/// token. A server that is really stuck is rare, and the user sees the wait and can stop it.
pub const DEFAULT_FIRST_TOKEN_TIMEOUT_S: u64 = 1800;

/// The clocks of one streamed attempt: before the reply's first token, the server may be
/// silent for `first_token` (its prompt processing); after it, for `idle` between chunks. No
/// clock bounds the whole reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamLimits {
    pub first_token: Duration,
    pub idle: Duration,
}

impl StreamLimits {
    pub fn of(settings: &ProviderSettings) -> Self {
        Self {
            first_token: settings.first_token_timeout,
            idle: settings.idle_timeout,
        }
    }

    /// How long the next chunk may take.
    pub fn gap(&self, token_seen: bool) -> Duration {
        if token_seen {
            self.idle
        } else {
            self.first_token
        }
    }

    /// The error when it took longer.
    pub fn timed_out(&self, token_seen: bool) -> ProviderError {
        if token_seen {
            ProviderError::IdleTimeout(self.idle)
        } else {
            ProviderError::FirstTokenTimeout(self.first_token)
        }
    }
}

/// Whether a delta is a token of the reply (usage is not: it comes with the last chunk).
pub fn is_token(d: &StreamDelta) -> bool {
    !matches!(d, StreamDelta::Usage(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_token_may_take_long_then_chunks_may_not() {
        let l = StreamLimits {
            first_token: Duration::from_secs(1800),
            idle: Duration::from_secs(120),
        };
        assert_eq!(l.gap(false), Duration::from_secs(1800));
        assert_eq!(l.gap(true), Duration::from_secs(120));
        assert_eq!(
            l.timed_out(false),
            ProviderError::FirstTokenTimeout(Duration::from_secs(1800))
        );
        assert_eq!(
            l.timed_out(true),
            ProviderError::IdleTimeout(Duration::from_secs(120))
        );
    }

    #[test]
    fn usage_is_not_a_token() {
        assert!(is_token(&StreamDelta::Text("a".into())));
        assert!(is_token(&StreamDelta::Reasoning("r".into())));
        assert!(is_token(&StreamDelta::ToolCallStarted {
            index: 0,
            id: "c".into(),
            name: "n".into(),
        }));
        assert!(!is_token(&StreamDelta::Usage(Default::default())));
    }
}
