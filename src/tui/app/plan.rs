//! The app's side of the plan the user sees: the model's last checklist (pinned above the
//! input by `widgets::todo`), plan mode as the status bar shows it, the mode key (Alt+M), `/plan`,
//! and the question a plan-mode turn ends with (Enter on an empty input accepts the plan;
//! `/plan accept MODE` accepts it in another approval mode; a typed message is feedback,
//! sent in plan mode).
//!
//! The check that refuses a write in plan mode is the engine's (`tools::policy::plan`); this
//! module only switches the flag (through `Command::SetPlan`) and sends the acceptance.

use super::{App, Effect};
use crate::agent::task::Command;
use crate::events::{Event, Mode, TodoItem, TodoStatus, TurnEnd};
use crate::tools::policy::plan::ACCEPTED;

/// What the app knows of the plan.
#[derive(Debug, Default)]
pub(super) struct PlanState {
    /// The model's last checklist (a resumed chat's too).
    pub todo: Vec<TodoItem>,
    /// Plan mode is on.
    pub on: bool,
    /// A plan-mode turn ended with a reply: the user is asked to accept it or give feedback.
    pub awaiting: bool,
}

/// The prompt line shown while a plan waits for the user.
pub fn accept_prompt(mode: Mode) -> String {
    format!(
        "Plan ready: Enter (empty input) carries it out in {} mode · /plan accept MODE picks another · or type feedback",
        mode.as_str()
    )
}

/// What the mode key goes to: `home → auto → plan → home` (home is the mode `/auto` returns
/// to). Returns plan mode on or off and the approval mode.
pub fn cycle(plan: bool, mode: Mode, home: Mode) -> (bool, Mode) {
    match (plan, mode) {
        (true, _) => (false, home),
        (false, Mode::Auto) => (true, home),
        (false, _) => (false, Mode::Auto),
    }
}

impl App {
    /// What an agent event changes in the plan.
    pub(super) fn on_plan_event(&mut self, ev: &Event) {
        match ev {
            Event::Todo { items, .. } => self.plan.todo = items.clone(),
            Event::PlanMode { on } => {
                self.plan.on = *on;
                if !on {
                    self.plan.awaiting = false;
                }
            }
            Event::Resumed { .. } => self.plan.todo.clear(),
            Event::UserMessage { .. } => self.plan.awaiting = false,
            Event::TurnEnded(TurnEnd::Completed) if self.plan.on => {
                self.plan.awaiting = true;
                self.flash = Some(accept_prompt(self.status.mode));
            }
            _ => {}
        }
    }

    /// The checklist pinned above the input: while a turn runs, and after it until every item
    /// is done (drawn dimmed when idle).
    pub fn pinned_todo(&self) -> &[TodoItem] {
        let all_done = self.plan.todo.iter().all(|i| i.status == TodoStatus::Done);
        if self.plan.todo.is_empty() || (!self.busy && all_done) {
            &[]
        } else {
            &self.plan.todo
        }
    }

    /// The status bar's mode: ` BALANCED `, ` PLAN · BALANCED ` in plan mode.
    pub fn mode_label(&self) -> String {
        let plan = if self.plan.on { "PLAN · " } else { "" };
        format!(" {plan}{} ", self.status.mode.as_str().to_uppercase())
    }

    pub fn plan_on(&self) -> bool {
        self.plan.on
    }

    /// A plan waits for the user's answer.
    pub fn plan_awaiting(&self) -> bool {
        self.plan.awaiting
    }

    /// Switches plan mode (the status bar shows it at once; the agent from its next decision).
    pub(super) fn set_plan(&mut self, on: bool) -> Vec<Effect> {
        self.plan.on = on;
        self.plan.awaiting = false;
        if self
            .flash
            .as_deref()
            .is_some_and(|f| f.starts_with("Plan ready"))
        {
            self.flash = None;
        }
        vec![Effect::Agent(Command::SetPlan(on))]
    }

    /// The mode key (Alt+M): `home → auto → plan → home`.
    pub(super) fn cycle_mode(&mut self) -> Vec<Effect> {
        let (plan, mode) = cycle(self.plan.on, self.status.mode, self.mode_before_auto);
        let mut effects = Vec::new();
        if mode != self.status.mode {
            self.set_mode(mode);
            effects.push(Effect::Agent(Command::SetMode(mode)));
        }
        if plan != self.plan.on {
            effects.extend(self.set_plan(plan));
        }
        effects
    }

