//! Caps what a tool sends to the model (SPEC §8.3): the head and the tail are kept, cut at line
//! boundaries where possible, with a note in between saying how much was left out.

/// The default cap, in characters, of one tool result.
pub use crate::config::opts::DEFAULT_OUTPUT_LIMIT as DEFAULT_LIMIT;

/// `text` if it fits in `limit` characters; otherwise about two thirds from the start and one
/// third from the end, and a note of what was cut.
pub fn cap(text: &str, limit: usize) -> String {
    let total = text.chars().count();
    if total <= limit || limit == 0 {
        return text.to_owned();
    }
    let head_chars = limit * 2 / 3;
    let tail_chars = limit - head_chars;
    let byte_at = |chars: usize| crate::text_cut::head_chars(text, chars).len();
    let mut head_end = byte_at(head_chars);
    if let Some(nl) = text[..head_end].rfind('\n').filter(|&nl| nl > head_end / 2) {
        head_end = nl + 1;
    }
    let mut tail_start = byte_at(total - tail_chars);
    if let Some(nl) = text[tail_start..]
        .find('\n')
        .filter(|&nl| nl < (text.len() - tail_start) / 2)
    {
        tail_start += nl + 1;
    }
    let cut = &text[head_end..tail_start];
    format!(
        "{}\n[… {} characters ({} lines) not shown: the output was longer than {limit} characters …]\n{}",
        text[..head_end].trim_end_matches('\n'),
        cut.chars().count(),
        cut.lines().count(),
        &text[tail_start..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(cap("abc", 10), "abc");
    }

    #[test]
    fn long_text_keeps_head_and_tail_at_line_boundaries() {
        let text: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        let capped = cap(&text, 300);
        assert!(capped.starts_with("line 1\nline 2\n"), "{capped}");
        assert!(capped.ends_with("line 999\nline 1000\n"), "{capped}");
        assert!(capped.contains("characters ("), "{capped}");
        assert!(capped.chars().count() < 420, "{}", capped.chars().count());
        let note = capped.lines().find(|l| l.starts_with("[…")).unwrap();
        let cut: usize = note.split_whitespace().nth(1).unwrap().parse().unwrap();
        // The head lost its final newline to the note line: one newline less in all.
        assert_eq!(
            cut + capped.chars().count() - note.chars().count() - 1,
            text.chars().count()
        );
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "é".repeat(1000);
        let capped = cap(&text, 100);
        assert!(capped.starts_with("éé") && capped.ends_with("éé"));
    }
}
