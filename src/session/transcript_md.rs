//! A session as Markdown, for `sayso sessions show ID`: the user's messages, the replies, and
//! each tool call with what the user saw and, folded below it, what the model was sent.

use std::fmt::Write;

use super::record::Record;
use crate::events::Event;

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

/// What a saved event adds: `reply` holds the reply text streamed so far.
fn event(e: &Event, out: &mut String, reply: &mut String) {
    match e {
        Event::UserMessage { text, .. } => {
            flush(reply, out);
            let quoted: Vec<String> = text.lines().map(|l| format!("> {l}")).collect();
            let _ = writeln!(out, "**You:**\n\n{}\n", quoted.join("\n"));
        }
        Event::Retrying(_) => reply.clear(),
        Event::ReplyDone(message) => {
            *reply = message.content.clone();
            flush(reply, out);
        }
        Event::ReplyInterrupted { partial } => {
            *reply = partial.clone();
            flush(reply, out);
            let _ = writeln!(out, "*(interrupted)*\n");
        }
        Event::ToolStarted {
            name, cmd_string, ..
        } => {
            let _ = writeln!(out, "**Tool** `{name}`: `{cmd_string}`\n");
        }
        Event::ApprovalDecided { name, choice, .. } => {
            let why = choice
                .reason()
                .map(|r| format!(" — {r}"))
                .unwrap_or_default();
            let _ = writeln!(out, "*approval for `{name}`: {}{why}*\n", choice.as_str());
        }
        Event::ToolOutput {
            content, display, ..
        } => tool_output(out, content, display.as_deref()),
        Event::ToolFinished { name, end, .. } => {
            let _ = writeln!(out, "*`{name}`: {}*\n", end.as_str());
        }
        Event::TurnEnded(end) => {
            if let Some(m) = end.message() {
                flush(reply, out);
                let _ = writeln!(out, "*{m}*\n");
            }
        }
        _ => {}
    }
}

/// The reply gathered so far, as a paragraph.
fn flush(reply: &mut String, out: &mut String) {
    if !reply.trim().is_empty() {
        let _ = writeln!(out, "{}\n", reply.trim_end());
    }
    reply.clear();
}

/// The transcript of `records` as Markdown.
pub fn markdown(records: &[Record]) -> String {
    let mut out = String::new();
    let mut reply = String::new();
    for r in records {
        match r {
            Record::Session(h) => {
                let _ = writeln!(
                    out,
                    "# Session {}\n\n{} · {} · {} · started {}\n",
                    h.id, h.cwd, h.model, h.provider, h.started
                );
            }
            Record::Text { s } => reply.push_str(s),
            Record::Event(e) => event(e, &mut out, &mut reply),
            _ => {}
        }
    }
    flush(&mut reply, &mut out);
    out
}
