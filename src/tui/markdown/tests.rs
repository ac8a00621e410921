//! Tests of the parent module.

use super::*;
use proptest::prelude::*;
use ratatui::style::{Color, Modifier};

/// A document with every construct (ordinary enough that `split_blocks` is exact).
const SAMPLE: &str = r#"# Title of the document

Some *emphasis*, **strong**, ~~struck~~ and `inline code` text, with a [link](https://example.com/docs) and an autolink <https://example.com>. This sentence is long enough to wrap.
A soft break joins lines; a hard break  
starts a new line.

## Lists

- first item
- second item with a long text that needs wrapping to show the hanging indent
  - nested item
    1. deep ordered
- [ ] task to do
- [x] task done

3. three
4. four
5. five

> A quote with **bold** text that is long enough to wrap inside the quote bar.
>
> > Nested quote.

---

```rust
fn main() {
    let answer = 42; // a comment that makes this line longer than forty columns

    println!("{answer}");
}
```

    indented code block

| Name | Qty | Notes |
|:-----|----:|:-----:|
| apple | 3 | crisp and sweet, a longer note that wraps |
| 漢字 | 10 | `wide` |

<div>
html block
</div>

Inline <b>html</b> and an image ![alt text](img.png).

### Heading three

Final paragraph.
"#;

fn render(text: &str, width: u16) -> Vec<Line<'static>> {
    render_markdown(text, width, &Theme::dark())
}

