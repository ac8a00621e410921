//! The chat pane's view state: scrolling and the cache of rendered lines.
//!
//! The transcript is stored width-independently; lines are rendered per entry for the current
//! width and cached, so a frame renders only the entries on screen (plus the one being
//! streamed, and within that only its last Markdown block; code is coloured only once it is on
//! screen, see `replies`). The cache is bounded: past
//! [`CACHE_SCREENS`] screens of lines, the entries used longest ago are forgotten (and rendered
//! again if they come back into view), so a long session does not keep every entry's lines. The scroll position is an anchor —
//! an entry and a line within it — not an absolute line number, so nothing is ever computed for
//! the whole conversation. While following the bottom, new output scrolls into view; while
//! scrolled up, the view stays put and `new_output` says there is more below.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::time::Duration;

use ratatui::text::Line;

use super::entry_lines::{Facts, entry_lines};
use super::theme::Theme;
use crate::tui::transcript::{Entry, ToolState};

mod replies;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub entry: usize,
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scroll {
    /// Show the end; new output scrolls into view.
    Follow,
    /// The top line of the view.
    Anchored(Pos),
}

pub struct ViewCtx<'a> {
    pub theme: &'a Theme,
    pub width: u16,
    pub expanded: &'a HashSet<usize>,
    /// The block Tab selected, drawn highlighted.
    pub selected: Option<usize>,
    pub elapsed: &'a dyn Fn(&str) -> Option<Duration>,
    /// Reasoning blocks drawn in full (else one line each).
    pub show_reasoning: bool,
}

/// The render cache keeps about this many screens of lines (at least [`CACHE_MIN_LINES`]).
pub const CACHE_SCREENS: usize = 8;
const CACHE_MIN_LINES: usize = 2_000;

#[derive(Default)]
struct Cache {
    width: u16,
    entries: Vec<Slot>,
    /// Lines held by `entries`.
    lines: usize,
    /// Counts frames: a slot's `used` says when it was last needed.
    tick: u64,
    /// For assistant entries: how much of the text is finished blocks, how many lines they
    /// rendered to (a block followed by a blank line outside a code fence never changes as
    /// more text streams in, so only what follows it is rendered again), and which blocks'
    /// code is still plain.
    replies: HashMap<usize, replies::Reply>,
}

#[derive(Clone, Default)]
struct Slot {
    lines: Vec<Line<'static>>,
    /// The entry changed since `lines` were rendered (they may still be reused in part).
    stale: bool,
    filled: bool,
    used: u64,
}

pub struct ChatView {
    pub scroll: Scroll,
    pub new_output: bool,
    cache: RefCell<Cache>,
}

impl Default for ChatView {
    fn default() -> Self {
        Self {
            scroll: Scroll::Follow,
            new_output: false,
            cache: RefCell::default(),
        }
    }
}

/// Entries whose lines change with time are not cached.
fn is_live(e: &Entry) -> bool {
    matches!(
        e,
        Entry::Tool {
            state: ToolState::Running,
            ..
        }
    )
}

impl ChatView {
    /// Entries from `index` on changed: forget their lines.
    pub fn invalidate_from(&self, index: usize) {
        let mut c = self.cache.borrow_mut();
        for slot in c.entries.iter_mut().skip(index) {
            slot.stale = true;
        }
    }

    pub fn invalidate(&self, index: usize) {
        let mut c = self.cache.borrow_mut();
        if let Some(slot) = c.entries.get_mut(index) {
            slot.stale = true;
        }
        // Folding changes the whole entry, not only its end.
        c.replies.remove(&index);
    }

    /// Entries from `index` on were replaced (a retried reply): nothing of them may be reused.
    pub fn forget_from(&self, index: usize) {
        let mut c = self.cache.borrow_mut();
        let mut freed = 0;
        for slot in c.entries.iter_mut().skip(index) {
            freed += slot.lines.len();
            *slot = Slot::default();
        }
        c.lines = c.lines.saturating_sub(freed);
        c.replies.retain(|&i, _| i < index);
    }

    /// Lines the cache holds now.
    pub fn cached_lines(&self) -> usize {
        self.cache.borrow().lines
    }

