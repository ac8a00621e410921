//! The scrubber: every exact occurrence of a secret value in a text replaced by a marker that
//! names the secret (`[secret $OPENAI_API_KEY removed]`), never its value.
//!
//! Values shorter than [`MIN_SCRUB_LEN`] bytes are not scrubbed (a short header value such as
//! `sayso` would otherwise replace every such word; they are still kept out of every child's
//! environment). A value is also looked for in its JSON/TOML-escaped form (`\"`, `\\`, `\n`…), so
//! a config file shown as written is scrubbed too. Occurrences that overlap or touch (two secrets
//! sharing bytes, a value repeated) become one marker naming each secret once. Matches of valid
//! UTF-8 in valid UTF-8 always start and end on character boundaries, so the result is valid
//! text. Pure: no IO, no global state (that is [`super::Vault`]).

use std::borrow::Cow;
use std::fmt;

/// Secret values shorter than this (in bytes) are not scrubbed from text.
pub const MIN_SCRUB_LEN: usize = 8;

/// One secret: what the marker calls it, and its value.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret {
    /// `$OPENAI_API_KEY`, `header X-Api-Key`, `mcp_servers.gh.env.TOKEN`.
    pub label: String,
    pub value: String,
}

impl Secret {
    pub fn new(label: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            value: value.into(),
        }
    }
}

/// Never prints the value.
impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret({}, {} bytes)", self.label, self.value.len())
    }
}

/// The marker that replaces secrets named `labels`.
pub fn marker(labels: &[&str]) -> String {
    format!("[secret {} removed]", labels.join(", "))
}

/// A set of secrets to scrub text of.
#[derive(Debug, Clone, Default)]
pub struct Scrubber {
    /// (label, a form of the value to look for), longest first.
    needles: Vec<(String, String)>,
}

impl Scrubber {
    pub fn new<'a>(secrets: impl IntoIterator<Item = &'a Secret>) -> Self {
        let mut s = Self::default();
        for secret in secrets {
            s.add(secret);
        }
        s
    }

    /// Adds a secret (once; a value too short to scrub is ignored here).
    pub fn add(&mut self, secret: &Secret) {
        let escaped = escaped(&secret.value);
        for form in [secret.value.clone(), escaped] {
            if form.len() < MIN_SCRUB_LEN || self.needles.iter().any(|(_, v)| *v == form) {
                continue;
            }
            self.needles.push((secret.label.clone(), form));
        }
        self.needles.sort_by_key(|n| std::cmp::Reverse(n.1.len()));
    }

    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// The length of the longest form of a secret (0 when there is none).
    pub fn longest(&self) -> usize {
        self.needles.first().map_or(0, |n| n.1.len())
    }

    /// Scrubs `text` where `text[..grown_from]` was already scrubbed and only the rest is new:
    /// a secret the new part completes starts at most `longest - 1` bytes before it, so only
    /// that window is searched (a reply growing piece by piece costs its pieces, not its
    /// length each time).
    pub fn scrub_grown(&self, text: &mut String, grown_from: usize) {
        let from = text.floor_char_boundary(
            grown_from
                .min(text.len())
                .saturating_sub(self.longest().saturating_sub(1)),
        );
        if let Cow::Owned(tail) = self.scrub(&text[from..]) {
            text.truncate(from);
            text.push_str(&tail);
        }
    }

    /// `text` with every occurrence of a secret replaced by its marker (borrowed when none).
    pub fn scrub<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut spans: Vec<(usize, usize, &str)> = Vec::new();
        for (label, value) in &self.needles {
            let mut from = 0;
            while let Some(at) = text.get(from..).and_then(|rest| rest.find(value.as_str())) {
                let start = from + at;
                spans.push((start, start + value.len(), label));
                // Overlapping occurrences of the same value (`aaaa` in `aaaaa`) are all found:
                // the next search starts one character later.
                from = start + text[start..].chars().next().map_or(1, char::len_utf8);
            }
        }
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        spans.sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        let mut i = 0;
        while i < spans.len() {
            let (start, mut end, label) = spans[i];
            let mut labels = vec![label];
            i += 1;
            while i < spans.len() && spans[i].0 <= end {
                end = end.max(spans[i].1);
                if !labels.contains(&spans[i].2) {
                    labels.push(spans[i].2);
                }
                i += 1;
            }
            out.push_str(&text[at..start]);
            out.push_str(&marker(&labels));
            at = end;
        }
        out.push_str(&text[at..]);
        Cow::Owned(out)
    }
}

impl Scrubber {
    /// Where a text that will be continued (a reply streamed in pieces) may be cut so that
    /// [`Self::scrub`] of the part before the cut misses no secret: before the start of any
    /// ending of `text` that begins a secret (the rest may follow in the next piece), and never
    /// inside an occurrence. `text.len()` when nothing needs holding back.
    pub fn safe_cut(&self, text: &str) -> usize {
        let mut cut = text.len();
        for (_, value) in &self.needles {
            // The longest ending of `text` that is a proper beginning of `value`.
            let longest = (1..value.len().min(text.len() + 1))
                .rev()
                .filter(|&k| value.is_char_boundary(k))
                .find(|&k| text.ends_with(&value[..k]));
            if let Some(k) = longest {
                cut = cut.min(text.len() - k);
            }
        }
        // Never inside a whole occurrence: move the cut to its start, until none spans it.
        loop {
            let inside = self.needles.iter().find_map(|(_, value)| {
                let mut from = 0;
                while let Some(at) = text.get(from..).and_then(|r| r.find(value.as_str())) {
                    let start = from + at;
                    if start < cut && cut < start + value.len() {
                        return Some(start);
                    }
                    from = start + text[start..].chars().next().map_or(1, char::len_utf8);
                }
                None
            });
            match inside {
                Some(start) => cut = start,
                None => return cut,
            }
        }
    }
}

