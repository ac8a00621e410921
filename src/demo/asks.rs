//! What a message to the demo asks for, and the scripted reply that shows it: a command, a
//! file created, edited or deleted, a file read, a search, a question for the user, the
//! approval modes, or the tour again. The demo understands keywords only; a message with none
//! of them gets a short menu of what to try. A question about sayso (“Can I keep my settings
//! in a config file?”, “Which tools ask first?”) is answered in text only — the modes, or the
//! menu — never with a tool call the user did not ask for; a request (“can you run a
//! command?”, “edit a file”) gets its call.
//!
//! Each request becomes a real tool call (when the chat offers that tool), so the user sees
//! what sayso does with it: the approval modal for commands and edits, a diff, the question
//! form. The reply after the tool results is [`super::reactions`]'s.

use serde_json::{Value, json};

use super::script::Reply;
use crate::events::Mode;

/// What a message asks the demo to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    Run,
    Create,
    Edit,
    Delete,
    Read,
    Search,
    Question,
    Modes,
    Tour,
    /// Nothing the demo knows: the menu.
    Menu,
}

/// The words that ask for each thing. The one that comes first in the message wins.
const KEYWORDS: &[(Ask, &[&str])] = &[
    (
        Ask::Run,
        &[
            "run", "command", "commands", "shell", "exec", "execute", "terminal", "bash",
        ],
    ),
    (Ask::Create, &["create", "new", "write"]),
    (Ask::Edit, &["edit", "change", "modify", "replace", "diff"]),
    (Ask::Delete, &["delete", "remove", "rm"]),
    (Ask::Read, &["read", "show", "open", "cat", "view"]),
    (Ask::Search, &["search", "grep", "find", "look"]),
    (Ask::Question, &["ask", "question", "questions", "quiz"]),
    (
        Ask::Modes,
        &[
            "mode",
            "modes",
            "approval",
            "approvals",
            "balanced",
            "auto",
            "trust",
            "suggest",
            "strict",
        ],
    ),
    (Ask::Tour, &["tour"]),
];

/// The words that open a question about sayso rather than a request.
const QUESTION_WORDS: &[&str] = &[
    "how", "what", "why", "which", "where", "when", "who", "does", "do", "is", "are", "should",
];

/// What `text` asks for: the first keyword in it, else `file` alone means an edit. A
/// question gets an answer in text only ([`Ask::Modes`] or [`Ask::Menu`]).
pub fn ask_of(text: &str) -> Ask {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let found = words.iter().find_map(|w| {
        KEYWORDS
            .iter()
            .find(|(_, keys)| keys.contains(w))
            .map(|(ask, _)| *ask)
    });
    let question = match words.as_slice() {
        ["can" | "could" | "may", "i", ..] => true,
        [first, ..] => QUESTION_WORDS.contains(first),
        [] => false,
    };
    match found {
        Some(Ask::Modes) => Ask::Modes,
        _ if question => Ask::Menu,
        Some(ask) => ask,
        None if words.iter().any(|w| *w == "file" || *w == "files") => Ask::Edit,
        None => Ask::Menu,
    }
}

/// The file the demo reads, searches and edits: one of its starting files.
pub const NOTES: &str = "notes.md";
/// The line the demo's edit toggles.
const TODO_LINE: &str = "TODO: try an edit";
const DONE_LINE: &str = "DONE: the demo edited this line";

/// What the chat offers and has done, as the scripted model sees it in the request.
pub struct Context<'a> {
    pub offered: &'a [&'a str],
    /// The demo's earlier calls and what each returned: (name, arguments, result).
    pub past: Vec<(String, Value, String)>,
}

impl Context<'_> {
    fn succeeded<'s>(&'s self, name: &'s str, prefix: &'s str) -> impl Iterator<Item = &'s Value> {
        self.past
            .iter()
            .filter(move |(n, _, r)| n == name && r.starts_with(prefix))
            .map(|(_, a, _)| a)
    }

    /// The files the demo created that it has not deleted since.
    fn created_files(&self) -> Vec<String> {
        let path = |a: &Value| a["filepath"].as_str().unwrap_or_default().to_owned();
        let deleted: Vec<String> = self.succeeded("delete_file", "Deleted").map(path).collect();
        self.succeeded("create_file", "Created")
            .map(path)
            .filter(|p| !deleted.contains(p))
            .collect()
    }
}

