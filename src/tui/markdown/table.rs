//! GFM tables: the rows and cells collected while the table is parsed, and their layout in the
//! width available (columns shrink, cell text wraps within its column).

use pulldown_cmark::Alignment;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;
use crate::tui::wrap::{spaces, spans_width, str_width, truncate_spans, wrap_prefixed};

/// A table being parsed: finished rows, the row and cell being filled, and where the header
/// ends.
#[derive(Default)]
pub(super) struct TableState {
    pub(super) aligns: Vec<Alignment>,
    pub(super) rows: Vec<Vec<Vec<Span<'static>>>>,
    pub(super) header_rows: usize,
    pub(super) row: Vec<Vec<Span<'static>>>,
    pub(super) cell: Vec<Span<'static>>,
    pub(super) in_cell: bool,
}

impl TableState {
    pub(super) fn new(aligns: Vec<Alignment>) -> Self {
        TableState {
            aligns,
            ..TableState::default()
        }
    }

    pub(super) fn start_row(&mut self) {
        self.row.clear();
    }

    pub(super) fn start_cell(&mut self) {
        self.cell.clear();
        self.in_cell = true;
    }

    /// Ends a row; ending the header's row marks where the header ends.
    pub(super) fn end_row(&mut self, header: bool) {
        let row = std::mem::take(&mut self.row);
        self.rows.push(row);
        if header {
            self.header_rows = self.rows.len();
        }
    }

    pub(super) fn end_cell(&mut self) {
        let cell = std::mem::take(&mut self.cell);
        self.row.push(cell);
        self.in_cell = false;
    }

    /// Keeps the cell and row the input stopped in (a table still streaming).
    pub(super) fn close_open_row(&mut self) {
        if self.in_cell {
            let cell = std::mem::take(&mut self.cell);
            self.row.push(cell);
        }
        if !self.row.is_empty() {
            let row = std::mem::take(&mut self.row);
            self.rows.push(row);
        }
    }
}

/// Lay out a table in at most `avail` columns.
pub(super) fn render_table(t: &TableState, avail: usize, theme: &Theme) -> Vec<Line<'static>> {
    let ncols = t
        .rows
        .iter()
        .map(Vec::len)
        .max()
        .unwrap_or(0)
        .max(t.aligns.len());
    if ncols == 0 {
        return Vec::new();
    }
    let (widths, truncate) = column_widths(t, ncols, avail);
    let border = theme.table_border;
    let mut out = Vec::new();
    for (r, row) in t.rows.iter().enumerate() {
        let header = r < t.header_rows;
        let cells: Vec<Vec<Line<'static>>> = (0..ncols)
            .map(|c| {
                let mut spans = row.get(c).cloned().unwrap_or_default();
                if header {
                    for s in &mut spans {
                        s.style = theme.table_header.patch(s.style);
                    }
                }
                wrap_prefixed(&Line::from(spans), widths[c], &[], &[])
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..height {
            out.push(row_line(&cells, k, &widths, &t.aligns, border));
        }
        if header && r + 1 == t.header_rows {
            let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
            out.push(Line::from(Span::styled(rule.join("─┼─"), border)));
        }
    }
    if truncate {
        for line in &mut out {
            line.spans = truncate_spans(&line.spans, avail, true);
        }
    }
    out
}

/// The width of each column, and whether rows must be truncated: natural widths when they
/// fit, shrunk columns when one column per cell fits, else natural widths cut at `avail`.
fn column_widths(t: &TableState, ncols: usize, avail: usize) -> (Vec<usize>, bool) {
    let sep_w = 3 * (ncols - 1);
    let mut natural = vec![1usize; ncols];
    let mut longest_word = vec![1usize; ncols];
    for row in &t.rows {
        for (c, cell) in row.iter().enumerate() {
            natural[c] = natural[c].max(spans_width(cell));
            let text: String = cell.iter().map(|s| s.content.as_ref()).collect();
            let word = text.split_whitespace().map(str_width).max().unwrap_or(0);
            longest_word[c] = longest_word[c].max(word);
        }
    }
    let total: usize = natural.iter().sum::<usize>() + sep_w;
    if total <= avail {
        (natural, false)
    } else if avail >= sep_w + ncols {
        (
            shrink_columns(&natural, &longest_word, avail - sep_w),
            false,
        )
    } else {
        (natural, true)
    }
}

/// Line `k` of a row whose cells are already wrapped: each cell padded to its column's width
/// and alignment, cells separated by ` │ `.
fn row_line(
    cells: &[Vec<Line<'static>>],
    k: usize,
    widths: &[usize],
    aligns: &[Alignment],
    border: Style,
) -> Line<'static> {
    let ncols = cells.len();
    let mut spans: Vec<Span<'static>> = Vec::new();
    for (c, cell) in cells.iter().enumerate() {
        let content = cell.get(k).map(|l| l.spans.clone()).unwrap_or_default();
        let last = c + 1 == ncols;
        if c > 0 {
            // No trailing space after the last separator when nothing follows it.
            let sep = if last && content.is_empty() {
                " │"
            } else {
                " │ "
            };
            spans.push(Span::styled(sep, border));
        }
        let pad = widths[c].saturating_sub(spans_width(&content));
        let (left, right) = match aligns.get(c).copied().unwrap_or(Alignment::None) {
            Alignment::Right => (pad, 0),
            Alignment::Center => (pad / 2, pad - pad / 2),
            Alignment::Left | Alignment::None => (0, pad),
        };
        if last && content.is_empty() {
            continue;
        }
        spans.extend(spaces(left, Style::default()));
        spans.extend(content);
        if !last {
            spans.extend(spaces(right, Style::default()));
        }
    }
    Line::from(spans)
}

/// Column widths summing to at most `room` (≥ one column each). If every column can be as wide
/// as its longest word, that is the floor and the rest of the room is shared out; otherwise the
/// whole room is. Sharing: columns that want no more than an equal share of what is left get
/// what they want, the others split the remainder equally.
fn shrink_columns(natural: &[usize], longest_word: &[usize], room: usize) -> Vec<usize> {
    let floor: Vec<usize> = natural
        .iter()
        .zip(longest_word)
        .map(|(n, w)| (*w).clamp(1, *n))
        .collect();
    let floor_sum: usize = floor.iter().sum();
    let (base, extra) = if floor_sum <= room {
        (floor, room - floor_sum)
    } else {
        (vec![1; natural.len()], room - natural.len())
    };
    let want: Vec<usize> = natural.iter().zip(&base).map(|(n, b)| n - b).collect();
    let mut order: Vec<usize> = (0..natural.len()).collect();
    order.sort_by_key(|&c| want[c]);
    let mut widths = base;
    let mut left = extra;
    for (k, &c) in order.iter().enumerate() {
        let share = left / (natural.len() - k);
        let give = want[c].min(share);
        widths[c] += give;
        left -= give;
    }
    widths
}
