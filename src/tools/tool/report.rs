//! The common ways a tool reports its commands' results, written once for every tool that
//! reports the same way (SPEC §4.4): the last command's [`Output`] whole, and the errors as
//! they are. (What the three file writes share besides is `builtin/file_write.rs`.)
//!
//! It decides nothing about approval and runs nothing; a tool with its own wording (a shell
//! command's fenced output, an MCP failure) keeps its own handler.

use crate::tools::tool::output::{Output, ToolOutput};

/// The outputs' contents, one a line (an error handler's usual text).
pub fn joined(outputs: &[Output]) -> String {
    outputs
        .iter()
        .map(|o| o.content.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reports the latest successful command's output whole: its content, its display and the
/// file it changed (an empty content when there is none).
pub fn last_output(data: &[Output], out: &mut ToolOutput) {
    out.push(data.last().cloned().unwrap_or_default());
}

/// Reports the errors as they are: their contents, one a line, shown alike.
pub fn errors(errors: &[Output], out: &mut ToolOutput) {
    out.add(joined(errors), None);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_handlers_report_what_they_are_given() {
        let data = [
            Output::text("first"),
            Output::shown("for the model", "for you"),
        ];
        let mut out = ToolOutput::default();
        last_output(&data, &mut out);
        assert_eq!(out.content(), "for the model");
        assert_eq!(out.display().as_deref(), Some("for you"));

        let mut out = ToolOutput::default();
        last_output(&[], &mut out);
        assert_eq!((out.content(), out.display()), (String::new(), None));

        let mut out = ToolOutput::default();
        errors(
            &[Output::text("a"), Output::shown("b", "not this")],
            &mut out,
        );
        assert_eq!(out.content(), "a\nb");
        assert_eq!(out.display().as_deref(), Some("a\nb"));
    }
}
