//! The turn's driver: performs the [`Turn`]'s effects one at a time and feeds the answers
//! back — a request streamed through the client (each event an input; a stop drops the
//! stream), a summary asked for, a batch run on the engine, events emitted. The cancellation
//! token interrupts whatever is outstanding; a stop that comes as a batch ends (too late for
//! the engine to see it) is passed on before the batch's results, so the turn ends stopped
//! instead of sending another request. [`Agent::send`] is its entry, and the one way
//! both front-ends run a turn: the TUI through its task (`task.rs`), headless directly.
//!
//! Before the turn it does what needs the agent's IO and the engine: the window learned, the
//! MCP servers synced, the message's `@{…}` mentions expanded and their tools offered. The
//! history, the window state and the call ids move into the turn and come back when it ends
//! (the future is polled to the end by both front-ends).
//!
//! Messages typed during the turn wait in the agent's [`crate::agent::steer::Steer`] queue;
//! the driver hands them to the turn (`Input::Queued`) only at its safe points — when a
//! batch's results are in, and as the turn begins — and puts back what the turn ended
//! without delivering.

use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use super::{Answer, Answers, Chat, Effect, Finished, Input, Rules, Setup, Turn, UserMessage};
use crate::agent::{Agent, Event, EventSink, TurnEnd, mentions};
use crate::events::Notice;
use crate::provider::{ChatRequest, StreamEvent, ToolCall};

type Events = Pin<Box<dyn Stream<Item = StreamEvent> + Send>>;

impl Agent {
    /// Runs one user message to the end of its turn; the last event is `TurnEnded`.
    pub async fn send(
        &mut self,
        user: &str,
        sink: &EventSink,
        cancel: &CancellationToken,
    ) -> TurnEnd {
        // The project's files as they are now (`live_files`; nothing is read when they did
        // not change), then the window: a small one narrows the built-in tools, never the MCP
        // servers'.
        self.refresh_project_files(sink);
        self.learn_window(sink).await;
        self.sync_mcp(sink).await;
        let message = self.user_message(user);
        let setup = Setup {
            tools: self.tool_specs(),
            system: self.system_message(),
            rules: Rules {
                max_turns: self.settings.max_turns,
                auto_submit_success: self.settings.auto_submit_success,
                auto_submit_errors: self.settings.auto_submit_errors,
                interaction: self.engine.interaction(),
                text_tool_calls: self.settings.text_tool_calls,
            },
            chat: Chat {
                messages: std::mem::take(&mut self.messages),
                window: std::mem::take(&mut self.window),
                call_ids: std::mem::take(&mut self.call_ids),
                tools_in_text: self.tools_in_text,
            },
        };
        let mut turn = Turn::new(setup);
        // Messages the last turn left for this one's first request (`Steer::next_turn`).
        for text in self.steer.for_request() {
            turn.step(self.queued(text, sink));
        }
        let finished = self
            .drive(&mut turn, Input::User(message), sink, cancel)
            .await;
        let chat = turn.into_chat();
        (self.messages, self.window, self.call_ids) = (chat.messages, chat.window, chat.call_ids);
        self.tools_in_text = chat.tools_in_text;
        // A file the turn's tools wrote was read again as the turn ended: the system message
        // of the next request has it.
        self.sync_system_message();
        // What the turn did not deliver is back in the steer queue (the front end sends it
        // next, or puts it back into the input after a stop).
        finished.end
    }

    /// `@{name}` mentions add tools for the rest of the chat; the message as typed and sent.
    fn user_message(&mut self, user: &str) -> UserMessage {
        let expanded = mentions::expand(
            user,
            self.engine.registry(),
            &self.groups,
            self.engine.active(),
        );
        let prompts = self.add_tools(&expanded.added);
        let (attached, notices) = self.attach(&expanded.text);
        UserMessage {
            text: user.to_owned(),
            sent: super::super::undoing::with_notes(
                std::mem::take(&mut self.notes),
                crate::tools::policy::plan::sent_text(attached.text, self.engine.plan().get()),
            ),
            tools_added: expanded.added,
            prompts,
            images: {
                let mut images = attached.images;
                images.append(&mut self.images);
                images
            },
            attached: notices,
        }
    }

