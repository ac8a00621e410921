//! What the earlier edits of a call changed, so that a later edit never matches text an earlier
//! one wrote: the changed regions in the current text, each with the range it replaced in the
//! original, kept sorted and disjoint as replacements are applied.

use super::Found;

/// What earlier edits of the call changed: their text in the current content (sorted,
/// disjoint) and the range each replaced in the original.
#[derive(Debug, Clone, Copy)]
pub(super) struct Region {
    start: usize,
    end: usize,
    orig_start: usize,
    orig_end: usize,
    pub(super) edit: usize,
}

#[derive(Debug, Default)]
pub(super) struct Tracker {
    regions: Vec<Region>,
}

impl Tracker {
    /// No edit of the call has changed the text yet.
    pub(super) fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// The earlier change that `[start, end)` of the current content overlaps (touching is fine).
    pub(super) fn overlapping(&self, start: usize, end: usize) -> Option<&Region> {
        let i = self.regions.partition_point(|r| r.end <= start);
        self.regions.get(i).filter(|r| r.start < end)
    }

    /// The earlier change whose original range `[start, end)` of the original overlaps.
    pub(super) fn overlapping_original(&self, start: usize, end: usize) -> Option<&Region> {
        self.regions.iter().find(|r| {
            if r.orig_start == r.orig_end {
                start < r.orig_start && r.orig_start < end
            } else {
                start < r.orig_end && r.orig_start < end
            }
        })
    }

    /// `text` with `found` (sorted, disjoint, clear of earlier changes) replaced.
    pub(super) fn apply(
        &mut self,
        text: &str,
        found: &[Found],
        new_text: &str,
        edit: usize,
    ) -> String {
        let grow: usize = found
            .iter()
            .map(|f| f.replacement.as_deref().unwrap_or(new_text).len())
            .sum();
        let mut out = String::with_capacity(text.len() + grow);
        let mut regions = Vec::with_capacity(self.regions.len() + found.len());
        let old = std::mem::take(&mut self.regions);
        let mut ri = 0;
        let mut last = 0;
        let mut shift: isize = 0; // new position − current position
        let mut orig_shift: isize = 0; // current position − original position
        let moved = |r: &Region, shift: isize| Region {
            start: (r.start as isize + shift) as usize,
            end: (r.end as isize + shift) as usize,
            ..*r
        };
        for f in found {
            while ri < old.len() && old[ri].end <= f.start {
                let r = &old[ri];
                orig_shift += (r.end - r.start) as isize - (r.orig_end - r.orig_start) as isize;
                regions.push(moved(r, shift));
                ri += 1;
            }
            let rep = f.replacement.as_deref().unwrap_or(new_text);
            out.push_str(&text[last..f.start]);
            let start = out.len();
            out.push_str(rep);
            regions.push(Region {
                start,
                end: out.len(),
                orig_start: (f.start as isize - orig_shift) as usize,
                orig_end: (f.end as isize - orig_shift) as usize,
                edit,
            });
            shift += rep.len() as isize - (f.end - f.start) as isize;
            last = f.end;
        }
        out.push_str(&text[last..]);
        regions.extend(old[ri..].iter().map(|r| moved(r, shift)));
        self.regions = regions;
        out
    }
}
