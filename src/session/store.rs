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
//! Ids are short and their start tells them apart: 4 random base-36 characters, then the
//! seconds since the epoch in base 36 (7 characters, good until the year 4453), e.g.
//! `k3x9-ti2x0k9`. The first characters are what a user types (`--resume k3x9`), so they are
//! the random ones: 1.7 million values, where a time-first id made every session of the same
//! half-day share its first four. Ids of older versions (time first, `ti2x0k9-4fz`) stay
//! valid; the list orders sessions by their start, not by id.

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

/// How many random characters open an id.
const RANDOM_LEN: usize = 4;
/// The seconds part.
const TIME_LEN: usize = 7;

/// A new session id for `now`.
pub fn new_id(now: SystemTime) -> String {
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    format!(
        "{}-{}",
        base36(random() % 36u64.pow(RANDOM_LEN as u32), RANDOM_LEN),
        base36(since.as_secs(), TIME_LEN)
    )
}

/// 64 random bits: the standard library's per-process random hash keys, mixed with the
/// clock and the process id (no dependency for an id that only has to differ in practice).
fn random() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    h.write_u128(now.as_nanos());
    h.write_u32(std::process::id());
    h.finish()
}

/// Whether `id` has the shape of a session id (so it can name a file safely): this version's
/// (`k3x9-ti2x0k9`) or an older one's (`ti2x0k9-4fz`).
pub fn valid_id(id: &str) -> bool {
    let dash = match id.len() {
        12 => RANDOM_LEN,
        11 => TIME_LEN,
        _ => return false,
    };
    id.bytes().enumerate().all(|(i, b)| {
        if i == dash {
            b == b'-'
        } else {
            ALPHABET.contains(&b)
        }
    })
}

/// The part of an id that says when it started (base-36 seconds), for ordering sessions
/// whose header is missing or started in the same second.
pub fn time_part(id: &str) -> &str {
    match id.len() {
        12 => id.get(RANDOM_LEN + 1..).unwrap_or_default(),
        _ => id.get(..TIME_LEN).unwrap_or_default(),
    }
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

/// The lines of a session file that parse as `T` (the saved records, or any JSON value), and how
/// many were unreadable (a torn last line, or a line this version cannot read). Blank lines are
/// neither.
pub fn read_records<T: serde::de::DeserializeOwned>(
    path: &Path,
) -> std::io::Result<(Vec<T>, usize)> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn ids_start_random_end_with_the_time_and_old_ids_stay_valid() {
        let t0 = UNIX_EPOCH + Duration::from_secs(1_790_000_000);
        let a = new_id(t0);
        let b = new_id(t0 + Duration::from_secs(1));
        let c = new_id(t0 + Duration::from_secs(86_400 * 400));
        assert_eq!(a.len(), 12);
        assert!(valid_id(&a) && valid_id(&b) && valid_id(&c), "{a} {b} {c}");
        assert!(time_part(&a) < time_part(&b) && time_part(&b) < time_part(&c));
        assert_eq!(time_part("ti2x0k9-4fz"), "ti2x0k9");
        assert_eq!(time_part("k3x9-ti2x0k9"), "ti2x0k9");
        // The first four characters differ between ids made in the same second.
        let starts: std::collections::HashSet<String> =
            (0..50).map(|_| new_id(t0)[..4].to_owned()).collect();
        assert!(starts.len() > 45, "{starts:?}");
        assert!(valid_id("ti2x0k9-4fz"), "an older version's id");
        assert!(!valid_id("../../etc/x"));
        assert!(!valid_id("ti2x0k9_4fz"));
        assert!(!valid_id("k3x9_ti2x0k9"));
        assert!(!valid_id("k3x9-ti2x0k"));
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
        let (records, skipped) = read_records::<serde_json::Value>(&path).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(skipped, 1);
        let mut f = SessionFile::reopen(&path).unwrap();
        f.append(b"{\"t\":\"d\"}\n").unwrap();
        let (records, skipped) = read_records::<serde_json::Value>(&path).unwrap();
        assert_eq!(records.len(), 3, "the record after the torn line is read");
        assert_eq!(skipped, 1);
        assert!(SessionFile::create(&path).is_err(), "never overwrites");
    }
}
