//! The key-hint footer, which follows what the keys do right now.
//!
//! When the hints are wider than the terminal, whole hints give way, least useful first, in the
//! order of their set's give-way list ([`Footer::give_way`]); a hint is never cut in the middle, and the
//! ones left keep their places. What stays longest: `/help` when idle, Esc while a turn runs,
//! cancelling in the approval modal, Enter in the reason input and in the save-rule prompt. The notice that keys are being
//! swallowed comes first and stays. Which hints fit is a pure function ([`fit`]), tested
//! without a terminal.

use crate::tui::screen::Canvas;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::tui::app::App;
use crate::tui::strings;

/// Between two hints.
const GAP: &str = "  ";

type Hints = &'static [(&'static str, &'static str)];

/// Which set of hints the footer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Footer {
    Idle,
    Busy,
    Menu,
    /// The `@` file picker.
    Files,
    Modal,
    Reason,
    SaveRule,
    Form,
}

impl Footer {
    pub const ALL: [Footer; 8] = [
        Footer::Idle,
        Footer::Busy,
        Footer::Menu,
        Footer::Files,
        Footer::Modal,
        Footer::Reason,
        Footer::SaveRule,
        Footer::Form,
    ];

    /// The set for what the keys do now.
    fn of(app: &App) -> Self {
        match app.modal() {
            Some(m) if m.reason.is_some() => Footer::Reason,
            Some(m) if m.saving.is_some() => Footer::SaveRule,
            Some(_) => Footer::Modal,
            None if app.form().is_some() => Footer::Form,
            None if app.input().file_menu().is_some() => Footer::Files,
            None if app.input().menu_open() => Footer::Menu,
            None if app.busy() => Footer::Busy,
            None => Footer::Idle,
        }
    }

    pub fn hints(self) -> Hints {
        match self {
            Footer::Idle => strings::FOOTER_IDLE,
            Footer::Busy => strings::FOOTER_BUSY,
            Footer::Menu => strings::FOOTER_MENU,
            Footer::Files => strings::FOOTER_FILES,
            Footer::Modal => strings::FOOTER_MODAL,
            Footer::Reason => strings::FOOTER_REASON,
            Footer::SaveRule => strings::FOOTER_SAVE_RULE,
            Footer::Form => strings::FOOTER_FORM,
        }
    }

    /// The keys of [`Self::hints`] in the order their hints give way, first to last: the least
    /// useful first (what another part of the screen already says, or what a user finds
    /// without help).
    pub fn give_way(self) -> &'static [&'static str] {
        match self {
            Footer::Idle => &["Tab", "PgUp/PgDn", "Enter", "Alt+Enter", "Ctrl+D", "/help"],
            Footer::Busy => &["End", "PgUp/PgDn", "Esc"],
            Footer::Menu => &["Esc", "↑/↓", "Enter", "Tab"],
            Footer::Files => &["Esc", "↑/↓", "Tab/Enter"],
            // The modal shows its choice keys itself; only the footer tells Esc and scrolling.
            Footer::Modal => &["←/→ Enter", "a", "y", "r", "↑/↓", "c/Esc"],
            // The dialog says both; Enter is the one that answers.
            Footer::Reason => &["Esc", "Enter"],
            // The prompt says the same; saving is what it is for.
            Footer::SaveRule => &["↑/↓", "Esc", "Enter/number"],
            Footer::Form => &["Ctrl+C", "Esc", "Enter"],
        }
    }
}

fn hint_width((key, what): (&str, &str)) -> usize {
    key.width() + 1 + what.width()
}

/// Which hints of `footer` (their indices, in order) fit in `width` columns after `lead`
/// columns of notice: whole hints leave in [`Footer::give_way`] order (a hint it does not
/// name, from the end, last) until the rest fits; none may be left.
pub fn fit(footer: Footer, lead: usize, width: usize) -> Vec<usize> {
    let hints = footer.hints();
    let mut kept: Vec<usize> = (0..hints.len()).collect();
    let mut order: Vec<usize> = footer
        .give_way()
        .iter()
        .filter_map(|k| hints.iter().position(|(key, _)| key == k))
        .collect();
    let unnamed: Vec<usize> = (0..hints.len())
        .rev()
        .filter(|i| !order.contains(i))
        .collect();
    order.extend(unnamed);
    let used = |kept: &[usize]| -> usize {
        let gaps = (kept.len() + usize::from(lead > 0)).saturating_sub(1);
        lead + kept.iter().map(|&i| hint_width(hints[i])).sum::<usize>() + gaps * GAP.len()
    };
    for i in order {
        if used(&kept) <= width {
            break;
        }
        kept.retain(|&k| k != i);
    }
    kept
}

