//! Slash commands (SPEC §6.3). An unknown command is a one-line error and nothing is sent.

use super::app::{App, Effect};
use super::strings;
use crate::agent::transcript::Entry;
use crate::tools::approval::Mode;

/// The code blocks of a Markdown text, in order: the ones the chat shows.
pub fn code_blocks(text: &str) -> Vec<String> {
    super::markdown::code_blocks(text)
}

pub fn run(app: &mut App, line: &str) -> Vec<Effect> {
    let mut parts = line.splitn(2, char::is_whitespace);
    let cmd = parts.next().unwrap_or_default();
    let arg = parts.next().map(str::trim).unwrap_or_default();
    app.input.remember(line);
    app.input.clear();
    app.flash = None;
    let between_turns = |app: &mut App, effect: Effect| {
        if app.busy {
            app.flash = Some(strings::BUSY_FOR_COMMAND.into());
            Vec::new()
        } else {
            vec![effect]
        }
    };
    match cmd {
        "/help" => {
            app.transcript.push_notice(strings::HELP);
        }
        "/quit" | "/exit" => {
            app.quit = true;
            return vec![Effect::Quit];
        }
        "/auto" => {
            let next = match app.mode.get() {
                Mode::Normal => Mode::Auto,
                Mode::Auto => Mode::Normal,
            };
            app.mode.set(next);
            app.transcript.push_notice(match next {
                Mode::Auto => "AUTO mode: tools run without asking, except protected ones (they pass the safety check or the judge first)",
                Mode::Normal => "NORMAL mode: tools that need approval ask first",
            });
        }
        "/clear" => {
            if app.busy {
                app.flash = Some(strings::BUSY_FOR_COMMAND.into());
                return Vec::new();
            }
            app.transcript = Default::default();
            app.chat.reset();
            app.expanded.clear();
            app.usage = Default::default();
            return vec![Effect::NewChat];
        }
        "/model" => {
            return if arg.is_empty() {
                between_turns(app, Effect::ListModels)
            } else {
                app.model = arg.to_owned();
                app.transcript.push_notice(format!("model: {arg}"));
                let e = between_turns(app, Effect::SetModel(arg.to_owned()));
                app.after_command();
                e
            };
        }
        "/tools" => return between_turns(app, Effect::ListTools),
        "/approvals" => {
            return match arg {
                "" => between_turns(app, Effect::ListApprovals),
                "clear" => between_turns(app, Effect::ClearApprovals),
                other => {
                    app.flash = Some(format!(
                        "/approvals takes no argument or `clear`, not `{other}`"
                    ));
                    Vec::new()
                }
            };
        }
        "/copy" => {
            let last = app.transcript.entries.iter().rev().find_map(|e| match e {
                Entry::Assistant { text, .. } => Some(text.clone()),
                _ => None,
            });
            let Some(text) = last else {
                app.flash = Some("there is no reply to copy yet".into());
                return Vec::new();
            };
            if arg.is_empty() {
                app.flash = Some("copied the last reply".into());
                return vec![Effect::Copy(text)];
            }
            let blocks = code_blocks(&text);
            return match arg.parse::<usize>() {
                Ok(n) if n >= 1 && n <= blocks.len() => {
                    app.flash = Some(format!("copied code block {n} of {}", blocks.len()));
                    vec![Effect::Copy(blocks[n - 1].clone())]
                }
                _ => {
                    app.flash = Some(format!(
                        "the last reply has {} code block(s); /copy N picks one",
                        blocks.len()
                    ));
                    Vec::new()
                }
            };
        }
        "/expand" | "/collapse" => {
            let foldable: Vec<usize> = app
                .transcript
                .entries
                .iter()
                .enumerate()
                .filter(|(_, e)| super::entry_lines::foldable(e))
                .map(|(i, _)| i)
                .collect();
            if cmd == "/expand" {
                app.expanded.extend(foldable);
            } else {
                app.expanded.clear();
            }
            app.chat.invalidate_from(0);
        }
        other => {
            app.flash = Some(format!("unknown command {other} — /help lists them"));
            return Vec::new();
        }
    }
    app.after_command();
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_blocks_are_found_in_order() {
        let md = "text\n```rust\nfn a() {}\n```\nmore\n~~~\nplain\n~~~\n```sh\nunclosed\n";
        assert_eq!(code_blocks(md), ["fn a() {}\n", "plain\n", "unclosed\n"]);
    }
}
