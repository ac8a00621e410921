//! `/context`: what fills the context window, as data ([`ContextReport`]) — the window and
//! where its size came from, the tokens in use exactly as the gauge shows them (and who
//! counted them), the tokens of the system prompt (with the environment block and each
//! instruction file), the tool schemas, the history and the last reply, and what pruning and
//! compaction did. The TUI words it (`tui::answers`).

use super::Agent;
use super::context::{Budget, message_chars, request_chars, tokens, tools_chars};
use super::in_use::Counted;
use crate::events::ContextReport;
use crate::events::answer::InstructionFile;
use crate::provider::ChatMessage;

impl Agent {
    /// The `/context` report.
    pub fn context_report(&self) -> ContextReport {
        let w = &self.window;
        let t = |chars: usize| tokens(chars, w.ratio);
        let b = Budget { window: w.tokens };
        let (system_msg, history_msgs) = match self.messages.split_first() {
            Some((m @ ChatMessage::System { .. }, rest)) => (Some(m), rest),
            _ => (None, &self.messages[..]),
        };
        let specs = self.tool_specs();
        let in_use = self.in_use_tokens();
        // One number: the parts share the tokens in use by their characters, so they add up
        // to it exactly.
        let [system, tools, history] = split(
            in_use,
            [
                system_msg.map_or(0, message_chars),
                tools_chars(&specs),
                history_msgs.iter().map(message_chars).sum(),
            ],
        );
        let i = &self.settings.instructions;
        let last_reply = self.messages.iter().rev().find_map(|m| match m {
            ChatMessage::Assistant { content, .. } => Some(t(content.len())),
            _ => None,
        });
        ContextReport {
            window: w.tokens,
            source: w.source.clone(),
            in_use,
            counted: w.in_use.map_or(Counted::Estimated, |u| u.counted),
            system,
            environment: t(i.environment.len()),
            instructions: (!i.files.is_empty()).then(|| t(i.text.len())),
            files: i
                .files
                .iter()
                .map(|f| InstructionFile {
                    path: f.path.clone(),
                    bytes: f.bytes,
                    used: f.used,
                })
                .collect(),
            notes: i.notes.clone(),
            skills: self.skill_names(),
            tools: specs.len(),
            tools_tokens: tools,
            history_messages: history_msgs.len(),
            history,
            last_reply,
            reserve: b.reserve(),
            margin: b.margin(),
            prune_at: b.prune_at(),
            compact_at: b.compact_at(),
            pruned: w.pruned,
            compactions: w.compactions,
            ratio: w.ratio,
            calibrated: w.calibrated_on.is_some(),
        }
    }

    /// The tokens in use as the gauge shows them, else (before the window is learned) the
    /// estimate of the history.
    fn in_use_tokens(&self) -> u64 {
        self.window.in_use.map_or_else(
            || {
                tokens(
                    request_chars(&self.messages, &self.tool_specs()),
                    self.window.ratio,
                )
            },
            |u| u.tokens,
        )
    }
}

/// `total` shared by `chars`: each part its share rounded down, the last what is left, so the
/// parts add up to `total` exactly.
fn split<const N: usize>(total: u64, chars: [usize; N]) -> [u64; N] {
    let all = chars.iter().sum::<usize>().max(1) as u128;
    let mut out = [0; N];
    let mut left = total;
    for (i, c) in chars.iter().enumerate() {
        out[i] = if i + 1 == N {
            left
        } else {
            let part = (u128::from(total) * *c as u128 / all) as u64;
            left -= part;
            part
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn the_parts_add_up_to_the_total() {
        assert_eq!(split(2_506, [3_000, 4_500, 10]), [1_001, 1_501, 4]);
        assert_eq!(split(7, [1, 1, 1]), [2, 2, 3]);
        assert_eq!(split(5, [0, 0, 0]), [0, 0, 5]);
        assert_eq!(split(0, [10, 20, 30]), [0, 0, 0]);
    }
}
