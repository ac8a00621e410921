//! The saved sessions as a list: what each is (id, start, directory, model, first message,
//! size), the latest of a directory, removal, and pruning by count or age (`sessions.keep`).
//! Reading a summary reads only the first lines of a file, so listing stays fast with many
//! long sessions.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::record::{Header, Record};
use super::store::{file_of, valid_id};

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
                Ok(Record::User { text, .. }) => {
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

/// Every session in `dir`, newest first (ids sort by start time).
pub fn list(dir: &Path) -> Vec<Summary> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".jsonl").map(str::to_owned))
        .filter(|id| valid_id(id))
        .collect();
    ids.sort_unstable_by(|a, b| b.cmp(a));
    ids.iter()
        .filter_map(|id| summarize(&file_of(dir, id), id))
        .collect()
}

/// The newest session started in `cwd`.
pub fn latest_in(dir: &Path, cwd: &Path) -> Option<Summary> {
    let cwd = cwd.display().to_string();
    list(dir).into_iter().find(|s| s.cwd() == cwd)
}

/// A session by id (or a unique prefix of one).
pub fn find(dir: &Path, id: &str) -> Result<Summary, String> {
    let all = list(dir);
    let matches: Vec<&Summary> = all.iter().filter(|s| s.id.starts_with(id)).collect();
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(format!("no session `{id}`; `sayso sessions` lists them")),
        many => Err(format!(
            "`{id}` matches {} sessions ({}); give more of the id",
            many.len(),
            many.iter()
                .take(5)
                .map(|s| s.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
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
        });
        let u = Record::User {
            text: first.into(),
            sent: first.into(),
        };
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
