//! Where sessions live and how their files are written and read (SPEC §8.1): one JSON Lines
//! file per session under `$XDG_DATA_HOME/sayso/sessions/`, the directory `0700`, each file
//! `0600`, created exclusively.
//!
//! Writing is append-only: [`SessionFile::append`] writes whole lines and flushes them to the
//! kernel at once (so `kill -9` loses nothing already appended); [`SessionFile::sync`] asks the
//! disk to keep them (at turn ends). Reading ([`read_records`]) takes the file in one pass and
//! skips a line that is not valid JSON — a half-written last line after a crash — with a
//! warning, never an error.
//!
//! Ids are short and sort by time: seconds since the epoch in base 36 (7 characters, good
//! until the year 4453) and 3 random base-36 characters, e.g. `ti2x0k9-4fz`.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

const ALPHABET: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";

fn base36(mut n: u64, width: usize) -> String {
    let mut out = vec![b'0'; width];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(n % 36) as usize];
        n /= 36;
    }
    String::from_utf8(out).unwrap_or_default()
}

/// A new session id for `now`.
pub fn new_id(now: SystemTime) -> String {
    let secs = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let nanos = now
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    // Random enough to tell apart two sessions started in the same second.
    let noise = u64::from(nanos) ^ u64::from(std::process::id()).rotate_left(17);
    format!("{}-{}", base36(secs, 7), base36(noise % 36u64.pow(3), 3))
}

/// Whether `id` has the shape of a session id (so it can name a file safely).
pub fn valid_id(id: &str) -> bool {
    id.len() == 11
        && id.bytes().enumerate().all(|(i, b)| {
            if i == 7 {
                b == b'-'
            } else {
                ALPHABET.contains(&b)
            }
        })
}

/// The sessions directory, created `0700` if missing (and tightened if it exists looser).
pub fn sessions_dir(data_dir: &Path) -> std::io::Result<PathBuf> {
    let dir = data_dir.join("sessions");
    std::fs::create_dir_all(&dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(dir)
}

pub fn file_of(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.jsonl"))
}

/// An open session file, appended to.
pub struct SessionFile {
    file: File,
    path: PathBuf,
}

impl SessionFile {
    /// Creates a new file `0600` (fails if it exists).
    pub fn create(path: &Path) -> std::io::Result<Self> {
        let mut options = OpenOptions::new();
        options.append(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        Ok(Self {
            file: options.open(path)?,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing session file to continue it. A last line without its newline (a
    /// crash mid-write) is ended first, so the next record starts on a line of its own.
    pub fn reopen(path: &Path) -> std::io::Result<Self> {
        let bytes = std::fs::read(path)?;
        let mut file = OpenOptions::new().append(true).open(path)?;
        if bytes.last().is_some_and(|b| *b != b'\n') {
            file.write_all(b"\n")?;
        }
        Ok(Self {
            file,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends whole lines (each already ends with `\n`) in one write.
    pub fn append(&mut self, lines: &[u8]) -> std::io::Result<()> {
        self.file.write_all(lines)
    }

    /// Asks the disk to keep what was appended.
    pub fn sync(&mut self) -> std::io::Result<()> {
        self.file.sync_data()
    }
}

/// The lines of a session file that parse as JSON values, and how many were skipped.
pub fn read_records(path: &Path) -> std::io::Result<(Vec<serde_json::Value>, usize)> {
    let reader = BufReader::with_capacity(256 * 1024, File::open(path)?);
    let mut records = Vec::new();
    let mut skipped = 0;
    for line in reader.split(b'\n') {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice(&line) {
            Ok(v) => records.push(v),
            Err(_) => skipped += 1,
        }
    }
    Ok((records, skipped))
}

/// The records of a session file in one pass, and how many lines were unreadable (a torn last
/// line, or a line this version cannot read).
pub fn read_session(path: &Path) -> std::io::Result<(Vec<super::record::Record>, usize)> {
    let reader = BufReader::with_capacity(256 * 1024, File::open(path)?);
    let mut records = Vec::new();
    let mut skipped = 0;
    for line in reader.split(b'\n') {
        let line = line?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice(&line) {
            Ok(r) => records.push(r),
            Err(_) => skipped += 1,
        }
    }
    Ok((records, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn ids_are_short_valid_and_sort_by_time() {
        let t0 = UNIX_EPOCH + Duration::from_secs(1_790_000_000);
        let a = new_id(t0);
        let b = new_id(t0 + Duration::from_secs(1));
        let c = new_id(t0 + Duration::from_secs(86_400 * 400));
        assert_eq!(a.len(), 11);
        assert!(valid_id(&a) && valid_id(&b) && valid_id(&c), "{a} {b} {c}");
        assert!(a[..7] < b[..7] && b < c, "{a} {b} {c}");
        assert!(!valid_id("../../etc/x"));
        assert!(!valid_id("ti2x0k9_4fz"));
    }

    #[cfg(unix)]
    #[test]
    fn files_are_private_and_a_torn_last_line_is_skipped() {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        let dir = sessions_dir(home.path()).unwrap();
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let path = file_of(&dir, "ti2x0k9-4fz");
        let mut f = SessionFile::create(&path).unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        f.append(b"{\"t\":\"a\"}\n{\"t\":\"b\"}\n{\"t\":\"c\",\"s\":\"hal")
            .unwrap();
        drop(f);
        let (records, skipped) = read_records(&path).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(skipped, 1);
        let mut f = SessionFile::reopen(&path).unwrap();
        f.append(b"{\"t\":\"d\"}\n").unwrap();
        let (records, skipped) = read_records(&path).unwrap();
        assert_eq!(records.len(), 3, "the record after the torn line is read");
        assert_eq!(skipped, 1);
        assert!(SessionFile::create(&path).is_err(), "never overwrites");
    }
}
