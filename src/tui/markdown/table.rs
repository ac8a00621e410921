//! GFM tables laid out in the width available: columns shrink, cell text wraps within its column.

use super::*;

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
    let (widths, truncate) = if total <= avail {
        (natural, false)
    } else if avail >= sep_w + ncols {
        (
            shrink_columns(&natural, &longest_word, avail - sep_w),
            false,
        )
    } else {
        (natural, true)
    };

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
                let (left, right) = match t.aligns.get(c).copied().unwrap_or(Alignment::None) {
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
            out.push(Line::from(spans));
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
