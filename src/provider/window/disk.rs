//! What the probes found, kept on disk between runs: `$XDG_CACHE_HOME/sayso/windows/`, one
//! private file (0600, in a 0700 directory) per endpoint, written whole to a temporary file and
//! renamed over the old one. It holds, per model, the window found (or that none was) for
//! [`MAX_AGE`], and the routes that answered 404 there, which are never asked again.
//!
//! The endpoint is named by its base URL without credentials, query or fragment
//! ([`endpoint_key`]); nothing else from the config (no key, no header) is written. A file that
//! cannot be read or parsed is as good as none; a write that fails is logged and forgotten.
//! Not here: deciding what to probe (`identify.rs`) or what a body says (`parse.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{Confidence, ContextWindow, WindowSource};

/// How long a found window is trusted without asking again.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// One endpoint's file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct EndpointFile {
    pub endpoint: String,
    /// Routes that answered 404 (`/props`, `/api/show`, `/models`…).
    #[serde(default)]
    pub missing: BTreeSet<String>,
    /// Model id → what was found.
    #[serde(default)]
    pub models: BTreeMap<String, Saved>,
}

/// What the probes found for one model, and when (seconds since the epoch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Saved {
    pub at: u64,
    /// `None`: the server said nothing about the window.
    pub window: Option<SavedWindow>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SavedWindow {
    pub tokens: u64,
    pub source: WindowSource,
    pub confidence: Confidence,
    pub via: String,
}

impl SavedWindow {
    pub(crate) fn of(w: &ContextWindow) -> Self {
        Self {
            tokens: w.tokens,
            source: w.source,
            confidence: w.confidence,
            via: w.via.to_owned(),
        }
    }

    /// The window again; `None` when its route is not one this build reads (a file from
    /// another version).
    pub(crate) fn window(&self) -> Option<ContextWindow> {
        let via = super::parse::static_via(&self.via)?;
        Some(ContextWindow::new(
            self.tokens,
            self.source,
            self.confidence,
            via,
        ))
    }
}

impl EndpointFile {
    /// What was found for `model` no longer ago than [`MAX_AGE`] at `now` (`Some(None)`: that
    /// nothing was); `None`: ask the server.
    pub(crate) fn fresh(&self, model: &str, now: u64) -> Option<Option<ContextWindow>> {
        let saved = self.models.get(model)?;
        let age = now.checked_sub(saved.at)?;
        if age >= MAX_AGE.as_secs() {
            return None;
        }
        match &saved.window {
            None => Some(None),
            Some(w) => w.window().map(Some),
        }
    }

    /// Records what was found for `model` at `now`, dropping entries past their age.
    pub(crate) fn record(&mut self, model: &str, window: Option<&ContextWindow>, now: u64) {
        self.models
            .retain(|_, s| now.saturating_sub(s.at) < MAX_AGE.as_secs());
        self.models.insert(
            model.to_owned(),
            Saved {
                at: now,
                window: window.map(SavedWindow::of),
            },
        );
    }
}

/// `base_url` without user, password, query or fragment and without a trailing `/`: what an
/// endpoint is filed under (never a secret).
pub(crate) fn endpoint_key(base_url: &str) -> String {
    match reqwest::Url::parse(base_url) {
        Ok(mut u) => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            u.as_str().trim_end_matches('/').to_owned()
        }
        Err(_) => String::new(),
    }
}

/// The file name of an endpoint: its readable characters, and a hash of the whole key so that
/// two keys never share a file.
pub(crate) fn file_name(key: &str) -> String {
    let readable: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(80)
        .collect();
    // FNV-1a: stable across builds and platforms (std's hasher is not promised to be).
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{readable}-{hash:016x}.json")
}

/// Seconds since the epoch now.
pub(crate) fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The directory of the cache: `$XDG_CACHE_HOME/sayso/windows` (when absolute), else the
/// platform's cache directory's.
pub fn default_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    xdg.or_else(|| {
        use etcetera::BaseStrategy;
        etcetera::choose_base_strategy().ok().map(|b| b.cache_dir())
    })
    .map(|d| d.join("sayso").join("windows"))
}

/// The files of one cache directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Disk {
    pub dir: PathBuf,
}

