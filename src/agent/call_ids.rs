//! Call ids unique for the whole chat. A reply's calls keep the server's ids when they are new;
//! a call without one (the assembler names it `call_<n>` within its reply) or with an id an
//! earlier call of the chat — or of the same reply — already had (some servers reuse ids
//! across replies) gets the next free `call_<n>`. The ids are set before the reply is
//! reported, so the assistant message sent back, its tool messages, the session file, the
//! approval requests and the control protocol's request ids (`apr-` + the call id) all use the
//! same unique id, and an answer meant for one call can never reach another.
//!
//! A resumed chat first learns every id its session used ([`CallIds::seen`]), also those a
//! compaction took out of the history. Pure: no IO.

use std::collections::HashSet;

use crate::provider::ToolCall;

#[derive(Debug, Default, Clone)]
pub struct CallIds {
    used: HashSet<String>,
    /// The next `n` to try for `call_<n>`.
    next: u64,
}

impl CallIds {
    /// `id` belongs to the chat already: it is never given out again.
    pub fn seen(&mut self, id: &str) {
        self.used.insert(id.to_owned());
    }

    /// Gives every call an id no other call of the chat has (see the module doc).
    pub fn assign(&mut self, calls: &mut [ToolCall]) {
        for call in calls {
            if call.id.is_empty() || self.used.contains(&call.id) {
                call.id = self.fresh();
            }
            self.used.insert(call.id.clone());
        }
    }

    fn fresh(&mut self) -> String {
        loop {
            let id = format!("call_{}", self.next);
            self.next += 1;
            if !self.used.contains(&id) {
                return id;
            }
        }
    }

    /// A new chat: every id is free again.
    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(ids: &[&str]) -> Vec<ToolCall> {
        ids.iter()
            .map(|id| ToolCall {
                id: (*id).into(),
                name: "run_command".into(),
                arguments: "{}".into(),
            })
            .collect()
    }

    fn ids(calls: &[ToolCall]) -> Vec<&str> {
        calls.iter().map(|c| c.id.as_str()).collect()
    }

    #[test]
    fn new_server_ids_are_kept_and_repeats_are_renamed() {
        let mut c = CallIds::default();
        let mut first = calls(&["abc", "def"]);
        c.assign(&mut first);
        assert_eq!(ids(&first), ["abc", "def"]);
        // The next reply reuses `abc`, and repeats an id within itself.
        let mut second = calls(&["abc", "xyz", "xyz"]);
        c.assign(&mut second);
        assert_eq!(ids(&second), ["call_0", "xyz", "call_1"]);
    }

    #[test]
    fn id_less_calls_of_every_reply_get_ids_never_used_in_the_chat() {
        let mut c = CallIds::default();
        // The assembler names id-less calls call_0, call_1… in each reply.
        let mut first = calls(&["call_0", "call_1"]);
        c.assign(&mut first);
        let mut second = calls(&["call_0", ""]);
        c.assign(&mut second);
        let mut third = calls(&["call_0"]);
        c.assign(&mut third);
        let all: Vec<&str> = [ids(&first), ids(&second), ids(&third)].concat();
        let unique: HashSet<&str> = all.iter().copied().collect();
        assert_eq!(unique.len(), all.len(), "{all:?}");
        assert_eq!(ids(&first), ["call_0", "call_1"]);
    }

    #[test]
    fn a_resumed_chat_never_reuses_a_saved_id() {
        let mut c = CallIds::default();
        for id in ["call_0", "call_1", "call_3"] {
            c.seen(id);
        }
        let mut reply = calls(&["call_0", "call_0", "call_3"]);
        c.assign(&mut reply);
        assert_eq!(ids(&reply), ["call_2", "call_4", "call_5"]);
        c.clear();
        let mut fresh = calls(&["call_0"]);
        c.assign(&mut fresh);
        assert_eq!(ids(&fresh), ["call_0"], "a new chat starts over");
    }
}
