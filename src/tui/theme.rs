//! Colours and text styles, in one place. Only named ANSI colours (and modifiers) are used, so
//! the terminal's own palette decides the exact shade and both light and dark terminals read
//! well; `light` only swaps the few colours that vanish on a white background.
//!
//! `NO_COLOR` (set to anything but the empty string, <https://no-color.org>) turns colour off:
//! [`Theme::without_colour`] keeps bold, reverse, italics and underlines (the selection, the
//! modal's choices and the mode stay visible; what only a background marked is reversed), and
//! [`strip_colours`] clears every cell's colours from a drawn frame, so nothing else —
//! highlighted code included — can bring colour back.

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub text: Style,
    pub dim: Style,
    pub heading: Style,
    pub emphasis: Style,
    pub strong: Style,
    pub strike: Style,
    pub code_inline: Style,
    pub code_block: Style,
    pub code_fence: Style,
    pub link: Style,
    pub quote: Style,
    pub list_marker: Style,
    pub table_border: Style,
    pub table_header: Style,
    pub rule: Style,
    pub user_label: Style,
    pub user_text: Style,
    pub assistant_label: Style,
    pub reasoning: Style,
    pub tool_name: Style,
    pub tool_ok: Style,
    pub tool_err: Style,
    pub tool_running: Style,
    pub tool_waiting: Style,
    pub error: Style,
    pub notice: Style,
    pub status_bar: Style,
    pub mode_normal: Style,
    pub mode_auto: Style,
    pub footer: Style,
    pub footer_key: Style,
    pub diff_add: Style,
    pub diff_del: Style,
    pub diff_hunk: Style,
    pub diff_header: Style,
    pub modal_border: Style,
    pub modal_title: Style,
    pub choice: Style,
    pub choice_selected: Style,
    pub marker: Style,
    /// The block Tab selected.
    pub selected: Style,
    /// Colours are drawn (`false` under `NO_COLOR`: frames go through [`strip_colours`]).
    pub colour: bool,
}

impl Theme {
    pub fn dark() -> Self {
        let s = Style::default;
        Self {
            text: s(),
            dim: s().fg(Color::DarkGray),
            heading: s().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            emphasis: s().add_modifier(Modifier::ITALIC),
            strong: s().add_modifier(Modifier::BOLD),
            strike: s().add_modifier(Modifier::CROSSED_OUT),
            code_inline: s().fg(Color::Yellow),
            code_block: s(),
            code_fence: s().fg(Color::DarkGray),
            link: s().fg(Color::Blue).add_modifier(Modifier::UNDERLINED),
            quote: s().fg(Color::Green),
            list_marker: s().fg(Color::Cyan),
            table_border: s().fg(Color::DarkGray),
            table_header: s().add_modifier(Modifier::BOLD),
            rule: s().fg(Color::DarkGray),
            user_label: s().fg(Color::Magenta).add_modifier(Modifier::BOLD),
            user_text: s(),
            assistant_label: s().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            reasoning: s().fg(Color::DarkGray).add_modifier(Modifier::ITALIC),
            tool_name: s().add_modifier(Modifier::BOLD),
            tool_ok: s().fg(Color::Green),
            tool_err: s().fg(Color::Red),
            tool_running: s().fg(Color::Yellow),
            tool_waiting: s().fg(Color::Magenta),
            error: s().fg(Color::Red).add_modifier(Modifier::BOLD),
            notice: s().fg(Color::Yellow),
            status_bar: s().add_modifier(Modifier::REVERSED),
            mode_normal: s().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            mode_auto: s()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
            footer: s().fg(Color::DarkGray),
            footer_key: s().add_modifier(Modifier::BOLD),
            diff_add: s().fg(Color::Green),
            diff_del: s().fg(Color::Red),
            diff_hunk: s().fg(Color::Cyan),
            diff_header: s().add_modifier(Modifier::BOLD),
            modal_border: s().fg(Color::Yellow),
            modal_title: s().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            choice: s(),
            choice_selected: s().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            marker: s().fg(Color::Black).bg(Color::Cyan),
            selected: s().add_modifier(Modifier::REVERSED),
            colour: true,
        }
    }

