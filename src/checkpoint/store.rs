//! The content-addressed object store in sayso's data directory
//! (`$XDG_DATA_HOME/sayso/checkpoints/objects/ab/cdef…`), shared by every checkpoint of every
//! session: a file's content is kept once however many checkpoints and sessions name it.
//!
//! Directories are `0700`, objects `0600`, written to a temporary file beside their place and
//! renamed into it (a reader never sees half an object). [`Store::sync`] makes what was
//! written durable before a record names it (one `syncfs` on Linux; elsewhere each object is
//! synced as it is written). Reading checks the bytes against their id. The store never
//! lives in, reads or writes a project's `.git`, and it deletes only what [`super::gc`] tells
//! it to.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::object::ObjectId;

/// The object store under one directory.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

/// Creates `dir` (and its parents) and makes it `0700`.
pub(super) fn private_dir(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

impl Store {
    /// The store of sayso's data directory (`DATA/checkpoints`), created if missing.
    pub fn in_data_dir(data_dir: &Path) -> io::Result<Self> {
        Self::open(&data_dir.join("checkpoints"))
    }

    /// The store at `root`, created if missing.
    pub fn open(root: &Path) -> io::Result<Self> {
        private_dir(&root.join("objects"))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(root, fs::Permissions::from_mode(0o700))?;
        }
        Ok(Self {
            root: root.to_path_buf(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path_of(&self, id: &ObjectId) -> PathBuf {
        let (fan, rest) = id.split();
        self.root.join("objects").join(fan).join(rest)
    }

    pub fn contains(&self, id: &ObjectId) -> bool {
        self.path_of(id).is_file()
    }

    /// Stores `bytes`; its id, and whether it was new.
    pub fn put(&self, bytes: &[u8]) -> io::Result<(ObjectId, bool)> {
        let id = ObjectId::of(bytes);
        let new = self.put_as(&id, bytes)?;
        Ok((id, new))
    }

    /// Stores `bytes` under `id` (already computed by the caller) unless it is there.
    pub(super) fn put_as(&self, id: &ObjectId, bytes: &[u8]) -> io::Result<bool> {
        let path = self.path_of(id);
        if path.is_file() {
            return Ok(false);
        }
        let dir = path.parent().unwrap_or(&self.root);
        if !dir.is_dir() {
            private_dir(dir)?;
        }
        // tempfile creates 0600 files.
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(bytes)?;
        if !cfg!(target_os = "linux") {
            tmp.as_file().sync_all()?;
        }
        tmp.persist(&path).map_err(|e| e.error)?;
        Ok(true)
    }

    /// The bytes of `id`: `NotFound` when absent, `InvalidData` when they no longer match it.
    pub fn get(&self, id: &ObjectId) -> io::Result<Vec<u8>> {
        let bytes = fs::read(self.path_of(id))?;
        if ObjectId::of(&bytes) != *id {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("checkpoint object {id} is damaged"),
            ));
        }
        Ok(bytes)
    }

    /// Makes every object written so far durable (before a record names one).
    pub fn sync(&self) -> io::Result<()> {
        let dir = File::open(&self.root)?;
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: syncfs on a descriptor we own; it only flushes.
            if unsafe { libc::syncfs(dir.as_raw_fd()) } != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        #[cfg(not(target_os = "linux"))]
        dir.sync_all()?;
        Ok(())
    }

    /// Every object id in the store.
    pub fn ids(&self) -> io::Result<Vec<ObjectId>> {
        let mut out = Vec::new();
        for fan in fs::read_dir(self.root.join("objects"))? {
            let fan = fan?;
            let Some(prefix) = fan.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if !fan.file_type()?.is_dir() {
                continue;
            }
            for obj in fs::read_dir(fan.path())? {
                let obj = obj?;
                if let Some(id) = obj
                    .file_name()
                    .to_str()
                    .and_then(|rest| ObjectId::parse(&format!("{prefix}{rest}")))
                {
                    out.push(id);
                }
            }
        }
        Ok(out)
    }

    /// The size of `id` on disk (0 when absent).
    pub fn size_of(&self, id: &ObjectId) -> u64 {
        fs::metadata(self.path_of(id)).map_or(0, |m| m.len())
    }

    /// When `id` was written.
    pub fn modified(&self, id: &ObjectId) -> Option<std::time::SystemTime> {
        fs::metadata(self.path_of(id))
            .and_then(|m| m.modified())
            .ok()
    }

    /// Deletes `id` (absent is fine).
    pub fn remove(&self, id: &ObjectId) -> io::Result<()> {
        match fs::remove_file(self.path_of(id)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// The bytes every object takes (their lengths summed).
    pub fn total_bytes(&self) -> io::Result<u64> {
        Ok(self.ids()?.iter().map(|id| self.size_of(id)).sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_stored_once_private_and_checked_on_read() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("cp")).unwrap();
        let (id, new) = store.put(b"hello").unwrap();
        assert!(new);
        assert!(!store.put(b"hello").unwrap().1);
        assert_eq!(store.get(&id).unwrap(), b"hello");
        assert_eq!(store.ids().unwrap(), vec![id.clone()]);
        store.sync().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&store.path_of(&id)), 0o600);
            assert_eq!(mode(store.root()), 0o700);
            assert_eq!(mode(store.path_of(&id).parent().unwrap()), 0o700);
        }
        fs::write(store.path_of(&id), b"tampered").unwrap();
        assert_eq!(
            store.get(&id).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        store.remove(&id).unwrap();
        assert!(!store.contains(&id));
        assert_eq!(store.total_bytes().unwrap(), 0);
    }
}
