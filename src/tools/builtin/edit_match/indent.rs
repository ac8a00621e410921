//! Whitespace-tolerant comparison of lines and re-indentation of `newText` to the matched block.

use std::collections::HashMap;

use super::*;

pub(super) fn is_blank_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The bytes of `s` with every run of spaces/tabs as one space.
pub(super) fn collapsed(s: &str) -> impl Iterator<Item = u8> + '_ {
    let b = s.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        let c = *b.get(i)?;
        i += 1;
        if is_blank_ws(c) {
            while b.get(i).is_some_and(|&c| is_blank_ws(c)) {
                i += 1;
            }
            Some(b' ')
        } else {
            Some(c)
        }
    })
}

pub(super) fn whitespace_eq(a: &str, b: &str) -> bool {
    collapsed(a.trim_end()).eq(collapsed(b.trim_end()))
}

pub(super) fn trimmed_eq(a: &str, b: &str) -> bool {
    a.trim() == b.trim()
}

pub(super) fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start_matches([' ', '\t']).len()]
}

pub(super) fn cols(ws: &str) -> usize {
    ws.chars().map(|c| if c == '\t' { TAB } else { 1 }).sum()
}

/// Whether `lines` indent with tabs, and their indentation step in columns (the most common
/// increase between consecutive non-blank lines, preferring steps of 2 or more).
pub(super) fn indent_style(lines: &[&str]) -> (bool, Option<usize>) {
    let non_blank: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let tabs = non_blank.iter().any(|l| leading_ws(l).contains('\t'));
    if tabs {
        return (true, Some(TAB));
    }
    let mut steps: HashMap<usize, usize> = HashMap::new();
    for w in non_blank.windows(2) {
        let (a, b) = (cols(leading_ws(w[0])), cols(leading_ws(w[1])));
        if b > a {
            *steps.entry(b - a).or_default() += 1;
        }
    }
    let wide = steps.keys().any(|&s| s >= 2);
    let step = steps
        .into_iter()
        .filter(|&(s, _)| s >= 2 || !wide)
        .max_by_key(|&(s, n)| (n, std::cmp::Reverse(s)))
        .map(|(s, _)| s);
    (false, step)
}

pub(super) fn render_indent(n: usize, tabs: bool) -> String {
    if tabs {
        format!("{}{}", "\t".repeat(n / TAB), " ".repeat(n % TAB))
    } else {
        " ".repeat(n)
    }
}

/// `new` re-indented from `old`'s indentation to `matched`'s: line `anchor.0` of `old`
/// corresponds to line `anchor.1` of `matched`; every line of `new` keeps its indentation
/// relative to that anchor, converted to the matched block's style.
pub(super) fn reindent(
    new: &str,
    old: &[&str],
    matched: &[&str],
    anchor: (usize, usize),
) -> String {
    let old_base = cols(leading_ws(old[anchor.0])) as isize;
    let cur_base_ws = leading_ws(matched[anchor.1]);
    let cur_base = cols(cur_base_ws) as isize;
    let (old_tabs, old_step) = indent_style(old);
    let (cur_tabs, cur_step) = indent_style(matched);
    let old_step = old_step.or(cur_step).unwrap_or(4) as isize;
    let cur_step = match cur_step {
        Some(s) => s,
        None if cur_tabs => TAB,
        None if !old_tabs => old_step as usize,
        None => 4,
    } as isize;
    let mut out = String::with_capacity(new.len() + 16);
    for (n, line) in new.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        if line.trim().is_empty() {
            continue;
        }
        let ws = leading_ws(line);
        let rel = cols(ws) as isize - old_base;
        let extra = rel.div_euclid(old_step) * cur_step + rel.rem_euclid(old_step);
        if rel >= 0 {
            out.push_str(cur_base_ws);
            out.push_str(&render_indent(extra as usize, cur_tabs));
        } else {
            out.push_str(&render_indent((cur_base + extra).max(0) as usize, cur_tabs));
        }
        out.push_str(&line[ws.len()..]);
    }
    out
}

/// `new` placed over lines `first..first + matched.len()`: re-indented when the matched lines'
/// indentation differs from `old`'s, and with its final newline adjusted to the match.
pub(super) fn line_replacement(
    lines: &Lines,
    old: &OldLines,
    new: &str,
    first: usize,
    count: usize,
    score: Option<f32>,
) -> Found {
    let last = first + count - 1;
    let start = lines.starts[first];
    let mut end = lines.end(last);
    let took_newline = old.eol && end < lines.text.len();
    if took_newline {
        end += 1;
    }
    let matched: Vec<&str> = (first..=last).map(|i| lines.line(i)).collect();
    let differs = if matched.len() == old.lines.len() {
        old.lines
            .iter()
            .zip(&matched)
            .any(|(o, m)| !o.trim().is_empty() && leading_ws(o) != leading_ws(m))
    } else {
        leading_ws(old.lines[0]) != leading_ws(matched[0])
            || leading_ws(old.lines[old.lines.len() - 1]) != leading_ws(matched[count - 1])
    };
    let mut replacement = if differs {
        let anchor = if matched.len() == old.lines.len() {
            let j = old
                .lines
                .iter()
                .position(|l| !l.trim().is_empty())
                .unwrap_or(0);
            (j, j)
        } else {
            (0, 0)
        };
        let (body, nl) = match new.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (new, ""),
        };
        format!("{}{nl}", reindent(body, &old.lines, &matched, anchor))
    } else {
        new.to_owned()
    };
    if old.eol && !took_newline && replacement.ends_with('\n') {
        replacement.pop();
    }
    Found {
        start,
        end,
        replacement: Some(replacement),
        reindented: differs,
        score,
    }
}
