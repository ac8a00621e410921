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
//! - Code blocks (fenced and indented): highlighted by [`highlight`], framed by dim ```` ``` ````
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
//! [`split_blocks`] lets a caller cache the lines of finished blocks; [`code_blocks`] finds the
//! code blocks the same rendering shows (for `/copy N`).

use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

mod blocks;
mod code_blocks;
mod table;

pub use blocks::split_blocks;
pub use code_blocks::code_blocks;
use table::render_table;

use super::highlight::highlight_code;
use super::theme::Theme;
use super::wrap::{
    available_width, hard_wrap_prefixed, spaces, spans_width, str_width, truncate_spans,
    wrap_prefixed,
};

/// The pulldown-cmark options used: GFM tables, strikethrough and task lists.
pub fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Render `text` to lines no wider than `width` columns.
pub fn render_markdown(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut r = Renderer::new(theme, usize::from(width.max(1)));
    for event in Parser::new_ext(text, options()) {
        r.event(event);
    }
    r.finish()
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

#[derive(Default)]
struct TableState {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<Vec<Span<'static>>>>,
    header_rows: usize,
    row: Vec<Vec<Span<'static>>>,
    cell: Vec<Span<'static>>,
    in_cell: bool,
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

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.begin_block(),
            Tag::Heading { level, .. } => {
                self.begin_block();
                let h = self.theme.heading;
                let style = match level {
                    HeadingLevel::H1 => h.add_modifier(Modifier::UNDERLINED),
                    HeadingLevel::H2 => h,
                    _ => h.remove_modifier(Modifier::BOLD),
                };
                self.styles.push(style);
            }
            Tag::BlockQuote(_) => {
                self.begin_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.begin_block();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
                        .next()
                        .unwrap_or("")
                        .to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some(CodeState {
                    lang,
                    text: String::new(),
                });
            }
            Tag::HtmlBlock => {
                self.begin_block();
                self.html = Some(String::new());
            }
            Tag::List(start) => {
                self.flush_inline();
                self.lists.push(ListState {
                    next: start,
                    loose: false,
                    items: 0,
                });
            }
            Tag::Item => self.start_item(),
            Tag::Table(aligns) => {
                self.begin_block();
                self.table = Some(TableState {
                    aligns,
                    ..TableState::default()
                });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.row.clear();
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.cell.clear();
                    t.in_cell = true;
                }
            }
            Tag::Emphasis => self.styles.push(self.theme.emphasis),
            Tag::Strong => self.styles.push(self.theme.strong),
            Tag::Strikethrough => self.styles.push(self.theme.strike),
            Tag::Link { dest_url, .. } => {
                self.styles.push(self.theme.link);
                let (line, span) = self.inline_pos();
                self.links.push(LinkState {
                    dest: dest_url.to_string(),
                    line,
                    span,
                });
            }
            Tag::Image { dest_url, .. } => {
                let style = self.style().patch(self.theme.link);
                self.push_text("[image: ", style);
                self.styles.push(self.theme.link);
                self.links.push(LinkState {
                    dest: dest_url.to_string(),
                    line: usize::MAX,
                    span: 0,
                });
            }
            Tag::Superscript | Tag::Subscript => self.styles.push(Style::default()),
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.begin_block(),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush_inline();
                self.need_blank = true;
                if matches!(self.containers.last(), Some(Container::Item { .. }))
                    && let Some(list) = self.lists.last_mut()
                {
                    list.loose = true;
                }
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush_inline();
                self.need_blank = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.containers.pop();
                self.need_blank = true;
            }
            TagEnd::CodeBlock => self.end_code_block(),
            TagEnd::HtmlBlock => self.end_html_block(),
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                self.need_blank = self.lists.last().is_none_or(|l| l.loose);
            }
            TagEnd::Item => {
                self.flush_inline();
                if matches!(
                    self.containers.last(),
                    Some(Container::Item { pending: true, .. })
                ) {
                    self.emit_marker_only();
                }
                self.containers.pop();
            }
            TagEnd::Table => self.end_table(),
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                    if tag == TagEnd::TableHead {
                        t.header_rows = t.rows.len();
                    }
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let cell = std::mem::take(&mut t.cell);
                    t.row.push(cell);
                    t.in_cell = false;
                }
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some(link) = self.links.pop() {
                    let text = self.inline_text_since(link.line, link.span);
                    self.push_url(&link.dest, &text);
                }
            }
            TagEnd::Image => {
                self.styles.pop();
                let style = self.style().patch(self.theme.link);
                self.push_text("]", style);
                if let Some(link) = self.links.pop() {
                    self.push_url(&link.dest, "");
                }
            }
            TagEnd::FootnoteDefinition
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition
            | TagEnd::MetadataBlock(_) => {
                self.flush_inline();
                self.need_blank = true;
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

    // ---- blocks ------------------------------------------------------------------------------

    /// Before a block: flush pending inline text and put the separating blank line.
    fn begin_block(&mut self) {
        self.flush_inline();
        if self.need_blank && !self.out.is_empty() {
            self.blank_line();
        }
        self.need_blank = false;
    }

    fn start_item(&mut self) {
        self.flush_inline();
        let depth = self.lists.iter().filter(|l| l.next.is_none()).count();
        let Some(list) = self.lists.last_mut() else {
            return;
        };
        if list.items > 0 {
            self.need_blank = list.loose;
        }
        list.items += 1;
        let marker = match &mut list.next {
            Some(n) => {
                let m = format!("{n}. ");
                *n += 1;
                m
            }
            None => {
                let bullet = ["• ", "◦ ", "▪ "][(depth.max(1) - 1) % 3];
                bullet.to_string()
            }
        };
        if self.need_blank && !self.out.is_empty() {
            self.blank_line();
        }
        self.need_blank = false;
        let width = str_width(&marker);
        self.containers.push(Container::Item {
            marker: vec![Span::styled(marker, self.theme.list_marker)],
            width,
            pending: true,
        });
    }

    /// Prefixes for the next line: (first line, continuation lines).
    fn prefixes(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::new();
        let mut rest = Vec::new();
        for c in &self.containers {
            match c {
                Container::Quote => {
                    first.push(Span::styled("│ ", self.theme.quote));
                    rest.push(Span::styled("│ ", self.theme.quote));
                }
                Container::Item {
                    marker,
                    width,
                    pending,
                } => {
                    if *pending {
                        first.extend(marker.iter().cloned());
                    } else {
                        first.extend(spaces(*width, Style::default()));
                    }
                    rest.extend(spaces(*width, Style::default()));
                }
            }
        }
        (first, rest)
    }

    fn markers_printed(&mut self) {
        for c in &mut self.containers {
            if let Container::Item { pending, .. } = c {
                *pending = false;
            }
        }
    }

    /// A blank line: the continuation prefix without trailing spaces (quote bars stay).
    fn blank_line(&mut self) {
        let (_, mut rest) = self.prefixes();
        while let Some(last) = rest.last_mut() {
            let trimmed = last.content.trim_end();
            if trimmed.is_empty() {
                rest.pop();
            } else {
                if trimmed.len() != last.content.len() {
                    last.content = trimmed.to_string().into();
                }
                break;
            }
        }
        let spans = truncate_spans(&rest, self.width, false);
        self.out.push(Line::from(spans));
    }

    /// Wrap and emit the pending inline text.
    fn flush_inline(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let lines = std::mem::take(&mut self.inline);
        for spans in lines {
            let (first, rest) = self.prefixes();
            let wrapped = wrap_prefixed(&Line::from(spans), self.width, &first, &rest);
            self.out.extend(wrapped);
            self.markers_printed();
        }
    }

    /// Emit preformatted lines behind the container prefixes, hard-breaking any that are too
    /// wide.
    fn emit_lines(&mut self, lines: Vec<Line<'static>>) {
        for line in lines {
            let (first, rest) = self.prefixes();
            let wrapped = hard_wrap_prefixed(&line, self.width, &first, &rest);
            self.out.extend(wrapped);
            self.markers_printed();
        }
    }

    /// An item with no content of its own yet: just its marker.
    fn emit_marker_only(&mut self) {
        let (first, _) = self.prefixes();
        let spans = truncate_spans(&first, self.width, false);
        // Drop the trailing space of the marker.
        let mut line = Line::from(spans);
        if let Some(last) = line.spans.last_mut() {
            let t = last.content.trim_end().to_string();
            last.content = t.into();
        }
        self.out.push(line);
        self.markers_printed();
    }

    fn end_code_block(&mut self) {
        let Some(code) = self.code.take() else {
            return;
        };
        let fence = self.theme.code_fence;
        let mut lines = vec![Line::from(Span::styled(format!("```{}", code.lang), fence))];
        let base = self.theme.code_block;
        for mut line in highlight_code(&code.text, &code.lang) {
            for span in &mut line.spans {
                span.style = base.patch(span.style);
            }
            lines.push(line);
        }
        lines.push(Line::from(Span::styled("```", fence)));
        self.emit_lines(lines);
        self.need_blank = true;
    }

    fn end_html_block(&mut self) {
        let Some(html) = self.html.take() else {
            return;
        };
        let style = self.style();
        for raw in html.lines() {
            let spans = vec![Span::styled(sanitize(raw), style)];
            let (first, rest) = self.prefixes();
            self.out
                .extend(wrap_prefixed(&Line::from(spans), self.width, &first, &rest));
            self.markers_printed();
        }
        self.need_blank = true;
    }

    fn end_table(&mut self) {
        let Some(mut table) = self.table.take() else {
            return;
        };
        if table.in_cell {
            let cell = std::mem::take(&mut table.cell);
            table.row.push(cell);
        }
        if !table.row.is_empty() {
            let row = std::mem::take(&mut table.row);
            table.rows.push(row);
        }
        let (first, _) = self.prefixes();
        let avail = available_width(self.width, spans_width(&first));
        let lines = render_table(&table, avail, self.theme);
        self.emit_lines(lines);
        self.need_blank = true;
    }
}

/// Text safe to print: tabs become four spaces, other control characters are removed.
fn sanitize(text: &str) -> String {
    if !text.chars().any(char::is_control) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\t' {
            out.push_str("    ");
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