    /// Forgets the lines of the entries used longest ago (not in this frame) while the cache
    /// holds more than its budget for a pane `height` rows high.
    fn trim(&self, height: usize) {
        let mut c = self.cache.borrow_mut();
        let budget = (CACHE_SCREENS * height).max(CACHE_MIN_LINES);
        if c.lines <= budget {
            return;
        }
        let now = c.tick;
        let mut old: Vec<(u64, usize)> = c
            .entries
            .iter()
            .enumerate()
            .filter(|(_, s)| s.filled && s.used < now)
            .map(|(i, s)| (s.used, i))
            .collect();
        old.sort_unstable();
        // Down to three quarters, so that trimming is rare.
        let target = budget * 3 / 4;
        let mut gone = Vec::new();
        for (_, i) in old {
            if c.lines <= target {
                break;
            }
            let slot = std::mem::take(&mut c.entries[i]);
            c.lines = c.lines.saturating_sub(slot.lines.len());
            c.replies.remove(&i);
            gone.push(slot);
        }
        // Freeing many lines takes a while: not on the UI thread.
        if gone.len() > 64 {
            std::thread::spawn(move || drop(gone));
        }
    }

    /// The transcript was replaced (a new chat).
    pub fn reset(&mut self) {
        *self.cache.borrow_mut() = Cache::default();
        self.scroll = Scroll::Follow;
        self.new_output = false;
    }

