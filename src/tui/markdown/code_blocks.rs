//! The code blocks of a reply exactly as the chat shows them, for `/copy N`.
//!
//! The chat renders an assistant reply block by block ([`split_blocks`]), each block with
//! pulldown-cmark ([`super::render_markdown`]). A code block is whatever that rendering frames
//! as one: a fenced block (also inside a list item or a quote; an unclosed fence runs to the
//! end of its block) or an indented one. Taking the same two steps here means that the N-th
//! block `/copy N` copies is the N-th code block on the screen, with its text as the parser
//! reads it: the list item's or quote's indentation removed, tabs and control characters left
//! as written (the renderer only changes those for display).

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::{options, split_blocks};

/// The text of each code block of `text`, in order.
pub fn code_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    for range in split_blocks(text) {
        let mut current: Option<String> = None;
        for event in Parser::new_ext(&text[range], options()) {
            match event {
                Event::Start(Tag::CodeBlock(_)) => current = Some(String::new()),
                Event::End(TagEnd::CodeBlock) => blocks.extend(current.take()),
                Event::Text(t) => {
                    if let Some(code) = current.as_mut() {
                        code.push_str(&t);
                    }
                }
                _ => {}
            }
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::markdown::render_markdown;
    use crate::tui::theme::Theme;

    #[test]
    fn fenced_blocks_in_order_and_an_unclosed_one() {
        let md = "text\n```rust\nfn a() {}\n```\nmore\n~~~\nplain\n~~~\n```sh\nunclosed\n";
        assert_eq!(code_blocks(md), ["fn a() {}\n", "plain\n", "unclosed\n"]);
    }

    /// Each of these the renderer shows as one code block. The line-based detector `/copy`
    /// had before found `["   ls -l\n", "  print(1)\n", ""]`: list items' indentation kept,
    /// the quoted and the indented block missed, and the inline code of the last line taken
    /// for an unclosed fence; `/copy 2` copied `print(1)` where the screen showed `quoted`.
    #[test]
    fn blocks_are_the_ones_the_chat_shows() {
        let md = "\
1. Run:
   ```sh
   ls -l
   ```

> ```
> quoted
> ```

Indented:

    let x = 1;

- in a list

  ```py
  print(1)
  ```

```not`a fence``` is inline code.
";
        assert_eq!(
            code_blocks(md),
            ["ls -l\n", "quoted\n", "let x = 1;\n", "print(1)\n"]
        );
    }

    /// The chat frames every code block with a ```` ``` ```` line above and below: as many
    /// frames as `code_blocks` finds blocks.
    #[test]
    fn as_many_blocks_as_the_renderer_frames() {
        let md = "a\n\n```\none\n```\n\n1. x\n   ```\n   two\n   ```\n\n    three\n";
        let theme = Theme::dark();
        let frames: usize = split_blocks(md)
            .into_iter()
            .flat_map(|r| render_markdown(&md[r], 80, &theme))
            .filter(|l| l.to_string().trim_start().starts_with("```"))
            .count();
        assert_eq!(frames, 2 * code_blocks(md).len());
        assert_eq!(code_blocks(md), ["one\n", "two\n", "three\n"]);
    }
}
