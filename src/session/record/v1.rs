//! The two records format 1 spelled differently (sessions written before the turn's end and a
//! retry's error were typed): read so that a user upgrading keeps their sessions, never
//! written.
//!
//! Format 1 saved a turn's end as `completed`, `interrupted` or `failed` with the message the
//! user read; how a failed turn really ended is told again from that message (the messages
//! [`TurnEnd::message`] wrote), and an endpoint's error is kept as its text.

use serde::Deserialize;

use crate::events::{Event, TurnEnd};
use crate::provider::{ProviderError, Retry};

/// A format 1 record that the current format reads otherwise (the others read as they are).
#[derive(Debug, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Record {
    Retry { error: String },
    TurnEnd { end: End, message: Option<String> },
}

/// The three endings format 1 told apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    Completed,
    Interrupted,
    Failed,
}

impl Record {
    pub fn into_event(self) -> Event {
        match self {
            // Format 1 kept neither the attempt nor the delay.
            Record::Retry { error } => Event::Retrying(Retry {
                retry: 0,
                max_retries: 0,
                delay: std::time::Duration::ZERO,
                error: ProviderError::Recorded(error),
            }),
            Record::TurnEnd { end, message } => Event::TurnEnded(turn_end(end, message)),
        }
    }
}

/// How a format 1 turn ended, from its status and message.
pub fn turn_end(end: End, message: Option<String>) -> TurnEnd {
    match end {
        End::Completed => return TurnEnd::Completed,
        End::Interrupted => return TurnEnd::Stopped,
        End::Failed => {}
    }
    let message = message.unwrap_or_default();
    if message == "the tool calls were cancelled" {
        return TurnEnd::Cancelled;
    }
    if message.starts_with("the reply was cut off: the model reached its output token limit") {
        return TurnEnd::LengthLimit;
    }
    if let Some(n) = message
        .strip_prefix("stopped after ")
        .and_then(|rest| {
            rest.strip_suffix(" model round-trips (--max-turns) without a final answer")
        })
        .and_then(|n| n.parse().ok())
    {
        return TurnEnd::MaxTurns(n);
    }
    if let Some((tool, times)) = repeated(&message) {
        return TurnEnd::Repeated { tool, times };
    }
    TurnEnd::Failed(ProviderError::Recorded(message))
}

/// "stopped: the model called `TOOL` with the same arguments N times in a row and it failed
/// each time".
fn repeated(message: &str) -> Option<(String, u32)> {
    let rest = message.strip_prefix("stopped: the model called `")?;
    let (tool, rest) = rest.split_once("` with the same arguments ")?;
    let times = rest
        .strip_suffix(" times in a row and it failed each time")?
        .parse()
        .ok()?;
    Some((tool.to_owned(), times))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every ending format 1 wrote reads back as the ending it was: the message it saved is
    /// the one `TurnEnd::message` gives.
    #[test]
    fn every_format_1_ending_reads_as_the_ending_it_was() {
        let failed = TurnEnd::Failed(ProviderError::Status {
            status: 500,
            message: "boom".into(),
            retry_after: None,
        });
        let rows = [
            (TurnEnd::Completed, TurnEnd::Completed),
            (TurnEnd::Stopped, TurnEnd::Stopped),
            (TurnEnd::Cancelled, TurnEnd::Cancelled),
            (TurnEnd::MaxTurns(3), TurnEnd::MaxTurns(3)),
            (TurnEnd::LengthLimit, TurnEnd::LengthLimit),
            (
                TurnEnd::Repeated {
                    tool: "run_command".into(),
                    times: 3,
                },
                TurnEnd::Repeated {
                    tool: "run_command".into(),
                    times: 3,
                },
            ),
            (
                failed,
                TurnEnd::Failed(ProviderError::Recorded(
                    "the server answered 500: boom".into(),
                )),
            ),
        ];
        for (written, read) in rows {
            let end = match written.status() {
                "completed" => End::Completed,
                "interrupted" => End::Interrupted,
                _ => End::Failed,
            };
            assert_eq!(turn_end(end, written.message()), read, "{written:?}");
        }
    }

    #[test]
    fn an_unexpected_message_is_kept_as_the_failure_text() {
        assert_eq!(
            turn_end(
                End::Failed,
                Some("stopped after many model round-trips".into())
            ),
            TurnEnd::Failed(ProviderError::Recorded(
                "stopped after many model round-trips".into()
            ))
        );
        assert_eq!(
            turn_end(End::Failed, None),
            TurnEnd::Failed(ProviderError::Recorded(String::new()))
        );
    }
}
