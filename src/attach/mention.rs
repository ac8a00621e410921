//! The `@path` and `@path:10-40` mentions of a message: where they are and what they name.
//!
//! A mention starts with `@` at the start of the message or after whitespace, and runs to the
//! next whitespace; trailing sentence punctuation (`.,;!?)`) is not part of it. `@{…}` is a
//! tool-group mention ([`crate::agent::mentions`]), never a file. A `:N` or `:N-M` suffix is a
//! 1-based inclusive line range. Pure: whether the path exists is the caller's question.

/// Lines `start..=end` (1-based); `end` is `None` for `:N-` (to the last line).
pub type LineRange = (usize, Option<usize>);

/// One `@path[:range]` in a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The path as typed.
    pub path: String,
    /// Lines `start..=end` (1-based), when a range was given; `end` is `None` for `:N-`.
    pub range: Option<LineRange>,
    /// The mention as typed, without the `@` (for the chip).
    pub typed: String,
}

/// The mentions of `message`, in order.
pub fn mentions(message: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    let mut prev_space = true;
    for (i, c) in message.char_indices() {
        if c == '@' && prev_space {
            let rest = &message[i + 1..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let token = rest[..end].trim_end_matches(['.', ',', ';', '!', '?', ')', '"', '\'']);
            if let Some(m) = parse(token) {
                out.push(m);
            }
        }
        prev_space = c.is_whitespace();
    }
    out
}

/// One token after `@`: its path and range, or `None` when it is not a file mention.
pub fn parse(token: &str) -> Option<Mention> {
    if token.is_empty() || token.starts_with('{') {
        return None;
    }
    let (path, range) = match token.rsplit_once(':') {
        Some((path, spec)) if !path.is_empty() => match range(spec) {
            Some(r) => (path, Some(r)),
            None => (token, None),
        },
        _ => (token, None),
    };
    Some(Mention {
        path: path.to_owned(),
        range,
        typed: token.to_owned(),
    })
}

/// `N`, `N-M` or `N-`: 1-based, `N ≥ 1`, `M ≥ N`.
fn range(spec: &str) -> Option<LineRange> {
    let num = |s: &str| -> Option<usize> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let (start, end) = match spec.split_once('-') {
        Some((a, "")) => (num(a)?, None),
        Some((a, b)) => (num(a)?, Some(num(b)?)),
        None => {
            let n = num(spec)?;
            (n, Some(n))
        }
    };
    (start >= 1 && end.is_none_or(|e| e >= start)).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Found = (String, Option<LineRange>);

    fn m(path: &str, range: Option<LineRange>) -> Found {
        (path.to_owned(), range)
    }

    #[test]
    fn mentions_and_ranges_are_found() {
        let table: &[(&str, Vec<Found>)] = &[
            ("explain @src/main.rs", vec![m("src/main.rs", None)]),
            (
                "@a.rs:10-40 and @b.rs:3",
                vec![
                    m("a.rs", Some((10, Some(40)))),
                    m("b.rs", Some((3, Some(3)))),
                ],
            ),
            ("see @a.rs:5-.", vec![m("a.rs", Some((5, None)))]),
            (
                "look at @a.rs, then @b.rs.",
                vec![m("a.rs", None), m("b.rs", None)],
            ),
            ("(@a.rs)", vec![]),
            ("mail me@example.com", vec![]),
            ("use @{git} please", vec![]),
            ("@", vec![]),
            ("@a.rs:0-3", vec![m("a.rs:0-3", None)]),
            ("@a.rs:9-3", vec![m("a.rs:9-3", None)]),
            ("@a.rs:x", vec![m("a.rs:x", None)]),
            ("@C:", vec![m("C:", None)]),
            ("line\n@dir/", vec![m("dir/", None)]),
            ("ünï @ü.rs:1-2", vec![m("ü.rs", Some((1, Some(2))))]),
        ];
        for (text, want) in table {
            let got: Vec<_> = mentions(text)
                .into_iter()
                .map(|m| (m.path, m.range))
                .collect();
            assert_eq!(&got, want, "{text}");
        }
    }

    #[test]
    fn the_chip_keeps_the_range_as_typed() {
        assert_eq!(mentions("@a.rs:2-3")[0].typed, "a.rs:2-3");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC*") {
            let _ = mentions(&s);
        }
    }
}
