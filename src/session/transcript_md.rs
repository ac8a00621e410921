//! A session as Markdown, for `sayso sessions show ID`: the user's messages, the replies, and
//! each tool call with what the user saw and, folded below it, what the model was sent.

use std::fmt::Write;

use super::record::Record;

fn fence_for(text: &str) -> String {
    let longest = text
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let n = t.chars().take_while(|c| *c == '`').count();
            (n >= 3).then_some(n)
        })
        .max()
        .unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// What the user saw of a tool's output, and (folded) what the model was sent when different.
fn tool_output(out: &mut String, content: &str, display: Option<&str>) {
    let shown = display.unwrap_or(content);
    if !shown.is_empty() {
        let f = fence_for(shown);
        let _ = writeln!(out, "{f}\n{}\n{f}\n", shown.trim_end());
    }
    if display.is_some_and(|d| d != content) {
        let f = fence_for(content);
        let _ = writeln!(
            out,
            "<details><summary>sent to the model</summary>\n\n{f}\n{}\n{f}\n\n</details>\n",
            content.trim_end()
        );
    }
}

/// The transcript of `records` as Markdown.
pub fn markdown(records: &[Record]) -> String {
    let mut out = String::new();
    let mut reply = String::new();
    let flush = |reply: &mut String, out: &mut String| {
        if !reply.trim().is_empty() {
            let _ = writeln!(out, "{}\n", reply.trim_end());
        }
        reply.clear();
    };
    for r in records {
        match r {
            Record::Session(h) => {
                let _ = writeln!(
                    out,
                    "# Session {}\n\n{} · {} · {} · started {}\n",
                    h.id, h.cwd, h.model, h.provider, h.started
                );
            }
            Record::User { text, .. } => {
                flush(&mut reply, &mut out);
                let quoted: Vec<String> = text.lines().map(|l| format!("> {l}")).collect();
                let _ = writeln!(out, "**You:**\n\n{}\n", quoted.join("\n"));
            }
            Record::Text { s } => reply.push_str(s),
            Record::Retry { .. } => reply.clear(),
            Record::Reply { message } => {
                reply = message.content.clone();
                flush(&mut reply, &mut out);
            }
            Record::Interrupted { partial } => {
                reply = partial.clone();
                flush(&mut reply, &mut out);
                let _ = writeln!(out, "*(interrupted)*\n");
            }
            Record::ToolStarted {
                name, cmd_string, ..
            } => {
                let _ = writeln!(out, "**Tool** `{name}`: `{cmd_string}`\n");
            }
            Record::Approval {
                name,
                choice,
                reason,
                ..
            } => {
                let why = reason
                    .as_deref()
                    .map(|r| format!(" — {r}"))
                    .unwrap_or_default();
                let _ = writeln!(out, "*approval for `{name}`: {choice}{why}*\n");
            }
            Record::ToolOutput {
                content, display, ..
            } => tool_output(&mut out, content, display.as_deref()),
            Record::ToolEnd { name, end, .. } => {
                let _ = writeln!(out, "*`{name}`: {}*\n", end.as_str());
            }
            Record::TurnEnd {
                message: Some(m), ..
            } => {
                flush(&mut reply, &mut out);
                let _ = writeln!(out, "*{m}*\n");
            }
            _ => {}
        }
    }
    flush(&mut reply, &mut out);
    out
}
