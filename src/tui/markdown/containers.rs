//! Block layout behind the open containers (block quotes and list items): each line's prefix
//! (`│ ` bars, a list marker on an item's first line and its hanging indent after), the blank
//! line between blocks, and emitting text wrapped — or preformatted lines hard-broken — behind
//! those prefixes.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Container, Renderer};
use crate::tui::wrap::{hard_wrap_prefixed, spaces, str_width, truncate_spans, wrap_prefixed};

impl Renderer<'_> {
    /// Before a block: flush pending inline text and put the separating blank line.
    pub(super) fn begin_block(&mut self) {
        self.flush_inline();
        if self.need_blank && !self.out.is_empty() {
            self.blank_line();
        }
        self.need_blank = false;
    }

    pub(super) fn start_item(&mut self) {
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
    pub(super) fn prefixes(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
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

    pub(super) fn markers_printed(&mut self) {
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
    pub(super) fn flush_inline(&mut self) {
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
    pub(super) fn emit_lines(&mut self, lines: Vec<Line<'static>>) {
        for line in lines {
            let (first, rest) = self.prefixes();
            let wrapped = hard_wrap_prefixed(&line, self.width, &first, &rest);
            self.out.extend(wrapped);
            self.markers_printed();
        }
    }

    /// An item with no content of its own yet: just its marker.
    pub(super) fn emit_marker_only(&mut self) {
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
}
