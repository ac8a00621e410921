//! What a file tool's command hands its `on_success`: the text for the model, the text for the
//! user, and the [`FileChange`] it made. A function command can only return a string, so this
//! travels as its JSON (never split on a separator) and is decoded on the other side.

use serde::{Deserialize, Serialize};

use crate::events::FileChange;
use crate::tools::tool::{CmdResult, ToolOutput};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Applied {
    /// What the model is sent.
    pub content: String,
    /// What the user reads instead, when it differs (`None`: the content).
    pub display: Option<String>,
    pub change: Option<FileChange>,
}

impl Applied {
    pub fn new(content: String, change: FileChange) -> Self {
        Self {
            content,
            display: None,
            change: Some(change),
        }
    }

    /// The command's result.
    pub fn into_result(self) -> CmdResult {
        match serde_json::to_string(&self) {
            Ok(json) => CmdResult::Success(json),
            // Plain strings always serialise; the model still learns what happened.
            Err(_) => CmdResult::Success(self.content),
        }
    }

    /// Reports the last command's result (as [`Applied::into_result`] made it) into `out`.
    pub fn report(data: Option<&[String]>, out: &mut ToolOutput) {
        let last = data.and_then(<[String]>::last).cloned().unwrap_or_default();
        match serde_json::from_str::<Applied>(&last) {
            Ok(a) => {
                out.add(a.content, a.display);
                if let Some(c) = a.change {
                    out.add_change(c);
                }
            }
            Err(_) => out.add(last, None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::ChangeKind;

    #[test]
    fn what_the_command_returns_is_reported_whole() {
        let change = FileChange::new(
            "a.txt",
            "/w/a.txt",
            ChangeKind::Created,
            "@@ -0,0 +1 @@\n+hi\n".into(),
        );
        let a = Applied {
            content: "Created a.txt (1 lines)\nmore".into(),
            display: Some("Created a.txt".into()),
            change: Some(change.clone()),
        };
        let CmdResult::Success(data) = a.into_result() else {
            panic!("an error")
        };
        let mut out = ToolOutput::default();
        Applied::report(Some(&[data]), &mut out);
        assert_eq!(out.content(), "Created a.txt (1 lines)\nmore");
        assert_eq!(out.display().as_deref(), Some("Created a.txt"));
        assert_eq!(out.changes(), [change]);
    }
}
