//! The demo's reply once the tool results of its last calls come back: one line per call
//! saying what happened — it ran, you rejected it (and why), nobody was there to approve it,
//! it failed — then what to try next. An answer to the demo's question that names something
//! it can show (“run a command”) is taken up at once: the reply makes that call.

use serde_json::Value;

use super::asks::{self, Ask, Context};
use super::script::{Reply, role, text_of};

/// What the assistant message that made the calls asked for, by call id.
fn call_of<'a>(calls: &'a [Value], id: &str) -> Option<&'a Value> {
    calls
        .iter()
        .find(|c| c.get("id").and_then(Value::as_str) == Some(id))
}

fn arguments(call: Option<&Value>) -> Value {
    call.and_then(|c| c.pointer("/function/arguments"))
        .and_then(Value::as_str)
        .and_then(|a| serde_json::from_str(a).ok())
        .unwrap_or(Value::Null)
}

/// The answer in an `ask_questions` result (`**Header**: question\nanswer`).
fn answer_of(content: &str) -> Option<&str> {
    let answer = content.split_once('\n')?.1.trim();
    (!answer.is_empty() && answer != "No answer provided").then_some(answer)
}

/// The reply to the tool results at the end of `messages`.
pub fn react(messages: &[Value], cx: &Context<'_>) -> Reply {
    let start = messages
        .iter()
        .rposition(|m| role(m) == "assistant")
        .unwrap_or(0);
    let calls = messages[start]
        .get("tool_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let results = &messages[start + 1..];
    let mut lines = Vec::new();
    for result in results {
        let id = result
            .get("tool_call_id")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let call = call_of(&calls, id);
        let name = call
            .and_then(|c| c.pointer("/function/name"))
            .and_then(Value::as_str)
            .unwrap_or("tool");
        let content = text_of(result);
        if name == "ask_questions"
            && results.len() == 1
            && let Some(answer) = answer_of(content)
        {
            let ask = asks::ask_of(answer);
            if !matches!(ask, Ask::Menu | Ask::Question | Ask::Tour) {
                let mut next = asks::reply(ask, answer, cx);
                next.text = format!("You picked **{answer}**. {}", next.text);
                return next;
            }
        }
        lines.push(line(name, &arguments(call), content));
    }
    // The tour's calls end the tour.
    let toured = calls.iter().any(|c| {
        c.get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.starts_with("demo_call_"))
    });
    Reply {
        reasoning: String::new(),
        text: format!(
            "Here is what happened:\n\n{}\n\n{}Try next: **run a command**, **edit a file**, \
             **ask me a question** — or say anything else for the whole list.\n",
            lines.join("\n"),
            if toured {
                "That is the whole demo tour. "
            } else {
                ""
            }
        ),
        tool_calls: Vec::new(),
    }
}

/// One line about one call.
fn line(name: &str, args: &Value, content: &str) -> String {
    let path = args["filepath"].as_str().unwrap_or("the file");
    if content.starts_with("Approval required") {
        return format!(
            "- `{name}` needed your approval, and nobody was there to give it: run the demo in \
             the terminal UI, or add `--auto` / `--allowed-tools {name}`."
        );
    }
    if content.starts_with("The user rejected") {
        return match content.split(", with the reason: ").nth(1) {
            Some(reason) => format!(
                "- You rejected `{name}` because {}. Fair enough — I will not do that.",
                reason.trim_matches('"')
            ),
            None => format!("- You rejected `{name}`, so I left it alone."),
        };
    }
    let first_line = content.lines().next().unwrap_or_default();
    match name {
        "run_command" => format!(
            "- `{}` ran; its output is in its tool block.",
            args["cmd"].as_str().unwrap_or_default()
        ),
        "create_file" if content.starts_with("Created") => format!("- I created `{path}`."),
        "edit_file" if content.starts_with("Edited") => {
            format!("- I edited `{path}`: the diff is in its tool block.")
        }
        "delete_file" if content.starts_with("Deleted") => format!("- I deleted `{path}`."),
        "read_file" if !content.is_empty() => format!(
            "- I read `{path}` ({} lines) without asking: reads never need an approval.",
            content.lines().count()
        ),
        "grep_search" if content.starts_with("No matches") => {
            "- The search found nothing.".to_owned()
        }
        "grep_search" => format!(
            "- The search found {} matching line(s).",
            content.lines().filter(|l| !l.trim().is_empty()).count()
        ),
        "ask_questions" => match answer_of(content) {
            Some(answer) => format!("- You answered: {answer}."),
            None => "- You left the question unanswered.".to_owned(),
        },
        _ => format!("- `{name}` reported: {first_line}"),
    }
}