fn text_of(lines: &[Line<'static>]) -> String {
    lines
        .iter()
        .map(|l| l.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_fits(lines: &[Line<'static>], width: u16) {
    let width = usize::from(width.max(1));
    for l in lines {
        assert!(
            l.width() <= width,
            "{:?} is wider than {width}",
            l.to_string()
        );
    }
}

fn find<'a>(lines: &'a [Line<'static>], content: &str) -> &'a Span<'static> {
    lines
        .iter()
        .flat_map(|l| &l.spans)
        .find(|s| s.content == content)
        .unwrap_or_else(|| panic!("no span {content:?}"))
}

#[test]
fn snapshot_80() {
    let lines = render(SAMPLE, 80);
    assert_fits(&lines, 80);
    insta::assert_snapshot!("every_construct_80", text_of(&lines));
}

#[test]
fn snapshot_40() {
    let lines = render(SAMPLE, 40);
    assert_fits(&lines, 40);
    insta::assert_snapshot!("every_construct_40", text_of(&lines));
}

#[test]
fn snapshot_16() {
    let lines = render(SAMPLE, 16);
    assert_fits(&lines, 16);
    insta::assert_snapshot!("every_construct_16", text_of(&lines));
}

#[test]
fn key_styles() {
    let theme = Theme::dark();
    let lines = render(SAMPLE, 80);
    let h1 = find(&lines, "Title of the document");
    assert_eq!(h1.style, theme.heading.add_modifier(Modifier::UNDERLINED));
    assert_eq!(find(&lines, "Lists").style, theme.heading);
    assert_eq!(find(&lines, "inline code").style, theme.code_inline);
    assert_eq!(find(&lines, "emphasis").style, theme.emphasis);
    assert_eq!(find(&lines, "strong").style, theme.strong);
    assert_eq!(find(&lines, "struck").style, theme.strike);
    assert_eq!(find(&lines, "link").style, theme.link);
    assert_eq!(find(&lines, "(https://example.com/docs)").style, theme.dim);
    assert_eq!(find(&lines, "https://example.com").style, theme.link);
    assert_eq!(find(&lines, "│ ").style, theme.quote);
    assert_eq!(find(&lines, "• ").style, theme.list_marker);
    assert_eq!(find(&lines, "[x] ").style, theme.list_marker);
    assert!(
        find(&lines, "Name")
            .style
            .add_modifier
            .contains(Modifier::BOLD)
    );
    assert_eq!(find(&lines, " │ ").style, theme.table_border);
    assert_eq!(find(&lines, "```rust").style, theme.code_fence);
    // A highlighted Rust keyword has a (named) colour.
    let kw = find(&lines, "fn");
    assert!(
        matches!(kw.style.fg, Some(c) if !matches!(c, Color::Rgb(..))),
        "{kw:?}"
    );
    let rule = lines
        .iter()
        .find(|l| l.to_string().starts_with('─'))
        .unwrap();
    assert_eq!(rule.spans[0].style, theme.rule);
    assert_eq!(rule.width(), 80);
}

#[test]
fn split_blocks_render_like_the_whole() {
    for width in [80, 40, 16] {
        let whole = render(SAMPLE, width);
        let mut joined: Vec<Line<'static>> = Vec::new();
        for range in split_blocks(SAMPLE) {
            if !joined.is_empty() {
                joined.push(Line::default());
            }
            joined.extend(render(&SAMPLE[range], width));
        }
        assert_eq!(text_of(&joined), text_of(&whole), "width {width}");
        assert_eq!(joined, whole, "styles at width {width}");
    }
}

#[test]
fn split_blocks_ranges() {
    let text = "para\none\n\n\n```\ncode\n\nmore\n```\n  \n- a\n  ~~~~\n\n  x\n  ~~~~\n\nend";
    let blocks: Vec<&str> = split_blocks(text).into_iter().map(|r| &text[r]).collect();
    assert_eq!(
        blocks,
        [
            "para\none\n",
            "```\ncode\n\nmore\n```\n",
            "- a\n  ~~~~\n\n  x\n  ~~~~\n",
            "end"
        ]
    );
    // Inline code with triple backticks is not a fence; a closing fence needs as many.
    let text = "```a``` b\n\nc\n\n````\n```\n\nd\n````\n\ne";
    let blocks: Vec<&str> = split_blocks(text).into_iter().map(|r| &text[r]).collect();
    assert_eq!(
        blocks,
        ["```a``` b\n", "c\n", "````\n```\n\nd\n````\n", "e"]
    );
    // An unclosed fence runs to the end.
    assert_eq!(split_blocks("a\n\n```\nx\n\ny").len(), 2);
    assert!(split_blocks("").is_empty());
    assert!(split_blocks("\n \n\t\n").is_empty());
}

#[test]
fn split_blocks_differs_for_loose_lists() {
    // Documented difference: an item's second paragraph loses its hanging indent.
    let text = "- item\n\n  second paragraph";
    let whole = text_of(&render(text, 40));
    assert_eq!(whole, "• item\n\n  second paragraph");
    let parts: Vec<String> = split_blocks(text)
        .into_iter()
        .map(|r| text_of(&render(&text[r], 40)))
        .collect();
    assert_eq!(parts.join("\n\n"), "• item\n\nsecond paragraph");
}

#[test]
fn unclosed_fence_renders_as_code() {
    let lines = render("Intro\n\n```rust\nfn main() {\n    let x", 40);
    assert_eq!(
        text_of(&lines),
        "Intro\n\n```rust\nfn main() {\n    let x\n```"
    );
    assert!(find(&lines, "fn").style.fg.is_some());
}

#[test]
fn every_prefix_of_the_sample_renders() {
    // Streaming: each prefix of the text (at char boundaries) renders within the width.
    for width in [80u16, 23, 3] {
        for (i, _) in SAMPLE.char_indices() {
            assert_fits(&render(&SAMPLE[..i], width), width);
        }
    }
}

#[test]
fn unfinished_inline_markup_is_text() {
    assert_eq!(
        text_of(&render("some **bold and `code", 40)),
        "some **bold and `code"
    );
    assert_eq!(text_of(&render("| a | b |\n| --", 40)), "| a | b | | --");
    assert_eq!(text_of(&render("[link](http://x", 40)), "[link](http://x");
}

#[test]
fn lists_number_nest_and_hang() {
    let text = "7. seven\n8. eight eight eight eight\n   - inner\n     more text here\n9. nine";
    let out = text_of(&render(text, 16));
    assert_eq!(
        out,
        "7. seven\n8. eight eight\n   eight eight\n   • inner more\n     text here\n9. nine"
    );
    // Loose list: blank lines between items.
    assert_eq!(text_of(&render("- a\n\n- b", 20)), "• a\n\n• b");
    // Empty item.
    assert_eq!(text_of(&render("- \n- b", 20)), "•\n• b");
    // Depth bullets.
    assert_eq!(
        text_of(&render("- a\n  - b\n    - c\n      - d", 20)),
        "• a\n  ◦ b\n    ▪ c\n      • d"
    );
}

#[test]
fn quotes_nest_and_wrap() {
    let out = text_of(&render("> one two three four\n>\n> > five six", 12));
    assert_eq!(out, "│ one two\n│ three four\n│\n│ │ five six");
    let lines = render("> text", 20);
    assert_eq!(find(&lines, "text").style, Theme::dark().quote);
}

#[test]
fn code_is_hard_broken_not_wrapped() {
    let out = text_of(&render("```\nabcdefghij klm\n```", 6));
    assert_eq!(out, "```\nabcdef\nghij k\nlm\n```");
}

#[test]
fn tables_align_and_shrink() {
    let table = "| a | b | c |\n|:--|:-:|--:|\n| x | yy | zzz |\n";
    assert_eq!(
        text_of(&render(table, 40)),
        "a │ b  │   c\n──┼────┼────\nx │ yy │ zzz"
    );
    let wide = "| key | description |\n|---|---|\n| k | a long description of the key |\n";
    let lines = render(wide, 20);
    assert_fits(&lines, 20);
    assert_eq!(
        text_of(&lines),
        "key │ description\n────┼───────────────\nk   │ a long\n    │ description of\n    │ the key"
    );
    // Too many columns for the width: rows are truncated.
    let many = "|a|b|c|d|e|f|\n|-|-|-|-|-|-|\n|1|2|3|4|5|6|\n";
    let lines = render(many, 10);
    assert_fits(&lines, 10);
    assert_eq!(text_of(&lines).lines().next(), Some("a │ b │ c…"));
}

#[test]
fn links() {
    let lines = render("[same](same) <http://a.b> [x](http://y) [m](mailto:m)", 80);
    assert_eq!(text_of(&lines), "same http://a.b x (http://y) m");
}

#[test]
fn html_and_control_characters() {
    let out = text_of(&render("<details>\n<summary>Hi</summary>\n</details>", 40));
    assert_eq!(out, "<details>\n<summary>Hi</summary>\n</details>");
    // Escape characters go; a tab shows as the tab mark, padded to the next stop.
    let out = text_of(&render("a\u{1b}[31mred\tb", 40));
    assert_eq!(out, "a[31mred→   b");
}

#[test]
fn width_zero_and_one() {
    for w in [0, 1, 2] {
        assert_fits(&render(SAMPLE, w), w);
    }
}

/// Markdown-ish text built from fragments that open and close constructs at random.
fn arb_markdown() -> impl Strategy<Value = String> {
    let frag = prop_oneof![
        4 => "[a-z]{1,10}",
        3 => Just(" ".to_string()),
        3 => Just("\n".to_string()),
        2 => Just("\n\n".to_string()),
        1 => Just("# ".to_string()),
        1 => Just("### ".to_string()),
        1 => Just("- ".to_string()),
        1 => Just("  - ".to_string()),
        1 => Just("1. ".to_string()),
        1 => Just("> ".to_string()),
        1 => Just("> > ".to_string()),
        1 => Just("```rust\n".to_string()),
        1 => Just("```\n".to_string()),
        1 => Just("    ".to_string()),
        1 => Just("| a | b |\n|---|:-:|\n".to_string()),
        1 => Just("|".to_string()),
        1 => Just("*".to_string()),
        1 => Just("**".to_string()),
        1 => Just("~~".to_string()),
        1 => Just("`".to_string()),
        1 => Just("[x](http://e.com/a)".to_string()),
        1 => Just("---\n".to_string()),
        1 => Just("<b>".to_string()),
        1 => Just("- [ ] ".to_string()),
        1 => Just("  \n".to_string()),
        1 => Just("\t".to_string()),
        1 => "[漢字かな😀é\u{301}]{1,4}",
        1 => "\\PC{1,3}",
    ];
    proptest::collection::vec(frag, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn rendered_lines_fit(text in arb_markdown(), width in 1u16..=120) {
        let lines = render(&text, width);
        for l in &lines {
            prop_assert!(l.width() <= usize::from(width), "{:?} wider than {}", l.to_string(), width);
        }
    }

    #[test]
    fn blocks_render_within_width(text in arb_markdown(), width in 1u16..=60) {
        for range in split_blocks(&text) {
            let block = &text[range];
            prop_assert!(!block.trim().is_empty());
            for l in render(block, width) {
                prop_assert!(l.width() <= usize::from(width));
            }
        }
    }
}

/// `cargo test --release --lib tui::markdown::tests::render_one_megabyte -- --ignored --nocapture`
#[test]
#[ignore]
fn render_one_megabyte() {
    use std::time::Instant;
    let t = Instant::now();
    crate::tui::highlight::warm_up();
    let load = t.elapsed();
    let t = Instant::now();
    crate::tui::highlight::highlight_code("fn main() { let x = \"s\"; }", "rust");
    eprintln!(
        "highlighter load {load:?}; first Rust highlight {:?}",
        t.elapsed()
    );
    let mut doc = String::new();
    let mut i = 0;
    while doc.len() < 1 << 20 {
        // Unique code per copy, so no highlighting result can be reused.
        doc.push_str(&SAMPLE.replace("fn main", &format!("fn main_{i}")));
        doc.push('\n');
        i += 1;
    }
    let prose: String = {
        let mut p = String::new();
        while p.len() < 1 << 20 {
            p.push_str("Some *emphasised* words and a long enough sentence with `code` in it, and a [link](http://x.y). ");
            if p.len() % 2000 < 100 {
                p.push_str("\n\n");
            }
        }
        p
    };
    let unhighlighted = doc.replace("```rust", "```");
    for (name, text) in [
        ("mixed sample", &doc),
        ("mixed sample, code not highlighted", &unhighlighted),
        ("prose", &prose),
    ] {
        let t = Instant::now();
        let lines = render_markdown(text, 100, &Theme::dark());
        let whole = t.elapsed();
        let t = Instant::now();
        let blocks = split_blocks(text);
        let split = t.elapsed();
        eprintln!(
            "{name}: {} bytes → {} lines in {whole:?}; split_blocks: {} blocks in {split:?}",
            text.len(),
            lines.len(),
            blocks.len()
        );
    }
}