pub fn draw(f: &mut Canvas, area: Rect, app: &App) {
    let footer = Footer::of(app);
    let hints = footer.hints();
    let t = app.theme();
    let mut spans = Vec::new();
    let mut lead = 0;
    if app.modal().is_some_and(|m| m.keys_ignored()) {
        spans.push(Span::styled(strings::KEYS_IGNORED, t.notice));
        lead = strings::KEYS_IGNORED.width();
    }
    for i in fit(footer, lead, usize::from(area.width)) {
        if !spans.is_empty() {
            spans.push(Span::styled(GAP, t.footer));
        }
        let (key, what) = hints[i];
        spans.push(Span::styled(key, t.footer_key));
        spans.push(Span::styled(format!(" {what}"), t.footer));
    }
    f.render_line(Line::from(spans), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(footer: Footer, kept: &[usize]) -> Vec<&'static str> {
        kept.iter().map(|&i| footer.hints()[i].0).collect()
    }

    fn line_width(footer: Footer, kept: &[usize]) -> usize {
        let w: usize = kept.iter().map(|&i| hint_width(footer.hints()[i])).sum();
        w + kept.len().saturating_sub(1) * GAP.len()
    }

    #[test]
    fn every_set_orders_each_of_its_hints_exactly_once() {
        for footer in Footer::ALL {
            let mut order = footer.give_way().to_vec();
            let mut all: Vec<&str> = footer.hints().iter().map(|(k, _)| *k).collect();
            order.sort();
            all.sort();
            assert_eq!(order, all, "{footer:?}");
        }
    }

    #[test]
    fn a_wide_footer_shows_every_hint() {
        for footer in Footer::ALL {
            let all: Vec<usize> = (0..footer.hints().len()).collect();
            assert_eq!(fit(footer, 0, 200), all, "{footer:?}");
        }
    }

    #[test]
    fn idle_hints_give_way_least_useful_first_and_keep_their_places() {
        let f = Footer::Idle;
        let all = line_width(f, &(0..f.hints().len()).collect::<Vec<_>>());
        let mut seen = Vec::new();
        for width in (0..=all).rev() {
            let kept = fit(f, 0, width);
            assert!(line_width(f, &kept) <= width, "{width}: {kept:?}");
            assert!(kept.windows(2).all(|w| w[0] < w[1]), "in place: {kept:?}");
            if seen.last() != Some(&kept) {
                seen.push(kept);
            }
        }
        let steps: Vec<Vec<&str>> = seen.iter().map(|k| keys(f, k)).collect();
        assert_eq!(
            steps,
            [
                vec!["Enter", "Alt+Enter", "PgUp/PgDn", "Tab", "/help", "Ctrl+D"],
                vec!["Enter", "Alt+Enter", "PgUp/PgDn", "/help", "Ctrl+D"],
                vec!["Enter", "Alt+Enter", "/help", "Ctrl+D"],
                vec!["Alt+Enter", "/help", "Ctrl+D"],
                vec!["/help", "Ctrl+D"],
                vec!["/help"],
                vec![],
            ]
        );
    }

    #[test]
    fn at_fifty_columns_each_set_keeps_its_most_useful_hints_whole() {
        let cases: [(Footer, &[&str]); 7] = [
            (Footer::Idle, &["Alt+Enter", "/help", "Ctrl+D"]),
            (Footer::Busy, &["Esc", "PgUp/PgDn", "End"]),
            (Footer::Menu, &["↑/↓", "Tab", "Enter", "Esc"]),
            (Footer::Modal, &["y", "r", "c/Esc", "↑/↓"]),
            (Footer::Reason, &["Enter", "Esc"]),
            (Footer::SaveRule, &["Enter/number", "↑/↓", "Esc"]),
            (Footer::Form, &["Enter", "Esc"]),
        ];
        for (footer, want) in cases {
            assert_eq!(keys(footer, &fit(footer, 0, 50)), want, "{footer:?}");
        }
    }

    #[test]
    fn the_swallowed_keys_notice_takes_its_room_first() {
        let f = Footer::Modal;
        let lead = strings::KEYS_IGNORED.width();
        let kept = fit(f, lead, 50);
        assert_eq!(keys(f, &kept), ["c/Esc", "↑/↓"]);
        assert!(lead + GAP.len() + line_width(f, &kept) <= 50);
        assert!(fit(f, lead, lead).is_empty());
    }
}
