//! What a chat remembers of its approvals, and the mode they belong to (issue 36.7).
//!
//! - [`SharedMode`]: the approval mode, shared between the engine and whoever switches it, with
//!   a count of its changes, so the engine can tell that the mode changed — and maybe changed
//!   back — while it waited for the judge, the user or a command.
//! - [`Approvals`]: "Always accept" memory and the judge's safe verdicts. Everything in it was
//!   given in one mode and applies in that mode alone: remembering in another mode starts
//!   afresh, and a recall in another mode finds nothing. A judge's verdict applies in auto
//!   only. Strict remembers nothing (the decision never asks memory there).
//!
//! Pure data; the decision that reads it is [`super::decide_on`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::events::Mode;

/// The mode, shared between the engine and whoever switches it (the TUI's `/mode`, `/auto`),
/// so a switch applies to the very next decision, even in the middle of a batch. It counts
/// its changes ([`SharedMode::epoch`]): what was remembered before a change is forgotten, even
/// when the mode is switched back before the engine looks.
#[derive(Debug, Clone)]
pub struct SharedMode(Arc<AtomicU64>);

impl Default for SharedMode {
    fn default() -> Self {
        Self::new(Mode::default())
    }
}

fn index(mode: Mode) -> u64 {
    Mode::ALL.iter().position(|m| *m == mode).unwrap_or(2) as u64
}

fn unpack(v: u64) -> (Mode, u64) {
    let mode = Mode::ALL
        .get((v & 0xff) as usize)
        .copied()
        .unwrap_or_default();
    (mode, v >> 8)
}

impl SharedMode {
    pub fn new(mode: Mode) -> Self {
        Self(Arc::new(AtomicU64::new(index(mode))))
    }

    pub fn get(&self) -> Mode {
        self.snapshot().0
    }

    /// How many times the mode has changed.
    pub fn epoch(&self) -> u64 {
        self.snapshot().1
    }

    /// The mode and its [`SharedMode::epoch`], read together.
    pub fn snapshot(&self) -> (Mode, u64) {
        unpack(self.0.load(Ordering::SeqCst))
    }

    /// Switches to `mode`; setting the mode in force changes nothing (and counts nothing).
    pub fn set(&self, mode: Mode) {
        let i = index(mode);
        let _ = self
            .0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |v| {
                (v & 0xff != i).then(|| ((v >> 8) + 1) << 8 | i)
            });
    }
}

impl From<Mode> for SharedMode {
    fn from(m: Mode) -> Self {
        Self::new(m)
    }
}

/// Who let a remembered call run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum By {
    /// The user's "Always accept".
    User,
    /// The judge's safe verdict (auto mode).
    Judge,
}

/// "Always accept" memory for one chat, in one mode: whole tools, and single calls by their
/// [`super::call_key`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Approvals {
    /// The mode everything here was given in (`None`: nothing was remembered through
    /// [`Approvals::remember`], as in tests that fill it with [`Approvals::always`]).
    given_in: Option<Mode>,
    tools: BTreeSet<String>,
    commands: BTreeMap<(String, String), By>,
}

impl Approvals {
    /// Who remembered the call with `key` ([`super::call_key`]) for `mode`: the exact call,
    /// or — when the tool is not remembered per call — the whole tool. Nothing given in
    /// another mode applies, and a judge's verdict applies in auto only.
    pub fn recall(
        &self,
        mode: Mode,
        tool: &str,
        key: &str,
        require_cmd_approval: bool,
    ) -> Option<By> {
        if self.given_in.is_some_and(|m| m != mode) {
            return None;
        }
        let by = self.lookup(tool, key, require_cmd_approval)?;
        (by == By::User || mode == Mode::Auto).then_some(by)
    }

    fn lookup(&self, tool: &str, key: &str, require_cmd_approval: bool) -> Option<By> {
        if let Some(by) = self.commands.get(&(tool.to_owned(), key.to_owned())) {
            return Some(*by);
        }
        (!require_cmd_approval && self.tools.contains(tool)).then_some(By::User)
    }

    /// Whether the call with `key` was remembered, whatever the mode.
    pub fn is_approved(&self, tool: &str, key: &str, require_cmd_approval: bool) -> bool {
        self.lookup(tool, key, require_cmd_approval).is_some()
    }

