//! What a submitted line is: a slash command, a message for the model, or a mistake to point
//! out (the input is then kept, never cleared).
//!
//! The rule, in order; only the first word counts, leading whitespace aside:
//! 1. It does not start with `/`: a message.
//! 2. It starts with `//`: a message without that first `/` (`//etc/hosts?` sends
//!    `/etc/hosts?`).
//! 3. The first word holds another `/` or a `.`: a path, so the line is a message as typed
//!    (`/tmp/proj/build.log explain this`).
//! 4. The first word is a command's name (or `/exit`): that command; the rest is its argument.
//! 5. It begins exactly one command's name: that command (`/he` runs `/help`).
//! 6. It begins several: ambiguous; the candidates are named.
//! 7. It names a file or directory that exists (`/tmp is full, why?`): a message.
//! 8. Otherwise: an unknown command.
//!
//! Whether a path exists is asked through `exists`, so the rule stays a plain function. The
//! names are the built-ins' and then `extra`'s (the commands from files, none a built-in's).

use super::{SlashCommand, all};

pub enum Line<'a> {
    Command {
        command: &'static SlashCommand,
        arg: &'a str,
    },
    /// Send this to the model.
    Message(String),
    /// The names this prefix begins.
    Ambiguous {
        typed: &'a str,
        names: Vec<&'static str>,
    },
    Unknown(&'a str),
}

pub fn parse<'a>(
    text: &'a str,
    extra: &[&'static SlashCommand],
    exists: impl Fn(&str) -> bool,
) -> Line<'a> {
    let trimmed = text.trim();
    if !trimmed.starts_with('/') {
        return Line::Message(text.to_owned());
    }
    if trimmed.starts_with("//") {
        let at = text.len() - text.trim_start().len();
        return Line::Message(format!("{}{}", &text[..at], &text[at + 1..]));
    }
    let mut parts = trimmed.splitn(2, char::is_whitespace);
    let word = parts.next().unwrap_or_default();
    let arg = parts.next().map(str::trim).unwrap_or_default();
    if word[1..].contains(['/', '.']) {
        return Line::Message(text.to_owned());
    }
    let name = if word == "/exit" { "/quit" } else { word };
    if let Some(command) = all(extra).find(|c| c.name == name) {
        return Line::Command { command, arg };
    }
    let begun: Vec<&'static SlashCommand> = if word.len() > 1 {
        all(extra).filter(|c| c.name.starts_with(word)).collect()
    } else {
        Vec::new()
    };
    match begun.as_slice() {
        [command] => Line::Command { command, arg },
        [_, _, ..] => Line::Ambiguous {
            typed: word,
            names: begun.iter().map(|c| c.name).collect(),
        },
        [] if word.len() > 1 && exists(word) => Line::Message(text.to_owned()),
        [] => Line::Unknown(word),
    }
}

/// The one-line error for a line that is neither a command nor a message.
pub fn mistake(line: &Line) -> Option<String> {
    match line {
        Line::Unknown("/") => Some(
            "a command name goes after / (/help lists them); // sends a message that starts with /"
                .into(),
        ),
        Line::Unknown(name) => Some(format!(
            "unknown command {name} — /help lists them; //{} sends it as a message",
            &name[1..]
        )),
        Line::Ambiguous { typed, names } => Some(format!(
            "{typed} could be {} — type more of it",
            names.join(", ")
        )),
        Line::Command { .. } | Line::Message(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `text` is, in a word: `cmd NAME ARG`, `msg TEXT`, `ambiguous A B`, `unknown NAME`.
    fn kind(text: &str) -> String {
        match parse(text, &[], |p| p == "/tmp") {
            Line::Command { command, arg } => format!("cmd {} {arg}", command.name),
            Line::Message(m) => format!("msg {m}"),
            Line::Ambiguous { names, .. } => format!("ambiguous {}", names.join(" ")),
            Line::Unknown(n) => format!("unknown {n}"),
        }
    }

    #[test]
    fn only_command_names_and_unique_prefixes_are_commands() {
        let table = [
            ("hello", "msg hello"),
            ("/help", "cmd /help "),
            ("  /model  gpt-4.1 ", "cmd /model gpt-4.1"),
            ("/exit", "cmd /quit "),
            ("/he", "cmd /help "),
            ("/res 0tpc", "cmd /resume 0tpc"),
            ("/mode", "cmd /mode "),
            ("/mo", "ambiguous /model /mode"),
            (
                "/tmp/proj/build.log explain this",
                "msg /tmp/proj/build.log explain this",
            ),
            ("/notes.md says what?", "msg /notes.md says what?"),
            ("//help", "msg /help"),
            ("//etc/hosts?", "msg /etc/hosts?"),
            (" //x", "msg  /x"),
            ("/tmp is full, why?", "msg /tmp is full, why?"),
            ("/frobnicate", "unknown /frobnicate"),
            ("/frobnicate the widget", "unknown /frobnicate"),
            ("/", "unknown /"),
            ("/ hello", "unknown /"),
        ];
        for (text, want) in table {
            assert_eq!(kind(text), want, "{text:?}");
        }
    }

    #[test]
    fn mistakes_say_what_to_do() {
        assert_eq!(
            mistake(&parse("/frobnicate", &[], |_| false)).as_deref(),
            Some(
                "unknown command /frobnicate — /help lists them; //frobnicate sends it as a message"
            )
        );
        assert_eq!(
            mistake(&parse("/co", &[], |_| false)).as_deref(),
            Some("/co could be /copy, /collapse, /context, /compact — type more of it")
        );
        assert_eq!(mistake(&parse("/help", &[], |_| false)), None);
    }
}
