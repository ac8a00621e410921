//! `/rewind`'s conversation half, pure: where a session's records are cut so that the chat goes
//! on from just before one of its user messages. The cut keeps every record before that
//! message (and before the tools its `@{…}` mentions added just ahead of it), so the history
//! rebuilt from what is kept (`session::resume`, the one reading of a session) is the history
//! the model had seen when the message was sent.
//!
//! No IO here: the session file is read, and the fork written, by `session::fork` through
//! `agent::saving`. A message is named by its place among the chat's user messages *and* its
//! text: a cut refuses when the two disagree (the chat changed since the front-end listed
//! them), rather than rewinding to another message.

use crate::events::Event;
use crate::session::record::Record;

pub use crate::events::answer::Restore;

/// Why a rewind could not be cut.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CutError {
    #[error("the chat has {count} user message(s); there is no message {} to rewind to", .index + 1)]
    NoSuchMessage { index: usize, count: usize },
    #[error("user message {} is not the one listed (the chat changed); run /rewind again", .index + 1)]
    Changed { index: usize },
}

/// The user messages of a session, in order, as typed (what the `/rewind` picker lists and
/// what a rewind puts back into the input).
pub fn user_messages(records: &[Record]) -> Vec<&str> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Event(Event::UserMessage { text, .. }) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// How many records are kept to rewind to before the `index`-th user message (from 0), which
/// must read `text`: every record before it, less the tools its mentions added right before it.
pub fn cut(records: &[Record], index: usize, text: &str) -> Result<usize, CutError> {
    let users: Vec<usize> = records
        .iter()
        .enumerate()
        .filter(|(_, r)| matches!(r, Record::Event(Event::UserMessage { .. })))
        .map(|(i, _)| i)
        .collect();
    let Some(&at) = users.get(index) else {
        return Err(CutError::NoSuchMessage {
            index,
            count: users.len(),
        });
    };
    match &records[at] {
        Record::Event(Event::UserMessage { text: t, .. }) if t == text => {}
        _ => return Err(CutError::Changed { index }),
    }
    let mut keep = at;
    while keep > 0 && matches!(records[keep - 1], Record::Event(Event::ToolsAdded { .. })) {
        keep -= 1;
    }
    Ok(keep)
}

#[cfg(test)]
mod tests;
