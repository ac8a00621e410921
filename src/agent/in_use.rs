//! How much of the context window is in use: the one number the gauge (`Event::Context`),
//! `/context` and the "nearly full" warning all read ([`InUse`], kept in the window state).
//!
//! After a reply it is the server's count (`usage`: the prompt plus the reply) when that count
//! can be true of what was sent ([`plausible_prompt`]), and only then is the
//! characters-per-token ratio calibrated on it. A count that cannot be true (a scripted server
//! answering 42 to any request, a count stuck while the chat grows) is ignored: the number is
//! then the estimate, from the characters sent and received, as before the first request.
//!
//! A count that looked true once and then stays stuck while the chat grows was never a count:
//! the ratio goes back to what it was before it, and the server's usage calibrates nothing
//! more (`usage_distrusted`). The count in a server's overflow error always does
//! ([`WindowState::calibrate_on_count`]): it is the server's own count of what was sent.
//!
//! Not here: what a request sends (pruning, compaction: `fit.rs`), the window's size (`window.rs`).

use super::context::{MAX_CHARS_PER_TOKEN, MIN_CHARS_PER_TOKEN, plausible_prompt, tokens};
use super::window::{WARN_AT, WindowState};
use crate::events::{Event, Notice};
use crate::provider::AssistantMessage;

/// Tokens in use, and how they were counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InUse {
    pub tokens: u64,
    pub counted: Counted,
}

/// Who counted the tokens in use (`/context` reports it too).
pub use crate::events::Counted;

impl InUse {
    pub fn estimated(&self) -> bool {
        !matches!(self.counted, Counted::Server { .. })
    }

    /// The share of a window of `window` tokens, in percent (rounded down, as the gauge shows).
    pub fn percent(&self, window: u64) -> u64 {
        self.tokens * 100 / window.max(1)
    }
}

impl WindowState {
    /// Sets the tokens in use and reports them on the gauge (into `out`); the first time they
    /// reach [`WARN_AT`] % of the window (since the chat began or was compacted), says so —
    /// with the estimate before a request too, so a system prompt and tools that fill most of
    /// a small window are told at once.
    pub fn report_in_use(&mut self, in_use: InUse, out: &mut Vec<Event>) {
        let percent = in_use.percent(self.tokens);
        if percent >= WARN_AT && !self.warned {
            self.warned = true;
            let b = self.budget();
            let share = |t: u64| t * 100 / b.window.max(1);
            out.push(Event::Notice(Notice::WindowFull {
                percent,
                used: in_use.tokens,
                window: b.window,
                prune_at: share(b.prune_at()),
                compact_at: share(b.compact_at()),
            }));
        }
        self.in_use = Some(in_use);
        out.push(Event::Context {
            used: in_use.tokens,
            window: self.tokens,
            source: self.source.clone(),
            estimated: in_use.estimated(),
            ratio: self.ratio,
        });
    }

    /// Whether a plausible usage of `prompt` tokens for `sent` characters calibrates the ratio:
    /// its ratio is one a tokenizer gives (between [`MIN_CHARS_PER_TOKEN`] and [`MAX_CHARS_PER_TOKEN`]). A ratio outside is not
    /// clamped into the range: it is not taken at all.
    fn calibrates(&self, prompt: u64, sent: usize) -> bool {
        let ratio = sent as f64 / prompt.max(1) as f64;
        (MIN_CHARS_PER_TOKEN..=MAX_CHARS_PER_TOKEN).contains(&ratio)
    }

    /// The server counted `prompt` tokens in a request of `sent` characters (its overflow
    /// error said so): the truest count there is, so the ratio is that one from now on (even
    /// after usage was distrusted). `false` when there is nothing to calibrate on.
    pub fn calibrate_on_count(&mut self, prompt: u64, sent: usize) -> bool {
        if prompt == 0 || sent == 0 {
            return false;
        }
        self.ratio = (sent as f64 / prompt as f64).max(MIN_CHARS_PER_TOKEN);
        self.ratio_before = self.ratio;
        self.calibrated_on = Some((prompt, sent));
        true
    }

    /// After a reply: the server's usage when it is plausible (calibrating the estimate on
    /// it), else the estimate; reports it (and warns once when the window is nearly full).
    pub fn usage(&mut self, reply: &AssistantMessage, out: &mut Vec<Event>) {
        let u = reply.usage.unwrap_or_default();
        let (prompt, completion) = (u.prompt_tokens, u.completion_tokens.unwrap_or(0));
        let sent = self.last_sent_chars;
        let estimate = tokens(sent + reply.content.len(), self.ratio);
        let in_use = match prompt {
            Some(p) if sent == 0 && p > 0 => InUse {
                tokens: p + completion,
                counted: Counted::Server {
                    prompt: p,
                    completion,
                },
            },
            Some(p) if !self.usage_distrusted && plausible_prompt(p, sent, self.calibrated_on) => {
                if self.calibrates(p, sent) {
                    self.ratio_before = self.ratio;
                    self.ratio = sent as f64 / p as f64;
                    self.calibrated_on = Some((p, sent));
                }
                InUse {
                    tokens: p + completion,
                    counted: Counted::Server {
                        prompt: p,
                        completion,
                    },
                }
            }
            Some(p) => {
                // A count stuck while the chat grew: the calibration it gave before was no
                // count either. Back to the ratio before it, and no usage calibrates again.
                if !self.usage_distrusted
                    && self.calibrated_on.is_some()
                    && !plausible_prompt(p, sent, self.calibrated_on)
                {
                    self.usage_distrusted = true;
                    self.ratio = self.ratio_before;
                    self.calibrated_on = None;
                }
                tracing::info!(
                    prompt = p,
                    chars = sent,
                    "the server's usage cannot be true of the request: estimating instead"
                );
                InUse {
                    tokens: estimate,
                    counted: Counted::Ignored {
                        prompt: p,
                        chars: sent,
                    },
                }
            }
            None => InUse {
                tokens: estimate,
                counted: Counted::Estimated,
            },
        };
        self.report_in_use(in_use, out);
    }
}
