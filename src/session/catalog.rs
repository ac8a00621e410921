//! The saved sessions as a list: what each is (id, start, directory, model, first message,
//! size), newest first by their start; the one of a directory used last; a session by id or
//! by the first characters of one (an ambiguous start lists the candidates); removal, and
//! pruning by count or age (`sessions.keep`). Reading a summary reads only the first lines of
//! a file, so listing stays fast with many long sessions; counting a session's messages
//! ([`message_count`]) scans the file's lines without parsing them.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::record::{Header, Record};
use super::store::{file_of, time_part, valid_id};
use crate::events::{Event, SessionInfo};

/// One saved session, as a list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub id: String,
    pub path: PathBuf,
    pub header: Option<Header>,
    /// The first thing the user typed (one line).
    pub first_message: Option<String>,
    pub bytes: u64,
    pub modified: SystemTime,
}

impl Summary {
    pub fn cwd(&self) -> &str {
        self.header.as_ref().map_or("", |h| h.cwd.as_str())
    }

    /// When it started, `2026-12-01 08:30` (UTC; the file's time when the header is missing).
    pub fn started(&self) -> String {
        let rfc = self.header.as_ref().map_or_else(
            || super::live::rfc3339(self.modified),
            |h| h.started.clone(),
        );
        short_date(&rfc)
    }

    /// The directory it was started in no longer exists (a deleted checkout, an old demo's
    /// scratch directory).
    pub fn dir_gone(&self) -> bool {
        !self.cwd().is_empty() && !Path::new(self.cwd()).is_dir()
    }

    /// The directory, marked when it is gone.
    pub fn cwd_shown(&self) -> String {
        if self.dir_gone() {
            format!("{} {GONE}", self.cwd())
        } else {
            self.cwd().to_owned()
        }
    }
}

/// How a list marks a session whose directory no longer exists.
pub const GONE: &str = "(directory gone)";

/// `2026-12-01T08:30:00Z` as `2026-12-01 08:30`.
pub fn short_date(rfc3339: &str) -> String {
    rfc3339.get(..16).unwrap_or(rfc3339).replace('T', " ")
}

/// Reads the header and the first user message (within the first lines).
fn summarize(path: &Path, id: &str) -> Option<Summary> {
    let meta = std::fs::metadata(path).ok()?;
    let mut header = None;
    let mut first_message = None;
    if let Ok(f) = std::fs::File::open(path) {
        for line in BufReader::new(f).lines().take(64).map_while(Result::ok) {
            match serde_json::from_str::<Record>(&line) {
                Ok(Record::Session(h)) => header = Some(h),
                Ok(Record::Event(Event::UserMessage { text, .. })) => {
                    first_message = Some(text.lines().next().unwrap_or_default().to_owned());
                    break;
                }
                _ => {}
            }
        }
    }
    Some(Summary {
        id: id.to_owned(),
        path: path.to_path_buf(),
        header,
        first_message,
        bytes: meta.len(),
        modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
    })
}

/// Every session in `dir`, newest first: by the start its header records, then by the time
/// in its id.
pub fn list(dir: &Path) -> Vec<Summary> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let ids: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".jsonl").map(str::to_owned))
        .filter(|id| valid_id(id))
        .collect();
    let mut all: Vec<Summary> = ids
        .iter()
        .filter_map(|id| summarize(&file_of(dir, id), id))
        .collect();
    all.sort_by(|a, b| order_key(b).cmp(&order_key(a)));
    all
}

fn order_key(s: &Summary) -> (String, &str, &str) {
    let started = s
        .header
        .as_ref()
        .map(|h| h.started.clone())
        .unwrap_or_default();
    (started, time_part(&s.id), s.id.as_str())
}

/// The session started in `cwd` that was used last (written to last: a resumed older chat
/// counts as recent).
pub fn latest_in(dir: &Path, cwd: &Path) -> Option<Summary> {
    let cwd = cwd.display().to_string();
    // On a tie (file times are coarse), the one started later.
    list(dir)
        .into_iter()
        .rev()
        .filter(|s| s.cwd() == cwd)
        .max_by_key(|s| s.modified)
}

/// A session by id (or a unique start of one). An ambiguous start lists the candidates.
pub fn find(dir: &Path, id: &str) -> Result<Summary, String> {
    let all = list(dir);
    let matches: Vec<&Summary> = all.iter().filter(|s| s.id.starts_with(id)).collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        _ if id.is_empty() => Err("give a session id; `sayso sessions` lists them".into()),
        [] => Err(format!("no session `{id}`; `sayso sessions` lists them")),
        many => Err(ambiguous(id, many)),
    }
}

/// How many candidates an ambiguous id lists.
const CANDIDATES: usize = 10;

fn ambiguous(id: &str, many: &[&Summary]) -> String {
    let mut out = format!(
        "`{id}` matches {} sessions; give more of the id:",
        many.len()
    );
    for s in many.iter().take(CANDIDATES) {
        out.push_str(&format!("\n  {}", candidate_line(s)));
    }
    if many.len() > CANDIDATES {
        out.push_str(&format!("\n  … and {} more", many.len() - CANDIDATES));
    }
    out
}

/// `k3x9-ti2x0k9  2026-12-01 08:30  /src/proj  first message…`.
pub fn candidate_line(s: &Summary) -> String {
    let first: String = s
        .first_message
        .as_deref()
        .unwrap_or_default()
        .chars()
        .take(60)
        .collect();
    format!("{}  {}  {}  {first}", s.id, s.started(), s.cwd_shown())
}

