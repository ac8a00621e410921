//! Applying the edits to a file's content as text while keeping the file's form: a UTF-8
//! byte-order mark and CRLF line endings are set aside for matching and restored for writing,
//! and the final newline stays as it was.

use memchr::memmem;

use crate::tools::builtin::edit_match::{Applied, Edit, apply_edits};

/// A file's text edited as the tool edits it.
#[derive(Debug, Clone, PartialEq)]
pub struct TextEdit {
    /// Before and after, LF line endings and no BOM (what the diff shows).
    pub before: String,
    pub after: String,
    /// The content to write when it differs from `after` (the BOM or CRLF endings restored).
    restored: Option<String>,
    pub applied: Vec<Applied>,
}

impl TextEdit {
    /// The content to write: the file's line endings and BOM restored.
    pub fn output(&self) -> &str {
        self.restored.as_deref().unwrap_or(&self.after)
    }
}

/// Every line ends with CRLF (and there is at least one).
fn is_crlf(s: &str) -> bool {
    if memchr::memchr(b'\r', s.as_bytes()).is_none() {
        return false;
    }
    let crlf = memmem::find_iter(s.as_bytes(), b"\r\n").count();
    crlf > 0 && crlf == memchr::memchr_iter(b'\n', s.as_bytes()).count()
}

/// Applies `edits` to a file's `content`: BOM and CRLF line endings are set aside and restored,
/// and the final newline is kept as it was (added back if an edit removed it, dropped if an
/// edit added one to a file without). Takes the content by value so that a large file is not
/// copied.
pub fn edit_text(content: impl Into<String>, edits: &[Edit]) -> Result<TextEdit, String> {
    let mut content: String = content.into();
    let bom = content.starts_with('\u{feff}');
    if bom {
        content.drain(..'\u{feff}'.len_utf8());
    }
    let crlf = is_crlf(&content);
    let before = if crlf {
        content.replace("\r\n", "\n")
    } else {
        content
    };
    let edits: Vec<Edit> = edits
        .iter()
        .map(|e| Edit {
            old_text: e.old_text.replace("\r\n", "\n"),
            new_text: e.new_text.replace("\r\n", "\n"),
            replace_all: e.replace_all,
        })
        .collect();
    let outcome = apply_edits(&before, &edits).map_err(|e| e.to_string())?;
    let mut after = outcome.content;
    if before.ends_with('\n') && !after.is_empty() && !after.ends_with('\n') {
        after.push('\n');
    } else if !before.is_empty() && !before.ends_with('\n') && after.ends_with('\n') {
        after.pop();
    }
    if after == before {
        return Err(
            "The edits leave the file unchanged: each newText is identical to the text it replaces."
                .into(),
        );
    }
    let restored = (bom || crlf).then(|| {
        let body = if crlf {
            after.replace('\n', "\r\n")
        } else {
            after.clone()
        };
        if bom { format!("\u{feff}{body}") } else { body }
    });
    Ok(TextEdit {
        before,
        after,
        restored,
        applied: outcome.applied,
    })
}
