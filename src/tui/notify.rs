//! Telling the user that a long turn ended while they were in another window: the terminal
//! bell, and a desktop notification where the terminal shows one — OSC 9 (iTerm2, WezTerm),
//! OSC 777 (ghostty, foot, urxvt, VTE terminals such as GNOME Terminal) or OSC 99 (kitty).
//!
//! `ui.notify = "auto"` (the default) rings the bell and adds the escape sequence the terminal
//! is known to understand, recognised from `TERM_PROGRAM`, `TERM`, `KITTY_WINDOW_ID` and
//! `VTE_VERSION`. Inside tmux or screen only the bell is sent: the multiplexer swallows the
//! sequences (and passes the bell on). `bell`, `osc9`, `osc777` and `osc99` choose one way
//! whatever the terminal; `off` says nothing. Whether the terminal is focused, and how long a
//! turn must have taken, is the app's business (`app/activity.rs`); this module only makes
//! the bytes.

/// A desktop notification's escape sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Osc {
    /// `ESC ] 9 ; text BEL`
    Nine,
    /// `ESC ] 777 ; notify ; title ; text BEL`
    SevenSevenSeven,
    /// `ESC ] 99 ; ; text ESC \`
    NinetyNine,
}

/// How a notification is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Notifier {
    pub bell: bool,
    pub osc: Option<Osc>,
}

impl Notifier {
    /// The notifier `setting` (a `ui.notify` value) asks for, in the terminal `env` describes.
    pub fn choose(setting: &str, env: impl Fn(&str) -> Option<String>) -> Self {
        let only = |osc| Self {
            bell: false,
            osc: Some(osc),
        };
        match setting {
            "off" => Self::default(),
            "bell" => Self {
                bell: true,
                osc: None,
            },
            "osc9" => only(Osc::Nine),
            "osc777" => only(Osc::SevenSevenSeven),
            "osc99" => only(Osc::NinetyNine),
            _ => Self {
                bell: true,
                osc: detect(&env),
            },
        }
    }

    /// Whether it says anything at all.
    pub fn enabled(&self) -> bool {
        self.bell || self.osc.is_some()
    }

    /// What to write to the terminal to say `text` (control characters are dropped from it).
    pub fn bytes(&self, text: &str) -> Vec<u8> {
        let text: String = text.chars().filter(|c| !c.is_control()).collect();
        let mut out = Vec::new();
        match self.osc {
            Some(Osc::Nine) => out.extend(format!("\x1b]9;{text}\x07").bytes()),
            Some(Osc::SevenSevenSeven) => {
                out.extend(format!("\x1b]777;notify;sayso;{text}\x07").bytes())
            }
            Some(Osc::NinetyNine) => out.extend(format!("\x1b]99;;{text}\x1b\\").bytes()),
            None => {}
        }
        if self.bell {
            out.push(0x07);
        }
        out
    }
}

/// The desktop notification this terminal understands, if it is known to.
fn detect(env: &impl Fn(&str) -> Option<String>) -> Option<Osc> {
    let var = |k: &str| env(k).filter(|v| !v.is_empty());
    let term = var("TERM").unwrap_or_default();
    let program = var("TERM_PROGRAM").unwrap_or_default();
    if var("TMUX").is_some()
        || program == "tmux"
        || term.starts_with("screen")
        || term.starts_with("tmux")
    {
        return None;
    }
    match program.as_str() {
        "iTerm.app" | "WezTerm" => return Some(Osc::Nine),
        "ghostty" => return Some(Osc::SevenSevenSeven),
        _ => {}
    }
    if term == "xterm-kitty" || var("KITTY_WINDOW_ID").is_some() {
        return Some(Osc::NinetyNine);
    }
    if term.starts_with("foot") || term.starts_with("rxvt-unicode") || term == "xterm-ghostty" {
        return Some(Osc::SevenSevenSeven);
    }
    // VTE ignores an OSC 777 it does not know from 0.46 on; distributions that patch it in
    // show the notification.
    if var("VTE_VERSION").and_then(|v| v.parse::<u32>().ok()) >= Some(4600) {
        return Some(Osc::SevenSevenSeven);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn auto_rings_the_bell_and_adds_what_the_terminal_understands() {
        let auto = |vars| Notifier::choose("auto", with(vars)).osc;
        assert_eq!(auto(&[("TERM", "xterm-256color")]), None);
        assert_eq!(auto(&[("TERM_PROGRAM", "iTerm.app")]), Some(Osc::Nine));
        assert_eq!(auto(&[("TERM_PROGRAM", "WezTerm")]), Some(Osc::Nine));
        assert_eq!(
            auto(&[("TERM_PROGRAM", "ghostty")]),
            Some(Osc::SevenSevenSeven)
        );
        assert_eq!(auto(&[("TERM", "xterm-kitty")]), Some(Osc::NinetyNine));
        assert_eq!(auto(&[("TERM", "foot")]), Some(Osc::SevenSevenSeven));
        assert_eq!(auto(&[("VTE_VERSION", "7201")]), Some(Osc::SevenSevenSeven));
        assert_eq!(auto(&[("VTE_VERSION", "3405")]), None);
        // A multiplexer eats the sequence whatever terminal it runs in.
        assert_eq!(
            auto(&[
                ("TERM_PROGRAM", "iTerm.app"),
                ("TMUX", "/tmp/tmux-1/default,1,0")
            ]),
            None
        );
        assert_eq!(
            auto(&[("TERM", "screen-256color"), ("KITTY_WINDOW_ID", "1")]),
            None
        );
        assert!(Notifier::choose("auto", with(&[])).bell);
    }

    #[test]
    fn the_setting_chooses_one_way_or_none() {
        let kitty = [("TERM", "xterm-kitty")];
        let n = Notifier::choose("osc9", with(&kitty));
        assert_eq!(n.bytes("done\x1b[31m"), b"\x1b]9;done[31m\x07");
        let n = Notifier::choose("osc777", with(&kitty));
        assert_eq!(n.bytes("done"), b"\x1b]777;notify;sayso;done\x07");
        let n = Notifier::choose("osc99", with(&[]));
        assert_eq!(n.bytes("done"), b"\x1b]99;;done\x1b\\");
        assert_eq!(
            Notifier::choose("bell", with(&kitty)).bytes("done"),
            b"\x07"
        );
        let off = Notifier::choose("off", with(&kitty));
        assert!(!off.enabled());
        assert!(off.bytes("done").is_empty());
        assert_eq!(
            Notifier::choose("auto", with(&[("TERM_PROGRAM", "WezTerm")])).bytes("done"),
            b"\x1b]9;done\x07\x07"
        );
    }
}