    /// `text` with its `@path` mentions attached (`crate::attach`), and what the chat is told.
    fn attach(&self, text: &str) -> (crate::attach::Attached, Vec<Notice>) {
        let place = crate::attach::Place {
            cwd: self.engine.cwd().to_path_buf(),
            own: self.engine.own_paths().to_vec(),
            denials: self.engine.rules().path_denials("read_file"),
        };
        let attached = crate::attach::attach(text, &place);
        let mut notices: Vec<Notice> = attached
            .notes
            .iter()
            .map(|n| {
                if n.contains("was not attached") {
                    Notice::AttachmentRefused(n.clone())
                } else {
                    Notice::Attached(n.clone())
                }
            })
            .collect();
        if !attached.chips.is_empty() {
            notices.insert(
                0,
                Notice::Attached(format!("attached {}", attached.chips.join(" "))),
            );
        }
        (attached, notices)
    }

    /// A message typed during the turn as the turn receives it: its `@path` mentions attached
    /// like a sent message's (the notices said now), in plan mode with its note. It joins a
    /// request as text, so an image in it is left out, and said.
    fn queued(&self, text: String, sink: &EventSink) -> Input {
        let (attached, notices) = self.attach(&text);
        for notice in notices {
            sink.emit(Event::Notice(notice));
        }
        if !attached.images.is_empty() {
            sink.emit(Event::Notice(Notice::AttachmentRefused(format!(
                "{} image(s) in a message queued during a turn were not attached: send the message again when the turn has ended",
                attached.images.len()
            ))));
        }
        Input::Queued(crate::tools::policy::plan::sent_text(
            attached.text,
            self.engine.plan().get(),
        ))
    }

    /// Performs `turn`'s effects, starting with `first`, until it finishes.
    async fn drive(
        &mut self,
        turn: &mut Turn,
        first: Input,
        sink: &EventSink,
        cancel: &CancellationToken,
    ) -> Finished {
        let mut input = first;
        let mut stream: Option<Events> = None;
        let mut stopping = false;
        // Answers not yet given, in order.
        let mut next = std::collections::VecDeque::new();
        loop {
            let effects = turn.step(input);
            // Undelivered messages go back before `TurnEnded` is out: the front end reads
            // the queue when it sees that event.
            if let Some(Effect::Finish(f)) = effects.iter().find(|e| matches!(e, Effect::Finish(_)))
            {
                self.steer.give_back(f.queued.clone());
            }
            for effect in effects {
                match effect {
                    Effect::Emit(e) => {
                        // A file the turn's tools wrote (an `AGENTS.md` from `/init`, a new
                        // skill) is read again and said before the turn's end.
                        if matches!(e, Event::TurnEnded(_)) {
                            self.reread_project_files(sink);
                        }
                        // Undo's turns are the chat's user messages, counted as they are sent.
                        if let (Event::UserMessage { .. }, Some(r)) =
                            (&e, self.engine.checkpoints())
                        {
                            r.next_turn();
                        }
                        sink.emit(e)
                    }
                    Effect::WindowLearned => self.window_learned(),
                    Effect::ToolsDropped(names) => self.tools_dropped(&names),
                    Effect::Request(mut request) => {
                        request.model = self.model.get();
                        sink.emit(Event::RequestSent);
                        stream = Some(Box::pin(self.client.stream_chat(&request)));
                    }
                    Effect::Summarise(mut request) => {
                        request.model = self.model.get();
                        next.push_back(self.summarise(&request, cancel).await);
                    }
                    Effect::RunBatch(calls) => {
                        let answers = self.batch(&calls, sink, cancel).await;
                        // A stop as the batch ended, too late for it to see: the turn ends
                        // with the results all the same.
                        if cancel.is_cancelled() {
                            next.push_back(Input::Stop);
                        }
                        // The safe point: messages typed meanwhile join the next request,
                        // after these results.
                        for text in self.steer.for_request() {
                            next.push_back(self.queued(text, sink));
                        }
                        next.push_back(answers);
                    }
                    Effect::Finish(finished) => return finished,
                }
            }
            input = match (next.pop_front(), stream.as_mut()) {
                (Some(input), _) => input,
                (None, Some(events)) => {
                    let input = next_event(events, cancel).await;
                    if !matches!(input, Input::Stream(ref e) if !is_last(e)) {
                        stream = None;
                    }
                    input
                }
                // Every step that does not finish asks for something; if one did not, stopping
                // is the safe way out — and if even that leaves the turn waiting, it ends so.
                (None, None) if stopping => {
                    tracing::error!("the turn asked for nothing, even after a stop");
                    let queued = turn.take_queued();
                    self.steer.give_back(queued.clone());
                    sink.emit(Event::TurnEnded(TurnEnd::Stopped));
                    return Finished {
                        end: TurnEnd::Stopped,
                        queued,
                    };
                }
                (None, None) => Input::Stop,
            };
            stopping = input == Input::Stop;
        }
    }

