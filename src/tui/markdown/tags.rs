//! What each opening and closing tag does to the [`Renderer`]: blocks begin (with their
//! separating blank line) and end (flushing their text), containers and lists are pushed and
//! popped, inline styles are stacked, links and images collect their URL, and code, HTML and
//! table blocks gather their content until their end renders it.
//!
//! Line layout itself (prefixes, wrapping, blank lines) is `containers`'s; table layout is
//! `table`'s.

use pulldown_cmark::{Alignment, CodeBlockKind, HeadingLevel, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::table::{TableState, render_table};
use super::{CodeState, Container, LinkState, ListState, Renderer, sanitize};
use crate::tui::highlight::{highlight_code, plain_lines};
use crate::tui::wrap::{available_width, spans_width, wrap_prefixed};

impl Renderer<'_> {
    pub(super) fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.begin_block(),
            Tag::Heading { level, .. } => self.start_heading(level),
            Tag::BlockQuote(_) => {
                self.begin_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => self.start_code_block(kind),
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
            Tag::Table(aligns) => self.start_table(aligns),
            Tag::TableHead | Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.start_row();
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.start_cell();
                }
            }
            Tag::Emphasis => self.styles.push(self.theme.emphasis),
            Tag::Strong => self.styles.push(self.theme.strong),
            Tag::Strikethrough => self.styles.push(self.theme.strike),
            Tag::Link { dest_url, .. } => self.start_link(&dest_url),
            Tag::Image { dest_url, .. } => self.start_image(&dest_url),
            Tag::Superscript | Tag::Subscript => self.styles.push(Style::default()),
            Tag::FootnoteDefinition(_)
            | Tag::DefinitionList
            | Tag::DefinitionListTitle
            | Tag::DefinitionListDefinition
            | Tag::MetadataBlock(_) => self.begin_block(),
        }
    }

    pub(super) fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.end_paragraph(),
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
            TagEnd::Item => self.end_item(),
            TagEnd::Table => self.end_table(),
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    t.end_row(tag == TagEnd::TableHead);
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    t.end_cell();
                }
            }
            TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript => {
                self.styles.pop();
            }
            TagEnd::Link => self.end_link(),
            TagEnd::Image => self.end_image(),
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

    // ---- openings ----------------------------------------------------------------------------

    fn start_heading(&mut self, level: HeadingLevel) {
        self.begin_block();
        let h = self.theme.heading;
        let style = match level {
            HeadingLevel::H1 => h.add_modifier(Modifier::UNDERLINED),
            HeadingLevel::H2 => h,
            _ => h.remove_modifier(Modifier::BOLD),
        };
        self.styles.push(style);
    }

    /// A code block collects its text until its end; the language is the info string's first
    /// word.
    fn start_code_block(&mut self, kind: CodeBlockKind<'_>) {
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

    fn start_table(&mut self, aligns: Vec<Alignment>) {
        self.begin_block();
        self.table = Some(TableState::new(aligns));
    }

    /// Remembers where the link text starts, to compare it with the URL at the end.
    fn start_link(&mut self, dest: &str) {
        self.styles.push(self.theme.link);
        let (line, span) = self.inline_pos();
        self.links.push(LinkState {
            dest: dest.to_string(),
            line,
            span,
        });
    }

    fn start_image(&mut self, dest: &str) {
        let style = self.style().patch(self.theme.link);
        self.push_text("[image: ", style);
        self.styles.push(self.theme.link);
        self.links.push(LinkState {
            dest: dest.to_string(),
            line: usize::MAX,
            span: 0,
        });
    }

    // ---- closings ----------------------------------------------------------------------------

    /// A paragraph inside a list item makes the list loose (blank lines between its items).
    fn end_paragraph(&mut self) {
        self.flush_inline();
        self.need_blank = true;
        if matches!(self.containers.last(), Some(Container::Item { .. }))
            && let Some(list) = self.lists.last_mut()
        {
            list.loose = true;
        }
    }

    fn end_item(&mut self) {
        self.flush_inline();
        if matches!(
            self.containers.last(),
            Some(Container::Item { pending: true, .. })
        ) {
            self.emit_marker_only();
        }
        self.containers.pop();
    }

    fn end_link(&mut self) {
        self.styles.pop();
        if let Some(link) = self.links.pop() {
            let text = self.inline_text_since(link.line, link.span);
            self.push_url(&link.dest, &text);
        }
    }

    fn end_image(&mut self) {
        self.styles.pop();
        let style = self.style().patch(self.theme.link);
        self.push_text("]", style);
        if let Some(link) = self.links.pop() {
            self.push_url(&link.dest, "");
        }
    }

    pub(super) fn end_code_block(&mut self) {
        let Some(code) = self.code.take() else {
            return;
        };
        let fence = self.theme.code_fence;
        let mut lines = vec![Line::from(Span::styled(format!("```{}", code.lang), fence))];
        let base = self.theme.code_block;
        let code_lines = if self.highlight || code.lang.trim().is_empty() {
            highlight_code(&code.text, &code.lang)
        } else {
            self.left_plain = true;
            plain_lines(&code.text)
        };
        for mut line in code_lines {
            for span in &mut line.spans {
                span.style = base.patch(span.style);
            }
            lines.push(line);
        }
        lines.push(Line::from(Span::styled("```", fence)));
        self.emit_lines(lines);
        self.need_blank = true;
    }

    pub(super) fn end_html_block(&mut self) {
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

    pub(super) fn end_table(&mut self) {
        let Some(mut table) = self.table.take() else {
            return;
        };
        table.close_open_row();
        let (first, _) = self.prefixes();
        let avail = available_width(self.width, spans_width(&first));
        let lines = render_table(&table, avail, self.theme);
        self.emit_lines(lines);
        self.need_blank = true;
    }
}
