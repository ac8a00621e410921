//! The front matter of a command file or a `SKILL.md`: a block of `key: value` lines between
//! two `---` lines at the very top. Only flat string keys are read — no YAML crate, no lists,
//! no nesting: a value is the rest of its line, trimmed, one pair of surrounding quotes removed.
//!
//! What the keys mean is the caller's business; this only splits the file and reports lines it
//! cannot read (with their 1-based line numbers, for `file:line` notices). It never fails: a
//! file without front matter (or with an unclosed block) is all body.

/// One `key: value` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub key: String,
    pub value: String,
    /// 1-based line in the file.
    pub line: usize,
}

/// A file split into its front matter and its body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed<'a> {
    pub keys: Vec<Key>,
    /// Lines in the block that are not `key: value` (line, text).
    pub unreadable: Vec<(usize, String)>,
    pub body: &'a str,
}

impl Parsed<'_> {
    /// The value of `key` (the first, when given twice).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|k| k.key == key)
            .map(|k| k.value.as_str())
    }
}

fn is_fence(line: &str) -> bool {
    line.trim_end() == "---"
}

fn unquote(v: &str) -> &str {
    let v = v.trim();
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return &v[1..v.len() - 1];
        }
    }
    v
}

/// Splits `text` into front matter and body.
pub fn parse(text: &str) -> Parsed<'_> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let all_body = Parsed {
        body: text,
        ..Parsed::default()
    };
    match lines.next() {
        Some(first) if is_fence(first) => {}
        _ => return all_body,
    }
    let mut offset = text.split_inclusive('\n').next().map_or(0, str::len);
    let mut out = Parsed::default();
    for (i, line) in lines.enumerate() {
        let number = i + 2;
        offset += line.len();
        if is_fence(line) {
            out.body = &text[offset..];
            return out;
        }
        let content = line.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        match content.split_once(':') {
            Some((k, v)) if !k.trim().is_empty() && !k.contains(char::is_whitespace) => {
                out.keys.push(Key {
                    key: k.trim().to_owned(),
                    value: unquote(v).to_owned(),
                    line: number,
                })
            }
            _ => out.unreadable.push((number, content.to_owned())),
        }
    }
    // Never closed: not front matter after all.
    all_body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_split_from_the_body_with_line_numbers() {
        // (text, keys as "key=value@line", unreadable lines, body)
        let table: [(&str, &[&str], &[usize], &str); 7] = [
            ("just text\n", &[], &[], "just text\n"),
            (
                "---\ndescription: Review it\nargument-hint: [FILE]\n---\nBody $1\n",
                &["description=Review it@2", "argument-hint=[FILE]@3"],
                &[],
                "Body $1\n",
            ),
            (
                "---\r\ndescription: \"quoted: yes\"\r\n---\r\nx",
                &["description=quoted: yes@2"],
                &[],
                "x",
            ),
            (
                "---\n# a comment\n\nmodel: gpt-5\nnot a pair\n---\n",
                &["model=gpt-5@4"],
                &[5],
                "",
            ),
            (
                "---\ndescription: never closed\nbody",
                &[],
                &[],
                "---\ndescription: never closed\nbody",
            ),
            (
                "text\n---\nkey: v\n---\n",
                &[],
                &[],
                "text\n---\nkey: v\n---\n",
            ),
            ("\u{feff}---\nname: x\n---\nb", &["name=x@2"], &[], "b"),
        ];
        for (text, keys, unreadable, body) in table {
            let p = parse(text);
            let got: Vec<String> = p
                .keys
                .iter()
                .map(|k| format!("{}={}@{}", k.key, k.value, k.line))
                .collect();
            assert_eq!(got, keys, "{text:?}");
            let lines: Vec<usize> = p.unreadable.iter().map(|u| u.0).collect();
            assert_eq!(lines, unreadable, "{text:?}");
            assert_eq!(p.body, body, "{text:?}");
        }
        assert_eq!(parse("---\na: 1\na: 2\n---\n").get("a"), Some("1"));
    }
}