    fn render_entry(&self, i: usize, e: &Entry, ctx: &ViewCtx) -> Vec<Line<'static>> {
        let facts = Facts {
            theme: ctx.theme,
            width: ctx.width,
            expanded: ctx.expanded.contains(&i),
            selected: ctx.selected == Some(i),
            show_reasoning: ctx.show_reasoning,
            elapsed: match e {
                Entry::Tool { call_id, .. } => (ctx.elapsed)(call_id),
                _ => None,
            },
        };
        entry_lines(e, &facts)
    }

    /// Markdown block by block: the finished blocks' lines are kept from the last render (`old`),
    /// only the rest of the text is rendered again; code is left plain until it is on screen.
    fn render_assistant(
        &self,
        i: usize,
        text: &str,
        old: Vec<Line<'static>>,
        ctx: &ViewCtx,
    ) -> Vec<Line<'static>> {
        let mut cache = self.cache.borrow_mut();
        let mut reply = cache.replies.remove(&i).unwrap_or_default();
        let following = self.scroll == Scroll::Follow;
        let lines = replies::render(text, old, &mut reply, ctx.width, ctx.theme, following);
        cache.replies.insert(i, reply);
        lines
    }

    /// Colours the code of entry `i` among its lines `shown` (rendered plain so far).
    fn colour(&self, i: usize, shown: std::ops::Range<usize>, entries: &[Entry], ctx: &ViewCtx) {
        let Some(Entry::Assistant {
            text,
            interrupted: false,
        }) = entries.get(i)
        else {
            return;
        };
        let mut guard = self.cache.borrow_mut();
        let c = &mut *guard;
        let (Some(slot), Some(reply)) = (c.entries.get_mut(i), c.replies.get_mut(&i)) else {
            return;
        };
        if !slot.filled || slot.stale {
            return;
        }
        let grown = replies::colour(text, &mut slot.lines, reply, shown, ctx.width, ctx.theme);
        c.lines = c.lines.saturating_add_signed(grown);
    }

    /// Runs `f` on entry `i`'s lines, rendering and caching them if needed.
    fn with_lines<R>(
        &self,
        i: usize,
        entries: &[Entry],
        ctx: &ViewCtx,
        f: impl FnOnce(&[Line<'static>]) -> R,
    ) -> R {
        let old = {
            let mut c = self.cache.borrow_mut();
            if c.width != ctx.width {
                // Freeing every cached line of a long chat takes a while: not on the UI thread.
                let tick = c.tick;
                let gone = std::mem::replace(
                    &mut *c,
                    Cache {
                        width: ctx.width,
                        tick,
                        ..Cache::default()
                    },
                );
                std::thread::spawn(move || drop(gone));
            }
            if c.entries.len() < entries.len() {
                c.entries.resize(entries.len(), Slot::default());
            }
            let now = c.tick;
            let slot = &mut c.entries[i];
            slot.used = now;
            if slot.filled && !slot.stale {
                return f(&slot.lines);
            }
            let old = std::mem::take(&mut slot.lines);
            c.lines = c.lines.saturating_sub(old.len());
            old
        };
        let lines = match &entries[i] {
            Entry::Assistant {
                text,
                interrupted: false,
            } => self.render_assistant(i, text, old, ctx),
            e => self.render_entry(i, e, ctx),
        };
        let r = f(&lines);
        if !is_live(&entries[i]) {
            let mut c = self.cache.borrow_mut();
            let (n, now) = (lines.len(), c.tick);
            if let Some(slot) = c.entries.get_mut(i) {
                *slot = Slot {
                    lines,
                    stale: false,
                    filled: true,
                    used: now,
                };
                c.lines += n;
            }
        }
        r
    }

    fn height(&self, i: usize, entries: &[Entry], ctx: &ViewCtx) -> usize {
        self.with_lines(i, entries, ctx, <[_]>::len)
    }

    /// The top line of the view when following the end.
    fn bottom_top(&self, entries: &[Entry], height: usize, ctx: &ViewCtx) -> Pos {
        let mut need = height;
        for i in (0..entries.len()).rev() {
            let h = self.height(i, entries, ctx);
            if h >= need {
                return Pos {
                    entry: i,
                    line: h - need,
                };
            }
            need -= h;
        }
        Pos { entry: 0, line: 0 }
    }

    fn top(&self, entries: &[Entry], height: usize, ctx: &ViewCtx) -> Pos {
        match self.scroll {
            Scroll::Follow => self.bottom_top(entries, height, ctx),
            Scroll::Anchored(p) => p,
        }
    }

    /// Calls `f` with each line on screen, top to bottom (at most `height`), straight from the
    /// cache (no line is copied).
    pub fn for_each_visible(
        &self,
        entries: &[Entry],
        height: usize,
        ctx: &ViewCtx,
        mut f: impl FnMut(&Line<'static>),
    ) {
        if entries.is_empty() || height == 0 {
            return;
        }
        self.cache.borrow_mut().tick += 1;
        let top = self.top(entries, height, ctx);
        let mut i = top.entry.min(entries.len() - 1);
        let mut skip = top.line;
        let mut left = height;
        while left > 0 && i < entries.len() {
            let h = self.height(i, entries, ctx);
            self.colour(i, skip..h.min(skip + left), entries, ctx);
            self.with_lines(i, entries, ctx, |lines| {
                for line in lines.iter().skip(skip).take(left) {
                    f(line);
                    left -= 1;
                }
            });
            skip = 0;
            i += 1;
        }
        self.trim(height);
    }

    pub fn scroll_up(&mut self, n: usize, entries: &[Entry], height: usize, ctx: &ViewCtx) {
        if entries.is_empty() {
            return;
        }
        let mut p = self.top(entries, height, ctx);
        let mut n = n;
        while n > 0 {
            if p.line >= n {
                p.line -= n;
                break;
            }
            n -= p.line;
            if p.entry == 0 {
                p.line = 0;
                break;
            }
            p.entry -= 1;
            p.line = self.height(p.entry, entries, ctx);
        }
        self.scroll = Scroll::Anchored(p);
    }

    pub fn scroll_down(&mut self, n: usize, entries: &[Entry], height: usize, ctx: &ViewCtx) {
        let Scroll::Anchored(mut p) = self.scroll else {
            return;
        };
        let bottom = self.bottom_top(entries, height, ctx);
        let mut n = n;
        loop {
            if (p.entry, p.line) >= (bottom.entry, bottom.line) {
                self.end();
                return;
            }
            let h = self.height(p.entry, entries, ctx);
            let left = h.saturating_sub(p.line);
            if n < left {
                p.line += n;
                break;
            }
            n -= left;
            p = Pos {
                entry: p.entry + 1,
                line: 0,
            };
            if p.entry >= entries.len() {
                self.end();
                return;
            }
        }
        if (p.entry, p.line) >= (bottom.entry, bottom.line) {
            self.end();
        } else {
            self.scroll = Scroll::Anchored(p);
        }
    }

    pub fn home(&mut self) {
        self.anchor_at(0);
    }

    /// Entry `entry` at the top of the view.
    pub fn anchor_at(&mut self, entry: usize) {
        self.scroll = Scroll::Anchored(Pos { entry, line: 0 });
    }

    pub fn end(&mut self) {
        self.scroll = Scroll::Follow;
        self.new_output = false;
    }

    pub fn following(&self) -> bool {
        self.scroll == Scroll::Follow
    }

    /// Entries on screen (first, last), for "the block under the cursor".
    pub fn visible_entries(
        &self,
        entries: &[Entry],
        height: usize,
        ctx: &ViewCtx,
    ) -> Option<(usize, usize)> {
        if entries.is_empty() {
            return None;
        }
        let top = self.top(entries, height, ctx);
        let mut left = height + top.line;
        let mut i = top.entry;
        while i + 1 < entries.len() {
            let h = self.height(i, entries, ctx);
            if h >= left {
                break;
            }
            left -= h;
            i += 1;
        }
        Some((top.entry, i))
    }
}
