//! What the agent's events do to the app: the status bar's activity, model, mode and tokens,
//! the overlays an event opens or closes, and the transcript (a retry's failed attempt
//! forgotten).

use super::*;
use crate::provider::Retry;

impl App {
    pub(super) fn on_agent(&mut self, ev: &Event) {
        // The first delta after a retry: the reply is coming again; say the retry worked.
        if let (
            Event::Delta(_),
            Activity::Retrying {
                error, retry, max, ..
            },
        ) = (ev, &self.activity)
        {
            let note = format!("⚠ {error} — retried (attempt {retry}/{max})");
            self.transcript.push_notice(note);
            self.activity = Activity::Streaming;
        }
        self.track(ev);
        self.on_plan_event(ev);
        if self.modal.is_some() {
            self.activity = Activity::Approval;
        }
        match ev {
            // The project's files were read again: the welcome names what is in force.
            Event::Notice(crate::events::Notice::ProjectFiles {
                instructions,
                skills,
                ..
            }) => self.welcome_in_force(|w| {
                w.set_instructions(instructions);
                w.skills = skills.clone();
            }),
            // A command file a tool wrote during the turn is read now, and said.
            Event::TurnEnded(_) => self.refresh_file_commands(),
            _ => {}
        }
        match ev {
            Event::Answer(a) if self.take_back_answer(a) => {}
            Event::Answer(a) => self.transcript.push_notice(crate::tui::answers::notice(a)),
            ev => self.transcript.apply(ev),
        }
        if matches!(ev, Event::Retrying { .. }) {
            // The failed attempt's entries are gone; whatever replaces them is new.
            if let Some(from) = self.transcript.take_changed() {
                self.chat.forget_from(from);
            }
        }
        self.after_transcript_change();
    }

    /// What the status bar shows (activity, model, mode, tokens) and the overlays an event opens.
    fn track(&mut self, ev: &Event) {
        match ev {
            Event::Delta(StreamDelta::Text(_)) => self.activity = Activity::Streaming,
            Event::Delta(StreamDelta::Reasoning(_)) => self.activity = Activity::Thinking,
            Event::Delta(StreamDelta::Usage(_)) => {}
            Event::Delta(_) => self.activity = Activity::Streaming,
            Event::Retrying(Retry {
                retry,
                max_retries,
                delay,
                error,
            }) => {
                self.activity = Activity::Retrying {
                    until: Instant::now() + *delay,
                    retry: *retry,
                    max: *max_retries,
                    error: error.to_string(),
                };
            }
            Event::ReplyDone(m) => {
                if let Some(u) = m.usage {
                    let add =
                        |a: Option<u64>, b: Option<u64>| Some(a.unwrap_or(0) + b.unwrap_or(0));
                    let total = &mut self.status.usage;
                    *total = Usage {
                        prompt_tokens: add(total.prompt_tokens, u.prompt_tokens),
                        completion_tokens: add(total.completion_tokens, u.completion_tokens),
                        total_tokens: add(total.total_tokens, u.total_tokens),
                    };
                }
                self.activity = if m.tool_calls.is_empty() {
                    Activity::Idle
                } else {
                    Activity::Thinking
                };
            }
            Event::ToolStarted {
                call_id,
                cmd_string,
                ..
            } => {
                self.tool_started.insert(call_id.clone(), Instant::now());
                self.activity = Activity::Tool(cmd_string.clone());
            }
            Event::JudgeStarted { .. } => self.activity = Activity::Judge,
            Event::RequestSent => {
                self.activity = Activity::FirstToken {
                    since: Instant::now(),
                }
            }
            // Every call has its result: the next request goes out.
            Event::ToolsFinished => self.activity = Activity::Waiting,
            Event::ToolFinished { call_id, .. } => {
                self.tool_started.remove(call_id);
                self.activity = Activity::Thinking;
            }
            Event::ModelChanged { model } => self.status.model = model.clone(),
            Event::Context {
                used,
                window,
                estimated,
                ..
            } => self.status.context = Some((*used, *window, *estimated)),
            Event::Resumed { mode, model, .. } => {
                self.chat.reset();
                self.expanded.clear();
                self.selected = None;
                self.set_mode(*mode);
                self.status.model = model.clone();
                self.status.usage = Usage::default();
                self.status.context = None;
            }
            Event::ModeChanged { mode } => self.set_mode(*mode),
            Event::TurnEnded(_) => self.turn_ended(),
            Event::Sessions(list) if list.is_empty() => {
                self.flash = Some(strings::NO_SESSIONS.into());
            }
            Event::Sessions(list) => self.picker = Some(SessionPicker::new(list.clone())),
            _ => {}
        }
    }

    pub(super) fn turn_ended(&mut self) {
        self.busy = false;
        self.activity = Activity::Idle;
        self.tool_started.clear();
        // A modal still open belongs to a turn that is over: its reply channel is gone.
        self.modal = None;
        self.form = None;
        self.queued_approvals.clear();
    }
}
