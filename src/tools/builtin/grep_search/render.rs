//! What `grep_search` shows: a matching line cut around its match (scrubbed first), and the
//! answer for the model and the user.

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;

use super::super::file_search::shown;
use super::{GrepArgs, GrepResults, MAX_LINE_CHARS, MAX_MATCHES, MAX_PER_FILE};

/// A matching line for display: scrubbed of secret values (`crate::secrets`) first, since the
/// query chooses where a long line is cut and a cut secret would escape the scrubber; trimmed;
/// when longer than [`MAX_LINE_CHARS`], a window around the first match with `…` where it was
/// cut.
pub fn snippet(matcher: &RegexMatcher, line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = crate::secrets::scrub(&text);
    let text = text.trim();
    let chars = text.chars().count();
    if chars <= MAX_LINE_CHARS {
        return text.to_owned();
    }
    // The character index where the match starts, to keep it in view.
    let match_char = matcher
        .find(text.as_bytes())
        .ok()
        .flatten()
        .map_or(0, |m| text[..m.start()].chars().count());
    let start = if match_char < MAX_LINE_CHARS / 2 {
        0
    } else {
        (match_char - 40).min(chars - MAX_LINE_CHARS)
    };
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(text.chars().skip(start).take(MAX_LINE_CHARS));
    if start + MAX_LINE_CHARS < chars {
        out.push('…');
    }
    out
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The tool's answer for `args` and what was found: `(content for the model, display)`.
pub fn render(args: &GrepArgs, r: &GrepResults) -> (String, String) {
    let q = &args.query;
    if r.total_matches == 0 {
        let mut msg = match &args.include_pattern {
            Some(p) if r.files_searched == 0 => {
                format!("No matches for `{q}`: no files match include_pattern `{p}`")
            }
            Some(p) => format!("No matches for `{q}` in files matching `{p}`"),
            None => format!("No matches for `{q}`"),
        };
        if !args.is_regexp && q.contains(['|', '*', '\\', '[', '(', '^', '$', '+', '?']) {
            msg.push_str(" (the query was searched as literal text; set is_regexp to true for a regular expression)");
        }
        return (msg.clone(), msg);
    }
    let display = format!(
        "{} in {} for `{q}`",
        plural(r.total_matches, "match", "matches"),
        plural(r.files_matched, "file", "files")
    );
    let mut content = display.clone();
    content.push(':');
    for h in &r.hits {
        content.push_str(&format!("\n{}:{}: {}", shown(&h.path), h.line, h.text));
    }
    let more = r.total_matches - r.hits.len() as u64;
    if more > 0 {
        content.push_str(&format!(
            "\n{more} more {} not shown (at most {MAX_PER_FILE} per file and {MAX_MATCHES} in all); narrow the query or use include_pattern",
            if more == 1 { "match" } else { "matches" }
        ));
    }
    (content, display)
}
