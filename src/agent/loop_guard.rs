//! The loop guard: a model that makes the same call (same tool, same arguments) and sees it
//! fail or be rejected [`LIMIT`] times in a row is stopped, instead of burning `max_turns`.
//! Arguments are compared as JSON values, so whitespace and key order do not hide a repeat.

use crate::events::{CallEnd, TurnEnd};
use crate::provider::ToolCall;

pub const LIMIT: u32 = 3;

#[derive(Debug, Default)]
pub struct LoopGuard {
    last: Option<(String, serde_json::Value)>,
    count: u32,
}

fn key(call: &ToolCall) -> (String, serde_json::Value) {
    let args = serde_json::from_str(&call.arguments)
        .unwrap_or_else(|_| serde_json::Value::String(call.arguments.clone()));
    (call.name.clone(), args)
}

impl LoopGuard {
    /// Looks at a batch's calls and how each ended, in order; the turn's end when the same
    /// failing call came [`LIMIT`] times in a row.
    pub fn check(&mut self, calls: &[ToolCall], ends: &[CallEnd]) -> Option<TurnEnd> {
        for (call, end) in calls.iter().zip(ends) {
            if matches!(end, CallEnd::Error | CallEnd::Rejected) {
                let k = key(call);
                if self.last.as_ref() == Some(&k) {
                    self.count += 1;
                } else {
                    self.last = Some(k);
                    self.count = 1;
                }
                if self.count >= LIMIT {
                    return Some(TurnEnd::Repeated {
                        tool: call.name.clone(),
                        times: self.count,
                    });
                }
            } else {
                self.last = None;
                self.count = 0;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(args: &str) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: "run_command".into(),
            arguments: args.into(),
        }
    }

    #[test]
    fn the_third_identical_failure_stops_the_turn() {
        let mut g = LoopGuard::default();
        assert_eq!(
            g.check(&[call(r#"{"cmd":"make"}"#)], &[CallEnd::Error]),
            None
        );
        assert_eq!(
            g.check(&[call(r#"{ "cmd" : "make" }"#)], &[CallEnd::Rejected]),
            None
        );
        assert_eq!(
            g.check(&[call(r#"{"cmd":"make"}"#)], &[CallEnd::Error]),
            Some(TurnEnd::Repeated {
                tool: "run_command".into(),
                times: 3
            })
        );
    }

    #[test]
    fn a_success_or_another_call_resets_it() {
        let mut g = LoopGuard::default();
        for _ in 0..2 {
            g.check(&[call(r#"{"cmd":"make"}"#)], &[CallEnd::Error]);
        }
        g.check(&[call(r#"{"cmd":"make"}"#)], &[CallEnd::Success]);
        for _ in 0..2 {
            assert_eq!(
                g.check(&[call(r#"{"cmd":"make"}"#)], &[CallEnd::Error]),
                None
            );
        }
        assert_eq!(
            g.check(&[call(r#"{"cmd":"make test"}"#)], &[CallEnd::Error]),
            None
        );
    }
}
