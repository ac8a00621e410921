//! Markdown → styled, wrapped lines for the chat pane (CommonMark + GFM tables,
//! strikethrough and task lists, via pulldown-cmark).
//!
//! Layout:
//! - Blocks are separated by one blank line; items of tight lists are not.
//! - Headings: `#` markers are not shown. H1 is the heading style underlined, H2 the heading
//!   style, H3–H6 the heading style without bold.
//! - Soft breaks are spaces (CommonMark); hard breaks start a new line.
//! - Links: the text in the link style, then ` (url)` in the dim style unless the URL is the
//!   text (autolinks). Images: `[image: alt]` and the URL.
//! - Lists: `•`/`◦`/`▪` by depth, `N.` numbered from the list's start; task items show `[ ]` /
//!   `[x]` in place of the bullet. Wrapped lines hang under the item's text.
//! - Block quotes: `│ ` per level in the quote style, also on blank lines inside the quote.
//! - Rules: `─` across the width.
//! - Code blocks (fenced and indented): highlighted by [`highlight`](super::highlight), framed by dim ```` ``` ````
//!   lines (with the language on the opening one), not indented and **not word-wrapped**: a
//!   code line longer than the width is **hard-broken** at the width (no text is lost, copying
//!   keeps the characters). An unclosed fence (streaming) renders the code so far, closed.
//! - Tables: cells separated by ` │ `, the header in the header style with a `─┼─` rule under
//!   it, cells aligned as the delimiter row says. If the natural width does not fit, columns
//!   are shrunk — a column narrower than an equal share of what is left keeps its width, the
//!   others share the rest — and cell text is **word-wrapped inside its column** (rows grow
//!   taller). Only when not even one column per cell fits are rows truncated with `…`.
//! - HTML (blocks and inline) is shown as plain text.
//! - Control characters are removed and tabs expanded, so nothing can move the cursor.
//!
//! Every line fits in `width` columns (width 0 counts as 1; prefixes of deep nesting are cut
//! before text is).
//!
//! Streaming: the renderer is a pure function of the text so far; unfinished constructs
//! render as what they are so far (an unclosed fence as code, an unclosed `**` as text).
//! [`split_blocks`] lets a caller cache the lines of finished blocks; [`code_blocks()`] finds the
//! code blocks the same rendering shows (for `/copy N`).
//!
//! Code: this file holds the renderer's state, the event dispatch and inline text; `tags`
//! says what each opening and closing tag does, `containers` lays lines out behind quote and
//! list prefixes, `table` lays out tables and `blocks` splits a text into top-level blocks.

use pulldown_cmark::{Event, Options, Parser};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

mod blocks;
mod code_blocks;
mod containers;
mod table;
mod tags;

pub use blocks::split_blocks;
pub use code_blocks::code_blocks;
use table::TableState;

use super::theme::Theme;
use super::wrap::{available_width, spans_width};

/// The pulldown-cmark options used: GFM tables, strikethrough and task lists.
pub fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Render `text` to lines no wider than `width` columns.
pub fn render_markdown(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    render(text, width, theme, true).0
}

/// [`render_markdown`] with code left plain (not highlighted): the same lines, text and
/// layout, only without the syntax colours — and whether a code block with a language was
/// left so, i.e. whether [`render_markdown`] could colour something. Highlighting is most of
/// the cost of rendering code, and a fast reply scrolls most of its code past unseen: the chat
/// pane renders this way and colours a block once it is on screen.
pub fn render_markdown_plain(text: &str, width: u16, theme: &Theme) -> (Vec<Line<'static>>, bool) {
    render(text, width, theme, false)
}

fn render(text: &str, width: u16, theme: &Theme, highlight: bool) -> (Vec<Line<'static>>, bool) {
    let mut r = Renderer::new(theme, usize::from(width.max(1)));
    r.highlight = highlight;
    for event in Parser::new_ext(text, options()) {
        r.event(event);
    }
    let plain = r.left_plain;
    (r.finish(), plain)
}

enum Container {
    Quote,
    Item {
        marker: Vec<Span<'static>>,
        width: usize,
        /// The marker has not been printed yet (the item's first line is still to come).
        pending: bool,
    },
}

struct ListState {
    next: Option<u64>,
    loose: bool,
    items: usize,
}

struct LinkState {
    dest: String,
    line: usize,
    span: usize,
}

struct CodeState {
    lang: String,
    text: String,
}

struct Renderer<'t> {
    theme: &'t Theme,
    width: usize,
    out: Vec<Line<'static>>,
    containers: Vec<Container>,
    lists: Vec<ListState>,
    /// Inline style patches, innermost last.
    styles: Vec<Style>,
    /// Pending inline text: logical lines (split at hard breaks) not yet wrapped.
    inline: Vec<Vec<Span<'static>>>,
    links: Vec<LinkState>,
    code: Option<CodeState>,
    html: Option<String>,
    table: Option<TableState>,
    need_blank: bool,
    /// Code is highlighted (else drawn plain, and `left_plain` says it was).
    highlight: bool,
    left_plain: bool,
}

