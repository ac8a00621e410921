//! Which saved session a chat continues, and what it says on taking it up.
//!
//! - [`choose`]: `--resume ID` / `/resume ID` (a whole id or its first characters; an
//!   ambiguous start lists the candidates), or `--continue` (the session of this directory
//!   used last; when there is none, the message names the latest one elsewhere).
//! - [`banner`]: the lines a resumed chat opens with — id, start, directory, message count —
//!   and a warning when the session was started in another directory than the one the chat
//!   now works in (its tools act here, not there), or in one that no longer exists.

use std::path::Path;

use super::catalog::{self, Summary};

/// The session to continue: `id` (or a unique start of one), or with `None` the one started
/// in `cwd` that was used last.
pub fn choose(dir: &Path, id: Option<&str>, cwd: &Path) -> Result<Summary, String> {
    match id {
        Some(id) => catalog::find(dir, id),
        None => catalog::latest_in(dir, cwd).ok_or_else(|| none_here(dir, cwd)),
    }
}

fn none_here(dir: &Path, cwd: &Path) -> String {
    let head = format!("no saved session was started in {}", cwd.display());
    match catalog::list(dir).first() {
        None => format!("{head}, nor anywhere else yet"),
        Some(latest) => format!(
            "{head}; the latest one elsewhere: {}\n  (`sayso --resume {}` continues it here; `sayso sessions` lists them all)",
            catalog::candidate_line(latest),
            short(&latest.id)
        ),
    }
}

/// What a user types for `id`: its first four characters (random in this version's ids),
/// or an older version's whole id (their start is the time, shared by many).
pub fn short(id: &str) -> &str {
    if id.len() == 12 {
        id.get(..4).unwrap_or(id)
    } else {
        id
    }
}

/// The lines a resumed chat opens with: what it is, then a warning when it was started
/// elsewhere.
pub fn banner(s: &Summary, cwd: &Path) -> Vec<String> {
    let messages = match catalog::message_count(&s.path) {
        1 => "1 message".to_owned(),
        n => format!("{n} messages"),
    };
    let mut lines = vec![format!(
        "resumed session {} · started {} UTC · {} · {messages}",
        s.id,
        s.started(),
        if s.cwd().is_empty() { "?" } else { s.cwd() },
    )];
    let here = cwd.display().to_string();
    if !s.cwd().is_empty() && s.cwd() != here {
        let gone = if s.dir_gone() {
            " (which no longer exists)"
        } else {
            ""
        };
        lines.push(format!(
            "warning: this session was started in {}{gone}, not here: its tools now work in {here}",
            s.cwd()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Mode;
    use crate::session::record::{Header, Record};
    use crate::session::store::{SessionFile, file_of, sessions_dir};

    fn write(dir: &Path, id: &str, cwd: &str, texts: &[&str]) {
        let mut f = SessionFile::create(&file_of(dir, id)).unwrap();
        let mut records = vec![Record::Session(Header {
            v: 1,
            id: id.into(),
            cwd: cwd.into(),
            model: "m".into(),
            provider: "p".into(),
            started: "2026-12-01T08:30:00Z".into(),
            mode: Mode::Balanced,
            parent: None,
        })];
        for t in texts {
            records.push(Record::Event(crate::events::Event::UserMessage {
                text: (*t).into(),
                sent: (*t).into(),
            }));
            records.push(Record::Text { s: "part".into() });
            records.push(Record::Event(crate::events::Event::ReplyDone(
                crate::provider::AssistantMessage {
                    content: "answer".into(),
                    ..Default::default()
                },
            )));
        }
        let mut bytes = Vec::new();
        for r in records {
            bytes.extend(serde_json::to_vec(&r).unwrap());
            bytes.push(b'\n');
        }
        f.append(&bytes).unwrap();
    }

    #[test]
    fn the_banner_counts_messages_and_warns_about_another_directory() {
        let home = tempfile::tempdir().unwrap();
        let dir = sessions_dir(home.path()).unwrap();
        let here = home.path().display().to_string();
        write(&dir, "k3x9-ti2x0k9", &here, &["one", "two"]);
        let s = choose(&dir, Some("k3x9"), home.path()).unwrap();
        assert_eq!(
            banner(&s, home.path()),
            [format!(
                "resumed session k3x9-ti2x0k9 · started 2026-12-01 08:30 UTC · {here} · 4 messages"
            )]
        );
        let lines = banner(&s, Path::new("/elsewhere"));
        assert_eq!(
            lines[1],
            format!(
                "warning: this session was started in {here}, not here: its tools now work in /elsewhere"
            )
        );
        write(&dir, "a1b2-ti2x0ka", "/no/such/dir", &["three"]);
        let gone = choose(&dir, Some("a1b2"), home.path()).unwrap();
        assert!(banner(&gone, home.path())[1].contains("/no/such/dir (which no longer exists)"));
    }

    #[test]
    fn continue_without_a_session_here_names_the_latest_elsewhere() {
        let home = tempfile::tempdir().unwrap();
        let dir = sessions_dir(home.path()).unwrap();
        let e = choose(&dir, None, Path::new("/p/here")).unwrap_err();
        assert_eq!(
            e,
            "no saved session was started in /p/here, nor anywhere else yet"
        );
        write(&dir, "k3x9-ti2x0k9", "/p/there", &["the question"]);
        let e = choose(&dir, None, Path::new("/p/here")).unwrap_err();
        assert!(e.contains("the latest one elsewhere: k3x9-ti2x0k9  2026-12-01 08:30  /p/there (directory gone)  the question"), "{e}");
        assert!(e.contains("`sayso --resume k3x9`"), "{e}");
    }

    #[test]
    fn an_ambiguous_start_lists_each_candidate() {
        let home = tempfile::tempdir().unwrap();
        let dir = sessions_dir(home.path()).unwrap();
        write(&dir, "0tpc1aa-abc", "/p/one", &["first question"]);
        write(&dir, "0tpc1ab-xyz", "/p/two", &["second question"]);
        let e = choose(&dir, Some("0tpc"), home.path()).unwrap_err();
        let lines: Vec<&str> = e.lines().collect();
        assert_eq!(lines[0], "`0tpc` matches 2 sessions; give more of the id:");
        assert!(
            lines[1].starts_with("  0tpc1ab-xyz  2026-12-01 08:30  /p/two"),
            "{e}"
        );
        assert!(lines[1].ends_with("second question"), "{e}");
        assert!(lines[2].contains("0tpc1aa-abc") && lines[2].contains("first question"));
        assert_eq!(
            choose(&dir, Some("0tpc1aa"), home.path()).unwrap().id,
            "0tpc1aa-abc"
        );
    }
}
