//! The `/` popup's state: which commands match what is typed, which one is highlighted, and
//! whether Esc closed it. The input box owns it; the widget (`widgets::command_menu`) draws it.
//!
//! The popup is open while the input is one word that can be a command name — it starts with
//! `/`, has no whitespace, no second `/` and no `.` (those are paths: see
//! `app::commands::line`) — at least one command starts with it, and Esc has not closed it since
//! the last edit. Matches come in the command table's order (the built-ins, then the commands
//! from files), an exact match first.

use crate::tui::app::{SlashCommand, all_commands};

#[derive(Debug, Default)]
pub struct CommandMenu {
    /// Index into the current matches.
    selected: usize,
    /// Esc closed it; the next edit opens it again.
    dismissed: bool,
}

/// What the popup shows.
pub struct MenuView {
    pub items: Vec<&'static SlashCommand>,
    pub selected: usize,
}

impl CommandMenu {
    /// The text changed: the highlight goes back to the first match, and the popup may open.
    pub fn edited(&mut self) {
        self.selected = 0;
        self.dismissed = false;
    }

    pub fn dismiss(&mut self) {
        self.dismissed = true;
    }

    /// The popup for `text`, if it is open.
    pub fn view(&self, text: &str, extra: &[&'static SlashCommand]) -> Option<MenuView> {
        if self.dismissed {
            return None;
        }
        let items = matches(text, extra)?;
        Some(MenuView {
            selected: self.selected.min(items.len() - 1),
            items,
        })
    }

    /// Up (`back`) or Down, wrapping around; `count` is how many match.
    pub fn step(&mut self, back: bool, count: usize) {
        if count == 0 {
            return;
        }
        let at = self.selected.min(count - 1);
        self.selected = if back {
            (at + count - 1) % count
        } else {
            (at + 1) % count
        };
    }
}

/// The commands `text` can still become, or `None` when it cannot be a command name.
pub fn matches(text: &str, extra: &[&'static SlashCommand]) -> Option<Vec<&'static SlashCommand>> {
    let rest = text.strip_prefix('/')?;
    if rest.contains(['/', '.']) || rest.contains(char::is_whitespace) {
        return None;
    }
    let mut items: Vec<&'static SlashCommand> = all_commands(extra)
        .filter(|c| c.name.starts_with(text))
        .collect();
    if let Some(i) = items.iter().position(|c| c.name == text) {
        let exact = items.remove(i);
        items.insert(0, exact);
    }
    (!items.is_empty()).then_some(items)
}

/// Whether Enter runs `c` straight away: it takes no argument, or only optional ones (`[N]`).
/// A command whose argument is required is completed instead, for the argument to be typed.
pub fn runs_bare(c: &SlashCommand) -> bool {
    c.args.is_empty() || c.args.starts_with('[')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Option<Vec<&'static str>> {
        matches(text, &[]).map(|v| v.into_iter().map(|c| c.name).collect())
    }

    #[test]
    fn the_popup_matches_command_names_and_never_paths_or_sentences() {
        let count = crate::tui::app::COMMANDS.len();
        assert_eq!(names("/").map(|n| n.len()), Some(count));
        assert_eq!(names("/mo"), Some(vec!["/model", "/mode"]));
        assert_eq!(
            names("/mode"),
            Some(vec!["/mode", "/model"]),
            "the exact match first"
        );
        assert_eq!(names("/res"), Some(vec!["/resume"]));
        for not_a_name in ["/frob", "/tmp/x", "/a.txt", "/model gpt", "//mo", "mo", ""] {
            assert_eq!(names(not_a_name), None, "{not_a_name:?}");
        }
    }

    #[test]
    fn up_and_down_wrap_and_an_edit_reopens_a_dismissed_popup() {
        let mut m = CommandMenu::default();
        m.step(true, 3);
        assert_eq!(
            m.view("/", &[]).unwrap().selected,
            2,
            "Up from the first wraps"
        );
        m.step(false, 3);
        assert_eq!(m.view("/", &[]).unwrap().selected, 0);
        m.step(false, 3);
        m.dismiss();
        assert!(m.view("/", &[]).is_none());
        m.edited();
        let v = m.view("/mo", &[]).unwrap();
        assert_eq!(v.selected, 0, "an edit highlights the first match again");
    }
}