impl<'t> Renderer<'t> {
    fn new(theme: &'t Theme, width: usize) -> Self {
        Self {
            theme,
            width,
            out: Vec::new(),
            containers: Vec::new(),
            lists: Vec::new(),
            styles: Vec::new(),
            inline: Vec::new(),
            links: Vec::new(),
            code: None,
            html: None,
            table: None,
            need_blank: false,
            highlight: true,
            left_plain: false,
        }
    }

    fn finish(mut self) -> Vec<Line<'static>> {
        // pulldown-cmark closes every construct at the end of the input, even an unfinished
        // one; this is only a safety net.
        self.end_code_block();
        self.end_html_block();
        self.end_table();
        self.flush_inline();
        self.out
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                if let Some(code) = &mut self.code {
                    code.text.push_str(&t);
                } else if let Some(html) = &mut self.html {
                    html.push_str(&t);
                } else {
                    self.push_text(&t, self.style());
                }
            }
            Event::Code(t) => {
                let style = self.style().patch(self.theme.code_inline);
                self.push_text(&t, style);
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                if let Some(html) = &mut self.html {
                    html.push_str(&t);
                } else {
                    // Inline HTML inside a paragraph: its text, line ends as spaces.
                    let t = t.replace(['\n', '\r'], " ");
                    self.push_text(&t, self.style());
                }
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.push_text(&t, self.style()),
            Event::FootnoteReference(t) => self.push_text(&format!("[^{t}]"), self.style()),
            Event::SoftBreak => self.push_text(" ", self.style()),
            Event::HardBreak => {
                if self.table.as_ref().is_some_and(|t| t.in_cell) {
                    self.push_text(" ", self.style());
                } else {
                    self.inline.push(Vec::new());
                }
            }
            Event::Rule => {
                self.begin_block();
                let (first, _) = self.prefixes();
                let avail = available_width(self.width, spans_width(&first));
                let rule = Line::from(Span::styled("─".repeat(avail), self.theme.rule));
                self.emit_lines(vec![rule]);
                self.need_blank = true;
            }
            Event::TaskListMarker(checked) => {
                let style = self.theme.list_marker;
                if let Some(Container::Item { marker, width, .. }) = self.containers.last_mut() {
                    let text = if checked { "[x] " } else { "[ ] " };
                    *marker = vec![Span::styled(text, style)];
                    *width = 4;
                }
            }
        }
    }

    // ---- inline ------------------------------------------------------------------------------

    /// The current inline style: text, quote (inside quotes), then the pushed patches.
    fn style(&self) -> Style {
        let mut s = self.theme.text;
        if self
            .containers
            .iter()
            .any(|c| matches!(c, Container::Quote))
        {
            s = s.patch(self.theme.quote);
        }
        for p in &self.styles {
            s = s.patch(*p);
        }
        s
    }

    fn push_text(&mut self, text: &str, style: Style) {
        let text = sanitize(text);
        if text.is_empty() {
            return;
        }
        let span = Span::styled(text, style);
        if let Some(t) = &mut self.table
            && t.in_cell
        {
            t.cell.push(span);
            return;
        }
        if self.inline.is_empty() {
            self.inline.push(Vec::new());
        }
        if let Some(line) = self.inline.last_mut() {
            line.push(span);
        }
    }

    /// Where the next inline span will go (line, span index); table cells use line `MAX - 1`.
    fn inline_pos(&self) -> (usize, usize) {
        if let Some(t) = &self.table
            && t.in_cell
        {
            return (usize::MAX - 1, t.cell.len());
        }
        let line = self.inline.len().saturating_sub(1);
        let span = self.inline.last().map_or(0, Vec::len);
        (line, span)
    }

    fn inline_text_since(&self, line: usize, span: usize) -> String {
        let spans: &[Span<'static>] = if line == usize::MAX - 1 {
            self.table.as_ref().map_or(&[], |t| &t.cell)
        } else if line + 1 == self.inline.len().max(1) {
            self.inline.last().map_or(&[], Vec::as_slice)
        } else {
            return String::new(); // a hard break inside the link text
        };
        spans
            .get(span..)
            .unwrap_or_default()
            .iter()
            .map(|s| s.content.as_ref())
            .collect()
    }

    /// ` (url)` after a link, unless the URL is the link text.
    fn push_url(&mut self, dest: &str, text: &str) {
        let same = dest == text || dest.strip_prefix("mailto:") == Some(text) || dest.is_empty();
        if !same {
            let style = self.theme.dim;
            self.push_text(&format!(" ({dest})"), style);
        }
    }
}

/// Text safe to print: control characters are removed, but tabs are kept (the wrapping draws
/// each as the dim tab mark, `tabs::expand_tabs`).
fn sanitize(text: &str) -> String {
    if !text.chars().any(|c| c.is_control() && c != '\t') {
        return text.to_string();
    }
    text.chars()
        .filter(|&c| c == '\t' || !c.is_control())
        .collect()
}

#[cfg(test)]
mod tests;