impl Disk {
    /// The endpoint's file as it is on disk (an empty one when there is none or it is unreadable).
    pub(crate) fn load(&self, key: &str) -> EndpointFile {
        let text = std::fs::read_to_string(self.dir.join(file_name(key)));
        text.ok()
            .and_then(|t| serde_json::from_str::<EndpointFile>(&t).ok())
            .filter(|f| f.endpoint == key)
            .unwrap_or_else(|| EndpointFile {
                endpoint: key.to_owned(),
                ..EndpointFile::default()
            })
    }

    /// Writes the endpoint's file atomically; a failure is only logged.
    pub(crate) fn store(&self, file: &EndpointFile) {
        if let Err(e) = write_private(&self.dir, &file_name(&file.endpoint), file) {
            tracing::warn!(dir = %self.dir.display(), error = %e, "the window cache was not written");
        }
    }
}

fn write_private(dir: &Path, name: &str, file: &EndpointFile) -> std::io::Result<()> {
    create_private_dir(dir)?;
    let text = serde_json::to_vec_pretty(file).map_err(std::io::Error::other)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::io::Write::write_all(&mut tmp, &text)?;
    tmp.as_file().sync_all()?;
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        b.mode(0o700);
    }
    b.create(dir)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn llama() -> ContextWindow {
        ContextWindow::new(
            4096,
            WindowSource::LlamaCpp,
            Confidence::Loaded,
            "/v1/models meta.n_ctx",
        )
    }

    #[test]
    fn a_window_is_fresh_for_a_day_and_then_asked_again() {
        let mut f = EndpointFile::default();
        let t0 = 1_800_000_000;
        f.record("tiny", Some(&llama()), t0);
        f.record("other", None, t0);
        let day = MAX_AGE.as_secs();
        assert_eq!(f.fresh("tiny", t0), Some(Some(llama())));
        assert_eq!(f.fresh("tiny", t0 + day - 1), Some(Some(llama())));
        assert_eq!(f.fresh("tiny", t0 + day), None, "a day old: ask again");
        assert_eq!(
            f.fresh("other", t0 + 10),
            Some(None),
            "nothing found is kept too"
        );
        assert_eq!(f.fresh("third", t0), None, "per model");
        assert_eq!(
            f.fresh("tiny", t0 - 5),
            None,
            "a clock gone back asks again"
        );
        // Expired entries go when another is written.
        f.record("third", None, t0 + day + 1);
        assert_eq!(f.models.keys().collect::<Vec<_>>(), ["third"]);
    }

    #[test]
    fn an_unknown_route_in_a_file_is_no_window() {
        let mut f = EndpointFile::default();
        f.record("m", Some(&llama()), 10);
        f.models.get_mut("m").unwrap().window.as_mut().unwrap().via = "/somewhere".into();
        assert_eq!(f.fresh("m", 11), None);
    }

    #[test]
    fn the_endpoint_key_holds_no_credentials() {
        assert_eq!(
            endpoint_key("https://user:sk-secret@example.com/v1/?key=sk-2#x"),
            "https://example.com/v1"
        );
        assert_eq!(
            endpoint_key("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(endpoint_key("not a url"), "");
        let a = file_name("http://127.0.0.1:8080/v1");
        assert!(a.starts_with("http___127_0_0_1_8080_v1-"), "{a}");
        assert_ne!(a, file_name("http://127.0.0.1:8080/v2"));
        assert_eq!(a, file_name("http://127.0.0.1:8080/v1"), "stable");
    }

    #[test]
    fn files_are_private_written_whole_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let disk = Disk {
            dir: dir.path().join("sayso/windows"),
        };
        let key = endpoint_key("http://u:secret-pw@127.0.0.1:9/v1");
        let mut f = disk.load(&key);
        assert_eq!(f.models.len(), 0);
        f.missing.insert("/props".into());
        f.record("tiny", Some(&llama()), now_secs());
        disk.store(&f);
        assert_eq!(disk.load(&key), f);
        let path = disk.dir.join(file_name(&key));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("secret-pw"), "{text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), 0o600);
            assert_eq!(mode(&disk.dir), 0o700);
        }
        // A damaged file is as good as none.
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(disk.load(&key).models.len(), 0);
        let leftovers = std::fs::read_dir(&disk.dir).unwrap().count();
        assert_eq!(leftovers, 1, "no temporary file left behind");
    }
}
