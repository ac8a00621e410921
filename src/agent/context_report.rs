//! `/context`: what fills the context window — the window and where its size came from, the
//! tokens of the system prompt (with the environment block and each instruction file), the
//! tool schemas, the history and the last reply, and what pruning and compaction did.

use std::fmt::Write;

use super::Agent;
use super::context::{Budget, message_chars, tokens, tools_chars};
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
        match w.last_usage {
            Some((prompt, completion)) => {
                let used = prompt + completion;
                let _ = writeln!(
                    out,
                    "in use: {} tokens ({}%) — the last request {} + its reply {}, as the server counted them",
                    thousands(used),
                    used * 100 / w.tokens.max(1),
                    thousands(prompt),
                    thousands(completion)
                );
            }
            None => {
                let _ = writeln!(out, "in use: no request yet (estimates below)");
            }
        }
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
        let _ = writeln!(
            out,
            "  tools ({:>2})         ~{} tokens",
            specs.len(),
            t(tools_chars(&specs))
        );
        let history = self.messages.iter().skip(1);
        let _ = writeln!(
            out,
            "  history ({} msgs)  ~{} tokens",
            self.messages.len().saturating_sub(1),
            t(history.map(message_chars).sum())
        );
        if let Some(ChatMessage::Assistant { content, .. }) = self
            .messages
            .iter()
            .rev()
            .find(|m| matches!(m, ChatMessage::Assistant { .. }))
        {
            let _ = writeln!(out, "  last reply         ~{} tokens", t(content.len()));
        }
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
        let calibrated = if w.last_usage.is_some() {
            "calibrated on the server's usage"
        } else {
            "assumed until the server reports usage"
        };
        let _ = write!(
            out,
            "estimates: ~{ratio:.1} characters a token ({calibrated}); /compact [focus] summarises now"
        );
        out
    }
}