    pub fn light() -> Self {
        let s = Style::default;
        Self {
            dim: s().fg(Color::Gray),
            code_inline: s().fg(Color::Magenta),
            reasoning: s().fg(Color::Gray).add_modifier(Modifier::ITALIC),
            footer: s().fg(Color::Gray),
            code_fence: s().fg(Color::Gray),
            table_border: s().fg(Color::Gray),
            rule: s().fg(Color::Gray),
            heading: s().fg(Color::Blue).add_modifier(Modifier::BOLD),
            modal_border: s().fg(Color::Magenta),
            modal_title: s().fg(Color::Magenta).add_modifier(Modifier::BOLD),
            ..Self::dark()
        }
    }

    /// `auto` | `dark` | `light`; `auto` reads `COLORFGBG` (set by many terminals) and
    /// defaults to dark.
    pub fn named(name: &str, colorfgbg: Option<&str>) -> Self {
        match name {
            "light" => Self::light(),
            "dark" => Self::dark(),
            _ => {
                let bg = colorfgbg.and_then(|v| v.rsplit(';').next()?.parse::<u8>().ok());
                match bg {
                    Some(7) | Some(15) => Self::light(),
                    _ => Self::dark(),
                }
            }
        }
    }
}

impl Theme {
    /// `ui.theme` as the terminal's environment refines it: `COLORFGBG` picks light or dark
    /// for `auto`, `NO_COLOR` (non-empty) turns colour off.
    pub fn from_env(name: &str, env: impl Fn(&str) -> Option<String>) -> Self {
        let theme = Self::named(name, env("COLORFGBG").as_deref());
        if env("NO_COLOR").is_some_and(|v| !v.is_empty()) {
            theme.without_colour()
        } else {
            theme
        }
    }

    /// This theme without colours: what a background alone marked is reversed instead, what
    /// grey marked is faint.
    pub fn without_colour(self) -> Self {
        let s = Style::default;
        let faint = s().add_modifier(Modifier::DIM);
        Self {
            mode_auto: s().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            marker: s().add_modifier(Modifier::REVERSED),
            dim: faint,
            footer: faint,
            code_fence: faint,
            rule: faint,
            table_border: faint,
            reasoning: faint.add_modifier(Modifier::ITALIC),
            colour: false,
            ..self
        }
    }
}

/// Clears the colours (foreground, background, underline) of every cell of `buf`; the text
/// attributes stay.
pub fn strip_colours(buf: &mut Buffer) {
    for cell in buf.content.iter_mut() {
        cell.fg = Color::Reset;
        cell.bg = Color::Reset;
        cell.underline_color = Color::Reset;
    }
}

impl Default for Theme {
    fn default() -> Self {
        Self::dark()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_with_a_value_turns_colour_off_and_empty_does_not() {
        let env =
            |no_color: &'static str| move |k: &str| (k == "NO_COLOR").then(|| no_color.to_owned());
        assert!(!Theme::from_env("auto", env("1")).colour);
        assert!(Theme::from_env("auto", env("")).colour);
        let plain = Theme::from_env("dark", env("yes"));
        assert_eq!(
            plain.marker,
            Style::default().add_modifier(Modifier::REVERSED)
        );
        assert!(
            plain
                .choice_selected
                .add_modifier
                .contains(Modifier::REVERSED)
        );
    }

    #[test]
    fn stripping_keeps_the_attributes_and_drops_every_colour() {
        let mut buf = Buffer::empty(ratatui::layout::Rect::new(0, 0, 3, 1));
        buf.set_string(
            0,
            0,
            "abc",
            Style::default()
                .fg(Color::Red)
                .bg(Color::Rgb(1, 2, 3))
                .add_modifier(Modifier::BOLD),
        );
        strip_colours(&mut buf);
        for cell in &buf.content {
            assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset));
            assert!(cell.modifier.contains(Modifier::BOLD));
        }
    }
}