    /// Accepts the plan: plan mode off, the approval mode `mode` (or the one in force), and
    /// the message that carries the plan out.
    pub(super) fn accept_plan(&mut self, mode: Option<Mode>) -> Vec<Effect> {
        if self.busy {
            self.show_hint(crate::tui::strings::BUSY_FOR_COMMAND);
            return Vec::new();
        }
        if !self.plan.on {
            self.flash = Some(NO_PLAN.into());
            return Vec::new();
        }
        let mut effects = Vec::new();
        if let Some(m) = mode.filter(|m| *m != self.status.mode) {
            self.set_mode(m);
            effects.push(Effect::Agent(Command::SetMode(m)));
        }
        effects.extend(self.set_plan(false));
        self.busy = true;
        self.activity = super::Activity::Waiting;
        self.chat.end();
        effects.push(Effect::Send(ACCEPTED.to_owned()));
        effects
    }
}

/// `/plan`: toggle plan mode; `/plan on|off`; `/plan accept [MODE]`.
pub(super) fn command(app: &mut App, arg: &str) -> Vec<Effect> {
    let mut words = arg.split_whitespace();
    match (words.next(), words.next()) {
        (None, _) => {
            let on = !app.plan.on;
            app.show_hint(if on { PLAN_ON } else { PLAN_OFF });
            app.set_plan(on)
        }
        (Some("on"), None) => {
            app.show_hint(PLAN_ON);
            app.set_plan(true)
        }
        (Some("off"), None) => {
            app.show_hint(PLAN_OFF);
            app.set_plan(false)
        }
        (Some("accept"), None) => app.accept_plan(None),
        (Some("accept"), Some(m)) => match Mode::parse(m) {
            Some(mode) => app.accept_plan(Some(mode)),
            None => {
                app.flash = Some(format!(
                    "no mode `{m}`: trust, auto, balanced, suggest or strict"
                ));
                Vec::new()
            }
        },
        _ => {
            app.flash = Some("usage: /plan [on|off|accept [MODE]]".into());
            Vec::new()
        }
    }
}

const PLAN_ON: &str =
    "plan mode: only read-only tools run; the model investigates and presents a plan";
const PLAN_OFF: &str = "plan mode off";
const NO_PLAN: &str = "no plan to accept: /plan turns plan mode on, and the model presents one";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::AppEvent;
    use crate::tui::tests_support::app;

    #[test]
    fn a_plan_turn_ends_with_the_question_and_accepting_sends_the_acceptance() {
        let mut a = app();
        assert_eq!(
            command(&mut a, "accept"),
            Vec::<Effect>::new(),
            "nothing to accept"
        );
        assert_eq!(a.flash(), Some(NO_PLAN));
        assert_eq!(
            command(&mut a, ""),
            vec![Effect::Agent(Command::SetPlan(true))]
        );
        assert!(a.mode_label().contains("PLAN · "), "{}", a.mode_label());
        a.update(AppEvent::Agent(Event::TurnEnded(TurnEnd::Completed)));
        assert!(a.plan_awaiting());
        assert!(a.flash().is_some_and(|f| f.starts_with("Plan ready")));
        assert_eq!(
            command(&mut a, "accept trust"),
            vec![
                Effect::Agent(Command::SetMode(Mode::Trust)),
                Effect::Agent(Command::SetPlan(false)),
                Effect::Send(ACCEPTED.into()),
            ]
        );
        assert!(!a.plan_on() && !a.plan_awaiting() && a.busy());
    }

    #[test]
    fn the_pinned_list_is_the_last_one_until_every_item_is_done() {
        let mut a = app();
        let item = |s| TodoItem {
            content: "x".into(),
            status: s,
        };
        assert!(a.pinned_todo().is_empty());
        let todo = |items| {
            AppEvent::Agent(Event::Todo {
                call_id: "t".into(),
                items,
            })
        };
        a.update(todo(vec![item(TodoStatus::InProgress)]));
        assert_eq!(a.pinned_todo().len(), 1);
        a.update(todo(vec![item(TodoStatus::Done)]));
        assert!(a.pinned_todo().is_empty(), "idle and all done: gone");
    }

    #[test]
    fn the_mode_key_goes_home_auto_plan_home() {
        let cases = [
            ((false, Mode::Balanced, Mode::Balanced), (false, Mode::Auto)),
            ((false, Mode::Auto, Mode::Balanced), (true, Mode::Balanced)),
            (
                (true, Mode::Balanced, Mode::Balanced),
                (false, Mode::Balanced),
            ),
            ((false, Mode::Strict, Mode::Strict), (false, Mode::Auto)),
            ((false, Mode::Auto, Mode::Strict), (true, Mode::Strict)),
            ((true, Mode::Strict, Mode::Strict), (false, Mode::Strict)),
        ];
        for ((plan, mode, home), want) in cases {
            assert_eq!(cycle(plan, mode, home), want, "{plan} {mode:?} {home:?}");
        }
    }
}
