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
        let system = self.messages.first().map_or(0, |m| match m {
            ChatMessage::System { content } => content.len(),
            _ => 0,
        });
        let i = &self.settings.instructions;
        let _ = writeln!(out, "  system message     ~{} tokens", t(system));
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
        let specs = self.tool_specs();
        let tools = tokens(tools_chars(&specs), ratio);
        let _ = writeln!(
            out,
            "  tools ({:>2})         ~{} tokens",
            specs.len(),
            thousands(tools)
        );
        let history = tokens(self.messages.iter().skip(1).map(message_chars).sum(), ratio);
        let _ = writeln!(
            out,
            "  history ({} msgs)  ~{} tokens",
            self.messages.len().saturating_sub(1),
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
        let total = tokens(system, ratio) + tools + history;
        let _ = writeln!(
            out,
            "  total              ~{} tokens (what the next request sends, before stand-ins)",
            thousands(total)
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

    /// The tokens in use as the gauge shows them, and who counted them.
    fn describe_in_use(&self) -> String {
        let w = &self.window;
        let Some(in_use) = w.in_use else {
            let chars = request_chars(&self.messages, &self.tool_specs());
            let n = tokens(chars, w.ratio);
            return format!(
                "~{} tokens ({}%) — estimated: no request yet",
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
            Counted::Estimated => "estimated from the characters sent and received".to_owned(),
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
