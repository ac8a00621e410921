//! HTML to readable text for `fetch_webpage`: the title, headings, paragraphs, list items and
//! links (text followed by the URL), without scripts, styles, navigation chrome or markup.
//! A small tolerant scanner, not a full HTML parser: good enough to hand a page to a model.

fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find(';').filter(|&e| e <= 10);
        let Some(end) = end else {
            out.push('&');
            rest = &tail[1..];
            continue;
        };
        let name = &tail[1..end];
        let ch = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" | "#39" => Some('\''),
            "nbsp" => Some(' '),
            "mdash" => Some('—'),
            "ndash" => Some('–'),
            "hellip" => Some('…'),
            n if n.starts_with("#x") || n.starts_with("#X") => u32::from_str_radix(&n[2..], 16)
                .ok()
                .and_then(char::from_u32),
            n if n.starts_with('#') => n[1..].parse::<u32>().ok().and_then(char::from_u32),
            _ => None,
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &tail[end + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let lower = tag.to_ascii_lowercase();
    let i = lower.find(&format!("{name}="))?;
    let v = &tag[i + name.len() + 1..];
    let (quote, v) = match v.chars().next()? {
        q @ ('"' | '\'') => (Some(q), &v[1..]),
        _ => (None, v),
    };
    let end = match quote {
        Some(q) => v.find(q)?,
        None => v
            .find(|c: char| c.is_whitespace() || c == '>')
            .unwrap_or(v.len()),
    };
    Some(decode_entities(&v[..end]))
}

/// The readable text of an HTML document.
pub fn html_to_text(html: &str) -> String {
    let mut page = PageText::default();
    let mut rest = html;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            page.text(rest);
            break;
        };
        page.text(&rest[..lt]);
        rest = &rest[lt..];
        if rest.starts_with("<!--") {
            rest = rest.find("-->").map_or("", |e| &rest[e + 3..]);
            continue;
        }
        let Some(gt) = rest.find('>') else { break };
        let tag = &rest[1..gt];
        rest = &rest[gt + 1..];
        page.tag(tag);
    }
    page.finish()
}

/// The text being built as the scanner walks the document, and where the scanner is: inside a
/// title, a `<pre>`, a link, or an element whose content is dropped.
#[derive(Default)]
struct PageText {
    out: String,
    title: String,
    skip_until: Option<&'static str>,
    in_title: bool,
    in_pre: bool,
    link: Option<String>,
}

impl PageText {
    fn text(&mut self, s: &str) {
        push_text(
            &mut self.out,
            s,
            self.in_pre,
            self.skip_until.is_some(),
            self.in_title,
            &mut self.title,
        );
    }

    /// One tag (the text between `<` and `>`): it may start or end a skipped element, or add
    /// the markdown-like markup its element stands for.
    fn tag(&mut self, tag: &str) {
        let closing = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if let Some(until) = self.skip_until {
            if closing && name == until {
                self.skip_until = None;
            }
            return;
        }
        let out = &mut self.out;
        match (name.as_str(), closing) {
            ("script", false) => self.skip_until = Some("script"),
            ("style", false) => self.skip_until = Some("style"),
            ("noscript", false) => self.skip_until = Some("noscript"),
            ("svg", false) => self.skip_until = Some("svg"),
            ("nav", false) => self.skip_until = Some("nav"),
            ("title", false) => self.in_title = true,
            ("title", true) => self.in_title = false,
            ("pre", false) => {
                self.in_pre = true;
                out.push_str("\n\n```\n");
            }
            ("pre", true) => {
                self.in_pre = false;
                out.push_str("\n```\n\n");
            }
            ("br", _) => out.push('\n'),
            ("li", false) => out.push_str("\n- "),
            ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", false) => {
                let level = name[1..].parse::<usize>().unwrap_or(1);
                out.push_str(&format!("\n\n{} ", "#".repeat(level)));
            }
            (
                "p" | "div" | "section" | "article" | "header" | "footer" | "ul" | "ol" | "table"
                | "tr" | "blockquote" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6",
                _,
            ) => out.push_str("\n\n"),
            ("td" | "th", false) => out.push_str(" | "),
            ("a", false) => self.link = attr(tag, "href"),
            ("a", true) => {
                if let Some(href) = self.link.take().filter(|h| h.starts_with("http")) {
                    out.push_str(&format!(" ({href})"));
                }
            }
            _ => {}
        }
    }

    /// The text with blank-line runs collapsed, under the title as a heading.
    fn finish(self) -> String {
        let text = collapse_blank_lines(&self.out);
        let title = self.title.split_whitespace().collect::<Vec<_>>().join(" ");
        if title.is_empty() {
            text
        } else {
            format!("# {title}\n\n{text}")
        }
    }
}

/// Collapses runs of blank lines into one and drops trailing spaces.
fn collapse_blank_lines(out: &str) -> String {
    let mut text = String::new();
    let mut blank = 0;
    for line in out.lines() {
        let line = line.trim_end();
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !text.is_empty() {
            text.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        text.push_str(line);
    }
    text
}

fn push_text(
    out: &mut String,
    s: &str,
    pre: bool,
    skipping: bool,
    in_title: bool,
    title: &mut String,
) {
    if skipping || s.is_empty() {
        return;
    }
    let decoded = decode_entities(s);
    if in_title {
        title.push_str(&decoded);
        return;
    }
    if pre {
        out.push_str(&decoded);
        return;
    }
    let collapsed = decoded.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.is_empty() {
        if !decoded.is_empty() && !out.ends_with(char::is_whitespace) {
            out.push(' ');
        }
        return;
    }
    if decoded.starts_with(char::is_whitespace) && !out.ends_with(char::is_whitespace) {
        out.push(' ');
    }
    out.push_str(&collapsed);
    if decoded.ends_with(char::is_whitespace) {
        out.push(' ');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readable_text_from_a_page() {
        let html = r#"<!doctype html><html><head><title>Rust &amp; You</title><style>p{color:red}</style>
            <script>alert("x")</script></head><body><nav><a href="/">Home</a></nav>
            <h1>Hello</h1><p>First <b>bold</b> para&nbsp;here.</p><!-- hidden -->
            <ul><li>one</li><li>two <a href="https://example.com/x">link</a></li></ul>
            <pre>fn main() {
    x();
}</pre><p>&#x263A; &lt;end&gt;</p></body></html>"#;
        assert_eq!(
            html_to_text(html),
            "# Rust & You\n\n# Hello\n\nFirst bold para here.\n\n- one\n- two link (https://example.com/x)\n\n```\nfn main() {\n    x();\n}\n```\n\n☺ <end>"
        );
    }
}