fn call(n: usize, name: &str, args: Value) -> (String, String, String) {
    (format!("demo_ask_{n}"), name.to_owned(), args.to_string())
}

/// The reply that shows what `ask` asks for; `quoted` is the user's message.
pub fn reply(ask: Ask, quoted: &str, cx: &Context<'_>) -> Reply {
    let n = cx.past.len() + 1;
    let (tool, text, args) = match ask {
        Ask::Menu => return text_reply(menu(quoted)),
        Ask::Modes => return text_reply(modes()),
        Ask::Tour => return super::script::tour(cx.offered),
        Ask::Run => (
            "run_command",
            "Here is a command. In balanced mode (the default) sayso asks before it runs one \
             off the safe list: Always accept, Accept, Reject (with a reason, which I read), or \
             Cancel. In auto mode a safe-listed command just runs and the judge vets the rest.\n",
            json!({"cmd": "ls -la && date"}),
        ),
        Ask::Create => {
            let made = cx
                .past
                .iter()
                .filter(|(name, args, _)| {
                    name == "create_file"
                        && args["filepath"]
                            .as_str()
                            .is_some_and(|p| p.starts_with("idea-"))
                })
                .count();
            let path = format!("idea-{}.md", made + 1);
            (
                "create_file",
                "Here is a new file. An edit asks first in balanced mode, with the whole file \
                 as a diff; once it is applied, the diff stays in the tool block.\n",
                json!({"filepath": path, "content": "# An idea\n\nWritten by the sayso demo.\n"}),
            )
        }
        Ask::Edit => {
            let edits = cx.succeeded("edit_file", "Edited").count();
            let (old, new) = if edits.is_multiple_of(2) {
                (TODO_LINE, DONE_LINE)
            } else {
                (DONE_LINE, TODO_LINE)
            };
            (
                "edit_file",
                "Here is an edit to `notes.md`: the modal shows its diff before anything \
                 changes.\n",
                json!({"filepath": NOTES, "edits": [{"oldText": old, "newText": new, "replaceAll": null}],
                       "explanation": "toggle the demo's TODO line"}),
            )
        }
        Ask::Delete => match cx.created_files().last() {
            Some(path) => (
                "delete_file",
                "Here is a deletion of a file I created: deleting asks first, even in auto \
                 mode.\n",
                json!({"filepath": path}),
            ),
            None => {
                return text_reply(
                    "I only delete files I created, and there are none yet: ask me to \
                     **create a file** first.\n"
                        .to_owned(),
                );
            }
        },
        Ask::Read => (
            "read_file",
            "Reading a file inside the project runs without asking, in every mode.\n",
            json!({"filepath": NOTES, "start_line": null, "end_line": null}),
        ),
        Ask::Search => (
            "grep_search",
            "A search of the files runs without asking, like a read.\n",
            json!({"query": "TODO|DONE", "is_regexp": true, "include_pattern": null}),
        ),
        Ask::Question => (
            "ask_questions",
            "A model can ask you questions when it needs a decision; sayso shows them as a \
             form.\n",
            json!({"questions": [{
                "header": "Next",
                "question": "What should the demo show next?",
                "options": [
                    {"label": "run a command", "description": "a shell command and its approval"},
                    {"label": "edit a file", "description": "a diff to accept or reject"},
                    {"label": "read a file", "description": "a read-only tool that never asks"}
                ],
                "multiSelect": false
            }]}),
        ),
    };
    if !cx.offered.contains(&tool) {
        return text_reply(format!(
            "I would use `{tool}` for that, but this chat does not offer it (see `--tools` and \
             `sayso tools`).\n"
        ));
    }
    Reply {
        reasoning: String::new(),
        text: text.to_owned(),
        tool_calls: vec![call(n, tool, args)],
    }
}

fn text_reply(text: String) -> Reply {
    Reply {
        reasoning: String::new(),
        text,
        tool_calls: Vec::new(),
    }
}

/// What to try, in one short list.
pub const TRY: &str = "- **run a command**: a shell command, and the approval modal\n\
- **create a file**, **edit a file**, **delete a file**: a diff to approve\n\
- **read a file**, **search the files**: read-only tools, which run without asking\n\
- **ask me a question**: the question form\n\
- **explain the modes**: how much sayso asks before it acts\n\
- **tour**: the first reply again\n";

/// How every text-only answer ends.
pub const CONNECT: &str =
    "Connect a real model to get real answers: `sayso --base-url URL -m MODEL`.";

