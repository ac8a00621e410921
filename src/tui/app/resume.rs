//! `/resume [ID]`: with an id (or its first characters), continue that saved session; without
//! one, open the picker of saved sessions (newest first) rather than reloading the chat that
//! is already on screen. What a resumed chat shows first — its banner, and a warning when it
//! was started in another directory — comes from the agent with the replayed transcript.

use super::commands::between_turns;
use super::{App, Effect};
use crate::agent::task::Command;

pub(super) fn run(app: &mut App, arg: &str) -> Vec<Effect> {
    let command = match arg {
        "" => Command::ListSessions,
        id => Command::Resume(Some(id.to_owned())),
    };
    between_turns(app, command)
}