/// The messages of a session file: what the user sent and what the model replied (a reply
/// that was cut off included), as a list counts them. Only lines that name such a record are
/// parsed, and only for their kind.
pub fn message_count(path: &Path) -> usize {
    #[derive(serde::Deserialize)]
    struct Kind {
        t: String,
        #[serde(default)]
        partial: Option<String>,
    }
    let Ok(f) = std::fs::File::open(path) else {
        return 0;
    };
    let kinds: [&[u8]; 3] = [br#""t":"user""#, br#""t":"reply""#, br#""t":"interrupted""#];
    BufReader::with_capacity(256 * 1024, f)
        .split(b'\n')
        .map_while(Result::ok)
        .filter(|line| {
            kinds
                .iter()
                .any(|k| memchr::memmem::find(line, k).is_some())
        })
        .filter_map(|line| serde_json::from_slice::<Kind>(&line).ok())
        .filter(|k| match k.t.as_str() {
            "user" | "reply" => true,
            "interrupted" => k.partial.as_deref().is_some_and(|p| !p.is_empty()),
            _ => false,
        })
        .count()
}

/// The sessions as the TUI's picker shows them, newest first.
pub fn infos(dir: &Path) -> Vec<SessionInfo> {
    list(dir)
        .into_iter()
        .map(|s| SessionInfo {
            started: s.started(),
            cwd: s.cwd().to_owned(),
            dir_gone: s.dir_gone(),
            first_message: s.first_message.clone().unwrap_or_default(),
            messages: message_count(&s.path),
            bytes: s.bytes,
            id: s.id,
        })
        .collect()
}

pub use crate::config::sessions::{Keep, parse_keep};

/// Removes the sessions `keep` lets go (never `except`, the one in use); returns how many.
pub fn prune(dir: &Path, keep: Keep, except: Option<&str>, now: SystemTime) -> usize {
    let all = list(dir);
    let doomed: Vec<&Summary> = match keep {
        Keep::Count(n) => all.iter().skip(n).collect(),
        Keep::Age(age) => all
            .iter()
            .filter(|s| now.duration_since(s.modified).is_ok_and(|d| d > age))
            .collect(),
    };
    doomed
        .into_iter()
        .filter(|s| Some(s.id.as_str()) != except)
        .filter(|s| std::fs::remove_file(&s.path).is_ok())
        .count()
}

/// Removes the sessions whose directory no longer exists; returns how many.
pub fn remove_gone(dir: &Path) -> usize {
    list(dir)
        .into_iter()
        .filter(Summary::dir_gone)
        .filter(|s| std::fs::remove_file(&s.path).is_ok())
        .count()
}

/// "12 KiB", "3.4 MiB".
pub fn human_size(n: u64) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{} KiB", n / 1024),
        _ => format!("{:.1} MiB", n as f64 / 1_048_576.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Mode;
    use crate::session::store::{SessionFile, sessions_dir};

    fn write(dir: &Path, id: &str, cwd: &str, first: &str) {
        let mut f = SessionFile::create(&file_of(dir, id)).unwrap();
        let h = Record::Session(Header {
            v: 1,
            id: id.into(),
            cwd: cwd.into(),
            model: "m".into(),
            provider: "p".into(),
            started: "2026-12-01T00:00:00Z".into(),
            mode: Mode::Balanced,
            parent: None,
        });
        let u = Record::Event(crate::events::Event::UserMessage {
            text: first.into(),
            sent: first.into(),
        });
        let mut bytes = Vec::new();
        for r in [h, u] {
            bytes.extend(serde_json::to_vec(&r).unwrap());
            bytes.push(b'\n');
        }
        f.append(&bytes).unwrap();
    }

    #[test]
    fn sessions_list_newest_first_find_by_prefix_and_prune() {
        let home = tempfile::tempdir().unwrap();
        let dir = sessions_dir(home.path()).unwrap();
        write(&dir, "ti2x0k9-aaa", "/p/one", "first question\nmore");
        write(&dir, "ti2x0kb-bbb", "/p/two", "second");
        write(&dir, "ti2x0kc-ccc", "/p/one", "third");
        std::fs::write(dir.join("notes.txt"), "not a session").unwrap();
        let all = list(&dir);
        let ids: Vec<&str> = all.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["ti2x0kc-ccc", "ti2x0kb-bbb", "ti2x0k9-aaa"]);
        assert_eq!(all[2].first_message.as_deref(), Some("first question"));
        assert_eq!(
            latest_in(&dir, Path::new("/p/one")).unwrap().id,
            "ti2x0kc-ccc"
        );
        // The one used last wins: an older chat written to after the newer one.
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        std::fs::File::options()
            .append(true)
            .open(file_of(&dir, "ti2x0k9-aaa"))
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert_eq!(
            latest_in(&dir, Path::new("/p/one")).unwrap().id,
            "ti2x0k9-aaa"
        );
        assert_eq!(find(&dir, "ti2x0kb").unwrap().id, "ti2x0kb-bbb");
        assert!(find(&dir, "ti2x0k").unwrap_err().contains("matches 3"));
        assert_eq!(
            prune(&dir, Keep::Count(1), Some("ti2x0k9-aaa"), SystemTime::now()),
            1
        );
        let left: Vec<String> = list(&dir).into_iter().map(|s| s.id).collect();
        assert_eq!(left, ["ti2x0kc-ccc", "ti2x0k9-aaa"]);
    }
}
