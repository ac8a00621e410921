//! What `/NAME args` sends: the command file's body with `$ARGUMENTS` replaced by everything
//! after the name and `$1` … `$9` by its words (a word may be `"quoted with spaces"` or
//! `'so'`; a missing one is empty). A body that names no argument gets the arguments appended
//! after a blank line, so `/review src/main.rs` is never silently dropped. `$` followed by
//! anything else (`$HOME`, `$0`, `$10` is `$1` then `0`) stays as written; nothing is
//! evaluated, and `@path` is left for the composer's attachments.

/// The words of `args`: split on whitespace, quotes grouping (and removed).
pub fn words(args: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in args.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => word.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            None => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

/// `body` with the arguments substituted.
pub fn substitute(body: &str, args: &str) -> String {
    let args = args.trim();
    let words = words(args);
    let mut out = String::with_capacity(body.len() + args.len());
    let mut used = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            used = true;
            rest = tail;
        } else if let Some(d) = after.chars().next().filter(|c| ('1'..='9').contains(c)) {
            let n = d as usize - '1' as usize;
            out.push_str(words.get(n).map_or("", String::as_str));
            used = true;
            rest = &after[1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        out.push_str("\n\n");
        out.push_str(args);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_and_positions_are_substituted() {
        let table = [
            ("Review $ARGUMENTS now", "a.rs b.rs", "Review a.rs b.rs now"),
            (
                "Compare $1 with $2.",
                "a.rs b.rs",
                "Compare a.rs with b.rs.",
            ),
            (
                "Fix $1: $2",
                "\"the bug\" 'in parser'",
                "Fix the bug: in parser",
            ),
            ("Only $1 and $3", "x", "Only x and "),
            (
                "Costs $5 or $HOME or $0 or $10",
                "a b c d e",
                "Costs e or $HOME or $0 or a0",
            ),
            ("Trailing $", "", "Trailing $"),
            (
                "No placeholder.\n",
                "look at @src/main.rs",
                "No placeholder.\n\nlook at @src/main.rs",
            ),
            (
                "No placeholder and no args.\n",
                "   ",
                "No placeholder and no args.\n",
            ),
            ("$ARGUMENTS$ARGUMENTS", "ab", "abab"),
            ("Read @$1 please", "notes.md", "Read @notes.md please"),
            ("Unicode $1 ✓", "é", "Unicode é ✓"),
        ];
        for (body, args, want) in table {
            assert_eq!(substitute(body, args), want, "{body:?} {args:?}");
        }
    }

    #[test]
    fn words_group_quotes() {
        assert_eq!(words(" a  \"b c\" d'e f' '' "), ["a", "b c", "de f", ""]);
        assert!(words("").is_empty());
    }
}
