//! How the agent's answers to commands read in the chat: `/models`, `/approvals`, `/tools`,
//! `/context`, `/mcp`, `/sandbox`, a saved rule, a failed `/resume`, `/undo` and `/rewind`
//! ([`undo`]) — each [`Answer`] worded as the
//! notice the transcript shows (a failure with `✗`).
//!
//! Data in, one string out; nothing here asks the agent for more, and the tables another
//! layer writes for the command line too (`/tools`, `/mcp`) are shown as they come.

use std::fmt::Write;

use crate::events::{Answer, ContextReport, Counted, ModelRow, SandboxReport};
use crate::tools::offer::thousands;

/// The notice an answer leaves in the transcript.
pub fn notice(a: &Answer) -> String {
    match text(a) {
        Ok(t) => t,
        Err(e) => format!("✗ {e}"),
    }
}

/// What the answer says, or what went wrong.
fn text(a: &Answer) -> Result<String, String> {
    match a {
        Answer::Models(list) => list.as_ref().map(|l| models(l)).map_err(Clone::clone),
        Answer::UnlistedModel { model, listed } => {
            let mut shown: Vec<&str> = listed.iter().map(String::as_str).take(8).collect();
            if listed.len() > shown.len() {
                shown.push("…");
            }
            Err(format!(
                "the endpoint does not list `{model}` among its models ({}); the next request asks for it anyway — /model lists them",
                shown.join(", ")
            ))
        }
        Answer::Approvals {
            policy,
            tools,
            commands,
        } => {
            let mut lines =
                vec![
                    "remembered in this chat, for this mode only (a change of mode or /approvals clear forgets them):"
                        .to_owned(),
                ];
            lines.extend(tools.iter().map(|t| format!("  tool {t}")));
            lines.extend(commands.iter().map(|(t, c)| format!("  {t}: {c}")));
            if lines.len() == 1 {
                lines = vec!["remembered in this chat: nothing".to_owned()];
            }
            Ok(format!("{policy}\n{}", lines.join("\n")))
        }
        Answer::ApprovalsCleared => Ok("remembered approvals cleared".to_owned()),
        Answer::Tools { table } => Ok(format!(
            "tools (add one to the chat with @{{name}}):\n{}",
            table.trim_end()
        )),
        Answer::Context(r) => Ok(context(r)),
        Answer::Mcp { servers } => Ok(servers
            .clone()
            .unwrap_or_else(|| crate::mcp::NONE_CONFIGURED.to_owned())),
        Answer::RuleSaved { rule, source } => Ok(format!(
            "saved the rule {rule} to {source}; it applies from now on"
        )),
        Answer::RuleNotSaved { error } => Err(format!("could not save the rule: {error}")),
        Answer::ResumeFailed { error } => Err(error.clone()),
        Answer::Sandbox(r) => Ok(sandbox(r)),
        Answer::UndoPreview(_)
        | Answer::NothingToUndo { .. }
        | Answer::Undone(_)
        | Answer::UndoFailed { .. }
        | Answer::Rewound { .. }
        | Answer::RewindFailed { .. } => undo::text(a).unwrap_or_else(|| Err(format!("{a:?}"))),
    }
}

