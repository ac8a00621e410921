//! A batch's results: one tool message per call id, in call order (a call the batch left
//! unanswered gets the no-output stand-in, an answer to no call of the reply is dropped), then
//! the turn ends — the batch ended it (Cancel, a stop), the loop guard saw the same failing
//! call too often, auto-submit is off for this outcome — or goes on with a new round.

use super::{Answer, Answers, Effect, Turn};
use crate::events::{CallEnd, TurnEnd};
use crate::provider::{ChatMessage, ToolCall};
use crate::tools::lifecycle::orchestrator::no_output_text;

impl Turn {
    pub(super) fn answered(&mut self, calls: &[ToolCall], answers: Answers, fx: &mut Vec<Effect>) {
        let results = one_each(calls, answers.results);
        let ends: Vec<CallEnd> = results.iter().map(|a| a.end).collect();
        self.chat
            .messages
            .extend(results.into_iter().map(|a| ChatMessage::Tool {
                tool_call_id: a.call_id,
                content: a.content,
            }));
        if self.stopped {
            return self.finish(answers.ends_turn.unwrap_or(TurnEnd::Stopped), fx);
        }
        if let Some(end) = answers.ends_turn {
            return self.finish(end, fx);
        }
        if let Some(end) = self.guard.check(calls, &ends) {
            return self.finish(end, fx);
        }
        let resubmit = if answers.had_error {
            self.rules.auto_submit_errors
        } else {
            self.rules.auto_submit_success
        };
        if !resubmit {
            return self.finish(TurnEnd::Completed, fx);
        }
        self.next_round(fx);
    }
}

/// Exactly one answer per call, in call order.
fn one_each(calls: &[ToolCall], results: Vec<Answer>) -> Vec<Answer> {
    let mut results: Vec<Option<Answer>> = results.into_iter().map(Some).collect();
    calls
        .iter()
        .map(|call| {
            results
                .iter_mut()
                .find(|r| r.as_ref().is_some_and(|r| r.call_id == call.id))
                .and_then(Option::take)
                .unwrap_or_else(|| Answer {
                    call_id: call.id.clone(),
                    end: CallEnd::Error,
                    content: no_output_text(&call.name),
                })
        })
        .collect()
}
