//! A session forked by `/rewind`: a new file with its own id, its header naming the session it
//! came from (`parent`), holding that session's records up to a cut. The parent's file is only
//! read: it stays as it was, and resumable.
//!
//! The records are written as the writer writes them (each line scrubbed of secret values); a
//! record this version does not know (from a newer sayso) is not copied. Where to cut is the
//! agent's (`agent::rewind`); this module does no choosing.

use std::path::Path;
use std::time::SystemTime;

use super::live::rfc3339;
use super::record::{Header, Record, VERSION};
use super::store::{SessionFile, file_of, new_id, sessions_dir};

/// Writes the fork of `parent` holding `records` into `data_dir`'s sessions directory; its id.
pub fn write(
    data_dir: &Path,
    parent: &Header,
    records: &[Record],
    now: SystemTime,
) -> std::io::Result<String> {
    let dir = sessions_dir(data_dir)?;
    let id = new_id(now);
    let header = Header {
        v: VERSION,
        id: id.clone(),
        started: rfc3339(now),
        parent: Some(parent.id.clone()),
        ..parent.clone()
    };
    let mut bytes = line(&Record::Session(header))?;
    for r in records {
        match r {
            Record::Session(_) | Record::Unknown => {}
            r => bytes.extend(line(r)?),
        }
    }
    let mut file = SessionFile::create(&file_of(&dir, &id))?;
    file.append(&bytes)?;
    file.sync()?;
    Ok(id)
}

fn line(r: &Record) -> std::io::Result<Vec<u8>> {
    let value = crate::secrets::scrub_json(serde_json::to_value(r)?);
    let mut line = serde_json::to_vec(&value)?;
    line.push(b'\n');
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{Event, Mode};
    use crate::session::store::read_records;

    fn header(id: &str) -> Header {
        Header {
            v: 1,
            id: id.into(),
            cwd: "/p".into(),
            model: "m".into(),
            provider: "p".into(),
            started: "2026-12-01T08:30:00Z".into(),
            mode: Mode::Auto,
            parent: None,
        }
    }

    #[test]
    fn a_fork_has_its_own_id_names_its_parent_and_holds_the_records() {
        let tmp = tempfile::tempdir().unwrap();
        let user = Record::Event(Event::UserMessage {
            text: "one".into(),
            sent: "one".into(),
        });
        let records = [
            Record::Session(header("old")),
            user.clone(),
            Record::Unknown,
        ];
        let now = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_083_200);
        let id = write(tmp.path(), &header("old"), &records, now).unwrap();
        assert_ne!(id, "old");
        let path = file_of(&tmp.path().join("sessions"), &id);
        let (read, skipped) = read_records::<Record>(&path).unwrap();
        assert_eq!(skipped, 0);
        let want = Header {
            v: VERSION,
            id: id.clone(),
            started: "2026-12-01T00:00:00Z".into(),
            parent: Some("old".into()),
            ..header("old")
        };
        assert_eq!(read, [Record::Session(want), user]);
    }

    /// A header without `parent` (every file before forks) reads; one with it reads in a
    /// reader that does not know the field (serde ignores it), and is written only when set.
    #[test]
    fn the_parent_field_is_optional_both_ways() {
        let old = r#"{"t":"session","v":2,"id":"a","cwd":"/p","model":"m","provider":"p","started":"2026-12-01T08:30:00Z","mode":"auto"}"#;
        let r: Record = serde_json::from_str(old).unwrap();
        assert_eq!(
            r,
            Record::Session(Header {
                v: 2,
                id: "a".into(),
                ..header("a")
            })
        );
        let plain = serde_json::to_string(&r).unwrap();
        assert!(!plain.contains("parent"), "{plain}");
        #[derive(serde::Deserialize)]
        #[allow(dead_code)]
        struct OlderHeader {
            v: u32,
            id: String,
            mode: Mode,
        }
        let forked = Header {
            parent: Some("a".into()),
            ..header("b")
        };
        let text = serde_json::to_string(&forked).unwrap();
        assert!(text.contains(r#""parent":"a""#), "{text}");
        let older: OlderHeader = serde_json::from_str(&text).unwrap();
        assert_eq!(older.id, "b");
    }
}