    /// The summary a compaction asked for.
    async fn summarise(&self, request: &ChatRequest, cancel: &CancellationToken) -> Input {
        tokio::select! {
            r = self.client.complete(request) => match r {
                Ok(reply) => Input::Summary(Ok(reply.content)),
                Err(_) if cancel.is_cancelled() => Input::Stop,
                Err(e) => Input::Summary(Err(e)),
            },
            () = cancel.cancelled() => Input::Stop,
        }
    }

    /// Runs one reply's calls: the one place the turn meets the engine's batch.
    async fn batch(
        &mut self,
        calls: &[ToolCall],
        sink: &EventSink,
        cancel: &CancellationToken,
    ) -> Input {
        let batch = self.engine.run_batch(calls, sink, cancel).await;
        let results = batch
            .results
            .into_iter()
            .map(|r| Answer {
                content: r.content(),
                call_id: r.call_id,
                end: r.end,
            })
            .collect();
        Input::Batch(Answers {
            results,
            had_error: batch.had_error,
            ends_turn: batch.ends_turn,
        })
    }
}

/// The stream's next event, or the stop.
async fn next_event(events: &mut Events, cancel: &CancellationToken) -> Input {
    tokio::select! {
        ev = events.next() => ev.map_or(Input::StreamEnded, Input::Stream),
        () = cancel.cancelled() => Input::Stop,
    }
}

/// The stream's last event.
fn is_last(e: &StreamEvent) -> bool {
    matches!(e, StreamEvent::Finished(_))
}

#[cfg(test)]
mod tests {
    use crate::agent::build::tests::{agent, config};

    #[test]
    fn mentions_offer_their_tools_once_with_their_prompts() {
        let home = tempfile::tempdir().expect("a temp dir");
        let mut a = agent(&config(home.path()), home.path());
        let active = a.engine.active().clone();
        let registry = a.engine.registry().clone();
        let off = registry
            .entries()
            .map(|(n, _)| n.to_owned())
            .find(|n| !active.contains(n))
            .expect("a tool that is not offered by default");
        let on = active.first().expect("a default tool").clone();
        let typed = format!("use @{{{off}}} and @{{{on}}}, not @{{nope}}");
        let m = a.user_message(&typed);
        assert_eq!(m.text, typed);
        assert_eq!(
            m.sent,
            format!("use the {off} tool and the {on} tool, not @{{nope}}")
        );
        assert_eq!(m.tools_added, std::slice::from_ref(&off));
        let prompt = registry.get(&off).and_then(|e| e.tool.system_prompt());
        assert_eq!(m.prompts, Vec::from_iter(prompt));
        assert!(a.engine.active().contains(&off), "offered from now on");
        let again = a.user_message(&typed);
        assert!(again.tools_added.is_empty() && again.prompts.is_empty());
    }
}
