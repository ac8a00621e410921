//! The `@` picker's state: the query (the `@word` the text ends with), the paths that match it
//! best ([`crate::attach::fuzzy`]) from the project's index ([`crate::attach::index`], walked
//! on a thread of its own when the picker first opens, and again when stale), the highlight,
//! and whether Esc closed it. The input box owns it; `widgets::file_menu` draws it.
//!
//! It is open while the text ends in `@query` — `@` at the start or after whitespace, no
//! whitespace after it, not `@{` (a tool group, completed by Tab as before) and no `:` (a line
//! range is being typed) — and something matches. What it refuses to do: walk the tree on the
//! UI thread, or rank more than the index holds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::attach::{fuzzy, index::FileIndex};

/// At most this many matches are offered.
pub const MAX_ITEMS: usize = 50;

/// The last query, the index snapshot it ran on (its address), and its matches.
type Ranked = Option<(String, usize, Arc<Vec<String>>)>;

#[derive(Debug, Default)]
pub struct FileMenu {
    index: Option<FileIndex>,
    selected: usize,
    dismissed: bool,
    cache: Mutex<Ranked>,
    /// The walk whose paths the picker last looked at, plus one (0: it was not open then).
    /// A walk that ends after a frame looked, but before the loop asks whether to wake for
    /// it, still gets its frame.
    looked: AtomicU64,
}

/// What the picker shows.
pub struct FileMenuView {
    pub items: Arc<Vec<String>>,
    pub selected: usize,
    /// Where the `@` is in the text.
    pub at: usize,
}

/// The `@query` the text ends with: the `@`'s byte offset and the query.
pub fn query(text: &str) -> Option<(usize, &str)> {
    let at = text.rfind('@')?;
    let q = &text[at + 1..];
    let before_ok = text[..at]
        .chars()
        .next_back()
        .is_none_or(char::is_whitespace);
    (before_ok && !q.starts_with('{') && !q.contains(char::is_whitespace) && !q.contains(':'))
        .then_some((at, q))
}

impl FileMenu {
    /// The directory to index; until it is set, the picker does not open.
    pub fn set_root(&mut self, root: &std::path::Path) {
        self.index = Some(FileIndex::new(root));
    }

    pub fn edited(&mut self) {
        self.selected = 0;
        self.dismissed = false;
    }

    pub fn dismiss(&mut self) {
        self.dismissed = true;
    }

    /// The picker for `text`, when open; the first look starts the index's walk.
    pub fn view(&mut self, text: &str) -> Option<FileMenuView> {
        if self.dismissed {
            return None;
        }
        let (at, _) = query(text)?;
        self.index.as_ref()?.refresh();
        self.peek(text).map(|mut v| {
            v.at = at;
            v
        })
    }

    /// [`FileMenu::view`] without starting a walk (for drawing).
    pub fn peek(&self, text: &str) -> Option<FileMenuView> {
        self.hidden();
        if self.dismissed {
            return None;
        }
        let (at, q) = query(text)?;
        let snapshot = self.index.as_ref()?.snapshot();
        self.looked.store(snapshot.walk + 1, Ordering::Relaxed);
        let key = Arc::as_ptr(&snapshot.paths) as usize;
        let mut cache = self.cache.lock().ok()?;
        let items = match cache.as_ref() {
            Some((cq, ck, items)) if cq == q && *ck == key => items.clone(),
            _ => {
                let items: Vec<String> = fuzzy::best(q, &snapshot.paths, MAX_ITEMS)
                    .into_iter()
                    .map(|i| snapshot.paths[i].clone())
                    .collect();
                let items = Arc::new(items);
                *cache = Some((q.to_owned(), key, items.clone()));
                items
            }
        };
        (!items.is_empty()).then(|| FileMenuView {
            selected: self.selected.min(items.len() - 1),
            items,
            at,
        })
    }

    /// Whether the picker waits for its index: a walk runs (the picker may open when it ends),
    /// or one ended after the picker last looked.
    pub fn walking(&self) -> bool {
        let looked = self.looked.load(Ordering::Relaxed);
        !self.dismissed
            && self
                .index
                .as_ref()
                .is_some_and(|i| i.walking() || (looked != 0 && looked != i.walks() + 1))
    }

    /// The picker is not shown (the text is not one line, or the history is being walked).
    pub fn hidden(&self) {
        self.looked.store(0, Ordering::Relaxed);
    }

    /// Up (`back`) or Down, wrapping around.
    pub fn step(&mut self, back: bool, count: usize) {
        if count == 0 {
            return;
        }
        let at = self.selected.min(count - 1);
        self.selected = if back {
            (at + count - 1) % count
        } else {
            (at + 1) % count
        };
    }
}

/// The text with its `@query` completed to `@path`: a file gets a space after it, a
/// directory (`dir/`) none, to go on typing inside it.
pub fn complete(text: &str, at: usize, path: &str) -> String {
    let space = if path.ends_with('/') { "" } else { " " };
    format!("{}@{path}{space}", &text[..at])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_is_the_at_word_the_text_ends_with() {
        let table: &[(&str, Option<(usize, &str)>)] = &[
            ("@", Some((0, ""))),
            ("see @src/ma", Some((4, "src/ma"))),
            ("see @src/main.rs ", None),
            ("use @{gi", None),
            ("me@example", None),
            ("@a.rs:2-", None),
            ("no at", None),
        ];
        for (text, want) in table {
            assert_eq!(query(text), *want, "{text}");
        }
    }

    #[test]
    fn the_picker_ranks_the_index_once_its_walk_ends_and_esc_closes_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/main.rs"), "").unwrap();
        std::fs::write(dir.path().join("notes.md"), "").unwrap();
        let mut menu = FileMenu::default();
        assert!(menu.view("@ma").is_none(), "no root, no picker");
        menu.set_root(dir.path());
        menu.view("@ma");
        // Each frame looks, as the drawing does, until the picker waits no more.
        for _ in 0..1000 {
            menu.peek("see @ma");
            if !menu.walking() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let v = menu.peek("see @ma").expect("open");
        assert_eq!(v.at, 4);
        assert_eq!(v.items[0], "src/main.rs");
        menu.step(false, v.items.len());
        menu.dismiss();
        assert!(menu.peek("see @ma").is_none());
        menu.edited();
        assert!(menu.peek("see @zzz").is_none(), "nothing matches");
    }

    /// The loop asks whether to wake for the index after drawing: a walk that ended after the
    /// frame looked (empty) must still be waited for, or the picker never opens.
    #[test]
    fn a_walk_that_ends_after_the_picker_looked_is_waited_for_until_it_looks_again() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.rs"), "").unwrap();
        let mut menu = FileMenu::default();
        menu.set_root(dir.path());
        assert!(menu.view("@ma").is_none(), "the walk has just started");
        let index = menu.index.clone().expect("a root");
        for _ in 0..1000 {
            if !index.walking() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(!index.walking());
        assert!(
            menu.walking(),
            "the walk ended after the last look: one more frame"
        );
        assert_eq!(menu.peek("@ma").expect("open").items[0], "main.rs");
        assert!(
            !menu.walking(),
            "looked at the last walk: nothing to wait for"
        );
        // A walk that ends while the picker is not shown wakes nothing.
        menu.peek("@ma");
        menu.hidden();
        assert!(!menu.walking());
        menu.peek("no query here");
        assert!(!menu.walking());
    }

    #[test]
    fn completion_replaces_the_query() {
        assert_eq!(complete("see @ma", 4, "src/main.rs"), "see @src/main.rs ");
        assert_eq!(complete("@s", 0, "src/"), "@src/");
    }
}
