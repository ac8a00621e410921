//! The approval modal's state and keys (SPEC §6.4). Rendering is in `widgets/modal.rs`.
//!
//! `a` Always accept, `y` Accept (highlighted first), `r` Reject → a one-line reason input
//! (Enter submits, empty is fine; Esc returns to the choices; it edits with the input box's
//! keys, [`LineInput`]), `c` or Esc Cancel; Left/Right
//! move the highlight and Enter takes it; Up/Down/PageUp/PageDown scroll the body. `s` offers
//! to save an `allow` rule to the user's config (the exact command, its prefix, or the tool;
//! for a command of several parts, one rule a part, saved together), showing the rules before
//! they are written: a number or Enter saves them and accepts the call, Esc returns to the
//! choices. When no rule can be saved for the command, the modal says why. On a rerun outside
//! the sandbox, `s` offers the narrowest rules that would have run the command as it needed
//! (`sandbox = false`, or `network = true` when the network was denied:
//! [`rerun_offer::rules`]); saving them accepts the rerun.
//!
//! Keys typed ahead do not answer it: until the [`KeyGate`] admits a key (the modal on screen
//! for 0.5 s, the keyboard quiet for 0.3 s), every key but scrolling and moving the highlight
//! is swallowed; typing a reason is not gated (the `r` that opened it was). Only bare keys
//! choose (a habit chord such as Ctrl+A or Ctrl+Y never approves); in the reason input the
//! chords are the editing keys.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::text::{Line, Span};
use tokio::sync::oneshot;

use std::time::Instant;

use super::input::LineInput;
use super::key_gate::KeyGate;
use super::theme::Theme;
use crate::config::approvals::{RuleSpec, toml_block};
use crate::sandbox::{Denial, DenialKind};
use crate::tools::lifecycle::requests::{ApprovalRequest, Remember, UserChoice};
use crate::tools::lifecycle::rerun_offer;
use crate::tools::tool::Preview;

pub const CHOICES: [&str; 4] = ["Always accept", "Accept", "Reject", "Cancel"];
pub const CHOICE_KEYS: [char; 4] = ['a', 'y', 'r', 'c'];

pub struct ApprovalModal {
    pub call_id: String,
    pub tool: String,
    pub cmd_string: String,
    pub prompt: String,
    pub judge_reason: Option<String>,
    /// Why this call must be confirmed (a protected path, a hostile git config…).
    pub caution: Option<String>,
    pub position: usize,
    pub total: usize,
    pub remember: Remember,
    /// A rerun outside the sandbox of a command it denied, and what it denied.
    pub rerun: Option<Denial>,
    /// The body: a coloured diff or the pretty-printed arguments, invisible characters drawn.
    pub body: Vec<Line<'static>>,
    /// Invisible characters in the command and the body (drawn as `⟨…⟩`, and said above).
    pub hidden: usize,
    pub selected: usize,
    /// Typing a rejection reason.
    pub reason: Option<LineInput>,
    pub scroll: u16,
    /// The choices `s` offers (each the rules saved together: one a part of a command of
    /// several parts), and which one is highlighted while choosing.
    pub rules: Vec<Vec<RuleSpec>>,
    /// What the choices mean for a command of several parts, or why `s` offers none.
    pub rules_note: Option<String>,
    pub saving: Option<usize>,
    /// The rules chosen to be saved (taken by the app when the modal answers).
    saved: Vec<RuleSpec>,
    reply: Option<oneshot::Sender<UserChoice>>,
    gate: KeyGate,
}