/// The `/sandbox` report: the mode and backend, then what commands may reach.
fn sandbox(r: &SandboxReport) -> String {
    let paths = |v: &[std::path::PathBuf]| {
        if v.is_empty() {
            "nothing".to_owned()
        } else {
            v.iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    let configured = r.configured.as_str();
    match (&r.backend, r.in_force) {
        (Err(why), _) if r.fell_back() => {
            return format!(
                "sandbox: off (no backend) — {configured} was asked for, but {why}: commands run unconfined, with the network"
            );
        }
        (_, crate::sandbox::Mode::Off) => {
            return "sandbox: off (as configured: [sandbox] mode or --sandbox) — commands run unconfined, with the network".to_owned();
        }
        _ => {}
    }
    let backend = r.backend.clone().unwrap_or_else(|why| why);
    let network = if r.network {
        "allowed"
    } else {
        "denied (an allow rule's `network = true` lets its commands reach it)"
    };
    let limits = if r.limits.is_empty() {
        "nothing: every part of the policy is enforced".to_owned()
    } else {
        r.limits.join("; ")
    };
    let mut out = vec![
        format!("sandbox: {} — {backend}", r.in_force.as_str()),
        format!("  network:          {network}"),
    ];
    if !r.network {
        out.push(match &r.loopback {
            Some(how) => format!("  loopback:         reachable: {how}"),
            None => "  loopback:         unreachable too (`[sandbox] allow_loopback = true` in your config opens it)".to_owned(),
        });
    }
    out.push(format!("  writable:         {}", paths(&r.writable)));
    if !r.protected.is_empty() {
        out.push(format!("  kept read-only:   {}", paths(&r.protected)));
    }
    out.push(format!("  hidden (sayso's): {}", paths(&r.hidden)));
    out.push(format!("  cannot enforce:   {limits}"));
    out.join("\n")
}

fn models(list: &[ModelRow]) -> String {
    if list.is_empty() {
        return "the server lists no models".to_owned();
    }
    let width = list.iter().map(|m| m.id.chars().count()).max().unwrap_or(0);
    let mut out = vec!["models (switch with /model NAME; * is the one in use):".to_owned()];
    for m in list {
        let window = match m.window {
            Some(n) => format!("{} tokens", thousands(n)),
            None => "window not listed".to_owned(),
        };
        let mark = if m.current { '*' } else { ' ' };
        out.push(format!("{mark} {:<width$}  {window}", m.id));
    }
    out.join("\n")
}

/// The tokens in use as the gauge shows them, and who counted them.
fn in_use(r: &ContextReport) -> String {
    let approx = if matches!(r.counted, Counted::Server { .. }) {
        ""
    } else {
        "~"
    };
    let how = match r.counted {
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
        thousands(r.in_use),
        r.in_use * 100 / r.window.max(1)
    )
}

/// The `/context` report.
fn context(r: &ContextReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "context window: {} tokens — {}",
        thousands(r.window),
        r.source
    );
    let _ = writeln!(out, "in use: {}", in_use(r));
    let _ = writeln!(out, "  system message     ~{} tokens", thousands(r.system));
    let _ = writeln!(out, "    environment      ~{}", thousands(r.environment));
    match r.instructions {
        None => {
            let _ = writeln!(out, "    instructions     none (no AGENTS.md found)");
        }
        Some(n) => {
            let _ = writeln!(out, "    instructions     ~{}", thousands(n));
            for f in &r.files {
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
    }
    if !r.skills.is_empty() {
        let _ = writeln!(out, "    skills           {}", r.skills.join(", "));
    }
    for note in &r.notes {
        let _ = writeln!(out, "      note: {note}");
    }
    let _ = writeln!(
        out,
        "  tools ({:>2})         ~{} tokens",
        r.tools,
        thousands(r.tools_tokens)
    );
    let _ = writeln!(
        out,
        "  history ({} msgs)  ~{} tokens",
        r.history_messages,
        thousands(r.history)
    );
    if let Some(n) = r.last_reply {
        let _ = writeln!(out, "    last reply       ~{} tokens", thousands(n));
    }
    let _ = writeln!(
        out,
        "  total              ~{} tokens (the tokens in use, shared by characters)",
        thousands(r.system + r.tools_tokens + r.history)
    );
    let _ = writeln!(
        out,
        "kept free: {} for the reply, {} margin; old tool outputs become stand-ins from {}, the conversation is summarised from {} tokens",
        thousands(r.reserve),
        thousands(r.margin),
        thousands(r.prune_at),
        thousands(r.compact_at)
    );
    let _ = writeln!(
        out,
        "so far: {} tool output(s) sent as stand-ins in the last request, {} compaction(s)",
        r.pruned, r.compactions
    );
    let calibrated = if r.calibrated {
        "calibrated on the server's usage"
    } else {
        "assumed until the server reports a plausible usage"
    };
    let _ = write!(
        out,
        "estimates: ~{:.1} characters a token ({calibrated}); /compact [focus] summarises now",
        r.ratio
    );
    out
}

pub mod undo;

#[cfg(test)]
mod tests;
