//! `/context`: what fills the context window — the window and where its size came from, the
//! tokens in use exactly as the gauge shows them (and who counted them), the tokens of the
//! system prompt (with the environment block and each instruction file), the tool schemas,
//! the history and the last reply, their total, and what pruning and compaction did.

use std::fmt::Write;

use super::Agent;
use super::context::{Budget, message_chars, request_chars, tokens, tools_chars};
use super::in_use::Counted;
use crate::provider::ChatMessage;
use crate::tools::footprint::thousands;

impl Agent {
    /// The `/context` report.
    pub fn describe_context(&self) -> String {
        let w = &self.window;
        let ratio = w.ratio;
        let t = |chars: usize| thousands(tokens(chars, ratio));
        let b = Budget { window: w.tokens };
        let mut out = String::new();
        let _ = writeln!(
            out,
            "context window: {} tokens — {}",
            thousands(w.tokens),
            w.source
        );
        let _ = writeln!(out, "in use: {}", self.describe_in_use());
        let (system_msg, history_msgs) = match self.messages.split_first() {
            Some((m @ ChatMessage::System { .. }, rest)) => (Some(m), rest),
            _ => (None, &self.messages[..]),
        };
        let specs = self.tool_specs();
        // One number: the parts share the tokens in use by their characters, so they add up
        // to it exactly.
        let [system, tools, history] = split(
            self.in_use_tokens(),
            [
                system_msg.map_or(0, message_chars),
                tools_chars(&specs),
                history_msgs.iter().map(message_chars).sum(),
            ],
        );
        let i = &self.settings.instructions;
        let _ = writeln!(out, "  system message     ~{} tokens", thousands(system));
        let _ = writeln!(out, "    environment      ~{}", t(i.environment.len()));
        if i.files.is_empty() {
            let _ = writeln!(out, "    instructions     none (no AGENTS.md found)");
        } else {
            let _ = writeln!(out, "    instructions     ~{}", t(i.text.len()));
            for f in &i.files {
                let cut = if f.used < f.bytes {
                    format!(", cut to {}", thousands(f.used as u64))
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "      {} ({} bytes{cut})",
                    f.path.display(),
                    thousands(f.bytes as u64)
                );
            }
        }
        for note in &i.notes {
            let _ = writeln!(out, "      note: {note}");
        }
        let _ = writeln!(
            out,
            "  tools ({:>2})         ~{} tokens",
            specs.len(),
            thousands(tools)
        );
        let _ = writeln!(
            out,
            "  history ({} msgs)  ~{} tokens",
            history_msgs.len(),
            thousands(history)
        );
        if let Some(ChatMessage::Assistant { content, .. }) = self
            .messages
            .iter()
            .rev()
            .find(|m| matches!(m, ChatMessage::Assistant { .. }))
        {
            let _ = writeln!(out, "    last reply       ~{} tokens", t(content.len()));
        }
        let _ = writeln!(
            out,
            "  total              ~{} tokens (the tokens in use, shared by characters)",
            thousands(system + tools + history)
        );
        let _ = writeln!(
            out,
            "kept free: {} for the reply, {} margin; old tool outputs become stand-ins from {}, the conversation is summarised from {} tokens",
            thousands(b.reserve()),
            thousands(b.margin()),
            thousands(b.prune_at()),
            thousands(b.compact_at())
        );
        let _ = writeln!(
            out,
            "so far: {} tool output(s) sent as stand-ins in the last request, {} compaction(s)",
            w.pruned, w.compactions
        );
        let calibrated = if w.calibrated_on.is_some() {
            "calibrated on the server's usage"
        } else {
            "assumed until the server reports a plausible usage"
        };
        let _ = write!(
            out,
            "estimates: ~{ratio:.1} characters a token ({calibrated}); /compact [focus] summarises now"
        );
        out
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

    /// The tokens in use as the gauge shows them, and who counted them.
    fn describe_in_use(&self) -> String {
        let w = &self.window;
        let Some(in_use) = w.in_use else {
            let n = self.in_use_tokens();
            return format!(
                "~{} tokens ({}%) — estimated from the characters of the chat",
                thousands(n),
                n * 100 / w.tokens.max(1)
            );
        };
        let approx = if in_use.estimated() { "~" } else { "" };
        let how = match in_use.counted {
            Counted::Server { prompt, completion } => format!(
                "the last request {} + its reply {}, as the server counted them",
                thousands(prompt),
                thousands(completion)
            ),
            Counted::Estimated => "estimated from the characters of the chat".to_owned(),
            Counted::Ignored { prompt, chars } => format!(
                "estimated: the server's usage ({} prompt tokens for {} characters sent) cannot be right and is ignored",
                thousands(prompt),
                thousands(chars as u64)
            ),
        };
        format!(
            "{approx}{} tokens ({}%) — {how}",
            thousands(in_use.tokens),
            in_use.percent(w.tokens)
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
