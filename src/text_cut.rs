//! Cutting a string to a length without splitting a character: its start or its end within a
//! number of bytes, its start within a number of characters, and the `…` a shortened text ends
//! with. Every cut of sayso's own text to a byte or character limit goes through here (the
//! boundary is `str::floor_char_boundary` / `ceil_char_boundary`, never a hand-written loop).
//!
//! Not here: cutting to terminal columns (display width, clusters: `tui::wrap`), cutting
//! output at a line end or through secrets (the callers decide where; this only keeps the cut
//! on a character boundary).

/// The longest start of `s` of at most `max_bytes` bytes that ends on a character boundary.
pub fn head(s: &str, max_bytes: usize) -> &str {
    &s[..s.floor_char_boundary(max_bytes)]
}

/// The longest end of `s` of at most `max_bytes` bytes that starts on a character boundary.
pub fn tail(s: &str, max_bytes: usize) -> &str {
    &s[s.ceil_char_boundary(s.len().saturating_sub(max_bytes))..]
}

/// The first `max_chars` characters of `s` (all of it when shorter).
pub fn head_chars(s: &str, max_chars: usize) -> &str {
    s.char_indices().nth(max_chars).map_or(s, |(i, _)| &s[..i])
}

/// `kept` (a [`head`] or [`head_chars`] of `whole`) followed by `…` when it is shorter than
/// `whole`; `whole` itself when nothing was cut.
pub fn ellipsized(whole: &str, kept: &str) -> String {
    if kept.len() < whole.len() {
        format!("{kept}…")
    } else {
        whole.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn heads_and_tails_in_bytes() {
        // (text, max bytes, head, tail)
        let rows: &[(&str, usize, &str, &str)] = &[
            ("", 0, "", ""),
            ("", 5, "", ""),
            ("hello", 0, "", ""),
            ("hello", 3, "hel", "llo"),
            ("hello", 5, "hello", "hello"),
            ("hello", 99, "hello", "hello"),
            // é is 2 bytes: a cut inside it moves back (head) or forward (tail).
            ("aéb", 2, "a", "b"),
            ("aéb", 3, "aé", "éb"),
            ("éé", 1, "", ""),
            ("😀x", 3, "", "x"),
            ("x😀", 4, "x", "😀"),
        ];
        for &(text, max, h, t) in rows {
            assert_eq!(head(text, max), h, "head({text:?}, {max})");
            assert_eq!(tail(text, max), t, "tail({text:?}, {max})");
        }
    }

    #[test]
    fn heads_in_characters() {
        let rows: &[(&str, usize, &str)] = &[
            ("", 3, ""),
            ("abc", 0, ""),
            ("abc", 2, "ab"),
            ("abc", 3, "abc"),
            ("ééé", 2, "éé"),
            ("😀😀", 1, "😀"),
        ];
        for &(text, max, want) in rows {
            assert_eq!(head_chars(text, max), want, "head_chars({text:?}, {max})");
        }
    }

    #[test]
    fn an_ellipsis_marks_only_a_cut() {
        assert_eq!(ellipsized("hello", head("hello", 3)), "hel…");
        assert_eq!(ellipsized("hello", head("hello", 5)), "hello");
        assert_eq!(ellipsized("ééé", head_chars("ééé", 1)), "é…");
        assert_eq!(ellipsized("", ""), "");
    }

    proptest! {
        #[test]
        fn a_head_is_the_longest_whole_start_within_the_limit(s in "\\PC{0,12}", max in 0usize..40) {
            let h = head(&s, max);
            prop_assert!(s.starts_with(h));
            prop_assert!(h.len() <= max);
            // One more character would pass the limit (or there is none).
            let next = s[h.len()..].chars().next();
            prop_assert!(next.is_none_or(|c| h.len() + c.len_utf8() > max));
        }

        #[test]
        fn a_tail_is_the_longest_whole_end_within_the_limit(s in "\\PC{0,12}", max in 0usize..40) {
            let t = tail(&s, max);
            prop_assert!(s.ends_with(t));
            prop_assert!(t.len() <= max);
            let before = s[..s.len() - t.len()].chars().next_back();
            prop_assert!(before.is_none_or(|c| t.len() + c.len_utf8() > max));
        }

        #[test]
        fn a_char_head_has_that_many_characters(s in "\\PC{0,12}", max in 0usize..16) {
            let h = head_chars(&s, max);
            prop_assert!(s.starts_with(h));
            prop_assert_eq!(h.chars().count(), max.min(s.chars().count()));
        }
    }
}