impl ApprovalModal {
    pub fn new(req: ApprovalRequest, theme: &Theme) -> Self {
        let body: Vec<Line<'static>> = match &req.ask.preview {
            Some(Preview::Diff { diff, .. }) => diff
                .lines()
                .map(|l| {
                    let style = super::diff_view::line_style(theme, l);
                    Line::from(Span::styled(l.to_owned(), style))
                })
                .collect(),
            Some(Preview::Text(t)) => t.lines().map(|l| Line::from(l.to_owned())).collect(),
            None => serde_json::to_string_pretty(&req.ask.args)
                .unwrap_or_default()
                .lines()
                .map(|l| Line::from(l.to_owned()))
                .collect(),
        };
        // What is approved is shown with its invisible characters drawn (`crate::invisible`).
        let hidden = crate::invisible::pieces(&req.ask.cmd_string)
            .into_iter()
            .chain(body.iter().flat_map(|l| {
                l.spans
                    .iter()
                    .flat_map(|s| crate::invisible::pieces(&s.content))
            }))
            .filter(|p| matches!(p, crate::invisible::Piece::Hidden(_)))
            .count();
        let body = body.into_iter().map(super::tabs::reveal).collect();
        let offer = match &req.ask.rerun {
            Some(denial) => rerun_offer::rules(&req.ask.tool, &req.ask.cmd_string, denial),
            None => crate::tools::policy::rules::offer(&req.ask.tool, &req.ask.remember),
        };
        Self {
            rules: offer.choices,
            rules_note: offer.note,
            saving: None,
            saved: Vec::new(),
            call_id: req.ask.call_id,
            tool: req.ask.tool,
            cmd_string: req.ask.cmd_string,
            prompt: req.ask.prompt,
            judge_reason: req.ask.judge_reason,
            caution: req.ask.caution,
            position: req.ask.position,
            total: req.ask.total,
            remember: req.ask.remember,
            rerun: req.ask.rerun,
            body,
            hidden,
            selected: 1,
            reason: None,
            scroll: 0,
            reply: Some(req.reply),
            gate: KeyGate::default(),
        }
    }

    /// A frame showing the modal was drawn at `now`.
    pub fn drawn(&mut self, now: Instant) {
        self.gate.drawn(now);
    }

    /// The last key was swallowed by the gate (the footer says "keys ignored: read first").
    pub fn keys_ignored(&self) -> bool {
        self.gate.swallowed()
    }

    /// Handles a key pressed at `now`, `previous` being when the key before it was pressed:
    /// scrolling, moving the highlight and typing a reason act at once; any other key only when
    /// the gate admits it. Returns the decision once the user has made one.
    pub fn handle_key_at(
        &mut self,
        key: KeyEvent,
        now: Instant,
        previous: Option<Instant>,
    ) -> Option<UserChoice> {
        let navigation = matches!(
            key.code,
            KeyCode::Up
                | KeyCode::Down
                | KeyCode::Left
                | KeyCode::Right
                | KeyCode::PageUp
                | KeyCode::PageDown
        );
        if self.reason.is_none() && !navigation && !self.gate.admit(now, previous) {
            return None;
        }
        self.handle_key(key)
    }

    /// What "Always accept" will remember, in words.
    pub fn always_label(&self) -> String {
        if self.rerun.is_some() {
            return "[a] is Accept here: it runs outside the sandbox this once; a rerun outside is never remembered".to_owned();
        }
        match &self.remember {
            Remember::Tool(t) => format!("[a] remembers `{t}`: it will not ask again in this chat"),
            Remember::Nothing => {
                "[a] accepts this call only: a call like this always asks".to_owned()
            }
            Remember::Command(c) => {
                format!("[a] remembers exactly `{c}`: it will not ask again for this command")
            }
            Remember::Call { .. } => format!(
                "[a] remembers this call of `{}` with exactly these arguments: it will not ask again for the same call",
                self.tool
            ),
        }
    }

    /// The line under the choices about `s`: what it saves, or why nothing can be saved.
    pub fn save_hint(&self) -> Option<String> {
        if self.rules.is_empty() {
            return self.rules_note.as_ref().map(|why| format!("[s] {why}"));
        }
        let what = if self.rules.iter().any(|c| c.len() > 1) {
            "a rule for each part of the command"
        } else {
            "a rule"
        };
        Some(match self.rerun.as_ref().map(|d| d.kind) {
            None => format!("[s] save {what} to your config so it never asks again"),
            Some(DenialKind::Network) => format!(
                "[s] save {what} to your config (`network = true`) so this command gets the network without asking"
            ),
            Some(_) => format!(
                "[s] save {what} to your config (`sandbox = false`) so this command runs outside the sandbox without asking"
            ),
        })
    }

    /// The line above the rules `s` offers.
    pub fn save_prompt(&self) -> &'static str {
        if self.rerun.is_some() {
            "Save a rule to your config, then run it again outside the sandbox (number or Enter saves, Esc goes back):"
        } else {
            "Save a rule to your config, then accept this call (number or Enter saves, Esc goes back):"
        }
    }

    /// The rules chosen to be saved, once.
    pub fn take_saved(&mut self) -> Vec<RuleSpec> {
        std::mem::take(&mut self.saved)
    }

    /// The TOML each offered choice would write.
    pub fn rule_text(&self, i: usize) -> String {
        self.rules
            .get(i)
            .map(|rules| rules.iter().map(toml_block).collect::<Vec<_>>().join("\n"))
            .unwrap_or_default()
    }

    /// An offered choice in words: its rules, joined.
    pub fn rule_words(&self, i: usize) -> String {
        self.rules
            .get(i)
            .map(|rules| {
                rules
                    .iter()
                    .map(RuleSpec::describe)
                    .collect::<Vec<_>>()
                    .join(" and ")
            })
            .unwrap_or_default()
    }

    fn save_key(&mut self, key: KeyEvent) -> Option<UserChoice> {
        let n = self.rules.len();
        let i = self.saving.unwrap_or(0);
        match key.code {
            KeyCode::Esc => self.saving = None,
            KeyCode::Up | KeyCode::Left | KeyCode::BackTab => {
                self.saving = Some(i.saturating_sub(1))
            }
            KeyCode::Down | KeyCode::Right | KeyCode::Tab => self.saving = Some((i + 1).min(n - 1)),
            KeyCode::Enter => return self.save(i),
            KeyCode::Char(c) if c.is_ascii_digit() => {
                let k = c.to_digit(10).unwrap_or(0) as usize;
                if (1..=n).contains(&k) {
                    return self.save(k - 1);
                }
            }
            _ => {}
        }
        None
    }

    fn save(&mut self, i: usize) -> Option<UserChoice> {
        self.saved = self.rules.get(i).cloned().unwrap_or_default();
        self.saving = None;
        Some(UserChoice::AlwaysAccept)
    }

    /// Sends the answer to the engine; the modal is done.
    pub fn answer(&mut self, choice: UserChoice) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(choice);
        }
    }

    fn scroll_by(&mut self, delta: i32) {
        let max = self.body.len().saturating_sub(1) as i32;
        self.scroll = (self.scroll as i32 + delta).clamp(0, max) as u16;
    }

    fn choose(&mut self, index: usize) -> Option<UserChoice> {
        match index {
            0 => Some(UserChoice::AlwaysAccept),
            1 => Some(UserChoice::Accept),
            2 => {
                self.selected = 2;
                self.reason = Some(LineInput::new());
                None
            }
            _ => Some(UserChoice::Cancel),
        }
    }

    /// Handles a key the gate let through; returns the decision once the user has made one.
    fn handle_key(&mut self, key: KeyEvent) -> Option<UserChoice> {
        if let Some(reason) = self.reason.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let r = reason.text().trim().to_owned();
                    return Some(UserChoice::Reject((!r.is_empty()).then_some(r)));
                }
                KeyCode::Esc => self.reason = None,
                _ => {
                    reason.handle_key(&key);
                }
            }
            return None;
        }
        // Ctrl+C stops, as everywhere else: here that is Cancel, the choice that runs nothing.
        if key.code == KeyCode::Char('c') && key.modifiers == KeyModifiers::CONTROL {
            return Some(UserChoice::Cancel);
        }
        // Only bare keys choose: a habit chord (Ctrl+A, Ctrl+Y, Alt+y…) must not approve a call.
        let chord = key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SUPER)
            || key
                .modifiers
                .intersects(KeyModifiers::HYPER | KeyModifiers::META);
        if chord {
            return None;
        }
        if self.saving.is_some() {
            return self.save_key(key);
        }
        match key.code {
            KeyCode::Char('s' | 'S') if !self.rules.is_empty() => {
                self.saving = Some(0);
                None
            }
            KeyCode::Char(c) if CHOICE_KEYS.contains(&c.to_ascii_lowercase()) => {
                let i = CHOICE_KEYS
                    .iter()
                    .position(|k| *k == c.to_ascii_lowercase())
                    .unwrap_or(1);
                self.choose(i)
            }
            KeyCode::Esc => Some(UserChoice::Cancel),
            KeyCode::Enter => self.choose(self.selected),
            KeyCode::Left | KeyCode::BackTab => {
                self.selected = self.selected.saturating_sub(1);
                None
            }
            KeyCode::Right | KeyCode::Tab => {
                self.selected = (self.selected + 1).min(CHOICES.len() - 1);
                None
            }
            KeyCode::Up => {
                self.scroll_by(-1);
                None
            }
            KeyCode::Down => {
                self.scroll_by(1);
                None
            }
            KeyCode::PageUp => {
                self.scroll_by(-10);
                None
            }
            KeyCode::PageDown => {
                self.scroll_by(10);
                None
            }
            _ => None,
        }
    }

    /// Pasted text goes into the reason input when it is open.
    pub fn paste(&mut self, text: &str) {
        if let Some(r) = self.reason.as_mut() {
            r.paste(text);
        }
    }
}
