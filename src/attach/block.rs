//! The text block an attached file becomes: its path, the lines sent and of how many, the text
//! fenced, cut at [`MAX_TEXT_BYTES`] on a line end and said so. Pure.

use super::mention::LineRange;
use super::read::MAX_TEXT_BYTES;

/// The block for `text` (the file `shown`), whole or lines `range` (1-based, inclusive; an open
/// end runs to the last line, an end past it is clamped). Err: a start past the end.
pub fn text_block(shown: &str, text: &str, range: Option<LineRange>) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    let (head, selected) = match range {
        None => (format!("Attached @{shown} ({total} lines)"), &lines[..]),
        Some((start, end)) => {
            if start > total.max(1) {
                return Err(format!(
                    "`{shown}` has {total} lines; line {start} is past the end"
                ));
            }
            let end = end.unwrap_or(total).min(total);
            (
                format!("Attached @{shown} (lines {start}-{end} of {total})"),
                &lines[(start - 1).min(end)..end],
            )
        }
    };
    let mut body = String::new();
    let mut sent = 0;
    for line in selected {
        if body.len() + line.len() + 1 > MAX_TEXT_BYTES {
            break;
        }
        body.push_str(line);
        body.push('\n');
        sent += 1;
    }
    let cut = (sent < selected.len()).then(|| {
        format!(
            "\n(cut: only the first {sent} of these {} lines were attached, {MAX_TEXT_BYTES} bytes at most; read the rest with read_file)",
            selected.len()
        )
    });
    Ok(format!(
        "{head}:\n````\n{body}````{}",
        cut.unwrap_or_default()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_select_exactly_their_lines() {
        let text = "one\ntwo\nthree\nfour\n";
        let table: &[(Option<LineRange>, &str)] = &[
            (
                None,
                "Attached @a.txt (4 lines):\n````\none\ntwo\nthree\nfour\n````",
            ),
            (
                Some((2, Some(3))),
                "Attached @a.txt (lines 2-3 of 4):\n````\ntwo\nthree\n````",
            ),
            (
                Some((3, None)),
                "Attached @a.txt (lines 3-4 of 4):\n````\nthree\nfour\n````",
            ),
            (
                Some((4, Some(99))),
                "Attached @a.txt (lines 4-4 of 4):\n````\nfour\n````",
            ),
            (
                Some((1, Some(1))),
                "Attached @a.txt (lines 1-1 of 4):\n````\none\n````",
            ),
        ];
        for (range, want) in table {
            assert_eq!(
                text_block("a.txt", text, *range).unwrap(),
                *want,
                "{range:?}"
            );
        }
    }

    #[test]
    fn a_start_past_the_end_is_refused() {
        let e = text_block("a.txt", "one\n", Some((5, Some(6)))).unwrap_err();
        assert!(e.contains("has 1 lines; line 5"), "{e}");
    }

    #[test]
    fn a_long_file_is_cut_at_the_cap_on_a_line_end_and_says_so() {
        let line = "x".repeat(99);
        let text = format!("{line}\n").repeat(2000);
        let block = text_block("big.txt", &text, None).unwrap();
        assert!(block.len() < MAX_TEXT_BYTES + 400, "{}", block.len());
        let sent = MAX_TEXT_BYTES / 100;
        assert!(
            block.contains(&format!("only the first {sent} of these 2000 lines")),
            "{}",
            &block[block.len() - 200..]
        );
        assert!(block.contains(&format!("{line}\n````")));
    }
}