fn menu(quoted: &str) -> String {
    let quoted = crate::text_cut::head_chars(quoted.trim(), 80);
    format!(
        "I am sayso's scripted demo, so I cannot really answer “{}”. I can show you how sayso \
         works, though. Try one of these:\n\n{TRY}\n{CONNECT}\n",
        quoted.replace('\n', " ")
    )
}

fn modes() -> String {
    let mut out = String::from(
        "sayso has five approval modes; `/mode NAME` switches (`/auto` toggles auto), and \
         `--approval-mode NAME` starts in one:\n\n",
    );
    for m in Mode::ALL {
        out.push_str(&format!("- **{}**: {}\n", m.as_str(), m.describe()));
    }
    out.push_str(&format!(
        "\nThe default is **balanced**. Try **run a command** to see it ask.\n\n{CONNECT}\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_keyword_in_a_message_decides() {
        for (text, ask) in [
            ("try: run a command", Ask::Run),
            ("Run a shell command please", Ask::Run),
            ("edit a file", Ask::Edit),
            ("create a file", Ask::Create),
            ("read the file, then edit it", Ask::Read),
            ("search the files", Ask::Search),
            ("ask me a question", Ask::Question),
            ("what does balanced mode do?", Ask::Modes),
            ("What does the --auto flag change?", Ask::Modes),
            ("can you run a command?", Ask::Run),
            ("Can I keep my settings in a config file?", Ask::Menu),
            (
                "Which tools can you use, and which ones ask first?",
                Ask::Menu,
            ),
            ("How do I see the whole output of ls -la?", Ask::Menu),
            ("Can you add a test for hello.md?", Ask::Menu),
            ("How do I point you at a local llama.cpp server?", Ask::Menu),
            (
                "What happens if I press Esc while you are answering?",
                Ask::Menu,
            ),
            ("Does /copy put the last reply on my clipboard?", Ask::Menu),
            ("Can I switch models in the middle of a chat?", Ask::Menu),
            ("Thanks, that is all for now.", Ask::Menu),
            ("delete a file", Ask::Delete),
            ("this file", Ask::Edit),
            ("tour", Ask::Tour),
            ("what is the capital of France?", Ask::Menu),
            ("rerun", Ask::Menu),
        ] {
            assert_eq!(ask_of(text), ask, "{text}");
        }
    }

    #[test]
    fn the_menu_and_the_modes_use_the_current_names() {
        let cx = Context {
            offered: &[],
            past: Vec::new(),
        };
        let menu = reply(Ask::Menu, "what now?", &cx).text;
        assert!(menu.contains("“what now?”") && menu.contains("**run a command**"));
        let modes = reply(Ask::Modes, "modes", &cx).text;
        for name in ["trust", "auto", "balanced", "suggest", "strict"] {
            assert!(modes.contains(&format!("**{name}**")), "{modes}");
        }
        assert!(!modes.contains("normal"), "{modes}");
        let not_offered = reply(Ask::Run, "run a command", &cx);
        assert!(not_offered.tool_calls.is_empty());
        assert!(not_offered.text.contains("does not offer it"));
    }

    #[test]
    fn edits_toggle_and_deletes_take_a_file_the_demo_created() {
        let offered = ["edit_file", "delete_file", "create_file"];
        let mut cx = Context {
            offered: &offered,
            past: Vec::new(),
        };
        let first = reply(Ask::Edit, "edit a file", &cx);
        assert!(
            first.tool_calls[0]
                .2
                .contains(r#""oldText":"TODO: try an edit""#)
        );
        assert!(reply(Ask::Delete, "delete", &cx).tool_calls.is_empty());
        let args = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        cx.past.push((
            "edit_file".into(),
            args(&first.tool_calls[0].2),
            "Edited notes.md (+1 −1)".into(),
        ));
        let second = reply(Ask::Edit, "edit again", &cx);
        assert!(
            second.tool_calls[0]
                .2
                .contains(r#""oldText":"DONE: the demo edited this line""#)
        );
        let create = reply(Ask::Create, "create a file", &cx);
        cx.past.push((
            "create_file".into(),
            args(&create.tool_calls[0].2),
            "Created idea-1.md (3 lines)".into(),
        ));
        let delete = reply(Ask::Delete, "delete a file", &cx);
        assert_eq!(delete.tool_calls[0].1, "delete_file");
        assert!(delete.tool_calls[0].2.contains("idea-1.md"));
    }
}
