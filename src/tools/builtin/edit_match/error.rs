//! Why an edit failed, and the messages that tell the model how to fix its call.

use std::fmt;

use super::*;

/// A place in the text, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// 1-based, inclusive.
    pub start_line: usize,
    pub end_line: usize,
    /// The first non-blank line of the place, trimmed and shortened.
    pub preview: String,
}

impl Location {
    fn lines(&self) -> String {
        if self.start_line == self.end_line {
            format!("line {}", self.start_line)
        } else {
            format!("lines {}–{}", self.start_line, self.end_line)
        }
    }
}

/// The region most like a `oldText` that was not found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Closest {
    pub start_line: usize,
    pub end_line: usize,
    /// Why it is the closest ("2 of 3 lines equal ignoring whitespace").
    pub why: String,
    /// (1-based line number, text) of the region, at most 8 lines.
    pub lines: Vec<(usize, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ErrorKind {
    /// `oldText` is empty and the file is not.
    EmptyOldText,
    NotFound {
        tried: Vec<Strategy>,
        closest: Option<Box<Closest>>,
        empty_file: bool,
    },
    Ambiguous {
        strategy: Strategy,
        count: usize,
        places: Vec<Location>,
    },
    /// The match overlaps what an earlier edit of the call changed.
    Overlap { earlier: usize, place: Location },
}

/// Why an edit failed; nothing of the call was applied.
#[derive(Debug, Clone, PartialEq)]
pub struct EditError {
    pub index: usize,
    /// The first non-blank line of the edit's `oldText`, shortened.
    pub old_first_line: String,
    pub kind: ErrorKind,
    /// Earlier edits of the call had been applied, so line numbers count them.
    pub after_earlier: bool,
}

pub(super) fn shorten(s: &str, max: usize) -> String {
    let s = s.trim();
    crate::text_cut::ellipsized(s, crate::text_cut::head_chars(s, max))
}

pub(super) fn first_non_blank(s: &str) -> &str {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("")
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = self.index;
        write!(f, "edits[{i}]")?;
        if !self.old_first_line.is_empty() {
            write!(f, " (oldText beginning `{}`)", self.old_first_line)?;
        }
        write!(f, " failed: ")?;
        match &self.kind {
            ErrorKind::EmptyOldText => write!(
                f,
                "oldText is empty. An empty oldText is only allowed when the file is empty, to give it its first content. To insert text, put an existing neighbouring line in oldText and repeat it in newText along with the new text."
            )?,
            ErrorKind::NotFound {
                tried,
                closest,
                empty_file,
            } => {
                let names: Vec<&str> = tried.iter().map(|s| s.name()).collect();
                write!(
                    f,
                    "oldText was not found in the file (tried {} matching).",
                    names.join(", ")
                )?;
                if *empty_file {
                    write!(
                        f,
                        " The file is empty: use an empty oldText to give it content."
                    )?;
                }
                if let Some(c) = closest {
                    let range = if c.start_line == c.end_line {
                        format!("line {}", c.start_line)
                    } else {
                        format!("lines {}–{}", c.start_line, c.end_line)
                    };
                    write!(f, "\nThe closest text is at {range} ({}):", c.why)?;
                    for (n, text) in &c.lines {
                        write!(f, "\n{n:>6} | {text}")?;
                    }
                    if c.lines.last().is_some_and(|(n, _)| *n < c.end_line) {
                        write!(f, "\n       | …")?;
                    }
                }
                write!(
                    f,
                    "\nRe-read the file with read_file and copy the text to replace exactly as it is in the file, including whitespace and indentation."
                )?;
            }
            ErrorKind::Ambiguous {
                strategy,
                count,
                places,
            } => {
                write!(
                    f,
                    "oldText matches {count} places in the file ({} match):",
                    strategy.name()
                )?;
                for p in places {
                    write!(f, "\n  - {}: {}", p.lines(), p.preview)?;
                }
                if *count > places.len() {
                    write!(f, "\n  … and {} more", count - places.len())?;
                }
                write!(
                    f,
                    "\nInclude more surrounding lines in oldText so that it matches exactly one place, or set replaceAll: true to change every occurrence."
                )?;
            }
            ErrorKind::Overlap { earlier, place } => write!(
                f,
                "its oldText ({}: {}) overlaps the text that edits[{earlier}] changes. Edits in one call must not overlap: merge them into a single edit.",
                place.lines(),
                place.preview
            )?,
        }
        if self.after_earlier {
            write!(
                f,
                "\n(Line numbers count the earlier edits of this call as applied.)"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for EditError {}
