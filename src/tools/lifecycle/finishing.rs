//! How calls end: one result per call (secrets scrubbed, capped, with the stand-in when the
//! tool recorded nothing) and its events, the calls a cancel or stop never reached, and the
//! batch's result. This is the one place every tool's output passes before the model, the
//! screen and the session see it: a secret value (`crate::secrets`) never gets past it.

use super::{Batch, BatchResult, CallResult, Effect, Phase, no_output_text};
use crate::events::{CallEnd, Event};
use crate::tools::exec::output_cap::DEFAULT_LIMIT;
use crate::tools::exec::runner::guarded;
use crate::tools::tool::ToolOutput;

impl Batch {
    /// Records the call at the cursor with the output collected so far, and moves on.
    pub(super) fn finish_call(&mut self, end: CallEnd, fx: &mut Vec<Effect>) {
        let call = &self.calls[self.cursor];
        let limit = call
            .ready
            .as_ref()
            .map_or(DEFAULT_LIMIT, |r| r.inv.opts.output_limit());
        // Scrubbed before capping, so a cut cannot leave part of a secret.
        let mut out = std::mem::take(&mut self.out).scrubbed().capped(limit);
        if out.is_empty() {
            out.add(no_output_text(&call.name), None);
        }
        for (content, display) in out.parts() {
            fx.push(Effect::Emit(Event::ToolOutput {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: content.clone(),
                display: display.clone(),
            }));
        }
        for change in out.changes() {
            fx.push(Effect::Emit(Event::FileChanged {
                call_id: call.id.clone(),
                name: call.name.clone(),
                change: change.clone(),
            }));
        }
        if let Some(items) = out.todo() {
            fx.push(Effect::Emit(Event::Todo {
                call_id: call.id.clone(),
                items: items.to_vec(),
            }));
        }
        fx.push(Effect::Emit(Event::ToolFinished {
            call_id: call.id.clone(),
            name: call.name.clone(),
            end,
        }));
        if end == CallEnd::Error {
            self.had_error = true;
        }
        if end != CallEnd::Success {
            self.open_run = false;
        }
        let result = CallResult {
            call_id: call.id.clone(),
            name: call.name.clone(),
            end,
            output: out,
        };
        self.calls[self.cursor].result = Some(result);
        self.cursor += 1;
        self.phase = Phase::Next;
    }

    /// A call the batch never reached because it was cancelled or stopped.
    pub(super) fn cancel_unreached(&mut self, fx: &mut Vec<Effect>) {
        match self.calls[self.cursor].ready.as_ref() {
            Ok(ready) => {
                let (tool, inv) = (ready.tool.clone(), ready.inv.clone());
                // A run of shared handlers left open by the previous call is closed.
                if std::mem::take(&mut self.open_run) {
                    guarded(&inv.name, &mut ToolOutput::default(), |_| {
                        tool.on_exit(&inv)
                    });
                }
                guarded(&inv.name, &mut self.out, |o| tool.on_cancelled(&inv, o));
                self.finish_call(CallEnd::Cancelled, fx);
            }
            Err(text) => {
                self.out.add(text.clone(), None);
                self.finish_call(CallEnd::Error, fx);
            }
        }
    }

    pub(super) fn finish_batch(&mut self, fx: &mut Vec<Effect>) {
        fx.push(Effect::Emit(Event::ToolsFinished));
        let results = self
            .calls
            .iter_mut()
            .map(|c| {
                c.result.take().unwrap_or_else(|| {
                    let mut output = ToolOutput::default();
                    output.add(no_output_text(&c.name), None);
                    CallResult {
                        call_id: c.id.clone(),
                        name: c.name.clone(),
                        end: CallEnd::Error,
                        output,
                    }
                })
            })
            .collect();
        fx.push(Effect::Finish(BatchResult {
            results,
            had_error: self.had_error,
            ends_turn: self.ends_turn.clone(),
        }));
        self.phase = Phase::Finished;
    }
}
