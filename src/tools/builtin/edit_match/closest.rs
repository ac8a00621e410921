//! When no strategy finds an `oldText`: the region of the file most like it, shown in the
//! error so the model can see what the file really says there.

use std::collections::HashMap;

use memchr::memmem;

use super::{Closest, Lines, OldLines, has_alnum};

/// The region most like `old`: the window with the most lines equal to `old`'s after trimming,
/// else the first line holding one of `old`'s longest words.
pub(super) fn closest(lines: &Lines, old: &OldLines) -> Option<Closest> {
    let k = old.lines.len();
    let n = lines.len();
    if n == 0 {
        return None;
    }
    let distinctive = |l: &str| has_alnum(l) || l.trim().len() >= 3;
    let mut keys: HashMap<&str, Vec<usize>> = HashMap::new();
    for (j, l) in old.lines.iter().enumerate() {
        let t = l.trim();
        if !t.is_empty() && distinctive(t) {
            keys.entry(t).or_default().push(j);
        }
    }
    let window = |start: usize, why: String| {
        let end = (start + k).min(n) - 1;
        Closest {
            start_line: start + 1,
            end_line: end + 1,
            why,
            lines: (start..=end.min(start + 7))
                .map(|i| (i + 1, shorten_keep_indent(lines.line(i), 160)))
                .collect(),
        }
    };
    if !keys.is_empty() {
        let mut votes: HashMap<usize, usize> = HashMap::new();
        for i in 0..n {
            if let Some(js) = keys.get(lines.line(i).trim()) {
                for &j in js {
                    if i >= j {
                        *votes.entry(i - j).or_default() += 1;
                    }
                }
            }
        }
        if let Some((start, v)) = votes
            .into_iter()
            .max_by_key(|&(s, v)| (v, std::cmp::Reverse(s)))
        {
            let start = start.min(n - 1);
            return Some(window(
                start,
                format!("{v} of {k} lines equal ignoring indentation"),
            ));
        }
    }
    // No line in common: the first line holding one of oldText's longest words.
    let mut words: Vec<(usize, &str)> = Vec::new();
    for (j, l) in old.lines.iter().enumerate() {
        for w in l.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if w.chars().count() >= 4 && !words.iter().any(|(_, x)| *x == w) {
                words.push((j, w));
            }
        }
    }
    words.sort_by_key(|(_, w)| std::cmp::Reverse(w.len()));
    for (j, w) in words.into_iter().take(5) {
        if let Some(pos) = memmem::find(lines.text.as_bytes(), w.as_bytes()) {
            let start = lines.line_of(pos).saturating_sub(j);
            return Some(window(start, format!("it contains `{w}`")));
        }
    }
    None
}

fn shorten_keep_indent(s: &str, max: usize) -> String {
    crate::text_cut::ellipsized(s, crate::text_cut::head_chars(s, max))
}