    /// Remembers for `mode`, by `by`: the call's exact `key` when `by_command`, else the whole
    /// tool. What was remembered in another mode is forgotten first.
    pub fn remember(&mut self, mode: Mode, by: By, tool: &str, key: &str, by_command: bool) {
        if self.given_in.is_some_and(|m| m != mode) {
            self.clear();
        }
        self.given_in = Some(mode);
        if by_command {
            self.commands.insert((tool.to_owned(), key.to_owned()), by);
        } else {
            self.tools.insert(tool.to_owned());
        }
    }

    /// The user's "Always accept", in no mode in particular (tests).
    pub fn always(&mut self, tool: &str, key: &str, require_cmd_approval: bool) {
        if require_cmd_approval {
            self.commands
                .insert((tool.to_owned(), key.to_owned()), By::User);
        } else {
            self.tools.insert(tool.to_owned());
        }
    }

    /// The mode what is remembered was given in.
    pub fn given_in(&self) -> Option<Mode> {
        self.given_in
    }

    /// What of this memory a chat in `mode` keeps: all of it when it was given in `mode` (or
    /// in no mode), else nothing.
    pub fn in_mode(self, mode: Mode) -> Self {
        match self.given_in {
            Some(m) if m != mode => Self::default(),
            _ => self,
        }
    }

    /// What is remembered, for `/approvals`: whole tools, then (tool, command) pairs.
    pub fn list(&self) -> (Vec<&str>, Vec<(&str, &str)>) {
        (
            self.tools.iter().map(String::as_str).collect(),
            self.commands
                .keys()
                .map(|(t, c)| (t.as_str(), c.as_str()))
                .collect(),
        )
    }

    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Mode::{Auto, Balanced, Suggest, Trust};

    #[test]
    fn the_shared_mode_counts_changes_not_repeats() {
        let m = SharedMode::new(Balanced);
        assert_eq!(m.snapshot(), (Balanced, 0));
        m.set(Balanced);
        assert_eq!(m.epoch(), 0, "the same mode is no change");
        m.set(Auto);
        m.set(Balanced);
        assert_eq!(m.snapshot(), (Balanced, 2), "there and back is two changes");
        for mode in Mode::ALL {
            m.set(mode);
            assert_eq!(m.get(), mode);
        }
    }

    /// Each row: what was remembered (mode, by), and in which modes it is recalled.
    #[test]
    fn memory_applies_in_the_mode_it_was_given_in_and_a_verdict_in_auto_only() {
        #[rustfmt::skip]
        let rows: &[(&str, Mode, By, &[Mode])] = &[
            ("Always accept in balanced", Balanced, By::User, &[Balanced]),
            ("Always accept in auto", Auto, By::User, &[Auto]),
            ("Always accept in suggest", Suggest, By::User, &[Suggest]),
            ("Always accept in trust", Trust, By::User, &[Trust]),
            ("the judge's verdict in auto", Auto, By::Judge, &[Auto]),
            ("a verdict recorded in balanced is never recalled", Balanced, By::Judge, &[]),
        ];
        for (name, given, by, recalled) in rows {
            let mut a = Approvals::default();
            a.remember(*given, *by, "run_command", "make", true);
            for mode in Mode::ALL {
                let want = recalled.contains(&mode).then_some(*by);
                assert_eq!(
                    a.recall(mode, "run_command", "make", true),
                    want,
                    "{name}, in {mode:?}"
                );
            }
            assert_eq!(
                a.recall(*given, "run_command", "make x", true),
                None,
                "{name}: exact only"
            );
        }
    }

    #[test]
    fn remembering_in_another_mode_forgets_the_first() {
        let mut a = Approvals::default();
        a.remember(Auto, By::Judge, "run_command", "make", true);
        a.remember(Balanced, By::User, "create_file", "", false);
        assert_eq!(a.recall(Auto, "run_command", "make", true), None);
        assert!(!a.is_approved("run_command", "make", true));
        assert_eq!(
            a.recall(Balanced, "create_file", "x", false),
            Some(By::User)
        );
        assert_eq!(a.clone().in_mode(Balanced), a);
        assert_eq!(a.in_mode(Auto), Approvals::default());
    }

    #[test]
    fn an_exact_call_is_recalled_whatever_the_tool_remembers_by() {
        let mut a = Approvals::default();
        a.remember(Auto, By::Judge, "beads", "bd ready", true);
        assert_eq!(a.recall(Auto, "beads", "bd ready", false), Some(By::Judge));
        assert_eq!(a.recall(Auto, "beads", "bd show 1", false), None);
    }
}
