//! `ask_questions`: ask the user one to four questions in the TUI's question form. Headless
//! there is nobody to ask: every question gets "No answer provided".

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::config::opts::Opts;
use crate::provider::ToolSpec;
use crate::tools::context::{Answer, Question, QuestionRequest};
use crate::tools::tool::report;
use crate::tools::tool::{CmdResult, Command, Invocation, Kind, Output, Tool, ToolOutput};

pub struct AskQuestions;

pub const NO_ANSWER: &str = "No answer provided";

fn parse(args: &Value) -> Result<Vec<Question>, String> {
    let list = args.get("questions").cloned().unwrap_or(Value::Null);
    let questions: Vec<Question> = serde_json::from_value(list).map_err(|e| {
        format!("`questions` must be a list of {{header, question, options?, multiSelect?}}: {e}")
    })?;
    match questions.len() {
        0 => Err("No questions provided: ask between 1 and 4 questions".into()),
        1..=4 => Ok(questions),
        n => Err(format!("Ask at most 4 questions at a time, not {n}")),
    }
}

fn format_answers(questions: &[Question], answers: &[Answer]) -> String {
    questions
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let a = match answers.get(i) {
                Some(Answer::Text(t)) => t.clone(),
                Some(Answer::Selected(s)) => s.join(", "),
                Some(Answer::Skipped) | None => NO_ANSWER.to_owned(),
            };
            format!("**{}**: {}\n{a}", q.header, q.question)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

impl Tool for AskQuestions {
    fn name(&self) -> &str {
        "ask_questions"
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "ask_questions".into(),
            description: "Ask the user short questions when you need a decision or facts only they have; give options when the answer is one of a few."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "questions": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 4,
                        "items": {
                            "type": "object",
                            "properties": {
                                "header": {"type": "string", "description": "A 2-3 word label"},
                                "question": {"type": "string"},
                                "options": {"type": ["array", "null"], "items": {
                                    "type": "object",
                                    "properties": {"label": {"type": "string"}, "description": {"type": "string"}},
                                    "required": ["label", "description"],
                                    "additionalProperties": false
                                }},
                                "multiSelect": {"type": ["boolean", "null"]}
                            },
                            "required": ["header", "question", "options", "multiSelect"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["questions"],
                "additionalProperties": false
            }),
            strict: Some(true),
        }
    }

    /// Nothing in the project changes (undo's checkpoints skip it).
    fn touches(&self, _inv: &Invocation) -> Option<Vec<std::path::PathBuf>> {
        Some(Vec::new())
    }

    fn kind(&self) -> Kind {
        Kind::Other
    }

    fn is_question(&self) -> bool {
        true
    }

    fn default_opts(&self) -> Opts {
        // The user may take their time: the watchdog must not cut them off.
        Opts {
            timeout: Some(24 * 3600 * 1000),
            ..Opts::default()
        }
    }

    fn prompt(&self, inv: &Invocation) -> Option<String> {
        let n = parse(&inv.args).map_or(0, |q| q.len());
        Some(format!("Ask you {n} question(s)?"))
    }

    fn commands(&self, _inv: &Invocation) -> Vec<Command> {
        vec![Command::Function(Arc::new(|inv, _| {
            Box::pin(async move {
                let questions = match parse(&inv.args) {
                    Ok(q) => q,
                    Err(e) => return Some(CmdResult::err(e)),
                };
                let answers = match &inv.ctx.questions {
                    Some(tx) => {
                        let (reply, rx) = oneshot::channel();
                        let req = QuestionRequest {
                            call_id: inv.function_call.id.clone(),
                            questions: questions.clone(),
                            reply,
                        };
                        if tx.send(req).is_ok() {
                            rx.await.unwrap_or_default()
                        } else {
                            Vec::new()
                        }
                    }
                    None => Vec::new(),
                };
                let answered = answers
                    .iter()
                    .filter(|a| !matches!(a, Answer::Skipped))
                    .count();
                Some(CmdResult::ok(Output::shown(
                    format_answers(&questions, &answers),
                    format!("Answered {answered} of {} question(s)", questions.len()),
                )))
            })
        }))]
    }

    fn on_success(&self, _inv: &Invocation, out: &mut ToolOutput, data: &[Output]) {
        report::last_output(data, out);
    }

    fn on_error(&self, _inv: &Invocation, out: &mut ToolOutput, errors: &[Output]) {
        report::errors(errors, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_listed_under_their_questions() {
        let qs = parse(&json!({"questions": [
            {"header": "Framework", "question": "Which one?", "options": [{"label": "React", "description": ""}], "multiSelect": null},
            {"header": "Name", "question": "Project name?", "options": null, "multiSelect": null}
        ]}))
        .unwrap();
        assert_eq!(
            format_answers(&qs, &[Answer::Selected(vec!["React".into()])]),
            "**Framework**: Which one?\nReact\n\n**Name**: Project name?\nNo answer provided"
        );
        assert!(
            parse(&json!({"questions": []}))
                .unwrap_err()
                .contains("No questions provided")
        );
    }
}
