//! The `/sessions` (and bare `/resume`) picker: the other saved sessions (not the chat on
//! screen), newest first, in aligned columns — short id, date, directory (marked when gone),
//! message count, first message. Up/Down (or k/j) move, Enter resumes the selected one, Esc
//! closes.

use crossterm::event::{KeyCode, KeyEvent};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::events::SessionInfo;

pub struct SessionPicker {
    pub sessions: Vec<SessionInfo>,
    /// What each session's line says ([`SessionPicker::rows`]).
    pub rows: Vec<String>,
    pub selected: usize,
}

/// What a key in the picker decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Picked {
    Resume(String),
    Close,
}

impl SessionPicker {
    pub fn new(sessions: Vec<SessionInfo>) -> Self {
        let rows = rows(&sessions);
        Self {
            sessions,
            rows,
            selected: 0,
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<Picked> {
        let last = self.sessions.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc | KeyCode::Char('q') => return Some(Picked::Close),
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(10),
            KeyCode::PageDown => self.selected = (self.selected + 10).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Enter => {
                return self
                    .sessions
                    .get(self.selected)
                    .map(|s| Picked::Resume(s.id.clone()));
            }
            _ => {}
        }
        None
    }
}

/// One line per session, in aligned columns:
/// `k3x9  2026-12-01 08:30  ~/src/proj  12 msgs  first message…` — the short id (what
/// `/resume ID` takes), the start, the directory (marked when it is gone), the message
/// count and the first message.
fn rows(sessions: &[SessionInfo]) -> Vec<String> {
    let ids = short_ids(sessions);
    let dirs: Vec<String> = sessions
        .iter()
        .map(|s| {
            let dir = clip(&s.cwd, MAX_DIR);
            match s.dir_gone {
                true => format!("{dir} {}", crate::session::catalog::GONE),
                false => dir,
            }
        })
        .collect();
    let counts: Vec<String> = sessions
        .iter()
        .map(|s| match s.messages {
            1 => "1 msg".to_owned(),
            n => format!("{n} msgs"),
        })
        .collect();
    let width = |v: &[String]| v.iter().map(|x| x.width()).max().unwrap_or(0);
    let (id_w, dir_w, count_w) = (width(&ids), width(&dirs), width(&counts));
    let pad = |x: &str, w: usize| " ".repeat(w.saturating_sub(x.width()));
    sessions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (id, dir, count) = (&ids[i], &dirs[i], &counts[i]);
            format!(
                "{id}{}  {}  {dir}{}  {}{count}  {}",
                pad(id, id_w),
                s.started,
                pad(dir, dir_w),
                pad(count, count_w),
                s.first_message
            )
        })
        .collect()
}

/// The widest a directory is shown (longer ones keep their end, after `…`).
const MAX_DIR: usize = 40;

/// `text` in at most `max` columns: its end, after `…`.
fn clip(text: &str, max: usize) -> String {
    if text.width() <= max {
        return text.to_owned();
    }
    let mut tail: Vec<char> = Vec::new();
    let mut w = 1;
    for c in text.chars().rev() {
        w += c.width().unwrap_or(0);
        if w > max {
            break;
        }
        tail.push(c);
    }
    std::iter::once('…').chain(tail.into_iter().rev()).collect()
}

/// Each session's shortest id start that no other listed session shares, four characters at
/// least (a whole id when another one begins with it).
fn short_ids(sessions: &[SessionInfo]) -> Vec<String> {
    sessions
        .iter()
        .map(|s| {
            let chars: Vec<char> = s.id.chars().collect();
            (4..chars.len())
                .map(|n| chars[..n].iter().collect::<String>())
                .find(|p| {
                    sessions
                        .iter()
                        .all(|o| o.id == s.id || !o.id.starts_with(p.as_str()))
                })
                .unwrap_or_else(|| s.id.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: &str, cwd: &str, messages: usize, gone: bool) -> SessionInfo {
        SessionInfo {
            id: id.into(),
            started: "2026-12-01 08:30".into(),
            cwd: cwd.into(),
            dir_gone: gone,
            first_message: "hi".into(),
            messages,
            bytes: 0,
        }
    }

    #[test]
    fn ids_are_cut_to_their_shortest_unique_start() {
        let list = [
            info("k3x9-ti2x0k9", "/a", 1, false),
            info("ti2x0k9-4fz", "/a", 1, false),
            info("ti2x0ka-5ab", "/a", 1, false),
            info("ab", "/a", 1, false),
        ];
        assert_eq!(short_ids(&list), ["k3x9", "ti2x0k9", "ti2x0ka", "ab"]);
    }

    #[test]
    fn the_columns_line_up() {
        let p = SessionPicker::new(vec![
            info("k3x9-ti2x0k9", "/tmp/home", 2, false),
            info("ab12-ti2x0k9", "/tmp/home/cache/sayso/demo", 12, true),
            info("zz99-ti2x0k9", "/x", 1, false),
        ]);
        let rows = &p.rows;
        assert!(
            rows[0].starts_with("k3x9  2026-12-01 08:30  /tmp/home   "),
            "{rows:?}"
        );
        assert!(
            rows[1].starts_with(
                "ab12  2026-12-01 08:30  /tmp/home/cache/sayso/demo (directory gone)  12 msgs  hi"
            ),
            "{rows:?}"
        );
        // The counts end, and the first messages start, in one column.
        for r in rows {
            assert_eq!(r.width(), rows[1].width(), "{rows:?}");
            assert!(r.ends_with("  hi"), "{rows:?}");
        }
        assert!(rows[2].contains("   1 msg  hi"), "{rows:?}");
    }

    #[test]
    fn a_long_directory_keeps_its_end() {
        let long = format!("/{}", "d/".repeat(40));
        let clipped = clip(&long, MAX_DIR);
        assert_eq!(clipped.width(), MAX_DIR);
        assert!(
            clipped.starts_with('…') && clipped.ends_with("d/"),
            "{clipped}"
        );
    }
}