/// `value` as a JSON string body (also TOML's basic-string escapes for `"` and `\`).
fn escaped(value: &str) -> String {
    let quoted = serde_json::to_string(value).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scrubber(pairs: &[(&str, &str)]) -> Scrubber {
        let secrets: Vec<Secret> = pairs.iter().map(|(l, v)| Secret::new(*l, *v)).collect();
        Scrubber::new(&secrets)
    }

    #[test]
    fn every_occurrence_is_replaced_by_a_marker_naming_the_secret() {
        let s = scrubber(&[("$KEY", "sk-live-123456")]);
        assert_eq!(
            s.scrub("a sk-live-123456 b sk-live-123456"),
            "a [secret $KEY removed] b [secret $KEY removed]"
        );
        assert!(matches!(s.scrub("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn several_secrets_and_their_overlaps_become_one_marker_each_run() {
        let s = scrubber(&[
            ("$A", "abcdefgh12"),
            ("$B", "gh12345678"),
            ("$C", "zzzzzzzz"),
        ]);
        // A and B share `gh12`: one marker covers both.
        assert_eq!(s.scrub("xabcdefgh12345678y"), "x[secret $A, $B removed]y");
        // One value inside another: the longer one's marker.
        let nested = scrubber(&[("$LONG", "token-abcdefgh-xyz"), ("$SHORT", "abcdefgh")]);
        assert_eq!(
            nested.scrub("token-abcdefgh-xyz and abcdefgh"),
            "[secret $LONG, $SHORT removed] and [secret $SHORT removed]"
        );
        // A value repeated with overlap (`zzzzzzzz` in nine z).
        assert_eq!(s.scrub("zzzzzzzzz!"), "[secret $C removed]!");
        assert_eq!(
            s.scrub("abcdefgh12 zzzzzzzz"),
            "[secret $A removed] [secret $C removed]"
        );
    }

    #[test]
    fn values_shorter_than_the_minimum_are_left_in_text() {
        let s = scrubber(&[("header X-Title", "sayso"), ("$K", "12345678")]);
        assert_eq!(
            s.scrub("sayso 1234567 12345678"),
            "sayso 1234567 [secret $K removed]"
        );
        assert!(scrubber(&[("$E", "")]).is_empty());
    }

    #[test]
    fn multibyte_values_and_neighbours_keep_the_text_valid() {
        let s = scrubber(&[("$K", "ключ-секрет"), ("$E", "😀😀")]);
        assert_eq!(s.scrub("äключ-секретö"), "ä[secret $K removed]ö");
        // Two 4-byte emoji are 8 bytes: scrubbed, with multibyte text either side.
        assert_eq!(s.scrub("é😀😀😀é"), "é[secret $E removed]é");
        // A value that is only a part of a character sequence never splits a character.
        let text = "日本語のテキスト";
        assert_eq!(
            scrubber(&[("$J", "本語のテ")]).scrub(text),
            "日[secret $J removed]キスト"
        );
    }

    #[test]
    fn the_escaped_form_of_a_value_is_scrubbed_too() {
        let s = scrubber(&[("header X-Token", r#"ab"cd\ef-1234"#)]);
        let toml = r#"headers = { "X-Token" = "ab\"cd\\ef-1234" }"#;
        assert_eq!(
            s.scrub(toml),
            r#"headers = { "X-Token" = "[secret header X-Token removed]" }"#
        );
    }

    #[test]
    fn a_continued_text_is_cut_before_anything_that_may_be_a_secret() {
        let s = scrubber(&[("$K", "sk-live-123456"), ("$E", "3456etYY-other")]);
        assert_eq!(s.safe_cut("nothing ok"), 10);
        // An ending that begins a secret waits for the next piece.
        assert_eq!(s.safe_cut("key: sk-li"), 5);
        assert_eq!(s.safe_cut("key: s"), 5);
        // A whole secret is scrubbed now; an ending beginning another one inside it does not
        // split it.
        let text = "xx sk-live-123456";
        let one = scrubber(&[("$K", "sk-live-123456")]);
        assert_eq!(one.safe_cut(text), text.len());
        let text = "ab sk-live-123456et";
        assert_eq!(s.safe_cut(text), 3);
        assert_eq!(scrubber(&[]).safe_cut("abc"), 3);
    }

    /// Scrubbing only the window a new piece can complete gives what scrubbing the whole text
    /// after every piece gives, wherever the pieces split the secrets (multibyte text too).
    #[test]
    fn scrubbing_as_a_text_grows_equals_rescanning_it_whole() {
        let s = scrubber(&[("$KEY", "sk-live-123456"), ("$ÜBER", "überlang-geheim")]);
        let whole = "x sk-live-123456 y überlang-geheim z sk-live-123456sk-live-123456 ü";
        let chars: Vec<char> = whole.chars().collect();
        for size in 1..=9 {
            let (mut grown, mut rescanned) = (String::new(), String::new());
            for piece in chars.chunks(size) {
                let from = grown.len();
                grown.extend(piece);
                s.scrub_grown(&mut grown, from);
                rescanned.extend(piece);
                rescanned = s.scrub(&rescanned).into_owned();
            }
            assert_eq!(grown, rescanned, "pieces of {size}");
            assert!(
                !grown.contains("sk-live") && !grown.contains("geheim"),
                "{grown}"
            );
        }
    }

    #[test]
    fn debug_never_shows_the_value() {
        let shown = format!("{:?}", Secret::new("$K", "sk-live-123456"));
        assert!(!shown.contains("sk-live"), "{shown}");
    }
}
